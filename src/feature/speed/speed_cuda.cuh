// The device half of SpEED's CUDA twins (speed_chroma_cuda.cu, speed_temporal_cuda.cu): the whole
// core (speed.hpp) for each pair of pictures, from device planes to the pair's score; only the
// scores (8 bytes a pair) come back to pinned host memory, and finish() only reads them.
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
//     same sums), and the band-pass sample (speed_math.hpp's band_pass_sample).
// Per slot, once every picture is in (enqueue_scores), each kernel for all the slot's pictures or
// pairs at once:
//  5. means_kernel, chains_kernel, covariance_kernel: the covariance matrix as the CPU's
//     covariance_matrix forms it: the 25 float means (one thread each, the CPU's sequential
//     float sum), each of the 325 double covariance sums split into the 17 chains of the CPU's
//     AVX-512 grouping (speed_kernels.hpp: 16 fused-multiply-add lanes and the plain rest, each
//     a sequential chain over the rows: one thread each, IEEE fma on both sides), reduced as the
//     CPU reduces them (covariance_reduce), divided by the count and stored as float;
// then steps 4-5 after the covariance matrix by speed_blocks.hpp's host/device functions, which
// the CPU's speed::score_band_pass calls too:
//  6. factor_kernel: per picture, the eigenvalues of its matrix (one block: the tridiagonalisation's
//     loops split over the threads, the QR steps serial by one) and its QR decomposition (one
//     block: each 25 x 25 product split by elements over the threads); each element the CPU's
//     own sequence of float operations;
//  7. terms_kernel: per pair and block of 5 x 5 samples, one thread: for both pictures the
//     block's samples, the solve (zeros where the picture's matrix is singular), the variance and
//     the entropy; then the block's term of the score;
//  8. score_kernel: per pair, one thread: the float sum of the terms in the blocks' order (the
//     CPU's running sum), divided by the count; singular as the CPU decides it.
// Library math on the device: log2 only, vmafx's own (libm::log2_with on an uploaded copy of the
// host's tables: libm::log2's bits, glibc 2.36's); the Gaussian taps (exp, sqrt), the lanczos4
// weights (sin), log2(2 pi e) and the base entropy are computed on the host by the CPU's own
// functions. sqrt and division are IEEE (-prec-sqrt=true -prec-div=true), nothing is contracted
// (--fmad=false).
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
#include "base/libm_log2.hpp"
#include "feature/speed/speed.hpp"
#include "feature/speed/speed_blocks.hpp"
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


/// Per picture: the eigenvalues of its covariance matrix and qr_factor's q and r (speed_blocks.hpp).
struct Factors {
    float q[speed::blocks::kMatrix];
    float r[speed::blocks::kMatrix];
    float eig[speed::blocks::kN];
};

/// Threads of factor_kernel's and terms_kernel's blocks.
constexpr unsigned kFactorThreads = 256;
constexpr unsigned kTermThreads = 128;

/// What terms_kernel needs besides the pictures: the geometry and step 5's constants.
struct TermParams {
    int stride;             ///< the band-pass pictures' rows' distance (operating_width)
    int blocks_horizontal;  ///< blocks a row
    int blocks;             ///< blocks in all (nb)
    float sigma_nn;
    double log2_2pi_e;      ///< the host's log2(2 pi e)
    float base;             ///< speed::noise_floor_entropy
    int mode;               ///< speed_weight_var_mode
};

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

/// The 25 float means of the shifted sub-pictures of band-pass picture blockIdx.x (`band` +
/// blockIdx.x band_floats, rows `stride` apart): means[25 blockIdx.x + t] = speed::shifted_mean
/// at (t / 5, t % 5), one thread each (a sequential float sum, as the CPU's). Grid: one block of
/// 32 threads a picture.
__global__ void means_kernel(const float* __restrict__ band, std::size_t band_floats, int stride, int sub_h,
                             int sub_w, float* __restrict__ means) {
    const int t = static_cast<int>(threadIdx.x);
    const float* picture = band + band_floats * blockIdx.x;
    if (t < speed::kPositions)
        means[speed::kPositions * blockIdx.x + t] = speed::shifted_mean(picture, stride, t / 5, t % 5, sub_h, sub_w);
}

