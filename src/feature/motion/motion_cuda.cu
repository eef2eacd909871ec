// CUDA twin of the integer MOTION metric (motion.cpp), bit-identical to it on every frame.
//
// Per scored frame, two kernels on the frame's stream:
//  1. row_sums_kernel: a warp blurs a strip of kStripColumns columns and kTileRows rows of the
//     difference prev - cur. Each lane holds kLaneColumns adjacent columns (one vector load
//     per plane and row) and streams the tile's input rows through once, keeping the last five
//     rows of differences in registers for the vertical pass; the horizontal pass takes its
//     2-column halo from the neighbouring lanes (shuffles; the strip's first and last lanes
//     hold halo only). It sums |blurred difference| over each row (warp reductions, then the
//     block's warps in shared memory) and adds the sums into the rows' uint32 sums with
//     atomicAdd. All of it wraps modulo 2^32, so each row's sum equals the CPU's row_sad()
//     whatever the order of the terms;
//  2. total_kernel: adds the row sums in 64 bits into the frame's total (as the CPU does) and
//     zeroes them for the slot's next frame.
// The total is copied to the slot's pinned host word; finish() turns it into the sad score with
// the CPU's own host code (motion::Settings), and flush() is the CPU's flush. Frames the CPU
// does not score from pictures (before the first with a previous reference, or all with
// motion_force_zero) enqueue nothing and get the CPU's 0.
// Per-sample arithmetic: motion_math.hpp, shared with the CPU. Upstream: integer_motion.c.
//
// Planted regressions (tests of the parity gate only; the twin's plant_, fixed at creation):
//  kMirrorShift:      the vertical pass mirrors the rows above the top edge one row off (-k reads
//                     row k + 1), in row_sums_kernel;
//  kRoundingConstant: the vertical pass rounds with 2^(bit_depth - 2) instead of 2^(bit_depth - 1)
//                     (planted_vertical_blur, the twin's own mutant of motion::vertical_blur_8/_16;
//                     the CPU's math has no test-only parameter), in row_sums_kernel.
// No kContraction: the device path has no floating-point operation at all (integer taps, shifts
// and sums), so there is no a*b+c a compiler could fuse; no kReductionOrder: every sum is an
// integer sum modulo 2^32 or 2^64 (order-free), and a row's sum of |blurred difference| (each
// below 2^16) reaches 2^32 only past 65536 columns, so neither another order nor 64-bit row
// sums would change a value.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/warp_sum.cuh"
#include "gpu/twin.hpp"
#include "feature/motion/motion.hpp"
#include "feature/motion/motion_math.hpp"

