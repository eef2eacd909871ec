// CUDA twin of psnr_hvs (psnr_hvs.cpp), bit-identical to it on every frame.
//
// Per frame, on the frame's stream:
//  1. terms_kernel, once per plane with at least one 8x8 block: one thread per block (blocks at
//     x, y = 0, 7, 14, ... while x + 7 < width, y + 7 < height, the CPU's grid) loads the
//     block's 8x8 reference and distorted samples (math::grid_block_terms, which the host tests
//     run too) and calls the CPU's own per-block arithmetic
//     (psnr_hvs::math::block_terms, psnr_hvs_math.hpp: the integer DCT with explicit 32-bit
//     wraps, the float variance ratios and masking levels, the double square root, the 64
//     float terms (err * csf)^2) into shared memory, from where the thread block stores its
//     blocks' terms, coalesced, DC included and zeros included, to
//     terms[64 * (by * blocks_x + bx) + 8 * i + j] (register-resident: no stack, no spills,
//     about 240 registers, ptxas -v, sm_90): the plane's row of terms is
//     in the CPU's summation order (blocks in raster order, coefficients row-major). The
//     tables (csf, mask) are the CPU's plane_tables(), copied to the device once and staged in
//     shared memory per thread block.
//  2. gpu::SequentialSum<float> reproduces, from the rows of terms, the CPU's running float sum
//     of each plane bit for bit (luma one row, Cb and Cr a batch of two rows of equal length);
//     the terms are never read back to the host.
//  3. the three float sums are copied to the slot's pinned host memory; finish() forms the
//     scores with the CPU's own code: finish_plane_score (the float divisions by 64 * blocks and
//     by (2^bpc - 1)^2; 0 / 0 = NaN for a plane without a block, as the CPU) and Outputs::write
//     (10 * -log10 in double, the combined score).
// Every rounding of a term is the CPU's source compiled for the device with --fmad=false
// -prec-div=true -prec-sqrt=true -ftz=false (no contraction, correctly rounded float division,
// no flush of subnormals; the double sqrt is correctly rounded on the device anyway), the int32
// arithmetic wraps through uint32 as on the CPU, and the sum is the CPU's sum, so the scores
// are the CPU's bits.
// Upstream: libvmaf 3.2.0 src/feature/third_party/xiph/psnr_hvs.c.
//
// Planted regressions (tests of the parity gate only; the twin's plant_, fixed at creation):
//  kContraction:    the steps of the variance sums (gvar + dg * dg, vars + dq * dq) and of the
//                   masking energy (energy + float(c * c) * mask) become one fused multiply-add
//                   each (math::planted's variance_ratio and masking: psnr_hvs_block.inc under its
//                   contraction policy, psnr_hvs_twin.hpp), in terms_kernel<_, true>.
//                   They move the masking level, which reaches a term only where a coefficient's
//                   error exceeds its threshold: on the gate's random inputs it changes 4 of the
//                   48 outputs (psnr_hvs_cuda_test.cpp runs the same code on the host);
//  kMirrorShift:    each block's last row is read one row up (row y + 6 instead of y + 7), in
//                   terms_kernel;
//  kReductionOrder: the plane sums are a plain parallel float reduction (plain_sum_kernel:
//                   strided per-thread sums, then a shared-memory tree) instead of
//                   SequentialSum's reproduction of the CPU's order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "feature/psnr_hvs/psnr_hvs.hpp"
#include "feature/psnr_hvs/psnr_hvs_twin.hpp"
#include "cuda/sequential_sum.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

using psnr_hvs::PlaneTables;

/// Threads per block of terms_kernel (one 8x8 block of the plane each).
constexpr unsigned kTermsThreads = 128;
/// Threads of plain_sum_kernel's blocks (the planted kReductionOrder only).
constexpr unsigned kPlainSumThreads = 256;
constexpr int kTableWords = static_cast<int>(sizeof(PlaneTables) / sizeof(float));
static_assert(sizeof(PlaneTables) == 128 * sizeof(float));

/// Words per block in terms_kernel's shared staging: 64 terms and one word of padding, so that
/// the 32 threads of a warp writing their k-th term hit 32 different banks.
constexpr int kStagePitch = 65;

