// Per-sample and per-window arithmetic of the IQA SSIM machinery, shared by the CPU reference
// (iqa.cpp, float_ssim.cpp, float_ms_ssim.cpp) and the CUDA twins (float_ssim_cuda.cu,
// float_ms_ssim_cuda.cu through iqa_cuda.cuh): every function is __host__ __device__ under nvcc
// (VMAFX_HOST_DEVICE), so that each product, rounding, mirror and clamp exists once. The CPU
// builds with -ffp-contract=off and the CUDA units with --fmad=false -prec-div=true
// -prec-sqrt=true -ftz=false, so each operation below is one IEEE operation on both sides
// (double sqrt and division included). Written in the shared-arithmetic subset
// (base/shared_math.hpp: it compiles as C++, CUDA and GLSL) except filter_pixel, a C++ adaptor
// that walks an image through a pointer (GLSL functions take no buffers).
// Upstream: libvmaf 3.2.0 src/feature/iqa/convolve.c (_iqa_convolve's 1-D build,
// _iqa_filter_pixel, KBND_SYMMETRIC), iqa/ssim_tools.c/.h (_iqa_ssim's default path,
// g_gaussian_window_h/_v), iqa/decimate.c.
#ifndef VMAFX_FEATURE_COMMON_IQA_MATH_HPP
#define VMAFX_FEATURE_COMMON_IQA_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(iqa)

/// Taps of the Gaussian window (sigma 1.5) of the SSIM map, each direction.
VMAFX_CONST int kGaussianLen = 11;

/// Tap k (0..10) of the 1-D Gaussian window upstream applies horizontally and vertically
/// (g_gaussian_window_h and g_gaussian_window_v, the same symmetric values), as a float. A
/// function rather than an array so that device code can use it (unrolled loops fold it).
VMAFX_CONSTEXPR_FN float gaussian_tap(int k) {
    switch (k < 6 ? k : 10 - k) {
    case 0: return 0.001028f;
    case 1: return 0.007599f;
    case 2: return 0.036001f;
    case 3: return 0.109361f;
    case 4: return 0.213006f;
    default: return 0.266012f;
    }
}

/// One tap of every IQA filter: the float product value * tap (a sample times a tap),
/// converted to double and added to the running double `sum` (C's `double += float * float`,
/// no contraction).
VMAFX_FN double add_product(double sum, float value, float tap) {
    return sum + double(value * tap);
}

/// KBND_SYMMETRIC's one reflection of an index outside [0, n): -1 - i below 0, 2n - 1 - i at
/// and above n (the edge sample repeated).
VMAFX_FN int mirror(int i, int n) {
    if (i < 0) return -1 - i;
    if (i >= n) return n - (i - n) - 1;
    return i;
}

/// The SSIM constants of the default path (K1 = 0.01, K2 = 0.03, L = 255), in float as
/// upstream forms them: C1 = (K1 L)^2, C2 = (K2 L)^2, C3 = C2 / 2, each product and the
/// quotient rounded to float (written as their exact decimal values, 0x1.a028f4p+2,
/// 0x1.d42e12p+5 and 0x1.d42e12p+4, so that no compiler's constant folding can differ; GLSL has
/// no hex float literals; src/feature/float_ssim/float_ssim_cuda_test.cpp recomputes them at run time).
VMAFX_CONST float kC1 = 6.50249958038330078125f;   // (0.01f * 255) * (0.01f * 255)
VMAFX_CONST float kC2 = 58.522495269775390625f;    // (0.03f * 255) * (0.03f * 255)
VMAFX_CONST float kC3 = 29.2612476348876953125f;   // kC2 / 2.0f

/// A variance from the Gaussian means of the squares and of the samples: sq - mu * mu in float,
/// clamped at 0 (upstream's MAX(0.0, v): a double comparison, stored back as float).
VMAFX_FN float variance(float sq, float mu) {
    const float v = sq - mu * mu;
    return float(VMAFX_D(0.0) > double(v) ? VMAFX_D(0.0) : double(v));
}

/// The covariance: both - mu1 * mu2 in float (not clamped).
VMAFX_FN float covariance(float both, float mu1, float mu2) { return both - mu1 * mu2; }

/// One window's luminance, contrast and structure terms and their product, in double as
/// upstream's _iqa_ssim adds them.
struct WindowTerms {
    double l;
    double c;
    double s;
    double lcs;  ///< l * c * s, the SSIM map's value
};

