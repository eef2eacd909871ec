// The CUDA twin's per-pixel contrast of CAMBI (cambi_cuda.cu contrast_kernel), as host-device
// functions so that a CPU test (cambi_window_test.cpp) runs the very code the kernel runs against
// the CPU's sliding histograms (cambi_contrast.cpp). Internal: used by cambi_cuda.cu and that
// test. The arithmetic is cambi_math.hpp's contrast_term; what is here is the counting, per
// pixel (window_contrast) or per level over a tile (column_counts, row_count).
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
// path): for one level v, column_counts gives, down column j of a tile, the count of v in each
// output row's `side` rows (a running count: + the entering row, - the leaving one), then
// row_count adds `side` of those columns: the count of v in the output's side x side window,
// the same samples window_contrast visits, so the same integer.

/// Column j of `tile` (rows `pitch` samples apart): column[r * column_pitch] = the count of v
/// among tile rows r .. r + side - 1 of column j, r = 0 .. rows - 1.
VMAFX_HOST_DEVICE inline void column_counts(const std::uint16_t* tile, int pitch, int side, int rows, int j,
                                            std::uint16_t v, std::uint16_t* column, int column_pitch) {
    int count = 0;
    for (int di = 0; di < side; ++di) count += tile[di * pitch + j] == v;
    column[0] = static_cast<std::uint16_t>(count);
    for (int r = 1; r < rows; ++r) {
        count += (tile[(r + side - 1) * pitch + j] == v) - (tile[(r - 1) * pitch + j] == v);
        column[r * column_pitch] = static_cast<std::uint16_t>(count);
    }
}

/// The window count of v from column_counts' row (`row`: the counts of one output row, by tile
/// column): the sum of row[first .. first + side - 1].
VMAFX_HOST_DEVICE inline int row_count(const std::uint16_t* row, int first, int side) {
    int count = 0;
    for (int dj = 0; dj < side; ++dj) count += row[first + dj];
    return count;
}

}  // namespace vmafx::cambi
