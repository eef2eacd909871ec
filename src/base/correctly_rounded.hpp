// Correctly rounded division and square root in the shared-arithmetic subset (base/shared_math.hpp).
//
// Where the CPU divides or takes a square root, it gets IEEE 754's correctly rounded result
// (SSE's DIVSS/DIVSD/SQRTSS/SQRTSD), and so does CUDA (--prec-div=true --prec-sqrt=true). Vulkan
// does not promise it: OpFDiv may be 2.5 ulp off (and anything for divisors outside
// [2^-126, 2^126]), sqrt inherits 1/inversesqrt's error, and NVIDIA's driver does round some
// quotients and roots differently (tests/shader, on an H200). So the shared headers divide and
// take roots only through vmafx_div_f / vmafx_div_d / vmafx_sqrt_f / vmafx_sqrt_d: in C++ and
// CUDA the language's own operation, in GLSL the functions below.
//
// How (vmafx_div_rn_f and the others, the same text in every language):
//  1. IEEE's special cases by bits, as SSE gives them: a NaN operand gives that NaN quieted (the
//     first operand's first), an invalid operation (0/0, inf/inf, the root of a negative) the
//     default NaN (sign set, quiet: 0xFFC00000 / 0xFFF8000000000000), and the zero and infinite
//     cases their signed zeros and infinities.
//  2. A candidate: the operands' significands as numbers in [1, 2) (or [1, 4) for a root), so
//     that the device's own division or root works where its error is bounded, and the exponent
//     put back; below the smallest normal, the candidate's significand is cut to the subnormal
//     grid.
//  3. The decision, exact in integers: with the candidate K 2^E, the midpoint to the next value
//     up is (2K + 1) 2^(E - 1); a / b is above it exactly when MA 2^(ea - eb - E + 1) > (2K + 1) MB
//     (a = MA 2^ea, b = MB 2^eb, integer significands), and sqrt(x) when MX 2^(ex - 2E + 2) >
//     (2K + 1)^2: products of at most 54 x 54 bits, compared as 128-bit integers. The candidate
//     steps up or down (into the next binade, to infinity, into the subnormals) until the exact
//     value lies between its two midpoints; an exact tie (only a quotient on the subnormal grid
//     can be one) goes to the even significand. A candidate a few ulps off takes a few steps.
// The CPU tests run these functions against the CPU's own operations (with candidates moved up
// to 4 ulps off: base/correctly_rounded_test.cpp), and tests/shader runs them on the Vulkan
// device against the CPU.
#ifndef VMAFX_BASE_CORRECTLY_ROUNDED_HPP
#define VMAFX_BASE_CORRECTLY_ROUNDED_HPP

/// An unsigned 128-bit integer: hi 2^64 + lo.
struct VmafxU128 {
    uint64_t hi;
    uint64_t lo;
};

/// x y, exactly.
VMAFX_FN VmafxU128 vmafx_mul_64x64(uint64_t x, uint64_t y) {
    const uint64_t m = uint64_t(0xffffffffu);
    const uint64_t p00 = (x & m) * (y & m);
    const uint64_t p01 = (x & m) * (y >> 32);
    const uint64_t p10 = (x >> 32) * (y & m);
    const uint64_t p11 = (x >> 32) * (y >> 32);
    const uint64_t mid = (p00 >> 32) + (p01 & m) + (p10 & m);
    VmafxU128 r;
    r.lo = (mid << 32) | (p00 & m);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return r;
}

/// The number of significant bits of y (0 for 0).
VMAFX_FN int vmafx_bits_u128(VmafxU128 y) {
    return y.hi != uint64_t(0) ? 128 - vmafx_clz64(y.hi) : 64 - vmafx_clz64(y.lo);
}

/// y 2^s for 0 <= s < 128, where it fits in 128 bits.
VMAFX_FN VmafxU128 vmafx_shl_u128(VmafxU128 y, int s) {
    VmafxU128 r = y;
    if (s >= 64) {
        r.hi = y.lo << (s - 64);
        r.lo = uint64_t(0);
    } else if (s > 0) {
        r.hi = (y.hi << s) | (y.lo >> (64 - s));
        r.lo = y.lo << s;
    }
    return r;
}

