// Per-sample arithmetic of the float_moment metric, shared by the CPU extractor
// (float_moment.cpp) and its CUDA twin (float_moment_cuda.cu): __host__ __device__ under nvcc,
// so the sample scaling and the float square exist once. Upstream: picture_copy.c (the
// scaling), moment.c (the sums).
#pragma once

#include "base/host_device.hpp"

namespace vmafx::float_moment {

/// picture_copy's divisor at `bit_depth`: 1 at 8 bits, 4 at 10, 16 at 12, 256 at 16; 0 for any
/// other depth (upstream scores none).
VMAFX_HOST_DEVICE constexpr float scaler_of(int bit_depth) {
    return bit_depth == 8 ? 1.0f : bit_depth == 10 ? 4.0f : bit_depth == 12 ? 16.0f : bit_depth == 16 ? 256.0f : 0.0f;
}

/// A sample as picture_copy makes it: float x / scaler (exact: x < 2^16, scaler a power of 2).
template <typename Sample>
VMAFX_HOST_DEVICE inline float sample_value(Sample x, float scaler) {
    return static_cast<float>(x) / scaler;
}

/// The second moment's term of a sample value v: the float square v * v (rounded to float:
/// at 16 bits x^2 has more than 24 significant bits).
VMAFX_HOST_DEVICE inline float square_term(float v) { return v * v; }

}  // namespace vmafx::float_moment
