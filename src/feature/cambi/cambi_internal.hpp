// CAMBI's pieces between its files (upstream libvmaf 3.2.0 cambi.c): what an instance derives from
// its options (Plan), the buffers of one picture's computation (Buffers), and the stages of a
// picture's score, each in its own file:
//   cambi.cpp             options, the Plan of an instance, the extractor, the heatmap files;
//   cambi_preprocess.cpp  to 10 bits at the target size, anti-dithering, the spatial mask;
//   cambi_contrast.cpp    the contrast values, the pooling, a picture's score over five scales;
//   cambi_levels.cpp      the visibility levels (cambi_levels.hpp);
//   cambi_reference.cpp, cambi_simd.cpp  the row kernels (cambi_kernels.hpp).
// Internal: used by those files and by nothing outside src/feature/cambi/.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/scores.hpp"
#include "feature/cambi/cambi.hpp"
#include "picture/picture.hpp"

namespace vmafx::cambi {

inline constexpr int kScales = 5;
/// The weights of the five scales' pooled values in the score.
inline constexpr int kScaleWeights[kScales] = {16, 8, 4, 2, 1};
/// Suprathreshold contrast response: the weight of a luma step of d + 1 levels.
inline constexpr int kContrastWeights[32] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
                                             8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
inline constexpr int kMinSide = 216;       ///< upstream's CAMBI_MIN_WIDTH_HEIGHT
inline constexpr int kMaskFilter = 7;      ///< the spatial mask's window (samples)
inline constexpr int kReciprocals = 4226;  ///< upstream's CAMBI_RECIPROCAL_LUT_SIZE

/// Upstream's reciprocal table (cambi_contrast.cpp): entry i is 1/i printed with 9 significant
/// digits and read back as a float (its generator's rounding, which is not always the float
/// nearest 1/i); entry 0 is 0. Built on the first call.
const std::array<float, kReciprocals>& reciprocals();

// cambi.c init: the band of 10-bit levels whose histograms the contrast values read,
// [band_base, band_top] with band_base = max(0, vlt_luma - 3 num_diffs + 1) and band_top the
// largest visibility limit tvi_for_diff[num_diffs - 1] (already + num_diffs). Upstream keeps its
// size band_top + 1 - band_base in a uint16_t, so a visibility threshold above the tvi limits
// leaves no level, or wraps the size to 65536 + band_top + 1 - band_base. In both cases no step
// d passes the test value <= tvi[d] < value + d + 1 - ... (value + d + 1 > vlt_luma >= band_top
// + 3 num_diffs > tvi[d]): every contrast value is 0, and so is the score. What upstream reads or
// writes outside its histograms then depends on the picture (band_reach_error).
enum class Band {
    kLevels,   ///< band_base <= band_top: the histograms of band_top + 1 - band_base levels
    kEmpty,    ///< band_base == band_top + 1: a size of 0 (an empty histogram buffer)
    kWrapped,  ///< band_base > band_top + 1: the uint16_t size wraps to 65536 + band_top + 1 - band_base
};

/// What an instance derives from its options and format (cambi.cpp, CambiExtractor).
struct Plan {
    int enc_w = 0, enc_h = 0, src_w = 0, src_h = 0;  ///< the encode's and the source's sizes
    int enc_bitdepth = 0;                            ///< below 10: anti-dithering
    bool speedup = false;                            ///< decimate once more after the mask
    int window = 0, src_window = 0;                  ///< the encode's and the source's windows
    int num_diffs = 0;                               ///< 2^max_log_contrast steps
    std::vector<std::uint16_t> tvi;  ///< per step: the largest level + num_diffs
    std::uint16_t vlt_luma = 0;      ///< the smallest visible 10-bit level
    int band_base = 0, band_size = 0;  ///< levels [band_base, band_base + band_size) matter (kLevels)
    Band band = Band::kLevels;
    int band_top = 0;                ///< tvi[num_diffs - 1]
    std::string band_options;        ///< the options that set the band, for messages
    int alloc_w = 0, alloc_h = 0;    ///< the largest picture scored (both with full_ref)
    double topk = 0.0;               ///< the pooled fraction of each scale's values (topk or cambi_topk)
};

/// Upstream's picture buffers (vmaf_picture_alloc): rows of the width rounded up to 32 samples.
inline int aligned_row(int width) { return (width + 31) & ~31; }

/// Buffers of one picture's computation (upstream's CambiBuffers and pics[]).
///
/// The image and mask are planes of alloc_h rows of aligned_row(alloc_w) samples, as upstream's,
/// that every scale rewrites in place, indexed as upstream indexes them (row * stride + column),
/// so that where upstream reads past a scale's last row (windows taller than the scale) or past
/// its last column (windows wider than the scale, up to the row's alignment) it reads the same
/// earlier data, or the same zeros, here.
struct Buffers {
    std::vector<std::uint16_t> image, mask;  ///< 10-bit samples; the spatial mask (0 or 1)
    std::vector<float> c_values;             ///< a scale's contrast values, width x height packed
    std::vector<std::uint16_t> histograms;   ///< band_size rows of width counts, then the slack
    std::vector<std::uint16_t> mode_rows;    ///< 3 rows of the mode filter
    std::vector<std::uint8_t> derivative;    ///< ring of kMaskFilter + 1 rows
    std::vector<std::uint32_t> column_sums;  ///< the spatial mask's per-column sums
    std::ptrdiff_t stride = 0;               ///< samples per row of image and mask
    int alloc_w = 0, alloc_h = 0;            ///< the plan the planes were last sized for

