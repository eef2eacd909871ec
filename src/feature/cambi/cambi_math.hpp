// Per-sample arithmetic of CAMBI, shared by the CPU extractor (cambi_preprocess.cpp,
// cambi_contrast.cpp) and its CUDA twin (cambi_cuda.cu), written in the shared-arithmetic subset
// (base/shared_math.hpp: it compiles as C++, CUDA and GLSL), so that the conversion to 10 bits,
// the anti-dithering means, the 3-tap mode and the contrast term of a luma step exist once.
// Upstream: libvmaf 3.2.0 cambi.c (decimate_generic_*, anti_dithering_filter, mode3,
// calculate_c_values_row) and x86/cambi_avx2.c.
#ifndef VMAFX_FEATURE_CAMBI_CAMBI_MATH_HPP
#define VMAFX_FEATURE_CAMBI_CAMBI_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(cambi)

/// A luma sample `v` of `bit_depth` bits (8 to 16) brought to 10 bits: rounded right shift above
/// 10 bits (2^(shift - 1) added first), left shift below (the result may reach 1024 above 10
/// bits: (2^16 - 1 + 32) >> 6).
VMAFX_FN int32_t to_10_bits(int32_t v, int32_t bit_depth) {
    if (bit_depth >= 10) {
        const int32_t shift = bit_depth - 10;
        const int32_t round = shift == 0 ? 0 : (int32_t(1) << (shift - 1));
        return (v + round) >> shift;
    }
    return v << (10 - bit_depth);
}

/// The anti-dithering mean of a 2x2 block (a, b on a row, c, d below them), rounded down.
VMAFX_FN int32_t dither_mean4(int32_t a, int32_t b, int32_t c, int32_t d) { return (a + b + c + d) >> 2; }

/// The anti-dithering mean of a pair (the last row's and the last column's), rounded down.
VMAFX_FN int32_t dither_mean2(int32_t a, int32_t b) { return (a + b) >> 1; }

/// The 3-tap mode: a if a equals b or c, else b if b equals c, else the smallest of the three
/// (the value present twice, else the smallest: symmetric in its arguments).
VMAFX_FN int32_t mode3_of(int32_t a, int32_t b, int32_t c) {
    if (a == b || a == c) return a;
    if (b == c) return b;
    const int32_t ab = a < b ? a : b;
    return ab < c ? ab : c;
}

/// The contrast of a luma step of weight `weight` (kContrastWeights[d]) between a pixel's level,
/// counted p0 times in its window, and the level d + 1 above or below it counted pm times (the
/// larger): float(weight p0 pm) (exact below 2^24, else rounded once) times `reciprocal`, the
/// reciprocal table's entry p0 + pm. weight p0 pm < 9 * 4226^2 < 2^31.
VMAFX_FN float contrast_term(int32_t weight, int32_t p0, int32_t pm, float reciprocal) {
    return float(weight * p0 * pm) * reciprocal;
}

VMAFX_NAMESPACE_END

#endif  // VMAFX_FEATURE_CAMBI_CAMBI_MATH_HPP
