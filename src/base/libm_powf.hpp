// vmafx's own powf (libm.hpp: glibc 2.36's FMA-variant bits) as a host-and-device function, so
// that the CPU (libm::powf, libm.cpp) and the GPU twins (float_adm's per-sample terms at
// adm_p_norm other than 3) run one source. The tables are read through a PowfTables (the
// host's: powf_tables(); a device twin uploads a copy), as the shared-arithmetic headers leave
// table reads to their callers. Each step follows the published algorithm (Szabolcs Nagy's,
// Arm optimized-routines, MIT OR Apache-2.0 WITH LLVM-exception; glibc's
// sysdeps/ieee754/flt-32/e_powf.c); "fused" marks a multiply-add that glibc's FMA variant
// computes with one rounding (vfmadd in the disassembly of Debian 12's libm.so.6), every other
// operation rounds on its own (the project compiles with -ffp-contract=off, CUDA with
// --fmad=false). Round to nearest is assumed; errno and exception flags are not reproduced.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/host_device.hpp"
#include "base/shared_math.hpp"

#if defined(__CUDACC__)
#define VMAFX_POWF_INLINE __host__ __device__ __forceinline__
#elif defined(__GNUC__) || defined(__clang__)
#define VMAFX_POWF_INLINE [[gnu::always_inline]] inline
#else
#define VMAFX_POWF_INLINE inline
#endif

// One rounding of a * b + c: the device's fma; on the host __builtin_fma (one vfmadd where the
// caller is compiled for FMA, libm.cpp's entry for such hosts; an exact library call elsewhere).
#if defined(__CUDA_ARCH__)
#define VMAFX_POWF_FMA(a, b, c) fma(a, b, c)
#elif defined(__GNUC__) || defined(__clang__)
#define VMAFX_POWF_FMA(a, b, c) __builtin_fma(a, b, c)
#else
#define VMAFX_POWF_FMA(a, b, c) std::fma(a, b, c)
#endif

