// Per-sample arithmetic of float_vif, shared by the CPU reference (float_vif.cpp) and the CUDA
// twin (float_vif_cuda.cu through float_vif_twin.hpp): upstream's polynomial base-2 logarithm,
// the taps of the separable float convolution, and the numerator and denominator terms of one
// sample. Written in the shared-arithmetic subset (base/shared_math.hpp: it compiles as C++,
// CUDA and GLSL). The CPU builds with -ffp-contract=off, CUDA with --fmad=false -prec-div=true
// -ftz=false, so each operation below is the same IEEE operation on both sides.
// Upstream: libvmaf 3.2.0 src/feature/vif_tools.c (log2f_approx under VIF_OPT_FAST_LOG2, which
// vif_options.h defines, so upstream's float VIF calls no libm logarithm; vif_statistic_s),
// common/convolution.c / convolution_avx.c (the taps' arithmetic).
#ifndef VMAFX_FEATURE_FLOAT_VIF_FLOAT_VIF_MATH_HPP
#define VMAFX_FEATURE_FLOAT_VIF_FLOAT_VIF_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(float_vif)

/// The float 1.0e-10f of upstream's statistic (0x1.b7cdfep-34, written as its exact decimal
/// value so that no compiler's decimal conversion is involved).
VMAFX_CONST float kEps = 1.00000001335143196001808973960578441619873046875e-10f;

/// Upstream's log2 approximation (vif_tools.c log2f_approx): x == 0 gives -infinity, x < 0 a
/// quiet NaN (0x7fc00000); otherwise the unbiased exponent field (as a float) plus a degree-8
/// polynomial of (the significand with the exponent field set to 127) - 1, Horner's scheme in
/// float. Subnormals, infinities and NaNs go through the same bit manipulation (exponent field
/// 0 or 255), as upstream's. The coefficients are upstream's decimal literals rounded to float,
/// written as their exact values.
VMAFX_FN float log2_approx(float x) {
    if (x == 0.0f) return vmafx_bits_float(0xFF800000u);
    if (x < 0.0f) return vmafx_bits_float(0x7FC00000u);
    const uint32_t u = vmafx_float_bits(x);
    const uint32_t exponent = (u & 0x7F800000u) >> 23u;
    const float remain = vmafx_bits_float((u & 0x007FFFFFu) | 0x3F800000u);
    const float log_base = float(int32_t(exponent) - 127);
    const float t = remain - 1.0f;
    float v = 0.0f;
    v = v * t + -0.012671635486185550689697265625f;
    v = v * t + 0.0648411810398101806640625f;
    v = v * t + -0.15704883635044097900390625f;
    v = v * t + 0.2571677267551422119140625f;
    v = v * t + -0.3538005650043487548828125f;
    v = v * t + 0.4801314175128936767578125f;
    v = v * t + -0.72131431102752685546875f;
    v = v * t + 1.44269478321075439453125f;
    v = v * t + 0.0f;
    return log_base + v;
}

/// One tap of the convolution's plain pass: acc + c * s (float, the product rounded).
VMAFX_FN float tap_plain(float acc, float c, float s) { return acc + c * s; }
/// One tap of the pass over squares: acc + c * (s * s).
VMAFX_FN float tap_square(float acc, float c, float s) { return acc + c * (s * s); }
/// One tap of the pass over products of two images: acc + c * (s * s2).
VMAFX_FN float tap_cross(float acc, float c, float s, float s2) { return acc + c * (s * s2); }

/// The convolution's mirror of an index (floatimg::mirror): -i below 0, 2 * size - i - 2 at and
/// above size (the edge sample not repeated). Valid for overshoots up to size - 1.
VMAFX_FN int mirror_index(int i, int size) { return i < 0 ? -i : (i >= size ? 2 * size - i - 2 : i); }

