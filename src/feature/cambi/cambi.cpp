// CAMBI, bit-exact to upstream libvmaf 3.2.0 (src/feature/cambi.c, cambi.h, luminance_tools.c,
// and x86/cambi_avx2.c, which produced the golden values: its kernels give the C code's bits).
#include "feature/cambi/cambi.hpp"
#include "feature/cambi/cambi_kernels.hpp"
#include "feature/cambi/cambi_levels.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace vmafx {

namespace {

using cambi::Settings;

// Option table, as upstream's `options[]` of cambi.c.
constexpr OptionSpec kCambiOptions[] = {
    option<&Settings::max_val>("cambi_max_val", "cmxv", 1000.0, 0.0, 1000.0, OptionRole::kFeatureParameter,
                               "maximum value allowed; larger values will be clipped to this value"),
    option<&Settings::enc_width>("enc_width", "encw", 0, 180, 7680, OptionRole::kFeatureParameter, "Encoding width"),
    option<&Settings::enc_height>("enc_height", "ench", 0, 150, 7680, OptionRole::kFeatureParameter, "Encoding height"),
    option<&Settings::enc_bitdepth>("enc_bitdepth", "encbd", 0, 6, 16, OptionRole::kFeatureParameter, "Encoding bitdepth"),
    option<&Settings::src_width>("src_width", "srcw", 0, 320, 7680, OptionRole::kFeatureParameter, "Source width. Only used when full_ref=true."),
    option<&Settings::src_height>("src_height", "srch", 0, 200, 4320, OptionRole::kFeatureParameter,
                                  "Source height. Only used when full_ref=true."),
    option<&Settings::window_size>("window_size", "ws", 65, 15, 127, OptionRole::kFeatureParameter,
                                   "Window size to compute CAMBI: 65 corresponds to ~1 degree at 4k"),
    option<&Settings::topk>("topk", nullptr, 0.6, 0.0001, 1.0, OptionRole::kFeatureParameter,
                            "Ratio of pixels for the spatial pooling computation, must be 0 < topk <= 1.0"),
    option<&Settings::cambi_topk>("cambi_topk", "ctpk", 0.6, 0.0001, 1.0, OptionRole::kFeatureParameter,
                                  "Ratio of pixels for the spatial pooling computation, must be 0 < cambi_topk <= 1.0"),
    option<&Settings::tvi_threshold>("tvi_threshold", "tvit", 0.019, 0.0001, 1.0, OptionRole::kFeatureParameter,
                                     "Visibilty threshold for luminance \xCE\x94L < tvi_threshold*L_mean"),
    option<&Settings::vis_lum_threshold>("cambi_vis_lum_threshold", "vlt", 0.0, 0.0, 300.0, OptionRole::kFeatureParameter,
                                         "Luminance value below which we assume any banding is not visible"),
    option<&Settings::max_log_contrast>(
        "max_log_contrast", "mlc", 2, 0, 5, OptionRole::kFeatureParameter,
        "Maximum contrast in log luma level (2^max_log_contrast) at 10-bits, e.g., 2 is equivalent to 4 luma "
        "levels at 10-bit and 1 luma level at 8-bit. From 0 to 5: default 2 is recommended for banding from "
        "compression."),
    option<&Settings::heatmaps_path>("heatmaps_path", nullptr, nullptr, OptionRole::kSetting, "Path where heatmaps will be dumped."),
    option<&Settings::full_ref>("full_ref", nullptr, 0, 0, 1, OptionRole::kSetting,
                                "If true, CAMBI will be run in full-reference mode and will be computed on both "
                                "the reference and distorted inputs"),
    option<&Settings::eotf>("eotf", nullptr, "bt1886", OptionRole::kFeatureParameter,
                            "Determines the EOTF used to compute the visibility thresholds. Possible values: "
                            "['bt1886', 'pq']. Default: 'bt1886'"),
    option<&Settings::cambi_eotf>("cambi_eotf", "ceot", "bt1886", OptionRole::kFeatureParameter,
                                  "Determines the EOTF used to compute the visibility thresholds. Possible values: "
                                  "['bt1886', 'pq']. Default: 'bt1886'. If both eotf and cambi_eotf are set, "
                                  "cambi_eotf takes precedence."),
    option<&Settings::high_res_speedup>(
        "cambi_high_res_speedup", "hrs", 0, 0, 2160, OptionRole::kFeatureParameter,
        "Speed up the processing by downsampling post spatial mask for resolutions >= 1080p. Min speed-up "
        "resolution possible values: [1080, 1440, 2160, 0]. Default: 0 (not applied)Note some loss of accuracy "
        "is expected with this speedup."),
};

constexpr const char* kScoreFeature = "Cambi_feature_cambi_score";
constexpr const char* kSourceName = "cambi_source";
constexpr const char* kFullReferenceName = "cambi_full_reference";

// Upstream's provided_features[] with its alias (alias.c).
constexpr FeatureName kCambiFeatures[] = {{kScoreFeature, "cambi"}};

constexpr int kScales = 5;
constexpr int kScaleWeights[kScales] = {16, 8, 4, 2, 1};
// Suprathreshold contrast response: the weight of a luma step of d + 1 levels.
constexpr int kContrastWeights[32] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
                                      8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
constexpr int kMinSide = 216;        // upstream's CAMBI_MIN_WIDTH_HEIGHT
constexpr int kMaskFilter = 7;       // the spatial mask's window
constexpr int kReciprocals = 4226;   // upstream's CAMBI_RECIPROCAL_LUT_SIZE
constexpr double kDefaultTopk = 0.6;
constexpr const char* kDefaultEotf = "bt1886";

// Upstream's reciprocal table: entry i is 1/i printed with 9 significant digits and read back
// as a float (its generator's rounding, which is not always the float nearest 1/i); entry 0 is 0.
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

// --- Luminance: cambi_levels.cpp ---------------------------------------------------------------

using cambi::adjusted_window;
using cambi::bt1886_eotf;
using cambi::Eotf;
using cambi::pq_eotf;
using cambi::tvi_for_diff;
using cambi::vlt_luma_for;

// --- What an instance derives from its options and format ------------------------------------

// cambi.c init: the band of 10-bit levels whose histograms the contrast values read,
// [band_base, band_top] with band_base = max(0, vlt_luma - 3 num_diffs + 1) and band_top the
// largest visibility limit tvi_for_diff[num_diffs - 1] (already + num_diffs). Upstream keeps its
// size band_top + 1 - band_base in a uint16_t, so a visibility threshold above the tvi limits
// leaves no level, or wraps the size to 65536 + band_top + 1 - band_base. In both cases no step
// d passes the test value <= tvi[d] < value + d + 1 - ... (value + d + 1 > vlt_luma >= band_top
// + 3 num_diffs > tvi[d]): every contrast value is 0, and so is the score. What upstream reads or
// writes outside its histograms then depends on the picture (band_reach_error below).
enum class Band {
    kLevels,   ///< band_base <= band_top: the histograms of band_top + 1 - band_base levels
    kEmpty,    ///< band_base == band_top + 1: a size of 0 (an empty histogram buffer)
    kWrapped,  ///< band_base > band_top + 1: the uint16_t size wraps to 65536 + band_top + 1 - band_base
};

/// The band of an instance with this vlt_luma (cambi.c get_vlt_luma), num_diffs and band_top.
Band band_of(int vlt_luma, int num_diffs, int band_top) {
    const int low = vlt_luma - 3 * num_diffs + 1;
    const int base = low > 0 ? low : 0;
    return base <= band_top ? Band::kLevels : (base == band_top + 1 ? Band::kEmpty : Band::kWrapped);
}

// Upstream's picture buffers (vmaf_picture_alloc): rows of the width rounded up to 32 samples,
// zero-initialised.
constexpr int kRowAlign = 32;
int aligned_row(int width) { return (width + kRowAlign - 1) & ~(kRowAlign - 1); }

struct Plan {
    int enc_w = 0, enc_h = 0, src_w = 0, src_h = 0;
    int enc_bitdepth = 0;
    bool speedup = false;
    int window = 0, src_window = 0;
    int num_diffs = 0;
    std::vector<std::uint16_t> tvi;  // per step: the largest level + num_diffs
    std::uint16_t vlt_luma = 0;
    int band_base = 0, band_size = 0;  // levels [band_base, band_base + band_size) matter (kLevels)
    Band band = Band::kLevels;
    int band_top = 0;                  // tvi[num_diffs - 1]
    std::string band_options;          // the options that set the band, for messages
    int alloc_w = 0, alloc_h = 0;
    double topk = kDefaultTopk;
};

// --- Buffers of one picture's computation (upstream's CambiBuffers and pics[]) ---------------
//
// The image and mask are planes of alloc_h rows of aligned_row(alloc_w) samples, as upstream's,
// that every scale rewrites in place, indexed as upstream indexes them (row * stride + column),
// so that where upstream reads past a scale's last row (windows taller than the scale) or past
// its last column (windows wider than the scale, up to the row's alignment) it reads the same
// earlier data, or the same zeros, here.
struct Buffers {
    std::vector<std::uint16_t> image, mask;
    std::vector<float> c_values;
    std::vector<std::uint16_t> histograms;
    std::vector<std::uint16_t> mode_rows;  // 3 rows of the mode filter
    std::vector<std::uint8_t> derivative;  // ring of kMaskFilter + 1 rows
    std::vector<std::uint32_t> column_sums;
    std::ptrdiff_t stride = 0;
    int alloc_w = 0, alloc_h = 0;  // the plan the planes were last sized for