/// The sign (-1, 0, 1) of x 2^t - y, for any int t.
VMAFX_FN int vmafx_cmp_scaled(uint64_t x, int t, VmafxU128 y) {
    VmafxU128 l;
    l.hi = uint64_t(0);
    l.lo = x;
    VmafxU128 r = y;
    if (x == uint64_t(0)) return (y.hi | y.lo) != uint64_t(0) ? -1 : 0;
    if (t >= 0) {
        if (64 - vmafx_clz64(x) + t > 128) return 1;  // x 2^t >= 2^128 > y
        l = vmafx_shl_u128(l, t);
    } else {
        if ((y.hi | y.lo) == uint64_t(0)) return 1;
        if (vmafx_bits_u128(y) - t > 128) return -1;  // y 2^-t >= 2^128 > x
        r = vmafx_shl_u128(y, -t);
    }
    if (l.hi != r.hi) return l.hi > r.hi ? 1 : -1;
    if (l.lo != r.lo) return l.lo > r.lo ? 1 : -1;
    return 0;
}

/// The sign of (the exact value) - (2k + 1) 2^(e - 1), the midpoint above k 2^e. Division
/// (sqrt_case false): the exact value is m1 2^e1 / m2. Square root (true): sqrt(m1 2^e1).
VMAFX_FN int vmafx_midpoint_sign(bool sqrt_case, uint64_t m1, int e1, uint64_t m2, uint64_t k, int e) {
    const uint64_t odd = uint64_t(2) * k + uint64_t(1);
    if (sqrt_case) return vmafx_cmp_scaled(m1, e1 - 2 * e + 2, vmafx_mul_64x64(odd, odd));
    return vmafx_cmp_scaled(m1, e1 - e + 1, vmafx_mul_64x64(odd, m2));
}

/// The correctly rounded (nearest, ties to even) value k 2^e of the exact value (see
/// vmafx_midpoint_sign), from the candidate k 2^e, on the grid of p-bit significands with
/// exponents (of the last bit) from e_min to e_max; k = 0 with e = e_max + 1 for an overflow.
VMAFX_FN void vmafx_round_to_grid(bool sqrt_case, uint64_t m1, int e1, uint64_t m2, int p, int e_min, int e_max,
                                  VMAFX_INOUT(uint64_t, k), VMAFX_INOUT(int, e)) {
    const uint64_t top = uint64_t(1) << p;  // 2^p: one past the largest significand
    const uint64_t smallest = top >> 1;  // 2^(p - 1): the smallest normal significand
    while (k != uint64_t(0) && k < smallest && e > e_min) {  // the candidate normalized
        k = k << 1;
        e = e - 1;
    }
    while (k >= top) {
        k = k >> 1;
        e = e + 1;
    }
    if (e > e_max) {
        k = top - uint64_t(1);
        e = e_max;
    }
    for (int step = 0; step < 64; ++step) {
        const int up = vmafx_midpoint_sign(sqrt_case, m1, e1, m2, k, e);
        if (up > 0 || (up == 0 && (k & uint64_t(1)) != uint64_t(0))) {
            k = k + uint64_t(1);
            if (k == top) {
                k = smallest;
                e = e + 1;
            }
            if (e > e_max) {
                k = uint64_t(0);
                e = e_max + 1;
                return;
            }
            continue;
        }
        if (k == uint64_t(0)) return;
        uint64_t kd = k;  // k 2^e as kd 2^ed, with the predecessor kd - 1 at ed
        int ed = e;
        if (k == smallest && e > e_min) {
            kd = top;
            ed = e - 1;
        }
        const int down = vmafx_midpoint_sign(sqrt_case, m1, e1, m2, kd - uint64_t(1), ed);
        if (down < 0 || (down == 0 && ((kd - uint64_t(1)) & uint64_t(1)) == uint64_t(0))) {
            k = kd - uint64_t(1);
            e = ed;
            continue;
        }
        return;
    }
}

