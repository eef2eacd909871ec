// Per-sample arithmetic of the float_motion metric, shared by the CPU reference
// (float_motion.cpp) and its CUDA twin (float_motion_cuda.cu), written in the shared-arithmetic
// subset (base/shared_math.hpp: C++, CUDA and GLSL): the blur's taps for each
// motion_filter_size and the SAD's term. The blur itself is float_image's separable convolution
// (common/float_image_math.hpp: mirror, convolve_tap). Upstream: motion_tools.h (the filters),
// motion.c vmaf_image_sad_c (the term).
#ifndef VMAFX_FEATURE_FLOAT_MOTION_FLOAT_MOTION_MATH_HPP
#define VMAFX_FEATURE_FLOAT_MOTION_FLOAT_MOTION_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(float_motion)

/// Taps of the blur at motion_filter_size `filter_size`: 3 for 3, else 5 (1 is a 5-tap
/// identity, any other value the 5-tap Gaussian; upstream's extract()).
VMAFX_CONSTEXPR_FN int blur_taps(int filter_size) { return filter_size == 3 ? 3 : 5; }

/// Tap k (0 .. blur_taps - 1) of the blur at `filter_size`: the identity (0 0 1 0 0) for 1, the
/// 3-tap Gaussian for 3, the 5-tap Gaussian otherwise. The constants are the exact decimal
/// values of upstream's float literals (0.054488685f, 0.244201342f, 0.402619947f;
/// 0.166378498f, 0.667243004f).
VMAFX_CONSTEXPR_FN float blur_tap(int filter_size, int k) {
    if (filter_size == 1) return k == 2 ? 1.0f : 0.0f;
    if (filter_size == 3) return k == 1 ? 0.66724300384521484375f : 0.166378498077392578125f;
    if (k == 2) return 0.40261995792388916015625f;
    if (k == 1 || k == 3) return 0.24420134723186492919921875f;
    return 0.0544886849820613861083984375f;
}

/// The SAD's term of two blurred samples: fabs(a - b), the float difference with its sign bit
/// cleared (bit for bit fabs, -0 included).
VMAFX_FN float abs_difference(float a, float b) { return vmafx_bits_float(vmafx_float_bits(a - b) & 0x7fffffffu); }

VMAFX_NAMESPACE_END

#endif  // VMAFX_FEATURE_FLOAT_MOTION_FLOAT_MOTION_MATH_HPP
