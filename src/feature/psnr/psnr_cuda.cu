// CUDA twin of the integer PSNR metric "psnr" (psnr.cpp), bit-identical to it on every frame and
// in its aggregates.
//
// The CPU sums, per plane (luma, and Cb and Cr with enable_chroma, each at its own subsampled
// size), the uint32 squared errors of the sample pairs (psnr_math.hpp squared_error): at 8 bits
// each row in a uint32_t (wrapping modulo 2^32, as upstream), the rows into a uint64_t; above 8
// bits straight into the uint64_t. Then everything else in double on the host.
// Per frame and scored plane, on the frame's stream:
//  1. sse_kernel: a thread per sample forms squared_error (the CPU's function); at 8 bits a warp
//     reduction and a uint32 atomic add into the row's sum (addition modulo 2^32: order-free,
//     the CPU's wrapped row sum); above, a warp reduction in 64 bits and a 64-bit atomic add
//     into the plane's sum (exact, order-free: the sum is below 2^64 for any plane below 2^32
//     samples);
//  2. (8 bits) rows_kernel: adds the plane's row sums in 64 bits into the plane's sum.
// The plane sums are copied to the slot's pinned host memory; finish() scores each plane with
// the CPU's own psnr::Scorer (the per-frame PSNR and MSE and, with enable_apsnr, the run's
// totals), and flush() is the CPU's Scorer::flush (the aggregates).
//
// Planted regressions (parity-gate tests only; plant_, fixed at creation):
//  kMirrorShift:    the metric has no neighbourhood (no border, no mirror): the nearest meaningful
//                   defect is planted instead, the plane walk's first column reading column 1
//                   (an off-by-one at the left border), in sse_kernel;
//  kReductionOrder: the squared errors summed in another precision and order: a parallel float
//                   reduction (float atomics, rounding past 2^24) instead of the exact integer
//                   sums, in sse_kernel.
// No kRoundingConstant (kReductionOrder stands for it) and no kContraction: the device path is
// integer arithmetic only (no rounding step, no a*b+c a compiler could fuse).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/warp_sum.cuh"
#include "feature/psnr/psnr.hpp"
#include "feature/psnr/psnr_math.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

constexpr unsigned kThreads = 256;
/// Most block rows of a grid (CUDA's limit of gridDim.y); taller planes loop.
constexpr int kMaxGridRows = 65535;
constexpr unsigned kRowsThreads = 1024;

/// The device sums of one frame (per slot), copied to the host as one block.
struct PlaneSums {
    unsigned long long sse[3];  ///< per plane
    float planted[3];           ///< kReductionOrder's float sums
};

/// Adds one plane's squared errors. Grid: (column blocks, min(rows, kMaxGridRows)), each block
/// row taking rows blockIdx.y, blockIdx.y + gridDim.y, ...; block: kThreads. At 8 bits
/// (Sample uint8_t) into row_sums[row] modulo 2^32, above into *sse. plant_shift / planted_sum:
/// the planted kMirrorShift / kReductionOrder (false / nullptr outside the gate's tests).
template <typename Sample>
__global__ void __launch_bounds__(kThreads)
    sse_kernel(const unsigned char* __restrict__ ref, std::ptrdiff_t ref_pitch, const unsigned char* __restrict__ dist,
               std::ptrdiff_t dist_pitch, int width, int height, unsigned* __restrict__ row_sums,
               unsigned long long* __restrict__ sse, bool plant_shift, float* planted_sum) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    unsigned long long plane_sum = 0;  // above 8 bits
    for (int y = static_cast<int>(blockIdx.y); y < height; y += static_cast<int>(gridDim.y)) {
        std::uint32_t e2 = 0;
        if (x < width) {
            const int column = plant_shift && x == 0 && width > 1 ? 1 : x;
            const Sample r = reinterpret_cast<const Sample*>(ref + y * ref_pitch)[column];
            const Sample d = reinterpret_cast<const Sample*>(dist + y * dist_pitch)[column];
            e2 = psnr::squared_error(r, d);
            if (planted_sum) atomicAdd(planted_sum, static_cast<float>(e2));
        }
        if constexpr (sizeof(Sample) == 1) {
            unsigned sum = e2;  // modulo 2^32, as the CPU's row sum
            sum = __reduce_add_sync(0xffffffffu, sum);  // modulo 2^32
            if ((threadIdx.x & 31) == 0) atomicAdd(row_sums + y, sum);
        } else {
            plane_sum += e2;
        }
    }
    if constexpr (sizeof(Sample) != 1) {
        plane_sum = gpu::warp_sum_u64(plane_sum);
        if ((threadIdx.x & 31) == 0) atomicAdd(sse, plane_sum);
    }
}

/// *sse = the sum in 64 bits of row_sums[0 .. rows). One block of kRowsThreads threads.
__global__ void __launch_bounds__(kRowsThreads)
    rows_kernel(const unsigned* __restrict__ row_sums, int rows, unsigned long long* __restrict__ sse) {
    __shared__ unsigned long long warp_sums[kRowsThreads / 32];
    unsigned long long sum = 0;
    for (int r = static_cast<int>(threadIdx.x); r < rows; r += kRowsThreads) sum += row_sums[r];
    sum = gpu::warp_sum_u64(sum);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = warp_sums[threadIdx.x];
        sum = gpu::warp_sum_u64(sum);
        if (threadIdx.x == 0) *sse = sum;
    }
}

