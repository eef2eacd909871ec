// Float moments (upstream libvmaf 3.2.0 feature extractor "float_moment",
// src/feature/float_moment.c with moment.c and picture_copy.c): descriptor and arithmetic.
//
// Luma only. Samples become floats scaled to the 8-bit range (picture_copy: x at 8 bits,
// x / 4 at 10, x / 16 at 12, x / 256 at 16, in float); per frame and picture
//   1st = sum of x (in double, rows then columns) / (w * h)
//   2nd = sum of (float)(x * x) (in double) / (w * h)
#pragma once

#include "feature/metric.hpp"

namespace vmafx::float_moment {

/// Descriptor of "float_moment" (listed in feature/metrics.def). No options. Per frame, in
/// upstream's order: float_moment_ref1st, float_moment_dis1st, float_moment_ref2nd,
/// float_moment_dis2nd (upstream's provided_features[] says only "float_moment"; the
/// descriptor lists the four outputs). Reads the luma; no previous pictures. Limits: any size
/// (1x1 up), bit depths 8, 10, 12 and 16 (upstream reads any other as 8-bit samples).
extern const MetricDescriptor descriptor;

/// The first and second moments of one luma plane at `bit_depth` (8, 10, 12 or 16).
void plane_moments(const Plane& plane, int bit_depth, double& first, double& second);

/// The moments from the sums over a width x height plane (of the sample values and of their
/// float squares, in double): each divided by the int width * height, as upstream. The CUDA
/// twin's finish() calls it on the sums it reproduces.
void finish_moments(double& first, double& second, int width, int height);

}  // namespace vmafx::float_moment
