// AVX2 kernels of the integer VIF extractor: the same integers as the reference kernels in
// vif.cpp (and as upstream libvmaf 3.2.0 src/feature/integer_vif.c and x86/vif_avx2.c),
// computed 16 columns at a time.
//
// Arithmetic. Every filter sum upstream computes is a sum of tap * value with taps summing to
// 65536 and a true result below 2^32. Here the values are split into 16-bit words and summed
// with vpmaddwd (signed 16 x 16 -> 32-bit products, adjacent pairs added), which needs signed
// words: a word w in [0, 65535] enters as w - 32768 (its top bit flipped), and since the taps
// sum to 65536 the sum comes out 32768 * 65536 = 2^31 too low; adding 2^31 back modulo 2^32
// restores the exact result (all 32-bit arithmetic here is modulo 2^32, and the true results
// fit). A 32-bit value v = hi * 65536 + lo is filtered as its two halves:
// sum c*v = 65536 * sum c*hi + sum c*lo, both partial sums below 2^32. Taps must be below
// 32768, which holds for the filters of scales 0 to 2; scale 3 (1/64 of the samples) and the
// decimation to it use the reference kernels.
//
// Lane order. vpunpck{l,h}wd work within 128-bit lanes, so in the vertical passes a pair of
// accumulators for 16 columns holds columns 0-3 and 8-11 ("lo") and 4-7 and 12-15 ("hi");
// vpackusdw of such a pair gives back the natural order. The horizontal passes compute the
// even and the odd columns of a block apart and interleave them before storing.
//
// Columns are processed in blocks of 16; the last block may read and compute columns past the
// row's end (StatisticsRow and DecimationRow say how far), which are never used.
#include "feature/vif/vif_kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#include <vector>

namespace vmafx::vif {

namespace {

using std::int16_t;
using std::int32_t;
using std::uint16_t;
using std::uint32_t;
using std::uint8_t;

/// Length of the right-hand slack of the working rows, past width + padding.
constexpr int kSlack = 64;

/// Working rows of the AVX2 kernels, per thread (defined outside the AVX2 code so that the
/// std::vector code is compiled for every CPU).
struct Avx2Rows {
    /// The vertically filtered rows as biased 16-bit words (value - 32768), kMaxHalf samples
    /// of mirror padding before sample 0 and kMaxHalf + kSlack after `width`: the means
    /// mu1, mu2 and the low and high halves of xx, yy, xy; then the two rows of the
    /// decimation filter.
    enum Stream { kMu1, kMu2, kXxLo, kXxHi, kYyLo, kYyHi, kXyLo, kXyHi, kConvRef, kConvDis, kStreams };
    std::vector<int16_t> words;
    std::vector<int32_t> sigmas;  ///< sigma1_sq, sigma2_sq, sigma12 rows (width + 16 each)
    std::size_t row_words = 0;
    std::size_t sigma_row = 0;

