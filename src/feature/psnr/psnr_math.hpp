// Per-sample arithmetic of the integer "psnr" metric, shared by the CPU extractor (psnr.cpp) and
// its CUDA twin (psnr_cuda.cu), written in the shared-arithmetic subset (base/shared_math.hpp:
// it compiles as C++, CUDA and GLSL). Upstream: integer_psnr.c.
#ifndef VMAFX_FEATURE_PSNR_PSNR_MATH_HPP
#define VMAFX_FEATURE_PSNR_PSNR_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(psnr)

/// The squared error of two samples (at most 16 bits each) as upstream's uint32_t
/// (uint32_t)(e * e) of the int32 difference e: e^2 fits 32 bits unsigned (65535^2 < 2^32);
/// formed in unsigned arithmetic (the value of the int32 product, without its overflow above
/// |e| = 46340).
VMAFX_FN uint32_t squared_error(int32_t r, int32_t d) {
    const uint32_t e = uint32_t(r - d);
    return e * e;
}

VMAFX_NAMESPACE_END

#endif  // VMAFX_FEATURE_PSNR_PSNR_MATH_HPP
