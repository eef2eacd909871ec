// SIMD kernels of the integer VIF extractor (Google Highway, one source for every target, the
// best one the CPU supports picked at run time): the same integers as the reference kernels in
// vif.cpp (upstream libvmaf 3.2.0 src/feature/integer_vif.c), one pixel per lane.
// tests/test_simd_kernels.cpp runs every compiled target against the reference bit for bit.
//
// Vertical passes: every filter sum is a sum of tap * value with taps summing to 65536 and a
// true result below 2^32, so it is exact modulo 2^32. A product x*y of 16-bit samples (below
// 2^32) is filtered as its two 16-bit halves: sum c*xy = 65536 * sum c*hi + sum c*lo, each
// partial sum below 2^32, recombined with the reference's rounding shift (which keeps 64 bits);
// a product of 8-bit samples fits one 16-bit half.
// The filters are symmetric, so rows k and width-1-k share a tap c. At scales 0..2 (taps below
// 32768) a column's samples of the two rows, or the halves of their products (Mul, MulHigh),
// enter as a word pair (InterleaveLower/Upper) multiplied by (c, c); the pairs of a vector come
// out per 128-bit block, and ReorderDemote2To packs per block too, so the results are stored in
// column order (on every x86 target and HWY_EMU128; the kernel test checks each target). Scale 3
// (centre tap 43728) runs one column per 32-bit lane.
//
// Horizontal passes (pairs of taps): the vertical results are kept as 16-bit words biased by
// -32768 (an unsigned word w becomes the signed w - 32768) so that a widening multiply of
// signed words by a pair of taps (PairProductsAccumulate: pmaddwd on x86, vpdpwssd on AVX3_DL)
// adds two taps of one output at a time; since the taps sum to 65536 the biased sum is 2^31
// below the true one, which is added back modulo 2^32. For output column c the tap pair (k, k+1)
// reads the adjacent words at c - half + k and c - half + k + 1, so one vector gives the even
// or the odd output columns of a block in lane order. A 32-bit value v = hi * 65536 + lo is
// filtered as its two halves. A tap of 32768 or more (43728, the centre of scale 3) enters as
// tap - 65536, and the 65536 * word it lacks is added back from the same load.
//
// The per-sample VIF terms run 64-bit lanes in double precision with the reference's
// operations in its order (a multiply then a subtract, never fused) and its logarithm table.
//
// Columns are processed in whole vectors; the last vector may read and compute columns past the
// row's end (StatisticsRow and DecimationRow say how far), which are never used.
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "feature/vif/vif_kernels.hpp"
#include "feature/vif/vif_math.hpp"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "vif_simd.cpp pairs 16-bit words inside 32-bit lanes the little-endian way"
#endif

#ifndef VMAFX_VIF_SIMD_SHARED
#define VMAFX_VIF_SIMD_SHARED
/// Forces a lambda inline (the unrolled tap loops must be, or the taps stop being constants).
#define VMAFX_ALWAYS_INLINE __attribute__((always_inline))

namespace vmafx::vif::simd_detail {

/// Right-hand slack of the working rows past width + padding, in words (a vector of 16-bit
/// words of the widest target is 32 words).
inline constexpr int kSlack = 64;

/// Working rows, per thread (outside the target-specific code so that the std::vector code is
/// compiled for every CPU).
struct Rows {
    /// The vertically filtered rows as biased words, kMaxHalf words of mirror padding before
    /// sample 0 and kMaxHalf + kSlack after `width`: the means mu1, mu2 and the low and high
    /// halves of xx, yy, xy; then the two rows of the decimation filter.
    enum Stream { kMu1, kMu2, kXxLo, kXxHi, kYyLo, kYyHi, kXyLo, kXyHi, kConvRef, kConvDis, kStreams };
    std::vector<std::int16_t> words;
    std::vector<std::int32_t> sigmas;  ///< sigma1_sq, sigma2_sq, sigma12 rows (width + kSlack each)
    std::size_t row_words = 0;
    std::size_t sigma_row = 0;

