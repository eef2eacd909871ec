// The GPU pipeline: uploads each frame's luma once, runs every twin of the run on the device,
// keeps several frames in flight (one stream and result slot each), and collects scores in
// frame order. Used by the engine (`--backend cuda`), the parity gate, tests and benchmarks.
// Host-only header: no CUDA headers needed to use it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "feature/feature_extractor.hpp"

namespace vmafx {

/// One extractor instance of a run: the registered extractor and its options.
struct FeatureInstance {
    const ExtractorInfo* info = nullptr;
    Options options;
};

/// Empty when the CUDA backend is built and a device is usable; else why not.
std::string gpu_unavailable_reason();

/// Deliberate defects a test build can plant in the GPU twins to prove that the parity gate
/// catches them (DESIGN "planted regressions"). Never set in normal runs.
enum class PlantedDefect {
    kNone,
    kMirrorShift,       ///< a border mirror shifted by one sample
    kRoundingConstant,  ///< a rounding constant changed
    kReductionOrder,    ///< a floating-point reduction done in another order
    kContraction,       ///< a*b+c contracted into one fused multiply-add
};

/// The defect the twins plant now (kNone unless set_planted_defect was called).
PlantedDefect planted_defect();
/// Plants `d` in every twin enqueued from now on (tests of the parity gate only).
void set_planted_defect(PlantedDefect d);

/// Scores frames on the GPU with the twins of `features`.
///
/// Frames are submitted in order (index 0, 1, ...). submit() uploads the two luma planes
/// (asynchronously; host planes stay referenced until their frame is finished, so the caller
/// must keep each submitted Plane alive and unchanged until drain() or until `slots` more
/// frames were submitted), enqueues every twin, and when all slots are busy first waits for
/// the oldest frame and stores its scores. Device memory is allocated once at construction:
/// `slots` frames in flight plus the previous references temporal twins need.
class GpuScorer {
public:
    /// Throws Error when CUDA is unusable (gpu_unavailable_reason()) or a feature has no twin.
    /// `subsample` as the CPU engine: twins without history score every N-th frame only.
    GpuScorer(const std::vector<FeatureInstance>& features, const VideoFormat& format, unsigned slots = 4,
              unsigned subsample = 1);
    ~GpuScorer();
    GpuScorer(const GpuScorer&) = delete;
    GpuScorer& operator=(const GpuScorer&) = delete;

    /// Registers `plane`'s memory as pinned (cudaHostRegister) so that its uploads are truly
    /// asynchronous; optional (unregistered memory is copied synchronously by the driver).
    /// The registration is dropped when the scorer is destroyed.
    void pin(const Plane& plane);

    /// Submits frame `index` (the next in order) from host luma planes of the format.
    void submit(unsigned index, const Plane& ref_luma, const Plane& dist_luma);

    /// Submits frame `index` whose luma planes are already in device memory (pitch in bytes,
    /// samples as in Plane). The caller keeps them unchanged until the frame is finished.
    void submit_device(unsigned index, DevicePlane ref_luma, DevicePlane dist_luma);

    /// Waits for every submitted frame and stores its scores (no flush: more frames may follow).
    void wait_all();

    /// Waits for every submitted frame, stores its scores, then runs the twins' flush().
    /// Returns the scores of all frames (same names as the CPU extractors).
    ScoreTable& drain();

    /// Device memory held by the scorer, in bytes (buffers of the pipeline and of the twins
    /// are counted when they report it; for the docs and benchmarks).
    std::size_t device_bytes() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace vmafx
