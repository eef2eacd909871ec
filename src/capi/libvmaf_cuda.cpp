// libvmaf 3.2.0's CUDA calls (include/libvmaf/libvmaf_cuda.h) on vmafx's GPU pipeline: an
// imported state makes the context's Session split its metrics as `--backend cuda` does
// (twins on a GpuScorer, the others on the CPU), and device pictures come from a per-context
// pool of pitched device buffers. Semantics follow upstream's src/libvmaf.c, src/cuda/common.c
// and src/cuda/picture_cuda.c; the differences are in docs/api.md. Built only with the CUDA
// backend (CMakeLists.txt).

#include <cuda.h>
#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "capi/capi.hpp"
#include "gpu/scheduler.hpp"

#pragma GCC visibility push(default)
#include "libvmaf/libvmaf_cuda.h"
#pragma GCC visibility pop

using namespace vmafx::capi;

/// A CUDA device and, when the caller gave one, its context (vmaf_cuda_state_init).
struct VmafCudaState {
    CUcontext ctx = nullptr;  ///< the caller's context, or null: device `dev`'s primary context
    CUdevice dev = 0;
};

namespace {

/// The driver calls the C API needs (context push/pop, the primary context), found through the
/// runtime (cudaGetDriverEntryPointByVersion), so that the library links no libcuda itself.
struct Driver {
    CUresult (*push)(CUcontext) = nullptr;
    CUresult (*pop)(CUcontext*) = nullptr;
    CUresult (*get_device)(CUdevice*) = nullptr;
    CUresult (*device_get)(CUdevice*, int) = nullptr;
    CUresult (*retain)(CUcontext*, CUdevice) = nullptr;
    CUresult (*release)(CUdevice) = nullptr;
};

/// The driver's calls, or an Error saying why not (no usable GPU, an entry point missing).
const Driver& driver() {
    static const std::string why = vmafx::gpu_unavailable_reason("cuda");
    if (!why.empty()) throw vmafx::Error(fmt::format("CUDA is not usable: {}", why));
    static const Driver d = [] {
        Driver r;
        const auto load = [](const char* name, auto& fn) {
            void* p = nullptr;
            cudaDriverEntryPointQueryResult status{};
            if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status) != cudaSuccess ||
                status != cudaDriverEntryPointSuccess || !p)
                throw vmafx::Error(fmt::format("the CUDA driver has no {}", name));
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
        };
        load("cuCtxPushCurrent", r.push);
        load("cuCtxPopCurrent", r.pop);
        load("cuCtxGetDevice", r.get_device);
        load("cuDeviceGet", r.device_get);
        load("cuDevicePrimaryCtxRetain", r.retain);
        load("cuDevicePrimaryCtxRelease", r.release);
        return r;
    }();
    return d;
}

void check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) throw vmafx::Error(fmt::format("{} failed (CUDA driver error {})", what, static_cast<int>(r)));
}

void check(cudaError_t r, const char* what) {
    if (r != cudaSuccess) throw vmafx::Error(fmt::format("{} failed: {}", what, cudaGetErrorString(r)));
}

/// One device picture's planes (cudaMallocPitch), all three of its format.
struct DeviceFrame {
    vmafx::VideoFormat format;
    void* data[3] = {};
    std::size_t pitch[3] = {};
};

/// A context's imported state: its CUDA context (the primary one retained until the end) and
/// the pool of device pictures that vmaf_cuda_fetch_preallocated_picture hands out.
class Binding final : public CudaBinding, public std::enable_shared_from_this<Binding> {
public:
    explicit Binding(const VmafCudaState& state) : dev_(state.dev), ctx_(state.ctx) {
        if (!ctx_) {
            check(driver().retain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
            primary_ = true;
        }
    }

    ~Binding() override {
        // Never throws: the frames go back to the driver in the state's context.
        const Driver& d = driver();
        if (d.push(ctx_) == CUDA_SUCCESS) {
            for (DeviceFrame* f : free_) release(f);
            CUcontext popped;
            d.pop(&popped);
        }
        if (primary_) d.release(dev_);
    }

    void enter() override { check(driver().push(ctx_), "cuCtxPushCurrent"); }
    void leave() override {
        CUcontext popped;
        driver().pop(&popped);
    }
    void wait_for_producer() override {
        check(cudaStreamSynchronize(cudaStreamLegacy), "waiting for the legacy default stream");
    }

    /// A device picture of `format` from the pool (allocated when none is free), owned by the
    /// result: its last holder gives it back.
    std::shared_ptr<DeviceFrame> take(const vmafx::VideoFormat& format) {
        DeviceFrame* f = nullptr;
        {
            std::lock_guard lock(mutex_);
            for (auto it = free_.begin(); it != free_.end(); ++it)
                if ((*it)->format == format) {
                    f = *it;
                    free_.erase(it);
                    break;
                }
        }
        if (!f) f = allocate(format);
        return std::shared_ptr<DeviceFrame>(f, [self = shared_from_this()](DeviceFrame* g) { self->give_back(g); });
    }

private:
    DeviceFrame* allocate(const vmafx::VideoFormat& format) {
        auto f = std::make_unique<DeviceFrame>();
        f->format = format;
        CudaScope scope(this);
        try {
            for (int p = 0; p < 3; ++p)
                check(cudaMallocPitch(&f->data[p], &f->pitch[p],
                                      static_cast<std::size_t>(format.plane_width(p)) * format.bytes_per_sample(),
                                      static_cast<std::size_t>(format.plane_height(p))),
                      "cudaMallocPitch");
        } catch (...) {
            release(f.get());
            throw;
        }
        return f.release();
    }

    /// Frees `f`'s memory (the state's context current).
    static void release(DeviceFrame* f) {
        for (void* p : f->data)
            if (p) cudaFree(p);
        delete f;
    }

    void give_back(DeviceFrame* f) {
        std::lock_guard lock(mutex_);
        free_.push_back(f);
    }

    CUdevice dev_;
    CUcontext ctx_;
    bool primary_ = false;
    std::mutex mutex_;
    std::vector<DeviceFrame*> free_;
};

/// The DEVICE method's picture in `pic`.
int fetch_device(VmafContext* vmaf, VmafPicture* pic) {
    auto& binding = static_cast<Binding&>(*vmaf->cuda);
    const vmafx::VideoFormat& format = *vmaf->cuda_prealloc_format;
    return guarded("vmaf_cuda_fetch_preallocated_picture", [&] {
        std::shared_ptr<DeviceFrame> frame = binding.take(format);
        auto ref = std::make_unique<VmafRef>();
        ref->pix_fmt = vmaf->cuda_prealloc_pix_fmt;
        ref->device_format = format;
        std::memset(pic, 0, sizeof(*pic));
        pic->pix_fmt = static_cast<VmafPixelFormat>(ref->pix_fmt);
        pic->bpc = static_cast<unsigned>(format.bit_depth);
        const int shown = ref->pix_fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;
        for (int p = 0; p < 3; ++p) {
            ref->device.planes[p] = {frame->data[p], static_cast<std::ptrdiff_t>(frame->pitch[p])};
            if (p >= shown) continue;
            pic->w[p] = static_cast<unsigned>(format.plane_width(p));
            pic->h[p] = static_cast<unsigned>(format.plane_height(p));
            pic->stride[p] = static_cast<std::ptrdiff_t>(frame->pitch[p]);
            pic->data[p] = frame->data[p];
        }
        ref->device_owner = std::move(frame);
        pic->ref = ref.get();
        pic->priv = ref.release();
        return 0;
    });
}

}  // namespace

