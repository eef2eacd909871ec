// The blend of a motion score above an offset (upstream libvmaf 3.2.0 motion_blend_tools.h),
// shared by the flush() of "motion" and "float_motion" (their motion3). Host code only: no twin
// computes it.
#pragma once

namespace vmafx::motion {

/// Upstream motion_blend_tools.h motion_blend(): above `offset`, a motion score counts only by
/// `factor`: score * factor + (1 - factor) * MIN(offset, score), where MIN(a, b) is
/// a < b ? a : b. Used by flush() of "motion" and "float_motion" (their motion3).
inline double motion_blend(double score, double factor, double offset) {
    return score * factor + (1 - factor) * (offset < score ? offset : score);
}

}  // namespace vmafx::motion
