// Integer ADM arithmetic shared by the CPU reference (adm_pipeline.cpp) and its CUDA twin
// (adm_cuda.cu): the constants, the per-sample step of every stage (DWT, decouple, CSF,
// denominator, contrast masking) and the geometry of the regions each stage covers. Written in
// the shared-arithmetic subset (base/shared_math.hpp: every function compiles as C++, as CUDA
// __host__ __device__ and as GLSL), so that each rounding, wrap and mirror exists once; the
// C++ adaptors at the end (constant tables, CmLayout's constructor, restore<Int>,
// decouple_column's pointer rows) hold no arithmetic of their own. Where
// upstream's AVX-512 kernels compute a column differently from its C kernels, both variants are
// here and the caller picks by column, as the CPU reference documents.
// Upstream: libvmaf 3.2.0 src/feature/integer_adm.c, integer_adm.h, x86/adm_avx512.c.
#ifndef VMAFX_FEATURE_ADM_ADM_MATH_HPP
#define VMAFX_FEATURE_ADM_ADM_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(adm)

// ---------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------

/// Fraction of each side of a band that does not count towards the scores: 0.1 (the double
/// nearest it: the quotient 1 / 10 rounds to the same double as the literal; GLSL cannot take a
/// double literal that is not a float through VMAFX_D).
VMAFX_CONST double kBorderFactor = VMAFX_D(1.0) / VMAFX_D(10.0);

/// Db2 analysis filters in Q15 (upstream integer_adm.h dwt2_db2_coeffs_lo / _hi), as scalars.
/// The low-pass taps sum to kLoSum.
VMAFX_CONST int32_t kLo0 = 15826;
VMAFX_CONST int32_t kLo1 = 27411;
VMAFX_CONST int32_t kLo2 = 7345;
VMAFX_CONST int32_t kLo3 = -4240;
VMAFX_CONST int32_t kHi0 = -4240;
VMAFX_CONST int32_t kHi1 = -7345;
VMAFX_CONST int32_t kHi2 = 27411;
VMAFX_CONST int32_t kHi3 = -15826;
VMAFX_CONST int32_t kLoSum = 46342;

/// Rounding added before the >> 16 of level 0's horizontal DWT pass.
VMAFX_CONST int32_t kDwt0RoundH = 32768;

VMAFX_CONST int32_t kOneBy15Q12 = 8738;                 ///< 1/15 in Q17, applied with >> 12 (level 0)
VMAFX_CONST int64_t kOneBy15Q32 = int64_t(286331153);  ///< 1/15 in Q32 (levels 1..3)
VMAFX_CONST int32_t kOneBy30Q17 = 4369;                 ///< 1/30 in Q17, applied with >> 12 (level 0)
VMAFX_CONST int64_t kOneBy30Q32 = int64_t(143165577);  ///< 1/30 in Q32 (levels 1..3)
/// Upstream's rounding constant before ">> 32" at levels 1..3: (int32_t)(1u << 31).
VMAFX_CONST int64_t kRound32 = int64_t(-2147483647) - int64_t(1);

/// cos(1 degree)^2 as upstream's float: (float)(cos(pi / 180) * cos(pi / 180)) in double
/// (0x1.ffd814p-1, written as its exact decimal value; adm_cuda_test.cpp checks it against
/// that expression).
VMAFX_CONST float kCos1DegSq = 0.99969542026519775390625f;

// ---------------------------------------------------------------------------------------
// Integer helpers
// ---------------------------------------------------------------------------------------

/// abs() as x86 computes it: INT32_MIN stays INT32_MIN.
VMAFX_CONSTEXPR_FN int32_t abs32(int32_t x) { return int32_t(x < 0 ? 0u - uint32_t(x) : uint32_t(x)); }