    int16_t* stream(Stream s) { return words.data() + static_cast<std::size_t>(s) * row_words + kMaxHalf; }
    int32_t* sigma(int i) { return sigmas.data() + static_cast<std::size_t>(i) * sigma_row; }
};

Avx2Rows& avx2_rows(int width) {
    thread_local Avx2Rows rows;
    const std::size_t row_words = static_cast<std::size_t>(width) + 2 * kMaxHalf + kSlack;
    if (rows.row_words < row_words) {
        rows.row_words = row_words;
        rows.sigma_row = static_cast<std::size_t>(width) + 16;
        rows.words.assign(row_words * Avx2Rows::kStreams, 0);
        rows.sigmas.assign(rows.sigma_row * 3, 0);
    }
    return rows;
}

bool cpu_has_avx2() { return __builtin_cpu_supports("avx2"); }

/// Fills the `half` samples on each side of row[0, width) by mirroring.
void mirror_pad(int16_t* row, int width, int half) {
    for (int k = 1; k <= half; ++k) {
        row[-k] = row[k];
        row[width - 1 + k] = row[width - 1 - k];
    }
}

// GCC's pragma; clang (the fuzzing build) ignores it and needs its own.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

using V = __m256i;

inline V load_words(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline V load_bytes_as_words(const uint8_t* p) {
    return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline void store(void* p, V v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }

/// Flips the top bit of each 16-bit word: an unsigned word w becomes the signed w - 32768.
inline V bias(V w) { return _mm256_xor_si256(w, _mm256_set1_epi16(static_cast<int16_t>(0x8000))); }
/// The 2^31 that biased sums lack (see the file comment), added to each 32-bit lane.
inline V unbias(V sum) { return _mm256_add_epi32(sum, _mm256_set1_epi32(static_cast<int32_t>(0x80000000u))); }

/// The tap pair (c0, c1) in every 32-bit lane, for vpmaddwd.
inline V tap_pair(uint32_t c0, uint32_t c1) { return _mm256_set1_epi32(static_cast<int32_t>(c0 | (c1 << 16))); }

/// 16 columns of 32-bit sums in lane order (see the file comment).
struct Sums {
    V lo;
    V hi;
};

inline Sums zero_sums() { return {_mm256_setzero_si256(), _mm256_setzero_si256()}; }

/// acc += v per 32-bit lane.
inline void add(V& acc, V v) { acc = _mm256_add_epi32(acc, v); }

/// sums += a * c0 + b * c1 per column, for signed words a, b and the tap pair `taps`.
inline void add_pair(Sums& sums, V a, V b, V taps) {
    add(sums.lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), taps));
    add(sums.hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), taps));
}

/// 16 values below 65536 in lane order -> 16 biased words in natural order.
inline V pack_biased(V lo, V hi) { return bias(_mm256_packus_epi32(lo, hi)); }

/// Stores the low and high 16-bit halves of 16 32-bit values (lane order) as biased words.
inline void store_halves(int16_t* lo_row, int16_t* hi_row, V lo, V hi) {
    const V mask = _mm256_set1_epi32(0xffff);
    store(lo_row, pack_biased(_mm256_and_si256(lo, mask), _mm256_and_si256(hi, mask)));
    store(hi_row, pack_biased(_mm256_srli_epi32(lo, 16), _mm256_srli_epi32(hi, 16)));
}

/// (v + round) >> shift per 32-bit lane, round = 2^(shift-1).
inline V round_shift(V v, int shift) {
    const V round = _mm256_set1_epi32(static_cast<int32_t>(1u << (shift - 1)));
    return _mm256_srl_epi32(_mm256_add_epi32(v, round), _mm_cvtsi32_si128(shift));
}

/// 65536 * high + low, rounded right by `shift` bits (1 <= shift <= 16) and truncated to 32
/// bits: (high << (16 - shift)) + ((low + round) >> shift), exact for low + round < 2^32.
inline V combine_halves(V high, V low, int shift) {
    return _mm256_add_epi32(_mm256_sll_epi32(high, _mm_cvtsi32_si128(16 - shift)), round_shift(low, shift));
}

/// Per 32-bit lane: (a * b + 2^31) >> 32 for unsigned a, b (upstream's mu1_sq_val etc.).
inline V mul_round_high(V a, V b) {
    const V round = _mm256_set1_epi64x(0x80000000);
    const V even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), round), 32);
    const V odd = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), round);
    return _mm256_blend_epi32(even, odd, 0xaa);
}

/// Source row k of a vertical filter at column j as 16 words (bytes widened).
inline V row_words(const uint8_t* const* rows, int k, int j) { return load_bytes_as_words(rows[k] + j); }
inline V row_words(const uint16_t* const* rows, int k, int j) { return load_words(rows[k] + j); }

