// SpEED (Spatial Efficient Entropic Differencing; Bampis, Gupta, Soundararajan, Bovik, "SpEED-QA:
// Spatial Efficient Entropic Differencing for Image and Video Quality", IEEE SPL 2017), as
// upstream libvmaf 3.2.0 computes it: two extractors, "speed_chroma" (the Cb and Cr planes of
// each frame) and "speed_temporal" (the luma difference of each frame and the previous one),
// sharing one core (this header, speed_core.cpp).
//
// The core, for one pair of float pictures (reference, distorted), each in turn:
//  1. optional rescale by speed_prescale (nearest, bilinear, bicubic or lanczos4),
//  2. Gaussian anti-alias blur (the scale-1 window of vif_tools, sigma scaled by 2), keep every
//     16th sample in each direction (the "operating" picture, size >> 4),
//  3. subtract the local mean (scale-4 Gaussian window): the band-pass picture,
//  4. over the largest multiple of 5 x 5 of it: the 25 x 25 covariance matrix K of the 5 x 5
//     neighbourhoods, its eigenvalues (Householder tridiagonalisation, implicit QR), the
//     solution of K X = Y (Householder QR, back substitution) for the blocks' samples Y, the
//     per-block variance S = sum(X * Y) / 25 and entropy E = sum over eigenvalues L of
//     log2(L S + sigma_nn) + log2(2 pi e);
//  5. the score: mean over blocks of |E_ref w_ref - E_dis w_dis| (w: log2(1 + variance), by
//     speed_weight_var_mode), blocks where both entropies are below the noise floor's count 0.
// Everything is float as upstream's C, except the covariance sums, which are double and, as on
// the AVX-512 machines the golden values come from, accumulated as upstream's
// x86/speed_avx512.c does (two 8-lane fused multiply-add chains per row run, a scalar tail).
// Upstream source: libvmaf/src/feature/speed.c, vif_tools.c (filters, scalers),
// picture_copy.c, x86/speed_avx512.c; common/convolution_avx.c (the same sums as vif_tools.c's
// scalar filter: upstream's -std=c11 build contracts nothing).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "feature/common/float_image.hpp"
#include "feature/metric.hpp"

namespace vmafx {

namespace speed_chroma {
/// Descriptor of "speed_chroma" (listed in feature/metrics.def). Per frame, SpEED of the Cb
/// plane (Speed_chroma_feature_speed_chroma_u_score, alias speed_chroma_u) and of the Cr plane
/// (..._v_score, speed_chroma_v), each min(score, speed_max_val), and their mean
/// (..._uv_score, speed_chroma_uv; when exactly one plane's covariance matrix is singular, the
/// other plane's score). Options (the tables in speed_chroma.cpp and
/// speed_temporal.cpp, from speed_options.hpp's rows, hold their ranges and defaults):
/// speed_kernelscale (one of vif_tools' 21 kernel scales), speed_prescale,
/// speed_prescale_method (text: nearest, bilinear, bicubic or lanczos4), speed_sigma_nn,
/// speed_nn_floor, speed_max_val, speed_weight_var_mode; all feature parameters. Limits: 8, 10, 12 or 16
/// bits; each chroma plane (upstream: floor(w/2) for 4:2:0 and 4:2:2, floor(h/2) for 4:2:0)
/// scaled by speed_prescale at least 80 x 80 (the descriptor's limits say it for speed_prescale 1:
/// luma 160 x 160 at 4:2:0, 160 x 80 at 4:2:2, 80 x 80 at 4:4:4; its refuse hook, speed::check, the others).
/// Odd 4:2:0 sizes are scored on the ceil(w/2) x ceil(h/2) chroma planes.
extern const MetricDescriptor descriptor;
}  // namespace speed_chroma

namespace speed_temporal {
/// Descriptor of "speed_temporal" (listed in feature/metrics.def). Per frame i >= 1, SpEED of
/// the luma differences (previous - current) of the reference and of the distorted video
/// (with speed_use_ref_diff: previous distorted - current reference);
/// Speed_temporal_feature_speed_temporal_score (alias speed_temporal), 0 at frame 0, not
/// clipped (upstream declares speed_max_val but does not apply it). Options as speed_chroma
/// without speed_weight_var_mode (always 0), with speed_sigma_nn and speed_max_val as there,
/// and speed_use_ref_diff (urd, bool). History: 1 previous reference and 1 previous distorted
/// picture. Limits: 8, 10, 12 or 16 bits; luma scaled by speed_prescale at least 80 x 80.
extern const MetricDescriptor descriptor;
}  // namespace speed_temporal

namespace speed {

/// Rescaling method of speed_prescale (upstream vif_tools.c enum vif_scaling_method): the
/// shared float scalers' (feature/common/float_image.hpp).
using ScaleMethod = floatimg::ScaleMethod;

/// Parses "nearest", "bilinear", "bicubic" or "lanczos4"; throws Error naming `metric` else.
ScaleMethod parse_scale_method(const std::string& metric, const std::string& text);

/// The options the core reads (upstream struct SpeedOptions); their defaults are the option
/// tables' (speed_chroma.cpp, speed_temporal.cpp), not written here.
struct Params {
    double kernelscale;
    double prescale;
    ScaleMethod method;
    double sigma_nn;
    double nn_floor;
    int weight_var_mode;
};

/// Sizes derived from one plane's size and speed_prescale (upstream SpeedDimensions).
struct Geometry {
    int width = 0, height = 0;                ///< the plane
    int scaled_width = 0, scaled_height = 0;  ///< (int)(size * prescale + 0.5)
    int alloc_width = 0, alloc_height = 0;    ///< max of the two: the float buffers' size
    int operating_width = 0, operating_height = 0;  ///< scaled >> 4
    int truncated_width = 0, truncated_height = 0;  ///< operating, down to a multiple of 5
    int blocks_horizontal = 0, blocks_vertical = 0, blocks = 0;
    int sub_width = 0, sub_height = 0;  ///< truncated - 4: the covariance sums' extent

