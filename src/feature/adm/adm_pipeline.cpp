// Integer ADM of one frame, bit-exact to upstream libvmaf 3.2.0 built with its AVX-512
// kernels (src/feature/integer_adm.c integer_compute_adm, src/feature/x86/adm_avx512.c).
//
// Stages per DWT level (level 0 in 16-bit fixed point, levels 1..3 in 32-bit):
//   1. dwt:      one level of the Db2 wavelet of reference and distorted (bands a, v, h, d);
//   2. decouple: split each distorted detail coefficient into the part explained by the
//                reference (restored, r) and the rest (additive, a);
//   3. den:      the reference's CSF-weighted energy (sum of cubes) - the DLM denominator;
//   4. csf:      CSF-weight the additive part (and its |x|/30 "masking" filter input);
//   5. cm:       contrast masking: restored coefficients above the masking threshold of
//                the additive part, summed as cubes - the DLM numerator. With AIM, the
//                roles swap (additive coefficients masked by the restored part).
//
// Where upstream's AVX-512 kernels compute differently from its C kernels (float rounding
// order, 32- vs 64-bit intermediates, round-to-nearest vs truncation, unmirrored reads at
// the last DWT output), the columns they cover are computed the AVX-512 way and the
// others the C way; each place says so. For samples of real video only the DWT and
// decouple differences ever change a value, and the others keep vmafx exact on
// adversarial input too.
#include "feature/adm/adm_pipeline.hpp"

#include "base/libm.hpp"
#include "feature/adm/adm_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace vmafx::adm {