/// Vertical pass of the statistics of scale kScale for 16-bit samples (upstream
/// vif_statistic_16, vertical loop) into the biased stream rows: mu = (sum c*x + round) >>
/// mean_shift and the products (sum c*x*y + round) >> square_shift, truncated to 32 bits, as
/// halves. A product x*y is filtered as its two 16-bit words (vpmullw, vpmulhuw).
template <int kScale>
void vertical_statistics(const StatisticsRow<uint16_t>& in, Avx2Rows& rows) {
    constexpr Filter f = kFilters[kScale];
    int16_t* mu1_row = rows.stream(Avx2Rows::kMu1);
    int16_t* mu2_row = rows.stream(Avx2Rows::kMu2);
    int16_t* out_lo[3] = {rows.stream(Avx2Rows::kXxLo), rows.stream(Avx2Rows::kYyLo), rows.stream(Avx2Rows::kXyLo)};
    int16_t* out_hi[3] = {rows.stream(Avx2Rows::kXxHi), rows.stream(Avx2Rows::kYyHi), rows.stream(Avx2Rows::kXyHi)};

    for (int j = 0; j < in.width; j += 16) {
        Sums mu1 = zero_sums(), mu2 = zero_sums();
        for (int k = 0; k < f.width; k += 2) {
            const int k1 = k + 1 < f.width ? k + 1 : k;
            const V taps = tap_pair(f.taps[k], k + 1 < f.width ? f.taps[k + 1] : 0);
            add_pair(mu1, bias(row_words(in.ref_rows, k, j)), bias(row_words(in.ref_rows, k1, j)), taps);
            add_pair(mu2, bias(row_words(in.dis_rows, k, j)), bias(row_words(in.dis_rows, k1, j)), taps);
        }
        store(mu1_row + j, pack_biased(round_shift(unbias(mu1.lo), in.mean_shift),
                                       round_shift(unbias(mu1.hi), in.mean_shift)));
        store(mu2_row + j, pack_biased(round_shift(unbias(mu2.lo), in.mean_shift),
                                       round_shift(unbias(mu2.hi), in.mean_shift)));

        // Products ref*ref, dis*dis, ref*dis, one at a time.
        for (int p = 0; p < 3; ++p) {
            const uint16_t* const* a_rows = p == 1 ? in.dis_rows : in.ref_rows;
            const uint16_t* const* b_rows = p == 0 ? in.ref_rows : in.dis_rows;
            Sums low = zero_sums(), high = zero_sums();
            for (int k = 0; k < f.width; k += 2) {
                const int k1 = k + 1 < f.width ? k + 1 : k;
                const V taps = tap_pair(f.taps[k], k + 1 < f.width ? f.taps[k + 1] : 0);
                const V a0 = row_words(a_rows, k, j), b0 = row_words(b_rows, k, j);
                const V a1 = row_words(a_rows, k1, j), b1 = row_words(b_rows, k1, j);
                add_pair(low, bias(_mm256_mullo_epi16(a0, b0)), bias(_mm256_mullo_epi16(a1, b1)), taps);
                add_pair(high, bias(_mm256_mulhi_epu16(a0, b0)), bias(_mm256_mulhi_epu16(a1, b1)), taps);
            }
            store_halves(out_lo[p] + j, out_hi[p] + j,
                         combine_halves(unbias(high.lo), unbias(low.lo), in.square_shift),
                         combine_halves(unbias(high.hi), unbias(low.hi), in.square_shift));
        }
    }
}

