// Float PSNR (upstream libvmaf 3.2.0 feature extractor "float_psnr", src/feature/float_psnr.c
// with psnr.c compute_psnr and picture_copy.c): descriptor and per-frame arithmetic.
//
// Luma only. Samples become floats scaled to the 8-bit range (picture_copy: x at 8 bits,
// x / 4 at 10, x / 16 at 12, x / 256 at 16, in float); per frame
//   noise = sum over rows, then columns, of (float)(r - d)^2 (the square in float, the sum in
//           double), divided by w * h
//   float_psnr = min(10 * log10(peak^2 / max(noise, 1e-10)), psnr_max)
// with (peak, psnr_max) = (255, 60) at 8 bits, (255.75, 72) at 10, (255.9375, 84) at 12,
// (255.99609375, 108) at 16. Identical pictures score psnr_max.
#pragma once

#include "feature/common/float_psnr_peak.hpp"  // peak_and_cap
#include "feature/metric.hpp"

namespace vmafx::float_psnr {

/// Descriptor of "float_psnr" (listed in feature/metrics.def). No options. Per frame:
/// float_psnr. Reads the luma; no previous pictures. Limits: any size (1x1 up), bit depths 8,
/// 10, 12 and 16 (upstream's init() refuses any other).
extern const MetricDescriptor descriptor;

/// The float_psnr of one frame's luma planes (same size, `bit_depth` 8, 10, 12 or 16).
double frame_psnr(const Plane& ref, const Plane& dist, int bit_depth);

/// The float_psnr of a width x height frame whose noise terms sum to `noise` (in double, the
/// CPU's order): noise / (int width * height), then the log and the caps as above. The CUDA
/// twin's finish() calls it on the sum it reproduces. Throws Error for another bit depth.
double psnr_of_noise(double noise, int width, int height, int bit_depth);

}  // namespace vmafx::float_psnr
