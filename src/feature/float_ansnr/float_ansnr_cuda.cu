// CUDA twin of the float_ansnr metric (float_ansnr.cpp), bit-identical to it on every frame.
//
// The CPU filters the float copies of the two lumas (3x3 binomial on the reference, 5x5 n / 571
// on the distorted picture, reflected borders), then adds, per row, the float terms ref_f^2 and
// (ref_f - dist_f)^2 into two float sums from 0 in column order, and the rows' sums into two
// float sums in row order. Per frame, on the frame's stream:
//  1. terms_kernel: a thread per sample reads its two reflected windows of raw samples, turns
//     each into picture_copy's float (floatimg::picture_copy_sample, the CPU's own function:
//     exact), filters them with the CPU's own filter3_at / filter5_at (float_ansnr_math.hpp:
//     the same weights, products and sums in the same order; --fmad=false keeps each product
//     and sum rounded as on the CPU) and writes signal_term and noise_term to the slot's term
//     rows (rows 0..h-1: signal, rows h..2h-1: noise; row-major, the CPU's order);
//  2. gpu::SequentialSum<float> over the 2h rows: each row's running float sum from 0, the CPU's
//     bits (cuda/sequential_sum.hpp);
//  3. one asynchronous copy of the 2h row sums to the slot's pinned host memory.
// finish() adds the rows' sums in row order and forms the scores with the CPU's own host code
// (float_ansnr::sum_rows, float_ansnr::scores_of: the float quotient, the logs and the caps).
//
// The per-thread work is float_ansnr_twin.hpp's (host-device, run on the host by the tests).
// Planted regressions (parity-gate tests only; plant_, fixed at creation), all in terms_kernel:
//  kContraction:      every product of both filters added as one fused multiply-add
//                     (__fmaf_rn(f, w, inner): the product not rounded), as a compiler
//                     contracting the loop body would;
//  kMirrorShift:      the reflection above the top border reads one row further in (-k reads
//                     row k + 1), both filters;
//  kRoundingConstant: the rounding step of the kernel rows' sum changed: each filter's row sums
//                     added rounding toward zero (__fadd_rz) instead of to nearest;
//  kReductionOrder:   the terms added to their rows' sums by float atomics in whatever order the
//                     threads reach them, instead of the CPU's column order (SequentialSum is
//                     then skipped).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/sequential_sum.hpp"
#include "feature/common/float_image_math.hpp"
#include "feature/float_ansnr/float_ansnr.hpp"
#include "feature/float_ansnr/float_ansnr_math.hpp"
#include "feature/float_ansnr/float_ansnr_twin.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

using float_ansnr::kDistTaps;
using float_ansnr::kRefTaps;

/// Block of terms_kernel: 32 columns x 8 rows.
constexpr unsigned kBlockX = 32;
constexpr unsigned kBlockY = 8;

using float_ansnr::Plant;
using float_ansnr::Weights;

/// Writes the signal and noise terms of every sample: terms[y * w + x] = signal_term,
/// terms[(h + y) * w + x] = noise_term (or, planted kReductionOrder, adds them to
/// planted_rows[y] and planted_rows[h + y] with float atomics). Grid: (ceil(w / kBlockX),
/// ceil(h / kBlockY)); block: kBlockX x kBlockY.
template <typename Sample>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    terms_kernel(const unsigned char* __restrict__ ref, std::ptrdiff_t ref_pitch, const unsigned char* __restrict__ dist,
                 std::ptrdiff_t dist_pitch, int w, int h, float scaler, Weights weights, Plant plant,
                 float* __restrict__ terms, float* __restrict__ planted_rows) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const float rf = float_ansnr::filtered_at<kRefTaps, Sample>(ref, ref_pitch, w, h, x, y, scaler, weights.ref, plant);
    const float df =
        float_ansnr::filtered_at<kDistTaps, Sample>(dist, dist_pitch, w, h, x, y, scaler, weights.dist, plant);
    const float sig = float_ansnr::signal_term(rf);
    const float noise = float_ansnr::noise_term(rf, df);
    if (plant.order) {
        atomicAdd(planted_rows + y, sig);
        atomicAdd(planted_rows + h + y, noise);
        return;
    }
    const std::size_t at = static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x);
    terms[at] = sig;
    terms[static_cast<std::size_t>(h) * static_cast<std::size_t>(w) + at] = noise;
}