/// Vertical pass of scale 0 for 8-bit samples (upstream vif_statistic_8, vertical loop). The
/// filter is symmetric, so rows k and 16 - k share a tap c and enter as interleaved pairs:
/// vpmaddwd of a pair with itself gives x_k^2 + x_(16-k)^2 exactly (both below 256), which
/// vpmulld scales by c; the means use vpmaddwd with (c, c). All sums are below 2^32 and the
/// products need no rounding (upstream keeps them unshifted).
void vertical_statistics_u8(const StatisticsRow<uint8_t>& in, Avx2Rows& rows) {
    constexpr Filter f = kFilters[0];
    constexpr int half = f.width / 2;
    int16_t* mu1_row = rows.stream(Avx2Rows::kMu1);
    int16_t* mu2_row = rows.stream(Avx2Rows::kMu2);
    const V zero = _mm256_setzero_si256();
    for (int j = 0; j < in.width; j += 16) {
        Sums mu1 = zero_sums(), mu2 = zero_sums(), xx = zero_sums(), yy = zero_sums(), xy = zero_sums();
        for (int k = 0; k <= half; ++k) {
            const int k1 = f.width - 1 - k;
            const uint32_t c = f.taps[k];
            const V r0 = row_words(in.ref_rows, k, j), d0 = row_words(in.dis_rows, k, j);
            const V r1 = k1 != k ? row_words(in.ref_rows, k1, j) : zero;
            const V d1 = k1 != k ? row_words(in.dis_rows, k1, j) : zero;
            const V taps = tap_pair(c, c);
            const V scale = _mm256_set1_epi32(static_cast<int32_t>(c));
            const V r_lo = _mm256_unpacklo_epi16(r0, r1), r_hi = _mm256_unpackhi_epi16(r0, r1);
            const V d_lo = _mm256_unpacklo_epi16(d0, d1), d_hi = _mm256_unpackhi_epi16(d0, d1);
            add(mu1.lo, _mm256_madd_epi16(r_lo, taps));
            add(mu1.hi, _mm256_madd_epi16(r_hi, taps));
            add(mu2.lo, _mm256_madd_epi16(d_lo, taps));
            add(mu2.hi, _mm256_madd_epi16(d_hi, taps));
            add(xx.lo, _mm256_mullo_epi32(_mm256_madd_epi16(r_lo, r_lo), scale));
            add(xx.hi, _mm256_mullo_epi32(_mm256_madd_epi16(r_hi, r_hi), scale));
            add(yy.lo, _mm256_mullo_epi32(_mm256_madd_epi16(d_lo, d_lo), scale));
            add(yy.hi, _mm256_mullo_epi32(_mm256_madd_epi16(d_hi, d_hi), scale));
            add(xy.lo, _mm256_mullo_epi32(_mm256_madd_epi16(r_lo, d_lo), scale));
            add(xy.hi, _mm256_mullo_epi32(_mm256_madd_epi16(r_hi, d_hi), scale));
        }
        store(mu1_row + j, pack_biased(round_shift(mu1.lo, in.mean_shift), round_shift(mu1.hi, in.mean_shift)));
        store(mu2_row + j, pack_biased(round_shift(mu2.lo, in.mean_shift), round_shift(mu2.hi, in.mean_shift)));
        store_halves(rows.stream(Avx2Rows::kXxLo) + j, rows.stream(Avx2Rows::kXxHi) + j, xx.lo, xx.hi);
        store_halves(rows.stream(Avx2Rows::kYyLo) + j, rows.stream(Avx2Rows::kYyHi) + j, yy.lo, yy.hi);
        store_halves(rows.stream(Avx2Rows::kXyLo) + j, rows.stream(Avx2Rows::kXyHi) + j, xy.lo, xy.hi);
    }
}

/// 16 outputs of a horizontal filter: columns j, j+2, ..., j+14 and j+1, j+3, ..., j+15.
struct EvenOdd {
    V even;
    V odd;
};

/// Horizontal filter of one biased stream row at the 16 outputs from column j: the exact
/// 32-bit sums. For output column c the tap pair (k, k+1) reads the adjacent words
/// row[c - half + k] and row[c - half + k + 1], so for 8 outputs of one parity vpmaddwd takes
/// them straight from one load.
template <int kScale>
inline EvenOdd filter_row(const int16_t* row, int j) {
    constexpr Filter f = kFilters[kScale];
    constexpr int half = f.width / 2;
    V even = _mm256_setzero_si256(), odd = _mm256_setzero_si256();
    for (int k = 0; k < f.width; k += 2) {
        const V taps = tap_pair(f.taps[k], k + 1 < f.width ? f.taps[k + 1] : 0);
        even = _mm256_add_epi32(even, _mm256_madd_epi16(load_words(row + j - half + k), taps));
        odd = _mm256_add_epi32(odd, _mm256_madd_epi16(load_words(row + j + 1 - half + k), taps));
    }
    return {unbias(even), unbias(odd)};
}

