// CIEDE2000's per-pixel arithmetic (upstream libvmaf/src/feature/ciede.c: get_lab_color and
// ciede2000, as vmafx's CPU reference computes them), written once for the CPU reference
// (ciede.cpp) and its CUDA twin (ciede_cuda.cu).
//
// Every float and double operation is the CPU's, in the CPU's order: upstream's pow(x, 2) and
// powf(x, 2), which GCC compiles into x * x, are written so (sq), and its powf(25., 7) is the
// constant GCC folds it into. The library calls (pow, atan2, sin, cos, exp, powf) and the few
// double operations between such a call and the next conversion to float go through a policy P,
// so that the same text serves two arithmetics:
//  - the CPU's (ciede.cpp HostMath): P::D is double, the calls are the CPU's libm (exp and powf
//    vmafx's own, base/libm.hpp; pow, atan2, sin and cos the host's), every operation as written;
//  - the twin's (ciede_cuda.cu): P::D is an interval that holds the CPU's double for sure (the
//    device's libm value widened by both libraries' error bounds, then directed rounding), and
//    P::to_float gives the CPU's float when both ends round to the same float and otherwise
//    marks the pixel for the host, which computes it with the CPU's code.
// Everything outside P (the float arithmetic, the doubles computed from floats) is a value both
// sides know exactly, computed as written.
//
// Policy P (an object, passed by reference):
//   using D = ...;                       a double quantity (double on the CPU)
//   D     pow(D x, double y)             libm pow, x > 0, increasing in x for the y used here
//   D     atan2(double y, double x)      libm atan2
//   D     sin(double x), cos(double x)   libm sin, cos
//   D     exp(double x)                  vmafx's libm::exp
//   D     sqrt(D x)                      IEEE square root
//   float powf(float x, float y)         vmafx's libm::powf (exact on both sides)
//   float to_float(D x)                  the CPU's static_cast<float>(x)
//   bool  greater(D x, double c)         the CPU's x > c
// and D supports + - * / with D, double and float operands, as double arithmetic does.
// Not in the shared-arithmetic subset (docs/design.md): GLSL has no double sin, cos, atan2 or
// pow, so a Vulkan twin of ciede needs its own policy first; the template stands for the policy
// include a shader would use.
#pragma once

#include <cmath>

#include "base/host_device.hpp"

