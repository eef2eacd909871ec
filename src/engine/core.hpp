// The one frame-scoring core under both front doors: the CLI's reader-driven run() (engine.cpp)
// and the push-based Session of the C API (session.cpp), and later the Python binding.
//
// A ScoringCore holds everything that decides a value: the split of the run's metric instances
// by backend (the metrics with a twin on the run's GPU backend go to the GPU, the others to the
// CPU: split_by_twin), the CPU half (FrameExtractors and the previous pictures each frame sees),
// the GPU half (GpuHalf: a GpuScorer and the pictures it may still read), how a frame's scores
// are stored, and the end of a run (the extractors' flush, the GPU's drain, the merge). The
// front doors only schedule its per-frame steps: run() through a oneTBB pipeline fed by its
// readers, Session inline or on worker threads as frames are pushed. A fix or a new backend
// lands here once.
//
// Per frame, in this order:
//   submit()        serial, in frame order: the frame's pictures to the GPU half (if any);
//   pass_history()  serial, in frame order: the previous pictures the CPU half's metrics see;
//   extract()       any thread, frames in parallel: the CPU half's scores of the frame;
//   store()         serial, in frame order: those scores into the run's table;
// then finish() once. score_now() is pass_history + extract + store on the caller's thread.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/scores.hpp"
#include "engine/extraction.hpp"
#include "feature/metric.hpp"
#include "gpu/scheduler.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

/// The twins of a GPU run on backend `backend`, in frame order. Not thread-safe (one submitter).
/// Part of ScoringCore; the front doors reach it only through the core.
class GpuHalf {
public:
    /// Frames in flight on the device. 8: the v1.0.16 models' twins at 3840x2160 score 473
    /// fps from device frames with 8, 284 with 4 (cambi's many small kernels overlap across
    /// frames), and 16 adds nothing (docs/performance.md, issue 25's third session).
    static constexpr unsigned kSlots = 8;

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
    /// own them (or own nothing when the caller keeps them as GpuScorer::submit asks) and are
    /// held until `kSlots` more frames were submitted, or drain_into().
    void submit(unsigned index, const Picture& ref, const Picture& dist, std::shared_ptr<const void> keep_ref,
                std::shared_ptr<const void> keep_dist);
    /// Submits frame `index` from device pictures of the backend; `keep` owns their memory and
    /// is held as above.
    void submit_device(unsigned index, const DevicePicture& ref, const DevicePicture& dist,
                       std::shared_ptr<const void> keep);
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

/// One frame pair on its way through the core: its pictures, the previous pictures its CPU
/// metrics see (filled by ScoringCore::pass_history) and its CPU scores (ScoringCore::extract).
struct CoreFrame {
    unsigned index = 0;
    std::shared_ptr<Picture> ref, dist;
    std::array<std::shared_ptr<Picture>, kMaxHistory> prev_ref, prev_dist;
    FrameScores scores;

    /// Drops every picture.
    void release() {
        ref.reset();
        dist.reset();
        for (auto& p : prev_ref) p.reset();
        for (auto& p : prev_dist) p.reset();
    }
};

/// How a ScoringCore runs.
struct CoreConfig {
    /// Score every N-th frame (0 or 1: all); metrics with history still see every frame.
    unsigned subsample = 1;
    /// The GPU backend whose twins score the metrics that have one, or kCpuBackend: every
    /// metric on the CPU.
    std::string backend = kCpuBackend;
    /// The parity gate's planted regression, handed to the twins (PlantedDefect::kNone else).
    PlantedDefect plant = PlantedDefect::kNone;
    /// Appended to the message of a CPU metric's error (a metric knows pictures, not files:
    /// the CLI names its videos here).
    std::string error_context;
};

/// Whether a core of `instances` on backend `backend` has a GPU half and no CPU half (then a
/// front door may read into pictures it keeps itself, and needs no CPU workers).
bool runs_wholly_on_gpu(const std::vector<FeatureInstance>& instances, const std::string& backend);

/// The scoring core (see the head of this file). Steps marked serial must be called from one
/// thread at a time, in frame order; extract() is thread-safe for different frames.
class ScoringCore {
public:
    /// Frames the GPU half keeps in flight (a front door's ring of pictures it keeps itself must
    /// be at least this deep, plus its own read-ahead).
    static constexpr unsigned kGpuSlots = GpuHalf::kSlots;

    /// The core of `instances` (in registration order) for pictures of `format`. Throws Error
    /// when a metric cannot score the format or an option combination, or as GpuScorer's
    /// constructor.
    ScoringCore(const std::vector<FeatureInstance>& instances, const VideoFormat& format, const CoreConfig& config);
    /// Waits for the device.
    ~ScoringCore();
    ScoringCore(const ScoringCore&) = delete;
    ScoringCore& operator=(const ScoringCore&) = delete;

    /// Whether some metric runs on the CPU / on the GPU.
    bool has_cpu() const { return !cpu_instances_.empty(); }
    bool has_gpu() const { return gpu_ != nullptr; }
    /// The planes a front door must fill in each host picture: the union of both halves'.
    PlaneSet planes() const;
    /// The planes the CPU half reads (of a device picture downloaded for it).
    PlaneSet cpu_planes() const { return cpu_needs_.planes; }
    /// Pins a host picture for faster uploads (GpuScorer::pin); nothing without a GPU half.
    void pin(const Picture& pic);

    /// Serial: hands frame `f` (the next in order) to the GPU half, which holds its pictures
    /// (f.ref and f.dist, which may own nothing when the caller keeps the pictures alive for
    /// kGpuSlots more frames) until it no longer reads them. Nothing without a GPU half.
    void submit(const CoreFrame& f);
    /// Serial: as submit() from device pictures of the GPU backend; `keep` owns their memory.
    void submit_device(unsigned index, const DevicePicture& ref, const DevicePicture& dist,
                       std::shared_ptr<const void> keep);
    /// Serial: gives `f` the previous pictures its CPU metrics see and remembers f's pictures.
    void pass_history(CoreFrame& f);
    /// Any thread: runs every CPU extractor that scores f.index into f.scores. Throws Error
    /// (with CoreConfig::error_context).
    void extract(CoreFrame& f) const;
    /// Serial: stores f.scores in `table` and clears them.
    void store(CoreFrame& f, ScoreTable& table) const;
    /// pass_history(), extract() and store() on the caller's thread. On an error the history
    /// is as it was before the call (upstream's inline path does not keep a refused frame's
    /// pictures as the next frame's previous ones).
    void score_now(CoreFrame& f, ScoreTable& table);
    /// After the last frame: drops the history, runs the CPU extractors' flush into `table`,
    /// waits for the GPU half and merges its scores. Call once.
    void finish(ScoreTable& table);

private:
    CoreConfig config_;
    // Before the CPU half: made first (by the split), and waits for the device when it goes.
    std::unique_ptr<GpuHalf> gpu_;
    std::vector<FeatureInstance> cpu_instances_;
    Needs cpu_needs_;
    std::optional<FrameExtractors> extractors_;
    PictureHistory ref_history_, dist_history_;
};

}  // namespace vmafx
