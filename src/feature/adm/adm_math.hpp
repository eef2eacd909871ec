// Integer ADM arithmetic shared by the CPU reference (adm_pipeline.cpp) and its CUDA twin
// (adm_cuda.cu): the constants, the per-sample step of every stage (DWT, decouple, CSF,
// denominator, contrast masking) and the geometry of the regions each stage covers. Every
// function is __host__ __device__ under nvcc, so that each rounding, wrap and mirror exists
// once. Where upstream's AVX-512 kernels compute a column differently from its C kernels, both
// variants are here and the caller picks by column, as the CPU reference documents.
// Upstream: libvmaf 3.2.0 src/feature/integer_adm.c, integer_adm.h, x86/adm_avx512.c.
#pragma once

#include "base/host_device.hpp"

#include <cmath>
#include <cstdint>


namespace vmafx::adm {

// ---------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------

/// Fraction of each side of a band that does not count towards the scores.
inline constexpr double kBorderFactor = 0.1;

/// Db2 analysis filters in Q15 (upstream integer_adm.h dwt2_db2_coeffs_lo / _hi), as scalars
/// (usable in device code) and as arrays (host loops). The low-pass taps sum to kLoSum.
inline constexpr std::int32_t kLo0 = 15826, kLo1 = 27411, kLo2 = 7345, kLo3 = -4240;
inline constexpr std::int32_t kHi0 = -4240, kHi1 = -7345, kHi2 = 27411, kHi3 = -15826;
inline constexpr std::int32_t kLo[4] = {kLo0, kLo1, kLo2, kLo3};
inline constexpr std::int32_t kHi[4] = {kHi0, kHi1, kHi2, kHi3};
inline constexpr std::int32_t kLoSum = 46342;

/// Rounding added before the >> 16 of level 0's horizontal DWT pass.
inline constexpr std::int32_t kDwt0RoundH = 32768;

/// Rounding and shift of the vertical and horizontal DWT passes of levels 1..3 (index
/// level - 1; upstream adm_dwt2_s123_combined).
inline constexpr std::int64_t kDwtRoundV[3] = {0, 32768, 32768};
inline constexpr std::uint32_t kDwtShiftV[3] = {0, 16, 16};
inline constexpr std::int64_t kDwtRoundH[3] = {16384, 32768, 16384};
inline constexpr std::uint32_t kDwtShiftH[3] = {15, 16, 15};

inline constexpr std::int32_t kOneBy15Q12 = 8738;       ///< 1/15 in Q17, applied with >> 12 (level 0)
inline constexpr std::int64_t kOneBy15Q32 = 286331153;  ///< 1/15 in Q32 (levels 1..3)
inline constexpr std::int32_t kOneBy30Q17 = 4369;       ///< 1/30 in Q17, applied with >> 12 (level 0)
inline constexpr std::int64_t kOneBy30Q32 = 143165577;  ///< 1/30 in Q32 (levels 1..3)
/// Upstream's rounding constant before ">> 32" at levels 1..3: (int32_t)(1u << 31).
inline constexpr std::int64_t kRound32 = -2147483647 - 1;

/// cos(1 degree)^2 as upstream's float: (float)(cos(pi / 180) * cos(pi / 180)) in double
/// (0.99969542...; tests/test_adm_cuda.cpp checks the literal against that expression).
inline constexpr float kCos1DegSq = 0x1.ffd814p-1f;

/// Denominator of levels 1..3 (upstream adm_csf_den_s123): shift of the square and the
/// pending shift of the sum of cubes, by level - 1.
inline constexpr int kDenShiftSq[3] = {31, 30, 31};
inline constexpr std::uint32_t kDenUnshift[3] = {32, 27, 23};
/// Contrast masking of levels 1..3 (upstream i4_adm_cm): pending shift of the sum, by level - 1.
inline constexpr std::uint32_t kCmPending[3] = {45, 39, 36};

// ---------------------------------------------------------------------------------------
// Integer helpers
// ---------------------------------------------------------------------------------------

/// abs() as x86 computes it: INT32_MIN stays INT32_MIN.
VMAFX_HOST_DEVICE constexpr std::int32_t abs32(std::int32_t x) {
    return static_cast<std::int32_t>(x < 0 ? 0u - static_cast<std::uint32_t>(x) : static_cast<std::uint32_t>(x));
}

/// Arithmetic shift right of a 64-bit value written with logical shifts, which vectorise on
/// AVX2 (it has no 64-bit arithmetic shift). Same as v >> s for s < 64.
VMAFX_HOST_DEVICE constexpr std::int64_t sar64(std::int64_t v, std::uint32_t s) {
    const std::uint64_t sign = v < 0 ? ~std::uint64_t{0} : 0;
    return static_cast<std::int64_t>(((static_cast<std::uint64_t>(v) ^ sign) >> s) ^ sign);
}

/// Number of leading zero bits of a 32-bit word (32 for 0).
VMAFX_HOST_DEVICE inline int leading_zeros32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __clz(static_cast<int>(x));
#else
    return x == 0 ? 32 : __builtin_clz(x);
#endif
}

