// A push-based scoring session: the caller hands frame pairs in one at a time (libvmaf's
// vmaf_read_pictures), the session extracts each (on worker threads when asked), and a flush
// finishes the temporal features and predicts the models. It shares the planning, extraction,
// history and prediction code of run() (engine/extraction.hpp), so its values are the CLI's.
#pragma once

#include <memory>
#include <vector>

#include "base/scores.hpp"
#include "engine/engine.hpp"
#include "feature/metric.hpp"
#include "gpu/twin.hpp"
#include "model/model.hpp"
#include "picture/picture.hpp"

namespace vmafx {

/// How a Session runs.
struct SessionConfig {
    /// Worker threads: 0 extracts each frame on the caller's thread inside push(); N (at most
    /// kMaxThreads) extracts frames on N worker threads (no more than the hardware threads but
    /// one) while the caller pushes more, up to 2N frames in flight. Values do not depend on it.
    unsigned threads = 0;
    /// Score every N-th frame (0 or 1: all); metrics with history still see every frame.
    unsigned subsample = 1;
    /// Whether flush() predicts the added models. False: the models only choose the features,
    /// and the caller predicts on demand (the C API: upstream's libvmaf stores a model's score
    /// only when a client asks for it, and never over a value the name already holds).
    bool predict_at_flush = true;
};

/// One scoring session. Not thread-safe: one caller at a time (the workers are internal).
/// Usage: add_model()/add_feature(), then push() each frame pair in order, then flush(); the
/// scores are then in scores(). Values equal run()'s for the same frames, models and features.
class Session {
public:
    /// Throws UsageError for threads above kMaxThreads.
    explicit Session(const SessionConfig& config);
    /// Waits for the frames in flight.
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    /// Registers the metric instances `model` needs and predicts it at flush(), in the order
    /// models were added (copies share the loaded model). Throws UsageError once a frame was
    /// pushed; Error when a feature has no extractor (Model::required_features).
    void add_model(const Model& model);
    /// Registers metric `metric` with `options` (merged with an equal earlier instance).
    /// Throws UsageError once a frame was pushed or for a bad option.
    void add_feature(const MetricDescriptor& metric, const OptionValues& options);

    /// Runs the registered metrics that have a twin on GPU backend `backend` on the GPU (a
    /// GpuScorer) and the others on the CPU, split as the CLI's `--backend cuda`
    /// (split_by_twin), so that the values are the CLI's with `--backend cuda` (the twins'
    /// equal the CPU's, docs/parity.md). Frames must
    /// then be pushed with indices 0, 1, 2, ... in that order (when some metric has a twin). The GPU work of this and of every
    /// later call runs in the CUDA context current on the calling thread (the primary context
    /// of the current device when none is). `twins` false: every metric runs on the CPU, and
    /// device pictures (push_device) are downloaded (upstream's context with a gpumask). Throws
    /// UsageError once a frame was pushed; Error when this vmafx was built without the
    /// backend.
    void use_gpu(const std::string& backend, bool twins = true);
    bool uses_gpu() const;

    /// As push(), from pictures of `format` in device memory (pitch in bytes, samples as in
    /// Plane; the three planes unless the format has none, written completely before this call).
    /// The twins read them on the device; the CPU metrics, if any, read a host copy downloaded
    /// here (only then). `keep` owns their memory and is held until the GPU no longer reads
    /// them. Throws UsageError unless use_gpu() was called, and as push().
    void push_device(unsigned index, const VideoFormat& format, const DevicePicture& ref, const DevicePicture& dist,
                     std::shared_ptr<const void> keep);

    /// Hands in frame `index`'s reference and distorted pictures (all planes filled). The first
    /// push fixes the format and creates the extractors. Metrics with history see the pictures
    /// pushed before, whatever their indices. Throws UsageError after flush(), when the two
    /// pictures' formats differ or differ from the first frame's, or when `index` was pushed
    /// already; Error when a metric cannot score the format or fails on a frame (possibly
    /// that of an earlier push, reported here once its worker finished).
    void push(unsigned index, std::shared_ptr<Picture> ref, std::shared_ptr<Picture> dist);

    /// Waits for every frame, stores their scores in push order, runs the extractors' flush,
    /// then (with SessionConfig::predict_at_flush) predicts every added model at every pushed
    /// index that is a multiple of the subsampling, in increasing order. Throws like push(), UsageError when called twice.
    void flush();

    bool flushed() const;
    /// The planes the registered metrics read (luma only unless one reads chroma).
    PlaneSet planes() const;
    /// Frame pairs pushed.
    unsigned frames_pushed() const;
    /// The format of the first frame (meaningless before one).
    const VideoFormat& format() const;
    /// The scores: per frame once flushed (and those already stored before).
    ScoreTable& scores();
    const ScoreTable& scores() const;
    /// The session as a RunResult for the output writers (frames: highest index + 1).
    RunResult result(double fps) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace vmafx