/// The 64 terms of every 8x8 block of one plane pair. Grid: blocks_for(blocks_x * blocks_y,
/// kTermsThreads); block: kTermsThreads. `ref` / `dist`: planes of Sample words (uint8_t at 8
/// bits, uint16_t above), rows ref_pitch / dist_pitch bytes apart, at least 7 * blocks_x + 1
/// columns and 7 * blocks_y + 1 rows. `tables`: the plane's PlaneTables in device memory.
/// Writes terms[64 * (by * blocks_x + bx) + k], k = 8 * i + j, for every block (bx, by): each
/// thread computes one block's terms into shared memory, then the thread block stores its
/// blocks' terms (a contiguous range of the row) with coalesced writes.
/// kPlantContraction / plant_mirror_shift: the planted kContraction (a template argument, so
/// that the kernels of normal runs have no trace of it) / kMirrorShift (false outside the parity
/// gate's tests).
template <typename Sample, bool kPlantContraction>
__global__ void __launch_bounds__(kTermsThreads)
    terms_kernel(const unsigned char* __restrict__ ref, std::ptrdiff_t ref_pitch,
                 const unsigned char* __restrict__ dist, std::ptrdiff_t dist_pitch, int blocks_x, int blocks_y,
                 const PlaneTables* __restrict__ tables, float* __restrict__ terms, bool plant_mirror_shift) {
    __shared__ PlaneTables table;
    __shared__ float stage[kTermsThreads * kStagePitch];
    for (int k = static_cast<int>(threadIdx.x); k < kTableWords; k += static_cast<int>(blockDim.x))
        reinterpret_cast<float*>(&table)[k] = reinterpret_cast<const float*>(tables)[k];
    __syncthreads();

    const std::size_t blocks = static_cast<std::size_t>(blocks_x) * static_cast<std::size_t>(blocks_y);
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kTermsThreads;
    const std::size_t block = first + threadIdx.x;
    if (block < blocks)
        psnr_hvs::math::grid_block_terms<Sample, kPlantContraction>(ref, ref_pitch, dist, dist_pitch, blocks_x, block,
                                                                    table, stage + kStagePitch * threadIdx.x,
                                                                    plant_mirror_shift);
    __syncthreads();
    // This thread block's blocks, first .. first + count - 1: their terms are contiguous in `terms`.
    const std::size_t count = blocks - first < kTermsThreads ? blocks - first : kTermsThreads;
    float* out = terms + 64 * first;
    for (std::size_t k = threadIdx.x; k < 64 * count; k += kTermsThreads)
        out[k] = stage[kStagePitch * (k / 64) + k % 64];
}

