// CUDA twin of the float_psnr metric (float_psnr.cpp), bit-identical to it on every frame.
//
// The CPU adds, in double and in row-major order, the float square d2 of the float difference of
// each pair of luma samples as picture_copy makes them (float(x) / scaler), then forms the PSNR
// from the sum. Per frame, one kernel, noise_kernel: a thread per sample forms d2 with the CPU's
// own function (float_psnr_math.hpp: the scaling and the difference are exact, the square
// rounds to float) and adds d2 * scaler^2 (an integer: d2 is float(D^2) / scaler^2 for the
// integer difference D, float(D^2) an integer below 2^32) to the frame's 64-bit sum in these
// units (integer atomics after a warp reduction: exact, order-free). Where
// w * h * 2^(2 * bit_depth) <= 2^53 (every format below 16 bits up to 2^29 samples, 16 bits up
// to 2^21 samples: 1920x1080), every partial sum of the CPU's is an integer number of units below
// 2^53, so exact, and the CPU's sum is (double)(units) / scaler^2 exactly. Otherwise (16 bits
// above 2^21 samples, where the CPU's double sum rounds) the kernel also writes d2 as double to
// a per-slot term buffer (row-major: the CPU's order) and SequentialSum<double>
// (cuda/sequential_sum.hpp) reproduces the CPU's running double sum of it bit for bit.
// finish() forms the score with the CPU's own psnr_of_noise (the division by w * h, the log and
// the caps, on the host).
//
// Planted regressions (parity-gate tests only; plant_, fixed at creation):
//  kMirrorShift:    the metric has no neighbourhood (no border, no mirror): the nearest meaningful
//                   defect is planted instead, the plane walk's first column reading column 1 (an
//                   off-by-one at the left border), in noise_kernel;
//  kReductionOrder: the terms summed as a plain parallel reduction (float atomics) instead of
//                   the CPU's sequential double sum, in noise_kernel. A parallel *double*
//                   reduction is not planted: on the parity gate's inputs (at most 431x271
//                   samples) every partial sum is exact (below 2^53 units), so any order gives
//                   the CPU's bits and no gate could tell; the float precision makes the order
//                   (and the precision) visible.
// No kRoundingConstant (kReductionOrder stands for it): the only rounding on the device is the
// float square, which the gate's inputs (differences below 2^12 units) never round.
// No kContraction: the device forms two exact scalings, an exact difference and one float
// product, with no a*b+c a compiler could fuse; the sums are integer, and SequentialSum's
// arithmetic is exact whatever the contraction.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/warp_sum.cuh"
#include "feature/float_psnr/float_psnr.hpp"
#include "feature/float_psnr/float_psnr_math.hpp"
#include "cuda/sequential_sum.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

constexpr unsigned kThreads = 256;
/// Block rows of a grid: each thread adds the samples of every kGridRows-th row (its sums are
/// integers, order-free), so that a frame takes few atomics (one per warp and block row).
constexpr int kGridRows = 64;

/// The device sums of one frame (per slot), copied to the host as one block.
struct NoiseSums {
    unsigned long long units;  ///< sum of d2 * scaler^2 (integer units)
    double sequential;         ///< SequentialSum of d2 (the terms' path only)
    float planted;             ///< kReductionOrder's float sum of d2
};

/// Adds one frame's noise. Grid: (column blocks, min(rows, kGridRows)), each block row
/// taking rows blockIdx.y, blockIdx.y + gridDim.y, ...; block: kThreads. terms: row-major w * h
/// doubles receiving d2, or nullptr. plant_shift / planted_sum: the planted kMirrorShift /
/// kReductionOrder (false / nullptr outside the gate's tests).
template <typename Sample>
__global__ void __launch_bounds__(kThreads)
    noise_kernel(const unsigned char* __restrict__ ref, std::ptrdiff_t ref_pitch, const unsigned char* __restrict__ dist,
                 std::ptrdiff_t dist_pitch, int width, int height, float scaler, double units_per_term,
                 unsigned long long* __restrict__ units, double* __restrict__ terms, bool plant_shift,
                 float* planted_sum) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    unsigned long long term_units = 0;
    for (int y = static_cast<int>(blockIdx.y); y < height; y += static_cast<int>(gridDim.y)) {
        if (x >= width) continue;
        const int column = plant_shift && x == 0 && width > 1 ? 1 : x;
        const Sample r = reinterpret_cast<const Sample*>(ref + y * ref_pitch)[column];
        const Sample d = reinterpret_cast<const Sample*>(dist + y * dist_pitch)[column];
        const float d2 = float_psnr::squared_difference(r, d, scaler);
        term_units += static_cast<unsigned long long>(static_cast<double>(d2) * units_per_term);  // exact integer
        if (terms) terms[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + x] = d2;
        if (planted_sum) atomicAdd(planted_sum, d2);
    }
    term_units = gpu::warp_sum_u64(term_units);
    if ((threadIdx.x & 31) == 0) atomicAdd(units, term_units);
}

