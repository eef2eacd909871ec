#include "engine/extraction.hpp"

#include "gpu/twin.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

namespace vmafx {

void add_instance(std::vector<FeatureInstance>& instances, const MetricDescriptor& metric,
                  const OptionValues& options) {
    add_instance(instances, metric, metric.parse_options(options));
}

void add_instance(std::vector<FeatureInstance>& instances, const MetricDescriptor& metric, Options opts) {
    const std::string name = opts.feature_name(metric.name);
    for (const auto& f : instances)
        if (f.metric == &metric && f.options.feature_name(metric.name) == name) return;
    instances.push_back({&metric, std::move(opts)});
}

Needs needs_of(const std::vector<FeatureInstance>& instances) {
    Needs n;
    for (const auto& f : instances) {
        if (f.metric->planes_for(f.options) == PlaneSet::kAll) n.planes = PlaneSet::kAll;
        const History h = f.metric->history_for(f.options);
        n.history.refs = std::max(n.history.refs, h.refs);
        n.history.dists = std::max(n.history.dists, h.dists);
    }
    return n;
}

FrameExtractors::FrameExtractors(const std::vector<FeatureInstance>& instances, const VideoFormat& format,
                                 unsigned subsample)
    : subsample_(std::max(1u, subsample)) {
    for (const auto& f : instances) {
        extractors_.push_back(f.metric->make_extractor(f.options, format));
        every_frame_.push_back(f.metric->sees_every_frame(f.options));
    }
}

void FrameExtractors::extract(const FrameInput& in, FrameScores& out) const {
    for (std::size_t e = 0; e < extractors_.size(); ++e) {
        if (!every_frame_[e] && subsample_ > 1 && in.index % subsample_) continue;
        extractors_[e]->extract(in, out);
    }
}

void FrameExtractors::flush(ScoreTable& table) const {
    for (const auto& e : extractors_) e->flush(table);
}

void order_as_upstream(ScoreTable& table, const std::vector<FeatureInstance>& instances, unsigned frames,
                       unsigned subsample) {
    struct When {
        int phase;             // 0: first call, 1: second call, 2: flush
        std::size_t instance;  // registration order
    };
    std::map<std::string, When> when;
    subsample = std::max(1u, subsample);
    for (std::size_t i = 0; i < instances.size(); ++i) {
        const FeatureInstance& f = instances[i];
        // The calls its extractor gets: every frame, or frames 0, subsample, 2 subsample, ...
        const std::uint64_t calls = f.metric->sees_every_frame(f.options)
                                        ? frames
                                        : (static_cast<std::uint64_t>(frames) + subsample - 1) / subsample;
        for (const FeatureName& n : f.metric->features) {
            const FirstWrite w = f.metric->first_write ? f.metric->first_write(f.options, n.name) : FirstWrite::kFirstCall;
            const int phase = w == FirstWrite::kFirstCall                 ? 0
                              : w == FirstWrite::kSecondCall && calls >= 2 ? 1
                                                                           : 2;
            when.emplace(f.options.feature_name(n.name), When{phase, i});
        }
    }
    // An output that is not a provided feature (float_ansnr's float_anpsnr, upstream's
    // provided_features lists only float_ansnr) was written in the same call as the one before
    // it: an extractor's outputs of one call are contiguous in the table.
    std::vector<std::string> names = table.names();
    std::vector<std::pair<When, std::size_t>> keys;  // (when, position in the table)
    When last{0, 0};
    for (std::size_t k = 0; k < names.size(); ++k) {
        if (const auto it = when.find(names[k]); it != when.end()) last = it->second;
        keys.push_back({last, k});
    }
    std::vector<std::size_t> order(names.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::pair{keys[a].first.phase, keys[a].first.instance} < std::pair{keys[b].first.phase, keys[b].first.instance};
    });
    std::vector<std::string> sorted;
    for (const std::size_t k : order) sorted.push_back(names[k]);
    table.reorder(std::move(sorted));
}

void predict_frames(std::span<const Model* const> models, ScoreTable& table, std::span<const unsigned> indices,
                    unsigned threads) {
    // Each frame's values are computed from the feature values alone (Model::score_at,
    // collection_at: const), so frames are predicted in parallel into `values`, then written in
    // frame order, each frame's as upstream's tool writes them. The first frame of `indices`
    // that fails (in their order) is the error thrown, as a sequential run would throw it.
    const std::size_t n_models = models.size();
    std::vector<std::vector<std::string>> names(n_models);
    std::size_t per_frame = 0;
    for (std::size_t m = 0; m < n_models; ++m) {
        names[m] = models[m]->output_names();
        per_frame += names[m].size();
    }
    std::vector<double> values(indices.size() * per_frame);
    std::mutex failure_mutex;  // guards failure and the stores to failed_at
    std::atomic<std::size_t> failed_at = indices.size();
    std::exception_ptr failure;
    const auto predict_range = [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t f = range.begin(); f != range.end(); ++f) {
            if (f > failed_at.load(std::memory_order_relaxed)) return;  // an earlier frame failed
            try {
                double* v = values.data() + f * per_frame;
                for (const Model* m : models) *v++ = m->score_at(table, indices[f]);
                for (const Model* m : models)
                    for (const double c : m->collection_at(table, indices[f])) *v++ = c;
            } catch (...) {
                const std::lock_guard lock(failure_mutex);
                if (f < failed_at.load(std::memory_order_relaxed)) {
                    failed_at.store(f, std::memory_order_relaxed);
                    failure = std::current_exception();
                }
                return;
            }
        }
    };
    constexpr std::size_t kFramesPerTask = 32;
    // At most oneTBB's default concurrency (the hardware threads, or a global_control's limit in
    // force): an arena asking for more workers than exist makes oneTBB print a warning.
    tbb::task_arena arena(std::min(static_cast<int>(std::clamp(threads, 1u, 1u << 20)),
                                   tbb::this_task_arena::max_concurrency()));
    arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, indices.size(), kFramesPerTask), predict_range);
    });
    if (failure) std::rethrow_exception(failure);
    for (std::size_t f = 0; f < indices.size(); ++f) {
        const double* v = values.data() + f * per_frame;
        for (std::size_t m = 0; m < n_models; ++m) table.set(names[m][0], indices[f], *v++);
        for (std::size_t m = 0; m < n_models; ++m)
            for (std::size_t k = 1; k < names[m].size(); ++k) table.set(names[m][k], indices[f], *v++);
    }
}

BackendSplit split_by_twin(const std::vector<FeatureInstance>& instances, const std::string& backend) {
    BackendSplit split;
    for (const FeatureInstance& f : instances)
        (find_twin(f.metric->name, backend) ? split.gpu : split.cpu).push_back(f);
    return split;
}

void merge_scores(const ScoreTable& from, ScoreTable& into) {
    for (const std::string& name : from.names())
        for (unsigned i = 0; i < from.frames(name); ++i)
            if (const auto v = from.get(name, i)) into.set(name, i, *v);
    for (const auto& [name, value] : from.aggregates()) into.set_aggregate(name, value);
}

}  // namespace vmafx
