// CUDA twin of the float_moment metric (float_moment.cpp), bit-identical to it on every frame.
//
// The CPU adds, in double and in row-major order, v = float(x) / scaler (first moment) and the
// float square v2 = v * v (second moment) of every luma sample x, then divides by w * h.
// Per frame and picture (reference, distorted), one kernel, moment_kernel: a thread per sample
// forms v and v2 with the CPU's own functions (float_moment_math.hpp) and
//  - adds x to the picture's 64-bit first sum (integer atomics after a warp reduction: exact,
//    order-free). Every partial sum of the CPU's is (integer) / scaler below 2^53 / scaler
//    (x < 2^16, w * h < 2^31), so exact in double: the CPU's first sum is (double)(sum x) /
//    scaler exactly;
//  - adds v2 * scaler^2 (an integer: v2 is float(x^2) / scaler^2, float(x^2) an integer below
//    2^32) to the 64-bit second sum in these units. Where w * h * 2^(2 * bit_depth) <= 2^53
//    (every format below 16 bits up to 2^29 samples, 16 bits up to 2^21 samples: 1920x1080),
//    every partial sum of the CPU's is an integer number of units below 2^53, so exact: the
//    CPU's second sum is (double)(units) / scaler^2 exactly;
//  - otherwise (16 bits above 2^21 samples, where the CPU's double sum rounds) also writes v2
//    as double to a per-slot term buffer (row-major: the CPU's order), and SequentialSum<double>
//    (cuda/sequential_sum.hpp) reproduces the CPU's running double sum of it bit for bit.
// The sums are copied to the slot's pinned host memory; finish() forms them as above and divides
// with the CPU's own finish_moments().
//
// Planted regressions (parity-gate tests only; plant_, fixed at creation):
//  kMirrorShift:      the metric has no neighbourhood (no border, no mirror): the nearest
//                     meaningful defect is planted instead, the plane walk's first column
//                     reading column 1 (an off-by-one at the left border), in moment_kernel;
//  kRoundingConstant: the square's rounding step to float removed (v * v in double), in
//                     moment_kernel: at 16 bits x^2 has more than 24 significant bits;
//  kReductionOrder:   the second moment's terms summed as a plain parallel reduction (float
//                     atomics) instead of the CPU's sequential double sum, in moment_kernel.
//                     A parallel *double* reduction is not planted: on the parity gate's inputs
//                     (at most 431x271 samples) every partial sum is exact (below 2^53 units),
//                     so any order gives the CPU's bits and no gate could tell; the float
//                     precision makes the order (and the precision) visible.
// No kContraction: the device forms float(x) / scaler, v * v and v2 * scaler^2 (exact), with no
// a*b+c a compiler could fuse; the sums are integer, and SequentialSum's arithmetic is exact
// whatever the contraction (its tests prove it against plain loops).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cuda/device.hpp"
#include "cuda/warp_sum.cuh"
#include "feature/float_moment/float_moment.hpp"
#include "feature/float_moment/float_moment_math.hpp"
#include "cuda/sequential_sum.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

constexpr unsigned kThreads = 256;
/// Block rows of a grid: each thread adds the samples of every kGridRows-th row (its sums are
/// integers, order-free), so that a frame takes few atomics (one per warp and block row).
constexpr int kGridRows = 64;

/// The device sums of one frame (per slot), copied to the host as one block.
struct MomentSums {
    unsigned long long first[2];   ///< sum of x, reference and distorted
    unsigned long long second[2];  ///< sum of v2 * scaler^2 (integer units)
    double sequential[2];          ///< SequentialSum of v2 (the terms' path only)
    float planted[2];              ///< kReductionOrder's float sums of v2
};

/// Adds one picture's sums. Grid: (column blocks, min(rows, kGridRows)), each block row
/// taking rows blockIdx.y, blockIdx.y + gridDim.y, ...; block: kThreads. terms: row-major w * h
/// doubles receiving v2, or nullptr. plant_shift / plant_unrounded / planted_sum: the planted
/// kMirrorShift / kRoundingConstant / kReductionOrder (false / nullptr outside the gate's tests).
template <typename Sample>
__global__ void __launch_bounds__(kThreads)
    moment_kernel(const unsigned char* __restrict__ plane, std::ptrdiff_t pitch, int width, int height, float scaler,
                  double units_per_term, unsigned long long* __restrict__ first, unsigned long long* __restrict__ second,
                  double* __restrict__ terms, bool plant_shift, bool plant_unrounded, float* planted_sum) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    unsigned long long first_units = 0, second_units = 0;
    for (int y = static_cast<int>(blockIdx.y); y < height; y += static_cast<int>(gridDim.y)) {
        if (x >= width) continue;
        const int column = plant_shift && x == 0 && width > 1 ? 1 : x;
        const Sample s = reinterpret_cast<const Sample*>(plane + y * pitch)[column];
        const float v = float_moment::sample_value(s, scaler);
        const double term = plant_unrounded ? static_cast<double>(v) * static_cast<double>(v)
                                            : static_cast<double>(float_moment::square_term(v));
        first_units += s;
        second_units += static_cast<unsigned long long>(term * units_per_term);  // exact: an integer below 2^32
        if (terms) terms[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + x] = term;
        if (planted_sum) atomicAdd(planted_sum, static_cast<float>(term));
    }
    first_units = gpu::warp_sum_u64(first_units);
    second_units = gpu::warp_sum_u64(second_units);
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(first, first_units);
        atomicAdd(second, second_units);
    }
}

