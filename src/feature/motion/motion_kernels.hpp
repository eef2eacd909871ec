// Row kernels of the integer MOTION metric (motion.cpp): the scalar reference
// (reference_kernels(), in motion.cpp) and a SIMD set computing the same integers (motion_simd.cpp,
// Google Highway with run-time dispatch, simd_kernels()). Internal: used by motion.cpp,
// motion_simd.cpp and tests/test_simd_kernels.cpp.
#pragma once

#include <cstdint>

namespace vmafx::motion {

struct RowKernels {
    const char* name;
    /// Vertical blur of one row of the difference prev - cur: y[j] = vertical_blur<Sample>(
    /// prev[k][j] - cur[k][j] for k = 0..4, bit_depth) for j in [0, width) (prev[k], cur[k]: rows
    /// i-2 .. i+2, mirrored). Returns the bitwise OR of the y[j] (0: the row is all zero).
    std::int32_t (*vertical_u8)(const std::uint8_t* const prev[5], const std::uint8_t* const cur[5], int width,
                                int bit_depth, std::int32_t* y);
    std::int32_t (*vertical_u16)(const std::uint16_t* const prev[5], const std::uint16_t* const cur[5], int width,
                                 int bit_depth, std::int32_t* y);
    /// Sum modulo 2^32 of |horizontal blur| over the row y of `width` (>= 3) samples: the lane
    /// columns [2, lane_columns_end(width)) as upstream's AVX-512 lanes form them, the others
    /// exactly with mirrored neighbours.
    std::uint32_t (*row_sad)(const std::int32_t* y, int width);
};

/// The scalar reference (motion.cpp).
const RowKernels& reference_kernels();
/// The SIMD kernels (motion_simd.cpp): every call runs the best target of those compiled that
/// the CPU supports (hwy::SetSupportedTargetsForTest narrows it).
const RowKernels& simd_kernels();
/// The Highway target (HWY_AVX2, ...) that simd_kernels() runs now.
std::int64_t simd_target();

}  // namespace vmafx::motion