/// chains[p * 17 + chain] = speed::covariance_chain of pair p's two shifted sub-pictures (the
/// CPU's covariance sum split into its 17 independent chains, each in the CPU's order), of
/// picture blockIdx.y (band, means and chains advanced by that many pictures: band_floats, 25,
/// kPairs * kChains). Grid: (blocks_for(kPairs * kChains, kThreads), pictures).
__global__ void __launch_bounds__(kThreads)
    chains_kernel(const float* __restrict__ band, std::size_t band_floats, int stride, int sub_h, int sub_w,
                  const float* __restrict__ means, double* __restrict__ chains) {
    const int k = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
    if (k >= speed::kPairs * speed::kChains) return;
    band += band_floats * blockIdx.y;
    means += speed::kPositions * blockIdx.y;
    chains += static_cast<std::size_t>(speed::kPairs) * speed::kChains * blockIdx.y;
    int xi = 0, yi = 0;
    speed::covariance_pair(k / speed::kChains, xi, yi);
    const float* x = band + static_cast<std::ptrdiff_t>(xi / 5) * stride + xi % 5;
    const float* y = band + static_cast<std::ptrdiff_t>(yi / 5) * stride + yi % 5;
    chains[k] = speed::covariance_chain(x, y, stride, sub_h, sub_w, static_cast<double>(means[xi]),
                                        static_cast<double>(means[yi]), k % speed::kChains, false);
}

/// The covariance matrix (25 x 25 floats) of picture blockIdx.y from its chains (chains and cov
/// advanced by that many pictures: kPairs * kChains, 625): speed::covariance_element of each
/// pair. Grid: (blocks_for(kPairs, kThreads), pictures).
__global__ void __launch_bounds__(kThreads)
    covariance_kernel(const double* __restrict__ chains, double count, float* __restrict__ cov) {
    const int p = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
    chains += static_cast<std::size_t>(speed::kPairs) * speed::kChains * blockIdx.y;
    cov += static_cast<std::size_t>(speed::kPositions) * speed::kPositions * blockIdx.y;
    if (p < speed::kPairs) speed::covariance_element(chains + static_cast<std::ptrdiff_t>(p) * speed::kChains, p, count, cov);
}

/// Whether upstream solves K X = Y for a picture: regular eigenvalues and a solvable r (the CPU's
/// est_params decides so; it computes r only when the first holds, the device always).
__device__ inline bool factors_ok(const float* eig, const float* r) {
    return speed::blocks::eigenvalues_regular(eig) && speed::blocks::solvable(r);
}

/// The factors of picture blockIdx.y: cov + 625 blockIdx.y -> f[blockIdx.y]. Block x 0: the
/// eigenvalues (speed::blocks::eigenvalues: the tridiagonalisation by all its threads, the QR
/// steps by the first); block x 1: the QR decomposition, by all its threads
/// (speed::blocks::qr_factor). Grid: (2, pictures).
__global__ void __launch_bounds__(kFactorThreads) factor_kernel(const float* __restrict__ cov, Factors* __restrict__ f) {
    namespace blocks = speed::blocks;
    struct QrShared {
        blocks::QrWork work;
        float a[blocks::kMatrix];
        float q[blocks::kMatrix];
    };
    union Shared {
        blocks::EigenWork eigen;
        QrShared qr;
    };
    __shared__ Shared w;
    const float* m = cov + static_cast<std::size_t>(blockIdx.y) * blocks::kMatrix;
    Factors& out = f[blockIdx.y];
    if (blockIdx.x == 0) {
        blocks::eigenvalues(m, out.eig, w.eigen);
        return;
    }
    for (int e = static_cast<int>(threadIdx.x); e < blocks::kMatrix; e += static_cast<int>(blockDim.x))
        w.qr.a[e] = m[e];
    __syncthreads();
    blocks::qr_factor(w.qr.a, w.qr.q, out.r, w.qr.work);
    for (int e = static_cast<int>(threadIdx.x); e < blocks::kMatrix; e += static_cast<int>(blockDim.x))
        out.q[e] = w.qr.q[e];
}