/// Arithmetic shift right of a 64-bit value written with logical shifts, which vectorise on
/// AVX2 (it has no 64-bit arithmetic shift). Same as v >> s for s < 64.
VMAFX_CONSTEXPR_FN int64_t sar64(int64_t v, uint32_t s) {
    return int64_t(((uint64_t(v) ^ (v < 0 ? ~uint64_t(0) : uint64_t(0))) >> s) ^ (v < 0 ? ~uint64_t(0) : uint64_t(0)));
}

/// Number of leading zero bits of a 32-bit word (32 for 0).
VMAFX_FN int leading_zeros32(uint32_t x) { return vmafx_clz32(x); }

/// 2^30 / i for i in 1..32768, truncated (upstream's div_lookup entries; the double quotient
/// truncates to the integer quotient for every such i).
VMAFX_FN int32_t recip30(int32_t i) { return int32_t(vmafx_div_d(VMAFX_D(1073741824.0), double(i))); }

// ---------------------------------------------------------------------------------------
// Geometry
// ---------------------------------------------------------------------------------------

/// Rows [top, bottom) x columns [left, right) of a band.
struct Region {
    int left, top, right, bottom;
};

/// The region of a w x h band that counts towards the scores: a border of 10% (rounded)
/// excluded on each side (upstream: left = w * ADM_BORDER_FACTOR - 0.5, right = w - left).
VMAFX_FN Region score_region(int w, int h) {
    Region r;
    r.left = int(double(w) * kBorderFactor - VMAFX_D(0.5));
    r.top = int(double(h) * kBorderFactor - VMAFX_D(0.5));
    r.right = w - r.left;
    r.bottom = h - r.top;
    return r;
}

/// The score region grown by one filter tap on each side and clipped to the band: where
/// decouple and csf compute (upstream: left = w * 0.1 - 0.5 - 1, right = w - left + 2).
VMAFX_FN Region tap_region(int w, int h) {
    const int left = int(double(w) * kBorderFactor - VMAFX_D(0.5) - VMAFX_D(1.0));
    const int top = int(double(h) * kBorderFactor - VMAFX_D(0.5) - VMAFX_D(1.0));
    const int right = w - left + 2;
    const int bottom = h - top + 2;
    Region r;
    r.left = left > 0 ? left : 0;
    r.top = top > 0 ? top : 0;
    r.right = right < w ? right : w;
    r.bottom = bottom < h ? bottom : h;
    return r;
}

/// First column of the tail a `lanes`-wide vector loop over [left, right) leaves to scalar
/// code (upstream's AVX-512 kernels: the columns before it are computed the vector way).
VMAFX_CONSTEXPR_FN int vector_end(int left, int right, int lanes) { return right - (right - left) % lanes; }

/// Input position read by a DWT tap at position p (2i-1 .. 2i+2 for output i) of a pass over
/// n inputs: mirrored at both ends (-1 -> 1; n -> n-1, n+1 -> n-2; upstream
/// dwt2_src_indices_filt). Needs n >= 3.
VMAFX_CONSTEXPR_FN int dwt_mirror(int p, int n) { return p < 0 ? -p : (p >= n ? 2 * n - p - 1 : p); }

/// Whether the last output of a horizontal DWT pass over n inputs reads its taps past the end
/// of its row unmirrored, as upstream's AVX-512 kernel does when it runs in blocks of `block`
/// outputs from output 1 and its last block ends exactly at the last output (block 0: never).
/// Position n + k then reads element k of the next row of upstream's scratch buffer.
VMAFX_CONSTEXPR_FN bool dwt_reads_past_row(int n, int block) {
    return block > 0 && (n + 1) / 2 > 1 && ((n + 1) / 2 - 1) % block == 0;
}

/// Rows and columns a contrast-masking pass visits, as upstream's adm_cm: the score region,
/// whose first/last row and column are only visited when the region reaches the band's edge
/// (where the 3x3 masking neighbourhood is mirrored: -1 -> 1, n -> n-1). The visited rows and
/// columns are each one range, [row_begin, row_end) and [col_begin, col_end) (upstream visits
/// the rows in ascending order too: row 0, its middle loop, row h-1). Made by cm_bounds (C++:
/// CmLayout's constructor).
struct CmBounds {
    Region rg;
    int start_col, end_col, start_row, end_row;  ///< upstream's inner ranges
    int col_begin, col_end;                      ///< all visited columns
    int row_begin, row_end;                      ///< all visited rows
};

