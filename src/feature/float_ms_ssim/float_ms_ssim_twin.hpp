// float_ms_ssim's CUDA twin plan (the pyramid, scored levels and term rows that the shared iqa twin,
// common/iqa_twin.hpp and common/iqa_cuda.cuh, computes for float_ms_ssim). No CUDA header needed.
#pragma once

#include "feature/common/iqa_twin.hpp"
#include "feature/float_ms_ssim/float_ms_ssim.hpp"

namespace vmafx::iqa {

/// float_ms_ssim's plan: five levels by the 9x9 low-pass kernel, all scored, rows l, c, s.
inline TwinPlan float_ms_ssim_plan() {
    TwinPlan p;
    p.levels = float_ms_ssim::kScales;
    p.factor = 2;
    const auto lpf = float_ms_ssim::low_pass();
    p.taps.assign(lpf.begin(), lpf.end());
    p.klen = float_ms_ssim::kLowPassLen;
    for (int k = 0; k < float_ms_ssim::kScales; ++k) p.scored.push_back(k);
    p.first_row = kRowL;
    p.row_count = 3;
    return p;
}

}  // namespace vmafx::iqa