/// terms[pair * nb + b] = speed::blocks::block_term of block b of pair blockIdx.y (pictures
/// 2 pair (reference) and 2 pair + 1 (distorted) of `band`, `band_floats` apart, factors f[...]
/// alike): per picture its samples, the solve (zeros where the picture's K is singular), the
/// variance and the entropy, as the CPU's est_params. Grid: (blocks_for(nb, kTermThreads), pairs).
__global__ void __launch_bounds__(kTermThreads)
    terms_kernel(const float* __restrict__ band, std::size_t band_floats, const Factors* __restrict__ f,
                 TermParams p, const libm::Log2Tables* __restrict__ tables, float* __restrict__ terms) {
    namespace blocks = speed::blocks;
    __shared__ float q[2][blocks::kMatrix], r[2][blocks::kMatrix], eig[2][blocks::kN];
    __shared__ bool ok[2];
    const int pair = static_cast<int>(blockIdx.y);
    for (int v = 0; v < 2; ++v) {
        const Factors& src = f[2 * pair + v];
        for (int e = static_cast<int>(threadIdx.x); e < blocks::kMatrix; e += static_cast<int>(blockDim.x)) {
            q[v][e] = src.q[e];
            r[v][e] = src.r[e];
        }
        for (int e = static_cast<int>(threadIdx.x); e < blocks::kN; e += static_cast<int>(blockDim.x))
            eig[v][e] = src.eig[e];
    }
    __syncthreads();
    if (threadIdx.x < 2) ok[threadIdx.x] = factors_ok(eig[threadIdx.x], r[threadIdx.x]);
    __syncthreads();
    const int b = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (b >= p.blocks) return;
    float entropy[2], variance[2];
    for (int v = 0; v < 2; ++v) {
        float y[blocks::kN], x[blocks::kN], rhs[blocks::kN];
        for (int k = 0; k < blocks::kN; ++k) x[k] = 0.0f;
        blocks::block_samples(band + band_floats * static_cast<std::size_t>(2 * pair + v), p.stride,
                              p.blocks_horizontal, b, y, 1);
        if (ok[v]) blocks::solve_blocks(q[v], r[v], y, x, rhs, 1);
        variance[v] = blocks::block_variance(x, y, 1);
        entropy[v] = blocks::block_entropy(eig[v], variance[v], p.sigma_nn, p.log2_2pi_e, *tables);
    }
    terms[static_cast<std::size_t>(pair) * p.blocks + b] =
        blocks::block_term(entropy[0], entropy[1], variance[0], variance[1], p.base, p.mode, *tables);
}

