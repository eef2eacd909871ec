// CAMBI's contrast values and pooling (upstream libvmaf 3.2.0 cambi.c calculate_c_values,
// spatial_pooling, cambi_score, and x86/cambi_avx2.c, which produced the golden values): a
// picture's score over its five scales. cambi_internal.hpp.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "feature/cambi/cambi_internal.hpp"
#include "feature/cambi/cambi_kernels.hpp"
#include "feature/cambi/cambi_math.hpp"

namespace vmafx::cambi {

const std::array<float, kReciprocals>& reciprocals() {
    static const std::array<float, kReciprocals> table = [] {
        std::array<float, kReciprocals> t{};
        char text[64];
        for (int i = 1; i < kReciprocals; ++i) {
            std::snprintf(text, sizeof text, "%.9g", 1.0 / i);
            t[static_cast<std::size_t>(i)] = std::strtof(text, nullptr);
        }
        return t;
    }();
    return table;
}

namespace {

// --- Contrast values (cambi.c calculate_c_values, x86/cambi_avx2.c) ----------------------------

struct Contrast {
    const Plan& p;
    Buffers& b;
    int width, height, pad;

    // The histograms' update of a row: row `leave` leaving the window and row `enter` entering it
    // (-1 for none), over upstream's columns (cambi_kernels.hpp: simd_histogram_row()).
    void slide(cambi::HistogramRowFn kernel, int leave, int enter) {
        const auto at = [&](const std::vector<std::uint16_t>& plane, int r) {
            return r < 0 ? nullptr : &plane[static_cast<std::size_t>(r) * static_cast<std::size_t>(b.stride)];
        };
        kernel({b.histograms.data(), width, pad, p.band_base, p.band_size, at(b.image, leave), at(b.mask, leave),
                at(b.image, enter), at(b.mask, enter)});
    }

    // Per level of the band (level - band_base), the steps d whose contrast counts there, as bits:
    // value <= tvi[d] and value + d + 1 > vlt_luma, value = level + num_diffs (the test of each d
    // depends only on the level; num_diffs <= 32).
    std::vector<std::uint32_t> steps;

    void prepare_steps() { steps = visible_steps(p); }

    // The contrast values of row r: per masked in-band pixel, the largest over its steps d of
    // weight(d) p0 pm / (p0 + pm) (a maximum: the order of the steps does not matter).
    void row_values(int r) {
        const auto& rec = reciprocals();
        const std::uint16_t* img = &b.image[static_cast<std::size_t>(r) * b.stride];
        const std::uint16_t* msk = &b.mask[static_cast<std::size_t>(r) * b.stride];
        float* out = &b.c_values[static_cast<std::size_t>(r) * static_cast<std::size_t>(width)];
        const std::uint16_t* h = b.histograms.data();
        for (int c = 0; c < width; ++c) {
            if (!msk[c]) {
                out[c] = 0.0f;
                continue;
            }
            const int compact = static_cast<int>(img[c]) - p.band_base;
            if (static_cast<unsigned>(compact) >= static_cast<unsigned>(p.band_size)) {
                out[c] = 0.0f;
                continue;
            }
            const int p0 = h[static_cast<std::size_t>(compact) * width + c];
            float best = 0.0f;
            for (std::uint32_t todo = steps[static_cast<std::size_t>(compact)]; todo != 0; todo &= todo - 1) {
                const int d = std::countr_zero(todo);
                const int up = compact + d + 1;
                const int down = compact - d - 1;
                const int p1 = h[static_cast<std::size_t>(up) * width + c];
                const int p2 = down >= 0 ? h[static_cast<std::size_t>(down) * width + c] : 0;
                const int pm = p1 > p2 ? p1 : p2;
                const float val = contrast_term(kContrastWeights[d], p0, pm, rec[pm + p0]);
                if (val > best) best = val;
            }
            out[c] = best;
        }
    }

