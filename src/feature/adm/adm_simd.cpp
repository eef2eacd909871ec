// SIMD row kernels of the integer ADM pipeline (adm_kernels.hpp; Google Highway, one source
// for every target, the best one the CPU supports picked at run time): the same integers as the
// scalar reference in adm_reference.cpp (upstream libvmaf 3.2.0 src/feature/integer_adm.c), one
// output column per lane. adm_simd_test.cpp's rows (run by tests/test_simd_kernels.cpp) check
// every compiled target against the reference bit for bit.
//
// Level 0 DWT: the vertical pass in 32-bit lanes modulo 2^32, as the reference; the horizontal
// pass multiplies adjacent pairs of 16-bit inputs by pairs of taps (PairProductsAccumulate:
// pmaddwd on x86, vpdpwssd on AVX3_DL): output j reads inputs 2j-1, 2j and 2j+1, 2j+2, two
// adjacent pairs, so one load per pair gives a vector of outputs in order.
//
// Levels 1..3 DWT: the reference sums tap * x in 64 bits (x a 32-bit value), rounds, shifts by
// at most 16 and keeps the low 32 bits. Here x = 65536 * xh + xl with xh = round(x / 65536) and
// xl in [-32768, 32767], so sum c*x = 65536 * A + B with A = sum c*xh and B = sum c*xl, both
// within +-54822 * 32768 < 2^31; then (65536 * A + B + round) >> shift
// = (A << (16 - shift)) + ((B + round) >> shift), the low 32 bits of which need only 32-bit
// lanes.
//
// Levels 1..3 decouple, CSF, denominator and contrast masking: adm_levels_simd.cpp.
//
// Level 0 decouple, CSF, denominator and contrast masking: 32-bit lanes modulo 2^32 as the
// reference's int32 arithmetic; the 64-bit steps (cubes) as products of even 32-bit lanes into
// 64-bit lanes (MulEven), the odd lanes moved down for a second pass; the decouple's division
// 2^30 / |o| in double lanes (correctly rounded, then truncated, as the reference).
//
// Whole vectors of columns run the SIMD code, the rest of a row the reference's per-sample
// functions (adm_math.hpp); nothing is read or written outside the row's columns.
#include <cstddef>
#include <cstdint>

