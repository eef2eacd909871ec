// Row kernels of the separable float convolution (floatimg::convolve, float_image.hpp): the
// scalar reference (reference_convolve_kernels(), in float_image.cpp) and a SIMD set computing
// the same floats (float_image_simd.cpp, Google Highway with run-time dispatch,
// simd_convolve_kernels()). Internal: used by float_image.cpp, float_image_simd.cpp and
// tests/test_simd_kernels.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "feature/common/float_image.hpp"

namespace vmafx::floatimg {

struct ConvolveKernels {
    const char* name;
    /// Vertical pass of one output row: t[j] = the float sum, from 0, of
    /// filter[k] * tap_k(j) for k = 0..taps-1, where tap_k(j) is rows[k][j] (kPlain),
    /// rows[k][j] * rows[k][j] (kSquare) or rows[k][j] * rows2[k][j] (kCross; rows2 is null
    /// otherwise), for j in [0, width). rows[k]: the (mirrored) source row i - taps/2 + k.
    void (*vertical)(const float* filter, int taps, const float* const* rows, const float* const* rows2,
                     Product product, int width, float* t);
    /// Horizontal pass: out[j] = the float sum, from 0, of filter[k] * t[j - taps/2 + k] for
    /// k = 0..taps-1 and j in [0, width); t[-taps/2 .. width + taps/2) must be readable (the
    /// mirrored borders).
    void (*horizontal)(const float* filter, int taps, const float* t, int width, float* out);
};

/// The scalar reference (float_image.cpp): the loops of upstream's arithmetic, taps outermost.
const ConvolveKernels& reference_convolve_kernels();
/// The SIMD kernels (float_image_simd.cpp): every call runs the best target of those compiled
/// that the CPU supports (hwy::SetSupportedTargetsForTest narrows it).
const ConvolveKernels& simd_convolve_kernels();
/// The Highway target (HWY_AVX2, ...) that simd_convolve_kernels() runs now.
std::int64_t simd_target();

/// floatimg::convolve (the strided form, same arguments and requirements) with the row kernels
/// `kernels`; convolve() itself runs simd_convolve_kernels().
void convolve_with(const ConvolveKernels& kernels, std::span<const float> filter, const float* src,
                   const float* src2, Product product, int width, int height, std::ptrdiff_t src_stride, float* dst,
                   std::ptrdiff_t dst_stride);

}  // namespace vmafx::floatimg
