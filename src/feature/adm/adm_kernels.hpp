// Row kernels of the integer ADM pipeline (adm_pipeline.cpp): the scalar reference (the
// pipeline's own loops, reference_kernels(), in adm_reference.cpp) and a SIMD set computing the
// same integers (adm_simd.cpp, Google Highway with run-time dispatch, simd_kernels()). Internal:
// used by adm_pipeline.cpp, adm_reference.cpp, adm_simd.cpp and adm_simd_test.cpp.
//
// Each kernel computes a range of columns of one row with the per-sample arithmetic of
// adm_math.hpp; it reads nothing outside the columns its inputs cover and writes nothing
// outside [first, end) of its outputs.
#pragma once

#include <cstdint>

namespace vmafx::adm {

struct RowKernels {
    const char* name;
    /// Level 0 vertical DWT of columns [0, w): lo[j] = dwt0_vertical_lo(r0[j], r1[j], r2[j],
    /// r3[j], bit_depth) and, unless hi is null, hi[j] = dwt0_vertical_hi(...).
    void (*dwt0_vertical_u8)(const std::uint8_t* r0, const std::uint8_t* r1, const std::uint8_t* r2,
                             const std::uint8_t* r3, int w, int bit_depth, std::int16_t* lo, std::int16_t* hi);
    void (*dwt0_vertical_u16)(const std::uint16_t* r0, const std::uint16_t* r1, const std::uint16_t* r2,
                              const std::uint16_t* r3, int w, int bit_depth, std::int16_t* lo, std::int16_t* hi);
    /// Level 0 horizontal DWT at outputs [1, end), which read lo/hi[2j-1 .. 2j+2]:
    /// a[j] = dwt0_horizontal_lo(lo[2j-1 ..]) and, unless v is null, v[j] = dwt0_horizontal_hi(lo..),
    /// h[j] = dwt0_horizontal_lo(hi..), d[j] = dwt0_horizontal_hi(hi..).
    void (*dwt0_horizontal)(const std::int16_t* lo, const std::int16_t* hi, int end, std::int16_t* a,
                            std::int16_t* v, std::int16_t* h, std::int16_t* d);
    /// Levels 1..3 vertical DWT of columns [0, w): lo[j] = dwt_lo(r0[j], .., round, shift),
    /// hi[j] = dwt_hi(...), from band a of level 0 (16-bit) or of levels 1..2 (32-bit).
    /// 0 <= shift <= 16, 0 <= round <= 32768.
    void (*dwt_vertical_s16)(const std::int16_t* r0, const std::int16_t* r1, const std::int16_t* r2,
                             const std::int16_t* r3, int w, std::int64_t round, std::uint32_t shift, std::int32_t* lo,
                             std::int32_t* hi);
    void (*dwt_vertical_s32)(const std::int32_t* r0, const std::int32_t* r1, const std::int32_t* r2,
                             const std::int32_t* r3, int w, std::int64_t round, std::uint32_t shift, std::int32_t* lo,
                             std::int32_t* hi);
    /// Levels 1..3 horizontal DWT at outputs [1, end) of the four bands (as dwt0_horizontal,
    /// with dwt_lo / dwt_hi and the level's round and shift, same limits as above).
    void (*dwt_horizontal)(const std::int32_t* lo, const std::int32_t* hi, int end, std::int64_t round,
                           std::uint32_t shift, std::int32_t* a, std::int32_t* v, std::int32_t* h, std::int32_t* d);
    /// Level 0 decouple, the AVX-512 kernel's direction test: same[j] = -1 where
    /// same_direction_avx512(oh[j], ov[j], th[j], tv[j]), else 0, for j in [begin, end).
    void (*decouple0_same)(const std::int16_t* oh, const std::int16_t* ov, const std::int16_t* th,
                           const std::int16_t* tv, int begin, int end, std::int32_t* same);
    /// Level 0 decouple with an integer gain limit egl, columns [begin, end): the restored
    /// r[j] = restore0_integer_gain(restored0(k, o[j]), t[j], k, o[j], same[j], egl) with
    /// k = decouple0_k(o[j], t[j]), and the additive a[j] = t[j] - r[j], both as 16 bits.
    void (*decouple0_integer_gain)(const std::int16_t* o, const std::int16_t* t, const std::int32_t* same, int begin,
                                   int end, std::int32_t egl, std::int16_t* r, std::int16_t* a);
    /// Level 0 CSF of columns [begin, end): d[j] = csf0_weight(s[j], wt, theta) as 16 bits and
    /// f[j] = csf0_filter of the 32-bit weighted value for j < cut, of the 16-bit one from cut.
    void (*csf0)(const std::int16_t* s, int begin, int cut, int end, std::int32_t wt, int theta, std::int16_t* d,
                 std::int16_t* f);
    /// Level 0 denominator: the sum of den0_cube(x[j]) over [begin, end).
    std::uint64_t (*den0_row)(const std::int16_t* x, int begin, int end);
    /// Level 0 masking: colsum[j] = the sum of rows[0..8][j] modulo 2^32, j in [begin, end).
    void (*cm0_colsum)(const std::int16_t* const rows[9], int begin, int end, std::int32_t* colsum);
    /// thr[j] = colsum[j-1] + colsum[j] + colsum[j+1] - fh[j] - fv[j] - fd[j] modulo 2^32, for j
    /// in [begin, end) (begin >= 1).
    void (*cm0_ring)(const std::int32_t* colsum, const std::int16_t* fh, const std::int16_t* fv,
                     const std::int16_t* fd, int begin, int end, std::int32_t* thr);
    /// thr[j] += cm0_centre_term of ch[j], cv[j], cd[j] modulo 2^32, each as 32 bits for j < cut
    /// and narrowed to 16 bits from cut, j in [begin, end).
    void (*cm0_centre)(const std::int16_t* ch, const std::int16_t* cv, const std::int16_t* cd, int begin, int cut,
                       int end, std::int32_t* thr);
    /// The sum of cm0_cube(x[j], wt, thr[j], theta, rcub, scub) over [begin, end).
    std::int64_t (*cm0_row)(const std::int16_t* x, const std::int32_t* thr, int begin, int end, std::int32_t wt,
                            int theta, std::int64_t rcub, std::uint32_t scub);

