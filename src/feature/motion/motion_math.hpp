// Per-sample integer arithmetic of the integer MOTION metric, shared by the CPU extractor
// (motion.cpp) and its CUDA twin (motion_cuda.cu): every function is __host__ __device__ when
// compiled by nvcc, so each rounding, tap and wrap exists once. Written in the shared-arithmetic
// subset (base/shared_math.hpp): it compiles as C++, CUDA and GLSL.
//
// The blur is upstream libvmaf 3.2.0's 5-tap Gaussian of integer_motion.h (`filter`), applied
// vertically then horizontally to the difference of two luma planes with mirrored edges;
// the horizontal pass of the columns upstream's AVX-512 pipeline computes in vector lanes
// (x86/motion_avx512.c, x_conv_row_sad_avx512) wraps its products at 32 bits.
#ifndef VMAFX_FEATURE_MOTION_MOTION_MATH_HPP
#define VMAFX_FEATURE_MOTION_MOTION_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(motion)

/// Half width of the blur: taps reach kRadius samples on each side.
VMAFX_CONST int kRadius = 2;

/// The taps of the symmetric blur, a Gaussian in Q16 (3571 + 16004 + 26386 + 16004 + 3571 =
/// 65536): outer pair (taps 0 and 4), inner pair (1 and 3), centre (2).
VMAFX_CONST int32_t kTapOuter = 3571;
VMAFX_CONST int32_t kTapInner = 16004;
VMAFX_CONST int32_t kTapCentre = 26386;

/// Mirrors `index`, at most kRadius outside [0, size), back into it without repeating the edge
/// sample (-1 -> 1, -2 -> 2, size -> size - 2, size + 1 -> size - 3). Needs size >= kRadius + 1.
VMAFX_CONSTEXPR_FN int mirror(int index, int size) {
    return index < 0 ? -index : index >= size ? 2 * size - index - 2 : index;
}

/// Difference prev - cur of two luma samples (8 or 16 bits, widened; |difference| <= 65535).
VMAFX_FN int32_t sample_difference(int32_t prev, int32_t cur) { return prev - cur; }

/// The vertical tap sum of one column for 8-bit samples: d0..d4 are the differences of rows
/// i-2..i+2 (mirrored); each tap times a difference fits 32 bits (26386 * 65535 < 2^31), and the
/// sum of five 8-bit differences times the taps too (at most 255 * 65536): added in int32.
VMAFX_FN int32_t vertical_taps_8(int32_t d0, int32_t d1, int32_t d2, int32_t d3, int32_t d4) {
    return kTapOuter * d0 + kTapInner * d1 + kTapCentre * d2 + kTapInner * d3 + kTapOuter * d4;
}

/// The vertical tap sum for samples above 8 bits: the products as vertical_taps_8's, added in
/// int64 (the sum of five 16-bit differences times the taps needs more than 32 bits).
VMAFX_FN int64_t vertical_taps_16(int32_t d0, int32_t d1, int32_t d2, int32_t d3, int32_t d4) {
    return int64_t(kTapOuter * d0) + int64_t(kTapInner * d1) + int64_t(kTapCentre * d2) + int64_t(kTapInner * d3) +
           int64_t(kTapOuter * d4);
}

/// Vertical blur of one column of 8-bit samples: vertical_taps_8 rounded and shifted right by
/// `bit_depth` (8), i.e. kept in Q(16 - bit_depth) of the sample scale. Upstream:
/// integer_motion.c motion_score_pipeline_8 (vertical part).
VMAFX_FN int32_t vertical_blur_8(int32_t d0, int32_t d1, int32_t d2, int32_t d3, int32_t d4, int bit_depth) {
    return (vertical_taps_8(d0, d1, d2, d3, d4) + (int32_t(1) << (bit_depth - 1))) >> bit_depth;
}

