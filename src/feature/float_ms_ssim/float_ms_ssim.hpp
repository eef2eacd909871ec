// Float MS-SSIM (upstream libvmaf 3.2.0 feature extractor "float_ms_ssim"): options, outputs,
// factory.
//
// Multi-scale SSIM of Wang, Simoncelli and Bovik (Asilomar 2003) as upstream's IQA copy
// computes it: the luma of both pictures copied to floats (as float_ssim), four times
// decimated by 2 through the 9x9 9/7 biorthogonal low-pass kernel (mirrored borders), giving
// five scales; at each scale the means l, c, s of the SSIM terms (the float_ssim machinery,
// feature/common/iqa.hpp, shared), and the score
//   prod over scales k of pow(l_k, alpha_k) * pow(c_k, beta_k) * pow(s_k, gamma_k)
// in double with alpha = (0, 0, 0, 0, 0.1333), beta = gamma = (0.0448, 0.2856, 0.3001,
// 0.2363, 0.1333). A negative mean s gives NaN, as upstream (JSON null).
// Upstream source: float_ms_ssim.c (init, extract), ms_ssim.c (compute_ms_ssim), iqa/.
#pragma once

#include <array>
#include <span>
#include <string>

#include "feature/common/iqa.hpp"
#include "feature/metric.hpp"

namespace vmafx::float_ms_ssim {

/// Scales of MS-SSIM.
inline constexpr int kScales = 5;

/// Descriptor of "float_ms_ssim" (listed in feature/metrics.def).
///
/// Options (none is a feature parameter): enable_lcs (bool: also float_ms_ssim_l_scale0..4,
/// float_ms_ssim_c_scale0..4, float_ms_ssim_s_scale0..4, in that order), enable_db (bool:
/// -10 log10(1 - score)), clip_db (bool: that capped as float_ssim's). Limits: 8, 10, 12 and
/// 16 bits; luma at least 176 x 176 (upstream refuses a side whose fourth halving, rounded
/// down, is below the 11-tap Gaussian window).
extern const MetricDescriptor descriptor;

/// Options and output names of one instance.
struct Settings {
    /// The option table's defaults (descriptor.parse_options({}) bound): the members bound to
    /// options carry no default of their own, so that each default is written once, in the table.
    Settings();
    /// The options of `descriptor` bound to the members below, and the output names.
    explicit Settings(const Options& options);

    bool enable_lcs;
    bool enable_db;
    bool clip_db;
    std::string name;  ///< float_ms_ssim
    std::array<std::string, kScales> l_names, c_names, s_names;

    /// Appends frame `index`'s outputs from the means of its scales (CPU extractor and CUDA twin
    /// alike): the product over the scales of pow(l, alpha) pow(c, beta) pow(s, gamma) in double
    /// (as dB, capped at `max_db`, with enable_db), then with enable_lcs the l, c and s means of
    /// every scale. Throws Error where upstream fails the frame (the product reaches +infinity).
    void write_frame(const std::array<iqa::SsimMeans, kScales>& means, double max_db, unsigned index,
                     FrameScores& out) const;
};

/// Width and height of scale k (0..4) of the pyramid of a width x height luma: decimated_size
/// of scale k - 1 by 2 on each side.
std::array<int, 2> scale_size(int width, int height, int k);

/// Taps of the decimation's low-pass kernel (klen = 9).
inline constexpr int kLowPassLen = 9;

/// The 9x9 low-pass kernel of the decimation (ms_ssim.c g_lpf: the 9/7 biorthogonal wavelet
/// filter), row-major.
std::span<const float, kLowPassLen * kLowPassLen> low_pass();

}  // namespace vmafx::float_ms_ssim