/// k moved by `nudge` units, at least 0.
VMAFX_FN uint64_t vmafx_nudge(uint64_t k, int nudge) {
    const int64_t moved = int64_t(k) + int64_t(nudge);
    return moved > int64_t(0) ? uint64_t(moved) : uint64_t(0);
}

// ---- binary32 ----

/// A finite nonzero float's |x| as m 2^e, m in [2^23, 2^24).
VMAFX_FN void vmafx_split_f(uint32_t bits, VMAFX_OUT(uint64_t, m), VMAFX_OUT(int, e)) {
    const uint32_t field = (bits >> 23) & 0xffu;
    const uint32_t frac = bits & 0x7fffffu;
    if (field == 0u) {
        const int shift = vmafx_clz32(frac) - 8;
        m = uint64_t(frac << shift);
        e = -149 - shift;
    } else {
        m = uint64_t(frac | 0x800000u);
        e = int(field) - 150;
    }
}

/// The float of sign `negative` and magnitude k 2^e (on the float grid, e_min -149; overflow: inf).
VMAFX_FN float vmafx_pack_f(bool negative, uint64_t k, int e) {
    const uint32_t sign = negative ? 0x80000000u : 0u;
    if (e > 104) return vmafx_bits_float(sign | 0x7f800000u);
    if (k < uint64_t(0x800000u)) return vmafx_bits_float(sign | uint32_t(k));
    return vmafx_bits_float(sign | (uint32_t(e + 150) << 23) | (uint32_t(k) - 0x800000u));
}

/// SSE's NaN result for a NaN operand: the operand, quieted.
VMAFX_FN float vmafx_quiet_f(uint32_t bits) { return vmafx_bits_float(bits | 0x400000u); }

/// a / b rounded to nearest even, as IEEE 754 and SSE's DIVSS; `nudge` moves the candidate by
/// that many units of its last place (tests of the decision only; 0 otherwise).
VMAFX_FN float vmafx_div_rn_nudged_f(float a, float b, int nudge) {
    const uint32_t ab = vmafx_float_bits(a), bb = vmafx_float_bits(b);
    const uint32_t am = ab & 0x7fffffffu, bm = bb & 0x7fffffffu;
    const bool negative = ((ab ^ bb) & 0x80000000u) != 0u;
    if (am > 0x7f800000u) return vmafx_quiet_f(ab);
    if (bm > 0x7f800000u) return vmafx_quiet_f(bb);
    if ((am == 0u && bm == 0u) || (am == 0x7f800000u && bm == 0x7f800000u)) return vmafx_bits_float(0xffc00000u);
    if (am == 0x7f800000u || bm == 0u) return vmafx_pack_f(negative, uint64_t(0), 105);
    if (am == 0u || bm == 0x7f800000u) return vmafx_pack_f(negative, uint64_t(0), -149);
    uint64_t ma, mb;
    int ea, eb;
    vmafx_split_f(am, ma, ea);
    vmafx_split_f(bm, mb, eb);
    // The candidate from the significands in [1, 2): a quotient in (1/2, 2).
    const float c = vmafx_bits_float(0x3f800000u | (uint32_t(ma) - 0x800000u)) /
                    vmafx_bits_float(0x3f800000u | (uint32_t(mb) - 0x800000u));
    uint64_t k;
    int e;
    vmafx_split_f(vmafx_float_bits(c), k, e);
    e = e + ea - eb;  // c = k 2^e' approximates ma / mb, and a / b = (ma / mb) 2^(ea - eb)
    if (e < -149) {
        const int s = -149 - e;
        k = s >= 64 ? uint64_t(0) : k >> s;
        e = -149;
    }
    k = vmafx_nudge(k, nudge);
    vmafx_round_to_grid(false, ma, ea - eb, mb, 24, -149, 104, k, e);
    return vmafx_pack_f(negative, k, e);
}

/// a / b rounded to nearest even (vmafx_div_rn_nudged_f without a nudge).
VMAFX_FN float vmafx_div_rn_f(float a, float b) { return vmafx_div_rn_nudged_f(a, b, 0); }