/// The contrast-masking ranges of a w x h band.
VMAFX_FN CmBounds cm_bounds(int w, int h) {
    CmBounds b;
    b.rg = score_region(w, h);
    b.start_col = b.rg.left > 1 ? b.rg.left : 1;
    b.end_col = b.rg.right < w - 1 ? b.rg.right : w - 1;
    b.start_row = b.rg.top > 1 ? b.rg.top : 1;
    b.end_row = b.rg.bottom < h - 1 ? b.rg.bottom : h - 1;
    b.col_begin = b.rg.left <= 0 ? 0 : b.start_col;
    b.col_end = b.rg.right > w - 1 ? w : b.end_col;
    b.row_begin = b.rg.top <= 0 ? 0 : b.start_row;
    b.row_end = b.rg.bottom > h - 1 ? h : b.end_row;
    return b;
}

/// Whether row i is one of upstream's middle loop, the only ones its AVX-512 kernels
/// vectorise.
VMAFX_FN bool cm_inner_row(VMAFX_IN(CmBounds, b), int i) { return i >= b.start_row && i < b.end_row; }

/// First column the scalar code of upstream's AVX-512 kernel computes in row i, for vectors of
/// `lanes` columns: columns [col_begin, cut) are computed the vector way.
VMAFX_FN int cm_vector_cut(VMAFX_IN(CmBounds, b), int i, int lanes) {
    return cm_inner_row(b, i) && b.rg.left > 0 ? b.end_col - (b.end_col - b.start_col) % lanes : b.col_begin;
}

// ---------------------------------------------------------------------------------------
// DWT (upstream adm_dwt2_8 / adm_dwt2_16 / adm_dwt2_s123_combined and their AVX-512 versions)
// ---------------------------------------------------------------------------------------

/// Level 0 vertical low pass of one column: samples r0..r3 of the rows read by the taps,
/// summed modulo 2^32 as upstream's int32 sums; the result moved to a signed range and kept in
/// Q(16 - bit_depth) with rounding.
VMAFX_FN int16_t dwt0_vertical_lo(uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3, int bit_depth) {
    const uint32_t round = 1u << (bit_depth - 1);
    const uint32_t offset = round - uint32_t(kLoSum) * round;
    const uint32_t s = uint32_t(kLo0) * r0 + uint32_t(kLo1) * r1 + uint32_t(kLo2) * r2 + uint32_t(kLo3) * r3;
    return int16_t(int32_t(s + offset) >> bit_depth);
}

/// Level 0 vertical high pass of one column (as dwt0_vertical_lo, without the offset).
VMAFX_FN int16_t dwt0_vertical_hi(uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3, int bit_depth) {
    const uint32_t round = 1u << (bit_depth - 1);
    const uint32_t s = uint32_t(kHi0) * r0 + uint32_t(kHi1) * r1 + uint32_t(kHi2) * r2 + uint32_t(kHi3) * r3;
    return int16_t(int32_t(s + round) >> bit_depth);
}

/// Level 0 horizontal low-pass taps of vertical results p0..p3, before the rounding: a sum that
/// fits 32 bits (with the rounding added too).
VMAFX_FN int32_t dwt0_taps_lo(int32_t p0, int32_t p1, int32_t p2, int32_t p3) {
    return kLo0 * p0 + kLo1 * p1 + kLo2 * p2 + kLo3 * p3;
}

/// Level 0 horizontal high-pass taps (as dwt0_taps_lo).
VMAFX_FN int32_t dwt0_taps_hi(int32_t p0, int32_t p1, int32_t p2, int32_t p3) {
    return kHi0 * p0 + kHi1 * p1 + kHi2 * p2 + kHi3 * p3;
}