/// 2^30 / i for i in 1..32768, truncated (upstream's div_lookup entries; the double quotient
/// truncates to the integer quotient for every such i).
VMAFX_HOST_DEVICE inline std::int32_t recip30(std::int32_t i) {
    return static_cast<std::int32_t>(1073741824.0 / static_cast<double>(i));
}

// ---------------------------------------------------------------------------------------
// Geometry
// ---------------------------------------------------------------------------------------

/// Rows [top, bottom) x columns [left, right) of a band.
struct Region {
    int left, top, right, bottom;
};

/// The region of a w x h band that counts towards the scores: a border of 10% (rounded)
/// excluded on each side (upstream: left = w * ADM_BORDER_FACTOR - 0.5, right = w - left).
VMAFX_HOST_DEVICE inline Region score_region(int w, int h) {
    const int left = static_cast<int>(w * kBorderFactor - 0.5);
    const int top = static_cast<int>(h * kBorderFactor - 0.5);
    return {left, top, w - left, h - top};
}

/// The score region grown by one filter tap on each side and clipped to the band: where
/// decouple and csf compute (upstream: left = w * 0.1 - 0.5 - 1, right = w - left + 2).
VMAFX_HOST_DEVICE inline Region tap_region(int w, int h) {
    const int left = static_cast<int>(w * kBorderFactor - 0.5 - 1);
    const int top = static_cast<int>(h * kBorderFactor - 0.5 - 1);
    const int right = w - left + 2;
    const int bottom = h - top + 2;
    return {left > 0 ? left : 0, top > 0 ? top : 0, right < w ? right : w, bottom < h ? bottom : h};
}

/// First column of the tail a `lanes`-wide vector loop over [left, right) leaves to scalar
/// code (upstream's AVX-512 kernels: the columns before it are computed the vector way).
VMAFX_HOST_DEVICE constexpr int vector_end(int left, int right, int lanes) { return right - (right - left) % lanes; }

/// Input position read by a DWT tap at position p (2i-1 .. 2i+2 for output i) of a pass over
/// n inputs: mirrored at both ends (-1 -> 1; n -> n-1, n+1 -> n-2; upstream
/// dwt2_src_indices_filt). Needs n >= 3.
VMAFX_HOST_DEVICE constexpr int dwt_mirror(int p, int n) { return p < 0 ? -p : (p >= n ? 2 * n - p - 1 : p); }

/// Whether the last output of a horizontal DWT pass over n inputs reads its taps past the end
/// of its row unmirrored, as upstream's AVX-512 kernel does when it runs in blocks of `block`
/// outputs from output 1 and its last block ends exactly at the last output (block 0: never).
/// Position n + k then reads element k of the next row of upstream's scratch buffer.
VMAFX_HOST_DEVICE constexpr bool dwt_reads_past_row(int n, int block) {
    const int half = (n + 1) / 2;
    return block > 0 && half > 1 && (half - 1) % block == 0;
}

