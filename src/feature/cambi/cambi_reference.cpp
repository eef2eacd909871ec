// The scalar reference kernels of CAMBI (cambi_kernels.hpp): the histogram row, the decimation and
// the mode filter a sample at a time, as upstream libvmaf 3.2.0 cambi.c computes them (the
// definition of the result; cambi_simd.cpp gives the same bits on lanes).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "feature/cambi/cambi_kernels.hpp"

namespace vmafx::cambi {

namespace {
// Adds `delta` to the histogram row of the level of pixel j of (image, mask), if it is masked
// and in the band, over columns [max(j - pad, 0), min(j + pad + 1, width)).
void update_reference(const HistogramRow& r, const std::uint16_t* image, const std::uint16_t* mask, int j,
                      int delta) {
    if (!mask[j]) return;
    const std::uint16_t row = static_cast<std::uint16_t>(image[j] - r.band_base);
    if (row >= r.band_size) return;
    std::uint16_t* h = r.histograms + static_cast<std::size_t>(row) * static_cast<std::size_t>(r.width);
    const int left = std::max(j - r.pad, 0);
    const int right = std::min(j + r.pad + 1, r.width);
    for (int k = left; k < right; ++k) h[k] = static_cast<std::uint16_t>(h[k] + delta);
}

// Upstream's three column loops: [0, pad), [pad, width - pad - 1), [max(width - pad - 1, pad),
// width), each pixel's subtraction then addition.
void histogram_row_reference(const HistogramRow& r) {
    const auto column = [&](int j) {
        if (r.leave_image) update_reference(r, r.leave_image, r.leave_mask, j, -1);
        if (r.enter_image) update_reference(r, r.enter_image, r.enter_mask, j, +1);
    };
    for (int j = 0; j < r.pad; ++j) column(j);
    for (int j = r.pad; j < r.width - r.pad - 1; ++j) column(j);
    for (int j = std::max(r.width - r.pad - 1, r.pad); j < r.width; ++j) column(j);
}
}  // namespace

HistogramRowFn reference_histogram_row() { return histogram_row_reference; }

namespace {
// cambi.c decimate, a sample at a time.
void decimate_reference(std::uint16_t* d, std::ptrdiff_t s, int width, int height) {
    for (int i = 0; i < height; ++i)
        for (int j = 0; j < width; ++j) d[i * s + j] = d[(2 * i) * s + 2 * j];
}


// cambi.c filter_mode, a sample at a time.
void mode_filter_reference(std::uint16_t* d, std::ptrdiff_t s, int width, int height, std::uint16_t* buf) {
    int line = 0;
    for (int i = 0; i < height; ++i) {
        std::uint16_t* out = &buf[line * width];
        out[0] = d[i * s];
        for (int j = 1; j < width - 1; ++j) out[j] = mode3(d[i * s + j - 1], d[i * s + j], d[i * s + j + 1]);
        out[width - 1] = d[i * s + width - 1];
        if (i > 1)
            for (int j = 0; j < width; ++j) d[(i - 1) * s + j] = mode3(buf[j], buf[width + j], buf[2 * width + j]);
        line = line + 1 == 3 ? 0 : line + 1;
    }
}
}  // namespace

DecimateFn reference_decimate() { return decimate_reference; }
ModeFilterFn reference_mode_filter() { return mode_filter_reference; }

}  // namespace vmafx::cambi
