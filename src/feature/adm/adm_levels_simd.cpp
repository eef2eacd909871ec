// SIMD row kernels of the integer ADM pipeline's levels 1..3 (decouple, CSF, denominator and
// contrast masking; adm_kernels.hpp, set into simd_kernels() by adm_simd.cpp; Google Highway,
// one source for every target, the best one the CPU supports picked at run time): the same
// integers as the scalar reference in adm_reference.cpp (upstream libvmaf 3.2.0
// src/feature/integer_adm.c). adm_simd_test.cpp runs every compiled target against the
// reference bit for bit.
//
// Levels 1..3 decouple, CSF, denominator and contrast masking: one column per 64-bit lane (the
// reference's 64-bit steps exact, its 32-bit wraps as the lanes' low halves), products of
// 32-bit values as MulEven; the decouple's direction test in double lanes, from dot products
// exact in double (coefficients below 2^26) or rounded to float from their 64-bit values
// (dot_to_float).
//
// Whole vectors of columns run the SIMD code, the rest of a row the reference's per-sample
// functions (adm_math.hpp); nothing is read or written outside the row's columns.
#include <cstddef>
#include <cstdint>

#include "feature/adm/adm_kernels.hpp"
#include "feature/adm/adm_math.hpp"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "adm_levels_simd.cpp takes the low 32-bit halves of 64-bit lanes the little-endian way"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "feature/adm/adm_levels_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "feature/common/simd_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vmafx::adm::HWY_NAMESPACE {
namespace {

using vmafx::HWY_NAMESPACE::SumLanesWrapping;

using std::int16_t;
using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint8_t;

#if HWY_TARGET == HWY_SCALAR
// The baseline runs the reference.
void decouple_row(const int32_t* const o[3], const int32_t* const t[3], int begin, int end, int32_t egl,
                  int32_t* const r[3], int32_t* const a[3]) {
    reference_kernels().decouple_row(o, t, begin, end, egl, r, a);
}
void csf_row(const int32_t* s, int begin, int cut, int end, uint32_t wt, int32_t* d, int32_t* f) {
    reference_kernels().csf_row(s, begin, cut, end, wt, d, f);
}
uint64_t den_row(const int32_t* x, int begin, int end, uint64_t round_sq, int shift_sq, uint64_t cub_round,
                 uint32_t cub_shift) {
    return reference_kernels().den_row(x, begin, end, round_sq, shift_sq, cub_round, cub_shift);
}
void cm_colsum(const int32_t* const rows[9], int begin, int end, int64_t* colsum) {
    reference_kernels().cm_colsum(rows, begin, end, colsum);
}
void cm_threshold(const int64_t* colsum, const int32_t* const f[3], const int32_t* const c[3], int begin, int end,
                  int64_t* thr) {
    reference_kernels().cm_threshold(colsum, f, c, begin, end, thr);
}
int64_t cm_row(const int32_t* x, const int64_t* thr, int begin, int cut, int end, uint32_t wt, int64_t rcub,
               uint32_t scub) {
    return reference_kernels().cm_row(x, thr, begin, cut, end, wt, rcub, scub);
}
#else

namespace hn = hwy::HWY_NAMESPACE;

// ---------------------------------------------------------------------------------------
// Levels 1..3 decouple, CSF, denominator and contrast masking: one column per 64-bit lane,
// the 32-bit values sign-extended; the 64-bit products of 32-bit values as MulEven of the low
// halves; results kept modulo 2^32 are the low halves of the lanes.

using DL = hn::ScalableTag<int64_t>;
using DLU = hn::RebindToUnsigned<DL>;
using DLI32 = hn::Repartition<int32_t, DL>;   // the lanes' halves
using DLU32 = hn::Repartition<uint32_t, DL>;
using DLH = hn::Rebind<int32_t, DL>;          // as many 32-bit lanes as DL has
using DLHU = hn::Rebind<uint32_t, DL>;
using DLF = hn::Rebind<double, DL>;
using VL = hn::Vec<DL>;

HWY_INLINE VL load_l(const int32_t* p) { return hn::PromoteTo(DL(), hn::LoadU(DLH(), p)); }

/// Stores the low 32 bits of each lane.
HWY_INLINE void store_low(VL v, int32_t* p) {
    hn::StoreU(hn::TruncateTo(DLHU(), hn::BitCast(DLU(), v)), DLHU(), reinterpret_cast<uint32_t*>(p));
}

/// The low 32 bits of each lane sign-extended.
HWY_INLINE VL sext32(VL v) { return hn::ShiftRight<32>(hn::ShiftLeft<32>(v)); }

/// The product of the low 32 bits of a and b, as signed values, in 64 bits.
HWY_INLINE VL mul_low(VL a, VL b) { return hn::MulEven(hn::BitCast(DLI32(), a), hn::BitCast(DLI32(), b)); }

/// The product of the low 32 bits of a and b, as unsigned values, in 64 bits.
HWY_INLINE hn::Vec<DLU> mul_low_u(hn::Vec<DLU> a, hn::Vec<DLU> b) {
    return hn::MulEven(hn::BitCast(DLU32(), a), hn::BitCast(DLU32(), b));
}

/// |v| of 64-bit lanes (INT64_MIN stays).
HWY_INLINE VL abs64(VL v) {
    const VL sign = hn::BroadcastSignBit(v);
    return hn::Sub(hn::Xor(v, sign), sign);
}

/// v >> s, arithmetic, per lane (0 <= s < 64), with logical shifts (sar64).
HWY_INLINE VL sar_lanes(VL v, VL s) {
    const DL d;
    const DLU du;
    const VL sign = hn::BroadcastSignBit(v);
    return hn::Xor(hn::BitCast(d, hn::BitCast(du, hn::Xor(v, sign)) >> hn::BitCast(du, s)), sign);
}

/// x * wt + 2^27 in 64 bits with wt read as signed (the low half of w), plus x * 2^32 where
/// `unsigned_fix` (wt read as unsigned with its top bit set).
HWY_INLINE VL weighted_product(VL x, VL w, bool unsigned_fix) {
    const VL p = hn::Add(mul_low(x, w), hn::Set(DL(), int64_t{1} << 27));
    return unsigned_fix ? hn::Add(p, hn::ShiftLeft<32>(x)) : p;
}

/// static_cast<double>(static_cast<float>(v)) / 4096 of 64-bit lanes v (same_direction's
/// conversions): |v| rounded to float once. Below 2^53 |v| converts to double exactly; from
/// 2^53 its bits 0..28 (below the float's rounding bit, at least bit 29 there) are folded
/// into bit 28, a sticky bit, which leaves at most 36 significant bits (exact in double) and
/// the same float rounding.
HWY_INLINE hn::Vec<DLF> dot_to_float(VL v) {
    const DL d;
    const DLU du;
    const DLF df;
    const hn::Rebind<float, DL> df32;
    const VL sign = hn::BroadcastSignBit(v);
    const hn::Vec<DLU> mag = hn::BitCast(du, hn::Sub(hn::Xor(v, sign), sign));  // 2^63 for INT64_MIN
    const auto big = hn::Ne(hn::ShiftRight<53>(mag), hn::Zero(du));
    const hn::Vec<DLU> low = hn::Set(du, (uint64_t{1} << 29) - 1);
    const hn::Vec<DLU> sticky = hn::IfThenElseZero(hn::Ne(hn::And(mag, low), hn::Zero(du)), hn::Set(du, uint64_t{1} << 28));
    // Halved when big (bit 28 up: still exact), so that the value is below 2^63.
    const hn::Vec<DLU> x = hn::IfThenElse(big, hn::ShiftRight<1>(hn::Or(hn::AndNot(low, mag), sticky)), mag);
    hn::Vec<DLF> exact = hn::ConvertTo(df, hn::BitCast(d, x));
    exact = hn::IfThenElse(hn::RebindMask(df, big), hn::Add(exact, exact), exact);
    const hn::Vec<DLF> rounded = hn::PromoteTo(df, hn::DemoteTo(df32, exact));
    const hn::Vec<DLF> f = hn::IfThenElse(hn::RebindMask(df, hn::Lt(v, hn::Zero(d))), hn::Neg(rounded), rounded);
    return hn::Mul(f, hn::Set(df, 1.0 / 4096.0));
}

void decouple_row(const int32_t* const o[3], const int32_t* const t[3], int begin, int end, int32_t egl,
                  int32_t* const r[3], int32_t* const a[3]) {
    const DL d;
    const DLU du;
    const DLF df;
    const hn::Rebind<float, DL> df32;
    const int n = static_cast<int>(hn::Lanes(d));
    // Below 2^26 in magnitude the dot products are exact in double, so rounding them to float
    // rounds the exact 64-bit integers once, as the reference's int64-to-float conversions.
    const hn::Vec<DLF> exact_limit = hn::Set(df, 67108864.0);
    const hn::Vec<DLF> cos_sq = hn::Set(df, static_cast<double>(kCos1DegSq));
    const hn::Vec<DLF> by4096 = hn::Set(df, 1.0 / 4096.0);
    const hn::Vec<DLF> two30 = hn::Set(df, 1073741824.0);
    const VL zero = hn::Zero(d), one = hn::Set(d, 1), q15 = hn::Set(d, 32768), gain_limit = hn::Set(d, egl);
    const auto as_float = [&](hn::Vec<DLF> x) HWY_ATTR {
        return hn::Mul(hn::PromoteTo(df, hn::DemoteTo(df32, x)), by4096);
    };
    int j = begin;
    for (; j + n <= end; j += n) {
        const hn::Vec<DLF> oh = hn::PromoteTo(df, hn::LoadU(DLH(), o[0] + j));
        const hn::Vec<DLF> ov = hn::PromoteTo(df, hn::LoadU(DLH(), o[1] + j));
        const hn::Vec<DLF> th = hn::PromoteTo(df, hn::LoadU(DLH(), t[0] + j));
        const hn::Vec<DLF> tv = hn::PromoteTo(df, hn::LoadU(DLH(), t[1] + j));
        const auto big = hn::Or(hn::Or(hn::Ge(hn::Abs(oh), exact_limit), hn::Ge(hn::Abs(ov), exact_limit)),
                                hn::Or(hn::Ge(hn::Abs(th), exact_limit), hn::Ge(hn::Abs(tv), exact_limit)));
        hn::Vec<DLF> dp, om, tm;
        if (hn::AllFalse(df, big)) {
            dp = as_float(hn::Add(hn::Mul(oh, th), hn::Mul(ov, tv)));
            om = as_float(hn::Add(hn::Mul(oh, oh), hn::Mul(ov, ov)));
            tm = as_float(hn::Add(hn::Mul(th, th), hn::Mul(tv, tv)));
        } else {  // the 64-bit dot products (modulo 2^64, as the reference's), rounded to float
            const VL oh_i = load_l(o[0] + j), ov_i = load_l(o[1] + j), th_i = load_l(t[0] + j), tv_i = load_l(t[1] + j);
            dp = dot_to_float(hn::Add(mul_low(oh_i, th_i), mul_low(ov_i, tv_i)));
            om = dot_to_float(hn::Add(mul_low(oh_i, oh_i), mul_low(ov_i, ov_i)));
            tm = dot_to_float(hn::Add(mul_low(th_i, th_i), mul_low(tv_i, tv_i)));
        }
        const auto same_f = hn::And(hn::Ge(dp, hn::Zero(df)), hn::Ge(hn::Mul(dp, dp), hn::Mul(hn::Mul(cos_sq, om), tm)));
        const auto same = hn::RebindMask(d, same_f);
        for (int theta = 0; theta < 3; ++theta) {
            const VL oi = load_l(o[theta] + j);
            const VL ti = load_l(t[theta] + j);
            // decouple_k: |o| rounded to 15 bits (shift = bit length - 15, at least 0).
            const hn::Vec<DLF> mag_f = hn::Abs(hn::PromoteTo(df, hn::LoadU(DLH(), o[theta] + j)));
            const VL expo = hn::BitCast(d, hn::ShiftRight<52>(hn::BitCast(du, mag_f)));
            const VL shift = hn::Max(hn::Sub(expo, hn::Set(d, 1023 + 14)), zero);
            const hn::Vec<DLU> mag = hn::BitCast(du, abs64(oi));
            const hn::Vec<DLU> half = hn::ShiftRight<1>(hn::BitCast(du, one) << hn::BitCast(du, shift));
            const VL msb = hn::Max(hn::And(hn::BitCast(d, hn::Add(mag, half) >> hn::BitCast(du, shift)),
                                           hn::Set(d, 0xFFFF)),
                                   one);
            const hn::Vec<DLF> msb_f = hn::PromoteTo(df, hn::BitCast(DLH(), hn::TruncateTo(DLHU(), hn::BitCast(du, msb))));
            const VL recip = hn::PromoteTo(d, hn::DemoteTo(DLH(), hn::Div(two30, msb_f)));
            VL prod = mul_low(recip, ti);
            const auto negative = hn::Lt(oi, zero);
            prod = hn::IfThenElse(negative, hn::Neg(prod), prod);
            const VL round = hn::BitCast(d, hn::BitCast(du, one) << hn::BitCast(du, hn::Add(shift, hn::Set(d, 14))));
            VL k = sar_lanes(hn::Add(prod, round), hn::Add(shift, hn::Set(d, 15)));
            k = hn::Min(hn::Max(k, zero), q15);
            const auto o_zero = hn::Eq(oi, zero);
            k = hn::IfThenElse(o_zero, q15, k);
            // restored, then restore with the integer gain limit.
            const VL rst = hn::ShiftRight<15>(hn::Add(mul_low(k, oi), hn::Set(d, 16384)));
            const VL gain = mul_low(rst, gain_limit);
            const VL limited = hn::IfThenElse(hn::Gt(oi, zero), hn::Min(gain, ti), hn::Max(gain, ti));
            const auto apply = hn::AndNot(o_zero, hn::And(same, hn::Gt(k, zero)));
            const VL out = hn::IfThenElse(apply, limited, rst);
            store_low(out, r[theta] + j);
            store_low(hn::Sub(ti, out), a[theta] + j);
        }
    }
    for (; j < end; ++j) decouple_column(o, t, j, egl, r, a);
}

void csf_row(const int32_t* s, int begin, int cut, int end, uint32_t wt, int32_t* dst, int32_t* flt) {
    const DL d;
    const int n = static_cast<int>(hn::Lanes(d));
    const VL w = hn::Set(d, static_cast<int64_t>(static_cast<int32_t>(wt)));
    const VL by30 = hn::Set(d, kOneBy30Q32);
    const VL round32 = hn::Set(d, kRound32);
    const auto run = [&](int j0, int j1, bool unsigned_fix) HWY_ATTR {
        int j = j0;
        for (; j + n <= j1; j += n) {
            // The low 32 bits of (x * wt + 2^27) >> 28; the filter's >> 32 is the high half.
            const VL v = sext32(hn::BitCast(d, hn::ShiftRight<28>(hn::BitCast(DLU(), weighted_product(load_l(s + j), w,
                                                                                                       unsigned_fix)))));
            store_low(v, dst + j);
            store_low(hn::ShiftRight<32>(hn::Add(mul_low(abs64(v), by30), round32)), flt + j);
        }
        const int64_t wt_run = unsigned_fix || wt < 0x80000000u ? int64_t{wt} : int64_t{static_cast<int32_t>(wt)};
        for (; j < j1; ++j) {
            const int32_t v = csf_weight(s[j], wt_run);
            dst[j] = v;
            flt[j] = csf_filter(v);
        }
    };
    run(begin, cut, false);
    run(cut, end, wt >= 0x80000000u);
}

uint64_t den_row(const int32_t* x, int begin, int end, uint64_t round_sq, int shift_sq, uint64_t cub_round,
                 uint32_t cub_shift) {
    const DL d;
    const DLU du;
    const int n = static_cast<int>(hn::Lanes(d));
    const hn::Vec<DLU> rsq = hn::Set(du, round_sq), rcub = hn::Set(du, cub_round);
    hn::Vec<DLU> sum = hn::Zero(du);
    int j = begin;
    for (; j + n <= end; j += n) {
        const hn::Vec<DLU> m = hn::BitCast(du, abs64(load_l(x + j)));  // |x| < 2^32 as uint32
        const hn::Vec<DLU> sq = hn::ShiftRightSame(hn::Add(mul_low_u(m, m), rsq), shift_sq);
        // sq * m modulo 2^64 from sq's 32-bit halves.
        const hn::Vec<DLU> prod = hn::Add(mul_low_u(sq, m), hn::ShiftLeft<32>(mul_low_u(hn::ShiftRight<32>(sq), m)));
        sum = hn::Add(sum, hn::ShiftRightSame(hn::Add(prod, rcub), static_cast<int>(cub_shift)));
    }
    uint64_t inner = SumLanesWrapping(du, sum);
    for (; j < end; ++j) inner += den_cube(x[j], round_sq, shift_sq, cub_round, cub_shift);
    return inner;
}

void cm_colsum(const int32_t* const rows[9], int begin, int end, int64_t* colsum) {
    const DL d;
    const int n = static_cast<int>(hn::Lanes(d));
    int j = begin;
    for (; j + n <= end; j += n) {
        VL sum = load_l(rows[0] + j);
        for (int r = 1; r < 9; ++r) sum = hn::Add(sum, load_l(rows[r] + j));
        hn::StoreU(sum, d, colsum + j);
    }
    for (; j < end; ++j) {
        int64_t sum = 0;
        for (int r = 0; r < 9; ++r) sum += rows[r][j];
        colsum[j] = sum;
    }
}

/// cm_centre_term of the low halves of c: (|c| * 2^32 / 15 + kRound32) >> 32.
HWY_INLINE VL centre_term_l(VL c) {
    const DL d;
    return hn::ShiftRight<32>(hn::Add(mul_low(abs64(c), hn::Set(d, kOneBy15Q32)), hn::Set(d, kRound32)));
}

void cm_threshold(const int64_t* colsum, const int32_t* const f[3], const int32_t* const c[3], int begin, int end,
                  int64_t* thr) {
    const DL d;
    const int n = static_cast<int>(hn::Lanes(d));
    int j = begin;
    for (; j + n <= end; j += n) {
        const VL box = hn::Add(hn::Add(hn::LoadU(d, colsum + j - 1), hn::LoadU(d, colsum + j)),
                               hn::LoadU(d, colsum + j + 1));
        const VL own = hn::Add(hn::Add(load_l(f[0] + j), load_l(f[1] + j)), load_l(f[2] + j));
        const VL centre = hn::Add(hn::Add(centre_term_l(load_l(c[0] + j)), centre_term_l(load_l(c[1] + j))),
                                  centre_term_l(load_l(c[2] + j)));
        hn::StoreU(hn::Add(hn::Sub(box, own), centre), d, thr + j);
    }
    for (; j < end; ++j)
        thr[j] = colsum[j - 1] + colsum[j] + colsum[j + 1] - f[0][j] - f[1][j] - f[2][j] + cm_centre_term(c[0][j]) +
                 cm_centre_term(c[1][j]) + cm_centre_term(c[2][j]);
}

int64_t cm_row(const int32_t* x, const int64_t* thr, int begin, int cut, int end, uint32_t wt, int64_t rcub,
               uint32_t scub) {
    const DL d;
    const DLU du;
    const int n = static_cast<int>(hn::Lanes(d));
    const VL w = hn::Set(d, static_cast<int64_t>(static_cast<int32_t>(wt)));
    const VL zero = hn::Zero(d);
    const VL round_cube = hn::Set(d, rcub);
    const int shift_cube = static_cast<int>(scub);
    // cm_cube of m >= 0 (a 32-bit value, sign-extended).
    const auto cube = [&](VL m) HWY_ATTR {
        const VL sq = sext32(hn::BitCast(d, hn::ShiftRight<30>(hn::Add(hn::BitCast(du, mul_low(m, m)),
                                                                       hn::Set(du, uint64_t{1} << 29)))));
        return hn::ShiftRightSame(hn::Add(mul_low(sq, m), round_cube), shift_cube);
    };
    VL sum = zero;
    int j = begin;
    for (; j + n <= cut; j += n) {  // 64-bit weighted value and threshold
        const VL xv = hn::ShiftRight<28>(weighted_product(load_l(x + j), w, false));
        const VL e = hn::Max(hn::Sub(abs64(xv), hn::LoadU(d, thr + j)), zero);
        sum = hn::Add(sum, cube(sext32(e)));
    }
    int64_t row_acc = 0;
    for (; j < cut; ++j) row_acc += cm_cube(cm_excess_vector(x[j], static_cast<int32_t>(wt), thr[j]), rcub, scub);
    const bool unsigned_fix = wt >= 0x80000000u;
    for (; j + n <= end; j += n) {  // both wrapped to 32 bits
        const VL xv = sext32(hn::BitCast(d, hn::ShiftRight<28>(hn::BitCast(du, weighted_product(load_l(x + j), w,
                                                                                                 unsigned_fix)))));
        const VL e = sext32(hn::Sub(abs64(xv), hn::LoadU(d, thr + j)));
        sum = hn::Add(sum, cube(hn::Max(e, zero)));
    }
    for (; j < end; ++j) row_acc += cm_cube(cm_excess_scalar(x[j], wt, thr[j]), rcub, scub);
    return row_acc + SumLanesWrapping(d, sum);
}
#endif  // HWY_TARGET == HWY_SCALAR
}  // namespace