/// Rows and columns a contrast-masking pass visits, as upstream's adm_cm: the score region,
/// whose first/last row and column are only visited when the region reaches the band's edge
/// (where the 3x3 masking neighbourhood is mirrored: -1 -> 1, n -> n-1). The visited rows and
/// columns are each one range, [row_begin, row_end) and [col_begin, col_end) (upstream visits
/// the rows in ascending order too: row 0, its middle loop, row h-1).
struct CmLayout {
    Region rg;
    int start_col, end_col, start_row, end_row;  ///< upstream's inner ranges
    int col_begin, col_end;                      ///< all visited columns
    int row_begin, row_end;                      ///< all visited rows
    CmLayout() = default;
    VMAFX_HOST_DEVICE CmLayout(int w, int h) : rg(score_region(w, h)) {
        start_col = rg.left > 1 ? rg.left : 1;
        end_col = rg.right < w - 1 ? rg.right : w - 1;
        start_row = rg.top > 1 ? rg.top : 1;
        end_row = rg.bottom < h - 1 ? rg.bottom : h - 1;
        col_begin = rg.left <= 0 ? 0 : start_col;
        col_end = rg.right > w - 1 ? w : end_col;
        row_begin = rg.top <= 0 ? 0 : start_row;
        row_end = rg.bottom > h - 1 ? h : end_row;
    }
    /// Whether row i is one of upstream's middle loop, the only ones its AVX-512 kernels
    /// vectorise.
    VMAFX_HOST_DEVICE bool inner_row(int i) const { return i >= start_row && i < end_row; }
    /// First column the scalar code of upstream's AVX-512 kernel computes in row i, for
    /// vectors of `lanes` columns: columns [col_begin, cut) are computed the vector way.
    VMAFX_HOST_DEVICE int vector_cut(int i, int lanes) const {
        return inner_row(i) && rg.left > 0 ? end_col - (end_col - start_col) % lanes : col_begin;
    }
};

// ---------------------------------------------------------------------------------------
// DWT (upstream adm_dwt2_8 / adm_dwt2_16 / adm_dwt2_s123_combined and their AVX-512 versions)
// ---------------------------------------------------------------------------------------

/// Level 0 vertical low pass of one column: samples r0..r3 of the rows read by the taps,
/// summed modulo 2^32 as upstream's int32 sums; the result moved to a signed range and kept in
/// Q(16 - bit_depth) with rounding.
VMAFX_HOST_DEVICE inline std::int16_t dwt0_vertical_lo(std::uint32_t r0, std::uint32_t r1, std::uint32_t r2,
                                                  std::uint32_t r3, int bit_depth) {
    const std::uint32_t round = 1u << (bit_depth - 1);
    const std::uint32_t offset = round - static_cast<std::uint32_t>(kLoSum) * round;
    const std::uint32_t s = static_cast<std::uint32_t>(kLo0) * r0 + static_cast<std::uint32_t>(kLo1) * r1 +
                            static_cast<std::uint32_t>(kLo2) * r2 + static_cast<std::uint32_t>(kLo3) * r3;
    return static_cast<std::int16_t>(static_cast<std::int32_t>(s + offset) >> bit_depth);
}

/// Level 0 vertical high pass of one column (as dwt0_vertical_lo, without the offset).
VMAFX_HOST_DEVICE inline std::int16_t dwt0_vertical_hi(std::uint32_t r0, std::uint32_t r1, std::uint32_t r2,
                                                  std::uint32_t r3, int bit_depth) {
    const std::uint32_t round = 1u << (bit_depth - 1);
    const std::uint32_t s = static_cast<std::uint32_t>(kHi0) * r0 + static_cast<std::uint32_t>(kHi1) * r1 +
                            static_cast<std::uint32_t>(kHi2) * r2 + static_cast<std::uint32_t>(kHi3) * r3;
    return static_cast<std::int16_t>(static_cast<std::int32_t>(s + round) >> bit_depth);
}

/// Level 0 horizontal low pass of vertical results p0..p3 (the sum fits 32 bits), Q16
/// rounding: one band coefficient. `round` is kDwt0RoundH.
VMAFX_HOST_DEVICE inline std::int16_t dwt0_horizontal_lo(std::int32_t p0, std::int32_t p1, std::int32_t p2,
                                                    std::int32_t p3, std::int32_t round = kDwt0RoundH) {
    return static_cast<std::int16_t>((kLo0 * p0 + kLo1 * p1 + kLo2 * p2 + kLo3 * p3 + round) >> 16);
}

