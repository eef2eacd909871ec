// The CUDA twin's per-pixel contrast of CAMBI (cambi_cuda.cu contrast_kernel), as a host-device
// function so that a CPU test (cambi_window_test.cpp) runs the very code the kernel runs against
// the CPU's sliding histograms (cambi_contrast.cpp). Internal: used by cambi_cuda.cu and that
// test. The arithmetic is cambi_math.hpp's contrast_term; what is here is the counting.
#pragma once

#include <cstdint>

#include "base/host_device.hpp"
#include "feature/cambi/cambi_math.hpp"

namespace vmafx::cambi {

/// A window sample that counts for no level (outside the CPU's histogram reach, or unmasked).
inline constexpr std::uint16_t kNoLevel = 0xffff;

/// The contrast value of a masked pixel of `level` (compact = level - band_base, inside the
/// band) from its window: `window` points at the window's top-left sample, `side` x `side`
/// samples (2 pad + 1), rows `pitch` samples apart, each the level of a masked pixel inside the
/// CPU's reach (rows [0, height), columns [0, max(pad, width))) or kNoLevel. Counts the levels
/// level - num_diffs .. level + num_diffs into counts[o * count_stride], o = 0 .. 2 num_diffs
/// (the CPU's histogram counts of those levels at this pixel, below 2^16), then the largest
/// contrast_term over the visible steps `steps` (bit d: step d + 1), levels below the band
/// counting 0 as the CPU's missing histogram rows. reciprocals: cambi::reciprocals(); weights:
/// kContrastWeights.
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

}  // namespace vmafx::cambi
