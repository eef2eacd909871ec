// Row kernel of float_adm's decouple step (float_adm.cpp decouple, upstream adm_decouple_s): the
// scalar reference (decouple_pixel below, a sample at a time, reference_decouple_row()) and a
// SIMD version computing the same floats (float_adm_simd.cpp, Google Highway with run-time
// dispatch, simd_decouple_row()). Internal: used by float_adm.cpp, float_adm_simd.cpp and
// tests/test_simd_kernels.cpp.
#pragma once

#include <cmath>
#include <cstdint>

#include "feature/float_adm/float_adm_math.hpp"
#include "feature/float_adm/rcp_estimate.hpp"

namespace vmafx::float_adm {

/// One row of the decouple step: the reference's (o*) and the distorted picture's (t*) detail
/// bands h, v, d in, the restored (r*) and additive (a*) bands out, all at the same columns.
struct DecoupleRow {
    const float *oh, *ov, *od, *th, *tv, *td;
    float *rh, *rv, *rd, *ah, *av, *ad;
};

/// rcpss(x) (rcp_estimate) refined by one Newton step: upstream's rcp_s.
inline float rcp_refined(float x) { return rcp_refine(x, rcp_estimate(x)); }

/// The decouple step at column j (upstream adm_decouple_s, one sample): k = clamp(t / (o +
/// 1e-30), 0, 1) with the division as n * rcp_refined(d); restored = k * o, limited by
/// `gain_limit` (upstream's MIN/MAX in double) where the h/v angle differs by less than a degree;
/// additive = t - restored. The arithmetic is float_adm_math.hpp's (restored, angle_flag,
/// gain_limited), shared with the CUDA twin.
inline void decouple_pixel(const DecoupleRow& r, int j, double gain_limit) {
    const float oh = r.oh[j], ov = r.ov[j], od = r.od[j];
    const float th = r.th[j], tv = r.tv[j], td = r.td[j];
    const auto entry = [](float o) { return static_cast<std::uint32_t>(kRcpTable[rcp_index(o + 1e-30f)]); };
    float rst_h = restored(oh, th, entry(oh));
    float rst_v = restored(ov, tv, entry(ov));
    float rst_d = restored(od, td, entry(od));
    if (angle_flag(oh, ov, th, tv)) {
        rst_h = gain_limited(rst_h, th, gain_limit);
        rst_v = gain_limited(rst_v, tv, gain_limit);
        rst_d = gain_limited(rst_d, td, gain_limit);
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

// The geometry and the pooling of float_adm.cpp, shared with the CUDA twin's host code.

/// The Daubechies-2 analysis taps as upstream's float tables (low pass, high pass).
inline constexpr float kDwtLo[4] = {0.482962913144690f, 0.836516303737469f, 0.224143868041857f, -0.129409522550921f};
inline constexpr float kDwtHi[4] = {-0.129409522550921f, -0.224143868041857f, 0.836516303737469f, -0.482962913144690f};

/// A rectangle [left, right) x [top, bottom) of a band.
struct Region {
    int left, top, right, bottom;
};

/// The region decouple and csf compute on a w x h band: the border-less area grown by the
/// filter's reach, clipped to the band.
Region extended_region(int w, int h);
/// The region the scores sum on a w x h band: the band without a 10% border (not clipped, as
/// upstream; inside the band for every w, h >= 1).
Region score_region(int w, int h);

/// Where cm() works on a w x h band (upstream adm_cm_s's loop bounds): the score region `s`; its
/// interior, one sample in from every edge (rows [start_row, end_row), columns [start_col,
/// end_col)); the columns whose thresholds a row forms, [first, last): 0 where the score region
/// reaches it, the interior, and w - 1 where the region reaches it. The rows a cm sum adds are
/// likewise 0 where s.top <= 0, [start_row, end_row), and h - 1 where s.bottom > h - 1, in that
/// order: one contiguous range, as the columns are.
struct CmGeometry {
    int w, h;
    Region s;
    int start_col, end_col, start_row, end_row;
    int first, last;
};
/// The cm geometry of a w x h band (w, h >= 2).
CmGeometry cm_geometry(int w, int h);

/// The bands' p-norms of `accum` (sums of |x|^p over region `s`) plus the noise constant
/// (powf(area * noise_weight, 1 / p)), summed over the three bands: the last step of upstream's
/// adm_csf_den_scale_s and adm_cm_s (host only: powf).
float pooled_p_norm(const float (&accum)[3], const Region& s, double noise_weight, double p);

}  // namespace vmafx::float_adm
