// Per-sample integer arithmetic of the integer MOTION metric, shared by the CPU extractor
// (motion.cpp) and its CUDA twin (motion_cuda.cu): every function is __host__ __device__ when
// compiled by nvcc, so each rounding, tap and wrap exists once.
//
// The blur is upstream libvmaf 3.2.0's 5-tap Gaussian of integer_motion.h (`filter`), applied
// vertically then horizontally to the difference of two luma planes with mirrored edges;
// the horizontal pass of the columns upstream's AVX-512 pipeline computes in vector lanes
// (x86/motion_avx512.c, x_conv_row_sad_avx512) wraps its products at 32 bits.
#pragma once

#include "base/host_device.hpp"

#include <cstdint>
#include <type_traits>


namespace vmafx::motion {

/// Half width of the blur: taps reach kRadius samples on each side.
inline constexpr int kRadius = 2;

/// The taps of the symmetric blur, a Gaussian in Q16 (3571 + 16004 + 26386 + 16004 + 3571 =
/// 65536): outer pair (taps 0 and 4), inner pair (1 and 3), centre (2).
inline constexpr std::int32_t kTapOuter = 3571;
inline constexpr std::int32_t kTapInner = 16004;
inline constexpr std::int32_t kTapCentre = 26386;

/// Mirrors `index`, at most kRadius outside [0, size), back into it without repeating the edge
/// sample (-1 -> 1, -2 -> 2, size -> size - 2, size + 1 -> size - 3). Needs size >= kRadius + 1.
VMAFX_HOST_DEVICE constexpr int mirror(int index, int size) {
    return index < 0 ? -index : index >= size ? 2 * size - index - 2 : index;
}

/// Accumulator of the vertical pass for luma samples of type Sample (uint8_t at 8 bits,
/// uint16_t above): the sum of five 8-bit differences times the taps fits 32 bits (at most
/// 255 * 65536), that of 16-bit ones needs 64.
template <typename Sample>
using VerticalAcc = std::conditional_t<sizeof(Sample) == 1, std::int32_t, std::int64_t>;

/// Difference prev - cur of two luma samples (|difference| <= 65535).
template <typename Sample>
VMAFX_HOST_DEVICE inline std::int32_t sample_difference(Sample prev, Sample cur) {
    return static_cast<std::int32_t>(prev) - static_cast<std::int32_t>(cur);
}

/// Vertical blur of one column: d0..d4 are the differences of rows i-2..i+2 (mirrored), the
/// result is rounded and shifted right by `bit_depth` (8..16), i.e. kept in Q(16 - bit_depth)
/// of the sample scale. Each tap times a difference fits 32 bits (26386 * 65535 < 2^31); they
/// are added in VerticalAcc<Sample>. Upstream: integer_motion.c motion_score_pipeline_8/_16
/// (vertical part). `halve_rounding` adds half the rounding constant (2^(bit_depth - 2)): a
/// planted defect of the CUDA twin's parity tests, never set otherwise.
template <typename Sample>
VMAFX_HOST_DEVICE inline std::int32_t vertical_blur(std::int32_t d0, std::int32_t d1, std::int32_t d2, std::int32_t d3,
                                                  std::int32_t d4, int bit_depth, bool halve_rounding = false) {
    using Acc = VerticalAcc<Sample>;
    const Acc acc = Acc{kTapOuter * d0} + Acc{kTapInner * d1} + Acc{kTapCentre * d2} + Acc{kTapInner * d3} +
                    Acc{kTapOuter * d4};
    const Acc round = Acc{1} << (bit_depth - (halve_rounding ? 2 : 1));
    return static_cast<std::int32_t>((acc + round) >> bit_depth);
}

/// Horizontal blur at one column with an exact 64-bit sum: y0..y4 are the vertically blurred
/// values of columns j-2..j+2 (mirrored); rounded, shifted right by 16. The path upstream takes
/// at the picture's left and right edges (and everywhere in its scalar pipeline).
VMAFX_HOST_DEVICE inline std::int32_t horizontal_blur_exact(std::int32_t y0, std::int32_t y1, std::int32_t y2,
                                                          std::int32_t y3, std::int32_t y4) {
    const std::int64_t acc = std::int64_t{kTapOuter} * y0 + std::int64_t{kTapInner} * y1 +
                             std::int64_t{kTapCentre} * y2 + std::int64_t{kTapInner} * y3 +
                             std::int64_t{kTapOuter} * y4;
    return static_cast<std::int32_t>((acc + (1 << 15)) >> 16);
}

/// Horizontal blur at one column as upstream's AVX-512 lanes form it: the sums of the
/// symmetric pairs (y0 + y4, y1 + y3) and each pair or centre times its tap wrap modulo 2^32,
/// then the three 32-bit partial sums are added in 64 bits, rounded and shifted right by 16.
/// Equals horizontal_blur_exact whenever nothing wraps (always, for samples within the bit
/// depth); it differs only for out-of-range samples.
VMAFX_HOST_DEVICE inline std::int32_t horizontal_blur_lane(std::int32_t y0, std::int32_t y1, std::int32_t y2,
                                                         std::int32_t y3, std::int32_t y4) {
    using U32 = std::uint32_t;
    const U32 outer = (static_cast<U32>(y0) + static_cast<U32>(y4)) * U32{kTapOuter};
    const U32 inner = (static_cast<U32>(y1) + static_cast<U32>(y3)) * U32{kTapInner};
    const U32 centre = static_cast<U32>(y2) * U32{kTapCentre};
    // Each 32-bit lane value is read back as signed, then sign-extended to 64 bits.
    const std::int64_t acc = std::int64_t{static_cast<std::int32_t>(outer)} +
                             std::int64_t{static_cast<std::int32_t>(inner)} +
                             std::int64_t{static_cast<std::int32_t>(centre)};
    return static_cast<std::int32_t>((acc + (1 << 15)) >> 16);
}

/// End (exclusive) of the columns of a `width`-sample row that upstream's AVX-512 pipeline
/// blurs in vector lanes: columns 2, 18, 34, ... start 16-lane vectors while column + 18 <=
/// width, so the lane columns are [2, lane_columns_end(width)); 2 (none) below width 20.
/// Every other column takes horizontal_blur_exact.
VMAFX_HOST_DEVICE constexpr int lane_columns_end(int width) {
    return width >= 20 ? 2 + 16 * ((width - 4) / 16) : 2;
}

/// |v| as the unsigned 32-bit term of a row sum (|INT32_MIN| = 2^31).
VMAFX_HOST_DEVICE inline std::uint32_t magnitude(std::int32_t v) {
    return static_cast<std::uint32_t>(v < 0 ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v));
}

}  // namespace vmafx::motion