    // Sizes the buffers for a picture of width x height. The image and mask planes are zero
    // outside [0, width) x [0, height) (what upstream's reads past a scale's rows and columns may
    // reach that this picture does not write); inside it preprocess and spatial_mask write every
    // sample before it is read, as row_values does every c value a scale pools, so those are
    // not cleared again for every picture.
    void prepare(const Plan& p, int width, int height) {
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
};

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
                (d[i * s + j] + d[i * s + j + 1] + d[(i + 1) * s + j] + d[(i + 1) * s + j + 1]) >> 2);
        const int j = width - 1;
        d[i * s + j] = static_cast<std::uint16_t>((d[i * s + j] + d[(i + 1) * s + j]) >> 1);
    }
    const int i = height - 1;
    for (int j = 0; j < width - 1; ++j)
        d[i * s + j] = static_cast<std::uint16_t>((d[i * s + j] + d[i * s + j + 1]) >> 1);
}

void preprocess(const Plane& luma, int bit_depth, const Plan& p, Buffers& b, int width, int height) {
    if (bit_depth >= 10) {
        const int shift = bit_depth - 10;
        const int round = shift == 0 ? 0 : 1 << (shift - 1);
        resample<std::uint16_t>(luma, b, width, height,
                                [&](std::uint16_t v) { return static_cast<std::uint16_t>((v + round) >> shift); });
    } else if (bit_depth == 9) {
        resample<std::uint16_t>(luma, b, width, height,
                                [](std::uint16_t v) { return static_cast<std::uint16_t>(v << 1); });
    } else {
        const int shift = 10 - bit_depth;
        resample<std::uint8_t>(luma, b, width, height,
                               [&](std::uint8_t v) { return static_cast<std::uint16_t>(v << shift); });
    }
    if (p.enc_bitdepth < 10) anti_dither(b, width, height);
}

