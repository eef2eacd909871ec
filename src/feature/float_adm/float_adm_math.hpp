// float_adm's per-sample arithmetic, shared by the CPU reference (float_adm.cpp, the decouple
// kernels of float_adm_kernels.hpp) and its CUDA twin (float_adm_cuda.cu), written in the
// shared-arithmetic subset (base/shared_math.hpp, docs/design.md) so that a GLSL twin can use
// the same text. Upstream: libvmaf 3.2.0 adm_tools.c (adm_dwt2_s, adm_decouple_s, adm_csf_s,
// adm_cm_s, the SSE2 rcp_s).
//
// The reciprocal estimate's table (rcp_estimate.hpp, kRcpTable) is read by the callers, as
// vif_math.hpp's logarithm table: rcp_index(x) names the entry, rcp_from_entry builds the
// estimate from it. Constants that are not floats (upstream's double literals 1/30 and 1/15)
// are passed in by the callers (kOneBy30, kOneBy15 below the subset, in the C++ block).
#ifndef VMAFX_FEATURE_FLOAT_ADM_FLOAT_ADM_MATH_HPP
#define VMAFX_FEATURE_FLOAT_ADM_FLOAT_ADM_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(float_adm)

/// float(cos(1 degree)^2) as upstream forms it in double (cos(pi / 180) * cos(pi / 180), rounded
/// to float once): its exact value (float_adm_test.cpp compares it with that expression).
VMAFX_CONST float kCos1DegSq = 0.99969542026519775390625f;

/// |x| by its bits (fabs: the sign bit cleared, -0 gives +0, NaN stays NaN).
VMAFX_FN float abs_f(float x) { return vmafx_bits_float(vmafx_float_bits(x) & 2147483647u); }

/// The index in kRcpTable of x's estimate: x's significand bits 22..11.
VMAFX_FN uint32_t rcp_index(float x) { return (vmafx_float_bits(x) >> 11u) & 4095u; }

/// rcpss(x) (the golden machines' reciprocal estimate) from `entry`, kRcpTable[rcp_index(x)]:
/// a biased exponent e in [1, 252] gives sign * 2^(126 - (e - 127)) * (1 + entry / 2^12);
/// zeros and subnormals an infinity of their sign; e >= 253 and infinities a zero of their sign;
/// NaN stays NaN, quieted.
VMAFX_FN float rcp_from_entry(float x, uint32_t entry) {
    const uint32_t bits = vmafx_float_bits(x);
    const uint32_t sign = bits & 2147483648u;
    const uint32_t e = (bits >> 23u) & 255u;
    uint32_t r;
    if (e == 255u && (bits & 8388607u) != 0u) {
        r = bits | 4194304u;  // NaN: quieted
    } else if (e == 0u) {
        r = sign | 2139095040u;  // zero or subnormal: infinity
    } else if (e >= 253u) {
        r = sign;  // a subnormal reciprocal or an infinite x: zero
    } else {
        r = sign | ((253u - e) << 23u) | (entry << 11u);
    }
    return vmafx_bits_float(r);
}

/// Upstream rcp_s: the estimate xi of 1 / x refined by one Newton step.
VMAFX_FN float rcp_refine(float x, float xi) { return xi + xi * (1.0f - x * xi); }

/// k clamped to [0, 1] as upstream: k < 0 ? 0 : (k > 1 ? 1 : k).
VMAFX_FN float clamp01(float k) { return k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k); }

/// The restored value `rst` limited by the enhancement gain `g` against the distorted value `t`
/// where the angle test passed (upstream's MIN / MAX, the product and the comparison in double).
VMAFX_FN float gain_limited(float rst, float t, double g) {
    float r = rst;
    if (double(r) > 0.0) {
        const double x = double(r) * g;
        r = float(x < double(t) ? x : double(t));
    }
    if (double(r) < 0.0) {
        const double x = double(r) * g;
        r = float(x > double(t) ? x : double(t));
    }
    return r;
}

