#include "feature/metric.hpp"

#include <algorithm>
#include <bit>
#include <string_view>

#include <fmt/format.h>

namespace vmafx {

namespace {

/// "4:2:0", "4:2:2" or "4:4:4".
const char* ratio_name(Subsampling s) {
    switch (s) {
        case Subsampling::k420: return "4:2:0";
        case Subsampling::k422: return "4:2:2";
        case Subsampling::k444: return "4:4:4";
    }
    return "?";
}

/// The smallest luma extent whose chroma extent (halved when `halved`) reaches `min_chroma`.
int luma_for_chroma(int min_chroma, bool halved, bool rounds_down) {
    if (!halved) return min_chroma;
    return rounds_down ? 2 * min_chroma : 2 * min_chroma - 1;
}

}  // namespace

int BitDepths::lowest() const { return mask ? std::countr_zero(mask) : 0; }

int BitDepths::highest() const { return mask ? 31 - std::countl_zero(mask) : 0; }

std::string BitDepths::text() const {
    const int lo = lowest();
    const int hi = highest();
    if (BitDepths::range(lo, hi) == *this) return fmt::format("{} to {}", lo, hi);
    std::string out;
    for (int b = lo; b <= hi; ++b) {
        if (!has(b)) continue;
        if (!out.empty()) out += b == hi ? " or " : ", ";
        out += std::to_string(b);
    }
    return out;
}

std::pair<int, int> FormatLimits::chroma_size(const VideoFormat& format) const {
    const bool halve_w = format.subsampling != Subsampling::k444;
    const bool halve_h = format.subsampling == Subsampling::k420;
    const int round = chroma_rounds_down ? 0 : 1;
    return {halve_w ? (format.width + round) / 2 : format.width, halve_h ? (format.height + round) / 2 : format.height};
}

std::pair<int, int> FormatLimits::smallest(Subsampling s) const {
    return {std::max(min_width, luma_for_chroma(min_chroma_width, s != Subsampling::k444, chroma_rounds_down)),
            std::max(min_height, luma_for_chroma(min_chroma_height, s == Subsampling::k420, chroma_rounds_down))};
}

std::vector<std::pair<int, int>> FormatLimits::corners(Subsampling s) const {
    const auto [w, h] = smallest(s);
    if (std::max(w, h) >= min_longer_side) return {{w, h}};
    return {{min_longer_side, h}, {w, min_longer_side}};
}

namespace {

/// Throws Error naming metric `name` and the limit unless `limits` accept `format`.
void check_limits(const char* name, const FormatLimits& limits, const VideoFormat& format) {
    if (!limits.bit_depths.has(format.bit_depth))
        throw Error(fmt::format("{}: bit depth {} is not supported ({})", name, format.bit_depth,
                                limits.bit_depths.text()));
    const char* space = *limits.why ? " " : "";
    if (format.width < limits.min_width || format.height < limits.min_height)
        throw Error(fmt::format("{}: picture {}x{} is too small: its luma plane must be at least {}x{}{}{}", name,
                                format.width, format.height, limits.min_width, limits.min_height, space,
                                limits.why));
    if (std::max(format.width, format.height) < limits.min_longer_side)
        throw Error(fmt::format("{}: picture {}x{} is too small: its luma plane must be at least {} wide or {} "
                                "high{}{}",
                                name, format.width, format.height, limits.min_longer_side, limits.min_longer_side,
                                space, limits.why));
    const auto [cw, ch] = limits.chroma_size(format);
    if (cw < limits.min_chroma_width || ch < limits.min_chroma_height)
        throw Error(fmt::format("{}: picture {}x{} in {} is too small: its chroma planes are {}x{}{} and must be at "
                                "least {}x{}{}{}",
                                name, format.width, format.height, ratio_name(format.subsampling), cw, ch,
                                limits.chroma_rounds_down ? " (rounded down, as upstream sizes them)" : "",
                                limits.min_chroma_width, limits.min_chroma_height, space, limits.why));
}

}  // namespace

void MetricDescriptor::check(const Options& opts, const VideoFormat& format) const {
    check_limits(name, limits_under(opts), format);
    if (refuse) refuse(opts, format);
}

std::unique_ptr<FeatureExtractor> MetricDescriptor::make_extractor(const Options& opts,
                                                                   const VideoFormat& format) const {
    check(opts, format);
    return create(opts, format);
}

bool Oracle::is_libvmaf() const { return reference && std::string_view(reference) == kLibvmaf; }

History MetricDescriptor::history_for(const Options& opts) const {
    const History h = history ? history(opts) : History{};
    if (h.refs > kMaxHistory || h.dists > kMaxHistory)
        throw Error(fmt::format("internal: {} asks for {} previous reference and {} previous distorted pictures, "
                                "at most {} each",
                                name, h.refs, h.dists, kMaxHistory));
    return h;
}

TemporalContext MetricDescriptor::context_for(const Options& opts) const {
    if (context) return context(opts);
    if (temporal) return {0, 0, true};
    const History h = history_for(opts);
    return {h.refs > h.dists ? h.refs : h.dists, 0, false};
}

bool MetricDescriptor::provides(const std::string& feature) const {
    for (const FeatureName& f : features)
        if (feature == f.name) return true;
    return false;
}

}  // namespace vmafx