class FloatPsnrTwin final : public GpuTwin {
public:
    FloatPsnrTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(plant), scaler_(float_psnr::scaler_of(format.bit_depth)),
          samples_(static_cast<std::size_t>(format.width) * static_cast<std::size_t>(format.height)),
          sums_(slots), host_sums_(slots), frames_("float_psnr", slots) {
        (void)options;  // none; the descriptor's check refused what the CPU refuses before this
        // The CPU's sum is exact (an integer number of units below 2^53 at every step) where
        // w * h * 2^(2 * bit_depth) <= 2^53; beyond, its running double sum rounds.
        sequential_ = gpu::double_sum_may_round(samples_, 2 * format.bit_depth);
        if (sequential_) {
            terms_ = cuda::DeviceBuffer<double>(samples_ * slots);
            for (unsigned s = 0; s < slots; ++s)
                sequential_sums_.push_back(std::make_unique<gpu::SequentialSum<double>>(samples_, 1));
        }
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {

        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        const DevicePlane& ref = f.ref.luma();
        const DevicePlane& dist = f.dist.luma();
        if (!ref.data || !dist.data) throw Error("float_psnr (CUDA): a luma plane is missing");
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
        if (ref.pitch < row_bytes || dist.pitch < row_bytes) throw Error("float_psnr (CUDA): a luma pitch below the row");
        NoiseSums* sums = sums_.get() + slot;
        cuda::check(cudaMemsetAsync(sums, 0, sizeof(NoiseSums), stream), "cudaMemsetAsync");
        double* terms = sequential_ ? terms_.get() + samples_ * slot : nullptr;
        const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(format_.width), kThreads),
                        static_cast<unsigned>(std::min(format_.height, kGridRows)));
        const bool shift = plant_ == PlantedDefect::kMirrorShift;
        float* planted = plant_ == PlantedDefect::kReductionOrder ? &sums->planted : nullptr;
        const double units = static_cast<double>(scaler_) * scaler_;
        const auto* r = static_cast<const unsigned char*>(ref.data);
        const auto* d = static_cast<const unsigned char*>(dist.data);
        if (format_.bit_depth == 8)
            noise_kernel<std::uint8_t><<<grid, kThreads, 0, stream>>>(r, ref.pitch, d, dist.pitch, format_.width,
                                                                      format_.height, scaler_, units, &sums->units,
                                                                      terms, shift, planted);
        else
            noise_kernel<std::uint16_t><<<grid, kThreads, 0, stream>>>(r, ref.pitch, d, dist.pitch, format_.width,
                                                                       format_.height, scaler_, units, &sums->units,
                                                                       terms, shift, planted);
        cuda::check_launch("float_psnr noise_kernel");
        if (sequential_) sequential_sums_[slot]->enqueue(terms, samples_, samples_, 1, &sums->sequential, stream);
        cuda::check(cudaMemcpyAsync(host_sums_.get() + slot, sums, sizeof(NoiseSums), cudaMemcpyDeviceToHost, stream),
                    "copying the float_psnr sum to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const NoiseSums& s = host_sums_[slot];
        double noise = 0;
        if (plant_ == PlantedDefect::kReductionOrder) noise = static_cast<double>(s.planted);
        else if (sequential_) noise = s.sequential;
        else noise = static_cast<double>(s.units) / (static_cast<double>(scaler_) * scaler_);  // both exact
        out.emplace_back("float_psnr", float_psnr::psnr_of_noise(noise, format_.width, format_.height, format_.bit_depth));
    }

private:
    VideoFormat format_;
    PlantedDefect plant_;
    float scaler_;
    std::size_t samples_;
    bool sequential_ = false;
    cuda::DeviceBuffer<NoiseSums> sums_;      // per slot
    cuda::PinnedBuffer<NoiseSums> host_sums_;  // per slot
    cuda::DeviceBuffer<double> terms_;        // per slot: w * h terms (the sequential path only)
    std::vector<std::unique_ptr<gpu::SequentialSum<double>>> sequential_sums_;  // per slot
    cuda::SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kReductionOrder};

}  // namespace

namespace float_psnr {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "float_psnr",
    make_twin<FloatPsnrTwin>,
    {exact_bound,
     "bound 0 at every format: each sample pair's noise term is the CPU's own function (float_psnr_math.hpp: "
     "IEEE division, difference and product, no FTZ). The frame's sum is the integer sum of float(D^2) "
     "(d2 * scaler^2, exact); where w * h * 2^(2 * bit depth) <= 2^53 every partial sum of the CPU's is an "
     "integer number of these units below 2^53, hence exact, and the CPU's value is that integer / scaler^2; "
     "beyond (16 bits, more than 2^21 samples) the CPU's running double sum is reproduced bit for bit by "
     "SequentialSum<double> over the terms in the CPU's order. The division by w * h, the log and the caps are "
     "the CPU's psnr_of_noise on the host"},
    kDefects,
    "no a*b+c on the device: two exact scalings, an exact difference and one float product per sample pair, "
    "integer sums, and SequentialSum's exact arithmetic",
};

}  // namespace float_psnr

}  // namespace vmafx