// The exported entries (one per target).
void DecoupleRow(const int32_t* const o[3], const int32_t* const t[3], int begin, int end, int32_t egl,
                 int32_t* const r[3], int32_t* const a[3]) {
    decouple_row(o, t, begin, end, egl, r, a);
}
void CsfRow(const int32_t* s, int begin, int cut, int end, uint32_t wt, int32_t* d, int32_t* f) {
    csf_row(s, begin, cut, end, wt, d, f);
}
uint64_t DenRow(const int32_t* x, int begin, int end, uint64_t round_sq, int shift_sq, uint64_t cub_round,
                uint32_t cub_shift) {
    return den_row(x, begin, end, round_sq, shift_sq, cub_round, cub_shift);
}
void CmColsum(const int32_t* const rows[9], int begin, int end, int64_t* colsum) { cm_colsum(rows, begin, end, colsum); }
void CmThreshold(const int64_t* colsum, const int32_t* const f[3], const int32_t* const c[3], int begin, int end,
                 int64_t* thr) {
    cm_threshold(colsum, f, c, begin, end, thr);
}
int64_t CmRow(const int32_t* x, const int64_t* thr, int begin, int cut, int end, uint32_t wt, int64_t rcub,
              uint32_t scub) {
    return cm_row(x, thr, begin, cut, end, wt, rcub, scub);
}int64_t LevelsTarget() { return HWY_TARGET; }
}  // namespace vmafx::adm::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vmafx::adm {
HWY_EXPORT(DecoupleRow);
HWY_EXPORT(CsfRow);
HWY_EXPORT(DenRow);
HWY_EXPORT(CmColsum);
HWY_EXPORT(CmThreshold);
HWY_EXPORT(CmRow);
HWY_EXPORT(LevelsTarget);