#include "feature/adm/adm_kernels.hpp"
#include "feature/adm/adm_math.hpp"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "adm_simd.cpp pairs 16-bit words inside 32-bit lanes the little-endian way"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "feature/adm/adm_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "feature/common/simd_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vmafx::adm::HWY_NAMESPACE {
namespace {

using vmafx::HWY_NAMESPACE::PairProductsAccumulate;
using vmafx::HWY_NAMESPACE::SumLanesWrapping;

using std::int16_t;
using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint8_t;

/// The scalar tails: the reference's per-sample functions.
void dwt0_horizontal_tail(const int16_t* lo, const int16_t* hi, int from, int end, int16_t* a, int16_t* v, int16_t* h,
                          int16_t* d) {
    for (int j = from; j < end; ++j) {
        const int16_t* l = lo + 2 * j - 1;
        a[j] = dwt0_horizontal_lo(l[0], l[1], l[2], l[3]);
        if (!v) continue;
        const int16_t* p = hi + 2 * j - 1;
        v[j] = dwt0_horizontal_hi(l[0], l[1], l[2], l[3]);
        h[j] = dwt0_horizontal_lo(p[0], p[1], p[2], p[3]);
        d[j] = dwt0_horizontal_hi(p[0], p[1], p[2], p[3]);
    }
}

/// Levels 1..3 horizontal DWT at outputs [from, end) of the four bands.
void dwt_horizontal_tail(const int32_t* lo, const int32_t* hi, int from, int end, int64_t round, uint32_t shift,
                         int32_t* a, int32_t* v, int32_t* h, int32_t* d) {
    for (int j = from; j < end; ++j) {
        const int32_t* l = lo + 2 * j - 1;
        const int32_t* p = hi + 2 * j - 1;
        a[j] = dwt_lo(l[0], l[1], l[2], l[3], round, shift);
        v[j] = dwt_hi(l[0], l[1], l[2], l[3], round, shift);
        h[j] = dwt_lo(p[0], p[1], p[2], p[3], round, shift);
        d[j] = dwt_hi(p[0], p[1], p[2], p[3], round, shift);
    }
}

template <typename Sample>
void dwt0_vertical_tail(const Sample* r0, const Sample* r1, const Sample* r2, const Sample* r3, int from, int w,
                        int bit_depth, int16_t* lo, int16_t* hi) {
    for (int j = from; j < w; ++j) lo[j] = dwt0_vertical_lo(r0[j], r1[j], r2[j], r3[j], bit_depth);
    if (hi)
        for (int j = from; j < w; ++j) hi[j] = dwt0_vertical_hi(r0[j], r1[j], r2[j], r3[j], bit_depth);
}

#if HWY_TARGET == HWY_SCALAR
// One lane per vector (the baseline target where GCC before 12.3 cannot build HWY_EMU128):
// no pairs of words to multiply; this target runs the reference's per-sample code.
template <typename Sample>
void dwt0_vertical(const Sample* r0, const Sample* r1, const Sample* r2, const Sample* r3, int w, int bit_depth,
                   int16_t* lo, int16_t* hi) {
    dwt0_vertical_tail(r0, r1, r2, r3, 0, w, bit_depth, lo, hi);
}
void dwt0_horizontal(const int16_t* lo, const int16_t* hi, int end, int16_t* a, int16_t* v, int16_t* h, int16_t* d) {
    dwt0_horizontal_tail(lo, hi, 1, end, a, v, h, d);
}
template <typename In>
void dwt_vertical(const In* r0, const In* r1, const In* r2, const In* r3, int w, int64_t round, uint32_t shift,
                  int32_t* lo, int32_t* hi) {
    for (int j = 0; j < w; ++j) {
        lo[j] = dwt_lo(r0[j], r1[j], r2[j], r3[j], round, shift);
        hi[j] = dwt_hi(r0[j], r1[j], r2[j], r3[j], round, shift);
    }
}
void dwt_horizontal(const int32_t* lo, const int32_t* hi, int end, int64_t round, uint32_t shift, int32_t* a,
                    int32_t* v, int32_t* h, int32_t* d) {
    dwt_horizontal_tail(lo, hi, 1, end, round, shift, a, v, h, d);
}
void decouple0_same(const int16_t* oh, const int16_t* ov, const int16_t* th, const int16_t* tv, int begin, int end,
                    int32_t* same) {
    for (int j = begin; j < end; ++j) same[j] = same_direction_avx512(oh[j], ov[j], th[j], tv[j]) ? -1 : 0;
}
void decouple0_integer_gain(const int16_t* o, const int16_t* t, const int32_t* same, int begin, int end, int32_t egl,
                            int16_t* r, int16_t* a) {
    reference_kernels().decouple0_integer_gain(o, t, same, begin, end, egl, r, a);
}
void csf0(const int16_t* s, int begin, int cut, int end, int32_t wt, int theta, int16_t* d, int16_t* f) {
    reference_kernels().csf0(s, begin, cut, end, wt, theta, d, f);
}
uint64_t den0_row(const int16_t* x, int begin, int end) { return reference_kernels().den0_row(x, begin, end); }
void cm0_colsum(const int16_t* const rows[9], int begin, int end, int32_t* colsum) {
    reference_kernels().cm0_colsum(rows, begin, end, colsum);
}
void cm0_ring(const int32_t* colsum, const int16_t* fh, const int16_t* fv, const int16_t* fd, int begin, int end,
              int32_t* thr) {
    reference_kernels().cm0_ring(colsum, fh, fv, fd, begin, end, thr);
}
void cm0_centre(const int16_t* ch, const int16_t* cv, const int16_t* cd, int begin, int cut, int end, int32_t* thr) {
    reference_kernels().cm0_centre(ch, cv, cd, begin, cut, end, thr);
}
int64_t cm0_row(const int16_t* x, const int32_t* thr, int begin, int end, int32_t wt, int theta, int64_t rcub,
                uint32_t scub) {
    return reference_kernels().cm0_row(x, thr, begin, end, wt, theta, rcub, scub);
}
#else

namespace hn = hwy::HWY_NAMESPACE;

using DI32 = hn::ScalableTag<int32_t>;
using DI16 = hn::Repartition<int16_t, DI32>;  // twice the lanes of DI32
using DW = hn::Rebind<int16_t, DI32>;         // as many 16-bit lanes as DI32 has
using VI32 = hn::Vec<DI32>;
using VI16 = hn::Vec<DI16>;

/// |x| as x86 computes it (INT32_MIN stays INT32_MIN), modulo 2^32.
template <class V>
HWY_INLINE V abs32(V x) {
    const V sign = hn::ShiftRight<31>(x);
    return hn::Sub(hn::Xor(x, sign), sign);
}

/// The low 16 bits of each lane sign-extended (static_cast<int16_t> then back to 32 bits).
template <class V>
HWY_INLINE V narrow16(V v) {
    return hn::ShiftRight<16>(hn::ShiftLeft<16>(v));
}

/// The low 16 bits of each lane as int16_t (the reference's static_cast<int16_t>).
HWY_INLINE hn::Vec<DW> low_words(VI32 v) {
    return hn::DemoteTo(DW(), narrow16(v));
}

template <typename Sample>
HWY_INLINE VI32 load_wide(const Sample* p) {
    return hn::PromoteTo(DI32(), hn::LoadU(hn::Rebind<Sample, DI32>(), p));
}

template <>
HWY_INLINE VI32 load_wide<int32_t>(const int32_t* p) {
    return hn::LoadU(DI32(), p);
}

/// c0*x0 + c1*x1 + c2*x2 + c3*x3 modulo 2^32.
HWY_INLINE VI32 taps4(VI32 x0, VI32 x1, VI32 x2, VI32 x3, const int32_t (&c)[4]) {
    const DI32 d;
    return hn::Add(hn::Add(hn::Mul(x0, hn::Set(d, c[0])), hn::Mul(x1, hn::Set(d, c[1]))),
                   hn::Add(hn::Mul(x2, hn::Set(d, c[2])), hn::Mul(x3, hn::Set(d, c[3]))));
}

/// The tap pair (c0, c1) for a widening multiply of word pairs: c0 in the even words, c1 in
/// the odd ones.
HWY_INLINE VI16 tap_pair(int32_t c0, int32_t c1) {
    const uint32_t pair = (static_cast<uint32_t>(c0) & 0xFFFFu) | (static_cast<uint32_t>(c1) << 16);
    return hn::BitCast(DI16(), hn::Set(hn::Repartition<uint32_t, DI32>(), pair));
}

/// Level 0 vertical pass of 8-bit samples, a vector of 16-bit columns at a time: rows (r0, r1)
/// and (r2, r3) enter as interleaved word pairs, multiplied by the tap pairs (every tap fits a
/// signed word); the pairs come out per 128-bit block (InterleaveLower/Upper), and
/// ReorderDemote2To packs per block too, so the words are stored in column order (as
/// vif_simd.cpp's vertical passes; the kernel test checks each target). Returns the first
/// column it left.
HWY_INLINE int dwt0_vertical_bytes(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, const uint8_t* r3, int w,
                                   int bit_depth, VI32 lo_add, VI32 hi_add, int16_t* lo, int16_t* hi) {
    const DI32 d;
    const DI16 dw;
    const hn::Rebind<uint8_t, DI16> db;
    const int n = static_cast<int>(hn::Lanes(dw));
    const VI16 lo01 = tap_pair(kLo[0], kLo[1]), lo23 = tap_pair(kLo[2], kLo[3]);
    const VI16 hi01 = tap_pair(kHi[0], kHi[1]), hi23 = tap_pair(kHi[2], kHi[3]);
    const auto pass = [&](VI16 a, VI16 b, VI32 add, VI16 taps01, VI16 taps23) HWY_ATTR {
        const VI32 sum = PairProductsAccumulate(d, PairProductsAccumulate(d, add, a, taps01), b, taps23);
        return narrow16(hn::ShiftRightSame(sum, bit_depth));
    };
    int j = 0;
    for (; j + n <= w; j += n) {
        const VI16 x0 = hn::PromoteTo(dw, hn::LoadU(db, r0 + j)), x1 = hn::PromoteTo(dw, hn::LoadU(db, r1 + j));
        const VI16 x2 = hn::PromoteTo(dw, hn::LoadU(db, r2 + j)), x3 = hn::PromoteTo(dw, hn::LoadU(db, r3 + j));
        const VI16 a_lower = hn::InterleaveLower(dw, x0, x1), a_upper = hn::InterleaveUpper(dw, x0, x1);
        const VI16 b_lower = hn::InterleaveLower(dw, x2, x3), b_upper = hn::InterleaveUpper(dw, x2, x3);
        hn::StoreU(hn::ReorderDemote2To(dw, pass(a_lower, b_lower, lo_add, lo01, lo23),
                                        pass(a_upper, b_upper, lo_add, lo01, lo23)),
                   dw, lo + j);
        if (hi)
            hn::StoreU(hn::ReorderDemote2To(dw, pass(a_lower, b_lower, hi_add, hi01, hi23),
                                            pass(a_upper, b_upper, hi_add, hi01, hi23)),
                       dw, hi + j);
    }
    return j;
}

template <typename Sample>
void dwt0_vertical(const Sample* r0, const Sample* r1, const Sample* r2, const Sample* r3, int w, int bit_depth,
                   int16_t* lo, int16_t* hi) {
    const DI32 d;
    const int n = static_cast<int>(hn::Lanes(d));
    const uint32_t round = 1u << (bit_depth - 1);
    const VI32 lo_add = hn::Set(d, static_cast<int32_t>(round - static_cast<uint32_t>(kLoSum) * round));
    const VI32 hi_add = hn::Set(d, static_cast<int32_t>(round));
    int j = 0;
    if constexpr (sizeof(Sample) == 1) j = dwt0_vertical_bytes(r0, r1, r2, r3, w, bit_depth, lo_add, hi_add, lo, hi);
    for (; j + n <= w; j += n) {
        const VI32 x0 = load_wide(r0 + j), x1 = load_wide(r1 + j), x2 = load_wide(r2 + j), x3 = load_wide(r3 + j);
        hn::StoreU(low_words(hn::ShiftRightSame(hn::Add(taps4(x0, x1, x2, x3, kLo), lo_add), bit_depth)), DW(), lo + j);
        if (hi)
            hn::StoreU(low_words(hn::ShiftRightSame(hn::Add(taps4(x0, x1, x2, x3, kHi), hi_add), bit_depth)), DW(),
                       hi + j);
    }
    dwt0_vertical_tail(r0, r1, r2, r3, j, w, bit_depth, lo, hi);
}

/// Level 0 horizontal pass with taps c of outputs j0 .. j0+lanes-1 of row p (inputs
/// p[2j-1 .. 2j+2]), Q16 rounding: (sum + 32768) >> 16, which fits 16 bits.
HWY_INLINE hn::Vec<DW> dwt0_pass(const int16_t* p, int j0, const int32_t (&c)[4]) {
    const DI32 d;
    const DI16 dw;
    VI32 sum = hn::Set(d, kDwt0RoundH);
    sum = PairProductsAccumulate(d, sum, hn::LoadU(dw, p + 2 * j0 - 1), tap_pair(c[0], c[1]));
    sum = PairProductsAccumulate(d, sum, hn::LoadU(dw, p + 2 * j0 + 1), tap_pair(c[2], c[3]));
    return hn::DemoteTo(DW(), hn::ShiftRight<16>(sum));
}

void dwt0_horizontal(const int16_t* lo, const int16_t* hi, int end, int16_t* a, int16_t* v, int16_t* h, int16_t* d) {
    const int n = static_cast<int>(hn::Lanes(DI32()));
    int j = 1;
    for (; j + n <= end; j += n) {
        hn::StoreU(dwt0_pass(lo, j, kLo), DW(), a + j);
        if (!v) continue;
        hn::StoreU(dwt0_pass(lo, j, kHi), DW(), v + j);
        hn::StoreU(dwt0_pass(hi, j, kLo), DW(), h + j);
        hn::StoreU(dwt0_pass(hi, j, kHi), DW(), d + j);
    }
    dwt0_horizontal_tail(lo, hi, j, end, a, v, h, d);
}

/// A 32-bit value x as xh = round(x / 65536) (ties up) and xl = x - 65536 * xh in
/// [-32768, 32767].
struct Split {
    VI32 high, low;
};
HWY_INLINE Split split(VI32 x) {
    const DI32 d;
    const VI32 high = hn::Add(hn::ShiftRight<16>(x), hn::And(hn::ShiftRight<15>(x), hn::Set(d, 1)));
    return {high, hn::Sub(x, hn::ShiftLeft<16>(high))};
}

/// The low 32 bits of (c0*x0 + c1*x1 + c2*x2 + c3*x3 + round) >> shift computed in 64 bits
/// (dwt_lo / dwt_hi), from the inputs' halves (see the file comment).
HWY_INLINE VI32 taps4_wide(const Split& x0, const Split& x1, const Split& x2, const Split& x3,
                           const int32_t (&c)[4], VI32 round, int shift) {
    const VI32 a = taps4(x0.high, x1.high, x2.high, x3.high, c);
    const VI32 b = taps4(x0.low, x1.low, x2.low, x3.low, c);
    return hn::Add(hn::ShiftLeftSame(a, 16 - shift), hn::ShiftRightSame(hn::Add(b, round), shift));
}

template <typename In>
void dwt_vertical(const In* r0, const In* r1, const In* r2, const In* r3, int w, int64_t round, uint32_t shift,
                  int32_t* lo, int32_t* hi) {
    const DI32 d;
    const int n = static_cast<int>(hn::Lanes(d));
    const VI32 rnd = hn::Set(d, static_cast<int32_t>(round));
    const int s = static_cast<int>(shift);
    int j = 0;
    for (; j + n <= w; j += n) {
        const Split x0 = split(load_wide(r0 + j)), x1 = split(load_wide(r1 + j));
        const Split x2 = split(load_wide(r2 + j)), x3 = split(load_wide(r3 + j));
        hn::StoreU(taps4_wide(x0, x1, x2, x3, kLo, rnd, s), d, lo + j);
        hn::StoreU(taps4_wide(x0, x1, x2, x3, kHi, rnd, s), d, hi + j);
    }
    for (; j < w; ++j) {
        lo[j] = dwt_lo(r0[j], r1[j], r2[j], r3[j], round, shift);
        hi[j] = dwt_hi(r0[j], r1[j], r2[j], r3[j], round, shift);
    }
}

void dwt_horizontal(const int32_t* lo, const int32_t* hi, int end, int64_t round, uint32_t shift, int32_t* a,
                    int32_t* v, int32_t* h, int32_t* d) {
    const DI32 di;
    const int n = static_cast<int>(hn::Lanes(di));
    const VI32 rnd = hn::Set(di, static_cast<int32_t>(round));
    const int s = static_cast<int>(shift);
    int j = 1;
    for (; j + n <= end; j += n) {
        // Output j reads p[2j-1], p[2j] (the first pair) and p[2j+1], p[2j+2] (the second).
        VI32 l0, l1, l2, l3, h0, h1, h2, h3;
        hn::LoadInterleaved2(di, lo + 2 * j - 1, l0, l1);
        hn::LoadInterleaved2(di, lo + 2 * j + 1, l2, l3);
        hn::LoadInterleaved2(di, hi + 2 * j - 1, h0, h1);
        hn::LoadInterleaved2(di, hi + 2 * j + 1, h2, h3);
        const Split sl0 = split(l0), sl1 = split(l1), sl2 = split(l2), sl3 = split(l3);
        const Split sh0 = split(h0), sh1 = split(h1), sh2 = split(h2), sh3 = split(h3);
        hn::StoreU(taps4_wide(sl0, sl1, sl2, sl3, kLo, rnd, s), di, a + j);
        hn::StoreU(taps4_wide(sl0, sl1, sl2, sl3, kHi, rnd, s), di, v + j);
        hn::StoreU(taps4_wide(sh0, sh1, sh2, sh3, kLo, rnd, s), di, h + j);
        hn::StoreU(taps4_wide(sh0, sh1, sh2, sh3, kHi, rnd, s), di, d + j);
    }
    dwt_horizontal_tail(lo, hi, j, end, round, shift, a, v, h, d);
}

// ---------------------------------------------------------------------------------------
// Level 0 decouple, CSF, denominator and contrast masking.

// Columns in groups of as many as a vector of doubles holds (the decouple needs a division in
// double precision): 32-bit lanes of half width.
using DF64 = hn::ScalableTag<double>;
using DH32 = hn::Rebind<int32_t, DF64>;
using DH16 = hn::Rebind<int16_t, DF64>;
using VH32 = hn::Vec<DH32>;

HWY_INLINE VH32 load_half(const int16_t* p) { return hn::PromoteTo(DH32(), hn::LoadU(DH16(), p)); }

void decouple0_same(const int16_t* oh, const int16_t* ov, const int16_t* th, const int16_t* tv, int begin, int end,
                    int32_t* same) {
    const DF64 df;
    const DH32 d;
    const hn::Rebind<float, DF64> d32f;
    const int n = static_cast<int>(hn::Lanes(df));
    const auto dot = [&](VH32 a, VH32 b, VH32 c, VH32 e) HWY_ATTR {
        // 16-bit products summed modulo 2^32, to float (rounded to nearest), times 1/4096.
        return hn::PromoteTo(df, hn::Mul(hn::ConvertTo(d32f, hn::Add(hn::Mul(a, b), hn::Mul(c, e))),
                                         hn::Set(d32f, 1.0f / 4096.0f)));
    };
    const hn::Vec<DF64> cos_sq = hn::Set(df, static_cast<double>(kCos1DegSq));
    int j = begin;
    for (; j + n <= end; j += n) {
        const VH32 a = load_half(oh + j), b = load_half(ov + j), c = load_half(th + j), e = load_half(tv + j);
        const hn::Vec<DF64> dp = dot(a, c, b, e);
        const hn::Vec<DF64> om = dot(a, a, b, b);
        const hn::Vec<DF64> tm = dot(c, c, e, e);
        const auto agree = hn::And(hn::Ge(dp, hn::Zero(df)), hn::Ge(hn::Mul(dp, dp), hn::Mul(hn::Mul(om, tm), cos_sq)));
        hn::StoreU(hn::DemoteTo(d, hn::IfThenElseZero(agree, hn::Set(df, -1.0))), d, same + j);
    }
    for (; j < end; ++j) same[j] = same_direction_avx512(oh[j], ov[j], th[j], tv[j]) ? -1 : 0;
}

void decouple0_integer_gain(const int16_t* o, const int16_t* t, const int32_t* same, int begin, int end, int32_t egl,
                            int16_t* r, int16_t* a) {
    // Full vectors of 32-bit lanes; only the division runs in double lanes, half a vector at a
    // time.
    const DF64 df;
    const DI32 d;
    const DH32 dh;
    const int n = static_cast<int>(hn::Lanes(d));
    const VI32 zero = hn::Zero(d), one = hn::Set(d, 1), q15 = hn::Set(d, 32768), half = hn::Set(d, 16384);
    const VI32 gain_limit = hn::Set(d, egl);
    const hn::Vec<DF64> two30 = hn::Set(df, 1073741824.0);
    int j = begin;
    for (; j + n <= end; j += n) {
        const VI32 ov = load_wide(o + j), tv = load_wide(t + j);
        // decouple0_k: 2^30 / max(|o|, 1) truncated, with the sign of o, times t in two pieces.
        const VI32 mag = hn::Max(abs32(ov), one);
        const VH32 recip_lo = hn::DemoteTo(dh, hn::Div(two30, hn::PromoteTo(df, hn::LowerHalf(dh, mag))));
        const VH32 recip_hi = hn::DemoteTo(dh, hn::Div(two30, hn::PromoteTo(df, hn::UpperHalf(dh, mag))));
        const VI32 recip = hn::Combine(d, recip_hi, recip_lo);
        const VI32 lookup = hn::IfThenElse(hn::Lt(ov, zero), hn::Neg(recip), recip);
        VI32 k = hn::Add(hn::Mul(hn::ShiftRight<15>(lookup), tv),
                         hn::ShiftRight<15>(hn::Add(hn::Mul(hn::And(lookup, hn::Set(d, 0x7FFF)), tv), half)));
        k = hn::IfThenElse(hn::Eq(ov, zero), q15, k);
        k = hn::Min(hn::Max(k, zero), q15);
        // restored0 and restore0_integer_gain.
        const VI32 rst = hn::ShiftRight<15>(hn::Add(hn::Mul(k, ov), half));
        const VI32 gain = hn::Mul(rst, gain_limit);
        const VI32 limited = hn::IfThenElse(hn::Gt(ov, zero), hn::Min(gain, tv), hn::Max(gain, tv));
        const VI32 apply = hn::And(hn::LoadU(d, same + j),
                                   hn::And(hn::VecFromMask(d, hn::Gt(k, zero)), hn::VecFromMask(d, hn::Ne(ov, zero))));
        const VI32 out = hn::Xor(rst, hn::And(hn::Xor(rst, limited), apply));
        hn::StoreU(hn::DemoteTo(DW(), narrow16(out)), DW(), r + j);
        hn::StoreU(hn::DemoteTo(DW(), narrow16(hn::Sub(tv, out))), DW(), a + j);
    }
    reference_kernels().decouple0_integer_gain(o, t, same, j, end, egl, r, a);  // the tail
}

/// csf0_filter of 32-bit lanes: (4369 * |v| + 2048) >> 12 modulo 2^32, as 16 bits.
HWY_INLINE VI32 csf0_filter_lanes(VI32 v) {
    const DI32 d;
    return narrow16(hn::ShiftRight<12>(hn::Add(hn::Mul(abs32(v), hn::Set(d, kOneBy30Q17)), hn::Set(d, 2048))));
}

void csf0(const int16_t* s, int begin, int cut, int end, int32_t wt, int theta, int16_t* dst, int16_t* flt) {
    const DI32 d;
    const int n = static_cast<int>(hn::Lanes(d));
    const VI32 weight = hn::Set(d, wt);
    const VI32 round = hn::Set(d, theta == 2 ? 65535 : 16384);
    const int shift = theta == 2 ? 17 : 15;
    const auto weighted = [&](int j) HWY_ATTR {
        return hn::ShiftRightSame(hn::Add(hn::Mul(weight, load_wide(s + j)), round), shift);
    };
    int j = begin;
    for (; j + n <= cut; j += n) {  // the filter of the 32-bit value
        const VI32 wide = weighted(j);
        hn::StoreU(hn::DemoteTo(DW(), narrow16(wide)), DW(), dst + j);
        hn::StoreU(hn::DemoteTo(DW(), csf0_filter_lanes(wide)), DW(), flt + j);
    }
    for (; j < cut; ++j) {
        const int32_t wide = csf0_weight(s[j], wt, theta);
        dst[j] = static_cast<int16_t>(wide);
        flt[j] = csf0_filter(wide);
    }
    for (; j + n <= end; j += n) {  // the filter of the 16-bit value
        const VI32 narrow = narrow16(weighted(j));
        hn::StoreU(hn::DemoteTo(DW(), narrow), DW(), dst + j);
        hn::StoreU(hn::DemoteTo(DW(), csf0_filter_lanes(narrow)), DW(), flt + j);
    }
    for (; j < end; ++j) {
        const int16_t narrow = static_cast<int16_t>(csf0_weight(s[j], wt, theta));
        dst[j] = narrow;
        flt[j] = csf0_filter(narrow);
    }
}

using DU32 = hn::RebindToUnsigned<DI32>;
using DU64 = hn::Repartition<uint64_t, DI32>;
using DS64 = hn::Repartition<int64_t, DI32>;

uint64_t den0_row(const int16_t* x, int begin, int end) {
    const DI32 d;
    const DU32 du;
    const DU64 dq;
    const int n = static_cast<int>(hn::Lanes(d));
    hn::Vec<DU64> sum = hn::Zero(dq);
    int j = begin;
    for (; j + n <= end; j += n) {
        // |x| < 2^16 (as upstream's uint16_t), its square < 2^32, the cube in 64 bits.
        const hn::Vec<DU32> m = hn::BitCast(du, hn::And(abs32(load_wide(x + j)), hn::Set(d, 0xFFFF)));
        const hn::Vec<DU32> sq = hn::Mul(m, m);
        const hn::Vec<DU32> m_odd = hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(dq, m)));
        const hn::Vec<DU32> sq_odd = hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(dq, sq)));
        sum = hn::Add(sum, hn::Add(hn::MulEven(sq, m), hn::MulEven(sq_odd, m_odd)));
    }
    uint64_t inner = SumLanesWrapping(dq, sum);
    for (; j < end; ++j) inner += den0_cube(x[j]);
    return inner;
}

