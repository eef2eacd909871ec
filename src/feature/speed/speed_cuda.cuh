// The device half of SpEED's CUDA twins (speed_chroma_cuda.cu, speed_temporal_cuda.cu): steps
// 1-3 of the core (speed.hpp) for one picture, from device planes to the band-pass picture,
// and the band-pass picture's covariance matrix (est_params' step 1), both copied to pinned host
// memory; the rest of steps 4-5 (the eigenvalues, the solve, the entropies and the score) run on
// the host in finish() with the CPU's own code (speed::score_band_pass), on the band-pass
// pictures (1/256 of the samples) and those matrices.
//
// Per picture, on the slot's stream:
//  1. picture_kernel / difference_kernel: the float picture (float_image_math.hpp's
//     picture_copy_sample; speed_temporal: speed_math.hpp's temporal_difference of two such);
//  2. scale_kernel (speed_prescale not within 1e-3 of 1, and the size changes): the rescaled
//     picture, each sample float_image_math.hpp's mix of the host tables of floatimg::scale_taps
//     (the CPU scaler's indices and weights per destination row and column; lanczos4's sin is
//     glibc's, computed on the host);
//  3. anti_alias_kernel: the anti-alias convolution, evaluated only at the decimated samples (one
//     thread each): the vertical float sums of the taps' columns, then the horizontal float sum
//     of those, from 0, taps in order, with the convolutions' mirror (float_image_math.hpp's
//     mirror, convolve_tap): the CPU's convolve() computes these very sums at every
//     sample (its SIMD kernels equal its scalar reference), and keeps these;
//  4. band_pass_kernel: the local-mean convolution of the decimated picture at each sample (the
//     same sums), and the band-pass sample (speed_math.hpp's band_pass_sample);
//  5. means_kernel, chains_kernel, covariance_kernel: the covariance matrix as the CPU's
//     covariance_matrix forms it: the 25 float means (one thread each, the CPU's sequential
//     float sum), each of the 325 double covariance sums split into the 17 chains of the CPU's
//     AVX-512 grouping (speed_kernels.hpp: 16 fused-multiply-add lanes and the plain rest, each
//     a sequential chain over the rows: one thread each, IEEE fma on both sides), reduced as the
//     CPU reduces them (covariance_reduce), divided by the count and stored as float.
// No library math on the device: the Gaussian taps (exp, sqrt) and the lanczos4 weights (sin)
// are computed on the host by the CPU's own functions; the entropies' log2 and the
// eigenvalues' and solve's sqrt run on the host (finish()).
//
// Planted regressions (parity-gate tests only; speed::TwinPlant, fixed at creation; speed_twin.hpp):
//  kContraction:      the anti-alias horizontal sum fused (__fmaf_rn), in anti_alias_kernel;
//  kMirrorShift:      the anti-alias vertical mirror one row off above the top edge, in
//                     anti_alias_kernel;
//  kRoundingConstant: the anti-alias vertical sum rounded toward zero (__fadd_rz) instead of to
//                     nearest, in anti_alias_kernel;
//  kReductionOrder:   the local-mean sums taken over the taps in reverse order, in
//                     band_pass_kernel.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "feature/common/float_image.hpp"
#include "feature/common/float_image_math.hpp"
#include "feature/speed/speed.hpp"
#include "feature/speed/speed_math.hpp"
#include "feature/speed/speed_twin.hpp"
#include "gpu/twin.hpp"