/// Level 0 horizontal high pass (as dwt0_horizontal_lo).
VMAFX_HOST_DEVICE inline std::int16_t dwt0_horizontal_hi(std::int32_t p0, std::int32_t p1, std::int32_t p2,
                                                    std::int32_t p3, std::int32_t round = kDwt0RoundH) {
    return static_cast<std::int16_t>((kHi0 * p0 + kHi1 * p1 + kHi2 * p2 + kHi3 * p3 + round) >> 16);
}

/// Levels 1..3 low pass (vertical or horizontal) of s0..s3 in 64 bits, rounded and shifted
/// (kDwtRoundV/kDwtShiftV or kDwtRoundH/kDwtShiftH of the level), truncated to 32 bits.
VMAFX_HOST_DEVICE inline std::int32_t dwt_lo(std::int64_t s0, std::int64_t s1, std::int64_t s2, std::int64_t s3,
                                        std::int64_t round, std::uint32_t shift) {
    return static_cast<std::int32_t>(sar64(kLo0 * s0 + kLo1 * s1 + kLo2 * s2 + kLo3 * s3 + round, shift));
}

/// Levels 1..3 high pass (as dwt_lo).
VMAFX_HOST_DEVICE inline std::int32_t dwt_hi(std::int64_t s0, std::int64_t s1, std::int64_t s2, std::int64_t s3,
                                        std::int64_t round, std::uint32_t shift) {
    return static_cast<std::int32_t>(sar64(kHi0 * s0 + kHi1 * s1 + kHi2 * s2 + kHi3 * s3 + round, shift));
}

// ---------------------------------------------------------------------------------------
// Decouple (upstream adm_decouple / adm_decouple_s123 and their AVX-512 versions)
// ---------------------------------------------------------------------------------------

/// a * b + c * d in 64 bits for 32-bit a, b, c, d: each product is exact (at most 2^62); their
/// sum reaches 2^63 only where all four are -2^31, and wraps there as upstream's int64 sum does
/// on x86 (added as unsigned: defined behaviour, the same bits).
VMAFX_HOST_DEVICE inline std::int64_t dot2_wrapping(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a * b) + static_cast<std::uint64_t>(c * d));
}

/// Whether the reference (oh, ov) and distorted (th, tv) gradient directions are within 1
/// degree, from exact 64-bit dot products (upstream's C expression; int32 inputs).
VMAFX_HOST_DEVICE inline bool same_direction(std::int64_t oh, std::int64_t ov, std::int64_t th, std::int64_t tv) {
    const std::int64_t ot_dp = dot2_wrapping(oh, th, ov, tv);
    const std::int64_t o_mag_sq = dot2_wrapping(oh, oh, ov, ov);
    const std::int64_t t_mag_sq = dot2_wrapping(th, th, tv, tv);
    const double dp = static_cast<double>(static_cast<float>(ot_dp)) / 4096.0;
    const double om = static_cast<double>(static_cast<float>(o_mag_sq)) / 4096.0;
    const double tm = static_cast<double>(static_cast<float>(t_mag_sq)) / 4096.0;
    return dp >= 0.0f && dp * dp >= static_cast<double>(kCos1DegSq) * om * tm;
}

/// The same test as adm_decouple_avx512 computes it: 16-bit dot products summed in 32 bits
/// (they wrap at 2^31), and the right side multiplied in the order (|o|^2 |t|^2) cos^2.
VMAFX_HOST_DEVICE inline bool same_direction_avx512(std::int32_t oh, std::int32_t ov, std::int32_t th, std::int32_t tv) {
    const auto dot = [](std::int32_t a, std::int32_t b, std::int32_t c, std::int32_t d) {
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(a * b) + static_cast<std::uint32_t>(c * d));
    };
    const float dp = static_cast<float>(dot(oh, th, ov, tv)) * (1.0f / 4096.0f);
    const float om = static_cast<float>(dot(oh, oh, ov, ov)) * (1.0f / 4096.0f);
    const float tm = static_cast<float>(dot(th, th, tv, tv)) * (1.0f / 4096.0f);
    const double dpd = dp;
    return (dp >= 0.0f) &
           (dpd * dpd >= (static_cast<double>(om) * static_cast<double>(tm)) * static_cast<double>(kCos1DegSq));
}

