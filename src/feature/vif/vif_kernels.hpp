// Internal interface of the integer VIF extractor: the per-row kernels (a portable reference
// set in vif.cpp, a SIMD set in vif_simd.cpp computing the same integers) and the frame
// driver that runs them. Used by vif.cpp, vif_simd.cpp and the tests; not a public API.
//
// Algorithm and fixed-point arithmetic: upstream libvmaf 3.2.0 src/feature/integer_vif.c
// (vif_statistic_8, vif_statistic_16, vif_compute_line_residuals, subsample_rd_8,
// subsample_rd_16) and integer_vif.h (filters, log2 table).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "picture/picture.hpp"

namespace vmafx::vif {

/// Number of dyadic scales.
inline constexpr int kScales = 4;
/// Smallest luma width and height: scale 3 is then at least 2x2 and every mirrored border
/// index stays inside the picture at every scale (upstream reads stale buffer rows or
/// divides 0 by 0 below it).
inline constexpr int kMinSide = 16;
/// Largest half filter width (scale 0: 17 taps).
inline constexpr int kMaxHalf = 8;

/// One scale's symmetric low-pass filter: `width` taps in 1/65536; every set sums to 65536.
struct Filter {
    int width;
    std::array<std::uint16_t, 17> taps;
};

/// Upstream's vif_filter1d_table / vif_filter1d_width (integer_vif.h). Scale s is analysed
/// with kFilters[s]; the decimation from scale s to s+1 filters with kFilters[s+1].
inline constexpr Filter kFilters[kScales] = {
    {17, {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935, 489}},
    {9, {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244}},
    {5, {3571, 16004, 26386, 16004, 3571}},
    {3, {10904, 43728, 10904}},
};

/// round(log2(i) * 2048) for i in [32767, 65535] (upstream log_generate()); 0 elsewhere,
/// including the last entry (65537 entries, as upstream, so that a 32-bit load at the last
/// index stays inside the table).
const std::array<std::uint16_t, 65537>& log2_table();

/// The fixed-point sums of one scale (upstream's accum_num_log, accum_den_log,
/// accum_num_non_log, accum_den_non_log).
struct ScaleSums {
    std::int64_t num_log = 0;
    std::int64_t den_log = 0;
    std::int64_t num_non_log = 0;
    std::int64_t den_non_log = 0;
};

/// Numerator and denominator of one scale, as upstream stores them (float).
struct ScaleScore {
    float num = 0.0f;
    float den = 0.0f;
};

/// Input of one row of the statistics at `scale`: the filter's kFilters[scale].width source
/// rows of the reference and distorted pictures around the output row (rows above and below
/// the picture already mirrored), each `width` samples of type T (uint8_t only at scale 0 of
/// 8-bit video, else uint16_t), width > kFilters[scale].width / 2. Kernels may read up to 32
/// samples past `width` in each row (the caller guarantees that memory exists) but ignore those
/// samples.
template <typename T>
struct StatisticsRow {
    int scale;
    const T* const* ref_rows;
    const T* const* dis_rows;
    int width;
    int mean_shift;    ///< vertical rounding of the means (upstream shift_VP)
    int square_shift;  ///< vertical rounding of the products (upstream shift_VP_sq)
    double gain_limit;  ///< vif_enhn_gain_limit
};

/// Input of one output row of the decimation from `scale` to `scale + 1`: the
/// kFilters[scale + 1].width source rows around row 2*i (mirrored), `width` samples each,
/// and the output row of width/2 samples. Kernels may read up to 32 samples past `width` in
/// each source row and write up to 32 samples past width/2 in the output row (the caller
/// provides that room; what lands there is overwritten or unused).
template <typename T>
struct DecimationRow {
    int scale;
    const T* const* ref_rows;
    const T* const* dis_rows;
    int width;
    int shift;  ///< vertical rounding (the bit depth at scale 0, else 16)
    std::uint16_t* ref_out;
    std::uint16_t* dis_out;
};

/// One implementation of the per-row work. Every set gives identical integers.
struct RowKernels {
    const char* name;
    /// Adds the VIF terms of one output row to `sums`.
    void (*statistics_u8)(const StatisticsRow<std::uint8_t>& row, ScaleSums& sums);
    void (*statistics_u16)(const StatisticsRow<std::uint16_t>& row, ScaleSums& sums);
    /// Writes one row of the next scale's pictures.
    void (*decimation_u8)(const DecimationRow<std::uint8_t>& row);
    void (*decimation_u16)(const DecimationRow<std::uint16_t>& row);
    /// Adds the VIF terms of `width` samples of variances to `sums` (add_vif_terms()).
    void (*add_terms)(const std::int32_t* sigma1_sq, const std::int32_t* sigma2_sq, const std::int32_t* sigma12,
                      int width, double gain_limit, ScaleSums& sums);
};

/// The portable reference kernels (vif.cpp).
const RowKernels& reference_kernels();
/// The SIMD kernels (vif_simd.cpp, Google Highway): every call runs the best target of those
/// compiled that the CPU supports (run-time dispatch, hwy::SetSupportedTargetsForTest narrows it).
const RowKernels& simd_kernels();
/// The Highway target (HWY_AVX2, ...) that simd_kernels() runs now.
std::int64_t simd_target();

/// Adds the VIF terms of `width` samples of variances to `sums` (upstream vif_statistic_*,
/// per-sample part): sigma1_sq is the reference variance, sigma2_sq the distorted variance
/// clamped at 0, sigma12 the covariance. The reference of RowKernels::add_terms.
void add_vif_terms(const std::int32_t* sigma1_sq, const std::int32_t* sigma2_sq, const std::int32_t* sigma12,
                   int width, double gain_limit, ScaleSums& sums);

/// Options of one computation.
struct Params {
    int bit_depth = 8;
    bool skip_scale0;   ///< vif_skip_scale0: scale 0 is not computed (default: the option table's)
    double gain_limit;  ///< vif_enhn_gain_limit (default: the option table's)
};

/// Numerator and denominator of the four scales of the luma planes `ref` and `dis` (same
/// size, at least kMinSide x kMinSide, samples below 2^bit_depth), computed with `kernels`
/// (upstream integer_vif.c extract()). With skip_scale0, scores[0] is left zero.
std::array<ScaleScore, kScales> compute_scales(const Plane& ref, const Plane& dis, const Params& params,
                                               const RowKernels& kernels);

}  // namespace vmafx::vif