    std::int16_t* stream(int s) { return words.data() + static_cast<std::size_t>(s) * row_words + kMaxHalf; }
    std::int32_t* sigma(int i) { return sigmas.data() + static_cast<std::size_t>(i) * sigma_row; }
};

inline Rows& rows_for(int width) {
    thread_local Rows rows;
    const std::size_t row_words = static_cast<std::size_t>(width) + 2 * kMaxHalf + kSlack;
    if (rows.row_words < row_words) {
        rows.row_words = row_words;
        rows.sigma_row = static_cast<std::size_t>(width) + kSlack;
        rows.words.assign(row_words * Rows::kStreams, 0);
        rows.sigmas.assign(rows.sigma_row * 3, 0);
    }
    return rows;
}

/// Fills the `half` words on each side of row[0, width) by mirroring.
inline void mirror_pad(std::int16_t* row, int width, int half) {
    for (int k = 1; k <= half; ++k) {
        row[-k] = row[k];
        row[width - 1 + k] = row[width - 1 - k];
    }
}

}  // namespace vmafx::vif::simd_detail
#endif  // VMAFX_VIF_SIMD_SHARED

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "feature/vif/vif_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "feature/common/simd_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vmafx::vif::HWY_NAMESPACE {
using vmafx::HWY_NAMESPACE::PairProductsAccumulate;
using vmafx::HWY_NAMESPACE::SumLanesWrapping;
#if HWY_TARGET == HWY_SCALAR
// One lane per vector (the baseline target where GCC before 12.3 cannot build HWY_EMU128):
// no pairs of words to multiply; this target runs the reference kernels.
namespace {
template <typename T>
void statistics(const StatisticsRow<T>& in, ScaleSums& sums) {
    if constexpr (sizeof(T) == 1) reference_kernels().statistics_u8(in, sums);
    else reference_kernels().statistics_u16(in, sums);
}
template <typename T>
void decimation(const DecimationRow<T>& in) {
    if constexpr (sizeof(T) == 1) reference_kernels().decimation_u8(in);
    else reference_kernels().decimation_u16(in);
}
}  // namespace
#else
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using simd_detail::mirror_pad;
using simd_detail::Rows;
using std::int16_t;
using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;
using std::uint8_t;

using DU32 = hn::ScalableTag<uint32_t>;
using DI32 = hn::RebindToSigned<DU32>;
using DI16 = hn::Repartition<int16_t, DU32>;  // twice the lanes of DU32
using DU64 = hn::Repartition<uint64_t, DU32>;
using VU32 = hn::Vec<DU32>;
using VI16 = hn::Vec<DI16>;

/// Calls body(std::integral_constant<int, k>) for k = 0 .. N-1, unrolled at compile time (so
/// that the taps are constants of the column loop); `body` must be always_inline too.
template <int N, typename Body>
HWY_INLINE void unroll(Body&& body) {
    [&]<int... K>(std::integer_sequence<int, K...>) VMAFX_ALWAYS_INLINE {
        (body(std::integral_constant<int, K>{}), ...);
    }(std::make_integer_sequence<int, N>{});
}

/// Samples of type T at p[0, lanes) widened to 32-bit lanes.
template <typename T>
HWY_INLINE VU32 load_wide(const T* p) {
    const hn::Rebind<T, DU32> dt;
    return hn::PromoteTo(DU32(), hn::LoadU(dt, p));
}

/// Stores 32-bit lanes holding values below 65536 as biased words (value - 32768).
HWY_INLINE void store_biased(int16_t* p, VU32 v) {
    const DI32 di;
    const hn::Rebind<int16_t, DU32> dw;
    hn::StoreU(hn::DemoteTo(dw, hn::Sub(hn::BitCast(di, v), hn::Set(di, 32768))), dw, p);
}

/// Stores the low and high 16-bit halves of 32-bit lanes as biased words.
HWY_INLINE void store_halves(int16_t* lo_row, int16_t* hi_row, VU32 v) {
    store_biased(lo_row, hn::And(v, hn::Set(DU32(), 0xFFFFu)));
    store_biased(hi_row, hn::ShiftRight<16>(v));
}

/// (v + round) >> shift, round = 2^(shift-1) (0 for no shift).
HWY_INLINE VU32 round_shift(VU32 v, int shift) {
    return hn::ShiftRightSame(hn::Add(v, hn::Set(DU32(), rounding(shift))), shift);
}

/// 65536 * high + low, rounded right by `shift` bits (0 <= shift <= 16), modulo 2^32:
/// (high << (16 - shift)) + ((low + round) >> shift), exact for low + round < 2^32.
HWY_INLINE VU32 combine_halves(VU32 high, VU32 low, int shift) {
    return hn::Add(hn::ShiftLeftSame(high, 16 - shift), round_shift(low, shift));
}

/// The tap pair (c0, c1) for a widening multiply of word pairs: c0 in the even words, c1 in
/// the odd ones, each taken modulo 65536 (a tap of 32768 or more enters as tap - 65536).
HWY_INLINE VI16 tap_pair(uint32_t c0, uint32_t c1) {
    return hn::BitCast(DI16(), hn::Set(DU32(), (c0 & 0xFFFFu) | ((c1 & 0xFFFFu) << 16)));
}

/// acc + a[2i] * b[2i] + a[2i+1] * b[2i+1] per 32-bit lane of signed words, modulo 2^32.
HWY_INLINE VU32 pair_accumulate(VU32 acc, VI16 a, VI16 b) {
    return hn::BitCast(DU32(), PairProductsAccumulate(DI32(), hn::BitCast(DI32(), acc), a, b));
}

/// Stores 32-bit lanes holding values below 65536 as biased words, from two vectors whose
/// lanes hold the columns InterleaveLower and InterleaveUpper of one vector of columns gave
/// (per 128-bit block); ReorderDemote2To packs per block too, so the words land in column
/// order (on every x86 target and HWY_EMU128; the kernel test checks each target).
HWY_INLINE void store_biased_pair(int16_t* p, VU32 lower, VU32 upper) {
    const DI32 di;
    const hn::Vec<DI32> bias = hn::Set(di, 32768);
    hn::StoreU(hn::ReorderDemote2To(DI16(), hn::Sub(hn::BitCast(di, lower), bias), hn::Sub(hn::BitCast(di, upper), bias)),
               DI16(), p);
}

/// Vertical pass of the statistics of scale 0 for 8-bit samples (upstream vif_statistic_8,
/// vertical loop): the filter is symmetric, so rows k and 16 - k share a tap c and enter as
/// interleaved word pairs (x_k, x_16-k) of one column, multiplied by (c, c). The products x*y
/// of 8-bit samples fit 16 bits unsigned; they enter biased (x*y - 32768, the low 16 bits of a
/// word multiply with the top bit flipped), the centre's partner as 0, so each sum comes out
/// 32768 * 65536 = 2^31 low (the taps sum to 65536), which is added back modulo 2^32. Every
/// sum is below 2^32.
void vertical_statistics_bytes(const StatisticsRow<uint8_t>& in, Rows& rows) {
    constexpr const Filter& f = kFilters[0];
    constexpr int half = f.width / 2;
    static_assert(f.taps[half] < 32768, "taps must fit a signed word");
    const DI16 dw;
    const DU32 du;
    const hn::Rebind<uint8_t, DI16> db;
    const int step = static_cast<int>(hn::Lanes(dw));
    const VU32 low_mask = hn::Set(du, 0xFFFFu);
    const VU32 unbias = hn::Set(du, 0x80000000u);
    const VI16 top_bit = hn::Set(dw, static_cast<int16_t>(-32768));
    for (int j = 0; j < in.width; j += step) {
        VU32 mu1[2], mu2[2], xx[2], yy[2], xy[2];  // [0]: InterleaveLower's columns, [1]: InterleaveUpper's
        for (int h = 0; h < 2; ++h) mu1[h] = mu2[h] = xx[h] = yy[h] = xy[h] = hn::Zero(du);
        unroll<half + 1>([&](auto kk) VMAFX_ALWAYS_INLINE {
            constexpr int k = kk;
            constexpr int k1 = f.width - 1 - k;  // k1 == k: the centre tap, paired with zeros
            const VI16 r0 = hn::PromoteTo(dw, hn::LoadU(db, in.ref_rows[k] + j));
            const VI16 d0 = hn::PromoteTo(dw, hn::LoadU(db, in.dis_rows[k] + j));
            const VI16 r1 = k1 != k ? hn::PromoteTo(dw, hn::LoadU(db, in.ref_rows[k1] + j)) : hn::Zero(dw);
            const VI16 d1 = k1 != k ? hn::PromoteTo(dw, hn::LoadU(db, in.dis_rows[k1] + j)) : hn::Zero(dw);
            const VI16 taps = tap_pair(f.taps[k], f.taps[k]);
            const auto add = [&](VU32 (&acc)[2], VI16 a, VI16 b) VMAFX_ALWAYS_INLINE {
                acc[0] = pair_accumulate(acc[0], hn::InterleaveLower(dw, a, b), taps);
                acc[1] = pair_accumulate(acc[1], hn::InterleaveUpper(dw, a, b), taps);
            };
            const auto product = [&](VI16 a, VI16 b) VMAFX_ALWAYS_INLINE { return hn::Xor(hn::Mul(a, b), top_bit); };
            add(mu1, r0, r1);
            add(mu2, d0, d1);
            add(xx, product(r0, r0), k1 != k ? product(r1, r1) : hn::Zero(dw));
            add(yy, product(d0, d0), k1 != k ? product(d1, d1) : hn::Zero(dw));
            add(xy, product(r0, d0), k1 != k ? product(r1, d1) : hn::Zero(dw));
        });
        for (int h = 0; h < 2; ++h) {
            xx[h] = hn::Add(xx[h], unbias);
            yy[h] = hn::Add(yy[h], unbias);
            xy[h] = hn::Add(xy[h], unbias);
        }
        const int ms = in.mean_shift, ss = in.square_shift;
        store_biased_pair(rows.stream(Rows::kMu1) + j, hn::And(round_shift(mu1[0], ms), low_mask),
                          hn::And(round_shift(mu1[1], ms), low_mask));
        store_biased_pair(rows.stream(Rows::kMu2) + j, hn::And(round_shift(mu2[0], ms), low_mask),
                          hn::And(round_shift(mu2[1], ms), low_mask));
        const auto store_product = [&](int lo_stream, int hi_stream, const VU32 (&v)[2]) VMAFX_ALWAYS_INLINE {
            const VU32 lower = round_shift(v[0], ss), upper = round_shift(v[1], ss);
            store_biased_pair(rows.stream(lo_stream) + j, hn::And(lower, low_mask), hn::And(upper, low_mask));
            store_biased_pair(rows.stream(hi_stream) + j, hn::ShiftRight<16>(lower), hn::ShiftRight<16>(upper));
        };
        store_product(Rows::kXxLo, Rows::kXxHi, xx);
        store_product(Rows::kYyLo, Rows::kYyHi, yy);
        store_product(Rows::kXyLo, Rows::kXyHi, xy);
    }
}

/// Vertical pass of the statistics of scales 0..2 for 16-bit samples (upstream
/// vif_statistic_16, vertical loop), on interleaved row pairs as vertical_statistics_bytes():
/// samples and the 16-bit halves of the products x*y (Mul and MulHigh of the words) enter as
/// biased words, so each pair sum is c * (w_k + w_16-k) - 2 * 32768 * c, and the sums over all
/// taps come out 2^31 low, which is added back modulo 2^32. Taps must be below 32768 (scale 3
/// has 43728: it takes vertical_statistics()).
template <int kScale>
void vertical_statistics_words(const StatisticsRow<uint16_t>& in, Rows& rows) {
    constexpr const Filter& f = kFilters[kScale];
    constexpr int half = f.width / 2;
    static_assert(f.taps[half] < 32768, "taps must fit a signed word");
    const DI16 dw;
    const hn::RebindToUnsigned<DI16> dh;
    const DU32 du;
    const int step = static_cast<int>(hn::Lanes(dw));
    const VU32 low_mask = hn::Set(du, 0xFFFFu);
    const VU32 unbias = hn::Set(du, 0x80000000u);
    const auto biased = [&](hn::Vec<decltype(dh)> w) VMAFX_ALWAYS_INLINE {
        return hn::BitCast(dw, hn::Xor(w, hn::Set(dh, 0x8000)));
    };
    for (int j = 0; j < in.width; j += step) {
        // [0]: InterleaveLower's columns, [1]: InterleaveUpper's; products as low and high halves.
        VU32 mu1[2], mu2[2], xx_lo[2], xx_hi[2], yy_lo[2], yy_hi[2], xy_lo[2], xy_hi[2];
        for (int h = 0; h < 2; ++h)
            mu1[h] = mu2[h] = xx_lo[h] = xx_hi[h] = yy_lo[h] = yy_hi[h] = xy_lo[h] = xy_hi[h] = hn::Zero(du);
        unroll<half + 1>([&](auto kk) VMAFX_ALWAYS_INLINE {
            constexpr int k = kk;
            constexpr int k1 = f.width - 1 - k;  // k1 == k: the centre tap, paired with zeros
            const auto r0 = hn::LoadU(dh, in.ref_rows[k] + j), d0 = hn::LoadU(dh, in.dis_rows[k] + j);
            const auto r1 = hn::LoadU(dh, in.ref_rows[k1] + j), d1 = hn::LoadU(dh, in.dis_rows[k1] + j);
            const VI16 taps = tap_pair(f.taps[k], f.taps[k]);
            const auto add = [&](VU32 (&acc)[2], VI16 a, VI16 b) VMAFX_ALWAYS_INLINE {
                const VI16 second = k1 != k ? b : hn::Zero(dw);
                acc[0] = pair_accumulate(acc[0], hn::InterleaveLower(dw, a, second), taps);
                acc[1] = pair_accumulate(acc[1], hn::InterleaveUpper(dw, a, second), taps);
            };
            add(mu1, biased(r0), biased(r1));
            add(mu2, biased(d0), biased(d1));
            add(xx_lo, biased(hn::Mul(r0, r0)), biased(hn::Mul(r1, r1)));
            add(xx_hi, biased(hn::MulHigh(r0, r0)), biased(hn::MulHigh(r1, r1)));
            add(yy_lo, biased(hn::Mul(d0, d0)), biased(hn::Mul(d1, d1)));
            add(yy_hi, biased(hn::MulHigh(d0, d0)), biased(hn::MulHigh(d1, d1)));
            add(xy_lo, biased(hn::Mul(r0, d0)), biased(hn::Mul(r1, d1)));
            add(xy_hi, biased(hn::MulHigh(r0, d0)), biased(hn::MulHigh(r1, d1)));
        });
        const int ms = in.mean_shift, ss = in.square_shift;
        const auto mean = [&](VU32 sum) VMAFX_ALWAYS_INLINE {
            return hn::And(round_shift(hn::Add(sum, unbias), ms), low_mask);
        };
        store_biased_pair(rows.stream(Rows::kMu1) + j, mean(mu1[0]), mean(mu1[1]));
        store_biased_pair(rows.stream(Rows::kMu2) + j, mean(mu2[0]), mean(mu2[1]));
        const auto store_product = [&](int lo_stream, int hi_stream, const VU32 (&lo)[2],
                                       const VU32 (&hi)[2]) VMAFX_ALWAYS_INLINE {
            const VU32 lower = combine_halves(hn::Add(hi[0], unbias), hn::Add(lo[0], unbias), ss);
            const VU32 upper = combine_halves(hn::Add(hi[1], unbias), hn::Add(lo[1], unbias), ss);
            store_biased_pair(rows.stream(lo_stream) + j, hn::And(lower, low_mask), hn::And(upper, low_mask));
            store_biased_pair(rows.stream(hi_stream) + j, hn::ShiftRight<16>(lower), hn::ShiftRight<16>(upper));
        };
        store_product(Rows::kXxLo, Rows::kXxHi, xx_lo, xx_hi);
        store_product(Rows::kYyLo, Rows::kYyHi, yy_lo, yy_hi);
        store_product(Rows::kXyLo, Rows::kXyHi, xy_lo, xy_hi);
    }
}

/// Vertical pass of the statistics of scale kScale (upstream vif_statistic_8/_16, vertical
/// loop) into the biased stream rows: mu = (sum c*x + round) >> mean_shift and the products
/// (sum c*x*y + round) >> square_shift, truncated to 32 bits, as halves.
template <int kScale, typename T>
void vertical_statistics(const StatisticsRow<T>& in, Rows& rows) {
    constexpr const Filter& f = kFilters[kScale];
    constexpr int half = f.width / 2;
    const DU32 du;
    const int n = static_cast<int>(hn::Lanes(du));
    const VU32 low_mask = hn::Set(du, 0xFFFFu);
    int16_t* mu1_row = rows.stream(Rows::kMu1);
    int16_t* mu2_row = rows.stream(Rows::kMu2);
    for (int j = 0; j < in.width; j += n) {
        // Centre tap.
        VU32 c = hn::Set(du, f.taps[half]);
        VU32 r = load_wide(in.ref_rows[half] + j);
        VU32 d = load_wide(in.dis_rows[half] + j);
        VU32 mu1 = hn::Mul(r, c);
        VU32 mu2 = hn::Mul(d, c);
        if constexpr (sizeof(T) == 1) {
            // Every product sum is below 2^32: exact in one 32-bit lane.
            VU32 xx = hn::Mul(hn::Mul(r, r), c);
            VU32 yy = hn::Mul(hn::Mul(d, d), c);
            VU32 xy = hn::Mul(hn::Mul(r, d), c);
            unroll<half>([&](auto k) VMAFX_ALWAYS_INLINE {
                c = hn::Set(du, f.taps[k]);
                const VU32 r0 = load_wide(in.ref_rows[k] + j), r1 = load_wide(in.ref_rows[f.width - 1 - k] + j);
                const VU32 d0 = load_wide(in.dis_rows[k] + j), d1 = load_wide(in.dis_rows[f.width - 1 - k] + j);
                mu1 = hn::Add(mu1, hn::Mul(hn::Add(r0, r1), c));
                mu2 = hn::Add(mu2, hn::Mul(hn::Add(d0, d1), c));
                xx = hn::Add(xx, hn::Mul(hn::Add(hn::Mul(r0, r0), hn::Mul(r1, r1)), c));
                yy = hn::Add(yy, hn::Mul(hn::Add(hn::Mul(d0, d0), hn::Mul(d1, d1)), c));
                xy = hn::Add(xy, hn::Mul(hn::Add(hn::Mul(r0, d0), hn::Mul(r1, d1)), c));
            });
            store_halves(rows.stream(Rows::kXxLo) + j, rows.stream(Rows::kXxHi) + j, round_shift(xx, in.square_shift));
            store_halves(rows.stream(Rows::kYyLo) + j, rows.stream(Rows::kYyHi) + j, round_shift(yy, in.square_shift));
            store_halves(rows.stream(Rows::kXyLo) + j, rows.stream(Rows::kXyHi) + j, round_shift(xy, in.square_shift));
        } else {
            // Products below 2^32 filtered as halves: sums of at most 65536 * 65535.
            VU32 p = hn::Mul(r, r);
            VU32 xx_lo = hn::Mul(hn::And(p, low_mask), c), xx_hi = hn::Mul(hn::ShiftRight<16>(p), c);
            p = hn::Mul(d, d);
            VU32 yy_lo = hn::Mul(hn::And(p, low_mask), c), yy_hi = hn::Mul(hn::ShiftRight<16>(p), c);
            p = hn::Mul(r, d);
            VU32 xy_lo = hn::Mul(hn::And(p, low_mask), c), xy_hi = hn::Mul(hn::ShiftRight<16>(p), c);
            unroll<half>([&](auto k) VMAFX_ALWAYS_INLINE {
                // A pair's sum of halves is below 2^17 and its tap below 2^15 (only centre
                // taps are larger).
                c = hn::Set(du, f.taps[k]);
                const VU32 r0 = load_wide(in.ref_rows[k] + j), r1 = load_wide(in.ref_rows[f.width - 1 - k] + j);
                const VU32 d0 = load_wide(in.dis_rows[k] + j), d1 = load_wide(in.dis_rows[f.width - 1 - k] + j);
                mu1 = hn::Add(mu1, hn::Mul(hn::Add(r0, r1), c));
                mu2 = hn::Add(mu2, hn::Mul(hn::Add(d0, d1), c));
                const auto add_pair = [&](VU32& lo, VU32& hi, VU32 p0, VU32 p1) {
                    lo = hn::Add(lo, hn::Mul(hn::Add(hn::And(p0, low_mask), hn::And(p1, low_mask)), c));
                    hi = hn::Add(hi, hn::Mul(hn::Add(hn::ShiftRight<16>(p0), hn::ShiftRight<16>(p1)), c));
                };
                add_pair(xx_lo, xx_hi, hn::Mul(r0, r0), hn::Mul(r1, r1));
                add_pair(yy_lo, yy_hi, hn::Mul(d0, d0), hn::Mul(d1, d1));
                add_pair(xy_lo, xy_hi, hn::Mul(r0, d0), hn::Mul(r1, d1));
            });
            const int s = in.square_shift;
            store_halves(rows.stream(Rows::kXxLo) + j, rows.stream(Rows::kXxHi) + j, combine_halves(xx_hi, xx_lo, s));
            store_halves(rows.stream(Rows::kYyLo) + j, rows.stream(Rows::kYyHi) + j, combine_halves(yy_hi, yy_lo, s));
            store_halves(rows.stream(Rows::kXyLo) + j, rows.stream(Rows::kXyHi) + j, combine_halves(xy_hi, xy_lo, s));
        }
        // The means, truncated to 16 bits as the reference stores them.
        store_biased(mu1_row + j, hn::And(round_shift(mu1, in.mean_shift), low_mask));
        store_biased(mu2_row + j, hn::And(round_shift(mu2, in.mean_shift), low_mask));
    }
}


/// Horizontal filter with the taps of scale kTapsScale of the biased word row `row` at the
/// outputs whose first tap reads row[first + 2m] (m = 0 .. lanes-1): the exact 32-bit sums.
template <int kTapsScale>
HWY_INLINE VU32 filter_words(const int16_t* row, std::ptrdiff_t first) {
    constexpr const Filter& f = kFilters[kTapsScale];
    const DI16 dw;
    const DI32 di;
    const DU32 du;
    hn::Vec<DI32> sum0 = hn::Zero(di);
    VU32 correction = hn::Zero(du);
    unroll<(f.width + 1) / 2>([&](auto pair) VMAFX_ALWAYS_INLINE {
        constexpr int k = 2 * pair;
        constexpr uint32_t c0 = f.taps[k];
        constexpr uint32_t c1 = k + 1 < f.width ? f.taps[k + 1] : 0u;
        const VI16 w = hn::LoadU(dw, row + first + k);
        sum0 = PairProductsAccumulate(di, sum0, w, tap_pair(c0, c1));
        // A tap of 32768 or more entered as tap - 65536: add 65536 * word back (mod 2^32).
        if constexpr (c0 >= 32768) correction = hn::Add(correction, hn::ShiftLeft<16>(hn::BitCast(du, w)));
        if constexpr (c1 >= 32768)
            correction = hn::Add(correction, hn::And(hn::BitCast(du, w), hn::Set(du, 0xFFFF0000u)));
    });
    const VU32 biased = hn::Add(hn::BitCast(du, sum0), correction);
    return hn::Add(biased, hn::Set(du, 0x80000000u));  // the 32768 * 65536 the bias took away
}

/// Per 32-bit lane: (a * b + 2^31) >> 32 (upstream's mu1_sq_val etc., mean_product()).
HWY_INLINE VU32 mean_product(VU32 a, VU32 b) {
    const DU32 du;
    const DU64 dq;
    const hn::Vec<DU64> round = hn::Set(dq, uint64_t{0x80000000u});
    const hn::Vec<DU64> even = hn::ShiftRight<32>(hn::Add(hn::MulEven(a, b), round));
    const VU32 a_odd = hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(dq, a)));
    const VU32 b_odd = hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(dq, b)));
    const hn::Vec<DU64> odd = hn::Add(hn::MulEven(a_odd, b_odd), round);  // result in the upper half
    return hn::OddEven(hn::BitCast(du, odd), hn::BitCast(du, even));
}