    /// The geometry of a width x height plane at `prescale`.
    static Geometry of(int width, int height, double prescale);
    /// Whether upstream refuses it ("SpEED: image too small"): no 5 x 5 block.
    bool too_small() const { return truncated_width == 0 || truncated_height == 0; }
    /// Floats in one buffer (alloc_width x alloc_height, rows alloc_width apart).
    std::size_t buffer_size() const {
        return static_cast<std::size_t>(alloc_width) * static_cast<std::size_t>(alloc_height);
    }
};

/// The smallest side of a plane that has a 5 x 5 block at `prescale` (Geometry::too_small()
/// false): the least n with (int)(n * prescale + 0.5) >> 4 at least 5, i.e. a scaled side of
/// at least 80 (80 at prescale 1, 20 at 4, 159 at 0.5, 800 at 0.1).
int smallest_plane_side(double prescale);

/// Throws Error naming `metric` where upstream fails or its result is undefined (beyond the
/// descriptors' limits, which refuse bit depths other than 8, 10, 12 and 16): unless
/// `kernelscale` is one of vif_tools.c's 21 kernel scales (within 1e-3 in float; upstream
/// crashes); unless a `plane_width` x `plane_height` plane (`what` names it) has a 5 x 5 block
/// at `prescale` ("SpEED: image too small", then a crash); when `prescale` is within 1e-3 of 1
/// yet changes the size (upstream skips the rescale and reads samples it never wrote); and,
/// with `unscaled_buffers` (speed_temporal, whose buffers have the unscaled height), when
/// `prescale` makes the height larger (upstream writes past its buffers and aborts).
void check(const char* metric, const char* what, const Params& params, int plane_width,
           int plane_height, bool unscaled_buffers = false);

/// The SpEED score of one pair of float pictures `ref`, `dis` (geometry's width x height
/// samples, rows alloc_width apart, buffers of buffer_size(); both are overwritten). `singular`
/// is set when either covariance matrix could not be inverted (then, if only one could not, the
/// score is 0, as upstream's speed_extract_score). `curr` and `tmp`, buffers of buffer_size()
/// whose contents do not matter, are the core's scratch (each written before it is read).
float score(const Geometry& g, const Params& p, float* ref, float* dis, bool& singular, float* curr, float* tmp);
/// Steps 1-3 of the core for one picture (upstream filter_and_downscale): `frame` (as score()'s
/// `ref`) becomes the band-pass picture, operating_width x operating_height samples, rows
/// alloc_width apart. `curr`, `tmp`: scratch as score()'s.
void band_pass(const Geometry& g, const Params& p, float* frame, float* curr, float* tmp);
/// Steps 4-5: score() of two band-pass pictures (rows `stride` floats apart), as score() forms it
/// after band_pass(). After the covariance matrices these are speed_blocks.hpp's host/device
/// functions, which the GPU twins run on the device.
float score_band_pass(const Geometry& g, const Params& p, const float* ref, const float* dis, std::ptrdiff_t stride,
                      bool& singular);
/// The 25 x 25 covariance matrix (row major, symmetric) of the 5 x 5 neighbourhoods of a
/// band-pass picture (rows `stride` floats apart): step 1 of est_params (the float means of the
/// 25 shifted sub-pictures, then each covariance sum in double in the AVX-512 kernel's order,
/// speed_kernels.hpp, divided by the count and stored as float).
void covariance_matrix(const Geometry& g, const float* data, std::ptrdiff_t stride, float* cov);
/// score_band_pass() given each picture's covariance_matrix() (`ref_cov`, `dis_cov`: 625 floats
/// each).
float score_band_pass(const Geometry& g, const Params& p, const float* ref, const float* ref_cov, const float* dis,
                      const float* dis_cov, std::ptrdiff_t stride, bool& singular);
/// log2(2 pi e) as the CPU computes it (the host's std::log2): the constant of step 4's entropies.
double log2_2pi_e();
/// The noise floor's entropy of step 5, float(25 (log2((1 + nn_floor) sigma_nn) + log2(2 pi e))):
/// blocks whose entropies are both below it do not count (speed_blocks.hpp's block_term).
float noise_floor_entropy(float sigma_nn, float nn_floor);
/// The anti-alias filter of step 2 (the scale-1 Gaussian window of vif_tools at speed_kernelscale,
/// its deviation scaled by 2): odd length, float taps.
std::vector<float> anti_alias_filter(const Params& p);
/// The local-mean filter of step 3 (the scale-4 Gaussian window at speed_kernelscale).
std::vector<float> local_mean_filter(const Params& p);
/// score() with scratch of its own.
float score(const Geometry& g, const Params& p, float* ref, float* dis, bool& singular);

/// Float buffers of one size kept from frame to frame for an extractor's extract() calls, which
/// may run at once on several threads: each call leases a set of `count` buffers, allocated the
/// first time and afterwards reused (no allocation and no page faults per frame), and gives it
/// back when the lease ends. A leased buffer holds whatever its last user wrote.
class BufferPool {
public:
    /// Sets of `count` buffers of `floats` floats each.
    BufferPool(std::size_t floats, int count) : floats_(floats), count_(count) {}

