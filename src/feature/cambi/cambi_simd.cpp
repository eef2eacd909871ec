// SIMD kernels of CAMBI (cambi_kernels.hpp; Google Highway, one source for every target,
// the best one the CPU supports picked at run time). The histogram row: the whole row's updates in one call (a
// dispatch per pixel would cost more than it saves), a vector of columns at a time finding which
// pixels update which histogram rows (a vector with none costs no branch on the data), then each
// such pixel's +-1 over its window's columns
// a vector of 16-bit counts at a time, the last partial vector through a mask (its other lanes
// stored back unchanged: the histograms' kHistogramSlack) or, for one or two counts, one at a
// time. A masked pair of equal in-band levels leaving and entering at the same column cancels
// and is skipped. Integer counts modulo 2^16: the same as the reference's in any order. The
// decimation and the mode filter: a vector of samples at a time, the rest one at a time.
// tests/test_simd_kernels.cpp runs every compiled target against the reference.
#include <algorithm>
#include <cstdint>

#include "feature/cambi/cambi_kernels.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "feature/cambi/cambi_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace vmafx::cambi::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<std::uint16_t>;
using V = hn::Vec<D>;

/// h[k] += delta (modulo 2^16) for k in [left, right).
HWY_INLINE void add_range(D d, std::uint16_t* h, int left, int right, V delta) {
    const int n = static_cast<int>(hn::Lanes(d));
    int k = left;
    for (; k + n <= right; k += n) hn::StoreU(hn::Add(hn::LoadU(d, h + k), delta), d, h + k);
    if (right - k > 2) {
        const V v = hn::LoadU(d, h + k);
        hn::StoreU(hn::IfThenElse(hn::FirstN(d, static_cast<std::size_t>(right - k)), hn::Add(v, delta), v), d, h + k);
    } else {
        for (; k < right; ++k) h[k] = static_cast<std::uint16_t>(h[k] + hn::GetLane(delta));
    }
}

}  // namespace

void HistogramRowKernel(const HistogramRow& r) {
    const D d;
    const int n = static_cast<int>(hn::Lanes(d));
    const V plus = hn::Set(d, std::uint16_t{1});
    const V minus = hn::Set(d, std::uint16_t{0xffff});
    const int columns = std::max(r.pad, r.width);
    const int width = r.width, pad = r.pad;
    const std::uint16_t base = static_cast<std::uint16_t>(r.band_base);
    const std::uint16_t size = static_cast<std::uint16_t>(r.band_size);
    const auto apply = [&](int j, unsigned row, V delta) {
        std::uint16_t* h = r.histograms + static_cast<std::size_t>(row) * static_cast<std::size_t>(width);
        add_range(d, h, std::max(j - pad, 0), std::min(j + pad + 1, width), delta);
    };
    // The histogram row of each pixel of a vector of columns, `size` where it has none (unmasked,
    // out of the band, or no such row); row < size as min(row, size - 1) == row (unsigned).
    const V none = hn::Set(d, size);
    const V last = hn::Set(d, static_cast<std::uint16_t>(size - 1));
    const auto rows_at = [&](const std::uint16_t* image, const std::uint16_t* mask, int j) -> V {
        if (!image) return none;
        const V row = hn::Sub(hn::LoadU(d, image + j), hn::Set(d, base));
        const auto valid = hn::And(hn::Ne(hn::LoadU(d, mask + j), hn::Zero(d)), hn::Eq(hn::Min(row, last), row));
        return hn::IfThenElse(valid, row, none);
    };
    // Whole vectors of columns: those without an update (no pixel, or the same level leaving and
    // entering) cost no branch on the data; the others' lanes are applied one by one.
    int j = 0;
    for (; j + n <= columns; j += n) {
        const V out = rows_at(r.leave_image, r.leave_mask, j);
        const V in = rows_at(r.enter_image, r.enter_mask, j);
        const auto differ = hn::Ne(out, in);
        const auto sub = hn::And(differ, hn::Ne(out, none));
        const auto add = hn::And(differ, hn::Ne(in, none));
        if (hn::AllFalse(d, hn::Or(sub, add))) continue;
        HWY_ALIGN std::uint16_t out_rows[hn::MaxLanes(d)];
        HWY_ALIGN std::uint16_t in_rows[hn::MaxLanes(d)];
        hn::Store(out, d, out_rows);
        hn::Store(in, d, in_rows);
        std::uint8_t sub_bytes[8] = {}, add_bytes[8] = {};
        hn::StoreMaskBits(d, sub, sub_bytes);
        hn::StoreMaskBits(d, add, add_bytes);
        std::uint64_t sub_bits = 0, add_bits = 0;
        for (int k = 0; k < 8; ++k) {
            sub_bits |= static_cast<std::uint64_t>(sub_bytes[k]) << (8 * k);
            add_bits |= static_cast<std::uint64_t>(add_bytes[k]) << (8 * k);
        }
        for (; sub_bits; sub_bits &= sub_bits - 1) {
            const int lane = hwy::Num0BitsBelowLS1Bit_Nonzero64(sub_bits);
            apply(j + lane, out_rows[lane], minus);
        }
        for (; add_bits; add_bits &= add_bits - 1) {
            const int lane = hwy::Num0BitsBelowLS1Bit_Nonzero64(add_bits);
            apply(j + lane, in_rows[lane], plus);
        }
    }
    // The rest a column at a time.
    const auto row_of = [&](const std::uint16_t* image, const std::uint16_t* mask, int k) -> unsigned {
        if (!image || !mask[k]) return size;
        const std::uint16_t row = static_cast<std::uint16_t>(image[k] - base);
        return row < size ? row : size;
    };
    for (; j < columns; ++j) {
        const unsigned out = row_of(r.leave_image, r.leave_mask, j);
        const unsigned in = row_of(r.enter_image, r.enter_mask, j);
        if (out == in) continue;
        if (out != size) apply(j, out, minus);
        if (in != size) apply(j, in, plus);
    }
}

