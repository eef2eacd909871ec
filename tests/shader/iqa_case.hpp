// One test case of iqa_math.hpp (float_ssim's window terms), written in the shared-arithmetic
// subset so that the shader (iqa.comp) and the C++ side of tests/shader/shader_test.cpp run the
// same calls. The structs' layouts are the same in C++ and in GLSL's std430.
#ifndef VMAFX_TESTS_SHADER_IQA_CASE_HPP
#define VMAFX_TESTS_SHADER_IQA_CASE_HPP

#include "feature/common/iqa_math.hpp"

VMAFX_NAMESPACE_BEGIN(iqa)

/// Inputs: a window's Gaussian means mu1, mu2, means of the squares sq1, sq2 and of the product
/// `both`; eleven samples x under the Gaussian's taps.
struct IqaCase {
    float mu1;
    float mu2;
    float sq1;
    float sq2;
    float both;
    float x[11];
};

/// Outputs: window_terms' four doubles; the variances, the covariance; the filtered value of x
/// (add_product over gaussian_tap, rounded to float).
struct IqaResult {
    double l;
    double c;
    double s;
    double lcs;
    float v1;
    float v2;
    float cov;
    float filtered;
};

/// Every function of iqa_math.hpp's subset on case c.
VMAFX_FN IqaResult iqa_case(VMAFX_IN(IqaCase, c)) {
    IqaResult r;
    r.v1 = variance(c.sq1, c.mu1);
    r.v2 = variance(c.sq2, c.mu2);
    r.cov = covariance(c.both, c.mu1, c.mu2);
    const WindowTerms t = window_terms(c.mu1, c.mu2, r.v1, r.v2, r.cov);
    r.l = t.l;
    r.c = t.c;
    r.s = t.s;
    r.lcs = t.lcs;
    double sum = VMAFX_D(0.0);
    for (int k = 0; k < kGaussianLen; ++k) sum = add_product(sum, c.x[k], gaussian_tap(k));
    r.filtered = float(sum);
    return r;
}

VMAFX_NAMESPACE_END

#endif  // VMAFX_TESTS_SHADER_IQA_CASE_HPP
