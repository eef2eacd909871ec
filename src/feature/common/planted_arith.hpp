// The arithmetic of planted regressions (parity-gate tests only) that the float twins share, as
// VMAFX_HOST_DEVICE functions that give the device's bits on the host too, so that host tests can
// run a twin's per-thread code with its plants: a fused multiply-add (the planted contraction)
// and an add rounded toward zero (a planted rounding step). Never on a normal run's path.
#pragma once

#include <cmath>

#include "base/host_device.hpp"
#include "gpu/twin.hpp"

namespace vmafx::planted {

/// Which of the four planted regressions a float twin runs with (parity-gate tests only; all off
/// in normal runs): one flag per PlantedDefect kind. Where each acts is the twin's to say (its
/// `Plant` alias's comment).
struct Flags {
    bool fma = false;          ///< kContraction
    bool mirror = false;       ///< kMirrorShift
    bool toward_zero = false;  ///< kRoundingConstant
    bool order = false;        ///< kReductionOrder

    /// The flags of defect `d` (none for PlantedDefect::kNone).
    static Flags of(PlantedDefect d) {
        Flags f;
        f.fma = d == PlantedDefect::kContraction;
        f.mirror = d == PlantedDefect::kMirrorShift;
        f.toward_zero = d == PlantedDefect::kRoundingConstant;
        f.order = d == PlantedDefect::kReductionOrder;
        return f;
    }
};

/// The planted contraction: c * s + acc rounded once (__fmaf_rn on the device, std::fma on the host).
VMAFX_HOST_DEVICE inline float fma(float c, float s, float acc) {
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(c, s, acc);
#else
    return std::fma(c, s, acc);
#endif
}

/// The planted rounding: a + b rounded toward zero (__fadd_rz on the device), finite operands.
VMAFX_HOST_DEVICE inline float add_rz(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fadd_rz(a, b);
#else
    // TwoSum (no contraction on the host): the nearest sum and its exact error; where the nearest
    // sum is farther from 0 than the exact one, one float toward 0.
    const float s = a + b;
    const float bb = s - a;
    const float err = (a - (s - bb)) + (b - bb);
    if (err != 0.0f && ((s > 0.0f && err < 0.0f) || (s < 0.0f && err > 0.0f))) return std::nextafter(s, 0.0f);
    return s;
#endif
}

}  // namespace vmafx::planted