/// out[pair] = the pair's score as speed::score_band_pass forms it: singular when either picture's
/// K is; 0 when exactly one is; else speed::blocks::blocks_score of its nb terms (a float sum in
/// the blocks' order, one thread). Grid: pairs blocks of 1 thread.
__global__ void score_kernel(const float* __restrict__ terms, int nb, const Factors* __restrict__ f,
                             speed::blocks::PairScore* __restrict__ out) {
    const int pair = static_cast<int>(blockIdx.x);
    const Factors& fr = f[2 * pair];
    const Factors& fd = f[2 * pair + 1];
    out[pair] = speed::blocks::pair_score(factors_ok(fr.eig, fr.r), factors_ok(fd.eig, fd.r),
                                          terms + static_cast<std::size_t>(pair) * nb, nb);
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
          means_(static_cast<std::size_t>(speed::kPositions) * slots * static_cast<std::size_t>(pictures)),
          chains_(static_cast<std::size_t>(speed::kPairs) * speed::kChains * slots * static_cast<std::size_t>(pictures)),
          cov_(kCovFloats * slots * static_cast<std::size_t>(pictures)),
          factors_(static_cast<std::size_t>(slots) * pictures),
          terms_(static_cast<std::size_t>(g.blocks) * slots * static_cast<std::size_t>(pictures / 2)),
          scores_(static_cast<std::size_t>(slots) * (pictures / 2)),
          host_scores_(static_cast<std::size_t>(slots) * (pictures / 2)),
          log2_tables_(1) {
        const float sigma_nn = static_cast<float>(p.sigma_nn);
        term_params_ = TermParams{g.operating_width, g.blocks_horizontal, g.blocks, sigma_nn, speed::log2_2pi_e(),
                                  speed::noise_floor_entropy(sigma_nn, static_cast<float>(p.nn_floor)),
                                  p.weight_var_mode};
        cuda::check(cudaMemcpy(log2_tables_.get(), &libm::log2_tables(), sizeof(libm::Log2Tables),
                               cudaMemcpyHostToDevice),
                    "cudaMemcpy");
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

    /// Enqueues steps 2-3 of picture `i` of `slot` (its band-pass picture, on the device).
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
    }

    /// Enqueues steps 4-5 for every pair of the slot's pictures (pair k: picture 2k the
    /// reference, 2k + 1 the distorted), once enqueue() has run for each picture, each kernel
    /// for all the slot's pictures or pairs at once: the covariance matrices (est_params step 1),
    /// their factors, the blocks' terms, each pair's score, and the copy of the scores (8 bytes a
    /// pair) to the slot's pinned memory.
    void enqueue_scores(unsigned slot, cudaStream_t stream) const {
        const int pairs = pictures_ / 2;
        const unsigned pictures = static_cast<unsigned>(pictures_);
        const std::size_t first = static_cast<std::size_t>(slot) * pictures_;
        const float* band = band_.get() + band_floats() * first;
        float* means = means_.get() + static_cast<std::size_t>(speed::kPositions) * first;
        double* chains = chains_.get() + static_cast<std::size_t>(speed::kPairs) * speed::kChains * first;
        float* cov = cov_.get() + kCovFloats * first;
        const int ow = g_.operating_width;
        means_kernel<<<pictures, 32, 0, stream>>>(band, band_floats(), ow, g_.sub_height, g_.sub_width, means);
        cuda::check_launch("speed means_kernel");
        chains_kernel<<<dim3(cuda::blocks_for(static_cast<std::size_t>(speed::kPairs) * speed::kChains, kThreads),
                             pictures),
                        kThreads, 0, stream>>>(band, band_floats(), ow, g_.sub_height, g_.sub_width, means, chains);
        cuda::check_launch("speed chains_kernel");
        const double count = static_cast<double>(static_cast<std::size_t>(g_.sub_width) * g_.sub_height);
        covariance_kernel<<<dim3(cuda::blocks_for(speed::kPairs, kThreads), pictures), kThreads, 0, stream>>>(
            chains, count, cov);
        cuda::check_launch("speed covariance_kernel");
        Factors* factors = factors_.get() + first;
        factor_kernel<<<dim3(2, pictures), kFactorThreads, 0, stream>>>(cov, factors);
        cuda::check_launch("speed factor_kernel");
        const std::size_t nb = static_cast<std::size_t>(g_.blocks);
        float* terms = terms_.get() + nb * static_cast<std::size_t>(slot) * pairs;
        terms_kernel<<<dim3(cuda::blocks_for(nb, kTermThreads), static_cast<unsigned>(pairs)), kTermThreads, 0,
                       stream>>>(band_.get() + band_floats() * first, band_floats(), factors, term_params_,
                                 log2_tables_.get(), terms);
        cuda::check_launch("speed terms_kernel");
        speed::blocks::PairScore* scores = scores_.get() + static_cast<std::size_t>(slot) * pairs;
        score_kernel<<<static_cast<unsigned>(pairs), 1, 0, stream>>>(terms, g_.blocks, factors, scores);
        cuda::check_launch("speed score_kernel");
        cuda::check(cudaMemcpyAsync(host_scores_.get() + static_cast<std::size_t>(slot) * pairs, scores,
                                    sizeof(speed::blocks::PairScore) * pairs, cudaMemcpyDeviceToHost, stream),
                    "copying the SpEED scores to the host");
    }

    /// Pair `k`'s score of `slot` (speed::score_band_pass's value and its `singular`) on the
    /// host, once the slot's work has completed.
    speed::blocks::PairScore host_score(unsigned slot, int k) const {
        return host_scores_.get()[static_cast<std::size_t>(slot) * (pictures_ / 2) + k];
    }

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
    cuda::DeviceBuffer<float> means_;    ///< per slot and picture: the 25 means
    cuda::DeviceBuffer<double> chains_;  ///< per slot and picture: the 325 x 17 chains
    cuda::DeviceBuffer<float> cov_;      ///< per slot and picture: the covariance matrix
    cuda::DeviceBuffer<Factors> factors_;  ///< per slot and picture: its eigenvalues, q and r
    cuda::DeviceBuffer<float> terms_;      ///< per slot and pair: the blocks' terms
    cuda::DeviceBuffer<speed::blocks::PairScore> scores_;    ///< per slot and pair
    cuda::PinnedBuffer<speed::blocks::PairScore> host_scores_;
    cuda::DeviceBuffer<libm::Log2Tables> log2_tables_;  ///< libm::log2_tables()
    TermParams term_params_{};
    cuda::DeviceBuffer<float> aa_, mean_;
    int aa_taps_ = 0, mean_taps_ = 0, scale_taps_ = 0;
    cuda::DeviceBuffer<int> x_index_, y_index_;
    cuda::DeviceBuffer<float> x_weight_, y_weight_;
};

}  // namespace vmafx::speed_cuda
