// SIMD row kernels of the integer MOTION metric (motion_kernels.hpp; Google Highway, one source
// for every target, the best one the CPU supports picked at run time): the same integers as the
// scalar reference in motion.cpp (upstream libvmaf 3.2.0 src/feature/integer_motion.c), one
// column per 32-bit lane. tests/test_simd_kernels.cpp runs every compiled target against the
// reference bit for bit.
//
// Vertical blur: for 8-bit samples the tap sum fits 32 bits. For 16-bit samples the reference
// sums in 64 bits (|sum| < 2^32); here each difference d = 256 * dh + dl (dl in [0, 255]) and
// A = sum c*dh, B = sum c*dl both stay below 2^24, and
// (256 * A + B + round) >> bit_depth = (A + ((B + round) >> 8)) >> (bit_depth - 8).
//
// Horizontal blur of the lane columns: the three 32-bit partial products wrap as the reference's
// (upstream's AVX-512 lanes); their 64-bit sum, rounded and shifted by 16, is formed from their
// 16-bit halves: sum x>>16 + ((sum x & 0xFFFF) + 32768) >> 16, all within 32 bits. The row sum of
// magnitudes wraps modulo 2^32 as the reference's, so the lanes add in any order.
//
// Whole vectors of columns run the SIMD code, the rest of a row the reference's per-sample
// functions (motion_math.hpp); nothing is read or written outside the row.
#include <cstddef>
#include <cstdint>

#include "feature/motion/motion_kernels.hpp"
#include "feature/motion/motion_math.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "feature/motion/motion_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "feature/common/simd_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vmafx::motion::HWY_NAMESPACE {
namespace {

using vmafx::HWY_NAMESPACE::SumLanesWrapping;

namespace hn = hwy::HWY_NAMESPACE;
using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint8_t;

template <typename Sample>
int32_t vertical_tail(const Sample* const p[5], const Sample* const c[5], int from, int width, int bit_depth,
                      int32_t* y) {
    int32_t any = 0;
    for (int j = from; j < width; ++j) {
        y[j] = vertical_blur<Sample>(sample_difference(p[0][j], c[0][j]), sample_difference(p[1][j], c[1][j]),
                                     sample_difference(p[2][j], c[2][j]), sample_difference(p[3][j], c[3][j]),
                                     sample_difference(p[4][j], c[4][j]), bit_depth);
        any |= y[j];
    }
    return any;
}

uint32_t exact_at(const int32_t* y, int j, int width) {
    return magnitude(horizontal_blur_exact(y[mirror(j - 2, width)], y[mirror(j - 1, width)], y[j],
                                           y[mirror(j + 1, width)], y[mirror(j + 2, width)]));
}

#if HWY_TARGET == HWY_SCALAR
// One lane per vector (the baseline target where GCC before 12.3 cannot build HWY_EMU128):
// this target runs the reference's per-sample code.
template <typename Sample>
int32_t vertical(const Sample* const p[5], const Sample* const c[5], int width, int bit_depth, int32_t* y) {
    return vertical_tail(p, c, 0, width, bit_depth, y);
}
uint32_t row_sad(const int32_t* y, int width) {
    const int lane_end = lane_columns_end(width);
    uint32_t sum = 0;
    for (int j = 0; j < 2 && j < width; ++j) sum += exact_at(y, j, width);
    for (int j = 2; j < lane_end; ++j)
        sum += magnitude(horizontal_blur_lane(y[j - 2], y[j - 1], y[j], y[j + 1], y[j + 2]));
    for (int j = lane_end; j < width; ++j) sum += exact_at(y, j, width);
    return sum;
}
#else

using DI32 = hn::ScalableTag<int32_t>;
using VI32 = hn::Vec<DI32>;

template <typename Sample>
HWY_INLINE VI32 difference(const Sample* prev, const Sample* cur, int j) {
    const DI32 d;
    const hn::Rebind<Sample, DI32> ds;
    return hn::Sub(hn::PromoteTo(d, hn::LoadU(ds, prev + j)), hn::PromoteTo(d, hn::LoadU(ds, cur + j)));
}

/// c_outer * (a + e) + c_inner * (b + d) + c_centre * m, modulo 2^32.
HWY_INLINE VI32 taps5(VI32 a, VI32 b, VI32 m, VI32 d, VI32 e) {
    const DI32 di;
    return hn::Add(hn::Add(hn::Mul(hn::Add(a, e), hn::Set(di, kTapOuter)), hn::Mul(hn::Add(b, d), hn::Set(di, kTapInner))),
                   hn::Mul(m, hn::Set(di, kTapCentre)));
}

template <typename Sample>
int32_t vertical(const Sample* const p[5], const Sample* const c[5], int width, int bit_depth, int32_t* y) {
    const DI32 d;
    const int n = static_cast<int>(hn::Lanes(d));
    const VI32 round = hn::Set(d, int32_t{1} << (bit_depth - 1));
    VI32 any = hn::Zero(d);
    int j = 0;
    for (; j + n <= width; j += n) {
        VI32 diff[5];
        for (int k = 0; k < 5; ++k) diff[k] = difference(p[k], c[k], j);
        VI32 out;
        if constexpr (sizeof(Sample) == 1) {
            // |d| <= 255: the sum is below 2^24.
            out = hn::ShiftRightSame(hn::Add(taps5(diff[0], diff[1], diff[2], diff[3], diff[4]), round), bit_depth);
        } else {
            VI32 high[5], low[5];
            for (int k = 0; k < 5; ++k) {
                high[k] = hn::ShiftRight<8>(diff[k]);
                low[k] = hn::And(diff[k], hn::Set(d, 0xFF));
            }
            const VI32 a = taps5(high[0], high[1], high[2], high[3], high[4]);
            const VI32 b = taps5(low[0], low[1], low[2], low[3], low[4]);
            out = hn::ShiftRightSame(hn::Add(a, hn::ShiftRight<8>(hn::Add(b, round))), bit_depth - 8);
        }
        hn::StoreU(out, d, y + j);
        any = hn::Or(any, out);
    }
    HWY_ALIGN int32_t lanes[hn::MaxLanes(d)];
    hn::Store(any, d, lanes);
    int32_t any_bits = 0;
    for (int i = 0; i < n; ++i) any_bits |= lanes[i];
    return any_bits | vertical_tail(p, c, j, width, bit_depth, y);
}

uint32_t row_sad(const int32_t* y, int width) {
    const DI32 d;
    const hn::RebindToUnsigned<DI32> du;
    const int n = static_cast<int>(hn::Lanes(d));
    const int lane_end = lane_columns_end(width);
    uint32_t sum = 0;
    for (int j = 0; j < 2 && j < width; ++j) sum += exact_at(y, j, width);
    const VI32 low_mask = hn::Set(d, 0xFFFF);
    hn::Vec<decltype(du)> lanes_sum = hn::Zero(du);
    int j = 2;
    for (; j + n <= lane_end; j += n) {
        const VI32 outer = hn::Mul(hn::Add(hn::LoadU(d, y + j - 2), hn::LoadU(d, y + j + 2)), hn::Set(d, kTapOuter));
        const VI32 inner = hn::Mul(hn::Add(hn::LoadU(d, y + j - 1), hn::LoadU(d, y + j + 1)), hn::Set(d, kTapInner));
        const VI32 centre = hn::Mul(hn::LoadU(d, y + j), hn::Set(d, kTapCentre));
        const VI32 high = hn::Add(hn::Add(hn::ShiftRight<16>(outer), hn::ShiftRight<16>(inner)), hn::ShiftRight<16>(centre));
        const VI32 low = hn::Add(hn::Add(hn::And(outer, low_mask), hn::And(inner, low_mask)), hn::And(centre, low_mask));
        const VI32 blur = hn::Add(high, hn::ShiftRight<16>(hn::Add(low, hn::Set(d, 1 << 15))));
        const VI32 sign = hn::ShiftRight<31>(blur);
        lanes_sum = hn::Add(lanes_sum, hn::BitCast(du, hn::Sub(hn::Xor(blur, sign), sign)));
    }
    sum += SumLanesWrapping(du, lanes_sum);
    for (; j < lane_end; ++j) sum += magnitude(horizontal_blur_lane(y[j - 2], y[j - 1], y[j], y[j + 1], y[j + 2]));
    for (j = lane_end; j < width; ++j) sum += exact_at(y, j, width);
    return sum;
}

#endif  // HWY_TARGET == HWY_SCALAR

}  // namespace

