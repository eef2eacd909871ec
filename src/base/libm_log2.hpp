// vmafx's own log2 (libm.hpp: glibc 2.36's FMA-variant bits) as a host-and-device function, so
// that the CPU (libm::log2, libm.cpp) and the GPU twins (SpEED's entropies and weights,
// feature/speed/speed_blocks.hpp) run one source. The tables are read through a Log2Tables (the
// host's: log2_tables(); a device twin uploads a copy), as libm_powf.hpp does for powf. Each step
// follows the published algorithm (Szabolcs Nagy's, Arm optimized-routines, MIT OR Apache-2.0
// WITH LLVM-exception; glibc's sysdeps/ieee754/dbl-64/e_log2.c); "fused" marks a multiply-add
// that glibc's FMA variant computes with one rounding (vfmadd in the disassembly of Debian 12's
// libm.so.6), every other operation rounds on its own (the project compiles with
// -ffp-contract=off, CUDA with --fmad=false). Round to nearest is assumed; errno and exception
// flags are not reproduced. The inline markers and the fused multiply-add are libm_powf.hpp's.
#pragma once

#include <cstdint>

#include "base/libm_powf.hpp"  // InvcLogc, VMAFX_POWF_INLINE, VMAFX_POWF_FMA, the bit casts

namespace vmafx::libm {

/// log2's tables (src/base/libm_tables.inc, written by tools/libm_tables.py): the 64
/// subintervals {1/c, log2(c)}, 1/ln 2 in two parts (hi, lo), the polynomial A0..A5 and the
/// polynomial B0..B9 near 1.
struct Log2Tables {
    InvcLogc table[64];
    double inv_ln2_hi;
    double inv_ln2_lo;
    double poly[6];
    double poly_near_one[10];
};

/// The host's tables (static storage; libm.cpp).
const Log2Tables& log2_tables();

namespace log2_detail {

// log2 x for x within about 1/23 of 1: r = x - 1 (exact), r/ln 2 in two parts (hi + lo), and
// r^2 times a degree-9 polynomial, with the error of hi + p carried in lo.
VMAFX_POWF_INLINE double log2_near_one(double x, const Log2Tables& t) {
    const double r = x - 1.0;
    const double* b = t.poly_near_one;
    const double hi = r * t.inv_ln2_hi;
    const double r2 = r * r;
    const double r4 = r2 * r2;
    double lo = VMAFX_POWF_FMA(r, t.inv_ln2_lo, VMAFX_POWF_FMA(t.inv_ln2_hi, r, -hi));  // fused twice
    const double b01 = VMAFX_POWF_FMA(r, b[1], b[0]);  // fused
    const double y = VMAFX_POWF_FMA(b01, r2, hi);  // fused: hi + p, p = r^2 (B0 + B1 r)
    lo = VMAFX_POWF_FMA(b01, r2, hi - y) + lo;  // fused: (hi - y) + p
    const double b23 = VMAFX_POWF_FMA(r, b[3], b[2]);  // fused
    const double b45 = VMAFX_POWF_FMA(r, b[5], b[4]);  // fused
    const double b67 = VMAFX_POWF_FMA(r, b[7], b[6]);  // fused
    const double b89 = VMAFX_POWF_FMA(r, b[9], b[8]);  // fused
    const double low_terms = VMAFX_POWF_FMA(b45, r2, b23);  // fused
    const double high_terms = VMAFX_POWF_FMA(b89, r2, b67);  // fused
    lo = VMAFX_POWF_FMA(VMAFX_POWF_FMA(high_terms, r4, low_terms), r4, lo);  // fused twice
    return y + lo;
}

}  // namespace log2_detail

/// log2 x as glibc 2.36's log2 (its FMA variant) computes it, with the tables `t` (log2_tables()
/// on the host, a copy of it on a device): libm::log2's function (libm.hpp: every x, zeros,
/// subnormals, infinities and NaNs included).
VMAFX_POWF_INLINE double log2_with(double x, const Log2Tables& t) {
    using powf_detail::bits_of;
    using powf_detail::double_of;
    std::uint64_t ix = bits_of(x);
    constexpr std::uint64_t kNearLow = 0x3feea4af00000000ull;   // the bits of 1 - 0x1.5b51p-5
    constexpr std::uint64_t kNearHigh = 0x3ff0b55900000000ull;  // the bits of 1 + 0x1.6ab2p-5
    constexpr std::uint64_t kOne = 0x3ff0000000000000ull;
    constexpr std::uint64_t kInf = 0x7ff0000000000000ull;
    if (ix - kNearLow < kNearHigh - kNearLow) {
        if (ix == kOne) return 0.0;
        return log2_detail::log2_near_one(x, t);
    }
    const std::uint32_t top = static_cast<std::uint32_t>(ix >> 48);
    if (top - 0x0010u >= 0x7ff0u - 0x0010u) {  // x < 2^-1022 (zero, subnormal, negative), inf, NaN
        if (ix * 2 == 0) return double_of(0xfff0000000000000ull);  // log2(±0) = -inf: division by zero
        if (ix == kInf) return x;
        if ((top & 0x8000u) != 0 || (top & 0x7ff0u) == 0x7ff0u) {  // negative or NaN: glibc's (x - x) / (x - x)
            const double zero = x - x;
            return zero / zero;
        }
        ix = bits_of(x * 0x1p52) - (52ull << 52);  // subnormal: scale to normal, exponent back
    }
    // x = 2^k z, z in [0x1.6p-1, 0x1.6p0) exact; z's subinterval i (of 64) holds c, and
    // log2 x = k + log2 c + log2(1 + r), r = z/c - 1 = z (1/c) - 1 in one rounding.
    constexpr std::uint64_t kOff = 0x3fe6000000000000ull;  // the bits of 0x1.6p-1
    const std::uint64_t from_off = ix - kOff;
    const std::uint64_t i = (from_off >> 46) % 64;
    const int k = static_cast<int>(static_cast<std::int64_t>(from_off) >> 52);  // arithmetic shift
    const double z = double_of(ix - (from_off & (0xfffull << 52)));
    const double r = VMAFX_POWF_FMA(z, t.table[i].invc, -1.0);  // fused
    const double t1 = r * t.inv_ln2_hi;
    const double t2 = VMAFX_POWF_FMA(r, t.inv_ln2_lo, VMAFX_POWF_FMA(t.inv_ln2_hi, r, -t1));  // fused twice
    const double t3 = static_cast<double>(k) + t.table[i].logc;
    const double hi = t3 + t1;
    const double lo = ((t3 - hi) + t1) + t2;
    const double r2 = r * r;
    const double r4 = r2 * r2;
    const double* a = t.poly;
    const double a01 = VMAFX_POWF_FMA(r, a[1], a[0]);  // fused
    const double a23 = VMAFX_POWF_FMA(r, a[3], a[2]);  // fused
    const double a45 = VMAFX_POWF_FMA(r, a[5], a[4]);  // fused
    const double p = VMAFX_POWF_FMA(a45, r4, VMAFX_POWF_FMA(a23, r2, a01));  // fused twice
    return VMAFX_POWF_FMA(r2, p, lo) + hi;  // fused: lo + r^2 p, then + hi
}

}  // namespace vmafx::libm
