// Contrast sensitivity weights of the integer ADM metric: how strongly each DWT subband is
// weighted at each decomposition level, for the four CSF models upstream offers.
// Upstream: libvmaf src/feature/integer_adm.c (dwt_quant_step), integer_adm.h (Watson
// thresholds and basis amplitudes), barten_csf_tools.h (Barten CSF and the blended tables).
#pragma once

#include <array>
#include <cstdint>

namespace vmafx::adm {

/// Upstream's adm_csf_mode values.
enum class CsfMode : int {
    kWatson97 = 0,          ///< noise-floor model of Watson et al. 1997 (the default)
    kBarten = 1,            ///< Barten CSF as simplified in HDR-VDP-2
    kBlend = 2,             ///< tabulated Barten/Watson blend (models v1.0.16)
    kBlendMae = 3,          ///< tabulated Barten/Watson blend, refitted (models v1.0.17+)
};

/// The viewing-condition options that select the CSF weights. No defaults here: the metrics'
/// option tables hold them (adm binds these members directly; float_adm fills them).
struct CsfConfig {
    CsfMode mode;
    double norm_view_dist;   ///< viewing distance / display height
    int ref_display_height;  ///< display height in pixels
    double csf_scale;        ///< Barten only: factor of the horizontal/vertical weight
    double csf_diag_scale;   ///< Barten only: factor of the diagonal weight
};

/// CSF weights of DWT level `scale` (0 = finest .. 3) for the horizontal, vertical and
/// diagonal subbands, as the float values upstream computes (the first two are equal).
/// For the blend modes, viewing conditions without a table yield upstream's -EINVAL
/// (-22) as the weight, which upstream goes on to use.
std::array<float, 3> csf_weights(const CsfConfig& config, int scale);

/// Scale-0 weights in fixed point as upstream's scale-0 kernels use them: h and v times
/// 2^21, d times 2^23, converted to 16 bits (the Watson weights at 3 x 1080 are the
/// constants 36453, 36453, 49417).
std::array<std::uint16_t, 3> csf_weights_q_scale0(const CsfConfig& config);

/// Weights of level `scale` (1..3) times 2^32 converted to 32 bits, as upstream's
/// AVX-512 kernels convert them (out-of-range values become 0xFFFFFFFF), except the -EINVAL
/// weight of a blend mode without a table, which becomes 0 as in every upstream build (its
/// conversion is folded at compile time); see tests/data/option_corners.json.
std::array<std::uint32_t, 3> csf_weights_q32(const CsfConfig& config, int scale);

/// double -> uint32_t as x86 vcvttsd2usi converts (truncation; NaN and values outside
/// [0, 2^32) give 0xFFFFFFFF), which is how upstream's AVX-512 kernels convert.
std::uint32_t to_u32_avx512(double value);

}  // namespace vmafx::adm

namespace vmafx::adm {

/// The CSF of the DLM paper (Li, Zhang, Ma, Ngan, IEEE Trans. Multimedia 13(5), 2011) at DWT
/// level `lambda` (0 = finest) and orientation `theta` in degrees (45: diagonal, whose
/// spatial frequency is divided by 0.7), as the float upstream computes: the float ADM's
/// weight for adm_csf_mode 2. Upstream: adm_csf_tools.h adm_native_csf.
float native_csf(int lambda, double norm_view_dist, int ref_display_height, int theta);

}  // namespace vmafx::adm
