// The CUDA twin's per-pixel contrast of CAMBI (cambi_cuda.cu contrast_kernel), as host-device
// functions so that a CPU test (cambi_window_test.cpp) runs the very code the kernel runs against
// the CPU's sliding histograms (cambi_contrast.cpp). Internal: used by cambi_cuda.cu and that
// test. The arithmetic is cambi_math.hpp's contrast_term; what is here is the counting, per
// pixel (window_contrast) or per level over a tile (level_counts).
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

// The same counts, level by level, for a tile of kLevelTile x kLevelTile outputs (contrast_kernel's
// usual path): for one level v and one output column c, level_counts walks down the tile's rows;
// row_bits gives each row's samples equal to v as bits (bit j of word w: tile column 32 w + j),
// the window's columns of that row are popcount(bits & window_bits), and a running sum of those
// over the rows gives each output row's count as the difference of two running sums (`side`
// rows apart): the number of samples of level v in the output's side x side window, the samples
// window_contrast visits, so the same integer. On the device a warp runs it, a lane an output
// column, row_bits one ballot a word; cambi_window_test.cpp runs it with a host row_bits.

/// Outputs a side of contrast_kernel's tile (a lane of a warp each, along a row).
inline constexpr int kLevelTile = 32;
/// The most 32-column words of a tile row: kLevelTile + 2 * 32 (the largest pad) + 1 (the
/// planted shift) columns.
inline constexpr int kMaxRowWords = 4;

/// The bits of word w (tile columns 32 w .. 32 w + 31) inside [first, first + side).
VMAFX_HOST_DEVICE inline std::uint32_t window_bits(int first, int side, int w) {
    const int lo = first - 32 * w, hi = first + side - 32 * w;  // the range, in the word's columns
    if (hi <= 0 || lo >= 32) return 0u;
    const std::uint32_t below_hi = hi >= 32 ? 0xffffffffu : (1u << hi) - 1u;
    const std::uint32_t below_lo = lo <= 0 ? 0u : (1u << lo) - 1u;
    return below_hi & ~below_lo;
}

/// The set bits of x.
VMAFX_HOST_DEVICE inline int bit_count(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

/// One output column's window counts of one level for the `outputs` output rows of a tile of
/// outputs + side - 1 rows: row_bits(i, bits) fills bits[0 .. kWords) with row i's samples of
/// the level (as above); masks[w] = window_bits(the window's first column, side, w); then
/// store(r, count) for r = 0 .. outputs - 1, in that order, count the level's samples in rows
/// r .. r + side - 1 inside the masks (below 2^16: side <= 65). prefix: `outputs` scratch
/// entries, `prefix_stride` apart (the running sums at rows 0 .. outputs - 1).
template <int kWords, typename RowBits, typename Store>
VMAFX_HOST_DEVICE inline void level_counts(int outputs, int side, const std::uint32_t* masks, std::uint16_t* prefix,
                                           int prefix_stride, RowBits&& row_bits, Store&& store) {
    int sum = 0;  // the counts of rows 0 .. i - 1
#if defined(__CUDA_ARCH__)
#pragma unroll 2
#endif
    for (int i = 0; i < outputs + side - 1; ++i) {
        if (i < outputs) prefix[i * prefix_stride] = static_cast<std::uint16_t>(sum);
        std::uint32_t bits[kWords];
        row_bits(i, bits);
        for (int w = 0; w < kWords; ++w) sum += bit_count(bits[w] & masks[w]);
        const int r = i + 1 - side;
        if (r >= 0) store(r, sum - prefix[r * prefix_stride]);
    }
}

}  // namespace vmafx::cambi