    /// Sizes the buffers for a picture of width x height. The image and mask planes are zero
    /// outside [0, width) x [0, height) (what upstream's reads past a scale's rows and columns may
    /// reach that this picture does not write); inside it preprocess and spatial_mask write every
    /// sample before it is read, as the contrast values do every c value a scale pools, so those
    /// are not cleared again for every picture (cambi_preprocess.cpp).
    void prepare(const Plan& p, int width, int height);
};

/// The heatmap files of an instance (cambi.c init and dump_c_values): one per scale, each frame's
/// contrast values of that scale at frame * rows, scaled to 16 bits (opened and written by
/// cambi.cpp).
struct Heatmaps {
    std::array<int, kScales> fds{-1, -1, -1, -1, -1};  ///< one file per scale
    double scaling = 0.0;                               ///< 65535 / the largest contrast value

    /// Makes the folder `dir` (as mkdir -p, mode 0770) and opens the five files of plan `plan`
    /// (truncated); sets the scaling. Throws Error naming the path when it cannot.
    void open(const std::string& dir, const Plan& plan);
    /// Closes the files opened (none: nothing).
    void close();
    /// Writes the c values of a width x height scale of frame `frame` (pwrite: frames may be
    /// written by several threads at once, each to its own rows). Throws Error when it cannot.
    void write(int scale, const float* c, int width, int height, unsigned frame) const;
};

// --- cambi.cpp (also used by the CUDA twin, cambi_cuda.cu) -------------------------------------

/// The Plan of an instance with settings `s` scoring pictures of `format` (upstream's init):
/// throws Error, naming cambi, for what upstream refuses at initialisation and for what vmafx
/// refuses (cambi.hpp, "Limits").
Plan make_plan(const Settings& s, const VideoFormat& format);

/// The Error for a sample `value` above the largest `bit_depth`-bit value in the `what`
/// ("distorted", "reference") picture (upstream refuses the picture).
Error sample_error(const char* what, unsigned value, int bit_depth);

/// Appends a frame's outputs: the distorted picture's score `dist` (clipped to cambi_max_val),
/// and with full_ref (`src` not null: the reference's score) cambi_source and
/// cambi_full_reference, max(0, dist - src), clipped likewise.
void append_scores(const Settings& s, double dist, const double* src, FrameScores& out);

// --- cambi_preprocess.cpp ---------------------------------------------------------------------

/// cambi.c decimate_generic_* and anti_dithering_filter: the luma of `bit_depth` bits (8 to 16)
/// to 10 bits at width x height (nearest neighbour at the pixel centres) into b.image, then, when
/// the encode had fewer than 10 bits, each sample the mean of its 2x2 block to the bottom right.
void preprocess(const Plane& luma, int bit_depth, const Plan& p, Buffers& b, int width, int height);

/// The count a pixel's 7x7 window of equal neighbours must exceed to be kept by the spatial mask
/// of a width x height picture (cambi.c get_spatial_mask's mask_index: 24 at 1920x1080).
std::uint32_t mask_threshold(int width, int height);

/// cambi.c get_spatial_mask: b.mask[r][c] = 1 where more than mask_threshold of the pixels of the
/// 7x7 window around (r, c) (clipped to the picture) equal their right and lower neighbours (the
/// last column and row count as equal), else 0.
void spatial_mask(Buffers& b, int width, int height);

// --- cambi_contrast.cpp -----------------------------------------------------------------------

/// Per level of a kLevels band (level - band_base), the steps d whose contrast counts there, as
/// bits: value <= tvi[d] and value + d + 1 > vlt_luma, value = level + num_diffs.
std::vector<std::uint32_t> visible_steps(const Plan& p);

/// cambi.c calculate_c_values for a kLevels band: the contrast values of a width x height scale
/// (window half `pad`) into b.c_values, from the image and mask of b.
void contrast_values(const Plan& p, Buffers& b, int width, int height, int pad);

/// cambi.c spatial_pooling: the mean of the largest max(1, min(n, (int)(topk n))) of the n =
/// width x height values `c` (which it reorders, as upstream's quick_select does).
double spatial_pooling(float* c, double topk, int width, int height);

/// Where upstream reaches outside its histogram buffer at a scale of width x height (window half
/// `pad`) when the band is not kLevels: "" where it does not, else the first place in upstream's
/// order, in words.
std::string band_reach_error(const Plan& p, const Buffers& b, int width, int height, int pad);

/// Throws the Error of picture_score (naming frame `frame`, the `what` picture and scale
/// `scale`) where band_reach_error finds a place at this scale of width x height; else nothing.
void check_band_reach(const Plan& p, const Buffers& b, int scale, int width, int height, int pad, unsigned frame,
                      const char* what);

/// The score of a picture from its five scales' pooled values (per_scale[s]: spatial_pooling of
/// scale s), weighted 16, 8, 4, 2, 1 and divided by the window's area (window: the picture's
/// window, samples; its odd size 2 (window >> 1) + 1 is what is squared).
double combine_scales(const double (&per_scale)[kScales], int window);

/// The score of one picture at width x height (already in b by preprocess) with the given window
/// (cambi.c cambi_score); with `heatmaps`, each scale's c values are written to them as frame
/// `frame`. Throws Error where upstream reaches outside its histograms (band_reach_error),
/// naming `what`.
double picture_score(const Plan& p, Buffers& b, int width, int height, int window, const Heatmaps* heatmaps,
                     unsigned frame, const char* what);

}  // namespace vmafx::cambi
