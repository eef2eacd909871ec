// adm_twin_plan.hpp: the GPU twins' per-level plan, from the CPU's own geometry and constants.
#include "feature/adm/adm_twin_plan.hpp"

#include <cmath>
#include <string>

#include "base/error.hpp"
#include "feature/adm/adm.hpp"
#include "gpu/twin.hpp"
#include "picture/picture.hpp"

namespace vmafx::adm {

namespace {

/// The rows contrast masking visits and each row's rounding and shift.
void set_cm_rows(FinalLevel& f, const CmLayout& cm, int h) {
    f.cm_begin = cm.row_begin;
    f.cm_end = cm.row_end;
    const Shift row = log2_shift(h, 0);
    f.cm_round = row.round;
    f.cm_shift = row.shift;
}

Level0Args level0_args(const TwinPlan& p, const VideoFormat& format, const AdmConfig& cfg, PlantedDefect plant) {
    Level0Args a{};
    a.width = format.width;
    a.height = format.height;
    a.bit_depth = format.bit_depth;
    a.w = p.bw[1];
    a.h = p.bh[1];
    a.lo_only = cfg.skip_scale0;
    a.reads_past_row = dwt_reads_past_row(format.width, cfg.skip_scale0 ? 0 : (format.bit_depth == 8 ? 32 : 64));
    a.mirror_shift = plant == PlantedDefect::kMirrorShift;
    a.half_rounding = plant == PlantedDefect::kRoundingConstant;
    a.tap = tap_region(a.w, a.h);
    a.score = score_region(a.w, a.h);
    a.tap_vec_end = vector_end(a.tap.left, a.tap.right, 16);
    a.cm = CmLayout(a.w, a.h);
    const auto wq = csf_weights_q_scale0(cfg.csf);
    for (int k = 0; k < 3; ++k) a.wt[k] = wq[k];
    a.integer_gain = cfg.enhn_gain_limit == std::floor(cfg.enhn_gain_limit);
    a.egl_int = static_cast<std::int32_t>(cfg.enhn_gain_limit);
    a.egl = cfg.enhn_gain_limit;
    a.aim = !cfg.skip_aim;
    return a;
}

CmArgs level0_cm_args(const Level0Args& a) {
    CmArgs c{};
    c.w = a.w;
    c.h = a.h;
    c.cm = a.cm;
    for (int k = 0; k < 3; ++k) c.wt[k] = a.wt[k];
    const Shift cub_hv = log2_shift(a.w, -4);
    const Shift cub_d = log2_shift(a.w, -3);
    const Shift cubs[3] = {cub_hv, cub_hv, cub_d};
    for (int k = 0; k < 3; ++k) {
        c.rcub[k] = cubs[k].round;
        c.scub[k] = cubs[k].shift;
    }
    c.aim = a.aim;
    return c;
}

FinalLevel level0_final(const Level0Args& a, const AdmConfig& cfg) {
    FinalLevel f{};
    f.den = f.num = !cfg.skip_scale0;
    f.aim = !cfg.skip_scale0 && a.aim;
    f.den_begin = a.score.top;
    f.den_end = a.score.bottom;
    const Shift den_row = den0_row_shift(a.score);
    f.den_round = den_row.round;
    f.den_shift = den_row.shift;
    set_cm_rows(f, a.cm, a.h);
    return f;
}

/// Level s + 1's reads past its rows: element 4 * w_next + k of upstream's scratch buffer,
/// which level s's last row wrote (4 rows of w_in values).
void set_scratch_tail(LevelArgs& a, const TwinPlan& p, int s, int span, const char* who) {
    a.store_tail = s < 3 && dwt_reads_past_row(p.bw[s + 1], 8);
    for (int k = 0; k < 2; ++k) {
        const int index = 4 * p.bw[s + 1] + k;
        a.tail_slot[k] = index / a.w_in;
        a.tail_col[k] = index % a.w_in;
        if (a.store_tail && (a.tail_slot[k] > 3 || a.tail_col[k] + 1 >= span))
            throw Error(std::string(who) + ": internal: scratch element " + std::to_string(index) + " of level " +
                        std::to_string(s) + " is out of reach");
    }
}

LevelArgs level_args(const TwinPlan& p, int s, const AdmConfig& cfg, PlantedDefect plant, int span,
                     const char* who) {
    LevelArgs a{};
    a.w_in = p.bw[s];
    a.h_in = p.bh[s];
    a.w = p.bw[s + 1];
    a.h = p.bh[s + 1];
    a.round_v = kDwtRoundV[s - 1];
    a.shift_v = kDwtShiftV[s - 1];
    a.round_h = kDwtRoundH[s - 1];
    a.shift_h = kDwtShiftH[s - 1];
    a.reads_past_row = dwt_reads_past_row(a.w_in, 8);
    a.mirror_shift = plant == PlantedDefect::kMirrorShift;
    a.tap = tap_region(a.w, a.h);
    a.score = score_region(a.w, a.h);
    a.tap_vec_end = vector_end(a.tap.left, a.tap.right, 16);
    const auto wq = csf_weights_q32(cfg.csf, s);
    for (int k = 0; k < 3; ++k) a.wq[k] = wq[k];
    a.egl = cfg.enhn_gain_limit;
    a.aim = !cfg.skip_aim;
    a.den_shift_sq = kDenShiftSq[s - 1];
    a.den_round_sq = std::uint64_t{1} << a.den_shift_sq;
    const Shift den_cub = log2_shift(a.score.right - a.score.left, 0);
    a.den_cub_round = den_cub.round;
    a.den_cub_shift = den_cub.shift;
    a.store_a = s < 3;
    set_scratch_tail(a, p, s, span, who);
    return a;
}

CmArgs level_cm_args(const LevelArgs& a) {
    CmArgs c{};
    c.w = a.w;
    c.h = a.h;
    c.cm = CmLayout(a.w, a.h);
    for (int k = 0; k < 3; ++k) c.wq[k] = a.wq[k];
    const Shift cub = log2_shift(a.w, 0);
    for (int k = 0; k < 3; ++k) {
        c.rcub[k] = cub.round;
        c.scub[k] = cub.shift;
    }
    c.aim = a.aim;
    return c;
}

FinalLevel level_final(const LevelArgs& a, const CmArgs& c) {
    FinalLevel f{};
    f.den = f.num = true;
    f.aim = a.aim;
    f.den_begin = a.score.top;
    f.den_end = a.score.bottom;
    const Shift den_row = log2_shift(a.score.bottom - a.score.top, 0);
    f.den_round = den_row.round;
    f.den_shift = den_row.shift;
    set_cm_rows(f, c.cm, a.h);
    return f;
}

}  // namespace

AdmSums twin_sums(const std::uint64_t* v) {
    AdmSums sums;
    for (int s = 0; s < 4; ++s)
        for (int theta = 0; theta < 3; ++theta) {
            sums.den[s][theta] = v[s * 9 + theta];
            sums.num[s][theta] = static_cast<std::int64_t>(v[s * 9 + 3 + theta]);
            sums.aim[s][theta] = static_cast<std::int64_t>(v[s * 9 + 6 + theta]);
        }
    return sums;
}

TwinPlan make_twin_plan(const VideoFormat& format, const Settings& settings, PlantedDefect plant, int span,
                        const char* who) {
    settings.check_options();  // as the CPU extractor: before any device memory is taken
    const AdmConfig& cfg = settings.config;
    TwinPlan p{};
    p.bw[0] = format.width;
    p.bh[0] = format.height;
    for (int s = 1; s <= 4; ++s) {
        p.bw[s] = (p.bw[s - 1] + 1) / 2;
        p.bh[s] = (p.bh[s - 1] + 1) / 2;
    }
    p.level0 = level0_args(p, format, cfg, plant);
    p.cm[0] = level0_cm_args(p.level0);
    p.final[0] = level0_final(p.level0, cfg);
    for (int s = 1; s <= 3; ++s) {
        p.levels[s - 1] = level_args(p, s, cfg, plant, span, who);
        p.cm[s] = level_cm_args(p.levels[s - 1]);
        p.final[s] = level_final(p.levels[s - 1], p.cm[s]);
    }
    p.round_after_sum = plant == PlantedDefect::kReductionOrder;
    return p;
}

}  // namespace vmafx::adm