// --- The spatial mask (cambi.c get_spatial_mask) ----------------------------------------------

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

// A pixel is kept when more than mask_index of the pixels of its 7x7 window (clipped to the
// picture) equal their right and lower neighbours (the last column and row count as equal).
void spatial_mask(Buffers& b, int width, int height) {
    const std::uint32_t shifted = (static_cast<unsigned>(width) >> 6) * (static_cast<unsigned>(height) >> 6);
    const std::uint32_t mask_index =
        static_cast<std::uint16_t>((kMaskFilter * kMaskFilter + 3 * (ceil_log2(shifted) - 11) - 1) >> 1);
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

// --- Scales: decimation and the mode filter ----------------------------------------------------

// (decimation and the mode filter: cambi_kernels.hpp, simd_decimate() and simd_mode_filter())

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

    void prepare_steps() {
        steps.assign(static_cast<std::size_t>(p.band_size), 0u);
        for (int compact = 0; compact < p.band_size; ++compact) {
            const int value = compact + p.band_base + p.num_diffs;
            for (int d = 0; d < p.num_diffs; ++d)
                if (value <= p.tvi[static_cast<std::size_t>(d)] && value + d + 1 > p.vlt_luma)
                    steps[static_cast<std::size_t>(compact)] |= 1u << d;
        }
    }

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
                const float val = static_cast<float>(kContrastWeights[d] * p0 * pm) * rec[pm + p0];
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

// Upstream's quick_select: partially orders arr so that its first k elements are its k largest.
void quick_select(float* arr, int n, int k) {
    if (n == k) return;
    int left = 0, right = n - 1;
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

double spatial_pooling(float* c, double topk, int width, int height) {
    const int n = height * width;
    const int want = static_cast<int>(topk * n);
    const int k = want < 1 ? 1 : (want > n ? n : want);
    quick_select(c, n, k);
    double sum = 0;
    for (int i = 0; i < k; ++i) sum += c[i];
    return sum / k;
}

// The heatmap files of an instance (cambi.c init and dump_c_values): one per scale, each frame's
// contrast values of that scale at frame * rows, scaled to 16 bits.
struct Heatmaps {
    std::array<int, kScales> fds{-1, -1, -1, -1, -1};
    double scaling = 0.0;  // 65535 / the largest contrast value

    // Writes the c values of a width x height scale of frame `frame` (pwrite: frames may be
    // written by several threads at once, each to its own rows).
    void write(int scale, const float* c, int width, int height, unsigned frame) const {
        std::vector<std::uint16_t> row(static_cast<std::size_t>(width));
        for (int i = 0; i < height; ++i) {
            for (int j = 0; j < width; ++j)
                row[static_cast<std::size_t>(j)] = static_cast<std::uint16_t>(scaling * c[i * width + j]);
            const std::int64_t offset = (static_cast<std::int64_t>(frame) * height + i) * width * 2;
            const std::size_t bytes = row.size() * sizeof(std::uint16_t);
            if (::pwrite(fds[static_cast<std::size_t>(scale)], row.data(), bytes, static_cast<off_t>(offset)) !=
                static_cast<ssize_t>(bytes))
                throw Error(fmt::format("cambi: cannot write the heatmap of scale {} (frame {})", scale, frame));
        }
    }
};

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

// The score of one picture at width x height with the given window (cambi.c cambi_score);
// with `heatmaps`, each scale's c values are written to them as frame `frame`. Throws Error
// where upstream reaches outside its histograms (band_reach_error), naming `what`.
double picture_score(const Plan& p, Buffers& b, int width, int height, int window, const Heatmaps* heatmaps = nullptr,
                     unsigned frame = 0, const char* what = "distorted") {
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
            Contrast{p, b, sw, sh, pad, {}}.run();
        } else {
            if (const std::string where = band_reach_error(p, b, sw, sh, pad); !where.empty())
                throw Error(fmt::format("cambi: {}: frame {} ({} picture), scale {} ({}x{}): {} (upstream corrupts "
                                        "or reads outside its memory there; refused)",
                                        p.band_options, frame, what, scale, sw, sh, where));
            std::fill(b.c_values.begin(), b.c_values.begin() + static_cast<std::ptrdiff_t>(sw) * sh, 0.0f);
        }
        if (heatmaps) heatmaps->write(scale, b.c_values.data(), sw, sh, frame);
        per_scale[scale] = spatial_pooling(b.c_values.data(), p.topk, sw, sh);
    }
    double score = 0.0;
    for (int scale = 0; scale < kScales; ++scale) score += per_scale[scale] * kScaleWeights[scale];
    const int side = 2 * (window >> 1) + 1;
    return score / static_cast<std::uint16_t>(side * side);
}