void cm0_colsum(const int16_t* const rows[9], int begin, int end, int32_t* colsum) {
    const DI32 d;
    const int n = static_cast<int>(hn::Lanes(d));
    int j = begin;
    for (; j + n <= end; j += n) {
        VI32 sum = load_wide(rows[0] + j);
        for (int r = 1; r < 9; ++r) sum = hn::Add(sum, load_wide(rows[r] + j));
        hn::StoreU(sum, d, colsum + j);
    }
    for (; j < end; ++j) {
        uint32_t sum = 0;
        for (int r = 0; r < 9; ++r) sum += static_cast<uint32_t>(rows[r][j]);
        colsum[j] = static_cast<int32_t>(sum);
    }
}

void cm0_ring(const int32_t* colsum, const int16_t* fh, const int16_t* fv, const int16_t* fd, int begin, int end,
              int32_t* thr) {
    const DI32 d;
    const int n = static_cast<int>(hn::Lanes(d));
    int j = begin;
    for (; j + n <= end; j += n) {
        const VI32 box = hn::Add(hn::Add(hn::LoadU(d, colsum + j - 1), hn::LoadU(d, colsum + j)),
                                 hn::LoadU(d, colsum + j + 1));
        const VI32 centre = hn::Add(hn::Add(load_wide(fh + j), load_wide(fv + j)), load_wide(fd + j));
        hn::StoreU(hn::Sub(box, centre), d, thr + j);
    }
    for (; j < end; ++j)
        thr[j] = static_cast<int32_t>(static_cast<uint32_t>(colsum[j - 1]) + static_cast<uint32_t>(colsum[j]) +
                                      static_cast<uint32_t>(colsum[j + 1]) - static_cast<uint32_t>(int32_t{fh[j]}) -
                                      static_cast<uint32_t>(int32_t{fv[j]}) - static_cast<uint32_t>(int32_t{fd[j]}));
}