/// The planted kReductionOrder (parity-gate tests only): out[b] = the terms of row b
/// (terms[b * pitch + i], i < n) summed in float in another order than the CPU's: thread t adds
/// terms t, t + kPlainSumThreads, ..., then a shared-memory tree adds the threads' sums.
/// Grid: batch; block: kPlainSumThreads.
__global__ void __launch_bounds__(kPlainSumThreads)
    plain_sum_kernel(const float* __restrict__ terms, std::size_t n, std::size_t pitch, float* __restrict__ out) {
    __shared__ float partial[kPlainSumThreads];
    const float* row = terms + blockIdx.x * pitch;
    float sum = 0;
    for (std::size_t i = threadIdx.x; i < n; i += kPlainSumThreads) sum += row[i];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned stride = kPlainSumThreads / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

/// The GPU twin: per slot, the device terms of the three planes (luma, then Cb, then Cr, each
/// 64 per block), a SequentialSum, the three device sums and their pinned host copy.
class PsnrHvsTwin final : public GpuTwin {
public:
    PsnrHvsTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(plant), plan_(format, "psnr_hvs (CUDA)"), outputs_(options),
          frames_("psnr_hvs", slots) {
        terms_ = cuda::DeviceBuffer<float>(plan_.slot_terms() * slots);
        sums_ = cuda::DeviceBuffer<float>(3 * static_cast<std::size_t>(slots));
        host_sums_ = cuda::PinnedBuffer<float>(3 * static_cast<std::size_t>(slots));
        const std::size_t max_terms = std::max<std::size_t>({plan_.terms(0), plan_.terms(1), 1});
        for (unsigned k = 0; k < slots; ++k)
            sequential_.push_back(std::make_unique<gpu::SequentialSum<float>>(max_terms, 2));

        // The CPU's tables, once; then wait for the copy (a copy from pageable memory may return
        // before its DMA ends, and the twin's streams do not synchronize with the default one).
        PlaneTables tables[3];
        for (int p = 0; p < 3; ++p) tables[p] = psnr_hvs::plane_tables(p);
        tables_ = cuda::DeviceBuffer<PlaneTables>(3);
        cuda::check(cudaMemcpy(tables_.get(), tables, sizeof tables, cudaMemcpyHostToDevice),
                    "copying the psnr_hvs tables");
        cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {

        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        float* terms = terms_.get() + static_cast<std::size_t>(slot) * plan_.slot_terms();
        float* plane_terms[3] = {terms + plan_.offset(0), terms + plan_.offset(1), terms + plan_.offset(2)};
        for (int p = 0; p < 3; ++p) {
            const DevicePlane& r = f.ref.planes[p];
            const DevicePlane& d = f.dist.planes[p];
            if (!r.data || !d.data)
                throw Error("psnr_hvs (CUDA): frame " + std::to_string(f.index) + " lacks plane " + std::to_string(p));
            if (plan_.terms(p) == 0) continue;  // no block: the sum is 0 (SequentialSum's n == 0)
            plan_.check_pitch(r.pitch, p);
            plan_.check_pitch(d.pitch, p);
            const std::size_t blocks = plan_.terms(p) / 64;
            const unsigned grid = cuda::blocks_for(blocks, kTermsThreads);
            const auto* rp = static_cast<const unsigned char*>(r.data);
            const auto* dp = static_cast<const unsigned char*>(d.data);
            const bool shift = plant_ == PlantedDefect::kMirrorShift;
            auto* kernel = format_.bit_depth == 8
                               ? (plant_ == PlantedDefect::kContraction ? terms_kernel<std::uint8_t, true>
                                                                        : terms_kernel<std::uint8_t, false>)
                               : (plant_ == PlantedDefect::kContraction ? terms_kernel<std::uint16_t, true>
                                                                        : terms_kernel<std::uint16_t, false>);
            kernel<<<grid, kTermsThreads, 0, stream>>>(rp, r.pitch, dp, d.pitch, plan_.blocks_x(p), plan_.blocks_y(p),
                                                       tables_.get() + p, plane_terms[p], shift);
            cuda::check_launch("psnr_hvs terms_kernel");
        }
        float* sums = sums_.get() + 3 * static_cast<std::size_t>(slot);
        if (plant_ == PlantedDefect::kReductionOrder) {
            // Planted regression (parity-gate tests only): a plain parallel float sum.
            plain_sum_kernel<<<1, kPlainSumThreads, 0, stream>>>(plane_terms[0], plan_.terms(0), plan_.terms(0),
                                                                 sums);
            cuda::check_launch("psnr_hvs plain_sum_kernel");
            plain_sum_kernel<<<2, kPlainSumThreads, 0, stream>>>(plane_terms[1], plan_.terms(1), plan_.terms(1),
                                                                 sums + 1);
            cuda::check_launch("psnr_hvs plain_sum_kernel");
        } else {
            // The CPU's running sums: luma, then Cb and Cr as a batch of two rows.
            sequential_[slot]->enqueue(plane_terms[0], plan_.terms(0), plan_.terms(0), 1, sums, stream);
            sequential_[slot]->enqueue(plane_terms[1], plan_.terms(1), plan_.terms(1), 2, sums + 1, stream);
        }
        cuda::check(cudaMemcpyAsync(host_sums_.get() + 3 * static_cast<std::size_t>(slot), sums, 3 * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying the psnr_hvs sums to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        plan_.write_scores(host_sums_.get() + 3 * static_cast<std::size_t>(slot), outputs_, out);
    }

private:
    VideoFormat format_;
    PlantedDefect plant_;
    psnr_hvs::TwinPlan plan_;
    psnr_hvs::Outputs outputs_;
    cuda::DeviceBuffer<PlaneTables> tables_;   // plane_tables(0..2)
    cuda::DeviceBuffer<float> terms_;          // slots x plan_.slot_terms()
    cuda::DeviceBuffer<float> sums_;           // slots x 3
    cuda::PinnedBuffer<float> host_sums_;      // slots x 3
    std::vector<std::unique_ptr<gpu::SequentialSum<float>>> sequential_;  // per slot
    cuda::SlotFrames frames_;
};

/// What this twin can plant (see the file's head).
constexpr PlantedDefect kDefects[] = {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                      PlantedDefect::kReductionOrder};

}  // namespace

namespace psnr_hvs {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "psnr_hvs",
    make_twin<PsnrHvsTwin>,
    {exact_bound,
     "bound 0 at every format (8 to 12 bits, every subsampling, every size; planes narrower or lower than 8 have "
     "no block and give the CPU's 0 / 0 = NaN). Each block's 64 terms are computed on the device by the CPU's own "
     "source (psnr_hvs_math.hpp: block_terms, with the int32 DCT wrapping through uint32 as on the CPU, the float "
     "variance ratios, masking energies, thresholds and squares in the CPU's operation order, the square root in "
     "double), compiled with --fmad=false -prec-div=true -prec-sqrt=true -ftz=false: every product and sum rounds "
     "once to float as on the CPU (built with -ffp-contract=off), the divisions are correctly rounded, no subnormal "
     "is flushed, and the double sqrt is IEEE on both; so each term is the CPU's float. The terms of a plane are "
     "stored in the CPU's summation order (blocks in raster order, 64 coefficients row-major, DC and zero terms "
     "included) and gpu::SequentialSum<float> returns the CPU's running float sum of them bit for bit (no bound: "
     "an exact reproduction of the sequential rounding). The float divisions by 64 * blocks and by "
     "(2^bpc - 1)^2, the double 10 * -log10 and the combined score are the CPU's own host functions "
     "(finish_plane_score, Outputs::write), run on the host in finish(). The contraction, mirror-shift and "
     "reduction-order defects are planted in terms_kernel and in the plane sums"},
    kDefects,
    nullptr,
};

}  // namespace psnr_hvs

}  // namespace vmafx