/// Whether the h/v vectors of the reference (oh, ov) and the distorted picture (th, tv) are less
/// than a degree apart (upstream's angle_flag).
VMAFX_FN bool angle_flag(float oh, float ov, float th, float tv) {
    const float ot_dp = oh * th + ov * tv;
    const float o_mag_sq = oh * oh + ov * ov;
    const float t_mag_sq = th * th + tv * tv;
    return (ot_dp >= 0.0f) && (ot_dp * ot_dp >= kCos1DegSq * o_mag_sq * t_mag_sq);
}

/// One band's restored value before the gain limit: clamp(t * rcp(o + 1e-30), 0, 1) * o, with
/// `entry` = kRcpTable[rcp_index(o + 1e-30f)].
VMAFX_FN float restored(float o, float t, uint32_t entry) {
    const float d = o + 1e-30f;
    return clamp01(t * rcp_refine(d, rcp_from_entry(d, entry))) * o;
}

/// One Daubechies-2 tap sum as upstream adds it: ((((0 + f0 * s0) + f1 * s1) + f2 * s2) + f3 * s3).
VMAFX_FN float dwt_taps(float f0, float f1, float f2, float f3, float s0, float s1, float s2, float s3) {
    float acc = 0.0f;
    acc += f0 * s0;
    acc += f1 * s1;
    acc += f2 * s2;
    acc += f3 * s3;
    return acc;
}

/// Source index k (in [2i - 1, 2i + 2] for output i) of a DWT over n samples, mirrored as
/// upstream's dwt2_src_indices_filt_s: -1 -> 1, n -> n - 1, n + 1 -> n - 2.
VMAFX_FN int dwt_source(int k, int n) { return k < 0 ? -k : (k >= n ? 2 * n - k - 1 : k); }

/// The CSF step's magnitude term of a weighted value v: float(one_by_30 * |v|) (upstream's double
/// literal FLOAT_ONE_BY_30 as `one_by_30`).
VMAFX_FN float csf_flt(float v, double one_by_30) { return float(one_by_30 * double(abs_f(v))); }

/// Index of the neighbour k (0, 1, 2: before, at, after) of i in a dimension of n samples, as
/// upstream's edge macros pick them: {1, 0, 1} at 0, {n - 2, n - 1, n - 1} at n - 1.
VMAFX_FN int cm_neighbour(int i, int n, int k) {
    if (i == 0) return k == 1 ? 0 : 1;
    if (i == n - 1) return k == 0 ? n - 2 : n - 1;
    return i - 1 + k;
}

/// One band's part of a masking threshold: the nine 1/30 magnitudes f00..f22 (row, column) of
/// the neighbourhood added in upstream's order, the centre replaced by one_by_15 * |centre value|
/// added in double (upstream's double literal FLOAT_ONE_BY_15 as `one_by_15`).
VMAFX_FN float cm_band_sum(float f00, float f01, float f02, float f10, float f12, float f20, float f21, float f22,
                           float centre, double one_by_15) {
    float sum = f00;
    sum += f01;
    sum += f02;
    sum += f10;
    sum = float(double(sum) + one_by_15 * double(abs_f(centre)));
    sum += f12;
    sum += f20;
    sum += f21;
    sum += f22;
    return sum;
}

/// A masked value at p = 3: max(|x * rf| - thr, 0) cubed as upstream, (v * v) * v.
VMAFX_FN float cm_cube(float x, float rf, float thr) {
    float v = abs_f(x * rf) - thr;
    v = v < 0.0f ? 0.0f : v;
    return v * v * v;
}

/// A reference term of the denominator at p = 3: |rf * x| cubed, (a * a) * a.
VMAFX_FN float den_cube(float x, float rf) {
    const float a = abs_f(rf * x);
    return a * a * a;
}

VMAFX_NAMESPACE_END

#if !VMAFX_GLSL
namespace vmafx::float_adm {
/// Upstream's FLOAT_ONE_BY_30 / FLOAT_ONE_BY_15: double literals (the products with them are
/// taken in double and rounded once).
inline constexpr double kOneBy30 = 0.0333333351;
inline constexpr double kOneBy15 = 0.0666666701;
}  // namespace vmafx::float_adm
#endif

#endif  // VMAFX_FEATURE_FLOAT_ADM_FLOAT_ADM_MATH_HPP