// --- The extractor --------------------------------------------------------------------------------

// The windows' and scales' reach: upstream reads up to `pad` rows past a scale's last row and
// computes rows from height - pad on, so pad must stay within every scale's height (and within
// the picture's rows, the data written for this picture). Its windows also read the columns
// [width, pad) of the rows of a scale narrower than pad: earlier scales' data of the picture, or,
// past the picture's width, its buffers' padding, which is zero when the picture is the widest
// one the instance scores (`widest`; pad <= 32, as the window's square is below the reciprocal
// table's 4226 entries, so those columns stay inside a row aligned to 32 samples); with full_ref
// the narrower picture's columns past its width hold the other picture's data of an earlier
// frame, which vmafx does not keep, so a window wider than it is refused.
bool window_fits(int width, int height, int window, bool speedup, bool widest) {
    const int pad = window >> 1;
    if (pad >= height || (pad > width && !widest)) return false;
    int sw = width, sh = height;
    for (int scale = 0; scale < kScales; ++scale) {
        if (scale > 0 || speedup) {
            sw = (sw + 1) >> 1;
            sh = (sh + 1) >> 1;
        }
        if (pad > sh) return false;
    }
    return true;
}

class CambiExtractor final : public FeatureExtractor {
public:
    CambiExtractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {
        const Settings& s = settings_;
        const int w = format.width, h = format.height;
        Plan& p = plan_;
        p.enc_bitdepth = s.enc_bitdepth == 0 ? format.bit_depth : s.enc_bitdepth;
        p.enc_w = s.enc_width, p.enc_h = s.enc_height;
        if (p.enc_w == 0 || p.enc_h == 0) p.enc_w = w, p.enc_h = h;
        p.src_w = s.src_width, p.src_h = s.src_height;
        if (p.src_w == 0 || p.src_h == 0) p.src_w = w, p.src_h = h;
        // An encode larger than the picture is not scaled back up.
        if (p.enc_h > h || p.enc_w > w) p.enc_w = w, p.enc_h = h;
        if (p.enc_w < kMinSide && p.enc_h < kMinSide)
            throw Error(fmt::format("cambi: picture {}x{} is too small: the encode ({}x{}) must be at least {} wide "
                                    "or high (upstream refuses it at initialisation)",
                                    w, h, p.enc_w, p.enc_h, kMinSide));
        if (p.src_w < kMinSide && p.src_h < kMinSide)
            throw Error(fmt::format("cambi: the source ({}x{}) must be at least {} wide or high (upstream refuses "
                                    "it at initialisation)",
                                    p.src_w, p.src_h, kMinSide));
        if ((p.src_w > p.enc_w && p.src_h < p.enc_h) || (p.src_w < p.enc_w && p.src_h > p.enc_h))
            throw Error(fmt::format("cambi: source {}x{} and encode {}x{} are scaled in opposite directions "
                                    "(upstream refuses it at initialisation)",
                                    p.src_w, p.src_h, p.enc_w, p.enc_h));
        const long enc_pix = static_cast<long>(p.enc_w) * p.enc_h;
        switch (s.high_res_speedup) {
        case 1080: p.speedup = enc_pix >= 1920L * 1080; break;
        case 1440: p.speedup = enc_pix >= 2560L * 1440; break;
        case 2160: p.speedup = enc_pix >= 3840L * 2160; break;
        default: p.speedup = false;
        }
        p.alloc_w = s.full_ref ? std::max(p.src_w, p.enc_w) : p.enc_w;
        p.alloc_h = s.full_ref ? std::max(p.src_h, p.enc_h) : p.enc_h;

        const std::string& eotf_name = s.cambi_eotf != kDefaultEotf ? s.cambi_eotf : s.eotf;
        Eotf eotf = nullptr;
        if (eotf_name == "bt1886") eotf = bt1886_eotf;
        else if (eotf_name == "pq") eotf = pq_eotf;
        else
            throw Error(fmt::format("cambi: unknown EOTF \"{}\" (eotf and cambi_eotf take bt1886 or pq)", eotf_name));

        p.num_diffs = 1 << s.max_log_contrast;
        for (int d = 0; d < p.num_diffs; ++d)
            p.tvi.push_back(static_cast<std::uint16_t>(tvi_for_diff(d + 1, s.tvi_threshold, eotf) + p.num_diffs));
        const int vlt = vlt_luma_for(s.vis_lum_threshold, eotf);
        if (vlt < 0)
            throw Error(fmt::format("cambi: cambi_vis_lum_threshold={:g} is above the largest luminance of the "
                                    "EOTF \"{}\" (upstream never finishes its initialisation)",
                                    s.vis_lum_threshold, eotf_name));
        p.vlt_luma = static_cast<std::uint16_t>(vlt);

        p.window = adjusted_window(s.window_size, p.enc_w, p.enc_h, p.speedup);
        p.src_window = adjusted_window(s.window_size, p.src_w, p.src_h, p.speedup);
        const int max_window = std::max(p.window, p.src_window);
        if (max_window * max_window >= kReciprocals)
            throw Error(fmt::format("cambi: window_size {} is {} at this resolution, too large for the reciprocal "
                                    "table (at most 65; upstream refuses it at initialisation)",
                                    s.window_size, max_window));

        const int low = static_cast<int>(p.vlt_luma) - 3 * p.num_diffs + 1;
        p.band_base = low > 0 ? low : 0;
        p.band_top = p.tvi[static_cast<std::size_t>(p.num_diffs - 1)];
        p.band = band_of(p.vlt_luma, p.num_diffs, p.band_top);
        // (kEmpty, kWrapped: every contrast value is 0; no histograms; band_reach_error decides
        // per picture)
        p.band_size = p.band == Band::kLevels ? p.band_top + 1 - p.band_base : 0;
        p.band_options = fmt::format("tvi_threshold={:g} with cambi_vis_lum_threshold={:g}, max_log_contrast={} and "
                                     "EOTF {} put the band of levels at [{}, {}] ({}; upstream's uint16_t size {})",
                                     s.tvi_threshold, s.vis_lum_threshold, s.max_log_contrast, eotf_name, p.band_base,
                                     p.band_top, p.band == Band::kEmpty ? "empty" : "base above top",
                                     static_cast<std::uint16_t>(p.band_top + 1 - p.band_base));
        for (int d = 1; d < p.num_diffs; ++d)
            if (p.tvi[static_cast<std::size_t>(d)] < p.tvi[static_cast<std::size_t>(d - 1)])
                throw Error("internal: cambi's visibility limits are not increasing");

        const double topk = s.topk != kDefaultTopk ? s.topk : s.cambi_topk;
        p.topk = topk;

        const auto check_reach = [&](int width, int height, int window, const char* what) {
            if (!window_fits(width, height, window, p.speedup, width == p.alloc_w))
                throw Error(fmt::format("cambi: picture {}x{} is too small for its window: the {} ({}x{}) with a "
                                        "window of {} at 5 scales (upstream reads outside its buffers)",
                                        w, h, what, width, height, window));
        };
        check_reach(p.enc_w, p.enc_h, p.window, "encode");
        if (s.full_ref) {
            check_reach(p.src_w, p.src_h, p.src_window, "source");
            // Upstream copies a 10-bit picture of the encode's size with the picture's row
            // stride into a wider buffer, mixing its rows with undefined padding.
            const auto aligned = [](int x) { return (x + 31) & ~31; };
            if (format.bit_depth == 10 && p.enc_w == w && p.enc_h == h && aligned(p.alloc_w) != aligned(w))
                throw Error(fmt::format("cambi: full_ref with a source ({}x{}) wider than the 10-bit picture "
                                        "({}x{}) is not supported (upstream copies rows with the wrong stride)",
                                        p.src_w, p.src_h, w, h));
        }
        if (!s.heatmaps_path.empty()) open_heatmaps(s.heatmaps_path);
        (void)reciprocals();
    }