/// Level 0 horizontal low pass of vertical results p0..p3: the taps rounded with kDwt0RoundH
/// before >> 16, one band coefficient. (The CUDA twin's planted kRoundingConstant is its own
/// variant on dwt0_taps_lo/_hi, adm_cuda_kernels.cuh; levels 1..3 take their rounding as an
/// argument of dwt_lo/dwt_hi because it differs by level.)
VMAFX_FN int16_t dwt0_horizontal_lo(int32_t p0, int32_t p1, int32_t p2, int32_t p3) {
    return int16_t((dwt0_taps_lo(p0, p1, p2, p3) + kDwt0RoundH) >> 16);
}

/// Level 0 horizontal high pass (as dwt0_horizontal_lo).
VMAFX_FN int16_t dwt0_horizontal_hi(int32_t p0, int32_t p1, int32_t p2, int32_t p3) {
    return int16_t((dwt0_taps_hi(p0, p1, p2, p3) + kDwt0RoundH) >> 16);
}

/// Levels 1..3 low pass (vertical or horizontal) of s0..s3 in 64 bits, rounded and shifted
/// (kDwtRoundV/kDwtShiftV or kDwtRoundH/kDwtShiftH of the level), truncated to 32 bits.
VMAFX_FN int32_t dwt_lo(int64_t s0, int64_t s1, int64_t s2, int64_t s3, int64_t round, uint32_t shift) {
    return int32_t(
        sar64(int64_t(kLo0) * s0 + int64_t(kLo1) * s1 + int64_t(kLo2) * s2 + int64_t(kLo3) * s3 + round, shift));
}

/// Levels 1..3 high pass (as dwt_lo).
VMAFX_FN int32_t dwt_hi(int64_t s0, int64_t s1, int64_t s2, int64_t s3, int64_t round, uint32_t shift) {
    return int32_t(
        sar64(int64_t(kHi0) * s0 + int64_t(kHi1) * s1 + int64_t(kHi2) * s2 + int64_t(kHi3) * s3 + round, shift));
}

// ---------------------------------------------------------------------------------------
// Decouple (upstream adm_decouple / adm_decouple_s123 and their AVX-512 versions)
// ---------------------------------------------------------------------------------------

/// a * b + c * d in 64 bits for 32-bit a, b, c, d: each product is exact (at most 2^62); their
/// sum reaches 2^63 only where all four are -2^31, and wraps there as upstream's int64 sum does
/// on x86 (added as unsigned: defined behaviour, the same bits).
VMAFX_FN int64_t dot2_wrapping(int64_t a, int64_t b, int64_t c, int64_t d) {
    return int64_t(uint64_t(a * b) + uint64_t(c * d));
}

/// Whether the reference (oh, ov) and distorted (th, tv) gradient directions are within 1
/// degree, from exact 64-bit dot products (upstream's C expression; int32 inputs).
VMAFX_FN bool same_direction(int64_t oh, int64_t ov, int64_t th, int64_t tv) {
    const int64_t ot_dp = dot2_wrapping(oh, th, ov, tv);
    const int64_t o_mag_sq = dot2_wrapping(oh, oh, ov, ov);
    const int64_t t_mag_sq = dot2_wrapping(th, th, tv, tv);
    const double dp = vmafx_div_d(double(float(ot_dp)), VMAFX_D(4096.0));
    const double om = vmafx_div_d(double(float(o_mag_sq)), VMAFX_D(4096.0));
    const double tm = vmafx_div_d(double(float(t_mag_sq)), VMAFX_D(4096.0));
    return dp >= VMAFX_D(0.0) && dp * dp >= double(kCos1DegSq) * om * tm;
}

/// a * b + c * d of 16-bit values summed in 32 bits, wrapping at 2^31 (adm_decouple_avx512's
/// dot products).
VMAFX_FN int32_t dot2_wrapping32(int32_t a, int32_t b, int32_t c, int32_t d) {
    return int32_t(uint32_t(a * b) + uint32_t(c * d));
}

