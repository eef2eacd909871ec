// The scalar reference row kernels of the integer ADM pipeline (adm_kernels.hpp,
// reference_kernels()): plain loops over the per-sample arithmetic of adm_math.hpp, the
// definition of the result (adm_pipeline.cpp runs them, or adm_simd.cpp's lanes, which give
// the same integers).
#include <cstdint>

#include "feature/adm/adm_kernels.hpp"
#include "feature/adm/adm_math.hpp"

namespace vmafx::adm {

namespace {

using std::int16_t;
using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;

template <typename Sample>
void dwt0_vertical_reference(const Sample* r0, const Sample* r1, const Sample* r2, const Sample* r3, int w,
                             int bit_depth, int16_t* lo, int16_t* hi) {
    for (int j = 0; j < w; ++j) lo[j] = dwt0_vertical_lo(r0[j], r1[j], r2[j], r3[j], bit_depth);
    if (hi)
        for (int j = 0; j < w; ++j) hi[j] = dwt0_vertical_hi(r0[j], r1[j], r2[j], r3[j], bit_depth);
}

void dwt0_horizontal_reference(const int16_t* lo, const int16_t* hi, int end, int16_t* a, int16_t* v, int16_t* hb,
                               int16_t* d) {
    const auto lo_pass = [](const int16_t* p) { return dwt0_horizontal_lo(p[0], p[1], p[2], p[3]); };
    const auto hi_pass = [](const int16_t* p) { return dwt0_horizontal_hi(p[0], p[1], p[2], p[3]); };
    for (int j = 1; j < end; ++j) a[j] = lo_pass(lo + 2 * j - 1);
    if (v) {
        for (int j = 1; j < end; ++j) v[j] = hi_pass(lo + 2 * j - 1);
        for (int j = 1; j < end; ++j) hb[j] = lo_pass(hi + 2 * j - 1);
        for (int j = 1; j < end; ++j) d[j] = hi_pass(hi + 2 * j - 1);
    }
}

template <typename In>
void dwt_vertical_reference(const In* r0, const In* r1, const In* r2, const In* r3, int w, int64_t round,
                            uint32_t shift, int32_t* lo, int32_t* hi) {
    for (int j = 0; j < w; ++j) lo[j] = dwt_lo(r0[j], r1[j], r2[j], r3[j], round, shift);
    for (int j = 0; j < w; ++j) hi[j] = dwt_hi(r0[j], r1[j], r2[j], r3[j], round, shift);
}

void dwt_horizontal_reference(const int32_t* lo, const int32_t* hi, int end, int64_t round, uint32_t shift,
                              int32_t* a, int32_t* v, int32_t* hb, int32_t* d) {
    const auto lo_pass = [&](const int32_t* p) { return dwt_lo(p[0], p[1], p[2], p[3], round, shift); };
    const auto hi_pass = [&](const int32_t* p) { return dwt_hi(p[0], p[1], p[2], p[3], round, shift); };
    for (int j = 1; j < end; ++j) a[j] = lo_pass(lo + 2 * j - 1);
    for (int j = 1; j < end; ++j) v[j] = hi_pass(lo + 2 * j - 1);
    for (int j = 1; j < end; ++j) hb[j] = lo_pass(hi + 2 * j - 1);
    for (int j = 1; j < end; ++j) d[j] = hi_pass(hi + 2 * j - 1);
}

void decouple0_same_reference(const int16_t* oh, const int16_t* ov, const int16_t* th, const int16_t* tv, int begin,
                              int end, int32_t* same) {
    for (int j = begin; j < end; ++j) same[j] = same_direction_avx512(oh[j], ov[j], th[j], tv[j]) ? -1 : 0;
}

// The shared steps are written with plain ternaries and a bit-mask blend.
void decouple0_integer_gain_reference(const int16_t* o, const int16_t* t, const int32_t* same, int begin, int end,
                                      int32_t egl, int16_t* r, int16_t* a) {
    for (int j = begin; j < end; ++j) {
        const int32_t oj = o[j];
        const int32_t tj = t[j];
        const int32_t k = decouple0_k(oj, tj);
        const int32_t out = restore0_integer_gain(restored0(k, oj), tj, k, oj, same[j], egl);
        r[j] = static_cast<int16_t>(out);
        a[j] = static_cast<int16_t>(tj - out);
    }
}

void csf0_reference(const int16_t* s, int begin, int cut, int end, int32_t wt, int theta, int16_t* d, int16_t* f) {
    for (int j = begin; j < cut; ++j) {
        const int32_t wide = csf0_weight(s[j], wt, theta);
        d[j] = static_cast<int16_t>(wide);
        f[j] = csf0_filter(wide);
    }
    for (int j = cut; j < end; ++j) {
        const int16_t narrow = static_cast<int16_t>(csf0_weight(s[j], wt, theta));
        d[j] = narrow;
        f[j] = csf0_filter(narrow);
    }
}

uint64_t den0_row_reference(const int16_t* x, int begin, int end) {
    uint64_t inner = 0;
    for (int j = begin; j < end; ++j) inner += den0_cube(x[j]);
    return inner;
}

void cm0_colsum_reference(const int16_t* const rows[9], int begin, int end, int32_t* colsum) {
    for (int j = begin; j < end; ++j) colsum[j] = 0;
    for (int theta = 0; theta < 3; ++theta)
        for (int j = begin; j < end; ++j)
            colsum[j] = static_cast<int32_t>(static_cast<uint32_t>(colsum[j]) + static_cast<uint32_t>(rows[3 * theta][j]) +
                                             static_cast<uint32_t>(rows[3 * theta + 1][j]) +
                                             static_cast<uint32_t>(rows[3 * theta + 2][j]));
}

void cm0_ring_reference(const int32_t* colsum, const int16_t* fh, const int16_t* fv, const int16_t* fd, int begin,
                        int end, int32_t* thr) {
    for (int j = begin; j < end; ++j)
        thr[j] = static_cast<int32_t>(static_cast<uint32_t>(colsum[j - 1]) + static_cast<uint32_t>(colsum[j]) +
                                      static_cast<uint32_t>(colsum[j + 1]) - static_cast<uint32_t>(int32_t{fh[j]}) -
                                      static_cast<uint32_t>(int32_t{fv[j]}) - static_cast<uint32_t>(int32_t{fd[j]}));
}

// The AVX-512 columns add each masker / 15 as 32 bits, the C kernel narrows it to 16 bits.
void cm0_centre_reference(const int16_t* ch, const int16_t* cv, const int16_t* cd, int begin, int cut, int end,
                          int32_t* thr) {
    for (int j = begin; j < cut; ++j)
        thr[j] = static_cast<int32_t>(static_cast<uint32_t>(thr[j]) + static_cast<uint32_t>(cm0_centre_term(ch[j])) +
                                      static_cast<uint32_t>(cm0_centre_term(cv[j])) +
                                      static_cast<uint32_t>(cm0_centre_term(cd[j])));
    for (int j = cut; j < end; ++j)
        thr[j] = static_cast<int32_t>(static_cast<uint32_t>(thr[j]) +
                                      static_cast<uint32_t>(static_cast<int16_t>(cm0_centre_term(ch[j]))) +
                                      static_cast<uint32_t>(static_cast<int16_t>(cm0_centre_term(cv[j]))) +
                                      static_cast<uint32_t>(static_cast<int16_t>(cm0_centre_term(cd[j]))));
}

int64_t cm0_row_reference(const int16_t* x, const int32_t* thr, int begin, int end, int32_t wt, int theta,
                          int64_t rcub, uint32_t scub) {
    int64_t row_acc = 0;
    for (int j = begin; j < end; ++j) row_acc += cm0_cube(x[j], wt, static_cast<uint32_t>(thr[j]), theta, rcub, scub);
    return row_acc;
}

// Levels 1..3 row kernels (decouple_level, csf_level, den_level, cm_level).
void decouple_row_reference(const int32_t* const o[3], const int32_t* const t[3], int begin, int end, int32_t egl,
                            int32_t* const r[3], int32_t* const a[3]) {
    for (int j = begin; j < end; ++j) decouple_column(o, t, j, egl, r, a);
}

void csf_row_reference(const int32_t* s, int begin, int cut, int end, uint32_t wt, int32_t* d, int32_t* f) {
    const auto run = [&](int j0, int j1, int64_t w) {
        for (int j = j0; j < j1; ++j) {
            const int32_t v = csf_weight(s[j], w);
            d[j] = v;
            f[j] = csf_filter(v);
        }
    };
    run(begin, cut, static_cast<int32_t>(wt));
    run(cut, end, wt);
}

uint64_t den_row_reference(const int32_t* x, int begin, int end, uint64_t round_sq, int shift_sq, uint64_t cub_round,
                           uint32_t cub_shift) {
    uint64_t inner = 0;
    for (int j = begin; j < end; ++j) inner += den_cube(x[j], round_sq, shift_sq, cub_round, cub_shift);
    return inner;
}

void cm_colsum_reference(const int32_t* const rows[9], int begin, int end, int64_t* colsum) {
    for (int j = begin; j < end; ++j) {
        int64_t sum = 0;
        for (int r = 0; r < 9; ++r) sum += rows[r][j];
        colsum[j] = sum;
    }
}

void cm_threshold_reference(const int64_t* colsum, const int32_t* const f[3], const int32_t* const c[3], int begin,
                            int end, int64_t* thr) {
    for (int j = begin; j < end; ++j)
        thr[j] = colsum[j - 1] + colsum[j] + colsum[j + 1] - f[0][j] - f[1][j] - f[2][j] + cm_centre_term(c[0][j]) +
                 cm_centre_term(c[1][j]) + cm_centre_term(c[2][j]);
}

int64_t cm_row_reference(const int32_t* x, const int64_t* thr, int begin, int cut, int end, uint32_t wt, int64_t rcub,
                         uint32_t scub) {
    int64_t row_acc = 0;
    const int64_t w_vec = static_cast<int32_t>(wt);
    for (int j = begin; j < cut; ++j) row_acc += cm_cube(cm_excess_vector(x[j], w_vec, thr[j]), rcub, scub);
    const int64_t w_c = wt;
    for (int j = cut; j < end; ++j) row_acc += cm_cube(cm_excess_scalar(x[j], w_c, thr[j]), rcub, scub);
    return row_acc;
}

}  // namespace

const RowKernels& reference_kernels() {
    static const RowKernels kernels{"reference",
                                    dwt0_vertical_reference<std::uint8_t>,
                                    dwt0_vertical_reference<std::uint16_t>,
                                    dwt0_horizontal_reference,
                                    dwt_vertical_reference<int16_t>,
                                    dwt_vertical_reference<int32_t>,
                                    dwt_horizontal_reference,
                                    decouple0_same_reference,
                                    decouple0_integer_gain_reference,
                                    csf0_reference,
                                    den0_row_reference,
                                    cm0_colsum_reference,
                                    cm0_ring_reference,
                                    cm0_centre_reference,
                                    cm0_row_reference,
                                    decouple_row_reference,
                                    csf_row_reference,
                                    den_row_reference,
                                    cm_colsum_reference,
                                    cm_threshold_reference,
                                    cm_row_reference};
    return kernels;
}

}  // namespace vmafx::adm
