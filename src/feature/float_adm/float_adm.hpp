// Floating-point ADM (upstream libvmaf 3.2.0 feature extractor "float_adm"): descriptor,
// settings, outputs.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "feature/common/float_image.hpp"
#include "feature/metric.hpp"

namespace vmafx::float_adm {

/// Descriptor of the floating-point ADM extractor "float_adm" (listed in feature/metrics.def;
/// see float_adm.cpp for the algorithm and its source).
///
/// Options (upstream's table in float_adm.cpp, in its order, which alone holds their ranges and
/// defaults; docs/metrics.md's generated tables show them): debug, adm_enhn_gain_limit,
/// adm_norm_view_dist, adm_noise_weight, adm_csf_scale, adm_csf_diag_scale,
/// adm_ref_display_height, adm_csf_mode (0 Watson, 1 Barten, 2 the DLM paper's CSF, others
/// Watson), adm_bypass_cm, adm_adm3_apply_hm, adm_p_norm, adm_dlm_weight, adm_min_val,
/// adm_f1s0..3 / adm_f2s0..3 (the CSF weight of a scale's h/v and diagonal bands when >= 0),
/// adm_skip_aim_scale (at its default, -1, none), adm_skip_scale0.
/// Per frame: VMAF_feature_adm2_score, _aim_score, _adm3_score, _adm_scale0..3_score (aliases
/// adm2, aim, adm3, adm_scale0..3), and with debug adm, adm_num, adm_den and the per-scale
/// numerators and denominators.
/// Limits: luma at least 17 x 17 (every level's DWT input must be at least 2 samples and the
/// last level's bands 2 x 2 for the 3 x 3 masking neighbourhood; upstream reads outside its
/// buffers below), bit depths 8..16.
extern const MetricDescriptor descriptor;

/// Upstream compute_adm()'s results for one frame.
struct Scores {
    double score = 0.0;      ///< adm2: num / den (1 when den is 0)
    double score_aim = 0.0;  ///< aim: min(aim_num / aim_den, 1) (NaN when den is 0: upstream's is uninitialised)
    double num = 0.0;        ///< sum of the scales' numerators (0 below the limit of the picture's area)
    double den = 0.0;        ///< sum of the scales' denominators (likewise)
    std::array<double, 8> scales{};  ///< each scale's float numerator and denominator
};

/// One "float_adm" instance's options and outputs (upstream float_adm.c options, extract()).
struct Settings {
    /// The defaults of the descriptor's option table.
    Settings();
    /// The options of `descriptor` bound to the members below, and the output names.
    explicit Settings(const Options& options);

    // Bound options: upstream's names and defaults in the descriptor's table (float_adm.cpp),
    // the one place the defaults are written.
    bool debug;
    double enhn_gain_limit;
    double norm_view_dist;
    double noise_weight;
    double csf_scale;
    double csf_diag_scale;
    int ref_display_height;
    int csf_mode;
    int bypass_cm;
    bool adm3_apply_hm;
    double p_norm;
    double dlm_weight;
    double min_val;
    double f1s0, f1s1, f1s2, f1s3;  ///< adm_f1s0..3
    double f2s0, f2s1, f2s2, f2s3;  ///< adm_f2s0..3
    int skip_aim_scale;
    bool skip_scale0;
    std::vector<std::string> names;  ///< output name of each provided feature, in table order

    /// The float CSF weights of `scale` for the h and v bands (factor1) and the diagonal band
    /// (factor2), after the adm_f1sN / adm_f2sN overrides.
    std::array<float, 2> factors(int scale) const;
    /// Appends upstream's outputs of one frame to `out`.
    void write_frame(const Scores& s, FrameScores& out) const;
};

/// Upstream compute_adm() on the float luma images `ref` and `dis` (same size).
Scores compute_adm(const floatimg::Image& ref, const floatimg::Image& dis, const Settings& settings);

/// One scale's pooled values, as upstream compute_adm() forms them: the numerator (num_scale),
/// the denominator (den_scale; 1e-10 for a skipped scale 0) and the AIM numerator.
struct ScaleValues {
    float num = 0.0f;
    float den = 0.0f;
    float aim_num = 0.0f;
};

/// The last step of upstream compute_adm() on a `width` x `height` luma: the scales' values
/// summed in double in scale order (aim without adm_skip_aim_scale's scale), the limit on the
/// sums, the ratios. compute_adm() and the CUDA twin's finish() both end here.
Scores scores_of(const std::array<ScaleValues, 4>& values, int width, int height, const Settings& settings);

}  // namespace vmafx::float_adm