/// Level 0: k = t / o in Q15 clipped to [0, 1] (32768 where o is 0), as
/// (div_lookup[o] * t + 16384) >> 15 computed in 32-bit pieces: the table entry 2^30 / |o|
/// split as hi * 2^15 + lo. o and t are 16-bit coefficients. (Plain ternaries: the CPU loop
/// vectorises.)
VMAFX_HOST_DEVICE inline std::int32_t decouple0_k(std::int32_t o, std::int32_t t) {
    const std::int32_t mag = o < 0 ? -o : o;
    const std::int32_t recip = recip30(mag > 1 ? mag : 1);
    const std::int32_t lookup_o = o < 0 ? -recip : recip;
    std::int32_t k = (lookup_o >> 15) * t + (((lookup_o & 0x7FFF) * t + 16384) >> 15);
    k = o == 0 ? 32768 : k;
    k = k < 0 ? 0 : k;
    return k > 32768 ? 32768 : k;
}

/// Levels 1..3: k = t / o in Q15 clipped to [0, 1] (32768 where o is 0); o has up to 31 bits,
/// so the division uses a 15-bit rounding of |o| (upstream get_best15_from32) and a
/// compensating shift.
VMAFX_HOST_DEVICE inline std::int64_t decouple_k(std::int32_t o, std::int32_t t) {
    if (o == 0) return 32768;
    const std::uint32_t abs_o = static_cast<std::uint32_t>(abs32(o));
    std::uint32_t msb = abs_o;
    int shift = 0;
    if (abs_o >= 32768) {
        shift = 17 - leading_zeros32(abs_o);
        msb = static_cast<std::uint16_t>((abs_o + (1u << (shift - 1))) >> shift);
    }
    const std::int64_t sign = o < 0 ? -1 : 1;
    const std::int64_t k = ((static_cast<std::int64_t>(recip30(static_cast<std::int32_t>(msb))) * t) * sign +
                            (std::int64_t{1} << (14 + shift))) >>
                           (15 + shift);
    return k < 0 ? 0 : (k > 32768 ? 32768 : k);
}

/// The restored part of distorted coefficient t given reference coefficient o, from its
/// plain value rst = k * o: when the directions agree, an enhancement (|t| > |o|) is restored
/// up to egl times. `nearest`: the gain product is rounded to nearest as the AVX-512 kernels
/// do (C truncates); both agree for integer egl.
template <typename Int>
VMAFX_HOST_DEVICE inline Int restore(Int rst, Int t, std::int32_t k, std::int64_t o, bool same_dir, double egl,
                                bool nearest) {
    if (!same_dir || k <= 0 || o == 0) return rst;
    const double g = static_cast<double>(rst) * egl;
#if defined(__CUDA_ARCH__)
    const std::int64_t gi = nearest ? static_cast<std::int64_t>(::nearbyint(g)) : static_cast<std::int64_t>(g);
#else
    const std::int64_t gi = nearest ? static_cast<std::int64_t>(std::nearbyint(g)) : static_cast<std::int64_t>(g);
#endif
    const std::int64_t tt = t;
    return static_cast<Int>(o > 0 ? (gi < tt ? gi : tt) : (gi > tt ? gi : tt));
}

/// Level 0 restore() for an integer gain limit `egl` (the product is exact in 32 bits): the
/// same value without floating point. `same_mask`: -1 where the directions agree, else 0.
/// (A bit-mask blend: the CPU loop vectorises.)
VMAFX_HOST_DEVICE inline std::int32_t restore0_integer_gain(std::int32_t rst, std::int32_t t, std::int32_t k,
                                                       std::int32_t o, std::int32_t same_mask, std::int32_t egl) {
    const std::int32_t gain = rst * egl;
    const std::int32_t limited = o > 0 ? (gain < t ? gain : t) : (gain > t ? gain : t);
    const std::int32_t apply = same_mask & (k > 0 ? -1 : 0) & (o != 0 ? -1 : 0);
    return rst ^ ((rst ^ limited) & apply);
}