namespace vmafx::speed_cuda {

/// Threads per block of every kernel (one thread per output sample).
constexpr unsigned kThreads = 256;

/// The planted defect as the kernels take it.
inline speed::TwinPlant plant_of(PlantedDefect d) { return planted::Flags::of(d); }

/// What every speed twin can plant (see the file's head).
inline constexpr PlantedDefect kDefects[] = {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                             PlantedDefect::kRoundingConstant, PlantedDefect::kReductionOrder};


// The kernels have internal linkage: each twin's translation unit has its own.
namespace {

/// Sample (x, y) of a plane (Sample words, rows `pitch` bytes apart), widened.
template <typename Sample>
__device__ inline std::int32_t sample_at(const unsigned char* plane, std::ptrdiff_t pitch, int x, int y) {
    return static_cast<std::int32_t>(
        __ldg(reinterpret_cast<const Sample*>(plane + static_cast<std::ptrdiff_t>(y) * pitch) + x));
}

/// out[y * stride + x] = the float of sample (x, y) (picture_copy, offset -128), for the w x h
/// samples. Grid: blocks_for(w * h, kThreads).
template <typename Sample>
__global__ void __launch_bounds__(kThreads)
    picture_kernel(const unsigned char* __restrict__ plane, std::ptrdiff_t pitch, int w, int h, float scaler,
                   float* __restrict__ out, int stride) {
    const std::size_t k = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (k >= static_cast<std::size_t>(w) * static_cast<std::size_t>(h)) return;
    const int x = static_cast<int>(k % static_cast<std::size_t>(w)), y = static_cast<int>(k / static_cast<std::size_t>(w));
    out[static_cast<std::size_t>(y) * stride + x] =
        floatimg::picture_copy_sample(sample_at<Sample>(plane, pitch, x, y), scaler, -128.0f);
}

/// out[y * stride + x] = float(prev sample) - float(cur sample) (speed_temporal's picture), for
/// the w x h samples. Grid: blocks_for(w * h, kThreads).
template <typename Sample>
__global__ void __launch_bounds__(kThreads)
    difference_kernel(const unsigned char* __restrict__ prev, std::ptrdiff_t prev_pitch,
                      const unsigned char* __restrict__ cur, std::ptrdiff_t cur_pitch, int w, int h, float scaler,
                      float* __restrict__ out, int stride) {
    const std::size_t k = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (k >= static_cast<std::size_t>(w) * static_cast<std::size_t>(h)) return;
    const int x = static_cast<int>(k % static_cast<std::size_t>(w)), y = static_cast<int>(k / static_cast<std::size_t>(w));
    const float p = floatimg::picture_copy_sample(sample_at<Sample>(prev, prev_pitch, x, y), scaler, -128.0f);
    const float c = floatimg::picture_copy_sample(sample_at<Sample>(cur, cur_pitch, x, y), scaler, -128.0f);
    out[static_cast<std::size_t>(y) * stride + x] = speed::temporal_difference(p, c);
}

/// The rescaled picture: dst[y * dst_stride + x] for x < dst_w, y < dst_h, from src (rows
/// src_stride apart) by the tables of floatimg::scale_taps for the columns (x_index, x_weight)
/// and the rows (y_index, y_weight), `taps` each (1 nearest, 2 bilinear, 4 bicubic, 9 lanczos4),
/// in the CPU scalers' order. Grid: blocks_for(dst_w * dst_h, kThreads).
__global__ void __launch_bounds__(kThreads)
    scale_kernel(const float* __restrict__ src, int src_stride, float* __restrict__ dst, int dst_stride, int dst_w,
                 int dst_h, const int* __restrict__ x_index, const float* __restrict__ x_weight,
                 const int* __restrict__ y_index, const float* __restrict__ y_weight, int taps) {
    const std::size_t k = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (k >= static_cast<std::size_t>(dst_w) * static_cast<std::size_t>(dst_h)) return;
    const int x = static_cast<int>(k % static_cast<std::size_t>(dst_w));
    const int y = static_cast<int>(k / static_cast<std::size_t>(dst_w));
    const float v = floatimg::scaled_sample(src, src_stride, x, y, x_index, x_weight, y_index, y_weight, taps);
    dst[static_cast<std::size_t>(y) * dst_stride + x] = v;
}

/// The anti-alias convolution of src (w x h, rows `stride` apart) at the decimated samples:
/// out[oy * ow + ox] = the CPU's convolve() output at (16 ox, 16 oy), for ox < ow = w / 16,
/// oy < oh = h / 16. `filter`: `taps` float coefficients (device memory). Grid:
/// blocks_for(ow * oh, kThreads).
__global__ void __launch_bounds__(kThreads)
    anti_alias_kernel(const float* __restrict__ src, int stride, int w, int h, const float* __restrict__ filter,
                      int taps, float* __restrict__ out, int ow, int oh, speed::TwinPlant plant) {
    const int k = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
    if (k >= ow * oh) return;
    const float sum = speed::anti_aliased_sample(src, stride, w, h, filter, taps, k % ow, k / ow, plant);
    out[k] = sum;
}

/// The band-pass picture: out[y * w + x] = src - (its local-mean convolution) at each of the
/// w x h samples of src (rows w apart), `filter` `taps` float coefficients (device memory), the
/// CPU's convolve() sums. Grid: blocks_for(w * h, kThreads).
__global__ void __launch_bounds__(kThreads)
    band_pass_kernel(const float* __restrict__ src, int w, int h, const float* __restrict__ filter, int taps,
                     float* __restrict__ out, speed::TwinPlant plant) {
    const int k = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
    if (k >= w * h) return;
    out[k] = speed::band_pass_at(src, w, h, filter, taps, k % w, k / w, plant);
}

/// The 25 float means of the shifted sub-pictures of the band-pass picture `band` (rows `stride`
/// apart): means[t] = speed::shifted_mean at (t / 5, t % 5), one thread each (a sequential float
/// sum, as the CPU's). Grid: 1 block of 32 threads.
__global__ void means_kernel(const float* __restrict__ band, int stride, int sub_h, int sub_w,
                             float* __restrict__ means) {
    const int t = static_cast<int>(threadIdx.x);
    if (t < speed::kPositions) means[t] = speed::shifted_mean(band, stride, t / 5, t % 5, sub_h, sub_w);
}

/// chains[p * 17 + chain] = speed::covariance_chain of pair p's two shifted sub-pictures (the
/// CPU's covariance sum split into its 17 independent chains, each in the CPU's order). Grid:
/// blocks_for(kPairs * kChains, kThreads).
__global__ void __launch_bounds__(kThreads)
    chains_kernel(const float* __restrict__ band, int stride, int sub_h, int sub_w, const float* __restrict__ means,
                  double* __restrict__ chains) {
    const int k = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
    if (k >= speed::kPairs * speed::kChains) return;
    int xi = 0, yi = 0;
    speed::covariance_pair(k / speed::kChains, xi, yi);
    const float* x = band + static_cast<std::ptrdiff_t>(xi / 5) * stride + xi % 5;
    const float* y = band + static_cast<std::ptrdiff_t>(yi / 5) * stride + yi % 5;
    chains[k] = speed::covariance_chain(x, y, stride, sub_h, sub_w, static_cast<double>(means[xi]),
                                        static_cast<double>(means[yi]), k % speed::kChains, false);
}

/// The covariance matrix (25 x 25 floats) from the chains: speed::covariance_element of each
/// pair. Grid: blocks_for(kPairs, kThreads).
__global__ void __launch_bounds__(kThreads)
    covariance_kernel(const double* __restrict__ chains, double count, float* __restrict__ cov) {
    const int p = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
    if (p < speed::kPairs) speed::covariance_element(chains + static_cast<std::ptrdiff_t>(p) * speed::kChains, p, count, cov);
}

}  // namespace

/// Device memory of one picture's steps 1-3 for one plane geometry, per result slot: the float
/// picture, the rescaled one, the decimated one and the band-pass one; and the filters and
/// scaler tables (shared by the slots). `pictures` pictures per slot (speed_chroma: 4, the u and
/// v planes of both videos; speed_temporal: 2).
class BandPass {
public:
    BandPass(const speed::Geometry& g, const speed::Params& p, unsigned slots, int pictures, PlantedDefect plant)
        : g_(g),
          plant_(plant_of(plant)),
          pictures_(pictures),
          rescale_(!(std::fabs(p.prescale - 1.0) < 1.0e-3) && (g.scaled_width != g.width || g.scaled_height != g.height)),
          picture_(picture_floats() * slots * static_cast<std::size_t>(pictures)),
          scaled_(rescale_ ? scaled_floats() * slots * static_cast<std::size_t>(pictures) : 0),
          decimated_(band_floats() * slots),
          band_(band_floats() * slots * static_cast<std::size_t>(pictures)),
          host_band_(band_floats() * slots * static_cast<std::size_t>(pictures)),
          means_(static_cast<std::size_t>(speed::kPositions) * slots),
          chains_(static_cast<std::size_t>(speed::kPairs) * speed::kChains * slots),
          cov_(kCovFloats * slots * static_cast<std::size_t>(pictures)),
          host_cov_(kCovFloats * slots * static_cast<std::size_t>(pictures)) {
        const std::vector<float> aa = speed::anti_alias_filter(p), mean = speed::local_mean_filter(p);
        aa_taps_ = static_cast<int>(aa.size());
        mean_taps_ = static_cast<int>(mean.size());
        aa_ = upload(aa);
        mean_ = upload(mean);
        if (rescale_) {
            const floatimg::ScaleTaps x = floatimg::scale_taps(p.method, g.width, g.scaled_width);
            const floatimg::ScaleTaps y = floatimg::scale_taps(p.method, g.height, g.scaled_height);
            scale_taps_ = x.taps;
            x_index_ = upload(x.index);
            x_weight_ = upload(x.weight);
            y_index_ = upload(y.index);
            y_weight_ = upload(y.weight);
        }
        cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }

