// PSNR-HVS (Egiazarian, Ponomarenko et al., "New full-reference quality metrics based on HVS",
// VPQM 2006, with the contrast masking of PSNR-HVS-M, Ponomarenko et al., VPQM 2007), as Xiph's
// Daala tools compute it and upstream libvmaf 3.2.0 ships it
// (libvmaf/src/feature/third_party/xiph/psnr_hvs.c, calc_psnrhvs / extract).
//
// Per plane, 8x8 blocks whose top-left corners step by 7 samples (overlapping by one row and
// one column; a block starts at every x, y = 0, 7, 14, ... with x + 7 < width, y + 7 < height)
// are transformed by Daala's integer 8x8 DCT (od_bin_fdct8x8). Each AC coefficient's absolute
// difference is lowered by a masking threshold (from the AC energy of the reference and of the
// distorted block, weighted by the masking table and by the blocks' variance ratio), floored
// at 0, weighted by the plane's contrast sensitivity table and squared; every coefficient's
// weighted square is added to one running float per plane, in block order (rows of blocks top
// to bottom, left to right), coefficient order row-major. The plane's score
//   s = sum / (64 * blocks) / (2^bpc - 1)^2
// is a float; the outputs are
//   psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr = 10 * -log10(s_plane),
//   psnr_hvs = 10 * -log10(0.8 * s_y + 0.1 * (s_cb + s_cr)),
// +inf where the planes are identical (s = 0). The chroma tables are upstream's 4:2:0 ones
// whatever the subsampling (as upstream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "feature/metric.hpp"
#include "feature/psnr_hvs/psnr_hvs_math.hpp"

namespace vmafx::psnr_hvs {

/// Descriptor of "psnr_hvs" (upstream psnr_hvs.c). No options. Outputs psnr_hvs_y,
/// psnr_hvs_cb, psnr_hvs_cr, psnr_hvs (in that order, dB; +inf for identical planes, which
/// the JSON writer prints as null). Reads every plane. Limits: 8 to 12 bits (upstream refuses
/// above 12 at init); no size limit: a plane without an 8x8 block (narrower or lower than 8)
/// scores 0/0 = NaN, as upstream's, and so does the combined psnr_hvs then.
extern const MetricDescriptor descriptor;

/// The tables of plane `plane` (0 luma, 1 Cb, 2 Cr; see PlaneTables in psnr_hvs_math.hpp),
/// built on first use.
const PlaneTables& plane_tables(int plane);

/// Daala's integer 8-point forward DCT (od_bin_fdct8, lifting steps, 32-bit ints wrapping as
/// upstream's on x86-64): out[0..7] from in[0], in[stride], ..., in[7 * stride].
void fdct8(std::int32_t out[8], const std::int32_t* in, int stride);

/// The 8x8 DCT in place on a row-major 8x8 block (od_bin_fdct8x8: the columns of the block
/// become the rows of a scratch block, whose columns become the rows of the result).
void fdct8x8(std::int32_t block[64]);

/// The plane score s (see the file's head) of a width x height plane of `Sample`s
/// (uint8_t at 8 bits, uint16_t above), rows `stride` bytes apart; `chroma` picks the table:
/// 0 luma, 1 Cb, 2 Cr. Needs width, height >= 8 (otherwise 0/0, as upstream: NaN).
template <typename Sample>
float plane_score(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dist, std::ptrdiff_t dist_stride,
                  int width, int height, int bit_depth, int plane);

/// The plane score s from the plane's running float sum of its `coefficients` terms
/// (64 per block): sum / float(coefficients) / float((2^bit_depth - 1)^2), each division in
/// float (0 / 0 = NaN without a block, as upstream).
float finish_plane_score(float sum, int coefficients, int bit_depth);

/// 10 * -log10(score) (upstream's convert_score_db with weight 1).
double to_db(double score);

/// The outputs of one extractor (names from its options) and how a frame's plane scores become
/// them: psnr_hvs_y, _cb, _cr = to_db(s_plane) and psnr_hvs = to_db(0.8 * s_y + 0.1 *
/// (s_cb + s_cr)) in double. Used by the CPU extractor and the CUDA twin's finish().
class Outputs {
public:
    explicit Outputs(const Options& options);
    /// Appends the four scores of plane scores `score` (Y, Cb, Cr) to `out`.
    void write(const float score[3], FrameScores& out) const;

private:
    std::string names_[4];
};

/// The GPU twins' host side (psnr_hvs_cuda.cu, psnr_hvs_vulkan.cpp), for one format: each
/// plane's grid of 8x8 blocks (blocks_along) and its terms, 64 a block, laid out in a slot as
/// luma, Cb, Cr one after another; the pitch check; and the frame's scores from the device's
/// three plane sums (the CPU's running float sums) by the CPU's finish_plane_score and
/// Outputs::write.
class TwinPlan {
public:
    /// Throws Error naming `twin` (e.g. "psnr_hvs (CUDA)") for a bit depth outside 8..12 and for
    /// a plane of more than INT_MAX terms.
    TwinPlan(const VideoFormat& format, std::string twin);
    int blocks_x(int p) const { return blocks_x_[p]; }
    int blocks_y(int p) const { return blocks_y_[p]; }
    /// Plane p's terms (64 a block; 0 without a block). Cb and Cr have as many.
    std::size_t terms(int p) const { return terms_[p]; }
    /// Where plane p's terms start in a slot's terms.
    std::size_t offset(int p) const { return p == 0 ? 0 : p == 1 ? terms_[0] : terms_[0] + terms_[1]; }
    /// A slot's terms: the three planes', at least 1 (a device buffer's slot).
    std::size_t slot_terms() const;
    /// Throws Error unless `pitch` bytes hold a row of plane p.
    void check_pitch(std::ptrdiff_t pitch, int p) const;
    /// Appends the frame's four scores from its plane sums (Y, Cb, Cr) to `out`.
    void write_scores(const float sums[3], const Outputs& outputs, FrameScores& out) const;

private:
    VideoFormat format_;
    std::string twin_;
    int blocks_x_[3] = {}, blocks_y_[3] = {};
    std::size_t terms_[3] = {};
};

}  // namespace vmafx::psnr_hvs
