// Per-sample arithmetic of the float_ansnr metric, shared by the CPU reference (float_ansnr.cpp)
// and its CUDA twin (float_ansnr_cuda.cu), written in the shared-arithmetic subset
// (base/shared_math.hpp: C++, CUDA and GLSL): the two filters' weights, their border reflection,
// one filtered sample from its window, and the two terms of the sums. Upstream: ansnr_tools.c
// (the filter tables, ansnr_filter2d_s, ansnr_mse_s).
#ifndef VMAFX_FEATURE_FLOAT_ANSNR_FLOAT_ANSNR_MATH_HPP
#define VMAFX_FEATURE_FLOAT_ANSNR_FLOAT_ANSNR_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(float_ansnr)

/// Taps of the reference's filter (3 x 3) and of the distorted picture's (5 x 5) per side.
VMAFX_CONST int kRefTaps = 3;
VMAFX_CONST int kDistTaps = 5;

/// Numerator of the 1-D binomial (1 2 1) at tap k (0..2).
VMAFX_CONSTEXPR_FN int binomial3(int k) { return k == 1 ? 2 : 1; }

/// Weight (fi, fj) of the reference's 3x3 filter (ansnr_filter2d_ref_s): the double quotient
/// n / 16 (n = (1 2 1)^T (1 2 1) at fi, fj) rounded to float (exact: n / 16 is a float).
VMAFX_CONSTEXPR_FN float ref_weight(int fi, int fj) {
    return float(vmafx_div_d(double(binomial3(fi) * binomial3(fj)), VMAFX_D(16.0)));
}

/// Numerator n of the distorted picture's 5x5 filter (ansnr_filter2d_dis_s, weights n / 571)
/// at (fi, fj), 0..4 each: the table is symmetric about its centre; its quarter, by distance
/// from the edge a = min(fi, 4 - fi), b = min(fj, 4 - fj): a 0: 2 7 12; 1: 7 31 52; 2: 12 52 127.
VMAFX_CONSTEXPR_FN int dist_numerator(int fi, int fj) {
    const int a = fi < 4 - fi ? fi : 4 - fi;
    const int b = fj < 4 - fj ? fj : 4 - fj;
    const int lo = a < b ? a : b;
    const int hi = a < b ? b : a;
    if (lo == 0) return hi == 0 ? 2 : hi == 1 ? 7 : 12;
    if (lo == 1) return hi == 1 ? 31 : 52;
    return 127;
}

/// Weight (fi, fj) of the distorted picture's 5x5 filter: the double quotient n / 571 rounded
/// to float.
VMAFX_CONSTEXPR_FN float dist_weight(int fi, int fj) {
    return float(vmafx_div_d(double(dist_numerator(fi, fj)), VMAFX_D(571.0)));
}

/// Upstream's border reflection of index k for a side of n (not the convolution's mirror):
/// -k reads k below 0, n - 1 + k reads n - k above (the last sample repeated). Valid for an
/// overshoot of at most 2 and n >= 3.
VMAFX_CONSTEXPR_FN int reflect(int k, int n) { return k < 0 ? -k : (k >= n ? 2 * n - k - 1 : k); }

/// The 3x3 filtered sample from its window w[fi * 3 + fj] (the reflected neighbourhood, row fi,
/// column fj) and the weights f: per kernel row the float sum from 0 of f * w in column order,
/// then the rows' sums added in order to a float from 0.
VMAFX_FN float filter3_at(VMAFX_IN_ARRAY(float, f, 9), VMAFX_IN_ARRAY(float, w, 9)) {
    float accum = 0.0f;
    for (int fi = 0; fi < 3; ++fi) {
        float inner = 0.0f;
        for (int fj = 0; fj < 3; ++fj) inner += f[fi * 3 + fj] * w[fi * 3 + fj];
        accum += inner;
    }
    return accum;
}

/// The 5x5 filtered sample, as filter3_at with 5 x 5 weights and window.
VMAFX_FN float filter5_at(VMAFX_IN_ARRAY(float, f, 25), VMAFX_IN_ARRAY(float, w, 25)) {
    float accum = 0.0f;
    for (int fi = 0; fi < 5; ++fi) {
        float inner = 0.0f;
        for (int fj = 0; fj < 5; ++fj) inner += f[fi * 5 + fj] * w[fi * 5 + fj];
        accum += inner;
    }
    return accum;
}

/// The signal term of a filtered reference sample r: r * r (float).
VMAFX_FN float signal_term(float r) { return r * r; }

/// The noise term of filtered samples r (reference) and d (distorted): (r - d) * (r - d) (float).
VMAFX_FN float noise_term(float r, float d) { return (r - d) * (r - d); }

VMAFX_NAMESPACE_END

#endif  // VMAFX_FEATURE_FLOAT_ANSNR_FLOAT_ANSNR_MATH_HPP
