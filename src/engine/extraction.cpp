#include "engine/extraction.hpp"

#include "gpu/twin.hpp"

#include <algorithm>

namespace vmafx {

void add_instance(std::vector<FeatureInstance>& instances, const MetricDescriptor& metric,
                  const OptionValues& options) {
    Options opts = metric.parse_options(options);
    const std::string name = opts.feature_name(metric.name);
    for (const auto& f : instances)
        if (f.metric == &metric && f.options.feature_name(metric.name) == name) return;
    instances.push_back({&metric, std::move(opts)});
}

Needs needs_of(const std::vector<FeatureInstance>& instances) {
    Needs n;
    for (const auto& f : instances) {
        if (f.metric->planes == PlaneSet::kAll) n.planes = PlaneSet::kAll;
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

void predict_frames(std::span<const Model* const> models, ScoreTable& table, std::span<const unsigned> indices) {
    for (const unsigned i : indices) {
        for (const Model* m : models) m->predict_score(table, i);
        for (const Model* m : models) m->predict_collection(table, i);
    }
}

BackendSplit split_by_twin(const std::vector<FeatureInstance>& instances) {
    BackendSplit split;
    for (const FeatureInstance& f : instances) (find_twin(f.metric->name) ? split.gpu : split.cpu).push_back(f);
    return split;
}

void merge_scores(const ScoreTable& from, ScoreTable& into) {
    for (const std::string& name : from.names())
        for (unsigned i = 0; i < from.frames(name); ++i)
            if (const auto v = from.get(name, i)) into.set(name, i, *v);
    for (const auto& [name, value] : from.aggregates()) into.set_aggregate(name, value);
}

}  // namespace vmafx
