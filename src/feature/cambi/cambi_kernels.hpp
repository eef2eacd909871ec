// Row kernel of CAMBI's sliding-window histograms (cambi_contrast.cpp Contrast, upstream cambi.c
// calculate_c_values and its update_histogram_* / uh_slide helpers): the scalar reference
// (reference_histogram_row(), in cambi_reference.cpp) and a SIMD version giving the same counts
// (cambi_simd.cpp, Google Highway with run-time dispatch, simd_histogram_row()). Internal: used
// by cambi_contrast.cpp, cambi_preprocess.cpp, cambi_reference.cpp, cambi_simd.cpp and
// cambi_simd_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vmafx::cambi {

/// Samples the histogram array must have after its last row: the SIMD kernel may read them and
/// store them back unchanged (a whole vector of 16-bit lanes at the end of a range).
inline constexpr int kHistogramSlack = 64;

/// One row's update of the histograms: `leave` (a row leaving the window, -1) and `enter` (a row
/// entering it, +1), either of them null for none.
struct HistogramRow {
    std::uint16_t* histograms;      ///< band_size rows of `width` counts, then kHistogramSlack samples
    int width;                      ///< columns of a histogram row
    int pad;                        ///< the window's half-width
    int band_base, band_size;       ///< levels [band_base, band_base + band_size) have a histogram row
    const std::uint16_t *leave_image, *leave_mask;  ///< the leaving row's 10-bit samples and mask
    const std::uint16_t *enter_image, *enter_mask;  ///< the entering row's
};

/// For each column j in [0, max(pad, width)) (upstream's columns, which go past the width when the
/// window is wider than the scale): a masked pixel of the leaving row whose level v is in the band
/// subtracts 1 from histogram row v - band_base over columns [max(j - pad, 0), min(j + pad + 1,
/// width)); a masked pixel of the entering row adds 1 likewise. Counts wrap modulo 2^16 as
/// upstream's uint16_t do (the sums are the same in any order). The rows must have
/// max(pad, width) samples.
using HistogramRowFn = void (*)(const HistogramRow& r);

/// The scalar reference (cambi_reference.cpp).
HistogramRowFn reference_histogram_row();
/// The SIMD kernel (cambi_simd.cpp): the best compiled target the CPU supports.
HistogramRowFn simd_histogram_row();
/// Keeps every other sample of every other row, in place: plane[i * stride + j] = plane[2i *
/// stride + 2j] for i in [0, height), j in [0, width), rows in order (cambi.c decimate).
using DecimateFn = void (*)(std::uint16_t* plane, std::ptrdiff_t stride, int width, int height);
/// The 3x3 mode filter, in place (cambi.c filter_mode): each row's 3-tap horizontal mode (the
/// first and last columns kept) into a ring of 3 rows of `width` (`rows`), then rows 1 ..
/// height - 2 the vertical mode of the ring; mode3(a, b, c) is a if a equals b or c, else b if b
/// equals c, else the smallest. width >= 2.
using ModeFilterFn = void (*)(std::uint16_t* plane, std::ptrdiff_t stride, int width, int height,
                              std::uint16_t* rows);
/// The 3-tap mode of the mode filter (a sample at a time; the kernels' reference and tails).
inline std::uint16_t mode3(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
    if (a == b || a == c) return a;
    if (b == c) return b;
    const std::uint16_t ab = a < b ? a : b;
    return ab < c ? ab : c;
}

DecimateFn reference_decimate();
DecimateFn simd_decimate();
ModeFilterFn reference_mode_filter();
ModeFilterFn simd_mode_filter();

/// The Highway target (HWY_AVX2, ...) that the simd_* kernels run now.
std::int64_t simd_target();

}  // namespace vmafx::cambi
