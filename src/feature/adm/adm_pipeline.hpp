// The integer ADM computation of one frame (detail loss and additive impairment of the
// distorted luma against the reference luma, over four levels of an integer Daubechies-2
// wavelet decomposition), bit-exact to upstream libvmaf 3.2.0 as built with its AVX-512
// kernels (the golden build).
// Upstream: libvmaf src/feature/integer_adm.c (integer_compute_adm and the C kernels) and
// src/feature/x86/adm_avx512.c (the kernels the golden values were made with; where they
// round or wrap differently from the C kernels, this code does as they do).
#pragma once

#include <cstdint>

#include "feature/common/adm_csf.hpp"
#include "feature/adm/adm_math.hpp"
#include "picture/picture.hpp"

namespace vmafx::adm {

/// Smallest luma width and height the pipeline accepts. Upstream crashes below 17 and
/// between 17 and 32 reads outside its buffers (the DWT of level 3 then mirrors row and
/// column -1 to -1), so its scores there are undefined.
constexpr int kMinSize = 33;

/// Options of one ADM computation (upstream AdmState fields), bound by adm's option table (its
/// defaults are written there only: adm::Settings() gives them).
struct AdmConfig {
    CsfConfig csf;           ///< adm_csf_mode, adm_norm_view_dist, adm_ref_display_height, adm_csf_scale, adm_csf_diag_scale
    double enhn_gain_limit;  ///< adm_enhn_gain_limit, in [1, 100]
    double noise_weight;     ///< adm_noise_weight
    bool skip_aim;           ///< adm_skip_aim: AIM numerators are left 0
    bool skip_scale0;        ///< adm_skip_scale0: level 0 is only low-passed
};

/// Scores of one frame, before upstream's extract() combines them into its outputs.
struct AdmScores {
    double score = 1.0;      ///< DLM: num / den (1 when den is 0)
    double score_aim = 0.0;  ///< AIM: aim_num / den (0 when den is 0: upstream leaves it unset)
    double num = 0.0;        ///< sum of the level numerators (0 below upstream's noise limit)
    double den = 0.0;        ///< sum of the level denominators (likewise)
    double scale_num[4] = {};  ///< per-level DLM numerator (float values, as upstream)
    double scale_den[4] = {};  ///< per-level denominator
};

/// The integer sums of one frame, per DWT level (0..3) and orientation (0 h, 1 v, 2 d), from
/// which all its scores follow (adm_scores): the denominator (the reference's CSF-weighted
/// energy), and the contrast-masked numerators of DLM (num) and AIM (aim). Each is a sum over
/// rows of the row's rounded, shifted sum of per-sample cubes; sums a configuration skips
/// (level 0 with skip_scale0, aim with skip_aim) are 0. What the CUDA twin computes on the
/// device.
struct AdmSums {
    std::uint64_t den[4][3] = {};
    std::int64_t num[4][3] = {};
    std::int64_t aim[4][3] = {};
};

/// Shift and rounding constant upstream derives from ceil(log2(x)) + offset, converted as its
/// AVX-512 build converts (vcvttsd2usi): round = 2^(shift - 1) computed in uint32_t.
struct Shift {
    std::uint32_t shift;
    std::uint32_t round;
};
/// The Shift of ceil(log2(x) + offset) (upstream's cube and row shifts of levels 1..3 and of
/// level 0's contrast masking).
Shift log2_shift(double x, double offset);
/// Shift and rounding of level 0's per-row denominator sums: ceil(log2(area of the score
/// region `rg`)) - 20, at least 0 (upstream adm_csf_den_scale).
Shift den0_row_shift(const Region& rg);

/// The integer sums of the ADM of `ref` and `dis`, two luma planes of the same width x height
/// (both at least kMinSize) with `bit_depth`-bit samples (uint8_t planes at 8 bits, uint16_t
/// above, up to 16). Thread-safe: scratch memory is per thread.
AdmSums compute_adm_sums(const Plane& ref, const Plane& dis, int bit_depth, const AdmConfig& config);

/// The scores of a frame of luma width x height from its integer sums: the floating-point
/// end of upstream's integer_compute_adm (per level: the sums scaled back, cube roots with
/// powf, the noise floor; then the totals, the noise limit and the ratios), in its order.
/// The CPU extractor and the CUDA twin both score through this function.
AdmScores adm_scores(const AdmSums& sums, int width, int height, const AdmConfig& config);

/// adm_scores(compute_adm_sums(ref, dis, bit_depth, config), ...).
AdmScores compute_adm(const Plane& ref, const Plane& dis, int bit_depth, const AdmConfig& config);

}  // namespace vmafx::adm
