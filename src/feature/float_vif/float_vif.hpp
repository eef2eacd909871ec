// Floating-point VIF (upstream libvmaf 3.2.0 feature extractor "float_vif"): descriptor,
// settings, outputs.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "feature/common/float_image.hpp"
#include "feature/metric.hpp"

namespace vmafx::float_vif {

/// Descriptor of the floating-point VIF extractor "float_vif" (listed in feature/metrics.def;
/// see float_vif.cpp for the algorithm and its source).
///
/// Options (upstream's table in float_vif.cpp, which alone holds their ranges and defaults;
/// docs/metrics.md's generated tables show them): debug (not a feature parameter),
/// vif_enhn_gain_limit, vif_kernelscale (one of upstream's 21 accepted values), vif_prescale,
/// vif_scale1_min_val, vif_scale2_min_val, vif_scale3_min_val, vif_prescale_method (text:
/// nearest, bilinear, bicubic or lanczos4; the scaler of vif_prescale, bilinear at most
/// kBilinearMaxWidth wide after it), vif_sigma_nsq, vif_skip_scale0.
/// Per frame: VMAF_feature_vif_scale0..3_score (aliases vif_scale0..3), and with debug vif,
/// vif_num, vif_den and the per-scale numerators and denominators.
/// Limits: luma at least 16 x 16 with the default options (each scale's mirrored filter must
/// fit: radius <= size - 1); other kernel scales, prescales and prescale methods are checked
/// by the factory.
extern const MetricDescriptor descriptor;

/// The four scales' numerators and denominators (upstream's double scores[8], each the float
/// sum of its scale).
using ScaleSums = std::array<double, 8>;

/// One "float_vif" instance's options and outputs (upstream float_vif.c init() / extract()).
struct Settings {
    /// The option table's defaults (descriptor.parse_options({}) bound): the members bound to
    /// options carry no default of their own, so that each default is written once, in the table.
    Settings();
    /// The options of `descriptor` bound to the members below, and the output names.
    explicit Settings(const Options& options);

    bool debug;
    double gain_limit;  ///< vif_enhn_gain_limit
    double kernelscale;  ///< vif_kernelscale
    double prescale;  ///< vif_prescale
    double scale1_min;  ///< vif_scale1_min_val
    double scale2_min;  ///< vif_scale2_min_val
    double scale3_min;  ///< vif_scale3_min_val
    std::string prescale_method;  ///< vif_prescale_method
    double sigma_nsq;  ///< vif_sigma_nsq
    bool skip_scale0;  ///< vif_skip_scale0
    std::vector<std::string> names;  ///< output name of each provided feature, in table order

    /// Size of a width x height luma after the prescale ((int)(side * prescale + 0.5)).
    int scaled(int side) const;
    /// The scaler vif_prescale_method names (upstream vif_get_scaling_method); throws Error
    /// naming the metric for any other text.
    floatimg::ScaleMethod scale_method() const;
    /// Throws Error naming the metric unless these options can score a width x height luma
    /// (kernel scale accepted, prescale method known and, for bilinear, the prescaled width at
    /// most kBilinearMaxWidth, every scale's filter fits its picture).
    void check(int width, int height) const;
    /// Appends upstream's outputs of one frame to `out` from the scales' sums `s`.
    void write_frame(const ScaleSums& s, FrameScores& out) const;
};

/// Upstream compute_vif(): the four scales' numerator and denominator sums of the float
/// luma images `ref` and `dis` (same size, already prescaled), scales from 1 with
/// skip_scale0 (then s[0], s[1] are 0).
ScaleSums compute_vif(const floatimg::Image& ref, const floatimg::Image& dis, const Settings& settings);

}  // namespace vmafx::float_vif
