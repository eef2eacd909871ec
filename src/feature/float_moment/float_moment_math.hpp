// Per-sample arithmetic of the float_moment metric, shared by the CPU extractor
// (float_moment.cpp) and its CUDA twin (float_moment_cuda.cu), written in the shared-arithmetic
// subset (base/shared_math.hpp: it compiles as C++, CUDA and GLSL), so the sample scaling and
// the float square exist once. Upstream: picture_copy.c (the scaling), moment.c (the sums).
#ifndef VMAFX_FEATURE_FLOAT_MOMENT_FLOAT_MOMENT_MATH_HPP
#define VMAFX_FEATURE_FLOAT_MOMENT_FLOAT_MOMENT_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(float_moment)

/// picture_copy's divisor at `bit_depth`: 1 at 8 bits, 4 at 10, 16 at 12, 256 at 16; 0 for any
/// other depth (upstream scores none).
VMAFX_CONSTEXPR_FN float scaler_of(int bit_depth) {
    return bit_depth == 8 ? 1.0f : bit_depth == 10 ? 4.0f : bit_depth == 12 ? 16.0f : bit_depth == 16 ? 256.0f : 0.0f;
}

/// A sample x (8 or 16 bits, widened to int32) as picture_copy makes it: float x / scaler
/// (exact: x < 2^16, scaler a power of 2).
VMAFX_FN float sample_value(int32_t x, float scaler) { return vmafx_div_f(float(x), scaler); }

/// The second moment's term of a sample value v: the float square v * v (rounded to float:
/// at 16 bits x^2 has more than 24 significant bits).
VMAFX_FN float square_term(float v) { return v * v; }

VMAFX_NAMESPACE_END

#endif  // VMAFX_FEATURE_FLOAT_MOMENT_FLOAT_MOMENT_MATH_HPP
