#include "engine/core.hpp"

#include "engine/extraction.hpp"

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

}  // namespace vmafx
