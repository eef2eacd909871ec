// Per-sample arithmetic of the float image core (float_image.*), shared by the CPU reference and
// the GPU twins of the float metrics that use it (float_ansnr, float_motion, ...), written in the
// shared-arithmetic subset (base/shared_math.hpp: it compiles as C++, CUDA and GLSL): the sample
// as picture_copy makes it, the separable convolution's edge mirror and tap step, and the
// scalers' arithmetic (positions, mirrors, the bilinear blend, the bicubic kernel, the taps'
// weights and sums; lanczos4's sin-based weights stay C++: floatimg::scale_taps tabulates them). Upstream: picture_copy.c, common/convolution.c (and its AVX twin, the
// same sums), vif_tools.c vif_scale_frame_s (bilinear).
#ifndef VMAFX_FEATURE_COMMON_FLOAT_IMAGE_MATH_HPP
#define VMAFX_FEATURE_COMMON_FLOAT_IMAGE_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(floatimg)

/// picture_copy's divisor at `bit_depth`: 4, 16 or 256 at 10, 12 or 16 bits; 0 at every other
/// depth (8 bits, and 9, 11, 13..15, which upstream reads byte by byte as 8-bit samples).
VMAFX_CONSTEXPR_FN float picture_copy_scaler(int bit_depth) {
    return bit_depth == 10 ? 4.0f : bit_depth == 12 ? 16.0f : bit_depth == 16 ? 256.0f : 0.0f;
}

/// One sample as picture_copy makes it: float(s) / scaler + offset, or float(s) + offset where
/// scaler is 0 (s: the 8- or 16-bit sample widened to int32; offset -128 for the VMAF metrics).
/// The division by a power of two is exact; the sum rounds only where s / scaler has more than
/// 24 significant bits with the offset (never at 16 bits or below).
VMAFX_FN float picture_copy_sample(int32_t s, float scaler, float offset) {
    if (scaler != 0.0f) return vmafx_div_f(float(s), scaler) + offset;
    return float(s) + offset;
}

/// The convolution's edge mirror of index i in [0, size), the edge not repeated: -i below 0,
/// 2 * size - i - 2 at and above size. Valid for an overshoot of at most size - 1.
VMAFX_CONSTEXPR_FN int mirror(int i, int size) { return i < 0 ? -i : (i >= size ? 2 * size - i - 2 : i); }

/// One tap of the convolution: acc + c * x, the product rounded to float, then the sum (no fused
/// multiply-add: -ffp-contract=off, --fmad=false). A convolution output is this from acc = 0
/// over the taps k = 0, 1, ... in order.
VMAFX_FN float convolve_tap(float acc, float c, float x) { return acc + c * x; }

/// The bilinear scaler's sample from the four neighbours a = (x1, y1), b = (x2, y1),
/// c = (x1, y2), d = (x2, y2) at the fractions fx (columns) and dy (rows), in upstream's float
/// order: (1 - dy)(1 - fx) a + (1 - dy) fx b + dy (1 - fx) c + dy fx d, left to right.
VMAFX_FN float bilinear_sample(float dy, float fx, float a, float b, float c, float d) {
    return (1.0f - dy) * (1.0f - fx) * a + (1.0f - dy) * fx * b + dy * (1.0f - fx) * c + dy * fx * d;
}

/// The float ratio source size / destination size of a scaler.
VMAFX_FN float scale_ratio(int src_size, int dst_size) { return vmafx_div_f(float(src_size), float(dst_size)); }

/// A destination sample's source position: (dst + 0.5) * ratio - 0.5 in double, stored as float.
VMAFX_FN float scale_source_position(int dst, float ratio) {
    return float((double(dst) + VMAFX_D(0.5)) * double(ratio) - VMAFX_D(0.5));
}

/// The nearest scaler's source index of destination index `dst`: int(float(dst) * ratio).
VMAFX_FN int scale_nearest_index(int dst, float ratio) { return int(float(dst) * ratio); }

/// The scalers' float mirror: -i below `left`, 2 * right - i above `right`, else i.
VMAFX_FN float scale_mirror(float i, float left, float right) {
    return i < left ? -i : (i > right ? 2.0f * right - i : i);
}

/// The bicubic scaler's kernel (a = -0.75) at distance t.
VMAFX_FN float bicubic_kernel(float t) {
    const float a = -0.75f;
    if (t < 0.0f) t = -t;
    if (t < 1.0f) return ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
    if (t < 2.0f) return (((t - 5.0f) * t + 8.0f) * t - 4.0f) * a;
    return 0.0f;
}

/// The weight of tap (wx, wy) of the bicubic and lanczos4 scalers: wx * wy.
VMAFX_FN float tap_weight(float wx, float wy) { return wx * wy; }

/// One term of the bicubic and lanczos4 scalers' sums: sum + value * weight.
VMAFX_FN float add_tap(float sum, float value, float weight) { return sum + value * weight; }

VMAFX_NAMESPACE_END

#endif  // VMAFX_FEATURE_COMMON_FLOAT_IMAGE_MATH_HPP
