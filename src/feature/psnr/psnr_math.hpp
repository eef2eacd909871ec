// Per-sample arithmetic of the integer "psnr" metric, shared by the CPU extractor (psnr.cpp) and
// its CUDA twin (psnr_cuda.cu): __host__ __device__ under nvcc. Upstream: integer_psnr.c.
#pragma once

#include <cstdint>

#include "base/host_device.hpp"

namespace vmafx::psnr {

/// The squared error of two samples (at most 16 bits each) as upstream's uint32_t
/// (uint32_t)(e * e) of the int32 difference e: e^2 fits 32 bits unsigned (65535^2 < 2^32);
/// formed in unsigned arithmetic (the value of the int32 product, without its overflow above
/// |e| = 46340).
VMAFX_HOST_DEVICE inline std::uint32_t squared_error(std::int32_t r, std::int32_t d) {
    const auto e = static_cast<std::uint32_t>(r - d);
    return e * e;
}

}  // namespace vmafx::psnr
