// Per-sample arithmetic of the float_psnr metric, shared by the CPU extractor (float_psnr.cpp)
// and its CUDA twin (float_psnr_cuda.cu), written in the shared-arithmetic subset
// (base/shared_math.hpp: it compiles as C++, CUDA and GLSL), so the sample scaling, the
// difference and its float square exist once. Upstream: picture_copy.c (the scaling), psnr.c
// compute_psnr (the difference, its square and their sum).
#ifndef VMAFX_FEATURE_FLOAT_PSNR_FLOAT_PSNR_MATH_HPP
#define VMAFX_FEATURE_FLOAT_PSNR_FLOAT_PSNR_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(float_psnr)

/// picture_copy's divisor at `bit_depth`: 1 at 8 bits, 4 at 10, 16 at 12, 256 at 16; 0 for any
/// other depth (upstream scores none).
VMAFX_CONSTEXPR_FN float scaler_of(int bit_depth) {
    return bit_depth == 8 ? 1.0f : bit_depth == 10 ? 4.0f : bit_depth == 12 ? 16.0f : bit_depth == 16 ? 256.0f : 0.0f;
}

/// The noise term of a sample pair r, d (8 or 16 bits, widened to int32): the float square of
/// the float difference of the samples as picture_copy makes them (float x / scaler). The
/// scaling and the difference are exact (16-bit samples, a power-of-2 scaler); the square
/// rounds to float where the difference has more than 12 significant bits.
VMAFX_FN float squared_difference(int32_t r, int32_t d, float scaler) {
    const float rf = vmafx_div_f(float(r), scaler);
    const float df = vmafx_div_f(float(d), scaler);
    const float diff = rf - df;
    return diff * diff;
}

VMAFX_NAMESPACE_END

#endif  // VMAFX_FEATURE_FLOAT_PSNR_FLOAT_PSNR_MATH_HPP
