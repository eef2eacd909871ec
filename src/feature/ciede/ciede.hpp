// CIEDE2000 (upstream libvmaf 3.2.0 feature extractor "ciede", output "ciede2000"):
// descriptor, settings and the per-pixel colour difference.
//
// Per frame, every pixel of the reference and of the distorted picture is taken to 4:4:4 the
// way upstream's scale_chroma_planes does it (see chroma_at), converted from Y'CbCr (BT.709,
// limited range) to CIE L*a*b* (get_lab_color) and the two colours' CIEDE2000 difference is
// computed in float with kL = 0.65, kC = 1, kH = 4 (ciede2000). With S the double sum of the
// differences in raster order and w x h the luma size:
//   ciede2000 = 45 - 20 log10(S / (w h)).
// Source: Sharma, Wu, Dalal, "The CIEDE2000 color-difference formula" (2005), as ported by
// upstream from av-metrics; upstream libvmaf/src/feature/ciede.c (init, scale_chroma_planes,
// get_lab_color, ciede2000, extract). Floats, doubles and libm calls (pow, powf, sqrt, atan2,
// sin, cos, exp) exactly where upstream has them.
#pragma once

#include <cstdint>
#include <string>

#include "feature/ciede/ciede_formula.hpp"
#include "feature/metric.hpp"

namespace vmafx::ciede {

/// Descriptor of "ciede" (listed in feature/metrics.def). No options (upstream has no option
/// table). Provided feature: ciede2000. Reads every plane. Limits: bit depths 8, 10, 12 and 16
/// (upstream refuses the others); any size from 1 x 1, except 4:2:2 pictures one row high and
/// more than 32 wide, where upstream's chroma upsampling reads beyond the chroma planes.
/// Odd sizes of 4:2:0 and 4:2:2 (ceil(w/2)-wide chroma), which upstream cannot read, are
/// computed with the same upsampling rule.
extern const MetricDescriptor descriptor;

/// One pixel's inputs as the CPU reads them: Y, Cb, Cr of the reference and of the distorted
/// picture, each chroma sample as chroma_at reads it (0 in 4:2:2's padding).
struct PixelSamples {
    float ref[3];
    float dist[3];
};

/// The CIEDE2000 difference of one pixel (delta_e_2000 of the two lab_of colours): the term the
/// CPU adds to its frame sum. The CUDA twin's host path for the pixels its device arithmetic
/// cannot decide (ciede_cuda.cu).
float pixel_difference(const PixelSamples& s, int bit_depth);

/// The frame's ciede2000 from S, the double sum of its pixels' differences in raster order
/// (upstream extract): 45 - 20 log10(S / (width height)), +inf for S = 0.
double score_of_sum(double sum, int width, int height);

/// upstream get_lab_color: limited-range BT.709 Y'CbCr samples of `bit_depth` bits to L*a*b*
/// (sRGB transfer, D65 white).
Lab lab_of(double y, double u, double v, int bit_depth);

/// upstream ciede2000 with upstream's weights kL = 0.65, kC = 1, kH = 4: the difference of two
/// colours, in float.
float delta_e_2000(const Lab& c1, const Lab& c2);

/// Upstream's 4:4:4 view of chroma plane `chroma` (a Cb or Cr plane of a picture of luma width
/// `width`, subsampling `s`) at luma position (x, y), as scale_chroma_planes reads it:
/// 4:4:4: (x, y); 4:2:0: (x / 2, y / 2); 4:2:2: row y / 2 of the plane, read x samples on in
/// memory laid out with upstream's row pitch (ceil(w/2) rounded up to 32 samples, the padding
/// zero), so that x past the row's end reads its padding (0) or the next row. Returns the
/// sample as upstream converts it (to float).
float chroma_at(const Plane& chroma, Subsampling s, int x, int y);

/// Output name of one instance (the name itself: no options).
struct Settings {
    Settings() = default;
    /// The (empty) options of `descriptor` bound, and the output name.
    explicit Settings(const Options& options);

    std::string name;  ///< "ciede2000"
};

}  // namespace vmafx::ciede
