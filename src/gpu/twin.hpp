// The GPU layer's types: what a GPU twin of a metric sees of a frame (device planes), the twin
// interface, its parity contract (a bound as a function of the video format), the defects a
// test may plant in it, and its descriptor, which a twin's own file defines and gpu/twins.def
// lists. Host-only: no CUDA headers needed to use it; knows no metric and no engine.
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

struct CUstream_st;  // CUDA's stream type (cudaStream_t is CUstream_st*)

namespace vmafx {

/// A CUDA stream (cudaStream_t), named without including CUDA's headers.
using GpuStream = ::CUstream_st*;

/// A plane in device memory: `pitch` bytes between row starts; samples uint8_t at 8 bits,
/// uint16_t above (as Plane). data == nullptr: absent.
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
    /// Enqueues all device work of frame `f` on `stream`, ending with the asynchronous copy of
    /// its results to the slot's pinned host memory. Never synchronizes the host.
    virtual void enqueue(const GpuFrame& f, unsigned slot, GpuStream stream) = 0;
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

/// A registered GPU twin (listed in gpu/twins.def): the metric it twins (its descriptor's
/// name), its factory, its contract and the defects it can plant. Define it in the twin's file
/// as `extern const TwinDescriptor twin; const TwinDescriptor twin{...};` inside the metric's
/// namespace (a namespace-scope const has internal linkage without the extern declaration).
struct TwinDescriptor {
    const char* metric;
    /// The twin for `format` (already checked against the metric's limits) with `slots`
    /// result slots, planting `defect` (one of `defects`, or kNone). Throws Error for what
    /// the CPU extractor refuses, for 0 slots, and on CUDA errors.
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

/// All registered twins (empty when the CUDA backend is not built).
std::span<const TwinDescriptor* const> twin_registry();
/// The twin of metric `metric`, or nullptr.
const TwinDescriptor* find_twin(const std::string& metric);

}  // namespace vmafx