/// The same test as adm_decouple_avx512 computes it: 16-bit dot products summed in 32 bits
/// (they wrap at 2^31), and the right side multiplied in the order (|o|^2 |t|^2) cos^2.
VMAFX_FN bool same_direction_avx512(int32_t oh, int32_t ov, int32_t th, int32_t tv) {
    const float dp = float(dot2_wrapping32(oh, th, ov, tv)) * (1.0f / 4096.0f);
    const float om = float(dot2_wrapping32(oh, oh, ov, ov)) * (1.0f / 4096.0f);
    const float tm = float(dot2_wrapping32(th, th, tv, tv)) * (1.0f / 4096.0f);
    const double dpd = double(dp);
    return (dp >= 0.0f) && (dpd * dpd >= (double(om) * double(tm)) * double(kCos1DegSq));
}

/// Level 0: k = t / o in Q15 clipped to [0, 1] (32768 where o is 0), as
/// (div_lookup[o] * t + 16384) >> 15 computed in 32-bit pieces: the table entry 2^30 / |o|
/// split as hi * 2^15 + lo. o and t are 16-bit coefficients. (Plain ternaries: the CPU loop
/// vectorises.)
VMAFX_FN int32_t decouple0_k(int32_t o, int32_t t) {
    const int32_t mag = o < 0 ? -o : o;
    const int32_t recip = recip30(mag > 1 ? mag : 1);
    const int32_t lookup_o = o < 0 ? -recip : recip;
    int32_t k = (lookup_o >> 15) * t + (((lookup_o & 0x7FFF) * t + 16384) >> 15);
    k = o == 0 ? 32768 : k;
    k = k < 0 ? 0 : k;
    return k > 32768 ? 32768 : k;
}

/// Levels 1..3: k = t / o in Q15 clipped to [0, 1] (32768 where o is 0); o has up to 31 bits,
/// so the division uses a 15-bit rounding of |o| (upstream get_best15_from32, its 16-bit
/// truncation written as a mask) and a compensating shift.
VMAFX_FN int64_t decouple_k(int32_t o, int32_t t) {
    if (o == 0) return int64_t(32768);
    const uint32_t abs_o = uint32_t(abs32(o));
    uint32_t msb = abs_o;
    int shift = 0;
    if (abs_o >= 32768u) {
        shift = 17 - leading_zeros32(abs_o);
        msb = ((abs_o + (1u << (shift - 1))) >> shift) & 0xFFFFu;
    }
    const int64_t sign = int64_t(o < 0 ? -1 : 1);
    const int64_t k =
        ((int64_t(recip30(int32_t(msb))) * int64_t(t)) * sign + (int64_t(1) << (14 + shift))) >> (15 + shift);
    return k < int64_t(0) ? int64_t(0) : (k > int64_t(32768) ? int64_t(32768) : k);
}

/// The restored part of distorted coefficient t given reference coefficient o, from its
/// plain value rst = k * o: when the directions agree, an enhancement (|t| > |o|) is restored
/// up to egl times. `nearest`: the gain product is rounded to nearest (ties to even) as the
/// AVX-512 kernels do (C truncates); both agree for integer egl. (C++: restore<int32_t>.)
/// o is compared as the 32-bit value it is: lavapipe (Mesa 22.3.6) evaluates a comparison of a
/// sign-extended 32-bit value with a constant wrongly (o > 0 true for o = -12858 and o = 0;
/// found by tests/shader's SharedMathShader.AdmMathMatchesCpuBitForBit).
VMAFX_FN int32_t restore32(int32_t rst, int32_t t, int32_t k, int32_t o, bool same_dir, double egl, bool nearest) {
    if (!same_dir || k <= 0 || o == 0) return rst;
    const double g = double(rst) * egl;
    const int64_t gi = nearest ? int64_t(vmafx_round_even(g)) : int64_t(g);
    const int64_t tt = int64_t(t);
    return int32_t(o > 0 ? (gi < tt ? gi : tt) : (gi > tt ? gi : tt));
}

