// CAMBI's preprocessing (upstream libvmaf 3.2.0 cambi.c decimate_generic_*, anti_dithering_filter,
// get_spatial_mask): the luma to 10 bits at the target size, anti-dithering, and the spatial mask;
// and the sizing of a picture's buffers. cambi_internal.hpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "feature/cambi/cambi_internal.hpp"
#include "feature/cambi/cambi_kernels.hpp"
#include "feature/cambi/cambi_math.hpp"

namespace vmafx::cambi {

void Buffers::prepare(const Plan& p, int width, int height) {
    const int row_length = aligned_row(p.alloc_w);
    const std::size_t plane = static_cast<std::size_t>(row_length) * static_cast<std::size_t>(p.alloc_h);
    stride = row_length;
    // (a thread's buffers serve every cambi instance it runs: another instance's planes, even
    // of the same size, may have written the padding)
    if (image.size() != plane || alloc_w != p.alloc_w || alloc_h != p.alloc_h) {
        alloc_w = p.alloc_w;
        alloc_h = p.alloc_h;
        image.assign(plane, 0);
        mask.assign(plane, 0);
        c_values.assign(plane, 0.0f);
    } else if (width != p.alloc_w || height != p.alloc_h) {
        // (columns [alloc_w, row_length) are never written: they stay zero)
        for (int i = 0; i < p.alloc_h; ++i) {
            const std::size_t row = static_cast<std::size_t>(i) * static_cast<std::size_t>(row_length);
            const std::size_t from = row + static_cast<std::size_t>(i < height ? width : 0);
            std::fill(image.begin() + static_cast<std::ptrdiff_t>(from),
                      image.begin() + static_cast<std::ptrdiff_t>(row + row_length), 0);
            std::fill(mask.begin() + static_cast<std::ptrdiff_t>(from),
                      mask.begin() + static_cast<std::ptrdiff_t>(row + row_length), 0);
        }
    }
    histograms.assign(static_cast<std::size_t>(p.alloc_w) * static_cast<std::size_t>(p.band_size) +
                          cambi::kHistogramSlack,
                      0);
    mode_rows.assign(3 * static_cast<std::size_t>(p.alloc_w), 0);
    derivative.assign(static_cast<std::size_t>(kMaskFilter + 1) * static_cast<std::size_t>(p.alloc_w), 0);
    column_sums.assign(static_cast<std::size_t>(p.alloc_w), 0);
}

namespace {

// --- Preprocessing: to 10 bits at the target size (cambi.c decimate_generic_*) ---------------

template <typename Sample, typename Convert>
void resample(const Plane& in, Buffers& b, int out_w, int out_h, Convert convert) {
    const int in_w = in.width();
    const int in_h = in.height();
    if (in_w == out_w && in_h == out_h) {
        for (int i = 0; i < out_h; ++i) {
            const Sample* row = in.row<Sample>(i);
            std::uint16_t* out = &b.image[static_cast<std::size_t>(i) * b.stride];
            for (int j = 0; j < out_w; ++j) out[j] = convert(row[j]);
        }
        return;
    }
    // Nearest neighbour at the pixel centres, in float as upstream steps it.
    const float ratio_x = static_cast<float>(static_cast<unsigned>(in_w)) / static_cast<unsigned>(out_w);
    const float ratio_y = static_cast<float>(static_cast<unsigned>(in_h)) / static_cast<unsigned>(out_h);
    const float start_x = static_cast<float>(static_cast<double>(ratio_x / 2) - 0.5);
    const float start_y = static_cast<float>(static_cast<double>(ratio_y / 2) - 0.5);
    float y = start_y;
    for (int i = 0; i < out_h; ++i) {
        const unsigned src_y = static_cast<unsigned>(static_cast<int>(static_cast<double>(y) + 0.5));
        const Sample* row = in.row<Sample>(static_cast<int>(src_y));
        std::uint16_t* out = &b.image[static_cast<std::size_t>(i) * b.stride];
        float x = start_x;
        for (int j = 0; j < out_w; ++j) {
            const unsigned src_x = static_cast<unsigned>(static_cast<int>(static_cast<double>(x) + 0.5));
            out[j] = convert(row[src_x]);
            x += ratio_x;
        }
        y += ratio_y;
    }
}

// cambi.c anti_dithering_filter: each sample the mean of its 2x2 block to the bottom right
// (pairs at the last row and column), in place, row by row.
void anti_dither(Buffers& b, int width, int height) {
    std::uint16_t* d = b.image.data();
    const std::ptrdiff_t s = b.stride;
    for (int i = 0; i < height - 1; ++i) {
        for (int j = 0; j < width - 1; ++j)
            d[i * s + j] = static_cast<std::uint16_t>(
                dither_mean4(d[i * s + j], d[i * s + j + 1], d[(i + 1) * s + j], d[(i + 1) * s + j + 1]));
        const int j = width - 1;
        d[i * s + j] = static_cast<std::uint16_t>(dither_mean2(d[i * s + j], d[(i + 1) * s + j]));
    }
    const int i = height - 1;
    for (int j = 0; j < width - 1; ++j)
        d[i * s + j] = static_cast<std::uint16_t>(dither_mean2(d[i * s + j], d[i * s + j + 1]));
}

}  // namespace

void preprocess(const Plane& luma, int bit_depth, const Plan& p, Buffers& b, int width, int height) {
    // (cambi_math.hpp to_10_bits: the rounded shift above 10 bits, the left shift below)
    if (bit_depth > 8) {
        resample<std::uint16_t>(luma, b, width, height, [&](std::uint16_t v) {
            return static_cast<std::uint16_t>(to_10_bits(static_cast<std::int32_t>(v), bit_depth));
        });
    } else {
        resample<std::uint8_t>(luma, b, width, height, [&](std::uint8_t v) {
            return static_cast<std::uint16_t>(to_10_bits(static_cast<std::int32_t>(v), bit_depth));
        });
    }
    if (p.enc_bitdepth < 10) anti_dither(b, width, height);
}

// --- The spatial mask (cambi.c get_spatial_mask) ----------------------------------------------

namespace {

int ceil_log2(std::uint32_t n) {
    if (n == 0) return 0;
    std::uint32_t t = n - 1;
    int shift = 0;
    while (t > 0) {
        t >>= 1;
        ++shift;
    }
    return shift;
}

}  // namespace

std::uint32_t mask_threshold(int width, int height) {
    const std::uint32_t shifted = (static_cast<unsigned>(width) >> 6) * (static_cast<unsigned>(height) >> 6);
    return static_cast<std::uint16_t>((kMaskFilter * kMaskFilter + 3 * (ceil_log2(shifted) - 11) - 1) >> 1);
}

// A pixel is kept when more than mask_index of the pixels of its 7x7 window (clipped to the
// picture) equal their right and lower neighbours (the last column and row count as equal).
void spatial_mask(Buffers& b, int width, int height) {
    const std::uint32_t mask_index = mask_threshold(width, height);
    const int pad = kMaskFilter >> 1;
    static_assert(kMaskFilter == 7, "the window sums below spell out 7 columns");
    const int ring = kMaskFilter + 1;
    const std::uint16_t* img = b.image.data();
    const std::ptrdiff_t s = b.stride;
    const auto derivative_row = [&](int r) -> std::uint8_t* {
        return &b.derivative[static_cast<std::size_t>(r % ring) * static_cast<std::size_t>(width)];
    };
    // (the last column and the last row apart, in loops the compiler can vectorise)
    const auto compute_derivative = [&](int r) {
        std::uint8_t* __restrict d = derivative_row(r);
        const std::uint16_t* __restrict here = img + r * s;
        if (r == height - 1) {
            for (int c = 0; c < width - 1; ++c) d[c] = here[c] == here[c + 1];
        } else {
            const std::uint16_t* __restrict below = img + (r + 1) * s;
            for (int c = 0; c < width - 1; ++c) d[c] = (here[c] == here[c + 1]) & (here[c] == below[c]);
        }
        d[width - 1] = r == height - 1 || here[width - 1] == img[(r + 1) * s + width - 1];
    };
    std::uint32_t* sums = b.column_sums.data();  // per column: the derivative over rows r-3..r+3
    std::fill(sums, sums + width, 0u);
    for (int r = 0; r < pad && r < height; ++r) {
        compute_derivative(r);
        const std::uint8_t* d = derivative_row(r);
        for (int c = 0; c < width; ++c) sums[c] += d[c];
    }
    for (int r = 0; r < height; ++r) {
        const int enter = r + pad;
        if (enter < height) {
            compute_derivative(enter);
            const std::uint8_t* d = derivative_row(enter);
            for (int c = 0; c < width; ++c) sums[c] += d[c];
        }
        const int leave = r - pad - 1;
        if (leave >= 0) {
            const std::uint8_t* d = derivative_row(leave);
            for (int c = 0; c < width; ++c) sums[c] -= d[c];
        }
        // Each column's window: the column sums of [c - pad, c + pad] inside the picture (integer
        // sums, the same in any order: whole windows in a loop the compiler can vectorise).
        std::uint16_t* __restrict m = &b.mask[static_cast<std::size_t>(r) * s];
        const std::uint32_t* __restrict cs = sums;
        const auto clipped = [&](int c) {
            std::uint32_t window = 0;
            for (int k = std::max(c - pad, 0); k <= std::min(c + pad, width - 1); ++k) window += cs[k];
            return window;
        };
        const int inner_end = width - pad;
        for (int c = 0; c < std::min(pad, width); ++c) m[c] = clipped(c) > mask_index;
        for (int c = pad; c < inner_end; ++c)
            m[c] = cs[c - 3] + cs[c - 2] + cs[c - 1] + cs[c] + cs[c + 1] + cs[c + 2] + cs[c + 3] > mask_index;
        for (int c = std::max(inner_end, pad); c < width; ++c) m[c] = clipped(c) > mask_index;
    }
}

}  // namespace vmafx::cambi