void DecimateKernel(std::uint16_t* plane, std::ptrdiff_t stride, int width, int height) {
    const D d;
    const int n = static_cast<int>(hn::Lanes(d));
    for (int i = 0; i < height; ++i) {
        const std::uint16_t* src = plane + 2 * i * stride;
        std::uint16_t* dst = plane + i * stride;
        int j = 0;
        // src[2j .. 2j + 2n) is loaded before dst[j .. j + n) is stored, and later loads start at
        // or past the stores' end; whole vectors only while they stay inside the source row's
        // 2 * width - 1 samples.
        for (; j + n < width; j += n) {
            V even, odd;
            hn::LoadInterleaved2(d, src + 2 * j, even, odd);
            hn::StoreU(even, d, dst + j);
        }
        for (; j < width; ++j) dst[j] = src[2 * j];
    }
}

namespace {
HWY_INLINE V mode3v(D d, V a, V b, V c) {
    (void)d;
    const auto a_dup = hn::Or(hn::Eq(a, b), hn::Eq(a, c));
    const V smallest = hn::Min(hn::Min(a, b), c);
    return hn::IfThenElse(a_dup, a, hn::IfThenElse(hn::Eq(b, c), b, smallest));
}
}  // namespace

void ModeFilterKernel(std::uint16_t* plane, std::ptrdiff_t stride, int width, int height, std::uint16_t* rows) {
    const D d;
    const int n = static_cast<int>(hn::Lanes(d));
    int line = 0;
    for (int i = 0; i < height; ++i) {
        const std::uint16_t* in = plane + i * stride;
        std::uint16_t* out = rows + line * width;
        out[0] = in[0];
        int j = 1;
        for (; j + n <= width - 1; j += n)
            hn::StoreU(mode3v(d, hn::LoadU(d, in + j - 1), hn::LoadU(d, in + j), hn::LoadU(d, in + j + 1)), d, out + j);
        for (; j < width - 1; ++j) out[j] = cambi::mode3(in[j - 1], in[j], in[j + 1]);
        out[width - 1] = in[width - 1];
        if (i > 1) {
            std::uint16_t* o = plane + (i - 1) * stride;
            const std::uint16_t *r0 = rows, *r1 = rows + width, *r2 = rows + 2 * width;
            int k = 0;
            for (; k + n <= width; k += n)
                hn::StoreU(mode3v(d, hn::LoadU(d, r0 + k), hn::LoadU(d, r1 + k), hn::LoadU(d, r2 + k)), d, o + k);
            for (; k < width; ++k) o[k] = cambi::mode3(r0[k], r1[k], r2[k]);
        }
        line = line + 1 == 3 ? 0 : line + 1;
    }
}

std::int64_t Target() { return HWY_TARGET; }

}  // namespace vmafx::cambi::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vmafx::cambi {

HWY_EXPORT(HistogramRowKernel);
HWY_EXPORT(DecimateKernel);
HWY_EXPORT(ModeFilterKernel);
HWY_EXPORT(Target);

namespace {
void histogram_row_simd(const HistogramRow& r) { HWY_DYNAMIC_DISPATCH(HistogramRowKernel)(r); }
void decimate_simd(std::uint16_t* plane, std::ptrdiff_t stride, int width, int height) {
    HWY_DYNAMIC_DISPATCH(DecimateKernel)(plane, stride, width, height);
}
void mode_filter_simd(std::uint16_t* plane, std::ptrdiff_t stride, int width, int height, std::uint16_t* rows) {
    HWY_DYNAMIC_DISPATCH(ModeFilterKernel)(plane, stride, width, height, rows);
}
}  // namespace

HistogramRowFn simd_histogram_row() { return histogram_row_simd; }
DecimateFn simd_decimate() { return decimate_simd; }
ModeFilterFn simd_mode_filter() { return mode_filter_simd; }

std::int64_t simd_target() { return HWY_DYNAMIC_DISPATCH(Target)(); }

}  // namespace vmafx::cambi
#endif  // HWY_ONCE
