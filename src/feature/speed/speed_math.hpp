// Per-sample arithmetic of SpEED (speed_core.cpp, speed_temporal.cpp) shared with its CUDA twins
// (speed_cuda.cuh), in the shared-arithmetic subset (base/shared_math.hpp: C++, CUDA and GLSL).
// The float copy of the samples, the prescale (resampling), the mirrored convolution's taps are
// the float image tools' (feature/common/float_image_math.hpp, shared with float_vif); what is
// SpEED's own is here. Upstream: libvmaf 3.2.0 src/feature/speed.c.
#ifndef VMAFX_FEATURE_SPEED_SPEED_MATH_HPP
#define VMAFX_FEATURE_SPEED_SPEED_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(speed)

/// The decimation of the anti-aliased picture: every kDecimation-th sample in each direction
/// (speed.c: 1 << NUM_SCALES).
VMAFX_CONST int kDecimation = 16;

/// speed_temporal's picture: the float difference previous - current of two float samples.
VMAFX_FN float temporal_difference(float previous, float current) { return previous - current; }

/// The band-pass sample: the decimated sample minus its local mean.
VMAFX_FN float band_pass_sample(float decimated, float local_mean) { return decimated - local_mean; }

VMAFX_NAMESPACE_END

#endif  // VMAFX_FEATURE_SPEED_SPEED_MATH_HPP
