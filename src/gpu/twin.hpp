// The GPU layer's types: what a GPU twin of a metric sees of a frame (device planes), the twin
// interface, its parity contract (a bound as a function of the video format), the defects a
// test may plant in it, and its descriptor, which a twin's own file defines and gpu/twins.def
// lists with its backend. Backend-neutral: no backend's headers or types (a queue is the opaque
// GpuQueue, which each backend's folder turns into its own: src/cuda/device.hpp, stream_of);
// knows no metric and no engine.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "base/error.hpp"
#include "base/options.hpp"
#include "base/scores.hpp"
#include "feature/metric.hpp"
#include "picture/picture.hpp"

namespace vmafx {

/// A queue of device work of a GPU backend (CUDA: a stream), opaque outside the backend's
/// folder: never defined, only pointed to. Work enqueued on one queue runs in order; the
/// backend's device API (gpu/device_api.hpp) creates queues and orders them with events.
struct GpuQueue;

/// A plane in device memory of the run's backend: `data` is the backend's address of the first
/// sample, opaque here (never dereferenced outside the backend's folder: CUDA's is a device
/// pointer; a Vulkan backend's a buffer device address, VK_KHR_buffer_device_address, core in
/// Vulkan 1.2, which is 64 bits as a pointer is), `pitch` bytes between row starts; samples
/// uint8_t at 8 bits, uint16_t above (as Plane). data == nullptr: absent.
struct DevicePlane {
    const void* data = nullptr;
    std::ptrdiff_t pitch = 0;
};

/// A picture in device memory: Y, Cb, Cr (the chroma planes absent unless a twin of the run
/// declares PlaneSet::kAll).
struct DevicePicture {
    std::array<DevicePlane, 3> planes{};
    const DevicePlane& luma() const { return planes[0]; }
};

/// What a GPU twin sees of one frame: device copies of the planes its metric declares of the
/// reference and distorted pictures, and the previous pictures it declares: prev_ref[k] /
/// prev_dist[k] is frame index - 1 - k (absent before the start).
struct GpuFrame {
    unsigned index = 0;
    DevicePicture ref, dist;
    std::array<DevicePicture, kMaxHistory> prev_ref{}, prev_dist{};
};

/// A metric's GPU twin: the same outputs as its CPU extractor, computed on the device. The
/// pipeline keeps several frames in flight, each in a result slot (0..slots-1, the count given
/// at creation); a twin owns per-slot device and pinned host memory.
class GpuTwin {
public:
    virtual ~GpuTwin() = default;
    /// Enqueues all device work of frame `f` on `queue` (a queue of the twin's backend),
    /// ending with the asynchronous copy of its results to the slot's pinned host memory.
    /// Only enqueues work on `queue` (kernels, asynchronous copies and sets) and updates the
    /// twin's own host state: never synchronizes the host, allocates, copies from pageable host memory or uses
    /// another queue, so that the scheduler can record the call into a graph of the backend and
    /// launch that (DeviceApi::begin_capture; CUDA graphs).
    virtual void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) = 0;
    /// Once the stream work of `slot` has completed: appends the frame's scores (the CPU
    /// extractor's names and, per the contract, its values) to `out`.
    virtual void finish(unsigned slot, unsigned index, FrameScores& out) = 0;
    /// As FeatureExtractor::flush.
    virtual void flush(ScoreTable& table) const { (void)table; }
};

/// Deliberate defects a test can plant in a twin to prove that the parity gate catches them
/// (../shared/DESIGN.md, "planted regressions"). Never planted in normal runs.
enum class PlantedDefect {
    kNone,
    kContraction,       ///< a*b+c inside a kernel contracted into one fused multiply-add
    kMirrorShift,       ///< a border mirror inside a kernel shifted by one sample
    kRoundingConstant,  ///< a rounding constant (or rounding step) inside a kernel changed
    kReductionOrder,    ///< a sum inside a kernel taken in another order (or precision)
};

/// Short name of a defect, for test names and reports ("contraction", ...).
const char* planted_defect_name(PlantedDefect d);

