// Per-sample arithmetic of the float_psnr metric, shared by the CPU extractor (float_psnr.cpp)
// and its CUDA twin (float_psnr_cuda.cu): __host__ __device__ under nvcc, so the sample
// scaling, the difference and its float square exist once. Upstream: picture_copy.c (the
// scaling), psnr.c compute_psnr (the difference, its square and their sum).
#pragma once

#include "base/host_device.hpp"

namespace vmafx::float_psnr {

/// picture_copy's divisor at `bit_depth`: 1 at 8 bits, 4 at 10, 16 at 12, 256 at 16; 0 for any
/// other depth (upstream scores none).
VMAFX_HOST_DEVICE constexpr float scaler_of(int bit_depth) {
    return bit_depth == 8 ? 1.0f : bit_depth == 10 ? 4.0f : bit_depth == 12 ? 16.0f : bit_depth == 16 ? 256.0f : 0.0f;
}

/// The noise term of a sample pair: the float square of the float difference of the samples
/// as picture_copy makes them (float x / scaler). The scaling and the difference are exact
/// (16-bit samples, a power-of-2 scaler); the square rounds to float where the difference has
/// more than 12 significant bits.
template <typename Sample>
VMAFX_HOST_DEVICE inline float squared_difference(Sample r, Sample d, float scaler) {
    const float rf = static_cast<float>(r) / scaler;
    const float df = static_cast<float>(d) / scaler;
    const float diff = rf - df;
    return diff * diff;
}

}  // namespace vmafx::float_psnr
