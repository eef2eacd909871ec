// Integer ADM (upstream libvmaf 3.2.0 feature extractor "adm"): options, outputs, factory.
//
// ADM (additive detail/impairment measure, "DLM" in the literature) compares the luma of
// the distorted picture with the reference's over four levels of an integer Db2 wavelet:
// the distorted detail coefficients are split into the part that restores the reference's
// detail and an additive rest; the detail loss measure (adm2) is the CSF-weighted,
// contrast-masked energy of the restored part over that of the reference, the additive
// impairment measure (aim) that of the rest. Upstream source: libvmaf
// src/feature/integer_adm.c, integer_adm.h, adm_csf_tools.h, barten_csf_tools.h and the
// x86/adm_avx512.c kernels the golden values were made with (see adm_pipeline.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "feature/adm/adm_pipeline.hpp"
#include "feature/metric.hpp"

namespace vmafx {

namespace adm {

/// Descriptor of the integer ADM extractor "adm" (listed in feature/metrics.def).
///
/// Options (upstream's table, in adm.cpp with their aliases, ranges and defaults; listed in
/// docs/metrics.md "Option tables"): debug (adds the debug outputs), adm_csf_scale,
/// adm_csf_diag_scale, adm_dlm_weight, adm_enhn_gain_limit, adm_norm_view_dist,
/// adm_ref_display_height, adm_csf_mode (0: Watson97, 1: Barten, 2 and 3: blended tables),
/// adm_noise_weight, adm_skip_aim, adm_skip_scale0, adm_min_val.
///
/// Per frame, extract() writes VMAF_integer_feature_adm2_score, _aim_score, _adm3_score
/// (max(adm2 * dlmw + (1 - aim) * (1 - dlmw), min)) and integer_adm_scale0..3, and with
/// debug integer_adm, integer_adm_num, integer_adm_den and integer_adm_num/den_scale0..3,
/// each named by Options::feature_name.
///
/// Its limits: bit depths 8..16 and luma at least 33 x 33 (upstream crashes below 17 and reads
/// outside its buffers from 17 to 32, where its scores are undefined); the factory throws Error
/// when nvd * rdh < 3240 (upstream fails every frame).
extern const MetricDescriptor descriptor;


/// One "adm" instance's options as the CPU extractor and its CUDA twin use them: the pipeline
/// configuration, and how a frame's AdmScores become its outputs (upstream integer_adm.c
/// init() and extract()).
struct Settings {
    /// The defaults of the descriptor's option table.
    Settings();
    /// The options of `descriptor` bound to the members below (and into `config`), and the
    /// output names formed from them.
    explicit Settings(const Options& options);

    /// Throws Error for options the integer ADM cannot score with: nvd * rdh below 3240.
    void check_options() const;

    /// max(adm2 * dlmw + (1 - aim) * (1 - dlmw), min) (upstream's adm3 output).
    double adm3(const AdmScores& s) const;

    /// Appends the frame's outputs to `out` in upstream's order (adm2, aim, adm3, the four
    /// scale ratios; with debug also adm, num, den and the per-scale num/den).
    void write_frame(const AdmScores& s, FrameScores& out) const;

    // Bound options (upstream's names and defaults in the descriptor's table, the one place
    // they are written): debug, adm_dlm_weight, adm_min_val here, the other nine in `config`.
    bool debug;
    double dlm_weight;
    double min_val;

    AdmConfig config;                ///< the pipeline configuration: the options it reads, bound
    std::vector<std::string> names;  ///< output name of each provided feature, in table order
};

}  // namespace adm


}  // namespace vmafx