namespace vmafx {

namespace {

using motion::kRadius;

/// Columns of the vertical pass per lane: one 32-bit (8-bit samples) or 64-bit (above) load.
constexpr int kLaneColumns = 4;
/// A warp's strip: 32 lanes of kLaneColumns columns, of which lanes 1..30 own the outputs and
/// lanes 0 and 31 only give their neighbours the kRadius columns of halo.
constexpr int kStripColumns = (32 - 2) * kLaneColumns;
static_assert(kRadius <= kLaneColumns, "one neighbouring lane holds the whole halo");
/// Warps (strips side by side) per block of row_sums_kernel, and its threads.
constexpr int kWarps = 4;
constexpr int kBlockThreads = 32 * kWarps;
/// Output rows of a tile: a lane streams kTileRows + 2 * kRadius input rows through once.
constexpr int kTileRows = 16;
/// Threads of the single block of total_kernel (32 warps).
constexpr int kTotalThreads = 1024;

/// Row `row` of a plane, rows `pitch` bytes apart.
template <typename Sample>
__device__ inline const Sample* row_of(const unsigned char* plane, int pitch, int row) {
    return reinterpret_cast<const Sample*>(plane + static_cast<std::ptrdiff_t>(row) * pitch);
}

/// The differences prev - cur of one row at the lane's kLaneColumns columns x .. x + 3: one
/// aligned vector load per plane where `vector` (the four columns inside the row, planes and
/// pitches aligned to the vector), else one load per column at its mirrored column (columns
/// beyond the halo, which no output reads, read column 0).
template <typename Sample>
__device__ inline void load_differences(const unsigned char* prev, int prev_pitch, const unsigned char* cur,
                                        int cur_pitch, int row, int x, int width, bool vector,
                                        std::int32_t (&d)[kLaneColumns]) {
    const Sample* p = row_of<Sample>(prev, prev_pitch, row);
    const Sample* c = row_of<Sample>(cur, cur_pitch, row);
    if (vector) {
        if constexpr (sizeof(Sample) == 1) {
            const std::uint32_t pv = __ldg(reinterpret_cast<const std::uint32_t*>(p + x));
            const std::uint32_t cv = __ldg(reinterpret_cast<const std::uint32_t*>(c + x));
#pragma unroll
            for (int q = 0; q < kLaneColumns; ++q)
                d[q] = motion::sample_difference(static_cast<Sample>(pv >> (8 * q)),
                                                         static_cast<Sample>(cv >> (8 * q)));
        } else {
            const uint2 pv = __ldg(reinterpret_cast<const uint2*>(p + x));
            const uint2 cv = __ldg(reinterpret_cast<const uint2*>(c + x));
            const std::uint32_t pw[2] = {pv.x, pv.y}, cw[2] = {cv.x, cv.y};
#pragma unroll
            for (int q = 0; q < kLaneColumns; ++q)
                d[q] = motion::sample_difference(static_cast<Sample>(pw[q / 2] >> (16 * (q % 2))),
                                                         static_cast<Sample>(cw[q / 2] >> (16 * (q % 2))));
        }
        return;
    }
#pragma unroll
    for (int q = 0; q < kLaneColumns; ++q) {
        const int column = x + q < -kRadius || x + q >= width + kRadius ? 0 : motion::mirror(x + q, width);
        d[q] = motion::sample_difference(__ldg(p + column), __ldg(c + column));
    }
}

/// The planted kRoundingConstant (parity-gate tests only): motion::vertical_blur with half its
/// rounding constant, 2^(bit_depth - 2), on the shared tap sums.
template <typename Sample>
__device__ std::int32_t planted_vertical_blur(std::int32_t d0, std::int32_t d1, std::int32_t d2, std::int32_t d3,
                                              std::int32_t d4, int bit_depth) {
    if constexpr (sizeof(Sample) == 1)
        return (motion::vertical_taps_8(d0, d1, d2, d3, d4) + (std::int32_t{1} << (bit_depth - 2))) >> bit_depth;
    else
        return static_cast<std::int32_t>(
            (motion::vertical_taps_16(d0, d1, d2, d3, d4) + (std::int64_t{1} << (bit_depth - 2))) >> bit_depth);
}

/// Adds one tile's row sums into `row_sums`. Grid: (ceil(strips / kWarps), ceil(height /
/// kTileRows)) with strips = ceil(width / kStripColumns); block: kBlockThreads threads, warp w of
/// block (bx, by) the strip kWarps * bx + w. `prev` and `cur`: width x height luma planes (Sample
/// words, rows prev_pitch / cur_pitch bytes apart), width and height >= kRadius + 1; `aligned`:
/// both planes and pitches are multiples of kLaneColumns samples. Lane l of strip s holds the
/// columns x = s * kStripColumns - kLaneColumns + kLaneColumns * l .. x + 3 (outside [0, width)
/// the mirrored columns, as the CPU's horizontal pass reads them) and streams the tile's input
/// rows row0 - kRadius .. row0 + kTileRows + kRadius - 1 (mirrored) through a window of five
/// rows of differences in registers; each vertical result's horizontal neighbours come from the
/// next lanes (shuffles). For each row of the tile, row_sums[row] += sum over the strip's output
/// columns of |blur(prev - cur)|, modulo 2^32. plant_mirror_shift / plant_half_rounding: the
/// planted kMirrorShift / kRoundingConstant (false outside the parity gate's tests).
template <typename Sample>
__global__ void __launch_bounds__(kBlockThreads)
    row_sums_kernel(const unsigned char* __restrict__ prev, int prev_pitch, const unsigned char* __restrict__ cur,
                    int cur_pitch, int width, int height, int bit_depth, bool aligned,
                    std::uint32_t* __restrict__ row_sums, bool plant_mirror_shift, bool plant_half_rounding) {
    constexpr int kTaps = 2 * kRadius + 1;
    __shared__ std::uint32_t warp_sums[kTileRows][kWarps];

    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int strip = static_cast<int>(blockIdx.x) * kWarps + warp;
    const int x = strip * kStripColumns - kLaneColumns + kLaneColumns * lane;
    const int row0 = static_cast<int>(blockIdx.y) * kTileRows;
    const int rows = height - row0 < kTileRows ? height - row0 : kTileRows;
    // Whether any output of this strip lies in the row (the warp's branches are uniform).
    const bool strip_in_row = strip * kStripColumns < width;
    const bool vector = aligned && x >= 0 && x + kLaneColumns <= width;
    const bool owns_outputs = lane >= 1 && lane <= 30;

    std::int32_t window[kTaps][kLaneColumns] = {};  // differences of the last kTaps input rows
#pragma unroll
    for (int m = 0; m < kTileRows + 2 * kRadius; ++m) {
        // Input row row0 - kRadius + m; rows beyond row0 + rows + kRadius - 1 are read by no output.
        if (!strip_in_row || m >= rows + 2 * kRadius) break;
#pragma unroll
        for (int k = 0; k + 1 < kTaps; ++k)
#pragma unroll
            for (int q = 0; q < kLaneColumns; ++q) window[k][q] = window[k + 1][q];
        int r = motion::mirror(row0 - kRadius + m, height);
        // Planted regression (parity-gate tests only): the top border mirror off by one.
        if (plant_mirror_shift && row0 - kRadius + m < 0) r += 1;
        load_differences<Sample>(prev, prev_pitch, cur, cur_pitch, r, x, width, vector, window[kTaps - 1]);
        if (m < 2 * kRadius) continue;

        // Output row i = m - 2 kRadius: vertical blur at the lane's columns, then horizontal.
        const int i = m - 2 * kRadius;
        std::int32_t v[kLaneColumns + 2 * kRadius];  // columns x - 2 .. x + 5
#pragma unroll
        for (int q = 0; q < kLaneColumns; ++q)
            v[kRadius + q] = plant_half_rounding
                                 ? planted_vertical_blur<Sample>(window[0][q], window[1][q], window[2][q],
                                                                 window[3][q], window[4][q], bit_depth)
                                 : motion::vertical_blur<Sample>(window[0][q], window[1][q], window[2][q],
                                                                 window[3][q], window[4][q], bit_depth);
#pragma unroll
        for (int k = 0; k < kRadius; ++k) {
            v[k] = __shfl_up_sync(0xffffffffu, v[kLaneColumns + k], 1);
            v[kRadius + kLaneColumns + k] = __shfl_down_sync(0xffffffffu, v[kRadius + k], 1);
        }
        std::uint32_t sum = 0;
        if (owns_outputs) {
            const int lane_end = motion::lane_columns_end(width);
#pragma unroll
            for (int q = 0; q < kLaneColumns; ++q) {
                const int column = x + q;
                if (column >= width) break;
                const std::int32_t* y = v + q;
                sum += motion::magnitude(column >= 2 && column < lane_end
                                             ? motion::horizontal_blur_lane(y[0], y[1], y[2], y[3], y[4])
                                             : motion::horizontal_blur_exact(y[0], y[1], y[2], y[3], y[4]));
            }
        }
        sum = __reduce_add_sync(0xffffffffu, sum);  // modulo 2^32
        if (lane == 0) warp_sums[i][warp] = sum;
    }
    if (!strip_in_row && lane == 0)
        for (int i = 0; i < kTileRows; ++i) warp_sums[i][warp] = 0;
    __syncthreads();

    const int t = static_cast<int>(threadIdx.x);
    if (t < rows) {
        std::uint32_t sum = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) sum += warp_sums[t][w];
        atomicAdd(&row_sums[row0 + t], sum);  // modulo 2^32
    }
}

/// The frame's total: the uint32 sums of the `height` rows in row_sums, added in 64 bits
/// (the CPU's sad), written to *total; zeroes row_sums for the next frame. One block of
/// kTotalThreads threads.
__global__ void __launch_bounds__(kTotalThreads)
    total_kernel(std::uint32_t* __restrict__ row_sums, int height, unsigned long long* __restrict__ total) {
    __shared__ unsigned long long warp_totals[kTotalThreads / 32];
    const int t = static_cast<int>(threadIdx.x);
    unsigned long long acc = 0;
    for (int r = t; r < height; r += kTotalThreads) {
        acc += row_sums[r];
        row_sums[r] = 0;
    }
    acc = gpu::warp_sum_u64(acc);
    if (t % 32 == 0) warp_totals[t / 32] = acc;
    __syncthreads();
    if (t < 32) {
        acc = warp_totals[t];
        acc = gpu::warp_sum_u64(acc);
        if (t == 0) *total = acc;
    }
}

/// The GPU twin: per slot, the device row sums (zero between frames) and total, and a pinned
/// host copy of the total.
class MotionTwin final : public GpuTwin {
public:
    MotionTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format),
          plant_(plant),
          settings_(options),
          row_sums_(static_cast<std::size_t>(slots) * static_cast<std::size_t>(format.height)),
          totals_(slots),
          host_totals_(slots),
          frames_("motion", slots),
          slot_scored_(slots, false) {
        // Zero once (and wait: the twin's streams may not synchronize with the default one);
        // total_kernel leaves them zero after each frame.
        cuda::check(cudaMemset(row_sums_.get(), 0, row_sums_.size() * sizeof(std::uint32_t)), "cudaMemset");
        cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {

        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        slot_scored_[slot] = settings_.scores_frame(f.index);
        if (!slot_scored_[slot]) return;  // frame 0 (0 and 1 with the five-frame window), force zero
        const DevicePlane& prev = f.prev_ref[settings_.first_scored_index() - 1].luma();
        const DevicePlane& cur = f.ref.luma();
        if (!prev.data || !cur.data)
            throw Error("motion (CUDA): frame " + std::to_string(f.index) + " needs the reference luma of frames " +
                        std::to_string(f.index - settings_.first_scored_index()) + " and " +
                        std::to_string(f.index));

        const bool mirror_shift = plant_ == PlantedDefect::kMirrorShift;
        const bool half_rounding = plant_ == PlantedDefect::kRoundingConstant;
        std::uint32_t* row_sums = row_sums_.get() + static_cast<std::size_t>(slot) * format_.height;
        const std::size_t strips = cuda::blocks_for(static_cast<std::size_t>(format_.width), kStripColumns);
        const dim3 grid(cuda::blocks_for(strips, kWarps),
                        cuda::blocks_for(static_cast<std::size_t>(format_.height), kTileRows));
        const auto* prev_data = static_cast<const unsigned char*>(prev.data);
        const auto* cur_data = static_cast<const unsigned char*>(cur.data);
        const int prev_pitch = checked_pitch(prev.pitch), cur_pitch = checked_pitch(cur.pitch);
        // The lanes' vector loads need planes and pitches aligned to kLaneColumns samples.
        const auto vector_aligned = [&](const unsigned char* data, int pitch) {
            const std::size_t vector_bytes = kLaneColumns * format_.bytes_per_sample();
            return reinterpret_cast<std::uintptr_t>(data) % vector_bytes == 0 &&
                   static_cast<std::size_t>(pitch) % vector_bytes == 0;
        };
        const bool aligned = vector_aligned(prev_data, prev_pitch) && vector_aligned(cur_data, cur_pitch);
        if (format_.bit_depth == 8)
            row_sums_kernel<std::uint8_t><<<grid, kBlockThreads, 0, stream>>>(
                prev_data, prev_pitch, cur_data, cur_pitch, format_.width, format_.height, 8, aligned, row_sums,
                mirror_shift, half_rounding);
        else
            row_sums_kernel<std::uint16_t><<<grid, kBlockThreads, 0, stream>>>(
                prev_data, prev_pitch, cur_data, cur_pitch, format_.width, format_.height, format_.bit_depth,
                aligned, row_sums, mirror_shift, half_rounding);
        cuda::check_launch("motion row_sums_kernel");
        total_kernel<<<1, kTotalThreads, 0, stream>>>(row_sums, format_.height, totals_.get() + slot);
        cuda::check_launch("motion total_kernel");
        cuda::check(cudaMemcpyAsync(host_totals_.get() + slot, totals_.get() + slot, sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying the motion sum to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        settings_.write_device_frame(slot_scored_[slot], static_cast<std::uint64_t>(host_totals_[slot]), format_.width,
                                     format_.height, out);
    }

    void flush(ScoreTable& table) const override { settings_.flush(table); }

private:
    /// `pitch` as the kernel takes it; throws Error unless it holds a row and fits an int.
    int checked_pitch(std::ptrdiff_t pitch) const {
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
        if (pitch < row_bytes || pitch > std::numeric_limits<int>::max())
            throw Error("motion (CUDA): luma pitch " + std::to_string(pitch) + " bytes is not usable for rows of " +
                        std::to_string(row_bytes) + " bytes");
        return static_cast<int>(pitch);
    }

    VideoFormat format_;
    PlantedDefect plant_;
    motion::Settings settings_;
    cuda::DeviceBuffer<std::uint32_t> row_sums_;        // slots x height, zero between frames
    cuda::DeviceBuffer<unsigned long long> totals_;     // per slot
    cuda::PinnedBuffer<unsigned long long> host_totals_;  // per slot
    cuda::SlotFrames frames_;  // frame enqueued in each slot
    std::vector<bool> slot_scored_;     // whether that frame is scored from pictures
};

/// What this twin can plant (see the file's head): no contraction, as its device code has no
/// floating point.
constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant};

}  // namespace

namespace motion {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "motion",
    make_twin<MotionTwin>,
    {exact_bound,
     "bound 0 at every format: the device path is integer arithmetic only. The per-sample blur is the CPU's own "
     "code (motion_math.hpp: same taps, mirrors, rounding shifts and 32-bit lane wraps at every bit depth 8..16 "
     "and size); each row's uint32 sum is formed as the CPU's (addition modulo 2^32, order-free), the rows are "
     "summed in 64 bits (order-free), and the double score is formed on the host by the CPU's own code "
     "(motion::Settings::sad_score). No floating-point operation runs on the device, so there is no a*b+c a "
     "compiler could contract: a contraction defect cannot be planted (none declared); the rounding-constant "
     "and mirror-shift defects are planted in row_sums_kernel"},
    kDefects,
    "integer arithmetic only on the device",
};

}  // namespace motion

}  // namespace vmafx