/// 16 values of a filtered 32-bit product stream from its filtered halves: upstream's
/// (sum + 32768) >> 16 truncated to 32 bits.
template <int kScale>
inline EvenOdd filter_product(const int16_t* lo_row, const int16_t* hi_row, int j) {
    const EvenOdd low = filter_row<kScale>(lo_row, j);
    const EvenOdd high = filter_row<kScale>(hi_row, j);
    return {combine_halves(high.even, low.even, 16), combine_halves(high.odd, low.odd, 16)};
}

/// Stores 16 32-bit values given as even and odd columns in natural order.
inline void store_in_order(int32_t* out, V even, V odd) {
    const V first = _mm256_unpacklo_epi32(even, odd);  // columns 0-3, 8-11
    const V second = _mm256_unpackhi_epi32(even, odd);  // columns 4-7, 12-15
    store(out, _mm256_permute2x128_si256(first, second, 0x20));
    store(out + 8, _mm256_permute2x128_si256(first, second, 0x31));
}

/// Horizontal pass of the statistics of scale kScale (upstream vif_statistic_*, horizontal
/// loop): the variances and covariance of each sample of the row.
template <int kScale>
void horizontal_statistics(int width, Avx2Rows& rows) {
    int32_t* sigma1_sq = rows.sigma(0);
    int32_t* sigma2_sq = rows.sigma(1);
    int32_t* sigma12 = rows.sigma(2);
    const V zero = _mm256_setzero_si256();
    for (int j = 0; j < width; j += 16) {
        const EvenOdd mu1 = filter_row<kScale>(rows.stream(Avx2Rows::kMu1), j);
        const EvenOdd mu2 = filter_row<kScale>(rows.stream(Avx2Rows::kMu2), j);
        const EvenOdd mu1_sq{mul_round_high(mu1.even, mu1.even), mul_round_high(mu1.odd, mu1.odd)};
        const EvenOdd mu2_sq{mul_round_high(mu2.even, mu2.even), mul_round_high(mu2.odd, mu2.odd)};
        const EvenOdd mu1_mu2{mul_round_high(mu1.even, mu2.even), mul_round_high(mu1.odd, mu2.odd)};

        const EvenOdd xx = filter_product<kScale>(rows.stream(Avx2Rows::kXxLo), rows.stream(Avx2Rows::kXxHi), j);
        store_in_order(sigma1_sq + j, _mm256_sub_epi32(xx.even, mu1_sq.even), _mm256_sub_epi32(xx.odd, mu1_sq.odd));
        const EvenOdd yy = filter_product<kScale>(rows.stream(Avx2Rows::kYyLo), rows.stream(Avx2Rows::kYyHi), j);
        store_in_order(sigma2_sq + j, _mm256_max_epi32(_mm256_sub_epi32(yy.even, mu2_sq.even), zero),
                       _mm256_max_epi32(_mm256_sub_epi32(yy.odd, mu2_sq.odd), zero));
        const EvenOdd xy = filter_product<kScale>(rows.stream(Avx2Rows::kXyLo), rows.stream(Avx2Rows::kXyHi), j);
        store_in_order(sigma12 + j, _mm256_sub_epi32(xy.even, mu1_mu2.even), _mm256_sub_epi32(xy.odd, mu1_mu2.odd));
    }
}

/// The table index and 2048 * shift of upstream log2_64() for 4 lanes, given v as a double
/// holding an integer in [2^17, 2^52): the shift keeping the top 16 bits of v is its binary
/// exponent minus 15; 2048 * log2(v) is then table[index] + 2048 * shift. Lanes outside
/// `mask` get index 0 and shift 0 (table[0] is 0), so they add nothing.
inline void log2_parts(__m256d v, V mask, V& index, V& shift_q11) {
    const __m256d two52 = _mm256_set1_pd(4503599627370496.0);
    const V exponent = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(v), 52), _mm256_set1_epi64x(1023));
    const V shift = _mm256_sub_epi64(exponent, _mm256_set1_epi64x(15));
    const V value = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, two52)), _mm256_castpd_si256(two52));
    index = _mm256_and_si256(mask, _mm256_srlv_epi64(value, shift));
    shift_q11 = _mm256_and_si256(mask, _mm256_slli_epi64(shift, 11));
}