/// cm0_centre_term of 32-bit lanes: (8738 * |c| + 2048) >> 12.
HWY_INLINE VI32 centre_term(VI32 c) {
    const DI32 d;
    return hn::ShiftRight<12>(hn::Add(hn::Mul(abs32(c), hn::Set(d, kOneBy15Q12)), hn::Set(d, 2048)));
}

void cm0_centre(const int16_t* ch, const int16_t* cv, const int16_t* cd, int begin, int cut, int end, int32_t* thr) {
    const DI32 d;
    const int n = static_cast<int>(hn::Lanes(d));
    int j = begin;
    for (; j + n <= cut; j += n) {
        const VI32 terms = hn::Add(hn::Add(centre_term(load_wide(ch + j)), centre_term(load_wide(cv + j))),
                                   centre_term(load_wide(cd + j)));
        hn::StoreU(hn::Add(hn::LoadU(d, thr + j), terms), d, thr + j);
    }
    for (; j < cut; ++j)
        thr[j] = static_cast<int32_t>(static_cast<uint32_t>(thr[j]) + static_cast<uint32_t>(cm0_centre_term(ch[j])) +
                                      static_cast<uint32_t>(cm0_centre_term(cv[j])) +
                                      static_cast<uint32_t>(cm0_centre_term(cd[j])));
    for (; j + n <= end; j += n) {
        const VI32 terms = hn::Add(hn::Add(narrow16(centre_term(load_wide(ch + j))), narrow16(centre_term(load_wide(cv + j)))),
                                   narrow16(centre_term(load_wide(cd + j))));
        hn::StoreU(hn::Add(hn::LoadU(d, thr + j), terms), d, thr + j);
    }
    for (; j < end; ++j)
        thr[j] = static_cast<int32_t>(static_cast<uint32_t>(thr[j]) +
                                      static_cast<uint32_t>(static_cast<int16_t>(cm0_centre_term(ch[j]))) +
                                      static_cast<uint32_t>(static_cast<int16_t>(cm0_centre_term(cv[j]))) +
                                      static_cast<uint32_t>(static_cast<int16_t>(cm0_centre_term(cd[j]))));
}