/// Level 0 plain restored value k * o (Q15 product, rounded).
VMAFX_HOST_DEVICE inline std::int32_t restored0(std::int32_t k, std::int32_t o) { return (k * o + 16384) >> 15; }

/// Levels 1..3 plain restored value k * o.
VMAFX_HOST_DEVICE inline std::int32_t restored(std::int64_t k, std::int32_t o) {
    return static_cast<std::int32_t>((k * o + 16384) >> 15);
}

/// Levels 1..3 decouple of column j of the three orientations (0 h, 1 v, 2 d) of reference o
/// and distorted t with an integer gain limit egl (the gain product is then exact, so its
/// rounding does not matter): the restored part r[theta][j] and the additive part
/// a[theta][j] = t - r modulo 2^32.
VMAFX_HOST_DEVICE inline void decouple_column(const std::int32_t* const o[3], const std::int32_t* const t[3], int j,
                                         std::int32_t egl, std::int32_t* const r[3], std::int32_t* const a[3]) {
    const bool same_dir = same_direction(o[0][j], o[1][j], t[0][j], t[1][j]);
    for (int theta = 0; theta < 3; ++theta) {
        const std::int32_t ov = o[theta][j];
        const std::int32_t tv = t[theta][j];
        const std::int64_t k = decouple_k(ov, tv);
        const std::int32_t rst =
            restore<std::int32_t>(restored(k, ov), tv, static_cast<std::int32_t>(k), ov, same_dir, egl, false);
        r[theta][j] = rst;
        a[theta][j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(tv) - static_cast<std::uint32_t>(rst));
    }
}

// ---------------------------------------------------------------------------------------
// CSF weighting (upstream adm_csf / i4_adm_csf and their AVX-512 versions)
// ---------------------------------------------------------------------------------------

/// Level 0: coefficient s of orientation theta (0 h, 1 v, 2 d) times its Q16-ish weight wt,
/// rounded and shifted (>> 15, 15, 17), in 32 bits; callers narrow it to 16 bits.
VMAFX_HOST_DEVICE inline std::int32_t csf0_weight(std::int32_t s, std::int32_t wt, int theta) {
    const std::int32_t round = theta == 2 ? 65535 : 16384;
    const int shift = theta == 2 ? 17 : 15;
    return (wt * s + round) >> shift;
}

/// Level 0 masking filter input |v| / 30, narrowed to 16 bits. The AVX-512 columns pass the
/// 32-bit weighted value, the C columns the 16-bit one.
VMAFX_HOST_DEVICE inline std::int16_t csf0_filter(std::int32_t v) {
    return static_cast<std::int16_t>((kOneBy30Q17 * abs32(v) + 2048) >> 12);
}

/// Levels 1..3: s times weight wt (Q32; the AVX-512 columns read the weight as a signed
/// 32-bit value, the C columns as unsigned), >> 28 with rounding, truncated to 32 bits.
VMAFX_HOST_DEVICE inline std::int32_t csf_weight(std::int32_t s, std::int64_t wt) {
    return static_cast<std::int32_t>(sar64(wt * s + (std::int64_t{1} << 27), 28));
}

/// Levels 1..3 masking filter input |v| / 30.
VMAFX_HOST_DEVICE inline std::int32_t csf_filter(std::int32_t v) {
    return static_cast<std::int32_t>(sar64(kOneBy30Q32 * abs32(v) + kRound32, 32));
}

// ---------------------------------------------------------------------------------------
// Denominator (upstream adm_csf_den_scale / adm_csf_den_s123)
// ---------------------------------------------------------------------------------------

/// Level 0 term of reference coefficient x: |x|^3.
VMAFX_HOST_DEVICE inline std::uint64_t den0_cube(std::int32_t x) {
    const std::uint64_t m = static_cast<std::uint16_t>(abs32(x));
    return m * m * m;
}