/// Horizontal pass of the statistics of scale kScale (upstream vif_statistic_*, horizontal
/// loop): the variances and covariance of each sample of the row, in column order.
template <int kScale>
void horizontal_statistics(int width, Rows& rows) {
    constexpr int half = kFilters[kScale].width / 2;
    const DU32 du;
    const DI32 di;
    const int n = static_cast<int>(hn::Lanes(du));
    int32_t* sigma1_sq = rows.sigma(0);
    int32_t* sigma2_sq = rows.sigma(1);
    int32_t* sigma12 = rows.sigma(2);
    const int16_t* mu1_row = rows.stream(Rows::kMu1);
    const int16_t* mu2_row = rows.stream(Rows::kMu2);
    const auto product = [&](int lo, int hi, std::ptrdiff_t first) {
        const VU32 low = filter_words<kScale>(rows.stream(lo), first);
        const VU32 high = filter_words<kScale>(rows.stream(hi), first);
        return combine_halves(high, low, kHorizontalShift);
    };
    for (int j = 0; j < width; j += 2 * n) {
        // The even output columns j, j+2, ... and the odd ones j+1, j+3, ...
        const std::ptrdiff_t even = j - half, odd = j + 1 - half;
        const VU32 mu1_even = filter_words<kScale>(mu1_row, even), mu1_odd = filter_words<kScale>(mu1_row, odd);
        const VU32 mu2_even = filter_words<kScale>(mu2_row, even), mu2_odd = filter_words<kScale>(mu2_row, odd);
        hn::StoreInterleaved2(
            hn::BitCast(di, hn::Sub(product(Rows::kXxLo, Rows::kXxHi, even), mean_product(mu1_even, mu1_even))),
            hn::BitCast(di, hn::Sub(product(Rows::kXxLo, Rows::kXxHi, odd), mean_product(mu1_odd, mu1_odd))), di,
            sigma1_sq + j);
        hn::StoreInterleaved2(
            hn::Max(hn::BitCast(di, hn::Sub(product(Rows::kYyLo, Rows::kYyHi, even), mean_product(mu2_even, mu2_even))),
                    hn::Zero(di)),
            hn::Max(hn::BitCast(di, hn::Sub(product(Rows::kYyLo, Rows::kYyHi, odd), mean_product(mu2_odd, mu2_odd))),
                    hn::Zero(di)),
            di, sigma2_sq + j);
        hn::StoreInterleaved2(
            hn::BitCast(di, hn::Sub(product(Rows::kXyLo, Rows::kXyHi, even), mean_product(mu1_even, mu2_even))),
            hn::BitCast(di, hn::Sub(product(Rows::kXyLo, Rows::kXyHi, odd), mean_product(mu1_odd, mu2_odd))), di,
            sigma12 + j);
    }
}