    // Levels 1..3 (32-bit bands).
    /// Decouple with an integer gain limit egl (1..100) of columns [begin, end) of the three
    /// orientations (0 h, 1 v, 2 d) of reference o and distorted t: with same =
    /// same_direction(o[0][j], o[1][j], t[0][j], t[1][j]) and k = decouple_k(o, t) per orientation,
    /// r[theta][j] = restore(restored(k, o), t, k, o, same, egl) and a[theta][j] = t - r modulo 2^32.
    void (*decouple_row)(const std::int32_t* const o[3], const std::int32_t* const t[3], int begin, int end,
                         std::int32_t egl, std::int32_t* const r[3], std::int32_t* const a[3]);
    /// CSF of columns [begin, end): d[j] = csf_weight(s[j], w) and f[j] = csf_filter(d[j]), the
    /// weight w read as signed (int32_t) for j < cut and as unsigned from cut.
    void (*csf_row)(const std::int32_t* s, int begin, int cut, int end, std::uint32_t wt, std::int32_t* d,
                    std::int32_t* f);
    /// Denominator: the sum modulo 2^64 of den_cube(x[j], round_sq, shift_sq, cub_round, cub_shift)
    /// over [begin, end). shift_sq and cub_shift below 64.
    std::uint64_t (*den_row)(const std::int32_t* x, int begin, int end, std::uint64_t round_sq, int shift_sq,
                             std::uint64_t cub_round, std::uint32_t cub_shift);
    /// Masking: colsum[j] = the exact sum of rows[0..8][j], j in [begin, end).
    void (*cm_colsum)(const std::int32_t* const rows[9], int begin, int end, std::int64_t* colsum);
    /// thr[j] = colsum[j-1] + colsum[j] + colsum[j+1] - f[0][j] - f[1][j] - f[2][j] plus the
    /// cm_centre_term of c[0][j], c[1][j], c[2][j], exact, for j in [begin, end) (begin >= 1).
    void (*cm_threshold)(const std::int64_t* colsum, const std::int32_t* const f[3], const std::int32_t* const c[3],
                         int begin, int end, std::int64_t* thr);
    /// The sum of cm_cube(m) over [begin, end), m = cm_excess_vector(x[j], (int32_t)wt, thr[j])
    /// for j < cut and cm_excess_scalar(x[j], wt, thr[j]) from cut. scub below 64.
    std::int64_t (*cm_row)(const std::int32_t* x, const std::int64_t* thr, int begin, int cut, int end,
                           std::uint32_t wt, std::int64_t rcub, std::uint32_t scub);
};

/// The scalar reference (adm_reference.cpp).
const RowKernels& reference_kernels();
/// The SIMD kernels (adm_simd.cpp): every call runs the best target of those compiled that
/// the CPU supports (hwy::SetSupportedTargetsForTest narrows it).
const RowKernels& simd_kernels();
/// The Highway target (HWY_AVX2, ...) that simd_kernels() runs now; 0 if its two files
/// (adm_simd.cpp, adm_levels_simd.cpp) dispatch to different targets.
std::int64_t simd_target();

/// Sets the levels 1..3 entries of `k` (decouple_row, csf_row, den_row, cm_colsum, cm_threshold,
/// cm_row) to the SIMD kernels of adm_levels_simd.cpp (used by simd_kernels()).
void set_levels_simd_kernels(RowKernels& k);
/// The Highway target adm_levels_simd.cpp dispatches to now.
std::int64_t levels_simd_target();

}  // namespace vmafx::adm