    /// One set, for one caller until the lease is destroyed.
    class Lease {
    public:
        Lease(const BufferPool& pool, std::unique_ptr<std::vector<std::vector<float>>> set)
            : pool_(pool), set_(std::move(set)) {}
        ~Lease() { pool_.give_back(std::move(set_)); }
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        /// Buffer i (0 <= i < count) of the set.
        float* operator[](int i) const { return (*set_)[static_cast<std::size_t>(i)].data(); }

    private:
        const BufferPool& pool_;
        std::unique_ptr<std::vector<std::vector<float>>> set_;
    };

    /// A set: a free one, else a new one (zero-filled).
    Lease lease() const;

private:
    void give_back(std::unique_ptr<std::vector<std::vector<float>>> set) const;
    std::size_t floats_;
    int count_;
    mutable std::mutex mutex_;
    mutable std::vector<std::unique_ptr<std::vector<std::vector<float>>>> free_;
};

}  // namespace speed

namespace speed_chroma {
/// One instance's options as the CPU extractor and the GPU twins use them.
struct Config {
    speed::Params params;
    double max_val;                  ///< speed_max_val
    std::string u_name, v_name, uv_name;  ///< the outputs' names (with the feature parameters)
};
/// The Config of `options` (options of this descriptor; throws Error for an unknown
/// speed_prescale_method).
Config config_of(const Options& options);
/// Appends the frame's three scores to `out` from the u and v planes' scores and whether each
/// plane's covariance matrix was singular (speed::score): u, v and uv, each min(score,
/// speed_max_val); uv the mean of u and v, or the other plane's score when exactly one plane is
/// singular (upstream's choice).
void write_scores(const Config& config, float u, bool u_singular, float v, bool v_singular, FrameScores& out);
}  // namespace speed_chroma

namespace speed_temporal {
/// One instance's options as the CPU extractor and the GPU twins use them.
struct Config {
    speed::Params params;
    bool use_ref_diff;  ///< speed_use_ref_diff: the distorted difference is previous dis - current ref
    std::string name;   ///< the output's name
};
/// The Config of `options` (options of this descriptor).
Config config_of(const Options& options);
}  // namespace speed_temporal

}  // namespace vmafx
