// The CUDA twin's per-pixel contrast of CAMBI (cambi_cuda.cu contrast_kernel), as host-device
// functions so that a CPU test (cambi_window_test.cpp) runs the very code the kernel runs against
// the CPU's sliding histograms (cambi_contrast.cpp). Internal: used by cambi_cuda.cu and that
// test. The arithmetic is cambi_math.hpp's contrast_term; what is here is the counting, per
// pixel (window_contrast) or per level over a tile (window_mask, masked_count,
// column_window_counts).
#pragma once

#include <cstdint>

#include "base/host_device.hpp"
#include "feature/cambi/cambi_math.hpp"

namespace vmafx::cambi {

/// A window sample that counts for no level (outside the CPU's histogram reach, or unmasked).
inline constexpr std::uint16_t kNoLevel = 0xffff;

/// The contrast value of a masked pixel from its window's counts of the levels level - num_diffs
/// .. level + num_diffs (counts[o * count_stride], o = 0 .. 2 num_diffs): the largest
/// contrast_term over the visible steps `steps` (bit d: step d + 1), levels below the band
/// (compact = level - band_base) counting 0 as the CPU's missing histogram rows. reciprocals:
/// cambi::reciprocals(); weights: kContrastWeights.
VMAFX_HOST_DEVICE inline float contrast_of_counts(const std::uint16_t* counts, int count_stride, int compact,
                                                  int num_diffs, std::uint32_t steps, const float* reciprocals,
                                                  const int* weights) {
    const int nd = num_diffs;
    const int p0 = counts[nd * count_stride];
    float best = 0.0f;
    for (std::uint32_t todo = steps; todo != 0; todo &= todo - 1) {
        int d = 0;
        while (((todo >> d) & 1u) == 0) ++d;
        const int p1 = counts[(nd + d + 1) * count_stride];
        const int p2 = compact - d - 1 >= 0 ? counts[(nd - d - 1) * count_stride] : 0;
        const int pm = p1 > p2 ? p1 : p2;
        const float val = contrast_term(weights[d], p0, pm, reciprocals[pm + p0]);
        if (val > best) best = val;
    }
    return best;
}

/// The contrast value of a masked pixel of `level` (compact = level - band_base, inside the
/// band) from its window: `window` points at the window's top-left sample, `side` x `side`
/// samples (2 pad + 1), rows `pitch` samples apart, each the level of a masked pixel inside the
/// CPU's reach (rows [0, height), columns [0, max(pad, width))) or kNoLevel. Counts the levels
/// level - num_diffs .. level + num_diffs into counts[o * count_stride], o = 0 .. 2 num_diffs
/// (the CPU's histogram counts of those levels at this pixel, below 2^16), then
/// contrast_of_counts. reciprocals: cambi::reciprocals(); weights: kContrastWeights.
VMAFX_HOST_DEVICE inline float window_contrast(const std::uint16_t* window, int pitch, int side, int level,
                                               int compact, int num_diffs, std::uint32_t steps,
                                               const float* reciprocals, const int* weights, std::uint16_t* counts,
                                               int count_stride) {
    const int nd = num_diffs;
    const unsigned last = static_cast<unsigned>(2 * nd);
    for (int o = 0; o <= 2 * nd; ++o) counts[o * count_stride] = 0;
    const int low = level - nd;
    for (int di = 0; di < side; ++di) {
        const std::uint16_t* row = window + di * pitch;
        for (int dj = 0; dj < side; ++dj) {
            const unsigned o = static_cast<unsigned>(static_cast<int>(row[dj]) - low);
            if (o <= last) counts[o * count_stride] = static_cast<std::uint16_t>(counts[o * count_stride] + 1);
        }
    }
    return contrast_of_counts(counts, count_stride, compact, nd, steps, reciprocals, weights);
}

// The same counts, level by level and separably, for a tile of outputs (contrast_kernel's fast
// path), with bit masks: for one level v, each row of the tile is a mask of the columns holding v
// (32 columns a word), an output's window columns are a mask too (window_mask, fixed per output
// column), so a window row's count of v is the popcount of their AND (masked_count), and the
// window's count the running sum of side such rows down the column (column_window_counts): the
// same samples window_contrast visits, so the same integer.

/// The bits set in x.
VMAFX_HOST_DEVICE inline int popcount32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __popc(x);
#else
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return static_cast<int>((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
#endif
}

/// Word w (columns 32 w .. 32 w + 31) of the mask of columns [first, first + side).
VMAFX_HOST_DEVICE inline std::uint32_t window_mask(int first, int side, int w) {
    const int lo = first - 32 * w, hi = first + side - 32 * w;  // the window in this word's bits
    const int a = lo < 0 ? 0 : (lo > 32 ? 32 : lo), b = hi < 0 ? 0 : (hi > 32 ? 32 : hi);
    if (a >= b) return 0u;
    const std::uint32_t upto_b = b == 32 ? 0xffffffffu : (1u << b) - 1u;
    return upto_b & ~((1u << a) - 1u);
}

/// The columns of one row's level mask (`bits`, `words` words) inside the window mask `mask`.
VMAFX_HOST_DEVICE inline int masked_count(const std::uint32_t* bits, const std::uint32_t* mask, int words) {
    int count = 0;
    for (int w = 0; w < words; ++w) count += popcount32(bits[w] & mask[w]);
    return count;
}

/// Down one output column: out[r * out_stride] = the count of the level among the window columns
/// `mask` of tile rows r .. r + side - 1, r = 0 .. rows - 1; `bits`: the level's row masks, row i
/// at bits + i * words (rows + side - 1 of them).
VMAFX_HOST_DEVICE inline void column_window_counts(const std::uint32_t* bits, int words, int rows, int side,
                                                   const std::uint32_t* mask, std::uint16_t* out, int out_stride) {
    int count = 0;
    for (int i = 0; i < side - 1; ++i) count += masked_count(bits + i * words, mask, words);
    for (int r = 0; r < rows; ++r) {
        count += masked_count(bits + (r + side - 1) * words, mask, words);
        out[r * out_stride] = static_cast<std::uint16_t>(count);
        count -= masked_count(bits + r * words, mask, words);
    }
}

}  // namespace vmafx::cambi