class FloatAnsnrTwin final : public GpuTwin {
public:
    FloatAnsnrTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), settings_(options),
          scaler_(floatimg::picture_copy_scaler(format.bit_depth)),
          rows_(2 * static_cast<std::size_t>(format.height)),
          terms_(rows_ * static_cast<std::size_t>(format.width) * slots), row_sums_(rows_ * slots),
          host_row_sums_(rows_ * slots), frames_("float_ansnr", slots) {
        float_ansnr::scores_of(0.0f, 1.0f, format.width, format.height, format.bit_depth);  // refuses other depths
        if (format.width < 3 || format.height < 3)
            throw Error("float_ansnr (CUDA): the luma must be at least 3x3");
        weights_ = float_ansnr::weights();
        plant_ = Plant::of(plant);
        if (rows_ > std::numeric_limits<unsigned>::max()) throw Error("float_ansnr (CUDA): too many rows");
        for (unsigned s = 0; s < slots; ++s)
            sums_.push_back(std::make_unique<gpu::SequentialSum<float>>(static_cast<std::size_t>(format.width),
                                                                        static_cast<unsigned>(rows_)));
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        const DevicePlane& ref = f.ref.luma();
        const DevicePlane& dist = f.dist.luma();
        if (!ref.data || !dist.data) throw Error("float_ansnr (CUDA): a luma plane is missing");
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
        if (ref.pitch < row_bytes || dist.pitch < row_bytes)
            throw Error("float_ansnr (CUDA): a luma pitch below the row");
        const int w = format_.width;
        const int h = format_.height;
        float* terms = terms_.get() + rows_ * static_cast<std::size_t>(w) * slot;
        float* row_sums = row_sums_.get() + rows_ * slot;
        if (plant_.order)
            cuda::check(cudaMemsetAsync(row_sums, 0, rows_ * sizeof(float), stream), "cudaMemsetAsync");
        const dim3 block(kBlockX, kBlockY);
        const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(w), kBlockX),
                        cuda::blocks_for(static_cast<std::size_t>(h), kBlockY));
        const auto* r = static_cast<const unsigned char*>(ref.data);
        const auto* d = static_cast<const unsigned char*>(dist.data);
        if (format_.bit_depth == 8)
            terms_kernel<std::uint8_t><<<grid, block, 0, stream>>>(r, ref.pitch, d, dist.pitch, w, h, scaler_,
                                                                   weights_, plant_, terms, row_sums);
        else
            terms_kernel<std::uint16_t><<<grid, block, 0, stream>>>(r, ref.pitch, d, dist.pitch, w, h, scaler_,
                                                                    weights_, plant_, terms, row_sums);
        cuda::check_launch("float_ansnr terms_kernel");
        if (!plant_.order)
            sums_[slot]->enqueue(terms, static_cast<std::size_t>(w), static_cast<std::size_t>(w),
                                 static_cast<unsigned>(rows_), row_sums, stream);
        cuda::check(cudaMemcpyAsync(host_row_sums_.get() + rows_ * slot, row_sums, rows_ * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying the float_ansnr row sums to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const std::size_t h = static_cast<std::size_t>(format_.height);
        const float* rows = host_row_sums_.get() + rows_ * slot;
        const float sig = float_ansnr::sum_rows({rows, h});
        const float noise = float_ansnr::sum_rows({rows + h, h});
        const float_ansnr::Scores s =
            float_ansnr::scores_of(sig, noise, format_.width, format_.height, format_.bit_depth);
        out.emplace_back(settings_.ansnr_name, s.ansnr);
        out.emplace_back(settings_.anpsnr_name, s.anpsnr);
    }

private:
    VideoFormat format_;
    float_ansnr::Settings settings_;
    float scaler_;
    std::size_t rows_;  // 2 * height: the signal rows, then the noise rows
    Weights weights_{};
    Plant plant_{};
    cuda::DeviceBuffer<float> terms_;          // per slot: rows_ x width terms
    cuda::DeviceBuffer<float> row_sums_;       // per slot: rows_ sums
    cuda::PinnedBuffer<float> host_row_sums_;  // per slot
    std::vector<std::unique_ptr<gpu::SequentialSum<float>>> sums_;  // per slot
    cuda::SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                      PlantedDefect::kRoundingConstant, PlantedDefect::kReductionOrder};

}  // namespace

namespace float_ansnr {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "float_ansnr",
    make_twin<FloatAnsnrTwin>,
    {exact_bound,
     "bound 0 at every format: each sample's float copy is the CPU's picture_copy_sample (an exact scaling and "
     "offset), each filtered sample the CPU's own filter3_at / filter5_at (float_ansnr_math.hpp: the same float "
     "weights, the same reflected window, products and sums in the CPU's order; --fmad=false, no FTZ), each term "
     "the CPU's signal_term / noise_term. Every row's running float sum from 0 in column order is reproduced bit "
     "for bit by SequentialSum<float>; the rows' sums are added in row order, the float quotient, the logs and "
     "the caps formed on the host by the CPU's own sum_rows and scores_of"},
    kDefects,
    nullptr,
};

}  // namespace float_ansnr

}  // namespace vmafx