using DF64 = hn::ScalableTag<double>;
using VF64 = hn::Vec<DF64>;
using DI64 = hn::RebindToSigned<DF64>;
using DQ = hn::RebindToUnsigned<DF64>;

/// The table index and 2048 * shift of log2_index_64() / log2_q11_64() for lanes holding an integer v in
/// [2^17, 2^52) as a double: the shift keeping the top 16 bits of v is its binary exponent
/// minus 15, the index v >> shift; 2048 * log2(v) is then table[index] + 2048 * shift. Lanes
/// outside `mask` get index 0 and shift 0 (table[0] is 0), so they add nothing; they must hold
/// such an integer too.
HWY_INLINE void log2_parts(VF64 v, hn::Mask<DQ> mask, hn::Vec<DQ>& index, hn::Vec<DI64>& shift_q11) {
    const DF64 df;
    const DQ dq;
    const DI64 di;
    const VF64 two52 = hn::Set(df, 4503599627370496.0);
    const hn::Vec<DQ> exponent = hn::Sub(hn::ShiftRight<52>(hn::BitCast(dq, v)), hn::Set(dq, 1023));
    const hn::Vec<DQ> shift = hn::Sub(exponent, hn::Set(dq, 15));
    const hn::Vec<DQ> value = hn::Sub(hn::BitCast(dq, hn::Add(v, two52)), hn::BitCast(dq, two52));
    index = hn::IfThenElseZero(mask, hn::Shr(value, shift));
    shift_q11 = hn::BitCast(di, hn::IfThenElseZero(mask, hn::ShiftLeft<11>(shift)));
}