/// sqrt(x) rounded to nearest even, as IEEE 754 and SSE's SQRTSS; `nudge` as in
/// vmafx_div_rn_nudged_f.
VMAFX_FN float vmafx_sqrt_rn_nudged_f(float x, int nudge) {
    const uint32_t xb = vmafx_float_bits(x);
    const uint32_t xm = xb & 0x7fffffffu;
    if (xm > 0x7f800000u) return vmafx_quiet_f(xb);
    if (xm == 0u) return x;
    if (xb > 0x80000000u) return vmafx_bits_float(0xffc00000u);
    if (xm == 0x7f800000u) return x;
    uint64_t mx;
    int ex;
    vmafx_split_f(xm, mx, ex);
    // x = mx 2^ex = y 2^(2h), y = mx 2^-23 in [1, 2) or mx 2^-22 in [2, 4).
    const bool even = ((ex + 23) & 1) == 0;
    const int h = even ? (ex + 23) / 2 : (ex + 22) / 2;
    const float y = vmafx_bits_float((even ? 0x3f800000u : 0x40000000u) | (uint32_t(mx) - 0x800000u));
    uint64_t k;
    int e;
    vmafx_split_f(vmafx_float_bits(vmafx_native_sqrt_f(y)), k, e);
    e = e + h;
    k = vmafx_nudge(k, nudge);
    vmafx_round_to_grid(true, mx, ex, uint64_t(0), 24, -149, 104, k, e);
    return vmafx_pack_f(false, k, e);
}

/// sqrt(x) rounded to nearest even (vmafx_sqrt_rn_nudged_f without a nudge).
VMAFX_FN float vmafx_sqrt_rn_f(float x) { return vmafx_sqrt_rn_nudged_f(x, 0); }

// ---- binary64 ----

/// A finite nonzero double's |x| as m 2^e, m in [2^52, 2^53).
VMAFX_FN void vmafx_split_d(uint64_t bits, VMAFX_OUT(uint64_t, m), VMAFX_OUT(int, e)) {
    const uint32_t field = uint32_t(bits >> 52) & 0x7ffu;
    const uint64_t frac = bits & ((uint64_t(1) << 52) - uint64_t(1));
    if (field == 0u) {
        const int shift = vmafx_clz64(frac) - 11;
        m = frac << shift;
        e = -1074 - shift;
    } else {
        m = frac | (uint64_t(1) << 52);
        e = int(field) - 1075;
    }
}

/// The double of sign `negative` and magnitude k 2^e (on the double grid, e_min -1074; overflow:
/// inf).
VMAFX_FN double vmafx_pack_d(bool negative, uint64_t k, int e) {
    const uint64_t sign = negative ? uint64_t(1) << 63 : uint64_t(0);
    const uint64_t hidden = uint64_t(1) << 52;
    if (e > 971) return vmafx_bits_double(sign | (uint64_t(0x7ffu) << 52));
    if (k < hidden) return vmafx_bits_double(sign | k);
    return vmafx_bits_double(sign | (uint64_t(e + 1075) << 52) | (k - hidden));
}

/// SSE's NaN result for a NaN operand: the operand, quieted.
VMAFX_FN double vmafx_quiet_d(uint64_t bits) { return vmafx_bits_double(bits | (uint64_t(1) << 51)); }

/// a / b rounded to nearest even, as IEEE 754 and SSE's DIVSD; `nudge` as in vmafx_div_rn_nudged_f.
VMAFX_FN double vmafx_div_rn_nudged_d(double a, double b, int nudge) {
    const uint64_t ab = vmafx_double_bits(a), bb = vmafx_double_bits(b);
    const uint64_t magnitude = (uint64_t(1) << 63) - uint64_t(1), inf = uint64_t(0x7ffu) << 52;
    const uint64_t am = ab & magnitude, bm = bb & magnitude;
    const bool negative = ((ab ^ bb) >> 63) != uint64_t(0);
    if (am > inf) return vmafx_quiet_d(ab);
    if (bm > inf) return vmafx_quiet_d(bb);
    if ((am == uint64_t(0) && bm == uint64_t(0)) || (am == inf && bm == inf))
        return vmafx_bits_double(uint64_t(0xfff8u) << 48);
    if (am == inf || bm == uint64_t(0)) return vmafx_pack_d(negative, uint64_t(0), 972);
    if (am == uint64_t(0) || bm == inf) return vmafx_pack_d(negative, uint64_t(0), -1074);
    uint64_t ma, mb;
    int ea, eb;
    vmafx_split_d(am, ma, ea);
    vmafx_split_d(bm, mb, eb);
    const uint64_t one = uint64_t(1023) << 52, hidden = uint64_t(1) << 52;
    const double c = vmafx_bits_double(one | (ma - hidden)) / vmafx_bits_double(one | (mb - hidden));
    uint64_t k;
    int e;
    vmafx_split_d(vmafx_double_bits(c), k, e);
    e = e + ea - eb;
    if (e < -1074) {
        const int s = -1074 - e;
        k = s >= 64 ? uint64_t(0) : k >> s;
        e = -1074;
    }
    k = vmafx_nudge(k, nudge);
    vmafx_round_to_grid(false, ma, ea - eb, mb, 53, -1074, 971, k, e);
    return vmafx_pack_d(negative, k, e);
}