namespace {
void decouple_row(const std::int32_t* const o[3], const std::int32_t* const t[3], int begin, int end,
                  std::int32_t egl, std::int32_t* const r[3], std::int32_t* const a[3]) {
    HWY_DYNAMIC_DISPATCH(DecoupleRow)(o, t, begin, end, egl, r, a);
}
void csf_row(const std::int32_t* s, int begin, int cut, int end, std::uint32_t wt, std::int32_t* d, std::int32_t* f) {
    HWY_DYNAMIC_DISPATCH(CsfRow)(s, begin, cut, end, wt, d, f);
}
std::uint64_t den_row(const std::int32_t* x, int begin, int end, std::uint64_t round_sq, int shift_sq,
                      std::uint64_t cub_round, std::uint32_t cub_shift) {
    return HWY_DYNAMIC_DISPATCH(DenRow)(x, begin, end, round_sq, shift_sq, cub_round, cub_shift);
}
void cm_colsum(const std::int32_t* const rows[9], int begin, int end, std::int64_t* colsum) {
    HWY_DYNAMIC_DISPATCH(CmColsum)(rows, begin, end, colsum);
}
void cm_threshold(const std::int64_t* colsum, const std::int32_t* const f[3], const std::int32_t* const c[3],
                  int begin, int end, std::int64_t* thr) {
    HWY_DYNAMIC_DISPATCH(CmThreshold)(colsum, f, c, begin, end, thr);
}
std::int64_t cm_row(const std::int32_t* x, const std::int64_t* thr, int begin, int cut, int end, std::uint32_t wt,
                    std::int64_t rcub, std::uint32_t scub) {
    return HWY_DYNAMIC_DISPATCH(CmRow)(x, thr, begin, cut, end, wt, rcub, scub);
}
}  // namespace

void set_levels_simd_kernels(RowKernels& k) {
    k.decouple_row = decouple_row;
    k.csf_row = csf_row;
    k.den_row = den_row;
    k.cm_colsum = cm_colsum;
    k.cm_threshold = cm_threshold;
    k.cm_row = cm_row;
}

std::int64_t levels_simd_target() { return HWY_DYNAMIC_DISPATCH(LevelsTarget)(); }

}  // namespace vmafx::adm
#endif  // HWY_ONCE