/// Sum of table[index] over the lanes.
HWY_INLINE int64_t table_sum(const uint16_t* table, hn::Vec<DQ> index) {
    const DQ dq;
    HWY_ALIGN uint64_t lanes[hn::MaxLanes(dq)];
    hn::Store(index, dq, lanes);
    int64_t sum = 0;
    for (std::size_t i = 0; i < hn::Lanes(dq); ++i) sum += table[lanes[i]];
    return sum;
}

/// Adds the VIF terms of a row of variances to `sums`, a vector of samples at a time in double
/// precision, with the operations of add_sample_terms() (the reference) in each lane:
/// g = sigma12 / (sigma1_sq + eps), sv_sq = max((int32)(sigma2_sq - g * sigma12), 0),
/// g = min(g, gain_limit), numer1 = sv_sq + 2 * 65536, numer1_tmp = (int64)(g * g * sigma1_sq)
/// + numer1. Lanes whose terms do not apply compute on a stand-in and are masked out.
void add_terms(const int32_t* sigma1_sq, const int32_t* sigma2_sq, const int32_t* sigma12, int width,
                   double gain_limit, ScaleSums& sums) {
    const DF64 df;
    const DQ dq;
    const DI64 di;
    const hn::Rebind<int32_t, DF64> d32;
    const int n = static_cast<int>(hn::Lanes(df));
    const uint16_t* table = log2_table().data();
    const VF64 eps = hn::Set(df, 65536 * 1.0e-10);
    const VF64 nsq = hn::Set(df, static_cast<double>(kSigmaNsq));
    const VF64 limit = hn::Set(df, gain_limit);
    const VF64 stand_in = hn::Set(df, 131072.0);  // any integer in [2^17, 2^52)
    const VF64 zero = hn::Zero(df);
    const hn::Vec<DI64> q11_17 = hn::Set(di, int64_t{2048 * 17});
    hn::Vec<DI64> num_log = hn::Zero(di), den_log = hn::Zero(di), num_non_log = hn::Zero(di);
    int64_t den_non_log = 0, num_table = 0, den_table = 0;
    const int full = width - width % n;
    for (int j = 0; j < full; j += n) {
        const auto s1i = hn::LoadU(d32, sigma1_sq + j);
        const auto s2i = hn::LoadU(d32, sigma2_sq + j);
        const VF64 s1 = hn::PromoteTo(df, s1i);
        const VF64 s2 = hn::PromoteTo(df, s2i);
        const auto log_f = hn::Ge(s1, nsq);  // sigma1_sq >= 2 * 65536
        const auto log_q = hn::RebindMask(dq, log_f);

        // Samples below the noise variance: linear terms.
        num_non_log = hn::Add(num_non_log, hn::IfThenZeroElse(hn::RebindMask(di, log_f), hn::PromoteTo(di, s2i)));
        const std::size_t logs = hn::CountTrue(df, log_f);
        den_non_log += n - static_cast<int64_t>(logs);
        if (logs == 0) continue;  // flat areas: no logarithms

        // Denominator: log2(2 * 65536 + sigma1_sq) - 17.
        hn::Vec<DQ> den_index;
        hn::Vec<DI64> den_shift;
        log2_parts(hn::IfThenElse(log_f, hn::Add(s1, nsq), stand_in), log_q, den_index, den_shift);
        den_log = hn::Add(den_log, hn::Sub(den_shift, hn::IfThenElseZero(hn::RebindMask(di, log_f), q11_17)));
        den_table += table_sum(table, den_index);

        const VF64 s12 = hn::PromoteTo(df, hn::LoadU(d32, sigma12 + j));
        const auto num_f = hn::And(log_f, hn::And(hn::Gt(s12, zero), hn::Gt(s2, zero)));
        if (hn::AllFalse(df, num_f)) continue;

        // Numerator: log2(numer1_tmp) - log2(numer1).
        VF64 g = hn::Div(s12, hn::Add(s1, eps));
        const VF64 sv = hn::Sub(s2, hn::Mul(g, s12));
        // (int32)sv where sv > 0, else 0; sv <= sigma2_sq, so the truncation is exact.
        const VF64 sv_sq = hn::Trunc(hn::Max(sv, zero));
        g = hn::Min(g, limit);
        const VF64 numer1 = hn::Add(sv_sq, nsq);
        const VF64 numer1_tmp = hn::Add(hn::Trunc(hn::Mul(hn::Mul(g, g), s1)), numer1);
        const auto num_q = hn::RebindMask(dq, num_f);
        hn::Vec<DQ> tmp_index, one_index;
        hn::Vec<DI64> tmp_shift, one_shift;
        log2_parts(hn::IfThenElse(num_f, numer1_tmp, stand_in), num_q, tmp_index, tmp_shift);
        log2_parts(hn::IfThenElse(num_f, numer1, stand_in), num_q, one_index, one_shift);
        num_log = hn::Add(num_log, hn::Sub(tmp_shift, one_shift));
        num_table += table_sum(table, tmp_index) - table_sum(table, one_index);
    }
    sums.num_log += SumLanesWrapping(di, num_log) + num_table;
    sums.den_log += SumLanesWrapping(di, den_log) + den_table;
    sums.num_non_log += SumLanesWrapping(di, num_non_log);
    sums.den_non_log += den_non_log;
    if (full < width)
        vmafx::vif::add_vif_terms(sigma1_sq + full, sigma2_sq + full, sigma12 + full, width - full, gain_limit, sums);
}

