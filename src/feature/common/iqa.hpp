// The IQA machinery that float_ssim and float_ms_ssim share (upstream libvmaf 3.2.0 keeps a
// modified copy of Tom Distler's IQA library in src/feature/iqa/; float_ssim.c and
// float_ms_ssim.c call it through ssim.c and ms_ssim.c): the float copy of a luma plane, the
// 11x11 Gaussian window applied as two 1-D passes, decimation by an integer factor through a
// 2-D kernel with mirrored borders, the SSIM map's means, and the dB conversion of a score.
//
// Every function reproduces upstream's arithmetic term by term: float products accumulated
// in double in the kernel's order, float-valued intermediates rounded where upstream stores
// them, one double added per window in raster order (the means divide that sum once).
// Upstream sources: picture_copy.c (picture_copy), iqa/convolve.c (_iqa_convolve with
// IQA_CONVOLVE_1D, _iqa_filter_pixel, KBND_SYMMETRIC), iqa/decimate.c (_iqa_decimate),
// iqa/ssim_tools.c/.h (_iqa_ssim's default path, g_gaussian_window_h/_v),
// iqa/math_utils.c (_round), float_ssim.c/float_ms_ssim.c (init's max_db, convert_to_db).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "feature/common/iqa_math.hpp"
#include "picture/picture.hpp"

namespace vmafx::iqa {

/// Size of one side of n samples after _iqa_decimate by `factor`: n / factor + (n & 1)
/// (upstream adds the parity of n, not a ceiling: 7 / 3 gives 3).
inline int decimated_size(int n, int factor) { return n / factor + (n & 1); }

/// _iqa_decimate: the w x h image `img` (rows packed) filtered by the klen x klen kernel
/// `kernel` (row-major, klen*klen floats: at each output sample the float products
/// sample * tap summed in double, rows then columns of the kernel, rounded to float) at every
/// `factor`-th sample of every `factor`-th row, mirrored (KBND_SYMMETRIC, one reflection) where
/// the kernel leaves the picture. An even kernel covers [-klen/2, klen/2 - 1] around the sample.
/// Writes decimated_size(w) x decimated_size(h) floats, packed, to `dst`, which may be `img`
/// itself (float_ssim decimates in place, in upstream's order, row by row).
void decimate(float* img, int w, int h, int factor, std::span<const float> kernel, int klen, float* dst);

/// The mean SSIM of a picture pair and the means of its luminance, contrast and structure
/// terms, each rounded to float as upstream returns them.
struct SsimMeans {
    float ssim = 0;
    float l = 0;
    float c = 0;
    float s = 0;
};

/// _iqa_ssim's default path (K1 = 0.01, K2 = 0.03, L = 255, alpha = beta = gamma = 1) on two
/// w x h images with packed rows: local means and (co)variances from the 11x11 Gaussian
/// window (applied where it lies wholly inside the picture: (w - 10) x (h - 10) windows),
/// variances clamped at 0, per window l = (2 mu1 mu2 + C1) / (mu1^2 + mu2^2 + C1),
/// c = (2 s1 s2 + C2) / (s1^2 + s2^2 + C2), s = (s12 + C3) / (s1 s2 + C3) (s12 clamped at 0
/// when negative while s1 s2 is 0), and the sums of l c s, l, c and s in raster order, each
/// divided by the number of windows. Requires w, h >= kGaussianLen.
SsimMeans ssim_means(const float* ref, const float* cmp, int w, int h);

/// Number of windows of _iqa_ssim on a w x h image: (w - 10) * (h - 10), as an int (upstream's
/// int product). Requires w, h >= kGaussianLen.
inline int ssim_windows(int w, int h) { return (w - kGaussianLen + 1) * (h - kGaussianLen + 1); }

/// The running sums of _iqa_ssim, indexed by TermRow (iqa_math.hpp): the sums of l, c, s and
/// l c s over the windows, each added one double per window in raster order.
using TermSums = std::array<double, kTermRows>;

/// The means as _iqa_ssim returns them from its running sums on a w x h image: each sum divided
/// by the window count (ssim_windows) in double, rounded to float. The CUDA twins' finish()
/// calls this with the sums their device reproduces.
SsimMeans means_from_sums(const TermSums& sums, int w, int h);

/// The per-window terms of ssim_means on two w x h images (packed rows, w, h >= kGaussianLen),
/// laid out as the CUDA twins lay them out: row r (TermRow: l, c, s, l c s) at rows + r * pitch,
/// window (x, y) at index y * (w - 10) + x (raster order). `pitch` >= ssim_windows(w, h); rows
/// must hold kTermRows * pitch doubles. Adding each row in order, from 0, gives ssim_means' sums
/// (float_ssim/float_ssim_cuda_test.cpp checks this layout against ssim_means).
void window_term_rows(const float* ref, const float* cmp, int w, int h, double* rows, std::size_t pitch);

/// The cap upstream's init() puts on dB scores: with `clip`, ceil(10 log10(peak^2 / mse))
/// with peak = 2^bit_depth - 1 and mse = 0.5 / (width * height); +infinity without.
double max_db(bool clip, int bit_depth, int width, int height);

/// convert_to_db: -10 log10(1 - score), or `max_db` when that is not smaller (so also when it
/// is NaN).
double to_db(double score, double max_db);

}  // namespace vmafx::iqa