namespace vmafx::ciede {

/// A colour in CIE L*a*b*, in float as upstream's LABColor.
struct Lab {
    float l = 0;
    float a = 0;
    float b = 0;
};

namespace formula {

inline constexpr double kPi = 3.14159265358979323846;  // M_PI

/// powf(25., 7) as upstream's compiler folds it: 25^7 = 6103515625 rounded to float.
inline constexpr float kPowf25To7 = 6103515648.0f;

/// upstream pow(x, 2), as compiled.
VMAFX_HOST_DEVICE inline double sq(double x) { return x * x; }

/// upstream rgb_to_xyz_map: the sRGB transfer inverted.
template <class P>
VMAFX_HOST_DEVICE typename P::D srgb_to_linear(P& p, double c) {
    using D = typename P::D;
    if (c > 10. / 255.) {
        const double a = 0.055;
        const double d = 1.0 / 1.055;
        return p.pow(D((c + a) * d), 2.4);
    }
    const double d = 1.0 / 12.92;
    return D(c * d);
}

/// upstream xyz_to_lab_map.
template <class P>
VMAFX_HOST_DEVICE float lab_f(P& p, typename P::D c) {
    const double kappa = 24389.0 / 27.0;
    const double epsilon = 216.0 / 24389.0;
    if (p.greater(c, epsilon)) return p.to_float(p.pow(c, 1.0 / 3.0));
    return p.to_float((kappa * c + 16.0) * (1.0 / 116.0));
}

/// upstream get_lab_color: limited-range BT.709 Y'CbCr samples of `bit_depth` bits to L*a*b*
/// (sRGB transfer, D65 white).
template <class P>
VMAFX_HOST_DEVICE Lab lab_of(P& p, double y, double u, double v, int bit_depth) {
    using D = typename P::D;
    const double scale = 1 << (bit_depth - 8);
    y = (y - 16. * scale) * (1. / (219. * scale));
    u = (u - 128. * scale) * (1. / (224. * scale));
    v = (v - 128. * scale) * (1. / (224. * scale));

    const double r0 = y + 1.28033 * v;
    const double g0 = y - 0.21482 * u - 0.38059 * v;
    const double b0 = y + 2.12798 * u;
    const D r = srgb_to_linear(p, r0);
    const D g = srgb_to_linear(p, g0);
    const D b = srgb_to_linear(p, b0);

    const D x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
    const D yy = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
    const D z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;

    const double fx = lab_f(p, x * (1.0 / 0.95047));
    const double fy = lab_f(p, yy);
    const double fz = lab_f(p, z * (1.0 / 1.08883));

    return {static_cast<float>((116.0 * fy) - 16.0), static_cast<float>(500.0 * (fx - fy)),
            static_cast<float>(200.0 * (fy - fz))};
}

/// upstream get_h_prime.
template <class P>
VMAFX_HOST_DEVICE float h_prime(P& p, float x, float y) {
    if (x == 0.0 && y == 0.0) return 0.0;
    float hue = p.to_float(p.atan2(static_cast<double>(x), static_cast<double>(y)));
    if (hue < 0.0) hue = static_cast<float>(hue + 2. * kPi);
    return hue;
}

/// upstream get_delta_h_prime.
VMAFX_HOST_DEVICE inline float delta_h_prime(float c1, float c2, float h1, float h2) {
    if (c1 == 0.0 || c2 == 0.0) return 0.0;
    if (fabsf(h1 - h2) <= kPi) return h2 - h1;
    if (h2 <= h1) return static_cast<float>((h2 - h1) + 2. * kPi);
    return static_cast<float>((h2 - h1) - 2. * kPi);
}

/// upstream get_upcase_h_bar_prime.
VMAFX_HOST_DEVICE inline float upcase_h_bar_prime(float h1, float h2) {
    const double d = fabs(static_cast<double>(h1 - h2));
    return static_cast<float>(d > kPi ? ((h1 + h2) + 2.0 * kPi) / 2.0 : static_cast<double>(h1 + h2) / 2.0);
}

/// upstream get_upcase_t.
template <class P>
VMAFX_HOST_DEVICE float upcase_t(P& p, float hbp) {
    const double h = hbp;
    return p.to_float(1.0 - 0.17 * p.cos(h - kPi / 6.0) + 0.24 * p.cos(2.0 * h) +
                      0.32 * p.cos(3.0 * h + kPi / 30.0) - 0.20 * p.cos(4.0 * h - 7.0 * kPi / 20.0));
}

VMAFX_HOST_DEVICE inline float radians_to_degrees(float radians) {
    return static_cast<float>(radians * (180.0 / kPi));
}
VMAFX_HOST_DEVICE inline float degrees_to_radians(float degrees) {
    return static_cast<float>(degrees * (kPi / 180.0));
}

/// upstream get_r_sub_t.
template <class P>
VMAFX_HOST_DEVICE float r_sub_t(P& p, float c_bar_prime, float hbp) {
    const float degrees = static_cast<float>((radians_to_degrees(hbp) - 275.0) * (1.0 / 25.0));
    const float c7 = p.powf(c_bar_prime, 7.0f);
    const float ratio = c7 / (c7 + kPowf25To7);
    const float neg_sq = -(degrees * degrees);
    const float angle = degrees_to_radians(p.to_float(60.0 * p.exp(static_cast<double>(neg_sq))));
    return p.to_float(-2.0 * sqrt(static_cast<double>(ratio)) * p.sin(static_cast<double>(angle)));
}

/// upstream ciede2000 with upstream's weights kL = 0.65, kC = 1, kH = 4: the difference of two
/// colours, in float.
template <class P>
VMAFX_HOST_DEVICE float delta_e_2000(P& p, const Lab& c1, const Lab& c2) {
    using D = typename P::D;
    const float k_l = static_cast<float>(0.65);
    const float k_c = static_cast<float>(1.0);
    const float k_h = static_cast<float>(4.0);
    const double pow25_7 = 6103515625.0;  // pow(25, 7), exact

    const float delta_l_prime = c2.l - c1.l;
    const float l_bar = (c1.l + c2.l) / 2;
    const float ch1 = static_cast<float>(sqrt(sq(c1.a) + sq(c1.b)));
    const float ch2 = static_cast<float>(sqrt(sq(c2.a) + sq(c2.b)));
    const float c_bar = (ch1 + ch2) / 2;
    const D c_bar7 = p.pow(D(static_cast<double>(c_bar)), 7.0);  // upstream: four equal calls
    const D g = 1.0 - p.sqrt(c_bar7 / (c_bar7 + pow25_7));
    const float a_prime_1 = p.to_float(c1.a + (c1.a / 2) * g);
    const float a_prime_2 = p.to_float(c2.a + (c2.a / 2) * g);
    const float c_prime_1 = static_cast<float>(sqrt(sq(a_prime_1) + sq(c1.b)));
    const float c_prime_2 = static_cast<float>(sqrt(sq(a_prime_2) + sq(c2.b)));
    const float c_bar_prime = (c_prime_1 + c_prime_2) / 2;
    const float delta_c_prime = c_prime_2 - c_prime_1;
    const float l50 = l_bar - 50;
    const float s_sub_l = static_cast<float>(1. + ((0.015 * sq(l50)) / sqrt(20 + sq(l50))));
    const float s_sub_c = static_cast<float>(1. + 0.045 * c_bar_prime);
    const float h_prime_1 = h_prime(p, c1.b, a_prime_1);
    const float h_prime_2 = h_prime(p, c2.b, a_prime_2);
    const float dhp = delta_h_prime(ch1, ch2, h_prime_1, h_prime_2);
    const float delta_upcase_h_prime =
        p.to_float(2.0 * sqrt(static_cast<double>(c_prime_1 * c_prime_2)) * p.sin(static_cast<double>(dhp) / 2.0));
    const float hbp = upcase_h_bar_prime(h_prime_1, h_prime_2);
    const float t = upcase_t(p, hbp);
    const float s_sub_upcase_h = static_cast<float>(1.0 + 0.015 * c_bar_prime * t);
    const float rt = r_sub_t(p, c_bar_prime, hbp);
    const float lightness = delta_l_prime / (k_l * s_sub_l);
    const float chroma = delta_c_prime / (k_c * s_sub_c);
    const float hue = delta_upcase_h_prime / (k_h * s_sub_upcase_h);

    return static_cast<float>(sqrt(sq(lightness) + sq(chroma) + sq(hue) + rt * chroma * hue));
}

}  // namespace formula

/// Upstream's 4:2:2 chroma row pitch in samples (vmaf_picture_alloc: the width rounded up to 32).
inline constexpr int kRowAlign = 32;

/// Where upstream's 4:4:4 view of a chroma plane (width cw, height ch, of a picture with
/// subsampling s) reads luma position (x, y) (see chroma_at): sets col, row and returns true, or
/// returns false for 4:2:2's zeroed row padding (the value 0). 4:4:4: (x, y); 4:2:0:
/// (x / 2, y / 2); 4:2:2: x samples on from row y / 2 in memory of row pitch cw rounded up to
/// kRowAlign. The row can exceed ch only for a 4:2:2 picture one row high wider than its pitch
/// (the descriptor refuses it).
/// `s`: 0 for 4:2:0, 1 for 4:2:2, 2 for 4:4:4 (Subsampling's order).
VMAFX_HOST_DEVICE inline bool chroma_position(int s, int cw, int x, int y, int& col, int& row) {
    if (s == 2) {
        col = x, row = y;
        return true;
    }
    if (s == 0) {
        col = x / 2, row = y / 2;
        return true;
    }
    const int pitch = (cw + kRowAlign - 1) / kRowAlign * kRowAlign;
    row = y / 2 + x / pitch;
    col = x % pitch;
    return col < cw;
}

}  // namespace vmafx::ciede