// The exported entries (one per target).
int32_t VerticalU8(const uint8_t* const prev[5], const uint8_t* const cur[5], int width, int bit_depth, int32_t* y) {
    return vertical(prev, cur, width, bit_depth, y);
}
int32_t VerticalU16(const uint16_t* const prev[5], const uint16_t* const cur[5], int width, int bit_depth,
                    int32_t* y) {
    return vertical(prev, cur, width, bit_depth, y);
}
uint32_t RowSad(const int32_t* y, int width) { return row_sad(y, width); }
int64_t Target() { return HWY_TARGET; }

}  // namespace vmafx::motion::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vmafx::motion {

HWY_EXPORT(VerticalU8);
HWY_EXPORT(VerticalU16);
HWY_EXPORT(RowSad);
HWY_EXPORT(Target);

namespace {
std::int32_t vertical_u8(const std::uint8_t* const prev[5], const std::uint8_t* const cur[5], int width, int bit_depth,
                         std::int32_t* y) {
    return HWY_DYNAMIC_DISPATCH(VerticalU8)(prev, cur, width, bit_depth, y);
}
std::int32_t vertical_u16(const std::uint16_t* const prev[5], const std::uint16_t* const cur[5], int width,
                          int bit_depth, std::int32_t* y) {
    return HWY_DYNAMIC_DISPATCH(VerticalU16)(prev, cur, width, bit_depth, y);
}
std::uint32_t row_sad(const std::int32_t* y, int width) { return HWY_DYNAMIC_DISPATCH(RowSad)(y, width); }
}  // namespace

const RowKernels& simd_kernels() {
    static const RowKernels kernels{"simd", vertical_u8, vertical_u16, row_sad};
    return kernels;
}

std::int64_t simd_target() { return HWY_DYNAMIC_DISPATCH(Target)(); }

}  // namespace vmafx::motion
#endif  // HWY_ONCE