/// Level 0 restore() for an integer gain limit `egl` (the product is exact in 32 bits): the
/// same value without floating point. `same_mask`: -1 where the directions agree, else 0.
/// (A bit-mask blend: the CPU loop vectorises.)
VMAFX_FN int32_t restore0_integer_gain(int32_t rst, int32_t t, int32_t k, int32_t o, int32_t same_mask, int32_t egl) {
    const int32_t gain = rst * egl;
    const int32_t limited = o > 0 ? (gain < t ? gain : t) : (gain > t ? gain : t);
    const int32_t apply = same_mask & (k > 0 ? -1 : 0) & (o != 0 ? -1 : 0);
    return rst ^ ((rst ^ limited) & apply);
}

/// Level 0 plain restored value k * o (Q15 product, rounded).
VMAFX_FN int32_t restored0(int32_t k, int32_t o) { return (k * o + 16384) >> 15; }

/// Levels 1..3 plain restored value k * o.
VMAFX_FN int32_t restored(int64_t k, int32_t o) { return int32_t((k * int64_t(o) + int64_t(16384)) >> 15); }

/// Levels 1..3 decouple of one coefficient with an integer gain limit egl (the gain product is
/// then exact, so its rounding does not matter): the restored part of distorted coefficient tv
/// given reference ov, the directions of the sample agreeing or not (same_dir).
VMAFX_FN int32_t decouple_restored(int32_t ov, int32_t tv, bool same_dir, int32_t egl) {
    const int64_t k = decouple_k(ov, tv);
    return restore32(restored(k, ov), tv, int32_t(k), ov, same_dir, double(egl), false);
}

/// The additive part t - r of a coefficient, modulo 2^32.
VMAFX_FN int32_t additive(int32_t t, int32_t r) { return int32_t(uint32_t(t) - uint32_t(r)); }

// ---------------------------------------------------------------------------------------
// CSF weighting (upstream adm_csf / i4_adm_csf and their AVX-512 versions)
// ---------------------------------------------------------------------------------------

/// Level 0: coefficient s of orientation theta (0 h, 1 v, 2 d) times its Q16-ish weight wt,
/// rounded and shifted (>> 15, 15, 17), in 32 bits; callers narrow it to 16 bits.
VMAFX_FN int32_t csf0_weight(int32_t s, int32_t wt, int theta) {
    const int32_t round = theta == 2 ? 65535 : 16384;
    const int shift = theta == 2 ? 17 : 15;
    return (wt * s + round) >> shift;
}

/// Level 0 masking filter input |v| / 30, narrowed to 16 bits. The AVX-512 columns pass the
/// 32-bit weighted value, the C columns the 16-bit one.
VMAFX_FN int16_t csf0_filter(int32_t v) { return int16_t((kOneBy30Q17 * abs32(v) + 2048) >> 12); }

/// Levels 1..3: s times weight wt (Q32; the AVX-512 columns read the weight as a signed
/// 32-bit value, the C columns as unsigned), >> 28 with rounding, truncated to 32 bits.
VMAFX_FN int32_t csf_weight(int32_t s, int64_t wt) {
    return int32_t(sar64(wt * int64_t(s) + (int64_t(1) << 27), 28u));
}

/// Levels 1..3 masking filter input |v| / 30.
VMAFX_FN int32_t csf_filter(int32_t v) { return int32_t(sar64(kOneBy30Q32 * int64_t(abs32(v)) + kRound32, 32u)); }

// ---------------------------------------------------------------------------------------
// Denominator (upstream adm_csf_den_scale / adm_csf_den_s123)
// ---------------------------------------------------------------------------------------

/// Level 0 term of reference coefficient x: |x|^3 (|x| truncated to 16 bits).
VMAFX_FN uint64_t den0_cube(int32_t x) {
    const uint64_t m = uint64_t(uint32_t(abs32(x)) & 0xFFFFu);
    return m * m * m;
}