    void run() {
        // (no fill of the c values: row_values writes every column of rows 0 .. height - 1)
        std::fill(b.histograms.begin(), b.histograms.begin() + static_cast<std::ptrdiff_t>(width) * p.band_size, 0);
        prepare_steps();
        const cambi::HistogramRowFn kernel = cambi::simd_histogram_row();
        for (int i = 0; i < pad; ++i) slide(kernel, -1, i);
        for (int i = 0; i < pad + 1; ++i) {
            if (i + pad < height) slide(kernel, -1, i + pad);
            row_values(i);
        }
        for (int i = pad + 1; i < height - pad; ++i) {
            slide(kernel, i - pad - 1, i + pad);
            row_values(i);
        }
        for (int i = height - pad; i < height; ++i) {
            if (i - pad - 1 >= 0) slide(kernel, i - pad - 1, -1);
            row_values(i);
        }
    }
};

// --- Pooling ------------------------------------------------------------------------------------

// Upstream's quick_select (Hoare partitions around arr[k]): partially orders arr so that its
// first k elements are its k largest, in the order whose double sum spatial_pooling takes. (The
// CUDA twin finds that sum without the order where it is proven the same: cambi_topk.hpp.)
void quick_select(float* arr, int n, int k) {
    int left = 0, right = n - 1;
    if (k == n) return;
    while (left < right) {
        const float pivot = arr[k];
        int i = left, j = right;
        do {
            while (arr[i] > pivot) ++i;
            while (arr[j] < pivot) --j;
            if (i <= j) {
                std::swap(arr[i], arr[j]);
                ++i;
                --j;
            }
        } while (i <= j);
        if (j < k) left = i;
        if (k < i) right = j;
    }
}

}  // namespace

std::vector<std::uint32_t> visible_steps(const Plan& p) {
    std::vector<std::uint32_t> steps(static_cast<std::size_t>(p.band_size), 0u);
    for (int compact = 0; compact < p.band_size; ++compact) {
        const int value = compact + p.band_base + p.num_diffs;
        for (int d = 0; d < p.num_diffs; ++d)
            if (value <= p.tvi[static_cast<std::size_t>(d)] && value + d + 1 > p.vlt_luma)
                steps[static_cast<std::size_t>(compact)] |= 1u << d;
    }
    return steps;
}

void contrast_values(const Plan& p, Buffers& b, int width, int height, int pad) {
    Contrast{p, b, width, height, pad, {}}.run();
}

double spatial_pooling(float* c, double topk, int width, int height) {
    const int n = height * width;
    const int want = static_cast<int>(topk * n);
    const int k = want < 1 ? 1 : (want > n ? n : want);
    quick_select(c, n, k);
    double sum = 0;
    for (int i = 0; i < k; ++i) sum += c[i];
    return sum / k;
}

// Where upstream reaches outside its histogram buffer at a scale of width x height (window half
// `pad`) when the band is not kLevels (every contrast value is then 0; see Band): "" where it
// does not, else the first place in upstream's order. The image and mask rows are those
// upstream's loops visit (rows past the scale's height included), as Contrast::run visits them.
//
// - kEmpty: upstream's AVX2 row kernel (x86/cambi_avx2.c calculate_c_values_row_avx2, which its
//   dispatch picks on every x86 CPU with AVX2) clamps the level of each pixel of a vector of 8
//   columns into [0, size - 1] = [0, -1] and gathers the count of histogram row -1, before its
//   buffer, for every vector (columns col .. col + 7 with col + 8 < width) holding a masked
//   pixel, in every row [0, max(pad + 1, height)) whose contrast values it computes.
// - kWrapped: the interior update of a row (cambi.h uh_slide, uh_slide_edge: rows i in [pad + 1,
//   height - pad), every column j in [0, max(pad, width))) takes a masked pixel of level v as in
//   the band when (uint16_t)(v - band_base) < size, which holds for v <= band_top too, and then
//   indexes histogram row v - band_base < 0 without the cast: it writes before its buffer, unless
//   the leaving and the entering pixel are both counted at the same level (the update is
//   skipped). (The first and last rows' updates cast the row to uint16_t and stay inside.)
std::string band_reach_error(const Plan& p, const Buffers& b, int width, int height, int pad) {
    const auto at = [&](const std::vector<std::uint16_t>& plane, int r, int c) {
        return plane[static_cast<std::size_t>(r) * static_cast<std::size_t>(b.stride) + static_cast<std::size_t>(c)];
    };
    if (p.band == Band::kEmpty) {
        const int vector_end = width > 8 ? (width - 1) / 8 * 8 : 0;
        for (int r = 0; r < std::max(pad + 1, height); ++r)
            for (int c = 0; c < vector_end; ++c)
                if (at(b.mask, r, c))
                    return fmt::format("the masked pixel at row {}, column {} makes upstream read the count of "
                                       "histogram row -1, before its (empty) buffer",
                                       r, c);
        return "";
    }
    const auto counted = [&](int r, int c, int& level) {
        if (!at(b.mask, r, c)) return false;
        level = at(b.image, r, c);
        return level >= p.band_base || level <= p.band_top;
    };
    for (int i = pad + 1; i < height - pad; ++i)
        for (int j = 0; j < std::max(pad, width); ++j) {
            int leaving = 0, entering = 0;
            const bool sub = counted(i - pad - 1, j, leaving);
            const bool add = counted(i + pad, j, entering);
            if (sub && add && leaving == entering) continue;
            const bool sub_below = sub && leaving < p.band_base;  // (then leaving <= band_top)
            const bool add_below = add && entering < p.band_base;
            if (!sub_below && !add_below) continue;
            const int level = sub_below ? leaving : entering;
            return fmt::format("the masked pixel of level {} (at most the band's top {}) at row {}, column {} makes "
                               "upstream write to histogram row {}, before its buffer",
                               level, p.band_top, sub_below ? i - pad - 1 : i + pad, j, level - p.band_base);
        }
    return "";
}

void check_band_reach(const Plan& p, const Buffers& b, int scale, int width, int height, int pad, unsigned frame,
                      const char* what) {
    if (const std::string where = band_reach_error(p, b, width, height, pad); !where.empty())
        throw Error(fmt::format("cambi: {}: frame {} ({} picture), scale {} ({}x{}): {} (upstream corrupts or reads "
                                "outside its memory there; refused)",
                                p.band_options, frame, what, scale, width, height, where));
}

// The score of one picture at width x height with the given window (cambi.c cambi_score);
// with `heatmaps`, each scale's c values are written to them as frame `frame`. Throws Error
// where upstream reaches outside its histograms (band_reach_error), naming `what`.
double picture_score(const Plan& p, Buffers& b, int width, int height, int window, const Heatmaps* heatmaps,
                     unsigned frame, const char* what) {
    spatial_mask(b, width, height);
    double per_scale[kScales];
    int sw = width, sh = height;
    const int pad = window >> 1;
    for (int scale = 0; scale < kScales; ++scale) {
        if (scale > 0 || p.speedup) {
            sw = (sw + 1) >> 1;
            sh = (sh + 1) >> 1;
            cambi::simd_decimate()(b.image.data(), b.stride, sw, sh);
            cambi::simd_decimate()(b.mask.data(), b.stride, sw, sh);
        }
        cambi::simd_mode_filter()(b.image.data(), b.stride, sw, sh, b.mode_rows.data());
        if (p.band == Band::kLevels) {
            contrast_values(p, b, sw, sh, pad);
        } else {
            check_band_reach(p, b, scale, sw, sh, pad, frame, what);
            std::fill(b.c_values.begin(), b.c_values.begin() + static_cast<std::ptrdiff_t>(sw) * sh, 0.0f);
        }
        if (heatmaps) heatmaps->write(scale, b.c_values.data(), sw, sh, frame);
        per_scale[scale] = spatial_pooling(b.c_values.data(), p.topk, sw, sh);
    }
    return combine_scales(per_scale, window);
}

double combine_scales(const double (&per_scale)[kScales], int window) {
    double score = 0.0;
    for (int scale = 0; scale < kScales; ++scale) score += per_scale[scale] * kScaleWeights[scale];
    const int side = 2 * (window >> 1) + 1;
    return score / static_cast<std::uint16_t>(side * side);
}

}  // namespace vmafx::cambi