/// Adds the VIF terms of a row of variances to `sums`, 4 samples at a time in double
/// precision, with the same operations as add_vif_terms() (the reference) in each lane:
/// g = sigma12 / (sigma1_sq + eps), sv_sq = max((int32)(sigma2_sq - g * sigma12), 0),
/// g = min(g, gain_limit), numer1 = sv_sq + 2, numer1_tmp = (int64)(g * g * sigma1_sq) + numer1.
/// Lanes whose terms do not apply compute on a harmless stand-in and are masked out.
void add_vif_terms_x4(const int32_t* sigma1_sq, const int32_t* sigma2_sq, const int32_t* sigma12, int width,
                      double gain_limit, ScaleSums& sums) {
    const uint16_t* table = log2_table().data();
    const __m256d eps = _mm256_set1_pd(65536 * 1.0e-10);
    const __m256d nsq = _mm256_set1_pd(kSigmaNsq);
    const __m256d limit = _mm256_set1_pd(gain_limit);
    const __m256d stand_in = _mm256_set1_pd(131072.0);  // any value in [2^17, 2^52)
    const __m128i nsq_minus_1 = _mm_set1_epi32(kSigmaNsq - 1);
    const __m128i zero4 = _mm_setzero_si128();
    V num_log = _mm256_setzero_si256(), den_log = _mm256_setzero_si256();
    V num_non_log = _mm256_setzero_si256(), den_non_log = _mm256_setzero_si256();
    const V minus17 = _mm256_set1_epi64x(2048 * 17);
    int64_t num_table = 0, den_table = 0;
    const int full = width & ~3;
    for (int j = 0; j < full; j += 4) {
        const __m128i s1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sigma1_sq + j));
        const __m128i s2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sigma2_sq + j));
        const __m128i s12 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sigma12 + j));
        const __m128i log_lanes = _mm_cmpgt_epi32(s1, nsq_minus_1);  // sigma1_sq >= 2 * 65536
        const __m128i num_lanes =
            _mm_and_si128(log_lanes, _mm_and_si128(_mm_cmpgt_epi32(s12, zero4), _mm_cmpgt_epi32(s2, zero4)));
        const V log_mask = _mm256_cvtepi32_epi64(log_lanes);
        const V num_mask = _mm256_cvtepi32_epi64(num_lanes);

        // Samples below the noise variance: linear terms.
        num_non_log = _mm256_add_epi64(num_non_log, _mm256_andnot_si256(log_mask, _mm256_cvtepi32_epi64(s2)));
        den_non_log = _mm256_sub_epi64(den_non_log, _mm256_andnot_si256(log_mask, _mm256_set1_epi64x(-1)));
        if (_mm_testz_si128(log_lanes, log_lanes)) continue;  // flat areas: no logarithms

        // Denominator: log2(2 * 65536 + sigma1_sq) - 17.
        const __m256d s1d = _mm256_cvtepi32_pd(s1);
        const __m256d den_arg = _mm256_blendv_pd(stand_in, _mm256_add_pd(s1d, nsq), _mm256_castsi256_pd(log_mask));
        V den_index, den_shift;
        log2_parts(den_arg, log_mask, den_index, den_shift);
        den_log = _mm256_add_epi64(den_log, _mm256_sub_epi64(den_shift, _mm256_and_si256(log_mask, minus17)));

        // Table look-ups one by one (faster than vpgatherqq on some CPUs).
        alignas(32) int64_t index[4];
        _mm256_store_si256(reinterpret_cast<__m256i*>(index), den_index);
        den_table += table[index[0]] + table[index[1]] + table[index[2]] + table[index[3]];
        if (_mm_testz_si128(num_lanes, num_lanes)) continue;

        // Numerator: log2(numer1_tmp) - log2(numer1).
        const __m256d s12d = _mm256_cvtepi32_pd(s12);
        __m256d g = _mm256_div_pd(s12d, _mm256_add_pd(s1d, eps));
        const __m256d sv = _mm256_sub_pd(_mm256_cvtepi32_pd(s2), _mm256_mul_pd(g, s12d));
        // (int32) truncation; out of range gives INT32_MIN as upstream on x86; then max(., 0).
        const __m128i sv_sq = _mm_max_epi32(_mm256_cvttpd_epi32(sv), zero4);
        g = _mm256_min_pd(g, limit);
        const __m256d numer1 = _mm256_add_pd(_mm256_cvtepi32_pd(sv_sq), nsq);
        const __m256d gain_term = _mm256_round_pd(_mm256_mul_pd(_mm256_mul_pd(g, g), s1d),
                                                  _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        const __m256d numer1_tmp = _mm256_add_pd(gain_term, numer1);
        const __m256d num_pd_mask = _mm256_castsi256_pd(num_mask);
        V tmp_index, tmp_shift, numer1_index, numer1_shift;
        log2_parts(_mm256_blendv_pd(stand_in, numer1_tmp, num_pd_mask), num_mask, tmp_index, tmp_shift);
        log2_parts(_mm256_blendv_pd(stand_in, numer1, num_pd_mask), num_mask, numer1_index, numer1_shift);
        num_log = _mm256_add_epi64(num_log, _mm256_sub_epi64(tmp_shift, numer1_shift));
        alignas(32) int64_t tmp[4], one[4];
        _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), tmp_index);
        _mm256_store_si256(reinterpret_cast<__m256i*>(one), numer1_index);
        for (int n = 0; n < 4; ++n) num_table += table[tmp[n]] - table[one[n]];
    }
    const auto total = [](V v) {
        alignas(32) int64_t lanes[4];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
        return lanes[0] + lanes[1] + lanes[2] + lanes[3];
    };
    sums.num_log += total(num_log) + num_table;
    sums.den_log += total(den_log) + den_table;
    sums.num_non_log += total(num_non_log);
    sums.den_non_log += total(den_non_log);
    if (full < width)
        add_vif_terms(sigma1_sq + full, sigma2_sq + full, sigma12 + full, width - full, gain_limit, sums);
}