namespace {

using std::int16_t;
using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;

// The hot row loops are row kernels (adm_kernels.hpp): the scalar reference below and SIMD
// versions (adm_simd.cpp) giving the same integers, the best one for the CPU picked at run time.
// Levels 1..3 have row kernels too (decouple_row, csf_row, den_row, cm_colsum, cm_threshold,
// cm_row); only a non-integer gain limit's decouple stays a plain loop. The CSF of each
// masking pass is computed a row at a time inside it (CsfRowCache), not as whole planes.

// Constants, per-sample arithmetic and region geometry: adm_math.hpp (shared with the
// CUDA twin).

// A 2-D array of T: rows `stride` elements apart.
template <typename T>
struct View {
    T* data = nullptr;
    std::ptrdiff_t stride = 0;
    T* row(int y) const { return data + static_cast<std::ptrdiff_t>(y) * stride; }
};

// Subbands of one DWT level: a (low-low), v (low vertical, high horizontal), h (high
// vertical, low horizontal), d (high-high). Decoupled and CSF sets use only h, v, d.
template <typename T>
struct Bands {
    View<T> a, h, v, d;
    const View<T>& hvd(int theta) const { return theta == 0 ? h : (theta == 1 ? v : d); }
};

// 2^e for a uint32_t exponent, as upstream's pow(2, unsigned expression).
double pow2(uint32_t e) { return std::pow(2.0, static_cast<double>(e)); }

// ---------------------------------------------------------------------------------------
// DWT
// ---------------------------------------------------------------------------------------

// Input positions of the 4 taps of each output of a DWT pass over n inputs (upstream
// dwt2_src_indices_filt): output i reads 2i-1 .. 2i+2; the first output reads 1, 0, 1, 2
// and positions past the end are mirrored (n -> n-1, n+1 -> n-2). Needs n >= 5.
using Taps = std::vector<std::array<int, 4>>;
Taps dwt_taps(int n) {
    const int half = (n + 1) / 2;
    Taps t(static_cast<std::size_t>(half));
    for (int i = 0; i < half; ++i)
        for (int k = 0; k < 4; ++k) t[i][k] = dwt_mirror(2 * i - 1 + k, n);
    return t;
}

// Taps of a horizontal pass that upstream's AVX-512 kernel runs in blocks of `block`
// outputs from output 1: when its last block ends exactly at the last output, that
// output reads its taps 2i+1, 2i+2 unmirrored, i.e. past the end of its row of vertical
// results into the next row of the scratch buffer (which callers lay out as upstream).
Taps dwt_taps_horizontal(int n, int block) {
    Taps t = dwt_taps(n);
    const int half = (n + 1) / 2;
    if (dwt_reads_past_row(n, block)) {
        const int i = half - 1;
        t[i] = {2 * i - 1, 2 * i, 2 * i + 1, 2 * i + 2};
    }
    return t;
}

// The scalar reference row kernels (reference_kernels()): adm_reference.cpp.

// Level 0 of the DWT of one luma plane (w x h samples of type Sample at `bit_depth` bits)
// into 16-bit bands of ceil(w/2) x ceil(h/2) (upstream adm_dwt2_8/adm_dwt2_16 and their
// AVX-512 versions; adm_dwt2_8_lo/adm_dwt2_16_lo with lo_only, which make band a only).
// `tmp` holds 2*w + 64 int16: the vertical low- and high-pass rows side by side, then
// zeros, as upstream's tmp_ref (the AVX-512 horizontal pass can read past the first).
template <typename Sample>
void dwt_level0(const Plane& src, int bit_depth, bool lo_only, const Taps& taps_y, const Taps& taps_x,
                int16_t* tmp, const Bands<int16_t>& out) {
    const int w = src.width();
    const int half_w = (w + 1) / 2;
    const int half_h = (src.height() + 1) / 2;
    const RowKernels& kernels = simd_kernels();
    // Vertical pass: Q(16 - bit_depth) rounding; the low pass moves the range to signed.
    int16_t* lo = tmp;
    int16_t* hi = tmp + w;
    std::fill(tmp + 2 * w, tmp + 2 * w + 64, int16_t{0});

    for (int i = 0; i < half_h; ++i) {
        const Sample* r0 = src.row<Sample>(taps_y[i][0]);
        const Sample* r1 = src.row<Sample>(taps_y[i][1]);
        const Sample* r2 = src.row<Sample>(taps_y[i][2]);
        const Sample* r3 = src.row<Sample>(taps_y[i][3]);
        // 32-bit arithmetic modulo 2^32 as upstream's int32 sums (the result fits).
        if constexpr (sizeof(Sample) == 1) kernels.dwt0_vertical_u8(r0, r1, r2, r3, w, bit_depth, lo, lo_only ? nullptr : hi);
        else kernels.dwt0_vertical_u16(r0, r1, r2, r3, w, bit_depth, lo, lo_only ? nullptr : hi);
        // Horizontal pass: Q16 rounding (the sums fit 32 bits). Outputs 1 .. half_w-3 read
        // 2j-1 .. 2j+2 directly; the first and the last two go through the tap table.
        int16_t* a = out.a.row(i);
        int16_t* v = out.v.row(i);
        int16_t* hb = out.h.row(i);
        int16_t* d = out.d.row(i);
        const auto lo_pass = [](const int16_t* p) { return dwt0_horizontal_lo(p[0], p[1], p[2], p[3]); };
        const auto hi_pass = [](const int16_t* p) { return dwt0_horizontal_hi(p[0], p[1], p[2], p[3]); };
        const int inner_end = std::max(1, half_w - 2);
        kernels.dwt0_horizontal(lo, hi, inner_end, a, lo_only ? nullptr : v, hb, d);
        for (int j = 0; j < half_w; j = (j == 0 ? inner_end : j + 1)) {
            const auto& tap = taps_x[j];
            const int16_t l[4] = {lo[tap[0]], lo[tap[1]], lo[tap[2]], lo[tap[3]]};
            a[j] = lo_pass(l);
            if (lo_only) continue;
            const int16_t hh[4] = {hi[tap[0]], hi[tap[1]], hi[tap[2]], hi[tap[3]]};
            v[j] = hi_pass(l);
            hb[j] = lo_pass(hh);
            d[j] = hi_pass(hh);
        }
    }
}

// Levels 1..3 of the DWT of reference and distorted together (upstream
// adm_dwt2_s123_combined and its AVX-512 version): inputs are band a of the previous level
// (w x h, 16-bit at level 1, 32-bit after), outputs 32-bit bands of ceil(w/2) x ceil(h/2).
// `tmp` is the level scratch laid out as upstream's tmp_ref: low and high vertical rows of
// the reference, then of the distorted, w int32 each, then what earlier levels left there.
template <typename In>
void dwt_level(int scale, View<const In> ref, View<const In> dis, int w, int h, const Taps& taps_y,
               const Taps& taps_x, int32_t* tmp, const Bands<int32_t>& ref_out, const Bands<int32_t>& dis_out) {
    const int64_t round_v = kDwtRoundV[scale - 1];
    const uint32_t shift_v = kDwtShiftV[scale - 1];
    const int64_t round_h = kDwtRoundH[scale - 1];
    const uint32_t shift_h = kDwtShiftH[scale - 1];
    const int half_w = (w + 1) / 2;
    const int half_h = (h + 1) / 2;
    const RowKernels& kernels = simd_kernels();
    int32_t* rows[4] = {tmp, tmp + w, tmp + 2 * w, tmp + 3 * w};  // ref lo, ref hi, dis lo, dis hi

    for (int i = 0; i < half_h; ++i) {
        for (int img = 0; img < 2; ++img) {
            const View<const In>& src = img == 0 ? ref : dis;
            const In* r0 = src.row(taps_y[i][0]);
            const In* r1 = src.row(taps_y[i][1]);
            const In* r2 = src.row(taps_y[i][2]);
            const In* r3 = src.row(taps_y[i][3]);
            int32_t* lo = rows[2 * img];
            int32_t* hi = rows[2 * img + 1];
            if constexpr (sizeof(In) == 2) kernels.dwt_vertical_s16(r0, r1, r2, r3, w, round_v, shift_v, lo, hi);
            else kernels.dwt_vertical_s32(r0, r1, r2, r3, w, round_v, shift_v, lo, hi);
        }
        const auto lo_pass = [&](const int32_t* p) { return dwt_lo(p[0], p[1], p[2], p[3], round_h, shift_h); };
        const auto hi_pass = [&](const int32_t* p) { return dwt_hi(p[0], p[1], p[2], p[3], round_h, shift_h); };
        const int inner_end = std::max(1, half_w - 2);  // as in dwt_level0
        for (int img = 0; img < 2; ++img) {
            const Bands<int32_t>& out = img == 0 ? ref_out : dis_out;
            const int32_t* lo = rows[2 * img];
            const int32_t* hi = rows[2 * img + 1];
            int32_t* a = out.a.row(i);
            int32_t* v = out.v.row(i);
            int32_t* hb = out.h.row(i);
            int32_t* d = out.d.row(i);
            kernels.dwt_horizontal(lo, hi, inner_end, round_h, shift_h, a, v, hb, d);
            for (int j = 0; j < half_w; j = (j == 0 ? inner_end : j + 1)) {
                const auto& tap = taps_x[j];
                const int32_t l[4] = {lo[tap[0]], lo[tap[1]], lo[tap[2]], lo[tap[3]]};
                const int32_t hh[4] = {hi[tap[0]], hi[tap[1]], hi[tap[2]], hi[tap[3]]};
                a[j] = lo_pass(l);
                v[j] = hi_pass(l);
                hb[j] = lo_pass(hh);
                d[j] = hi_pass(hh);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Decouple
// ---------------------------------------------------------------------------------------

// Level 0 decouple (upstream adm_decouple / adm_decouple_avx512) over the tap region.
void decouple_level0(const Bands<int16_t>& ref, const Bands<int16_t>& dis, int w, int h, double egl,
                                   const Bands<int16_t>& r, const Bands<int16_t>& a) {
    const Region rg = tap_region(w, h);
    const int vec_end = vector_end(rg.left, rg.right, 16);
    // With an integer gain limit (the default 100, and 1) the gain product is exact and
    // rounding it does not matter: a plain integer loop serves both kinds of columns.
    const bool integer_gain = egl == std::floor(egl);
    const int32_t egl_int = static_cast<int32_t>(egl);
    const RowKernels& kernels = simd_kernels();
    std::vector<int32_t> same(static_cast<std::size_t>(w));  // directions agree: -1, else 0
    for (int i = rg.top; i < rg.bottom; ++i) {
        const int16_t* oh = ref.h.row(i);
        const int16_t* ov = ref.v.row(i);
        const int16_t* th = dis.h.row(i);
        const int16_t* tv = dis.v.row(i);
        kernels.decouple0_same(oh, ov, th, tv, rg.left, vec_end, same.data());
        for (int j = vec_end; j < rg.right; ++j) same[j] = same_direction(oh[j], ov[j], th[j], tv[j]) ? -1 : 0;
        for (int theta = 0; theta < 3; ++theta) {
            const int16_t* o = ref.hvd(theta).row(i);
            const int16_t* t = dis.hvd(theta).row(i);
            int16_t* rr = r.hvd(theta).row(i);
            int16_t* aa = a.hvd(theta).row(i);
            if (integer_gain) {
                kernels.decouple0_integer_gain(o, t, same.data(), rg.left, rg.right, egl_int, rr, aa);
            } else {
                for (int j = rg.left; j < rg.right; ++j) {
                    const int32_t oj = o[j];
                    const int32_t tj = t[j];
                    const int32_t k = decouple0_k(oj, tj);
                    const int32_t rst = restore<int32_t>(restored0(k, oj), tj, k, oj, same[j] != 0, egl, j < vec_end);
                    rr[j] = static_cast<int16_t>(rst);
                    aa[j] = static_cast<int16_t>(tj - rst);
                }
            }
        }
    }
}

// Levels 1..3 decouple (upstream adm_decouple_s123 / _avx512): o has up to 31 bits, so
// the division by o uses a 15-bit rounding of |o| and a compensating shift.
void decouple_level(const Bands<int32_t>& ref, const Bands<int32_t>& dis, int w, int h, double egl,
                    const Bands<int32_t>& r, const Bands<int32_t>& a) {
    const Region rg = tap_region(w, h);
    const int vec_end = vector_end(rg.left, rg.right, 16);
    if (egl == std::floor(egl)) {  // the gain product is exact: columns of both kinds alike
        const RowKernels& kernels = simd_kernels();
        for (int i = rg.top; i < rg.bottom; ++i) {
            const int32_t* o[3] = {ref.h.row(i), ref.v.row(i), ref.d.row(i)};
            const int32_t* t[3] = {dis.h.row(i), dis.v.row(i), dis.d.row(i)};
            int32_t* rr[3] = {r.h.row(i), r.v.row(i), r.d.row(i)};
            int32_t* aa[3] = {a.h.row(i), a.v.row(i), a.d.row(i)};
            kernels.decouple_row(o, t, rg.left, rg.right, static_cast<int32_t>(egl), rr, aa);
        }
        return;
    }
    for (int i = rg.top; i < rg.bottom; ++i) {
        for (int j = rg.left; j < rg.right; ++j) {
            const bool vec = j < vec_end;
            const bool same_dir = same_direction(ref.h.row(i)[j], ref.v.row(i)[j], dis.h.row(i)[j], dis.v.row(i)[j]);
            for (int theta = 0; theta < 3; ++theta) {
                const int32_t o = ref.hvd(theta).row(i)[j];
                const int32_t t = dis.hvd(theta).row(i)[j];
                const int64_t k = decouple_k(o, t);
                const int32_t rst = restore<int32_t>(restored(k, o), t, static_cast<int32_t>(k), o, same_dir, egl, vec);
                r.hvd(theta).row(i)[j] = rst;
                a.hvd(theta).row(i)[j] = static_cast<int32_t>(static_cast<uint32_t>(t) - static_cast<uint32_t>(rst));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// CSF weighting: per row, inside contrast masking (CsfRowCache in cm_level0 / cm_level).
// ---------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------
// Denominator: CSF-weighted reference energy
// ---------------------------------------------------------------------------------------

// Level 0 (upstream adm_csf_den_scale / _avx512; both compute the same): per orientation,
// the sum over the score rows of each row's rounded, shifted sum of |x|^3.
void den_level0(const Bands<int16_t>& ref, int w, int h, uint64_t sums[3]) {
    const Region rg = score_region(w, h);
    const Shift row = den0_row_shift(rg);
    const RowKernels& kernels = simd_kernels();
    for (int theta = 0; theta < 3; ++theta) {
        uint64_t acc = 0;
        for (int i = rg.top; i < rg.bottom; ++i) {
            const uint64_t inner = kernels.den0_row(ref.hvd(theta).row(i), rg.left, rg.right);
            acc += den_row_rounded(inner, row.round, row.shift);
        }
        sums[theta] = acc;
    }
}

// Levels 1..3 (upstream adm_csf_den_s123 / _avx512; both compute the same).
void den_level(int scale, const Bands<int32_t>& ref, int w, int h, uint64_t sums[3]) {
    const Region rg = score_region(w, h);
    const int shift_sq = kDenShiftSq[scale - 1];
    const uint64_t round_sq = uint64_t{1} << shift_sq;  // sic: 2^shift, not half
    const Shift cub = log2_shift(rg.right - rg.left, 0);
    const Shift row = log2_shift(rg.bottom - rg.top, 0);
    const RowKernels& kernels = simd_kernels();
    for (int theta = 0; theta < 3; ++theta) {
        uint64_t acc = 0;
        for (int i = rg.top; i < rg.bottom; ++i) {
            const uint64_t inner =
                kernels.den_row(ref.hvd(theta).row(i), rg.left, rg.right, round_sq, shift_sq, cub.round, cub.shift);
            acc += den_row_rounded(inner, row.round, row.shift);
        }
        sums[theta] = acc;
    }
}

// ---------------------------------------------------------------------------------------
// Contrast masking: the numerators
// ---------------------------------------------------------------------------------------

// The rows and columns a pass visits: CmLayout (adm_math.hpp).

// The CSF-weighted values (d) and masking filter inputs (f) of the three orientations of a
// band, computed a row at a time as contrast masking reads them (rows i-1, i, i+1 for row i),
// instead of whole planes: the last 4 rows are kept. Each row's values are those of a whole
// plane pass (upstream adm_csf / i4_adm_csf), which computes every row alike.
template <typename T>
class CsfRowCache {
public:
    explicit CsfRowCache(int w) : w_(w), buf_(static_cast<std::size_t>(w) * 24) {}
    /// Computes row `row` with fill(row, d[3], f[3]) unless it is kept.
    template <typename Fill>
    void ensure(int row, const Fill& fill) {
        const int slot = row & 3;
        if (tag_[slot] == row) return;
        T* d[3] = {at(slot, 0), at(slot, 1), at(slot, 2)};
        T* f[3] = {at(slot, 3), at(slot, 4), at(slot, 5)};
        fill(row, d, f);
        tag_[slot] = row;
    }
    /// Row `row` (kept) of orientation theta's weighted values / filter inputs.
    const T* d(int row, int theta) { return at(row & 3, theta); }
    const T* f(int row, int theta) { return at(row & 3, 3 + theta); }
    /// Computes rows above, i and below (as needed) and lists the filter input rows of the 3x3
    /// masking neighbourhood of row i: rows[3 * theta + 0, 1, 2] = above, i, below.
    template <typename Fill>
    void masking_rows(int above, int i, int below, const Fill& fill, const T* rows[9]) {
        ensure(above, fill);
        ensure(i, fill);
        ensure(below, fill);
        for (int theta = 0; theta < 3; ++theta) {
            rows[3 * theta] = f(above, theta);
            rows[3 * theta + 1] = f(i, theta);
            rows[3 * theta + 2] = f(below, theta);
        }
    }

private:
    T* at(int slot, int k) { return buf_.data() + static_cast<std::size_t>(slot * 6 + k) * static_cast<std::size_t>(w_); }
    int w_;
    std::vector<T> buf_;
    int tag_[4] = {-1, -1, -1, -1};
};

// Level 0 (upstream adm_cm / adm_cm_avx512). x: the coefficients measured (decouple r for
// DLM, a for AIM); centre/flt: the CSF-weighted masker and its |x|/30 filter input.
// Each coefficient counts by how much its weighted magnitude exceeds the masking
// threshold (8 neighbouring filter values + its own masker / 15), cubed. Writes the
// level's integer numerator per orientation: the sum over the visited rows of each row's
// rounded, shifted sum.
void cm_level0(const Bands<int16_t>& x, const Bands<int16_t>& masker, int w, int h,
               const std::array<uint16_t, 3>& weight, int64_t sums[3]) {
    const CmLayout L(w, h);
    const Shift cub_hv = log2_shift(w, -4);
    const Shift cub_d = log2_shift(w, -3);
    const Shift row_shift = log2_shift(h, 0);
    const Shift cub[3] = {cub_hv, cub_hv, cub_d};
    const RowKernels& kernels = simd_kernels();
    // The CSF of the masker (upstream adm_csf over the tap region).
    const Region tr = tap_region(w, h);
    const int vec_end = vector_end(tr.left, tr.right, 16);
    CsfRowCache<int16_t> csf(w);
    const auto fill = [&](int row, int16_t* const d[3], int16_t* const f[3]) {
        for (int theta = 0; theta < 3; ++theta)
            kernels.csf0(masker.hvd(theta).row(row), tr.left, vec_end, tr.right, weight[theta], theta, d[theta], f[theta]);
    };

    std::vector<int32_t> colsum(static_cast<std::size_t>(w)), thr(static_cast<std::size_t>(w));
    const int c0 = std::max(L.col_begin - 1, 0);
    const int c1 = std::min(L.col_end + 1, w);
    const int j0 = std::max(L.col_begin, 1);
    const int j1 = std::min(L.col_end, w - 1);
    int64_t acc[3] = {0, 0, 0};
    for (int i = L.row_begin; i < L.row_end; ++i) {
        const int above = i == 0 ? 1 : i - 1;
        const int below = i == h - 1 ? h - 1 : i + 1;
        // Sum of the 8 masking neighbours of each visited column over the three orientations
        // of the filter inputs: the 3x3 box sum of the column sums minus the centre, modulo
        // 2^32 as upstream's C sums (its AVX-512 ones agree).
        const int16_t* rows[9];
        csf.masking_rows(above, i, below, fill, rows);
        kernels.cm0_colsum(rows, c0, c1, colsum.data());
        const int16_t* fh = csf.f(i, 0);
        const int16_t* fv = csf.f(i, 1);
        const int16_t* fd = csf.f(i, 2);
        const auto ring = [&](int j, int jl, int jr) {
            thr[j] = static_cast<int32_t>(static_cast<uint32_t>(colsum[jl]) + static_cast<uint32_t>(colsum[j]) +
                                          static_cast<uint32_t>(colsum[jr]) - static_cast<uint32_t>(int32_t{fh[j]}) -
                                          static_cast<uint32_t>(int32_t{fv[j]}) - static_cast<uint32_t>(int32_t{fd[j]}));
        };
        if (L.col_begin == 0) ring(0, 1, 1);
        kernels.cm0_ring(colsum.data(), fh, fv, fd, j0, j1, thr.data());
        if (L.col_end == w) ring(w - 1, w - 2, w - 1);
        // Add each column's own masker / 15: the AVX-512 columns keep it 32-bit, the C
        // kernel narrows it to 16 bits.
        const int cut = L.vector_cut(i, 14);
        kernels.cm0_centre(csf.d(i, 0), csf.d(i, 1), csf.d(i, 2), L.col_begin, cut, L.col_end, thr.data());
        for (int theta = 0; theta < 3; ++theta) {
            const int64_t row_acc = kernels.cm0_row(x.hvd(theta).row(i), thr.data(), L.col_begin, L.col_end,
                                                    weight[theta], theta, cub[theta].round, cub[theta].shift);
            acc[theta] += cm_row_rounded(row_acc, row_shift.round, row_shift.shift);
        }
    }
    for (int theta = 0; theta < 3; ++theta) sums[theta] = acc[theta];
}

// Levels 1..3 (upstream i4_adm_cm / i4_adm_cm_avx512). The AVX-512 columns keep the
// weighted coefficient and the threshold in 64 bits and read the weight as signed; the C
// ones wrap both to 32 bits. Writes the integer numerator per orientation (as cm_level0).
void cm_level(const Bands<int32_t>& x, const Bands<int32_t>& masker, int w, int h,
              const std::array<uint32_t, 3>& weight, int64_t sums[3]) {
    const CmLayout L(w, h);
    const Shift cub = log2_shift(w, 0);
    const Shift row_shift = log2_shift(h, 0);
    const RowKernels& kernels = simd_kernels();
    // The CSF of the masker (upstream i4_adm_csf over the tap region).
    const Region tr = tap_region(w, h);
    const int vec_end = vector_end(tr.left, tr.right, 16);
    CsfRowCache<int32_t> csf(w);
    const auto fill = [&](int row, int32_t* const d[3], int32_t* const f[3]) {
        for (int theta = 0; theta < 3; ++theta)
            kernels.csf_row(masker.hvd(theta).row(row), tr.left, vec_end, tr.right, weight[theta], d[theta], f[theta]);
    };
    std::vector<int64_t> colsum(static_cast<std::size_t>(w)), thr(static_cast<std::size_t>(w));
    int64_t acc[3] = {0, 0, 0};
    const int c0 = std::max(L.col_begin - 1, 0);
    const int c1 = std::min(L.col_end + 1, w);
    const int j0 = std::max(L.col_begin, 1);
    const int j1 = std::min(L.col_end, w - 1);
    for (int i = L.row_begin; i < L.row_end; ++i) {
        const int above = i == 0 ? 1 : i - 1;
        const int below = i == h - 1 ? h - 1 : i + 1;
        // The 8 masking neighbours over the three orientations of the filter inputs (exact in
        // 64 bits, as upstream's AVX-512 lanes; its C sums never exceed 32 bits either), plus
        // each column's own masker / 15 in Q32 (the same in both kernels).
        const int32_t* rows[9];
        csf.masking_rows(above, i, below, fill, rows);
        kernels.cm_colsum(rows, c0, c1, colsum.data());
        const int32_t* f[3] = {csf.f(i, 0), csf.f(i, 1), csf.f(i, 2)};
        const int32_t* c[3] = {csf.d(i, 0), csf.d(i, 1), csf.d(i, 2)};
        const auto edge = [&](int j, int jl, int jr) {
            thr[j] = colsum[jl] + colsum[j] + colsum[jr] - f[0][j] - f[1][j] - f[2][j] + cm_centre_term(c[0][j]) +
                     cm_centre_term(c[1][j]) + cm_centre_term(c[2][j]);
        };
        if (L.col_begin == 0) edge(0, 1, 1);
        kernels.cm_threshold(colsum.data(), f, c, j0, j1, thr.data());
        if (L.col_end == w) edge(w - 1, w - 2, w - 1);
        const int cut = L.vector_cut(i, 6);
        for (int theta = 0; theta < 3; ++theta) {
            const int64_t row_acc = kernels.cm_row(x.hvd(theta).row(i), thr.data(), L.col_begin, cut, L.col_end,
                                                   weight[theta], cub.round, cub.shift);
            acc[theta] += cm_row_rounded(row_acc, row_shift.round, row_shift.shift);
        }
    }
    for (int theta = 0; theta < 3; ++theta) sums[theta] = acc[theta];
}

// ---------------------------------------------------------------------------------------
// Scores from the integer sums (the floating-point end, on the host for the CUDA twin too)
// ---------------------------------------------------------------------------------------

float noise_floor(const Region& rg, double noise_weight) {
    return libm::powf(static_cast<float>((rg.bottom - rg.top) * (rg.right - rg.left) * noise_weight), 1.0f / 3.0f);
}

// Sum over the three orientations of (sum |x w|^3)^(1/3) + (area * noise_weight)^(1/3).
float den_from_sums(const double csf[3], const Region& rg, double noise_weight) {
    const float noise = noise_floor(rg, noise_weight);
    const float dh = libm::powf(static_cast<float>(csf[0]), 1.0f / 3.0f) + noise;
    const float dv = libm::powf(static_cast<float>(csf[1]), 1.0f / 3.0f) + noise;
    const float dd = libm::powf(static_cast<float>(csf[2]), 1.0f / 3.0f) + noise;
    return dh + dv + dd;
}

// Level 0 denominator from its sums (den_level0): scaled back, times the cubed CSF weights.
float den_score_level0(const uint64_t sums[3], int w, int h, const std::array<float, 3>& weight, double noise_weight) {
    const Region rg = score_region(w, h);
    const int shift = static_cast<int>(den0_row_shift(rg).shift);
    double csf[3];
    for (int theta = 0; theta < 3; ++theta) {
        const double unshift = std::pow(2, 18 - shift);
        csf[theta] = static_cast<double>(sums[theta]) / unshift * std::pow(static_cast<double>(weight[theta]), 3);
    }
    return den_from_sums(csf, rg, noise_weight);
}

// Levels 1..3 denominator from its sums (den_level).
float den_score_level(int scale, const uint64_t sums[3], int w, int h, const std::array<float, 3>& weight,
                      double noise_weight) {
    const Region rg = score_region(w, h);
    const Shift cub = log2_shift(rg.right - rg.left, 0);
    const Shift row = log2_shift(rg.bottom - rg.top, 0);
    double csf[3];
    for (int theta = 0; theta < 3; ++theta) {
        const double unshift = pow2(kDenUnshift[scale - 1] - row.shift - cub.shift);
        csf[theta] = static_cast<double>(sums[theta]) / unshift * std::pow(static_cast<double>(weight[theta]), 3);
    }
    return den_from_sums(csf, rg, noise_weight);
}

// Level 0 numerator from its sums (cm_level0): (6 + 21) * 3 - 29 = 52 pending bits for h and
// v, 57 for d. The AVX-512 kernel rounds the h sum to float before dividing.
float cm_score_level0(const int64_t sums[3], int w, int h, double noise_weight) {
    const Shift cub_hv = log2_shift(w, -4);
    const Shift cub_d = log2_shift(w, -3);
    const Shift row_shift = log2_shift(h, 0);
    const float fh = static_cast<float>(static_cast<double>(static_cast<float>(sums[0])) /
                                        pow2(52u - cub_hv.shift - row_shift.shift));
    const float fv = static_cast<float>(static_cast<double>(sums[1]) / pow2(52u - cub_hv.shift - row_shift.shift));
    const float fd = static_cast<float>(static_cast<double>(sums[2]) / pow2(57u - cub_d.shift - row_shift.shift));
    const float noise = noise_floor(score_region(w, h), noise_weight);
    const float nh = libm::powf(fh, 1.0f / 3.0f) + noise;
    const float nv = libm::powf(fv, 1.0f / 3.0f) + noise;
    const float nd = libm::powf(fd, 1.0f / 3.0f) + noise;
    return nh + nv + nd;
}

// Levels 1..3 numerator from its sums (cm_level); upstream divides each sum, converted to
// float, by a float.
float cm_score_level(int scale, const int64_t sums[3], int w, int h, double noise_weight) {
    const Shift cub = log2_shift(w, 0);
    const Shift row_shift = log2_shift(h, 0);
    const float unshift = static_cast<float>(pow2(kCmPending[scale - 1] - cub.shift - row_shift.shift));
    const float noise = noise_floor(score_region(w, h), noise_weight);
    float total[3];
    for (int theta = 0; theta < 3; ++theta)
        total[theta] = libm::powf(static_cast<float>(sums[theta]) / unshift, 1.0f / 3.0f) + noise;
    return total[0] + total[1] + total[2];
}

// ---------------------------------------------------------------------------------------
// Scratch memory and the driver
// ---------------------------------------------------------------------------------------

// Carves views of `rows` x `cols` out of a vector, 64-byte aligned rows.
template <typename T>
class Arena {
public:
    void reset(std::size_t elements) {
        if (buf_.size() < elements) buf_.assign(elements, T{});
        used_ = 0;
    }
    View<T> take(int cols, int rows) {
        constexpr std::size_t kAlign = 64 / sizeof(T);
        const std::ptrdiff_t stride = static_cast<std::ptrdiff_t>((cols + kAlign - 1) / kAlign * kAlign);
        View<T> v{buf_.data() + used_, stride};
        used_ += static_cast<std::size_t>(stride) * static_cast<std::size_t>(rows);
        return v;
    }
    Bands<T> take_bands(int cols, int rows, bool with_a) {
        Bands<T> b;
        if (with_a) b.a = take(cols, rows);
        b.h = take(cols, rows);
        b.v = take(cols, rows);
        b.d = take(cols, rows);
        return b;
    }
    static std::size_t plane_elements(int cols, int rows) {
        constexpr std::size_t kAlign = 64 / sizeof(T);
        return (static_cast<std::size_t>(cols) + kAlign - 1) / kAlign * kAlign * static_cast<std::size_t>(rows);
    }

private:
    std::vector<T> buf_;
    std::size_t used_ = 0;
};

// The bands of one level: reference and distorted DWT (with a), restored and additive
// parts (the CSF of the last two is computed per row by contrast masking).
template <typename T>
struct LevelBands {
    Bands<T> ref, dis, r, a;
    static constexpr int kPlanes = 4 + 4 + 3 + 3;
    void take(Arena<T>& arena, int w, int h) {
        ref = arena.take_bands(w, h, true);
        dis = arena.take_bands(w, h, true);
        r = arena.take_bands(w, h, false);
        a = arena.take_bands(w, h, false);
    }
};

struct Scratch {
    Arena<int16_t> level0;
    Arena<int32_t> levels;
    std::vector<int16_t> tmp0;
    std::vector<int32_t> tmp;
};

}  // namespace

Shift log2_shift(double x, double offset) {
    const uint32_t s = to_u32_avx512(std::ceil(std::log2(x) + offset));
    return {s, to_u32_avx512(pow2(s - 1u))};
}

Shift den0_row_shift(const Region& rg) {
    int32_t shift = static_cast<int32_t>(std::ceil(std::log2((rg.bottom - rg.top) * (rg.right - rg.left)) - 20));
    shift = std::max(shift, 0);
    return {static_cast<uint32_t>(shift), shift > 0 ? (uint32_t{1} << (shift - 1)) : 0u};
}

AdmSums compute_adm_sums(const Plane& ref, const Plane& dis, int bit_depth, const AdmConfig& config) {
    thread_local Scratch scratch;
    const int width = ref.width();
    const int height = ref.height();

    // Band sizes per level.
    int bw[5], bh[5];
    bw[0] = width;
    bh[0] = height;
    for (int s = 1; s <= 4; ++s) {
        bw[s] = (bw[s - 1] + 1) / 2;
        bh[s] = (bh[s - 1] + 1) / 2;
    }

    scratch.level0.reset(LevelBands<int16_t>::kPlanes * Arena<int16_t>::plane_elements(bw[1], bh[1]));
    std::size_t n32 = 0;
    for (int s = 2; s <= 4; ++s) n32 += LevelBands<int32_t>::kPlanes * Arena<int32_t>::plane_elements(bw[s], bh[s]);
    scratch.levels.reset(n32);
    scratch.tmp0.resize(2 * static_cast<std::size_t>(width) + 64);
    // Levels 1..3 share one scratch row buffer, zeroed per frame: upstream reads what the
    // previous level left past the current level's rows (see dwt_taps_horizontal).
    scratch.tmp.assign(4 * static_cast<std::size_t>(bw[1]) + 64, 0);

    LevelBands<int16_t> L0;
    L0.take(scratch.level0, bw[1], bh[1]);
    LevelBands<int32_t> L[4];
    for (int s = 1; s <= 3; ++s) L[s].take(scratch.levels, bw[s + 1], bh[s + 1]);

    AdmSums sums;

    // Level 0.
    {
        const Taps taps_y = dwt_taps(height);
        const int block = config.skip_scale0 ? 0 : (bit_depth == 8 ? 32 : 64);
        const Taps taps_x = dwt_taps_horizontal(width, block);
        for (int img = 0; img < 2; ++img) {
            const Plane& p = img == 0 ? ref : dis;
            const Bands<int16_t>& b = img == 0 ? L0.ref : L0.dis;
            if (bit_depth == 8)
                dwt_level0<std::uint8_t>(p, 8, config.skip_scale0, taps_y, taps_x, scratch.tmp0.data(), b);
            else
                dwt_level0<std::uint16_t>(p, bit_depth, config.skip_scale0, taps_y, taps_x, scratch.tmp0.data(), b);
        }
        const int w = bw[1], h = bh[1];
        if (!config.skip_scale0) {
            decouple_level0(L0.ref, L0.dis, w, h, config.enhn_gain_limit, L0.r, L0.a);
            den_level0(L0.ref, w, h, sums.den[0]);
            const auto wq = csf_weights_q_scale0(config.csf);
            cm_level0(L0.r, L0.a, w, h, wq, sums.num[0]);
            if (!config.skip_aim) cm_level0(L0.a, L0.r, w, h, wq, sums.aim[0]);
        }
    }

    // Levels 1..3.
    for (int s = 1; s <= 3; ++s) {
        const int w_in = bw[s], h_in = bh[s];
        const Taps taps_y = dwt_taps(h_in);
        const Taps taps_x = dwt_taps_horizontal(w_in, 8);
        LevelBands<int32_t>& B = L[s];
        if (s == 1) {
            const View<const int16_t> ra{L0.ref.a.data, L0.ref.a.stride};
            const View<const int16_t> da{L0.dis.a.data, L0.dis.a.stride};
            dwt_level(s, ra, da, w_in, h_in, taps_y, taps_x, scratch.tmp.data(), B.ref, B.dis);
        } else {
            const View<const int32_t> ra{L[s - 1].ref.a.data, L[s - 1].ref.a.stride};
            const View<const int32_t> da{L[s - 1].dis.a.data, L[s - 1].dis.a.stride};
            dwt_level(s, ra, da, w_in, h_in, taps_y, taps_x, scratch.tmp.data(), B.ref, B.dis);
        }
        const int w = bw[s + 1], h = bh[s + 1];
        decouple_level(B.ref, B.dis, w, h, config.enhn_gain_limit, B.r, B.a);
        den_level(s, B.ref, w, h, sums.den[s]);
        const auto wq = csf_weights_q32(config.csf, s);
        cm_level(B.r, B.a, w, h, wq, sums.num[s]);
        if (!config.skip_aim) cm_level(B.a, B.r, w, h, wq, sums.aim[s]);
    }
    return sums;
}

AdmScores adm_scores(const AdmSums& sums, int width, int height, const AdmConfig& config) {
    int bw[5], bh[5];
    bw[0] = width;
    bh[0] = height;
    for (int s = 1; s <= 4; ++s) {
        bw[s] = (bw[s - 1] + 1) / 2;
        bh[s] = (bh[s - 1] + 1) / 2;
    }
    double num = 0.0, den = 0.0, aim_num = 0.0;
    AdmScores out;
    for (int s = 0; s <= 3; ++s) {
        const int w = bw[s + 1], h = bh[s + 1];
        float num_s = 0.0f, den_s = 0.0f, aim_s = 0.0f;
        if (s == 0 && config.skip_scale0) {
            den_s = 1e-10f;  // upstream: avoid a division by zero
        } else if (s == 0) {
            den_s = den_score_level0(sums.den[0], w, h, csf_weights(config.csf, 0), config.noise_weight);
            num_s = cm_score_level0(sums.num[0], w, h, config.noise_weight);
            if (!config.skip_aim) aim_s = cm_score_level0(sums.aim[0], w, h, 0.0);
        } else {
            den_s = den_score_level(s, sums.den[s], w, h, csf_weights(config.csf, s), config.noise_weight);
            num_s = cm_score_level(s, sums.num[s], w, h, config.noise_weight);
            if (!config.skip_aim) aim_s = cm_score_level(s, sums.aim[s], w, h, 0.0);
        }
        num += num_s;
        den += den_s;
        aim_num += aim_s;
        out.scale_num[s] = num_s;
        out.scale_den[s] = den_s;
    }

    // Totals below a noise limit proportional to the picture area count as 0.
    const double limit = 1e-10 * (width * height) / (1920.0 * 1080.0);
    num = num < limit ? 0 : num;
    den = den < limit ? 0 : den;
    if (den == 0.0) {
        out.score = 1.0;
    } else {
        out.score_aim = aim_num / den;
        out.score = num / den;
    }
    out.num = num;
    out.den = den;
    return out;
}

AdmScores compute_adm(const Plane& ref, const Plane& dis, int bit_depth, const AdmConfig& config) {
    return adm_scores(compute_adm_sums(ref, dis, bit_depth, config), ref.width(), ref.height(), config);
}

}  // namespace vmafx::adm
