#include "engine/core.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace vmafx {

GpuHalf::GpuHalf(const std::vector<FeatureInstance>& instances, const VideoFormat& format, const std::string& backend,
                 unsigned subsample, PlantedDefect plant)
    : backend_(backend), scorer_(std::make_unique<GpuScorer>(instances, format, backend, kSlots, subsample, plant)) {}

GpuHalf::~GpuHalf() { scorer_.reset(); }

void GpuHalf::hold(std::shared_ptr<const void> a, std::shared_ptr<const void> b) {
    held_.emplace_back(std::move(a), std::move(b));
    if (held_.size() > kSlots) held_.pop_front();
}

void GpuHalf::submit(unsigned index, const Picture& ref, const Picture& dist, std::shared_ptr<const void> keep_ref,
                     std::shared_ptr<const void> keep_dist) {
    scorer_->submit(index, ref, dist);
    hold(std::move(keep_ref), std::move(keep_dist));
}

void GpuHalf::submit_device(unsigned index, const DevicePicture& ref, const DevicePicture& dist,
                            std::shared_ptr<const void> keep) {
    scorer_->submit_device(index, ref, dist);
    hold(std::move(keep), nullptr);
}

void GpuHalf::drain_into(ScoreTable& table) {
    merge_scores(scorer_->drain(), table);
    held_.clear();
}

namespace {

/// Inside a catch block of `e`: throws it again, as an Error with `context`
/// (CoreConfig::error_context) appended to its message, or as it is without a context.
[[noreturn]] void throw_in_context(const Error& e, const std::string& context) {
    if (context.empty()) throw;
    throw Error(fmt::format("{}{}", e.what(), context));
}

/// Runs `fn`; an Error it throws (but a UsageError) is thrown again with `context` appended
/// (throw_in_context), so that a metric's refusal of a frame names the videos on every backend.
template <typename Fn>
void in_context(const std::string& context, Fn&& fn) {
    if (context.empty()) {
        fn();
        return;
    }
    try {
        fn();
    } catch (const UsageError&) {
        throw;
    } catch (const Error& e) {
        throw_in_context(e, context);
    }
}

/// The instances of `instances` that run on the CPU under `config`, and the twins' GPU half.
std::vector<FeatureInstance> split(const std::vector<FeatureInstance>& instances, const VideoFormat& format,
                                   const CoreConfig& config, std::unique_ptr<GpuHalf>& gpu) {
    if (config.backend == kCpuBackend) return instances;
    BackendSplit s = split_by_twin(instances, config.backend);
    if (!s.gpu.empty()) {
        try {
            gpu = std::make_unique<GpuHalf>(s.gpu, format, config.backend, config.subsample, config.plant);
        } catch (const UsageError&) {
            throw;
        } catch (const Error& e) {
            throw_in_context(e, config.error_context);
        }
    }
    return std::move(s.cpu);
}

CoreConfig normalized(CoreConfig config) {
    config.subsample = std::max(1u, config.subsample);
    return config;
}

}  // namespace

bool runs_wholly_on_gpu(const std::vector<FeatureInstance>& instances, const std::string& backend) {
    if (backend == kCpuBackend) return false;
    const BackendSplit s = split_by_twin(instances, backend);
    return !s.gpu.empty() && s.cpu.empty();
}

ScoringCore::ScoringCore(const std::vector<FeatureInstance>& instances, const VideoFormat& format,
                         const CoreConfig& config)
    : config_(normalized(config)),
      cpu_instances_(split(instances, format, config_, gpu_)),
      cpu_needs_(needs_of(cpu_instances_)),
      ref_history_(cpu_needs_.history.refs),
      dist_history_(cpu_needs_.history.dists) {
    if (cpu_instances_.empty()) return;
    try {
        extractors_.emplace(cpu_instances_, format, config_.subsample);  // throws for a format it refuses
    } catch (const UsageError&) {
        throw;
    } catch (const Error& e) {
        throw_in_context(e, config_.error_context);
    }
}

ScoringCore::~ScoringCore() = default;

PlaneSet ScoringCore::planes() const {
    if (gpu_ && gpu_->planes() == PlaneSet::kAll) return PlaneSet::kAll;
    return has_cpu() || !gpu_ ? cpu_needs_.planes : gpu_->planes();
}

void ScoringCore::pin(const Picture& pic) {
    if (gpu_) gpu_->pin(pic);
}

// The GPU half finishes a frame (and a twin may refuse it) when its slot is taken again, in
// submit, or at the end, in finish: its errors name the videos as the CPU extractors' do.
void ScoringCore::submit(const CoreFrame& f) {
    if (gpu_) in_context(config_.error_context, [&] { gpu_->submit(f.index, *f.ref, *f.dist, f.ref, f.dist); });
}

void ScoringCore::submit_device(unsigned index, const DevicePicture& ref, const DevicePicture& dist,
                                std::shared_ptr<const void> keep) {
    if (gpu_) in_context(config_.error_context, [&] { gpu_->submit_device(index, ref, dist, std::move(keep)); });
}

void ScoringCore::pass_history(CoreFrame& f) {
    ref_history_.pass(f.prev_ref, f.ref);
    dist_history_.pass(f.prev_dist, f.dist);
}

void ScoringCore::extract(CoreFrame& f) const {
    if (!extractors_) return;
    FrameInput in;
    in.index = f.index;
    in.ref = f.ref.get();
    in.dist = f.dist.get();
    for (unsigned k = 0; k < kMaxHistory; ++k) {
        in.prev_ref[k] = f.prev_ref[k].get();
        in.prev_dist[k] = f.prev_dist[k].get();
    }
    in_context(config_.error_context, [&] { extractors_->extract(in, f.scores); });
}

void ScoringCore::store(CoreFrame& f, ScoreTable& table) const {
    for (const auto& [name, value] : f.scores) table.set(name, f.index, value);
    f.scores.clear();
}

void ScoringCore::score_now(CoreFrame& f, ScoreTable& table) {
    const PictureHistory ref_before = ref_history_, dist_before = dist_history_;
    pass_history(f);
    try {
        extract(f);
    } catch (...) {
        ref_history_ = ref_before;
        dist_history_ = dist_before;
        throw;
    }
    store(f, table);
}

void ScoringCore::finish(ScoreTable& table) {
    ref_history_.clear();
    dist_history_.clear();
    if (extractors_) extractors_->flush(table);
    if (gpu_) in_context(config_.error_context, [&] { gpu_->drain_into(table); });
}

}  // namespace vmafx