template <int kScale, typename T>
void statistics_at(const StatisticsRow<T>& in, ScaleSums& sums) {
    Avx2Rows& rows = avx2_rows(in.width);
    if constexpr (sizeof(T) == 1) vertical_statistics_u8(in, rows);
    else vertical_statistics<kScale>(in, rows);
    constexpr int half = kFilters[kScale].width / 2;
    for (int s = Avx2Rows::kMu1; s <= Avx2Rows::kXyHi; ++s)
        mirror_pad(rows.stream(static_cast<Avx2Rows::Stream>(s)), in.width, half);
    horizontal_statistics<kScale>(in.width, rows);
    add_vif_terms_x4(rows.sigma(0), rows.sigma(1), rows.sigma(2), in.width, in.gain_limit, sums);
}

void statistics_u8(const StatisticsRow<uint8_t>& in, ScaleSums& sums) {
    // 8-bit samples only occur at scale 0.
    if (in.scale == 0) return statistics_at<0>(in, sums);
    generic_kernels().statistics_u8(in, sums);
}

void statistics_u16(const StatisticsRow<uint16_t>& in, ScaleSums& sums) {
    switch (in.scale) {
    case 0: return statistics_at<0>(in, sums);
    case 1: return statistics_at<1>(in, sums);
    case 2: return statistics_at<2>(in, sums);
    default: return generic_kernels().statistics_u16(in, sums);  // tap 43728 > 32767
    }
}

/// Outputs i .. i+7 of the horizontal decimation filter with the taps of scale kTapsScale:
/// (sum c * conv[2i - half + k] + 32768) >> 16, in order, from the biased row `conv`.
template <int kTapsScale>
inline V even_outputs(const int16_t* conv, int i) {
    constexpr Filter f = kFilters[kTapsScale];
    constexpr int half = f.width / 2;
    V sum = _mm256_setzero_si256();
    for (int k = 0; k < f.width; k += 2) {
        const V taps = tap_pair(f.taps[k], k + 1 < f.width ? f.taps[k + 1] : 0);
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(load_words(conv + 2 * i - half + k), taps));
    }
    return round_shift(unbias(sum), 16);
}