/// Levels 1..3 term of reference coefficient x: |x|^3 with the level's rounded shifts.
VMAFX_FN uint64_t den_cube(int32_t x, uint64_t round_sq, int shift_sq, uint64_t cub_round, uint32_t cub_shift) {
    const uint64_t m = uint64_t(uint32_t(abs32(x)));
    return ((((m * m) + round_sq) >> shift_sq) * m + cub_round) >> cub_shift;
}

// ---------------------------------------------------------------------------------------
// Contrast masking (upstream adm_cm / i4_adm_cm and their AVX-512 versions)
// ---------------------------------------------------------------------------------------

/// Level 0 masker term of a CSF-weighted coefficient c: |c| / 15 in 32 bits (the AVX-512
/// columns add it as is, the C columns narrowed to 16 bits).
VMAFX_FN int32_t cm0_centre_term(int32_t c) { return (kOneBy15Q12 * abs32(c) + 2048) >> 12; }

/// Level 0 term of coefficient x of orientation theta with weight wt: by how much its
/// weighted magnitude exceeds the masking threshold thr (modulo 2^32, as upstream), cubed with
/// the orientation's rounded shifts and the rounding/shift (rcub, scub) of the cube.
VMAFX_FN int64_t cm0_cube(int32_t x, int32_t wt, uint32_t thr, int theta, int64_t rcub, uint32_t scub) {
    const int sub = theta == 2 ? 12 : 10;
    const uint64_t round_sq = theta == 2 ? (uint64_t(1) << 29) : (uint64_t(1) << 28);
    const int shift_sq = theta == 2 ? 30 : 29;
    const int32_t xv = x * wt;
    int32_t m = int32_t(uint32_t(abs32(xv)) - (thr << sub));
    m = m > 0 ? m : 0;
    const int64_t sq = int64_t(int32_t((uint64_t(int64_t(m) * int64_t(m)) + round_sq) >> shift_sq));
    return sar64(sq * int64_t(m) + rcub, scub);
}

/// Levels 1..3 masker term of a CSF-weighted coefficient c: |c| / 15 (the magnitude read as
/// a signed 32-bit value by both kernels).
VMAFX_FN int64_t cm_centre_term(int32_t c) { return sar64(kOneBy15Q32 * int64_t(abs32(c)) + kRound32, 32u); }

/// Levels 1..3, AVX-512 columns: excess of the weighted magnitude of x (weight read as
/// signed) over the threshold, in 64 bits, clipped at 0 and truncated to 32 bits.
VMAFX_FN int32_t cm_excess_vector(int32_t x, int64_t wt_signed, int64_t thr) {
    const int64_t xv = sar64(int64_t(x) * wt_signed + (int64_t(1) << 27), 28u);
    const int64_t e = (xv < int64_t(0) ? -xv : xv) - thr;
    return int32_t(e > int64_t(0) ? e : int64_t(0));
}

/// Levels 1..3, C columns: the same with the weighted value and threshold wrapped to 32 bits.
VMAFX_FN int32_t cm_excess_scalar(int32_t x, int64_t wt_unsigned, int64_t thr) {
    const int32_t xv = int32_t(sar64(int64_t(x) * wt_unsigned + (int64_t(1) << 27), 28u));
    const int32_t e = int32_t(uint32_t(abs32(xv)) - uint32_t(thr));
    return e > 0 ? e : 0;
}

/// Levels 1..3: the excess m cubed with rounded shifts (rcub, scub of the level).
VMAFX_FN int64_t cm_cube(int32_t m, int64_t rcub, uint32_t scub) {
    const uint64_t round_sq = uint64_t(1) << 29;
    const int64_t sq = int64_t(int32_t((uint64_t(int64_t(m) * int64_t(m)) + round_sq) >> 30));
    return sar64(sq * int64_t(m) + rcub, scub);
}