/// Vertical blur of one column of samples above 8 bits (bit_depth 9..16): vertical_taps_16
/// rounded and shifted right by `bit_depth`. Upstream: motion_score_pipeline_16 (vertical part).
VMAFX_FN int32_t vertical_blur_16(int32_t d0, int32_t d1, int32_t d2, int32_t d3, int32_t d4, int bit_depth) {
    return int32_t((vertical_taps_16(d0, d1, d2, d3, d4) + (int64_t(1) << (bit_depth - 1))) >> bit_depth);
}

/// Horizontal blur at one column with an exact 64-bit sum: y0..y4 are the vertically blurred
/// values of columns j-2..j+2 (mirrored); rounded, shifted right by 16. The path upstream takes
/// at the picture's left and right edges (and everywhere in its scalar pipeline).
VMAFX_FN int32_t horizontal_blur_exact(int32_t y0, int32_t y1, int32_t y2, int32_t y3, int32_t y4) {
    const int64_t acc = int64_t(kTapOuter) * int64_t(y0) + int64_t(kTapInner) * int64_t(y1) +
                        int64_t(kTapCentre) * int64_t(y2) + int64_t(kTapInner) * int64_t(y3) +
                        int64_t(kTapOuter) * int64_t(y4);
    return int32_t((acc + int64_t(1 << 15)) >> 16);
}

/// Horizontal blur at one column as upstream's AVX-512 lanes form it: the sums of the
/// symmetric pairs (y0 + y4, y1 + y3) and each pair or centre times its tap wrap modulo 2^32,
/// then the three 32-bit partial sums are added in 64 bits, rounded and shifted right by 16.
/// Equals horizontal_blur_exact whenever nothing wraps (always, for samples within the bit
/// depth); it differs only for out-of-range samples.
VMAFX_FN int32_t horizontal_blur_lane(int32_t y0, int32_t y1, int32_t y2, int32_t y3, int32_t y4) {
    const uint32_t outer = (uint32_t(y0) + uint32_t(y4)) * uint32_t(kTapOuter);
    const uint32_t inner = (uint32_t(y1) + uint32_t(y3)) * uint32_t(kTapInner);
    const uint32_t centre = uint32_t(y2) * uint32_t(kTapCentre);
    // Each 32-bit lane value is read back as signed, then sign-extended to 64 bits.
    const int64_t acc = int64_t(int32_t(outer)) + int64_t(int32_t(inner)) + int64_t(int32_t(centre));
    return int32_t((acc + int64_t(1 << 15)) >> 16);
}

/// End (exclusive) of the columns of a `width`-sample row that upstream's AVX-512 pipeline
/// blurs in vector lanes: columns 2, 18, 34, ... start 16-lane vectors while column + 18 <=
/// width, so the lane columns are [2, lane_columns_end(width)); 2 (none) below width 20.
/// Every other column takes horizontal_blur_exact.
VMAFX_CONSTEXPR_FN int lane_columns_end(int width) {
    return width >= 20 ? 2 + 16 * ((width - 4) / 16) : 2;
}

/// |v| as the unsigned 32-bit term of a row sum (|INT32_MIN| = 2^31).
VMAFX_FN uint32_t magnitude(int32_t v) {
    return uint32_t(v < 0 ? -int64_t(v) : int64_t(v));
}

VMAFX_NAMESPACE_END

#if !VMAFX_GLSL
namespace vmafx::motion {

/// C++ adaptor (no arithmetic of its own): vertical_blur_8 for 8-bit Sample, vertical_blur_16
/// for 16-bit words.
template <typename Sample>
VMAFX_HOST_DEVICE inline int32_t vertical_blur(int32_t d0, int32_t d1, int32_t d2, int32_t d3, int32_t d4,
                                               int bit_depth) {
    if constexpr (sizeof(Sample) == 1) return vertical_blur_8(d0, d1, d2, d3, d4, bit_depth);
    else return vertical_blur_16(d0, d1, d2, d3, d4, bit_depth);
}

}  // namespace vmafx::motion
#endif

#endif  // VMAFX_FEATURE_MOTION_MOTION_MATH_HPP