/// Levels 1..3 term of reference coefficient x: |x|^3 with the level's rounded shifts.
VMAFX_HOST_DEVICE inline std::uint64_t den_cube(std::int32_t x, std::uint64_t round_sq, int shift_sq,
                                           std::uint64_t cub_round, std::uint32_t cub_shift) {
    const std::uint64_t m = static_cast<std::uint32_t>(abs32(x));
    return ((((m * m) + round_sq) >> shift_sq) * m + cub_round) >> cub_shift;
}

// ---------------------------------------------------------------------------------------
// Contrast masking (upstream adm_cm / i4_adm_cm and their AVX-512 versions)
// ---------------------------------------------------------------------------------------

/// Level 0 masker term of a CSF-weighted coefficient c: |c| / 15 in 32 bits (the AVX-512
/// columns add it as is, the C columns narrowed to 16 bits).
VMAFX_HOST_DEVICE inline std::int32_t cm0_centre_term(std::int32_t c) { return (kOneBy15Q12 * abs32(c) + 2048) >> 12; }

/// Level 0 term of coefficient x of orientation theta with weight wt: by how much its
/// weighted magnitude exceeds the masking threshold thr (modulo 2^32, as upstream), cubed with
/// the orientation's rounded shifts and the rounding/shift (rcub, scub) of the cube.
VMAFX_HOST_DEVICE inline std::int64_t cm0_cube(std::int32_t x, std::int32_t wt, std::uint32_t thr, int theta,
                                          std::int64_t rcub, std::uint32_t scub) {
    const int sub = theta == 2 ? 12 : 10;
    const std::uint64_t round_sq = theta == 2 ? (std::uint64_t{1} << 29) : (std::uint64_t{1} << 28);
    const int shift_sq = theta == 2 ? 30 : 29;
    const std::int32_t xv = x * wt;
    std::int32_t m = static_cast<std::int32_t>(static_cast<std::uint32_t>(abs32(xv)) - (thr << sub));
    m = m > 0 ? m : 0;
    const std::int64_t sq =
        static_cast<std::int32_t>((static_cast<std::uint64_t>(std::int64_t{m} * m) + round_sq) >> shift_sq);
    return sar64(sq * m + rcub, scub);
}

/// Levels 1..3 masker term of a CSF-weighted coefficient c: |c| / 15 (the magnitude read as
/// a signed 32-bit value by both kernels).
VMAFX_HOST_DEVICE inline std::int64_t cm_centre_term(std::int32_t c) { return sar64(kOneBy15Q32 * abs32(c) + kRound32, 32); }

/// Levels 1..3, AVX-512 columns: excess of the weighted magnitude of x (weight read as
/// signed) over the threshold, in 64 bits, clipped at 0 and truncated to 32 bits.
VMAFX_HOST_DEVICE inline std::int32_t cm_excess_vector(std::int32_t x, std::int64_t wt_signed, std::int64_t thr) {
    const std::int64_t xv = sar64(x * wt_signed + (std::int64_t{1} << 27), 28);
    const std::int64_t e = (xv < 0 ? -xv : xv) - thr;
    return static_cast<std::int32_t>(e > 0 ? e : 0);
}

/// Levels 1..3, C columns: the same with the weighted value and threshold wrapped to 32 bits.
VMAFX_HOST_DEVICE inline std::int32_t cm_excess_scalar(std::int32_t x, std::int64_t wt_unsigned, std::int64_t thr) {
    const std::int32_t xv = static_cast<std::int32_t>(sar64(x * wt_unsigned + (std::int64_t{1} << 27), 28));
    const std::int32_t e =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(abs32(xv)) - static_cast<std::uint32_t>(thr));
    return e > 0 ? e : 0;
}

/// Levels 1..3: the excess m cubed with rounded shifts (rcub, scub of the level).
VMAFX_HOST_DEVICE inline std::int64_t cm_cube(std::int32_t m, std::int64_t rcub, std::uint32_t scub) {
    constexpr std::uint64_t kRoundSq = std::uint64_t{1} << 29;
    const std::int64_t sq = static_cast<std::int32_t>((static_cast<std::uint64_t>(std::int64_t{m} * m) + kRoundSq) >> 30);
    return sar64(sq * m + rcub, scub);
}

}  // namespace vmafx::adm