    ~CambiExtractor() override {
        for (const int fd : heatmaps_.fds)
            if (fd >= 0) ::close(fd);
    }
    CambiExtractor(const CambiExtractor&) = delete;
    CambiExtractor& operator=(const CambiExtractor&) = delete;

    void extract(const FrameInput& in, FrameScores& out) const override {
        const Settings& s = settings_;
        thread_local Buffers buffers;
        const double dist = score_of(in.dist, "distorted", false, buffers, in.index);
        out.emplace_back(s.score_name, dist < s.max_val ? dist : s.max_val);
        if (!s.full_ref) return;
        const double src = score_of(in.ref, "reference", true, buffers, in.index);
        out.emplace_back(kSourceName, src < s.max_val ? src : s.max_val);
        const double diff = dist - src;
        const double combined = 0 > diff ? 0 : diff;
        out.emplace_back(kFullReferenceName, combined < s.max_val ? combined : s.max_val);
    }

private:
    // cambi.c init: the directory (made as mkdirp does, mode 0770) and the five files, truncated,
    // named by the encode's size halved (rounding up) per scale.
    void open_heatmaps(const std::string& dir) {
        const auto fail = [&](const std::string& what) {
            return Error(fmt::format("cambi: heatmaps_path \"{}\": {}", dir, what));
        };
        for (std::size_t at = 1; at <= dir.size(); ++at) {
            if (at < dir.size() && dir[at] != '/') continue;
            const std::string prefix = dir.substr(0, at);
            struct stat st {};
            if (::stat(prefix.c_str(), &st) == 0) {
                if (!S_ISDIR(st.st_mode)) throw fail(fmt::format("{} is not a directory", prefix));
                continue;
            }
            if (::mkdir(prefix.c_str(), 0770) != 0) throw fail(fmt::format("cannot make the directory {}", prefix));
        }
        int w = plan_.enc_w, h = plan_.enc_h;
        for (int scale = 0; scale < kScales; ++scale) {
            const std::string path = fmt::format("{}/cambi_heatmap_scale_{}_{}x{}_16b.gray", dir, scale, w, h);
            const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
            if (fd < 0) throw fail(fmt::format("cannot open {}", path));
            heatmaps_.fds[static_cast<std::size_t>(scale)] = fd;
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
        }
        int max_weight = kContrastWeights[0];
        for (int d = 0; d < plan_.num_diffs; ++d) max_weight = std::max(max_weight, kContrastWeights[d]);
        const int max_c = max_weight * plan_.window * plan_.window / 4;
        heatmaps_.scaling = static_cast<double>((1 << 16) - 1) / max_c;
        has_heatmaps_ = true;
    }

