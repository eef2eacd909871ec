#include "feature/metric.hpp"

#include <fmt/format.h>

namespace vmafx {

void MetricDescriptor::check_format(const VideoFormat& format) const {
    if (format.bit_depth < limits.min_bit_depth || format.bit_depth > limits.max_bit_depth)
        throw Error(fmt::format("{}: bit depth {} is not supported ({} to {})", name, format.bit_depth,
                                limits.min_bit_depth, limits.max_bit_depth));
    if (format.width < limits.min_width || format.height < limits.min_height)
        throw Error(fmt::format("{}: picture {}x{} is too small: it must be at least {}x{}{}{}", name, format.width,
                                format.height, limits.min_width, limits.min_height, *limits.why ? " " : "",
                                limits.why));
}

std::unique_ptr<FeatureExtractor> MetricDescriptor::make_extractor(const Options& opts,
                                                                   const VideoFormat& format) const {
    check_format(format);
    return create(opts, format);
}

History MetricDescriptor::history_for(const Options& opts) const {
    const History h = history ? history(opts) : History{};
    if (h.refs > kMaxHistory || h.dists > kMaxHistory)
        throw Error(fmt::format("internal: {} asks for {} previous reference and {} previous distorted pictures, "
                                "at most {} each",
                                name, h.refs, h.dists, kMaxHistory));
    return h;
}

bool MetricDescriptor::provides(const std::string& feature) const {
    for (const FeatureName& f : features)
        if (feature == f.name) return true;
    return false;
}

}  // namespace vmafx