class MomentTwin final : public GpuTwin {
public:
    MomentTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(plant), scaler_(float_moment::scaler_of(format.bit_depth)),
          samples_(static_cast<std::size_t>(format.width) * static_cast<std::size_t>(format.height)),
          sums_(slots), host_sums_(slots), frames_("float_moment", slots) {
        (void)options;  // none; the descriptor's check refused what the CPU refuses before this
        // The CPU's second sum is exact (an integer number of units below 2^53 at every step)
        // where w * h * 2^(2 * bit_depth) <= 2^53; beyond, its running double sum rounds.
        sequential_ = gpu::double_sum_may_round(samples_, 2 * format.bit_depth);
        if (sequential_) {
            terms_ = cuda::DeviceBuffer<double>(2 * samples_ * slots);
            for (unsigned s = 0; s < slots; ++s)
                sequential_sums_.push_back(std::make_unique<gpu::SequentialSum<double>>(samples_, 2));
        }
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {

        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        MomentSums* sums = sums_.get() + slot;
        cuda::check(cudaMemsetAsync(sums, 0, sizeof(MomentSums), stream), "cudaMemsetAsync");
        double* terms = sequential_ ? terms_.get() + 2 * samples_ * slot : nullptr;
        const DevicePlane* planes[2] = {&f.ref.luma(), &f.dist.luma()};
        for (int pic = 0; pic < 2; ++pic) {
            if (!planes[pic]->data) throw Error("float_moment (CUDA): a luma plane is missing");
            add_sums(*planes[pic], sums, pic, terms ? terms + samples_ * pic : nullptr, stream);
        }
        if (sequential_)
            sequential_sums_[slot]->enqueue(terms, samples_, samples_, 2, sums->sequential, stream);
        cuda::check(cudaMemcpyAsync(host_sums_.get() + slot, sums, sizeof(MomentSums), cudaMemcpyDeviceToHost, stream),
                    "copying the float_moment sums to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const MomentSums& s = host_sums_[slot];
        double first[2], second[2];
        for (int pic = 0; pic < 2; ++pic) {
            first[pic] = static_cast<double>(s.first[pic]) / static_cast<double>(scaler_);  // both exact
            if (plant_ == PlantedDefect::kReductionOrder) second[pic] = static_cast<double>(s.planted[pic]);
            else if (sequential_) second[pic] = s.sequential[pic];
            else second[pic] = static_cast<double>(s.second[pic]) / (static_cast<double>(scaler_) * scaler_);
            float_moment::finish_moments(first[pic], second[pic], format_.width, format_.height);
        }
        out.emplace_back("float_moment_ref1st", first[0]);
        out.emplace_back("float_moment_dis1st", first[1]);
        out.emplace_back("float_moment_ref2nd", second[0]);
        out.emplace_back("float_moment_dis2nd", second[1]);
    }

private:
    void add_sums(const DevicePlane& plane, MomentSums* sums, int pic, double* terms, cudaStream_t stream) {
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
        if (plane.pitch < row_bytes) throw Error("float_moment (CUDA): a luma pitch below the row");
        const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(format_.width), kThreads),
                        static_cast<unsigned>(std::min(format_.height, kGridRows)));
        const bool shift = plant_ == PlantedDefect::kMirrorShift;
        const bool unrounded = plant_ == PlantedDefect::kRoundingConstant;
        float* planted = plant_ == PlantedDefect::kReductionOrder ? &sums->planted[pic] : nullptr;
        const double units = static_cast<double>(scaler_) * scaler_;
        const auto* data = static_cast<const unsigned char*>(plane.data);
        if (format_.bit_depth == 8)
            moment_kernel<std::uint8_t><<<grid, kThreads, 0, stream>>>(
                data, plane.pitch, format_.width, format_.height, scaler_, units, &sums->first[pic],
                &sums->second[pic], terms, shift, unrounded, planted);
        else
            moment_kernel<std::uint16_t><<<grid, kThreads, 0, stream>>>(
                data, plane.pitch, format_.width, format_.height, scaler_, units, &sums->first[pic],
                &sums->second[pic], terms, shift, unrounded, planted);
        cuda::check_launch("float_moment moment_kernel");
    }

    VideoFormat format_;
    PlantedDefect plant_;
    float scaler_;
    std::size_t samples_;
    bool sequential_ = false;
    cuda::DeviceBuffer<MomentSums> sums_;     // per slot
    cuda::PinnedBuffer<MomentSums> host_sums_;  // per slot
    cuda::DeviceBuffer<double> terms_;        // per slot: 2 x w * h terms (the sequential path only)
    std::vector<std::unique_ptr<gpu::SequentialSum<double>>> sequential_sums_;  // per slot
    cuda::SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant,
                                      PlantedDefect::kReductionOrder};

}  // namespace

namespace float_moment {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "float_moment",
    make_twin<MomentTwin>,
    {exact_bound,
     "bound 0 at every format: each sample's value and float square are the CPU's own functions "
     "(float_moment_math.hpp; IEEE division and product, no FTZ). The first sum is the integer sum of the "
     "samples (exact), and the CPU's double sum of x / scaler is exact at every step (below 2^53 / scaler), so "
     "it is that integer / scaler. The second sum is the integer sum of float(x^2) (v2 * scaler^2, exact); where "
     "w * h * 2^(2 * bit depth) <= 2^53 every partial sum of the CPU's is an integer number of these units "
     "below 2^53, hence exact, and the CPU's value is that integer / scaler^2; beyond (16 bits, more than 2^21 "
     "samples) the CPU's running double sum is reproduced bit for bit by SequentialSum<double> over the terms in "
     "the CPU's order. The divisions by w * h are the CPU's finish_moments on the host"},
    kDefects,
    "no a*b+c on the device: x / scaler, v * v and an exact scaling per sample, integer sums, and "
    "SequentialSum's exact arithmetic",
};

}  // namespace float_moment

}  // namespace vmafx
