// Integer VIF (upstream libvmaf 3.2.0 feature extractor "vif"): descriptor, settings, outputs.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "feature/metric.hpp"
#include "feature/vif/vif_kernels.hpp"

namespace vmafx::vif {

/// Descriptor of the integer VIF extractor "vif" (listed in feature/metrics.def; see vif.cpp
/// for the algorithm and its source).
///
/// Options (upstream's table in vif.cpp, which alone holds their ranges and defaults): debug
/// (not a feature parameter: adds the debug outputs), vif_enhn_gain_limit, vif_skip_scale0.
/// Per frame: VMAF_integer_feature_vif_scale0..3_score, and with debug integer_vif,
/// integer_vif_num, integer_vif_den and the per-scale numerators and denominators.
/// Limits: luma at least kMinSide x kMinSide (scale 3, a 1/8 decimation, must be at least
/// 2x2), bit depths 8..16.
extern const MetricDescriptor descriptor;

/// One "vif" instance's options as the CPU extractor and its CUDA twin use them, and its
/// outputs (upstream integer_vif.c init() and write_scores()).
struct Settings {
    /// The option table's defaults (descriptor.parse_options({}) bound): the members bound to
    /// options carry no default of their own, so that each default is written once, in the table.
    Settings();
    /// The options of `descriptor` bound to the members below, and the output names.
    explicit Settings(const Options& options);

    bool debug;
    double gain_limit;  ///< vif_enhn_gain_limit
    bool skip_scale0;  ///< vif_skip_scale0
    std::vector<std::string> names;  ///< output name of each provided feature, in table order

    /// The computation's parameters at `bit_depth`.
    Params params(int bit_depth) const { return {bit_depth, skip_scale0, gain_limit}; }

    /// Appends upstream's outputs of one frame (integer_vif.c write_scores()) to `out`: each
    /// scale's float num / den (scale 0: 0 with vif_skip_scale0), and with `debug` the totals
    /// and the per-scale numerators and denominators. `v`: the four scales' numerators and
    /// denominators (v[0] unused with skip_scale0).
    void write_frame(const std::array<ScaleScore, kScales>& v, FrameScores& out) const;
};

}  // namespace vmafx::vif