/// The cube term of cm0_cube for the excesses m >= 0 in the even 32-bit lanes of `m` (the odd
/// lanes are ignored): sq = (int32)((m * m + round_sq) >> shift_sq), then
/// (sq * m + rcub) >> scub in 64 bits.
HWY_INLINE hn::Vec<DS64> cube_even(hn::Vec<DU32> m, hn::Vec<DU64> round_sq, int shift_sq, hn::Vec<DS64> rcub,
                                   int scub) {
    const DI32 d;
    const VI32 sq = hn::BitCast(d, hn::ShiftRightSame(hn::Add(hn::MulEven(m, m), round_sq), shift_sq));
    return hn::ShiftRightSame(hn::Add(hn::MulEven(sq, hn::BitCast(d, m)), rcub), scub);
}

int64_t cm0_row(const int16_t* x, const int32_t* thr, int begin, int end, int32_t wt, int theta, int64_t rcub,
                uint32_t scub) {
    const DI32 d;
    const DU32 du;
    const DU64 dq;
    const DS64 ds;
    const int n = static_cast<int>(hn::Lanes(d));
    const int sub = theta == 2 ? 12 : 10;
    const hn::Vec<DU64> round_sq = hn::Set(dq, theta == 2 ? (uint64_t{1} << 29) : (uint64_t{1} << 28));
    const int shift_sq = theta == 2 ? 30 : 29;
    const hn::Vec<DS64> round_cube = hn::Set(ds, rcub);
    const int shift_cube = static_cast<int>(scub);
    const VI32 weight = hn::Set(d, wt);
    hn::Vec<DS64> sum = hn::Zero(ds);
    int j = begin;
    for (; j + n <= end; j += n) {
        // m = max(|x * wt| - (thr << sub), 0) modulo 2^32, as a signed value.
        const VI32 excess = hn::Sub(abs32(hn::Mul(load_wide(x + j), weight)),
                                    hn::ShiftLeftSame(hn::LoadU(d, thr + j), sub));
        const hn::Vec<DU32> m = hn::BitCast(du, hn::Max(excess, hn::Zero(d)));
        const hn::Vec<DU32> m_odd = hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(dq, m)));
        sum = hn::Add(sum, hn::Add(cube_even(m, round_sq, shift_sq, round_cube, shift_cube),
                                   cube_even(m_odd, round_sq, shift_sq, round_cube, shift_cube)));
    }
    int64_t row_acc = SumLanesWrapping(ds, sum);
    for (; j < end; ++j) row_acc += cm0_cube(x[j], wt, static_cast<uint32_t>(thr[j]), theta, rcub, scub);
    return row_acc;
}