/// 1 / sigma_max^2 of the linear term: float((double)(s * s) / 65025), s = float(vif_sigma_nsq).
/// Upstream writes powf(s, 2.0f); GCC compiles that call into the float product s * s (both for
/// upstream's build and for vmafx's former std::pow(s, 2.0f): the object file had no pow call),
/// which is written here.
VMAFX_FN float sigma_max_inv_of(double sigma_nsq) {
    const float s = float(sigma_nsq);
    return float(vmafx_div_d(double(s * s), VMAFX_D(65025.0)));
}

/// A NaN as x86's SSE arithmetic leaves it here: 0xffc00000, the float of the default NaN
/// 0xfff8000000000000 of 0.0 / 0.0 (the only NaN the terms' arguments can hold: s1 / sigma_nsq
/// with both 0, at vif_sigma_nsq 0), kept through the add of 1.0 and the conversion to float;
/// other values unchanged. log2_approx reads a NaN's bits (its exponent field and significand),
/// so the CPU's value depends on them; the device's and a shader's NaNs have other bits (CUDA's
/// canonical NaN is positive, all significand bits set), and so would an ARM CPU's.
VMAFX_FN float x86_nan(float x) { return isnan(x) ? vmafx_bits_float(0xFFC00000u) : x; }

/// One sample's numerator and denominator terms.
struct SampleTerms {
    float num;
    float den;
};

/// Upstream vif_statistic_s's terms of one sample from the filtered means m1, m2 and the
/// filtered squares xx, yy and product xy: float variances clamped at 0, the gain g and the
/// noise variance sv_sq with upstream's special cases, g capped at `limit`
/// (float(vif_enhn_gain_limit)); num = log2_approx(float(1 + (double)(g g s1) / (sv_sq +
/// sigma_nsq))), den = log2_approx(float(1 + s1 / sigma_nsq)) (both in double; a NaN argument as
/// x86_nan), num 0 where the
/// covariance is negative, and the linear terms 1 - s2 * sigma_max_inv and 1 where
/// s1 < sigma_nsq (a double comparison).
VMAFX_FN SampleTerms sample_terms(float m1, float m2, float xx, float yy, float xy, float limit, double sigma_nsq,
                                  float sigma_max_inv) {
    float sigma1_sq = xx - m1 * m1;
    float sigma2_sq = yy - m2 * m2;
    const float sigma12 = xy - m1 * m2;
    sigma1_sq = sigma1_sq > 0.0f ? sigma1_sq : 0.0f;
    sigma2_sq = sigma2_sq > 0.0f ? sigma2_sq : 0.0f;
    float g = vmafx_div_f(sigma12, sigma1_sq + kEps);
    float sv_sq = sigma2_sq - g * sigma12;
    if (sigma1_sq < kEps) {
        g = 0.0f;
        sv_sq = sigma2_sq;
        sigma1_sq = 0.0f;
    }
    if (sigma2_sq < kEps) {
        g = 0.0f;
        sv_sq = 0.0f;
    }
    if (g < 0.0f) {
        sv_sq = sigma2_sq;
        g = 0.0f;
    }
    sv_sq = sv_sq > kEps ? sv_sq : kEps;
    g = g < limit ? g : limit;
    SampleTerms r;
    r.num = log2_approx(x86_nan(float(double(1.0f) + vmafx_div_d(double(g * g * sigma1_sq), double(sv_sq) + sigma_nsq))));
    r.den = log2_approx(x86_nan(float(double(1.0f) + vmafx_div_d(double(sigma1_sq), sigma_nsq))));
    if (sigma12 < 0.0f) r.num = 0.0f;
    if (double(sigma1_sq) < sigma_nsq) {
        r.num = 1.0f - sigma2_sq * sigma_max_inv;
        r.den = 1.0f;
    }
    return r;
}

VMAFX_NAMESPACE_END

#endif  // VMAFX_FEATURE_FLOAT_VIF_FLOAT_VIF_MATH_HPP
