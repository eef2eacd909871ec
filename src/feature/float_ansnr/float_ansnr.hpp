// Floating-point ANSNR (upstream libvmaf 3.2.0 feature extractor "float_ansnr"): descriptor,
// settings, outputs and the computation.
//
// Per frame, the luma of the reference and of the distorted picture are turned into floats
// (sample / 2^(bit_depth-8) - 128, as upstream's picture_copy), the reference is filtered by a
// 3x3 binomial kernel (1 2 1)^T (1 2 1) / 16 and the distorted picture by a 5x5 kernel whose
// weights are n / 571, both with mirrored borders (index -k reads k, index h-1+k reads h-k).
// With sig = sum ref_f^2 and noise = sum (ref_f - dist_f)^2 (float sums, per row, then over
// the rows):
//   float_ansnr  = noise == 0 ? psnr_max : 10 log10(sig / noise)
//   float_anpsnr = min(10 log10(peak^2 w h / max(noise, 1e-10)), psnr_max)
// where peak and psnr_max depend on the bit depth (8: 255 and 60; 10: 255.75 and 72; 12:
// 255.9375 and 84; 16: 255.99609375 and 108).
// Upstream source: libvmaf/src/feature/float_ansnr.c (init, extract), ansnr.c
// (compute_ansnr), ansnr_tools.c (ansnr_filter2d_s, ansnr_mse_s, the filter tables),
// picture_copy.c (picture_copy). Floats and doubles exactly where upstream has them.
#pragma once

#include <span>
#include <string>

#include "feature/metric.hpp"

namespace vmafx::float_ansnr {

/// Descriptor of "float_ansnr" (listed in feature/metrics.def). No options (upstream has no
/// option table). Provided feature: float_ansnr (upstream lists only it); each frame also
/// writes float_anpsnr. Luma only. Limits: luma at least 3 x 3 (the 5-tap mirrored filter
/// reads two samples beyond each border; upstream reads outside its buffers below), bit
/// depths 8, 10, 12 and 16 (upstream's init fails for any other).
extern const MetricDescriptor descriptor;

/// The two scores of one frame.
struct Scores {
    double ansnr = 0.0;   ///< float_ansnr
    double anpsnr = 0.0;  ///< float_anpsnr
};

/// ANSNR and ANPSNR of the luma planes `ref` and `dist` (same size, at least 3 x 3, samples
/// of `bit_depth` bits: 8, 10, 12 or 16), as upstream's compute_ansnr on picture_copy'd
/// planes. Throws Error for a bit depth upstream refuses.
Scores compute(const Plane& ref, const Plane& dist, int bit_depth);

/// ansnr_mse_s's outer sums: the float sum from 0 of the rows' sums `row_sums`, in row order
/// (the CPU's and the CUDA twin's host step).
float sum_rows(std::span<const float> row_sums);

/// compute_ansnr's scores from the frame's float sums `sig` (of ref_f^2) and `noise` (of
/// (ref_f - dist_f)^2) of a width x height luma at `bit_depth` (8, 10, 12 or 16; Error for
/// another): the formulas of this file's head, in the CPU's types.
Scores scores_of(float sig, float noise, int width, int height, int bit_depth);

/// Output names of one instance (the names themselves: no options).
struct Settings {
    Settings() = default;
    /// The (empty) options of `descriptor` bound, and the output names.
    explicit Settings(const Options& options);

    std::string ansnr_name;   ///< "float_ansnr"
    std::string anpsnr_name;  ///< "float_anpsnr"
};

}  // namespace vmafx::float_ansnr