#endif  // HWY_TARGET == HWY_SCALAR

}  // namespace

// The exported entries (one per target).
void Dwt0VerticalU8(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, const uint8_t* r3, int w, int bit_depth,
                    int16_t* lo, int16_t* hi) {
    dwt0_vertical(r0, r1, r2, r3, w, bit_depth, lo, hi);
}
void Dwt0VerticalU16(const uint16_t* r0, const uint16_t* r1, const uint16_t* r2, const uint16_t* r3, int w,
                     int bit_depth, int16_t* lo, int16_t* hi) {
    dwt0_vertical(r0, r1, r2, r3, w, bit_depth, lo, hi);
}
void Dwt0Horizontal(const int16_t* lo, const int16_t* hi, int end, int16_t* a, int16_t* v, int16_t* h, int16_t* d) {
    dwt0_horizontal(lo, hi, end, a, v, h, d);
}
void DwtVerticalS16(const int16_t* r0, const int16_t* r1, const int16_t* r2, const int16_t* r3, int w, int64_t round,
                    uint32_t shift, int32_t* lo, int32_t* hi) {
    dwt_vertical(r0, r1, r2, r3, w, round, shift, lo, hi);
}
void DwtVerticalS32(const int32_t* r0, const int32_t* r1, const int32_t* r2, const int32_t* r3, int w, int64_t round,
                    uint32_t shift, int32_t* lo, int32_t* hi) {
    dwt_vertical(r0, r1, r2, r3, w, round, shift, lo, hi);
}
void DwtHorizontal(const int32_t* lo, const int32_t* hi, int end, int64_t round, uint32_t shift, int32_t* a,
                   int32_t* v, int32_t* h, int32_t* d) {
    dwt_horizontal(lo, hi, end, round, shift, a, v, h, d);
}
void Decouple0Same(const int16_t* oh, const int16_t* ov, const int16_t* th, const int16_t* tv, int begin, int end,
                   int32_t* same) {
    decouple0_same(oh, ov, th, tv, begin, end, same);
}
void Decouple0IntegerGain(const int16_t* o, const int16_t* t, const int32_t* same, int begin, int end, int32_t egl,
                          int16_t* r, int16_t* a) {
    decouple0_integer_gain(o, t, same, begin, end, egl, r, a);
}
void Csf0(const int16_t* s, int begin, int cut, int end, int32_t wt, int theta, int16_t* d, int16_t* f) {
    csf0(s, begin, cut, end, wt, theta, d, f);
}
uint64_t Den0Row(const int16_t* x, int begin, int end) { return den0_row(x, begin, end); }
void Cm0Colsum(const int16_t* const rows[9], int begin, int end, int32_t* colsum) {
    cm0_colsum(rows, begin, end, colsum);
}
void Cm0Ring(const int32_t* colsum, const int16_t* fh, const int16_t* fv, const int16_t* fd, int begin, int end,
             int32_t* thr) {
    cm0_ring(colsum, fh, fv, fd, begin, end, thr);
}
void Cm0Centre(const int16_t* ch, const int16_t* cv, const int16_t* cd, int begin, int cut, int end, int32_t* thr) {
    cm0_centre(ch, cv, cd, begin, cut, end, thr);
}
int64_t Cm0Row(const int16_t* x, const int32_t* thr, int begin, int end, int32_t wt, int theta, int64_t rcub,
               uint32_t scub) {
    return cm0_row(x, thr, begin, end, wt, theta, rcub, scub);
}
int64_t Target() { return HWY_TARGET; }

}  // namespace vmafx::adm::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vmafx::adm {

