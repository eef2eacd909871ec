// What a run and a push-based Session share: registering metric instances (upstream's merging
// rule), what they read, the previous pictures they see, running every extractor on one frame,
// and the models' per-frame predictions. Internal to src/engine (and src/capi through Session).
#pragma once

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "base/scores.hpp"
#include "feature/metric.hpp"
#include "model/model.hpp"

namespace vmafx {

/// Adds the instance (metric, options) unless one of the same extractor with the same feature
/// parameters (the options that name its outputs) is there already: upstream's merging rule
/// (libvmaf fex_ctx_vector.c feature_extractor_vector_append compares the names
/// vmaf_feature_name_from_options gives the two), which keeps the first registered, so that
/// options that are not feature parameters (debug, adm_skip_aim) of a later registration are
/// dropped with it. Throws UsageError for an option the metric does not have or a bad value.
void add_instance(std::vector<FeatureInstance>& instances, const MetricDescriptor& metric,
                  const OptionValues& options);
/// As above with options already parsed (`options` were made by metric.parse_options).
void add_instance(std::vector<FeatureInstance>& instances, const MetricDescriptor& metric, Options options);

/// What a run's metric instances read: the union of their planes (luma only unless one
/// reads chroma) and of their previous pictures.
struct Needs {
    PlaneSet planes = PlaneSet::kLuma;
    History history;
};

/// The Needs of `instances`.
Needs needs_of(const std::vector<FeatureInstance>& instances);

/// The last `depth` pictures of one video, newest first: what the next frame's prev_ref (or
/// prev_dist) holds.
class PictureHistory {
public:
    explicit PictureHistory(unsigned depth) : depth_(depth) {}
    /// Gives the held pictures to `to`, then remembers `newest` in front.
    void pass(std::array<std::shared_ptr<Picture>, kMaxHistory>& to, const std::shared_ptr<Picture>& newest) {
        if (depth_ == 0) return;
        to = held_;
        for (unsigned k = depth_ - 1; k > 0; --k) held_[k] = held_[k - 1];
        held_[0] = newest;
    }
    void clear() { held_ = {}; }

private:
    unsigned depth_;
    std::array<std::shared_ptr<Picture>, kMaxHistory> held_{};
};

/// The CPU extractors of a set of metric instances for one video format, and which of them see
/// every frame whatever the subsampling (temporal metrics, those with history).
class FrameExtractors {
public:
    /// Creates each instance's extractor for `format`. Throws Error when a metric cannot score
    /// the format (its FormatLimits) or an option combination.
    FrameExtractors(const std::vector<FeatureInstance>& instances, const VideoFormat& format, unsigned subsample);
    /// Runs every extractor that scores frame `in.index` under the subsampling, appending its
    /// scores to `out` in registration order. Thread-safe for different frames. Throws Error.
    void extract(const FrameInput& in, FrameScores& out) const;
    /// After the last frame, in registration order (temporal scores that need later frames).
    void flush(ScoreTable& table) const;

private:
    std::vector<std::unique_ptr<FeatureExtractor>> extractors_;
    std::vector<bool> every_frame_;
    unsigned subsample_;
};

/// Puts the outputs of `instances` in `table` (a run of `frames` frames read, every
/// `subsample`-th scored) in the order upstream's single-threaded run writes them first:
/// by when each is first written (FirstWrite: the extractors' first calls, their second
/// calls, their flushes), then by instance in registration order, then in the order the
/// instance wrote them. A name that is no provided feature of an instance (float_anpsnr)
/// goes with the name before it in `table` (the same extractor's call).
/// Upstream's order with several threads varies from run to run; this is its one-thread order,
/// whatever the backend or thread count. Call after the flush and before the models predict.
void order_as_upstream(ScoreTable& table, const std::vector<FeatureInstance>& instances, unsigned frames,
                       unsigned subsample);

/// Every model's score at each of `indices` (in the order given), as upstream's tool writes
/// them: all models' own scores at a frame, then the bootstrap collections' (Model::score_at,
/// Model::collection_at). The frames are predicted on up to `threads` threads (oneTBB; 0 counts
/// as 1), then written in order; the values do not depend on `threads`. Throws Error when a
/// feature value is missing: the error of the first such frame in `indices`' order, with
/// nothing written.
void predict_frames(std::span<const Model* const> models, ScoreTable& table, std::span<const unsigned> indices,
                    unsigned threads);

/// A GPU run's split of its metric instances (`--backend cuda`): those with a twin on GPU
/// backend `backend` (find_twin) go to the GPU, the others to the CPU, each list in the order
/// given. Used by the CLI's engine and by a Session with an imported CUDA state, so that both
/// run the same metrics on the same side.
struct BackendSplit {
    std::vector<FeatureInstance> gpu, cpu;
};
BackendSplit split_by_twin(const std::vector<FeatureInstance>& instances, const std::string& backend);

/// Adds every per-frame score and aggregate of `from` (a GPU scorer's table) to `into`.
void merge_scores(const ScoreTable& from, ScoreTable& into);

}  // namespace vmafx