template <int kScale, typename T>
void statistics_at(const StatisticsRow<T>& in, ScaleSums& sums) {
    constexpr int half = kFilters[kScale].width / 2;
    Rows& rows = simd_detail::rows_for(in.width);
    if constexpr (kScale == 0 && sizeof(T) == 1) vertical_statistics_bytes(in, rows);
    else if constexpr (kScale < 3 && sizeof(T) == 2) vertical_statistics_words<kScale>(in, rows);
    else vertical_statistics<kScale>(in, rows);
    for (int s = Rows::kMu1; s <= Rows::kXyHi; ++s) mirror_pad(rows.stream(s), in.width, half);
    horizontal_statistics<kScale>(in.width, rows);
    add_terms(rows.sigma(0), rows.sigma(1), rows.sigma(2), in.width, in.gain_limit, sums);
}

template <typename T>
void statistics(const StatisticsRow<T>& in, ScaleSums& sums) {
    switch (in.scale) {
    case 0: return statistics_at<0>(in, sums);
    case 1: return statistics_at<1>(in, sums);
    case 2: return statistics_at<2>(in, sums);
    default: return statistics_at<3>(in, sums);
    }
}

/// Decimation of one row from scale kScale (upstream subsample_rd_8 / _16): the vertical
/// filter (sum c*x + round) >> shift into biased rows, mirror padding, then the horizontal
/// filter (sum c*v + 32768) >> 16 at the even columns only: for output i the tap pair (k, k+1)
/// reads the adjacent words 2i - half + k and 2i - half + k + 1, so the outputs come out of
/// the widening multiplies in order.
template <int kScale, typename T>
void decimation_at(const DecimationRow<T>& in) {
    constexpr const Filter& f = kFilters[kScale + 1];
    constexpr int half = f.width / 2;
    const DU32 du;
    const DI32 di;
    const int n = static_cast<int>(hn::Lanes(du));
    Rows& rows = simd_detail::rows_for(in.width);
    int16_t* conv_ref = rows.stream(Rows::kConvRef);
    int16_t* conv_dis = rows.stream(Rows::kConvDis);
    const VU32 low_mask = hn::Set(du, 0xFFFFu);
    for (int j = 0; j < in.width; j += n) {
        VU32 c = hn::Set(du, f.taps[half]);
        VU32 ref = hn::Mul(load_wide(in.ref_rows[half] + j), c);
        VU32 dis = hn::Mul(load_wide(in.dis_rows[half] + j), c);
        unroll<half>([&](auto k) VMAFX_ALWAYS_INLINE {
            c = hn::Set(du, f.taps[k]);
            const VU32 r0 = load_wide(in.ref_rows[k] + j), r1 = load_wide(in.ref_rows[f.width - 1 - k] + j);
            const VU32 d0 = load_wide(in.dis_rows[k] + j), d1 = load_wide(in.dis_rows[f.width - 1 - k] + j);
            ref = hn::Add(ref, hn::Mul(hn::Add(r0, r1), c));
            dis = hn::Add(dis, hn::Mul(hn::Add(d0, d1), c));
        });
        store_biased(conv_ref + j, hn::And(round_shift(ref, in.shift), low_mask));
        store_biased(conv_dis + j, hn::And(round_shift(dis, in.shift), low_mask));
    }
    mirror_pad(conv_ref, in.width, half);
    mirror_pad(conv_dis, in.width, half);

    const hn::Rebind<uint16_t, DU32> d16;
    const int out_width = in.width / 2;
    for (int i = 0; i < out_width; i += n) {
        const std::ptrdiff_t first = 2 * static_cast<std::ptrdiff_t>(i) - half;
        const VU32 r = round_shift(filter_words<kScale + 1>(conv_ref, first), kHorizontalShift);
        const VU32 d = round_shift(filter_words<kScale + 1>(conv_dis, first), kHorizontalShift);
        hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, r)), d16, in.ref_out + i);
        hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, d)), d16, in.dis_out + i);
    }
}