namespace vmafx::libm {

/// A log2 subinterval of powf: 1/c (c near its centre) and log2(c), rounded.
struct InvcLogc {
    double invc;
    double logc;
};

/// powf's tables (src/base/libm_tables.inc, written by tools/libm_tables.py): the 16 log2
/// subintervals and the log2 polynomial A0..A4; bits(2^(i/32)) - (i << 47) and the exp2
/// polynomial C0..C2.
struct PowfTables {
    InvcLogc log2[16];
    double log2_poly[5];
    std::uint64_t exp2[32];
    double exp2_poly[3];
};

/// The host's tables (static storage; libm.cpp).
const PowfTables& powf_tables();

namespace powf_detail {

// Bit casts: the shared-arithmetic subset's (base/shared_math.hpp), host and device.
VMAFX_POWF_INLINE std::uint32_t bits_of(float x) { return vmafx_float_bits(x); }
VMAFX_POWF_INLINE float float_of(std::uint32_t b) { return vmafx_bits_float(b); }
VMAFX_POWF_INLINE std::uint64_t bits_of(double x) { return vmafx_double_bits(x); }
VMAFX_POWF_INLINE double double_of(std::uint64_t b) { return vmafx_bits_double(b); }

inline constexpr std::uint32_t kFloatOne = 0x3f800000u;
inline constexpr std::uint32_t kFloatInf = 0x7f800000u;
inline constexpr std::uint32_t kFloatSign = 0x80000000u;
inline constexpr std::uint32_t kNegativeResult = 1u << 16;  // added to the exponent index: bit 63 of 2^k

// log2 of the positive float with bits ix (a subnormal's bits already scaled by 2^23 and given a
// negative exponent). x = 2^k z with z in [0x1.66p-1, 0x1.66p0); z's subinterval i (of 16)
// holds c, so log2 x = k + log2 c + log2(z/c), and log2(1 + r), r = z/c - 1, is a degree-5
// polynomial. Relative error about 1.83 * 2^-33.
VMAFX_POWF_INLINE double powf_log2(std::uint32_t ix, const PowfTables& t) {
    constexpr std::uint32_t kOff = 0x3f330000u;  // the bits of 0x1.66p-1
    const std::uint32_t from_off = ix - kOff;
    const std::uint32_t i = (from_off >> 19) % 16u;
    const std::uint32_t exponent_bits = from_off & 0xff800000u;
    const int k = static_cast<std::int32_t>(exponent_bits) >> 23;  // arithmetic shift
    const double z = static_cast<double>(float_of(ix - exponent_bits));
    const double* a = t.log2_poly;
    const double r = VMAFX_POWF_FMA(z, t.log2[i].invc, -1.0);  // fused
    const double y0 = t.log2[i].logc + static_cast<double>(k);
    const double r2 = r * r;
    const double r4 = r2 * r2;
    const double high = VMAFX_POWF_FMA(a[0], r, a[1]);    // fused
    const double middle = VMAFX_POWF_FMA(a[2], r, a[3]);  // fused
    double low = VMAFX_POWF_FMA(a[4], r, y0);             // fused
    low = VMAFX_POWF_FMA(middle, r2, low);                // fused
    return VMAFX_POWF_FMA(high, r4, low);                 // fused
}

// 2^xd rounded to float, negated when sign_bias is kNegativeResult; |xd| < 150 here.
// xd = k/32 + r, |r| <= 1/64; 2^(k/32) from the table with k's high part added to the exponent
// bits, 2^r a cubic. Relative error about 1.69 * 2^-34 before the rounding to float.
VMAFX_POWF_INLINE float powf_exp2(double xd, std::uint32_t sign_bias, const PowfTables& t) {
    constexpr double kShift = 0x1.8p+52 / 32;  // rounds xd to a multiple of 1/32
    const double shifted = xd + kShift;
    const std::uint64_t ki = bits_of(shifted);
    const double kd = shifted - kShift;
    const double r = xd - kd;
    const std::uint64_t scale_bits = t.exp2[ki % 32] + ((ki + sign_bias) << 47);
    const double scale = double_of(scale_bits);
    const double* c = t.exp2_poly;
    const double cubic = VMAFX_POWF_FMA(c[0], r, c[1]);  // fused
    const double r2 = r * r;
    double y = VMAFX_POWF_FMA(c[2], r, 1.0);  // fused
    y = VMAFX_POWF_FMA(cubic, r2, y);         // fused
    return static_cast<float>(y * scale);
}

// 0 when the finite non-zero float with bits iy is not an integer, 1 when odd, 2 when even.
VMAFX_POWF_INLINE int integer_kind(std::uint32_t iy) {
    const int e = static_cast<int>((iy >> 23) & 0xffu);
    if (e < 0x7f) return 0;
    if (e > 0x7f + 23) return 2;
    const std::uint32_t unit = 1u << (0x7f + 23 - e);
    if ((iy & (unit - 1)) != 0) return 0;
    return (iy & unit) != 0 ? 1 : 2;
}

// True for ±0, ±inf and NaN.
VMAFX_POWF_INLINE bool zero_inf_or_nan(std::uint32_t bits) { return 2 * bits - 1 >= 2 * kFloatInf - 1; }

// True for a NaN whose quiet bit is clear.
VMAFX_POWF_INLINE bool signaling(std::uint32_t bits) {
    return (bits & 0x7fffffffu) > kFloatInf && (bits & 0x00400000u) == 0;
}

// glibc's results for y = ±0, ±inf or NaN.
VMAFX_POWF_INLINE float powf_special_y(float x, float y, std::uint32_t ix, std::uint32_t iy) {
    if (2 * iy == 0) return signaling(ix) ? x + y : 1.0f;
    if (ix == kFloatOne) return signaling(iy) ? x + y : 1.0f;
    if (2 * ix > 2 * kFloatInf || 2 * iy > 2 * kFloatInf) return x + y;
    if (2 * ix == 2 * kFloatOne) return 1.0f;  // x = -1, y = ±inf
    if ((2 * ix < 2 * kFloatOne) == ((iy & kFloatSign) == 0)) return 0.0f;
    return y * y;  // +inf
}

// glibc's results for x = ±0, ±inf or NaN (y finite and non-zero).
VMAFX_POWF_INLINE float powf_special_x(float x, std::uint32_t ix, std::uint32_t iy) {
    float x2 = x * x;
    bool negative = false;
    if ((ix & kFloatSign) != 0 && integer_kind(iy) == 1) {
        x2 = -x2;
        negative = true;
    }
    if (2 * ix == 0 && (iy & kFloatSign) != 0)  // 0^negative: a division by zero
        return float_of(negative ? (kFloatSign | kFloatInf) : kFloatInf);
    return (iy & kFloatSign) != 0 ? 1.0f / x2 : x2;
}

}  // namespace powf_detail

/// x raised to the power y as glibc 2.36's powf (its FMA variant) computes it, with the tables
/// `t` (powf_tables() on the host, a copy of it on a device): libm::powf's function.
VMAFX_POWF_INLINE float powf_with(float x, float y, const PowfTables& t) {
    using namespace powf_detail;
    std::uint32_t ix = bits_of(x);
    const std::uint32_t iy = bits_of(y);
    std::uint32_t sign_bias = 0;
    if (ix - 0x00800000u >= kFloatInf - 0x00800000u || zero_inf_or_nan(iy)) {
        // x is negative, subnormal, zero, infinite or NaN, or y is zero, infinite or NaN.
        if (zero_inf_or_nan(iy)) return powf_special_y(x, y, ix, iy);
        if (zero_inf_or_nan(ix)) return powf_special_x(x, ix, iy);
        if ((ix & kFloatSign) != 0) {
            const int kind = integer_kind(iy);
            if (kind == 0) {  // negative^non-integer: invalid, glibc's (x - x) / (x - x)
                const float zero = x - x;
                return zero / zero;
            }
            if (kind == 1) sign_bias = kNegativeResult;
            ix &= 0x7fffffffu;
        }
        if (ix < 0x00800000u) {  // subnormal: scale to normal, then move the exponent back
            ix = bits_of(float_of(ix) * 0x1p23f) & 0x7fffffffu;
            ix -= 23u << 23;
        }
    }
    const double ylogx = static_cast<double>(y) * powf_log2(ix, t);  // exact range: |.| < 2^8 * 150
    if (((bits_of(ylogx) >> 47) & 0xffffu) >= (bits_of(126.0) >> 47)) {
        // |y log2 x| >= 126: overflow, underflow, or a result near the ends of the range.
        const float tiny_or_huge_sign = sign_bias != 0 ? -1.0f : 1.0f;
        if (ylogx > 0x1.fffffffd1d571p+6) return tiny_or_huge_sign * 0x1p97f * 0x1p97f;
        if (ylogx <= -150.0) return tiny_or_huge_sign * 0x1p-95f * 0x1p-95f;
        if (ylogx < -149.0) return tiny_or_huge_sign * 0x1.4p-75f * 0x1.4p-75f;
    }
    return powf_exp2(ylogx, sign_bias, t);
}

}  // namespace vmafx::libm