/// Decimation of one row from scale kScale (upstream subsample_rd_8 / _16): the vertical
/// filter (sum c*x + round) >> shift into biased rows, mirror padding, then the horizontal
/// filter (sum c*v + 32768) >> 16 at the even columns only. For those, the words at
/// 2i - half + k and 2i - half + k + 1 are adjacent, so vpmaddwd takes them straight from
/// memory and 8 outputs come out of each vector, in order.
template <int kScale, typename T>
void decimation_at(const DecimationRow<T>& in) {
    constexpr Filter f = kFilters[kScale + 1];
    constexpr int half = f.width / 2;
    constexpr bool kBytes = sizeof(T) == 1;
    Avx2Rows& rows = avx2_rows(in.width);
    int16_t* conv_ref = rows.stream(Avx2Rows::kConvRef);
    int16_t* conv_dis = rows.stream(Avx2Rows::kConvDis);
    for (int j = 0; j < in.width; j += 16) {
        Sums ref = zero_sums(), dis = zero_sums();
        for (int k = 0; k < f.width; k += 2) {
            const int k1 = k + 1 < f.width ? k + 1 : k;
            const V taps = tap_pair(f.taps[k], k + 1 < f.width ? f.taps[k + 1] : 0);
            const V r0 = row_words(in.ref_rows, k, j), r1 = row_words(in.ref_rows, k1, j);
            const V d0 = row_words(in.dis_rows, k, j), d1 = row_words(in.dis_rows, k1, j);
            if constexpr (kBytes) {
                add_pair(ref, r0, r1, taps);
                add_pair(dis, d0, d1, taps);
            } else {
                add_pair(ref, bias(r0), bias(r1), taps);
                add_pair(dis, bias(d0), bias(d1), taps);
            }
        }
        if constexpr (!kBytes) {
            ref = {unbias(ref.lo), unbias(ref.hi)};
            dis = {unbias(dis.lo), unbias(dis.hi)};
        }
        store(conv_ref + j, pack_biased(round_shift(ref.lo, in.shift), round_shift(ref.hi, in.shift)));
        store(conv_dis + j, pack_biased(round_shift(dis.lo, in.shift), round_shift(dis.hi, in.shift)));
    }
    mirror_pad(conv_ref, in.width, half);
    mirror_pad(conv_dis, in.width, half);

    const int out_width = in.width / 2;
    for (int i = 0; i < out_width; i += 16) {
        for (int p = 0; p < 2; ++p) {
            const int16_t* conv = p == 0 ? conv_ref : conv_dis;
            uint16_t* out = p == 0 ? in.ref_out : in.dis_out;
            const V packed = _mm256_packus_epi32(even_outputs<kScale + 1>(conv, i), even_outputs<kScale + 1>(conv, i + 8));
            store(out + i, _mm256_permute4x64_epi64(packed, 0xd8));
        }
    }
}

void decimation_u8(const DecimationRow<uint8_t>& in) {
    if (in.scale == 0) return decimation_at<0>(in);
    generic_kernels().decimation_u8(in);
}

void decimation_u16(const DecimationRow<uint16_t>& in) {
    switch (in.scale) {
    case 0: return decimation_at<0>(in);
    case 1: return decimation_at<1>(in);
    default: return generic_kernels().decimation_u16(in);  // tap 43728 > 32767
    }
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

}  // namespace

const Kernels* avx2_kernels() {
    static const Kernels kernels{"avx2", statistics_u8, statistics_u16, decimation_u8, decimation_u16};
    static const bool supported = cpu_has_avx2();
    return supported ? &kernels : nullptr;
}

}  // namespace vmafx::vif

#else  // not x86

namespace vmafx::vif {
const Kernels* avx2_kernels() { return nullptr; }
}  // namespace vmafx::vif

#endif