/// a / b rounded to nearest even (vmafx_div_rn_nudged_d without a nudge).
VMAFX_FN double vmafx_div_rn_d(double a, double b) { return vmafx_div_rn_nudged_d(a, b, 0); }

/// sqrt(x) rounded to nearest even, as IEEE 754 and SSE's SQRTSD; `nudge` as in
/// vmafx_div_rn_nudged_f.
VMAFX_FN double vmafx_sqrt_rn_nudged_d(double x, int nudge) {
    const uint64_t xb = vmafx_double_bits(x);
    const uint64_t sign = uint64_t(1) << 63, inf = uint64_t(0x7ffu) << 52;
    const uint64_t xm = xb & (sign - uint64_t(1));
    if (xm > inf) return vmafx_quiet_d(xb);
    if (xm == uint64_t(0)) return x;
    if (xb > sign) return vmafx_bits_double(uint64_t(0xfff8u) << 48);
    if (xm == inf) return x;
    uint64_t mx;
    int ex;
    vmafx_split_d(xm, mx, ex);
    const bool even = ((ex + 52) & 1) == 0;
    const int h = even ? (ex + 52) / 2 : (ex + 51) / 2;
    const uint64_t field = even ? uint64_t(1023) << 52 : uint64_t(1024) << 52;
    const double y = vmafx_bits_double(field | (mx - (uint64_t(1) << 52)));
    uint64_t k;
    int e;
    vmafx_split_d(vmafx_double_bits(vmafx_native_sqrt_d(y)), k, e);
    e = e + h;
    k = vmafx_nudge(k, nudge);
    vmafx_round_to_grid(true, mx, ex, uint64_t(0), 53, -1074, 971, k, e);
    return vmafx_pack_d(false, k, e);
}

/// sqrt(x) rounded to nearest even (vmafx_sqrt_rn_nudged_d without a nudge).
VMAFX_FN double vmafx_sqrt_rn_d(double x) { return vmafx_sqrt_rn_nudged_d(x, 0); }

// ---- what the shared headers call ----
#if VMAFX_GLSL
float vmafx_div_f(float a, float b) { return vmafx_div_rn_f(a, b); }
double vmafx_div_d(double a, double b) { return vmafx_div_rn_d(a, b); }
float vmafx_sqrt_f(float x) { return vmafx_sqrt_rn_f(x); }
double vmafx_sqrt_d(double x) { return vmafx_sqrt_rn_d(x); }
#else
/// a / b, correctly rounded (C++ and CUDA: the language's division).
VMAFX_CONSTEXPR_FN float vmafx_div_f(float a, float b) { return a / b; }
VMAFX_CONSTEXPR_FN double vmafx_div_d(double a, double b) { return a / b; }
/// sqrt(x), correctly rounded (C++ and CUDA: the library's, correctly rounded by IEEE 754).
VMAFX_FN float vmafx_sqrt_f(float x) { return vmafx_native_sqrt_f(x); }
VMAFX_FN double vmafx_sqrt_d(double x) { return vmafx_native_sqrt_d(x); }
#endif

#endif  // VMAFX_BASE_CORRECTLY_ROUNDED_HPP
