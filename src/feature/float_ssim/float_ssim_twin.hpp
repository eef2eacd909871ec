// float_ssim's CUDA twin plan (the pyramid, scored levels and term rows that the shared iqa twin,
// common/iqa_twin.hpp and common/iqa_cuda.cuh, computes for float_ssim). No CUDA header needed.
#pragma once

#include "feature/common/iqa_twin.hpp"
#include "feature/float_ssim/float_ssim.hpp"

namespace vmafx::iqa {

/// float_ssim's plan for `settings` and its decimation factor (Settings::checked_factor): no
/// decimation at factor 1, else one by the factor x factor box (Settings::box_tap); the last
/// level scored; rows l, c, s, l*c*s with enable_lcs, else l*c*s only.
inline TwinPlan float_ssim_plan(const float_ssim::Settings& settings, int factor) {
    TwinPlan p;
    p.levels = factor > 1 ? 2 : 1;
    p.factor = factor;
    if (factor > 1) {
        p.taps.assign(static_cast<std::size_t>(factor) * static_cast<std::size_t>(factor),
                      float_ssim::Settings::box_tap(factor));
        p.klen = factor;
    }
    p.scored = {p.levels - 1};
    p.first_row = settings.enable_lcs ? kRowL : kRowLcs;
    p.row_count = settings.enable_lcs ? kTermRows : 1;
    return p;
}

}  // namespace vmafx::iqa