    double score_of(const Picture* pic, const char* what, bool is_src, Buffers& b, unsigned frame) const {
        if (!pic) throw Error(fmt::format("cambi: no {} picture", what));
        const Plane& luma = pic->luma();
        if (luma.width() != format_.width || luma.height() != format_.height ||
            luma.bytes_per_sample() != format_.bytes_per_sample())
            throw Error(fmt::format("cambi: {} luma is {}x{}, expected {}x{}", what, luma.width(), luma.height(),
                                    format_.width, format_.height));
        check_samples(luma, what);
        const Plan& p = plan_;
        const int width = is_src ? p.src_w : p.enc_w;
        const int height = is_src ? p.src_h : p.enc_h;
        b.prepare(p, width, height);
        preprocess(luma, format_.bit_depth, p, b, width, height);
        const Heatmaps* heatmaps = has_heatmaps_ && !is_src ? &heatmaps_ : nullptr;
        return picture_score(p, b, width, height, is_src ? p.src_window : p.window, heatmaps, frame, what);
    }

    // Upstream refuses samples above the bit depth (except at 8 and 16 bits, which cannot have any).
    void check_samples(const Plane& luma, const char* what) const {
        const int bits = format_.bit_depth;
        if (bits == 8 || bits == 16) return;
        const unsigned max = (1u << bits) - 1;
        for (int i = 0; i < luma.height(); ++i) {
            const std::uint16_t* row = luma.row<std::uint16_t>(i);
            // the row's largest sample first (a loop the compiler vectorises), then, only for a
            // row that has one above max, the first such sample
            unsigned largest = 0;
            for (int j = 0; j < luma.width(); ++j) largest = std::max<unsigned>(largest, row[j]);
            if (largest <= max) continue;
            for (int j = 0; j < luma.width(); ++j)
                if (row[j] > max)
                    throw Error(fmt::format("cambi: the {} picture has a sample of {} above the largest {}-bit value "
                                            "{} (upstream refuses it)",
                                            what, row[j], bits, max));
        }
    }

    VideoFormat format_;
    Settings settings_;
    Plan plan_;
    Heatmaps heatmaps_;
    bool has_heatmaps_ = false;
};

std::unique_ptr<FeatureExtractor> create_cambi(const Options& options, const VideoFormat& format) {
    return std::make_unique<CambiExtractor>(options, format);
}

}  // namespace

namespace cambi {

// The scalar reference kernels of cambi_kernels.hpp: cambi_reference.cpp.



const MetricDescriptor descriptor{
    .name = "cambi", .oracle = {kLibvmaf, "libvmaf/src/feature/cambi.c"},
    .options = kCambiOptions, .features = kCambiFeatures, .planes = nullptr, .history = nullptr,
    .limits = {.min_width = 1,
               .min_height = 2,
               .bit_depths = kEveryBitDepth,
               .why = "(upstream refuses pictures below 216 in both dimensions, and its windows reach outside "
                      "a picture 1 high)",
               .min_longer_side = kMinSide},
    .create = create_cambi};

Settings::Settings(const Options& options) : score_name(options.feature_name(kScoreFeature)) { options.bind(*this); }

}  // namespace cambi

}  // namespace vmafx