/// The terms of one window from its means mu1, mu2, (clamped) variances v1, v2 and covariance
/// cov: s1s2 = float(sqrt(double(v1 * v2))); l = (2.0 mu1 mu2 + C1) / double(float(mu1 mu1 +
/// mu2 mu2 + C1)); c = (2.0 s1s2 + C2) / double(float(v1 + v2 + C2)); s = float((s12 + C3) /
/// (s1s2 + C3)) with s12 = 0 where cov < 0 and s1s2 <= 0 (flat identical windows), else cov;
/// lcs = (l * c) * s.
VMAFX_FN WindowTerms window_terms(float mu1, float mu2, float v1, float v2, float cov) {
    const float s1s2 = float(vmafx_sqrt_d(double(v1 * v2)));
    WindowTerms t;
    t.l = vmafx_div_d(VMAFX_D(2.0) * double(mu1) * double(mu2) + double(kC1), double(mu1 * mu1 + mu2 * mu2 + kC1));
    t.c = vmafx_div_d(VMAFX_D(2.0) * double(s1s2) + double(kC2), double(v1 + v2 + kC2));
    const float s12 = (cov < 0.0f && s1s2 <= 0.0f) ? 0.0f : cov;
    t.s = double(vmafx_div_f(s12 + kC3, s1s2 + kC3));  // a float quotient
    t.lcs = t.l * t.c * t.s;
    return t;
}

/// Rows of the window-term arrays (one row per running sum of _iqa_ssim, windows in raster
/// order), as the CUDA twins lay them out and iqa::window_term_rows writes them.
VMAFX_CONST int kRowL = 0;
VMAFX_CONST int kRowC = 1;
VMAFX_CONST int kRowS = 2;
VMAFX_CONST int kRowLcs = 3;
VMAFX_CONST int kTermRows = 4;

VMAFX_NAMESPACE_END

#if !VMAFX_GLSL
#include <cstddef>

namespace vmafx::iqa {

/// filter_pixel's index map where the kernel leaves the picture: KBND_SYMMETRIC (mirror).
struct SymmetricBorder {
    VMAFX_HOST_DEVICE int operator()(int i, int n) const { return mirror(i, n); }
};

/// _iqa_filter_pixel with scale 1: the klen x klen kernel (row-major) centred on (x, y) of the
/// w x h image `img` (rows packed), the products added with add_product in the kernel's order
/// (rows, then columns), rounded to float; indices mirrored where the kernel leaves the picture
/// (the whole kernel read through mirror() when any part of it is outside, as upstream). An
/// even kernel covers [-klen/2, klen/2 - 1]. `border` maps such an index into the picture
/// (SymmetricBorder; only a twin's planted kMirrorShift passes another, iqa_twin.hpp). A C++
/// adaptor (pointers), outside the shared subset; its arithmetic is add_product's.
template <typename Border>
VMAFX_HOST_DEVICE inline float filter_pixel_with(const float* img, int w, int h, int x, int y, const float* kernel,
                                                 int klen, const Border& border) {
    const int c = klen / 2;
    const int even = (klen & 1) ? 0 : 1;
    const bool edge = x < c || y < c || x >= w - c || y >= h - c;
    double sum = 0.0;
    int k = 0;
    for (int v = -c; v <= c - even; ++v) {
        for (int u = -c; u <= c - even; ++u, ++k) {
            float sample;
            if (edge) {
                const int yy = border(y + v, h);
                const int xx = border(x + u, w);
                sample = img[static_cast<std::ptrdiff_t>(yy) * w + xx];
            } else {
                sample = img[static_cast<std::ptrdiff_t>(y + v) * w + x + u];
            }
            sum = add_product(sum, sample, kernel[k]);
        }
    }
    return static_cast<float>(sum);
}

/// filter_pixel_with and the symmetric border: upstream's _iqa_filter_pixel.
VMAFX_HOST_DEVICE inline float filter_pixel(const float* img, int w, int h, int x, int y, const float* kernel,
                                            int klen) {
    return filter_pixel_with(img, w, h, x, y, kernel, klen, SymmetricBorder{});
}

}  // namespace vmafx::iqa
#endif

#endif  // VMAFX_FEATURE_COMMON_IQA_MATH_HPP