    /// The float picture `i` of `slot` (width x height, rows width apart): where steps 1's
    /// kernels write.
    float* picture(unsigned slot, int i) const {
        return picture_.get() + picture_floats() * (static_cast<std::size_t>(slot) * pictures_ + i);
    }
    int picture_stride() const { return g_.width; }

    /// Enqueues steps 2-3 of picture `i` of `slot` and the copy of its band-pass picture to the
    /// slot's pinned memory.
    void enqueue(unsigned slot, int i, cudaStream_t stream) const {
        const std::size_t index = static_cast<std::size_t>(slot) * pictures_ + i;
        const float* src = picture(slot, i);
        int stride = g_.width;
        if (rescale_) {
            float* dst = scaled_.get() + scaled_floats() * index;
            const std::size_t n = scaled_floats();
            scale_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, stream>>>(
                src, g_.width, dst, g_.scaled_width, g_.scaled_width, g_.scaled_height, x_index_.get(),
                x_weight_.get(), y_index_.get(), y_weight_.get(), scale_taps_);
            cuda::check_launch("speed scale_kernel");
            src = dst;
            stride = g_.scaled_width;
        }
        const int ow = g_.operating_width, oh = g_.operating_height;
        const std::size_t n = band_floats();
        float* decimated = decimated_.get() + n * slot;
        anti_alias_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, stream>>>(
            src, stride, g_.scaled_width, g_.scaled_height, aa_.get(), aa_taps_, decimated, ow, oh, plant_);
        cuda::check_launch("speed anti_alias_kernel");
        float* band = band_.get() + n * index;
        band_pass_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, stream>>>(decimated, ow, oh, mean_.get(),
                                                                                 mean_taps_, band, plant_);
        cuda::check_launch("speed band_pass_kernel");
        cuda::check(cudaMemcpyAsync(host_band_.get() + n * index, band, n * sizeof(float), cudaMemcpyDeviceToHost,
                                    stream),
                    "copying the SpEED band-pass picture to the host");
        // Step 4's covariance matrix (est_params step 1) on the device.
        float* means = means_.get() + static_cast<std::size_t>(speed::kPositions) * slot;
        double* chains = chains_.get() + static_cast<std::size_t>(speed::kPairs) * speed::kChains * slot;
        float* cov = cov_.get() + kCovFloats * index;
        means_kernel<<<1, 32, 0, stream>>>(band, ow, g_.sub_height, g_.sub_width, means);
        cuda::check_launch("speed means_kernel");
        chains_kernel<<<cuda::blocks_for(static_cast<std::size_t>(speed::kPairs) * speed::kChains, kThreads), kThreads,
                        0, stream>>>(band, ow, g_.sub_height, g_.sub_width, means, chains);
        cuda::check_launch("speed chains_kernel");
        const double count = static_cast<double>(static_cast<std::size_t>(g_.sub_width) * g_.sub_height);
        covariance_kernel<<<cuda::blocks_for(speed::kPairs, kThreads), kThreads, 0, stream>>>(chains, count, cov);
        cuda::check_launch("speed covariance_kernel");
        cuda::check(cudaMemcpyAsync(host_cov_.get() + kCovFloats * index, cov, kCovFloats * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying the SpEED covariance matrix to the host");
    }

    /// The covariance matrix (25 x 25 floats, speed::covariance_matrix's) of picture `i` of
    /// `slot` on the host, once the slot's work has completed.
    const float* host_cov(unsigned slot, int i) const {
        return host_cov_.get() + kCovFloats * (static_cast<std::size_t>(slot) * pictures_ + i);
    }

    /// The band-pass picture `i` of `slot` on the host (operating_width x operating_height,
    /// rows operating_width apart), once the slot's work has completed.
    const float* host_band(unsigned slot, int i) const {
        return host_band_.get() + band_floats() * (static_cast<std::size_t>(slot) * pictures_ + i);
    }
    /// The rows' distance of host_band(): operating_width.
    int band_stride() const { return g_.operating_width; }

private:
    static constexpr std::size_t kCovFloats = static_cast<std::size_t>(speed::kPositions) * speed::kPositions;
    std::size_t picture_floats() const { return static_cast<std::size_t>(g_.width) * g_.height; }
    std::size_t scaled_floats() const { return static_cast<std::size_t>(g_.scaled_width) * g_.scaled_height; }
    std::size_t band_floats() const {
        return static_cast<std::size_t>(g_.operating_width) * g_.operating_height;
    }
    template <typename T>
    static cuda::DeviceBuffer<T> upload(const std::vector<T>& v) {
        cuda::DeviceBuffer<T> d(v.size());
        cuda::check(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
        return d;
    }

    speed::Geometry g_;
    speed::TwinPlant plant_;
    int pictures_;
    bool rescale_;
    cuda::DeviceBuffer<float> picture_, scaled_, decimated_, band_;
    cuda::PinnedBuffer<float> host_band_;
    cuda::DeviceBuffer<float> means_;    ///< per slot: the 25 means of the picture in work
    cuda::DeviceBuffer<double> chains_;  ///< per slot: the 325 x 17 chains of the picture in work
    cuda::DeviceBuffer<float> cov_;      ///< per slot and picture: the covariance matrix
    cuda::PinnedBuffer<float> host_cov_;
    cuda::DeviceBuffer<float> aa_, mean_;
    int aa_taps_ = 0, mean_taps_ = 0, scale_taps_ = 0;
    cuda::DeviceBuffer<int> x_index_, y_index_;
    cuda::DeviceBuffer<float> x_weight_, y_weight_;
};

}  // namespace vmafx::speed_cuda