/// A twin's parity contract, declared in the twin's file and read by the parity gate: the
/// largest |gpu - cpu| allowed at a video format (0: exact, every value the CPU's bits), and
/// the derivation of that bound as text.
struct TwinContract {
    double (*bound)(const VideoFormat& format);
    const char* derivation;
};

/// The bound of an exact twin: 0 at every format.
inline double exact_bound(const VideoFormat&) { return 0.0; }

/// A registered GPU twin (listed in gpu/twins.def with its backend): the metric it twins (its
/// descriptor's name), its factory, its contract and the defects it can plant. Define it in the twin's file
/// as `extern const TwinDescriptor cuda_twin; const TwinDescriptor cuda_twin{...};` (`vulkan_twin`
/// for the Vulkan backend, and so on: `<backend>_twin`) inside the metric's
/// namespace (a namespace-scope const has internal linkage without the extern declaration).
struct TwinDescriptor {
    const char* metric;
    /// The twin for `format` (already checked against the metric's limits) with `slots`
    /// result slots, planting `defect` (one of `defects`, or kNone). Throws Error for what
    /// the CPU extractor refuses, for 0 slots, and on the backend's errors.
    std::unique_ptr<GpuTwin> (*create)(const Options& options, const VideoFormat& format, unsigned slots,
                                       PlantedDefect defect);
    TwinContract contract;
    /// The defects it can plant inside its kernels: at least a border/mirror shift and a rounding
    /// or summation-order change, and a contraction unless why_no_contraction says why none can
    /// change a value.
    std::span<const PlantedDefect> defects;
    /// Why no contraction is declared (e.g. "integer arithmetic only on the device"); nullptr
    /// when kContraction is among `defects`.
    const char* why_no_contraction = nullptr;
};

/// The factory of twin class T, built as T(options, format, slots, defect), for
/// TwinDescriptor::create: refuses 0 slots before T is built (T's constructor throws Error for
/// what else it refuses).
template <typename T>
std::unique_ptr<GpuTwin> make_twin(const Options& options, const VideoFormat& format, unsigned slots,
                                   PlantedDefect defect) {
    if (slots == 0) throw Error("a GPU twin needs at least one result slot");
    return std::make_unique<T>(options, format, slots, defect);
}

/// The name of the CPU backend (the reference extractors): "cpu". Every other backend name is
/// a GPU backend's (gpu_backends()).
inline constexpr const char* kCpuBackend = "cpu";

/// A GPU backend known to this source tree (gpu/twins.def's second column): its name as the
/// CLI's --backend and the outputs spell it ("cuda"), and whether this build has it (false:
/// `built_without` says how to build it).
struct GpuBackendInfo {
    const char* name;
    const char* label;  ///< as prose names it: "CUDA"
    bool built;
    const char* built_without;  ///< e.g. "configure with -DVMAFX_CUDA=ON where nvcc is installed"
};

/// Every GPU backend of the source tree, built or not, in the order of gpu/twins.def.
std::span<const GpuBackendInfo> gpu_backends();
/// The GPU backend named `name`, or nullptr (also for "cpu").
const GpuBackendInfo* find_gpu_backend(const std::string& name);
/// The label of backend `name` ("CUDA"; "CPU" for kCpuBackend; `name` itself when unknown).
std::string backend_label(const std::string& name);

/// All registered twins of the built backends, in the order of gpu/twins.def (empty when no
/// GPU backend is built).
std::span<const TwinDescriptor* const> twin_registry();
/// The registered twins of backend `backend` (empty when it is not built or unknown).
std::span<const TwinDescriptor* const> twin_registry(const std::string& backend);
/// The twin of metric `metric` on backend `backend`, or nullptr (always for "cpu").
const TwinDescriptor* find_twin(const std::string& metric, const std::string& backend);
/// The backend of registered twin `twin` ("cuda"), or nullptr when it is not registered.
const char* backend_of(const TwinDescriptor& twin);

}  // namespace vmafx
