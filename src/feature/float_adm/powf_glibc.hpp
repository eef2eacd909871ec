// glibc's powf (2.28 .. at least 2.39: sysdeps/ieee754/flt-32/e_powf.c, the algorithm of ARM's
// optimized-routines by Szabolcs Nagy) as its x86-64 build runs it on CPUs with FMA and AVX2
// (the multiarch __powf_fma variant, which GCC compiles with every a*b+c of the C source
// contracted into a fused multiply-add): a host-and-device function giving those bits, for
// float_adm's CUDA twin, whose CPU reference raises its per-sample terms to adm_p_norm with
// powf (the golden machines, AMD EPYC with glibc 2.36, run that variant).
//
// x = 2^k z, log2(x) = log2(c_i) + log1p(z / c_i - 1) / ln 2 + k with 16 subintervals i of z and
// a degree-5 polynomial; then 2^(y log2 x) = 2^(j / 32) 2^r with a 32-entry table of 2^(j / 32)
// and a cubic. All in double, rounded to float once at the end. The table values are the
// library's data (measured against the host's powf by float_adm_twin_test.cpp over every
// non-negative float at several exponents, where the host runs that variant).
#pragma once

#include <cstdint>
#include <cstring>

#include "base/host_device.hpp"

namespace vmafx::float_adm {

/// The data of glibc's powf: log2 subintervals (1/c_i, log2 c_i) and polynomial, 2^(j/32) table
/// (bits of 2^(j/32) less j << 47) and cubic.
struct PowfData {
    double invc[16];
    double logc[16];
    double log_poly[5];
    std::uint64_t exp_tab[32];
    double exp_poly[3];
};

/// glibc's values.
inline constexpr PowfData kPowfData = {
    {0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010bp+0, 0x1.3c995b0b80385p+0, 0x1.30d190c8864a5p+0,
     0x1.25e227b0b8eap+0, 0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0, 0x1.0953f419900a7p+0, 0x1p+0,
     0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aap-1, 0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1,
     0x1.767dcf5534862p-1},
    {-0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2, -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2,
     -0x1.01d9bf3f2b631p-2, -0x1.97c1d1b3b7afp-3, -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4,
     -0x1.a6f9db6475fcep-5, 0x0p+0, 0x1.338ca9f24f53dp-4, 0x1.476a9543891bap-3, 0x1.e840b4ac4e4d2p-3,
     0x1.40645f0c6651cp-2, 0x1.88e9c2c1b9ff8p-2, 0x1.ce0a44eb17bccp-2},
    {0x1.27616c9496e0bp-2, -0x1.71969a075c67ap-2, 0x1.ec70a6ca7baddp-2, -0x1.7154748bef6c8p-1, 0x1.71547652ab82bp0},
    {0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51, 0x3fef72b83c7d517b,
     0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1, 0x3fef06fe0a31b715, 0x3feef1a7373aa9cb,
     0x3feedea64c123422, 0x3feece086061892d, 0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429,
     0x3feea47eb03a5585, 0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
     0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d, 0x3feee89f995ad3ad,
     0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069, 0x3fef5818dcfba487, 0x3fef7c97337b9b5f,
     0x3fefa4afa2a490da, 0x3fefd0765b6e4540},
    {0x1.c6af84b912394p-5, 0x1.ebfce50fac4f3p-3, 0x1.62e42ff0c52d6p-1},
};

namespace powf_detail {

VMAFX_HOST_DEVICE inline std::uint32_t bits(float x) {
    std::uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}
VMAFX_HOST_DEVICE inline float to_float(std::uint32_t b) {
    float x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}
VMAFX_HOST_DEVICE inline std::uint64_t bits(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}
VMAFX_HOST_DEVICE inline double to_double(std::uint64_t b) {
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

/// log2 of the float of bits ix (normal, positive; a subnormal's exponent made negative).
VMAFX_HOST_DEVICE inline double log2_of(std::uint32_t ix, const PowfData& d) {
    const std::uint32_t tmp = ix - 0x3f330000u;
    const int i = static_cast<int>((tmp >> 19) % 16u);
    const std::uint32_t top = tmp & 0xff800000u;
    const std::uint32_t iz = ix - top;
    const int k = static_cast<std::int32_t>(top) >> 23;
    const double z = static_cast<double>(to_float(iz));
    const double* a = d.log_poly;
    const double r = fma(z, d.invc[i], -1.0);
    const double y0 = d.logc[i] + static_cast<double>(k);
    const double r2 = r * r;
    double y = fma(a[0], r, a[1]);
    const double p = fma(a[2], r, a[3]);
    const double r4 = r2 * r2;
    double q = fma(a[4], r, y0);
    q = fma(p, r2, q);
    y = fma(y, r4, q);
    return y;
}

/// 2^xd (|xd| < 150), the sign set by sign_bias (1 << 16: negative).
VMAFX_HOST_DEVICE inline double exp2_of(double xd, std::uint32_t sign_bias, const PowfData& d) {
    const double shift = 0x1.8p+52 / 32;
    double kd = xd + shift;
    const std::uint64_t ki = bits(kd);
    kd -= shift;
    const double r = xd - kd;
    std::uint64_t t = d.exp_tab[ki % 32u];
    const std::uint64_t ski = ki + sign_bias;
    t += ski << 47;
    const double s = to_double(t);
    const double* c = d.exp_poly;
    const double z = fma(c[0], r, c[1]);
    const double r2 = r * r;
    double y = fma(c[2], r, 1.0);
    y = fma(z, r2, y);
    return y * s;
}

/// 0 if iy (non-zero finite) is not an integer, 1 if odd, 2 if even.
VMAFX_HOST_DEVICE inline int integer_kind(std::uint32_t iy) {
    const int e = static_cast<int>(iy >> 23 & 0xffu);
    if (e < 0x7f) return 0;
    if (e > 0x7f + 23) return 2;
    if (iy & ((1u << (0x7f + 23 - e)) - 1u)) return 0;
    if (iy & (1u << (0x7f + 23 - e))) return 1;
    return 2;
}

VMAFX_HOST_DEVICE inline bool zero_inf_nan(std::uint32_t ix) { return 2u * ix - 1u >= 2u * 0x7f800000u - 1u; }

}  // namespace powf_detail

/// powf(x, y) with glibc's bits (the FMA variant, round to nearest), for every x and y.
VMAFX_HOST_DEVICE inline float powf_glibc(float x, float y, const PowfData& d) {
    using namespace powf_detail;
    std::uint32_t sign_bias = 0;
    std::uint32_t ix = bits(x);
    const std::uint32_t iy = bits(y);
    if (ix - 0x00800000u >= 0x7f800000u - 0x00800000u || zero_inf_nan(iy)) {
        if (zero_inf_nan(iy)) {
            if (2u * iy == 0) return 1.0f;  // (a signalling x would give x + y: NaN)
            if (ix == 0x3f800000u) return 1.0f;
            if (2u * ix > 2u * 0x7f800000u || 2u * iy > 2u * 0x7f800000u) return x + y;
            if (2u * ix == 2u * 0x3f800000u) return 1.0f;
            if ((2u * ix < 2u * 0x3f800000u) == !(iy & 0x80000000u)) return 0.0f;
            return y * y;
        }
        if (zero_inf_nan(ix)) {
            float x2 = x * x;
            if ((ix & 0x80000000u) && integer_kind(iy) == 1) x2 = -x2;
            return (iy & 0x80000000u) ? 1.0f / x2 : x2;
        }
        if (ix & 0x80000000u) {
            const int yint = integer_kind(iy);
            if (yint == 0) return (x - x) / (x - x);  // NaN
            if (yint == 1) sign_bias = 1u << 16;
            ix &= 0x7fffffffu;
        }
        if (ix < 0x00800000u) {
            ix = bits(x * 0x1p23f);
            ix &= 0x7fffffffu;
            ix -= 23u << 23;
        }
    }
    const double logx = log2_of(ix, d);
    const double ylogx = static_cast<double>(y) * logx;
    if ((bits(ylogx) >> 47 & 0xffffu) >= bits(126.0) >> 47) {
        const float huge = sign_bias ? -0x1p97f : 0x1p97f;
        const float tiny = sign_bias ? -0x1p-95f : 0x1p-95f;
        const float may = sign_bias ? -0x1.4p-75f : 0x1.4p-75f;
        if (ylogx > 0x1.fffffffd1d571p+6) return huge * 0x1p97f;  // overflow: infinity
        if (ylogx <= -150.0) return tiny * 0x1p-95f;           // underflow: zero
        if (ylogx < -149.0) return may * 0x1.4p-75f;           // the smallest subnormal
    }
    return static_cast<float>(exp2_of(ylogx, sign_bias, d));
}

}  // namespace vmafx::float_adm