template <typename T>
void decimation(const DecimationRow<T>& in) {
    switch (in.scale) {
    case 0: return decimation_at<0>(in);
    case 1: return decimation_at<1>(in);
    default: return decimation_at<2>(in);
    }
}

}  // namespace
#endif  // HWY_TARGET == HWY_SCALAR

// The exported entries (one per target).
void StatisticsU8(const StatisticsRow<uint8_t>& in, ScaleSums& sums) { statistics(in, sums); }
void StatisticsU16(const StatisticsRow<uint16_t>& in, ScaleSums& sums) { statistics(in, sums); }
void DecimationU8(const DecimationRow<uint8_t>& in) { decimation(in); }
void DecimationU16(const DecimationRow<uint16_t>& in) { decimation(in); }
void AddTerms(const int32_t* sigma1_sq, const int32_t* sigma2_sq, const int32_t* sigma12, int width,
              double gain_limit, ScaleSums& sums) {
#if HWY_TARGET == HWY_SCALAR
    vmafx::vif::add_vif_terms(sigma1_sq, sigma2_sq, sigma12, width, gain_limit, sums);
#else
    add_terms(sigma1_sq, sigma2_sq, sigma12, width, gain_limit, sums);
#endif
}
int64_t Target() { return HWY_TARGET; }

}  // namespace vmafx::vif::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vmafx::vif {