HWY_EXPORT(Dwt0VerticalU8);
HWY_EXPORT(Dwt0VerticalU16);
HWY_EXPORT(Dwt0Horizontal);
HWY_EXPORT(DwtVerticalS16);
HWY_EXPORT(DwtVerticalS32);
HWY_EXPORT(DwtHorizontal);
HWY_EXPORT(Decouple0Same);
HWY_EXPORT(Decouple0IntegerGain);
HWY_EXPORT(Csf0);
HWY_EXPORT(Den0Row);
HWY_EXPORT(Cm0Colsum);
HWY_EXPORT(Cm0Ring);
HWY_EXPORT(Cm0Centre);
HWY_EXPORT(Cm0Row);
HWY_EXPORT(Target);

namespace {
void dwt0_vertical_u8(const std::uint8_t* r0, const std::uint8_t* r1, const std::uint8_t* r2, const std::uint8_t* r3,
                      int w, int bit_depth, std::int16_t* lo, std::int16_t* hi) {
    HWY_DYNAMIC_DISPATCH(Dwt0VerticalU8)(r0, r1, r2, r3, w, bit_depth, lo, hi);
}
void dwt0_vertical_u16(const std::uint16_t* r0, const std::uint16_t* r1, const std::uint16_t* r2,
                       const std::uint16_t* r3, int w, int bit_depth, std::int16_t* lo, std::int16_t* hi) {
    HWY_DYNAMIC_DISPATCH(Dwt0VerticalU16)(r0, r1, r2, r3, w, bit_depth, lo, hi);
}
void dwt0_horizontal(const std::int16_t* lo, const std::int16_t* hi, int end, std::int16_t* a, std::int16_t* v,
                     std::int16_t* h, std::int16_t* d) {
    HWY_DYNAMIC_DISPATCH(Dwt0Horizontal)(lo, hi, end, a, v, h, d);
}
void dwt_vertical_s16(const std::int16_t* r0, const std::int16_t* r1, const std::int16_t* r2, const std::int16_t* r3,
                      int w, std::int64_t round, std::uint32_t shift, std::int32_t* lo, std::int32_t* hi) {
    HWY_DYNAMIC_DISPATCH(DwtVerticalS16)(r0, r1, r2, r3, w, round, shift, lo, hi);
}
void dwt_vertical_s32(const std::int32_t* r0, const std::int32_t* r1, const std::int32_t* r2, const std::int32_t* r3,
                      int w, std::int64_t round, std::uint32_t shift, std::int32_t* lo, std::int32_t* hi) {
    HWY_DYNAMIC_DISPATCH(DwtVerticalS32)(r0, r1, r2, r3, w, round, shift, lo, hi);
}
void dwt_horizontal(const std::int32_t* lo, const std::int32_t* hi, int end, std::int64_t round, std::uint32_t shift,
                    std::int32_t* a, std::int32_t* v, std::int32_t* h, std::int32_t* d) {
    HWY_DYNAMIC_DISPATCH(DwtHorizontal)(lo, hi, end, round, shift, a, v, h, d);
}
void decouple0_same(const std::int16_t* oh, const std::int16_t* ov, const std::int16_t* th, const std::int16_t* tv,
                    int begin, int end, std::int32_t* same) {
    HWY_DYNAMIC_DISPATCH(Decouple0Same)(oh, ov, th, tv, begin, end, same);
}
void decouple0_integer_gain(const std::int16_t* o, const std::int16_t* t, const std::int32_t* same, int begin, int end,
                            std::int32_t egl, std::int16_t* r, std::int16_t* a) {
    HWY_DYNAMIC_DISPATCH(Decouple0IntegerGain)(o, t, same, begin, end, egl, r, a);
}
void csf0(const std::int16_t* s, int begin, int cut, int end, std::int32_t wt, int theta, std::int16_t* d,
          std::int16_t* f) {
    HWY_DYNAMIC_DISPATCH(Csf0)(s, begin, cut, end, wt, theta, d, f);
}
std::uint64_t den0_row(const std::int16_t* x, int begin, int end) { return HWY_DYNAMIC_DISPATCH(Den0Row)(x, begin, end); }
void cm0_colsum(const std::int16_t* const rows[9], int begin, int end, std::int32_t* colsum) {
    HWY_DYNAMIC_DISPATCH(Cm0Colsum)(rows, begin, end, colsum);
}
void cm0_ring(const std::int32_t* colsum, const std::int16_t* fh, const std::int16_t* fv, const std::int16_t* fd,
              int begin, int end, std::int32_t* thr) {
    HWY_DYNAMIC_DISPATCH(Cm0Ring)(colsum, fh, fv, fd, begin, end, thr);
}
void cm0_centre(const std::int16_t* ch, const std::int16_t* cv, const std::int16_t* cd, int begin, int cut, int end,
                std::int32_t* thr) {
    HWY_DYNAMIC_DISPATCH(Cm0Centre)(ch, cv, cd, begin, cut, end, thr);
}
std::int64_t cm0_row(const std::int16_t* x, const std::int32_t* thr, int begin, int end, std::int32_t wt, int theta,
                     std::int64_t rcub, std::uint32_t scub) {
    return HWY_DYNAMIC_DISPATCH(Cm0Row)(x, thr, begin, end, wt, theta, rcub, scub);
}
}  // namespace

const RowKernels& simd_kernels() {
    static const RowKernels kernels = [] {
        RowKernels k{"simd",
                                    dwt0_vertical_u8,
                                    dwt0_vertical_u16,
                                    dwt0_horizontal,
                                    dwt_vertical_s16,
                                    dwt_vertical_s32,
                                    dwt_horizontal,
                                    decouple0_same,
                                    decouple0_integer_gain,
                                    csf0,
                                    den0_row,
                                    cm0_colsum,
                                    cm0_ring,
                                    cm0_centre,
                                    cm0_row,
                                    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
        set_levels_simd_kernels(k);  // levels 1..3: adm_levels_simd.cpp
        return k;
    }();
    return kernels;
}

std::int64_t simd_target() {
    const std::int64_t target = HWY_DYNAMIC_DISPATCH(Target)();
    return target == levels_simd_target() ? target : 0;  // 0: the two files dispatch apart
}

}  // namespace vmafx::adm
#endif  // HWY_ONCE
