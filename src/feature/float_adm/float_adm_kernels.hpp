// Row kernel of float_adm's decouple step (float_adm.cpp decouple, upstream adm_decouple_s): the
// scalar reference (decouple_pixel below, a sample at a time, reference_decouple_row()) and a
// SIMD version computing the same floats (float_adm_simd.cpp, Google Highway with run-time
// dispatch, simd_decouple_row()). Internal: used by float_adm.cpp, float_adm_simd.cpp and
// tests/test_simd_kernels.cpp.
#pragma once

#include <cmath>
#include <cstdint>

#include "feature/float_adm/rcp_estimate.hpp"

namespace vmafx::float_adm {

/// One row of the decouple step: the reference's (o*) and the distorted picture's (t*) detail
/// bands h, v, d in, the restored (r*) and additive (a*) bands out, all at the same columns.
struct DecoupleRow {
    const float *oh, *ov, *od, *th, *tv, *td;
    float *rh, *rv, *rd, *ah, *av, *ad;
};

/// rcpss(x) (rcp_estimate) refined by one Newton step: upstream's rcp_s.
inline float rcp_refined(float x) {
    const float xi = rcp_estimate(x);
    return xi + xi * (1.0f - x * xi);
}

/// The decouple step at column j (upstream adm_decouple_s, one sample): k = clamp(t / (o +
/// 1e-30), 0, 1) with the division as n * rcp_refined(d); restored = k * o, limited by
/// `gain_limit` (upstream's MIN/MAX in double) where the h/v angle differs by less than a degree;
/// additive = t - restored.
inline void decouple_pixel(const DecoupleRow& r, int j, double gain_limit) {
    const float cos_1deg_sq = static_cast<float>(std::cos(1.0 * 3.14159265358979323846 / 180.0) *
                                                 std::cos(1.0 * 3.14159265358979323846 / 180.0));
    const float eps = 1e-30f;
    const auto clamp01 = [](float k) { return k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k); };
    const auto limit = [gain_limit](float rst, float t) -> float {
        if (rst > 0.0) {
            const double x = rst * gain_limit;
            rst = static_cast<float>(x < t ? x : static_cast<double>(t));
        }
        if (rst < 0.0) {
            const double x = rst * gain_limit;
            rst = static_cast<float>(x > t ? x : static_cast<double>(t));
        }
        return rst;
    };
    const float oh = r.oh[j], ov = r.ov[j], od = r.od[j];
    const float th = r.th[j], tv = r.tv[j], td = r.td[j];
    const float kh = clamp01(th * rcp_refined(oh + eps));
    const float kv = clamp01(tv * rcp_refined(ov + eps));
    const float kd = clamp01(td * rcp_refined(od + eps));
    float rst_h = kh * oh;
    float rst_v = kv * ov;
    float rst_d = kd * od;
    const float ot_dp = oh * th + ov * tv;
    const float o_mag_sq = oh * oh + ov * ov;
    const float t_mag_sq = th * th + tv * tv;
    const bool angle_flag = (ot_dp >= 0.0f) && (ot_dp * ot_dp >= cos_1deg_sq * o_mag_sq * t_mag_sq);
    if (angle_flag) {
        rst_h = limit(rst_h, th);
        rst_v = limit(rst_v, tv);
        rst_d = limit(rst_d, td);
    }
    r.rh[j] = rst_h;
    r.rv[j] = rst_v;
    r.rd[j] = rst_d;
    r.ah[j] = th - rst_h;
    r.av[j] = tv - rst_v;
    r.ad[j] = td - rst_d;
}

/// A decouple row kernel: decouple_pixel(r, j, gain_limit) for j in [0, n); reads and writes
/// nothing outside those columns.
using DecoupleRowFn = void (*)(const DecoupleRow& r, int n, double gain_limit);

/// The scalar reference: decouple_pixel at every column.
DecoupleRowFn reference_decouple_row();
/// The SIMD kernel (float_adm_simd.cpp): the best compiled target the CPU supports
/// (hwy::SetSupportedTargetsForTest narrows it).
DecoupleRowFn simd_decouple_row();
/// The Highway target (HWY_AVX2, ...) that simd_decouple_row() runs now.
std::int64_t simd_target();

/// kRcpTable[i] << 11, as 32-bit lanes for a gather (the estimate's significand bits).
const std::int32_t* rcp_table_shifted();

}  // namespace vmafx::float_adm