HWY_EXPORT(StatisticsU8);
HWY_EXPORT(StatisticsU16);
HWY_EXPORT(DecimationU8);
HWY_EXPORT(DecimationU16);
HWY_EXPORT(AddTerms);
HWY_EXPORT(Target);

namespace {
void statistics_u8(const StatisticsRow<std::uint8_t>& in, ScaleSums& sums) {
    HWY_DYNAMIC_DISPATCH(StatisticsU8)(in, sums);
}
void statistics_u16(const StatisticsRow<std::uint16_t>& in, ScaleSums& sums) {
    HWY_DYNAMIC_DISPATCH(StatisticsU16)(in, sums);
}
void decimation_u8(const DecimationRow<std::uint8_t>& in) { HWY_DYNAMIC_DISPATCH(DecimationU8)(in); }
void decimation_u16(const DecimationRow<std::uint16_t>& in) { HWY_DYNAMIC_DISPATCH(DecimationU16)(in); }
void add_terms(const std::int32_t* sigma1_sq, const std::int32_t* sigma2_sq, const std::int32_t* sigma12, int width,
               double gain_limit, ScaleSums& sums) {
    HWY_DYNAMIC_DISPATCH(AddTerms)(sigma1_sq, sigma2_sq, sigma12, width, gain_limit, sums);
}
}  // namespace

const RowKernels& simd_kernels() {
    static const RowKernels kernels{"simd", statistics_u8, statistics_u16, decimation_u8, decimation_u16, add_terms};
    return kernels;
}

std::int64_t simd_target() { return HWY_DYNAMIC_DISPATCH(Target)(); }

}  // namespace vmafx::vif
#endif  // HWY_ONCE