class PsnrTwin final : public GpuTwin {
public:
    PsnrTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(plant), scorer_(options, format), sums_(slots),
          host_sums_(slots), frames_("psnr", slots) {
        for (int p = 0; p < 3; ++p) {
            row_offset_[p] = rows_per_slot_;
            rows_per_slot_ += static_cast<std::size_t>(format.plane_height(p));
        }
        if (format.bit_depth == 8) row_sums_ = cuda::DeviceBuffer<unsigned>(rows_per_slot_ * slots);
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {

        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        PlaneSums* sums = sums_.get() + slot;
        cuda::check(cudaMemsetAsync(sums, 0, sizeof(PlaneSums), stream), "cudaMemsetAsync");
        unsigned* row_sums = format_.bit_depth == 8 ? row_sums_.get() + rows_per_slot_ * slot : nullptr;
        if (row_sums)
            cuda::check(cudaMemsetAsync(row_sums, 0, rows_per_slot_ * sizeof(unsigned), stream), "cudaMemsetAsync");
        for (int p = 0; p < scorer_.planes(); ++p) {
            const DevicePlane& ref = f.ref.planes[p];
            const DevicePlane& dist = f.dist.planes[p];
            if (!ref.data || !dist.data) throw Error("psnr (CUDA): plane " + std::to_string(p) + " is missing");
            add_sse(ref, dist, p, row_sums ? row_sums + row_offset_[p] : nullptr, sums, stream);
        }
        cuda::check(cudaMemcpyAsync(host_sums_.get() + slot, sums, sizeof(PlaneSums), cudaMemcpyDeviceToHost, stream),
                    "copying the psnr sums to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        scorer_.score_device_sums(host_sums_[slot], plant_ == PlantedDefect::kReductionOrder, out);
    }

    void flush(ScoreTable& table) const override { scorer_.flush(table); }

private:
    void add_sse(const DevicePlane& ref, const DevicePlane& dist, int p, unsigned* row_sums, PlaneSums* sums,
                 cudaStream_t stream) const {
        const int width = format_.plane_width(p), height = format_.plane_height(p);
        if (width <= 0 || height <= 0) return;
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(width) * format_.bytes_per_sample();
        if (ref.pitch < row_bytes || dist.pitch < row_bytes) throw Error("psnr (CUDA): a pitch below the row");
        const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(width), kThreads),
                        static_cast<unsigned>(std::min(height, kMaxGridRows)));
        const bool shift = plant_ == PlantedDefect::kMirrorShift;
        float* planted = plant_ == PlantedDefect::kReductionOrder ? &sums->planted[p] : nullptr;
        const auto* r = static_cast<const unsigned char*>(ref.data);
        const auto* d = static_cast<const unsigned char*>(dist.data);
        if (format_.bit_depth == 8) {
            sse_kernel<std::uint8_t><<<grid, kThreads, 0, stream>>>(r, ref.pitch, d, dist.pitch, width, height, row_sums,
                                                                    &sums->sse[p], shift, planted);
            cuda::check_launch("psnr sse_kernel");
            rows_kernel<<<1, kRowsThreads, 0, stream>>>(row_sums, height, &sums->sse[p]);
            cuda::check_launch("psnr rows_kernel");
        } else {
            sse_kernel<std::uint16_t><<<grid, kThreads, 0, stream>>>(r, ref.pitch, d, dist.pitch, width, height, row_sums,
                                                                     &sums->sse[p], shift, planted);
            cuda::check_launch("psnr sse_kernel");
        }
    }

    VideoFormat format_;
    PlantedDefect plant_;
    psnr::Scorer scorer_;
    std::size_t row_offset_[3] = {};
    std::size_t rows_per_slot_ = 0;
    cuda::DeviceBuffer<PlaneSums> sums_;      // per slot
    cuda::PinnedBuffer<PlaneSums> host_sums_;  // per slot
    cuda::DeviceBuffer<unsigned> row_sums_;   // per slot: every plane's rows (8 bits only)
    cuda::SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kReductionOrder};

}  // namespace

namespace psnr {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "psnr",
    make_twin<PsnrTwin>,
    {exact_bound,
     "bound 0 at every format and option: the device path is integer arithmetic only. Each sample pair's "
     "squared error is the CPU's own function (psnr_math.hpp); at 8 bits each row's uint32 sum is formed as "
     "the CPU's (addition modulo 2^32, order-free) and the rows are summed in 64 bits, above 8 bits the plane is "
     "summed in 64 bits (exact, order-free), for every plane the options score (chroma at its subsampled size). "
     "Every double (MSE, PSNR and its caps, the apsnr aggregates) is formed on the host by the CPU's own "
     "psnr::Scorer from these exact sums"},
    kDefects,
    "integer arithmetic only on the device",
};

}  // namespace psnr

}  // namespace vmafx
