// Internals shared by the C API's translation units (src/capi/libvmaf.cpp, and
// src/capi/libvmaf_cuda.cpp where the CUDA backend is built): the opaque types' definitions,
// error handling and the picture formats. Not installed.
#pragma once

#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "engine/engine.hpp"
#include "engine/session.hpp"
#include "gpu/twin.hpp"
#include "model/model.hpp"
#include "picture/picture.hpp"

// The C API is the shared library's only interface: its declarations get default visibility,
// everything else of vmafx is compiled hidden (CMakeLists.txt, cmake/libvmaf.map).
#pragma GCC visibility push(default)
#include "libvmaf/libvmaf.h"
#pragma GCC visibility pop

namespace vmafx::capi {

/// The global log level (upstream's vmaf_set_log_level, set by vmaf_init).
inline std::atomic<int> g_log_level{VMAF_LOG_LEVEL_ERROR};

inline void log_error(const char* where, const char* what) {
    if (g_log_level.load() >= VMAF_LOG_LEVEL_ERROR) std::fprintf(stderr, "libvmaf (vmafx): %s: %s\n", where, what);
}

/// Runs `fn` (returning 0 or a negative errno) and turns every exception into an error code:
/// bad_alloc into -ENOMEM, anything else (vmafx::Error, UsageError, ...) into -EINVAL, logged.
template <typename Fn>
int guarded(const char* where, Fn&& fn) noexcept {
    try {
        return fn();
    } catch (const std::bad_alloc&) {
        log_error(where, "out of memory");
        return -ENOMEM;
    } catch (const std::exception& e) {
        log_error(where, e.what());
        return -EINVAL;
    } catch (...) {
        log_error(where, "unknown error");
        return -EINVAL;
    }
}

/// The value of an enum argument as the caller passed it, read as bytes: a C caller may pass any
/// int (e.g. 99 for a VmafPixelFormat), which is undefined behaviour to load as the C++ enum.
template <typename E>
unsigned raw(const E& e) noexcept {
    static_assert(sizeof(E) == sizeof(unsigned));
    unsigned v;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

/// Normalizes a value as upstream's dictionary does for numbers (and as `--feature` does).
inline std::string normalized(const std::string& value) { return vmafx::normalize_option_value(value); }

/// One of the three layouts the engine knows, or nullopt (400 is handled by its caller).
inline std::optional<vmafx::Subsampling> subsampling_of(unsigned f) {
    switch (f) {
    case VMAF_PIX_FMT_YUV420P: return vmafx::Subsampling::k420;
    case VMAF_PIX_FMT_YUV422P: return vmafx::Subsampling::k422;
    case VMAF_PIX_FMT_YUV444P: return vmafx::Subsampling::k444;
    case VMAF_PIX_FMT_YUV400P: return vmafx::Subsampling::k420;  // chroma allocated, never shown
    default: return std::nullopt;
    }
}

/// The widest picture side accepted (sizes are ints in the engine; 65536 is far beyond video).
constexpr unsigned kMaxSide = 65536;

/// The engine's format of a `w` x `h` picture of VmafPixelFormat `fmt` at `bpc` bits, or nullopt
/// when libvmaf refuses it (unknown format, bpc outside 8..16, a side 0 or above kMaxSide).
inline std::optional<vmafx::VideoFormat> format_of(unsigned fmt, unsigned bpc, unsigned w, unsigned h) {
    const auto sub = subsampling_of(fmt);
    if (!sub || bpc < 8 || bpc > 16 || w == 0 || h == 0 || w > kMaxSide || h > kMaxSide) return std::nullopt;
    vmafx::VideoFormat f;
    f.width = static_cast<int>(w);
    f.height = static_cast<int>(h);
    f.bit_depth = static_cast<int>(bpc);
    f.subsampling = *sub;
    return f;
}

/// What an imported CUDA state gives a context (src/capi/libvmaf_cuda.cpp): its CUDA context,
/// made current on the calling thread around the context's GPU work, and the producer's
/// synchronization before device pictures are read.
class CudaBinding {
public:
    virtual ~CudaBinding() = default;
    /// Pushes the state's CUDA context on the calling thread (cuCtxPushCurrent).
    virtual void enter() = 0;
    /// Pops it (cuCtxPopCurrent).
    virtual void leave() = 0;
    /// Waits for the work the caller queued on the legacy default stream (the writes of device
    /// pictures it is about to hand in, as FFmpeg's cuMemcpy2D).
    virtual void wait_for_producer() = 0;
};

/// Makes a binding's CUDA context current for the scope (nothing without a binding).
class CudaScope {
public:
    explicit CudaScope(CudaBinding* b) : b_(b) {
        if (b_) b_->enter();
    }
    ~CudaScope() {
        if (b_) b_->leave();
    }
    CudaScope(const CudaScope&) = delete;
    CudaScope& operator=(const CudaScope&) = delete;

private:
    CudaBinding* b_;
};

}  // namespace vmafx::capi

/// A picture's buffer: the vmafx Picture (shared with the context once read) and the layout
/// the caller asked for; or, for a device picture (vmaf_cuda_fetch_preallocated_picture with
/// VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE), its device planes, their owner and format.
/// Each VmafPicture holding a buffer owns one VmafRef.
struct VmafRef {
    std::shared_ptr<vmafx::Picture> picture;  ///< host pictures
    unsigned pix_fmt = VMAF_PIX_FMT_UNKNOWN;  ///< a VmafPixelFormat
    /// Device pictures: the planes (owned by `device_owner`, which returns them to the
    /// context's pool when the last holder lets go) and their format.
    vmafx::DevicePicture device;
    std::shared_ptr<const void> device_owner;
    vmafx::VideoFormat device_format;
};

struct VmafFeatureDictionary {
    vmafx::OptionValues entries;  ///< (key, value as given), in insertion order
};

struct VmafModel {
    vmafx::ModelSpec spec;
    std::optional<vmafx::Model> model;
};

struct VmafModelCollection {
    vmafx::ModelSpec spec;
    std::optional<vmafx::Model> model;
};

struct VmafContext {
    VmafConfiguration cfg{};
    /// The imported CUDA state (vmaf_cuda_import_state); declared before the session, so that
    /// the session (and its GPU scorer) goes first.
    std::shared_ptr<vmafx::capi::CudaBinding> cuda;
    /// What vmaf_cuda_preallocate_pictures asked for (method NONE: none).
    unsigned cuda_prealloc_method = 0;
    std::optional<vmafx::VideoFormat> cuda_prealloc_format;
    unsigned cuda_prealloc_pix_fmt = 0;
    std::optional<vmafx::Session> session;
    std::optional<VmafPictureConfiguration> prealloc;
    unsigned pix_fmt = VMAF_PIX_FMT_UNKNOWN;  ///< VmafPixelFormat of the first pictures read
    std::chrono::steady_clock::time_point first_read, flushed_at;
    unsigned subsample() const { return cfg.n_subsample > 1 ? cfg.n_subsample : 1; }
};