extern "C" {

int vmaf_cuda_state_init(VmafCudaState** cu_state, VmafCudaConfiguration cfg) {
    if (!cu_state) return -EINVAL;
    *cu_state = nullptr;
    return guarded("vmaf_cuda_state_init", [&] {
        const Driver& d = driver();
        auto state = std::make_unique<VmafCudaState>();
        if (cfg.cu_ctx) {
            // As upstream: the caller's context is checked (and its device found) by pushing it.
            state->ctx = static_cast<CUcontext>(cfg.cu_ctx);
            check(d.push(state->ctx), "cuCtxPushCurrent (the context given)");
            const CUresult r = d.get_device(&state->dev);
            CUcontext popped;
            d.pop(&popped);
            check(r, "cuCtxGetDevice");
        } else {
            check(d.device_get(&state->dev, 0), "cuDeviceGet(0)");
        }
        *cu_state = state.release();
        return 0;
    });
}

int vmaf_cuda_import_state(VmafContext* vmaf, VmafCudaState* cu_state) {
    if (!vmaf || !cu_state) return -EINVAL;
    if (vmaf->cuda) {
        log_error("vmaf_cuda_import_state", "a CUDA state was imported already");
        return -EINVAL;
    }
    return guarded("vmaf_cuda_import_state", [&] {
        auto binding = std::make_shared<Binding>(*cu_state);
        // As upstream, a context configured with a gpumask runs no CUDA extractor (every
        // metric on the CPU; device pictures are then downloaded).
        vmaf->session->use_gpu("cuda", vmaf->cfg.gpumask == 0);  // throws once pictures were read
        vmaf->cuda = std::move(binding);
        return 0;
    });
}

int vmaf_cuda_preallocate_pictures(VmafContext* vmaf, VmafCudaPictureConfiguration cfg) {
    if (!vmaf) return -EINVAL;
    const unsigned method = raw(cfg.pic_prealloc_method);
    switch (method) {
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE:
        vmaf->cuda_prealloc_method = method;
        vmaf->cuda_prealloc_format.reset();
        return 0;
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE:
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST:
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED: break;
    default: log_error("vmaf_cuda_preallocate_pictures", "unknown preallocation method"); return -EINVAL;
    }
    const unsigned pix_fmt = raw(cfg.pic_params.pix_fmt);
    const auto format = format_of(pix_fmt, cfg.pic_params.bpc, cfg.pic_params.w, cfg.pic_params.h);
    if (!format) {
        log_error("vmaf_cuda_preallocate_pictures", "bad picture size, bit depth or pixel format");
        return -EINVAL;
    }
    if (method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE && !vmaf->cuda) {
        log_error("vmaf_cuda_preallocate_pictures", "device pictures need an imported CUDA state");
        return -EINVAL;
    }
    vmaf->cuda_prealloc_method = method;
    vmaf->cuda_prealloc_format = format;
    vmaf->cuda_prealloc_pix_fmt = pix_fmt;
    return 0;
}

int vmaf_cuda_fetch_preallocated_picture(VmafContext* vmaf, VmafPicture* pic) {
    if (!vmaf || !pic || !vmaf->cuda_prealloc_format) return -EINVAL;
    const vmafx::VideoFormat& f = *vmaf->cuda_prealloc_format;
    switch (vmaf->cuda_prealloc_method) {
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE: return fetch_device(vmaf, pic);
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST:
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED:
        return vmaf_picture_alloc(pic, static_cast<VmafPixelFormat>(vmaf->cuda_prealloc_pix_fmt),
                                  static_cast<unsigned>(f.bit_depth), static_cast<unsigned>(f.width),
                                  static_cast<unsigned>(f.height));
    default: return -EINVAL;
    }
}

}  // extern "C"