// ---------------------------------------------------------------------------------------
// Row sums (upstream adm_csf_den_scale / adm_csf_den_s123 / adm_cm / i4_adm_cm: each row's sum
// is rounded and shifted before the rows are added)
// ---------------------------------------------------------------------------------------

/// A row's sum of denominator cubes, rounded and shifted (the level's row Shift).
VMAFX_FN uint64_t den_row_rounded(uint64_t row_sum, uint64_t round, uint32_t shift) {
    return (row_sum + round) >> shift;
}

/// A row's sum of contrast-masking cubes, rounded and arithmetically shifted (the level's row
/// Shift).
VMAFX_FN int64_t cm_row_rounded(int64_t row_sum, int64_t round, uint32_t shift) { return sar64(row_sum + round, shift); }

VMAFX_NAMESPACE_END

#if !VMAFX_GLSL
namespace vmafx::adm {

// C++ adaptors: tables, a constructor, a template and a pointer loop over the functions above,
// with no arithmetic of their own.

/// The filters as arrays (host loops).
inline constexpr int32_t kLo[4] = {kLo0, kLo1, kLo2, kLo3};
inline constexpr int32_t kHi[4] = {kHi0, kHi1, kHi2, kHi3};

/// Rounding and shift of the vertical and horizontal DWT passes of levels 1..3 (index
/// level - 1; upstream adm_dwt2_s123_combined).
inline constexpr int64_t kDwtRoundV[3] = {0, 32768, 32768};
inline constexpr uint32_t kDwtShiftV[3] = {0, 16, 16};
inline constexpr int64_t kDwtRoundH[3] = {16384, 32768, 16384};
inline constexpr uint32_t kDwtShiftH[3] = {15, 16, 15};

/// Denominator of levels 1..3 (upstream adm_csf_den_s123): shift of the square and the
/// pending shift of the sum of cubes, by level - 1.
inline constexpr int kDenShiftSq[3] = {31, 30, 31};
inline constexpr uint32_t kDenUnshift[3] = {32, 27, 23};
/// Contrast masking of levels 1..3 (upstream i4_adm_cm): pending shift of the sum, by level - 1.
inline constexpr uint32_t kCmPending[3] = {45, 39, 36};

/// cm_bounds as a constructor, cm_inner_row and cm_vector_cut as members.
struct CmLayout : CmBounds {
    CmLayout() = default;
    VMAFX_HOST_DEVICE CmLayout(int w, int h) : CmBounds(cm_bounds(w, h)) {}
    VMAFX_HOST_DEVICE bool inner_row(int i) const { return cm_inner_row(*this, i); }
    VMAFX_HOST_DEVICE int vector_cut(int i, int lanes) const { return cm_vector_cut(*this, i, lanes); }
};

/// restore32 for the callers' Int (int32_t).
template <typename Int>
VMAFX_HOST_DEVICE inline Int restore(Int rst, Int t, int32_t k, int32_t o, bool same_dir, double egl, bool nearest) {
    static_assert(sizeof(Int) == 4, "restore: 32-bit coefficients");
    return restore32(rst, t, k, o, same_dir, egl, nearest);
}

/// Levels 1..3 decouple of column j of the three orientations (0 h, 1 v, 2 d) of reference o
/// and distorted t with an integer gain limit egl: the restored part r[theta][j]
/// (decouple_restored) and the additive part a[theta][j] (additive).
VMAFX_HOST_DEVICE inline void decouple_column(const int32_t* const o[3], const int32_t* const t[3], int j,
                                              int32_t egl, int32_t* const r[3], int32_t* const a[3]) {
    const bool same_dir = same_direction(o[0][j], o[1][j], t[0][j], t[1][j]);
    for (int theta = 0; theta < 3; ++theta) {
        r[theta][j] = decouple_restored(o[theta][j], t[theta][j], same_dir, egl);
        a[theta][j] = additive(t[theta][j], r[theta][j]);
    }
}

}  // namespace vmafx::adm
#endif

#endif  // VMAFX_FEATURE_ADM_ADM_MATH_HPP
