// The scoring core's GPU half, shared by both front doors: the CLI's reader-driven run()
// (engine.cpp) and the push-based Session of the C API (session.cpp). A GPU run splits its
// metric instances by backend (split_by_twin); the twins' half is a GpuHalf: a GpuScorer on the
// run's GPU backend, plus the pictures it may still read (the last `slots` frames submitted),
// and, at the end, its scores merged into the run's table. The CPU half is FrameExtractors
// (engine/extraction.hpp), driven by each front door's own pipeline.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/scores.hpp"
#include "feature/metric.hpp"
#include "gpu/scheduler.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

/// The twins of a GPU run on backend `backend`, in frame order. Not thread-safe (one submitter).
class GpuHalf {
public:
    /// Frames in flight on the device.
    static constexpr unsigned kSlots = 4;

    /// The twins of `instances` (each must have one on `backend`) for `format`. Throws Error as
    /// GpuScorer's constructor.
    GpuHalf(const std::vector<FeatureInstance>& instances, const VideoFormat& format, const std::string& backend,
            unsigned subsample, PlantedDefect plant = PlantedDefect::kNone);
    /// Waits for the device (the scorer goes first, then the pictures it held).
    ~GpuHalf();
    GpuHalf(const GpuHalf&) = delete;
    GpuHalf& operator=(const GpuHalf&) = delete;

    /// The planes the twins read.
    PlaneSet planes() const { return scorer_->planes(); }
    const std::string& backend() const { return backend_; }
    /// As GpuScorer::pin.
    void pin(const Picture& pic) { scorer_->pin(pic); }

    /// Submits frame `index` (the next in order) from host pictures; `keep_ref` and `keep_dist`
    /// own them (or are null when the caller keeps them as GpuScorer::submit asks) and are held
    /// until `kSlots` more frames were submitted, or release().
    void submit(unsigned index, const Picture& ref, const Picture& dist, std::shared_ptr<const void> keep_ref,
                std::shared_ptr<const void> keep_dist);
    /// Submits frame `index` from device pictures of the backend; `keep` owns their memory and
    /// is held as above.
    void submit_device(unsigned index, const DevicePicture& ref, const DevicePicture& dist,
                       std::shared_ptr<const void> keep);
    /// Drops the held pictures now (their owner may need them back before the end; safe with
    /// frames in flight only for pageable host memory, which the device has read by submit's
    /// return).
    void release() { held_.clear(); }
    /// Waits for every frame, runs the twins' flush, adds their scores and aggregates to
    /// `table` (merge_scores), and drops the held pictures.
    void drain_into(ScoreTable& table);

private:
    void hold(std::shared_ptr<const void> a, std::shared_ptr<const void> b);

    std::string backend_;
    // Declared first: goes after the scorer, whose destructor waits for the device.
    std::deque<std::pair<std::shared_ptr<const void>, std::shared_ptr<const void>>> held_;
    std::unique_ptr<GpuScorer> scorer_;
};

}  // namespace vmafx
