// The integer ADM computation of one frame (detail loss and additive impairment of the
// distorted luma against the reference luma, over four levels of an integer Daubechies-2
// wavelet decomposition), bit-exact to upstream libvmaf 3.2.0 as built with its AVX-512
// kernels (the golden build).
// Upstream: libvmaf src/feature/integer_adm.c (integer_compute_adm and the C kernels) and
// src/feature/x86/adm_avx512.c (the kernels the golden values were made with; where they
// round or wrap differently from the C kernels, this code does as they do).
#pragma once

#include "feature/adm/adm_csf.hpp"
#include "picture/picture.hpp"

namespace vmafx::adm {

/// Smallest luma width and height the pipeline accepts. Upstream crashes below 17 and
/// between 17 and 32 reads outside its buffers (the DWT of level 3 then mirrors row and
/// column -1 to -1), so its scores there are undefined.
constexpr int kMinSize = 33;

/// Options of one ADM computation (upstream AdmState fields).
struct AdmConfig {
    CsfConfig csf;
    double enhn_gain_limit = 100.0;  ///< adm_enhn_gain_limit, in [1, 100]
    double noise_weight = 0.03125;   ///< adm_noise_weight
    bool skip_aim = false;           ///< adm_skip_aim: AIM numerators are left 0
    bool skip_scale0 = false;        ///< adm_skip_scale0: level 0 is only low-passed
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

/// Computes the ADM scores of `ref` and `dis`, two luma planes of the same width x height
/// (both at least kMinSize) with `bit_depth`-bit samples (uint8_t planes at 8 bits,
/// uint16_t above, up to 16). Thread-safe: scratch memory is per thread.
AdmScores compute_adm(const Plane& ref, const Plane& dis, int bit_depth, const AdmConfig& config);

}  // namespace vmafx::adm
