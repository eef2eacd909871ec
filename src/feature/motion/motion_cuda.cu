// CUDA twin of the integer MOTION metric (motion.cpp), bit-identical to it on every frame.
//
// Per scored frame, two kernels on the frame's stream:
//  1. row_sums_kernel: a block blurs a tile of kTileRows rows x kTileColumns columns of the
//     difference prev - cur (vertical pass in registers from coalesced loads, then the
//     horizontal pass from a shared-memory row of the vertical results with a 2-column halo on
//     each side), sums |blurred difference| over each of its rows (warp reductions) and adds
//     these sums into the rows' uint32 sums with atomicAdd. All of it wraps modulo 2^32, so each
//     row's sum equals the CPU's row_sad() whatever the order of the terms;
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
//                     (motion::vertical_blur's halve_rounding), in row_sums_kernel.
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
#include "gpu/twin.hpp"
#include "feature/motion/motion.hpp"
#include "feature/motion/motion_math.hpp"

namespace vmafx {

namespace {

using motion::kRadius;

/// Threads per block of row_sums_kernel: each runs the vertical pass of one column of the tile
/// and its halo.
constexpr int kBlockThreads = 256;
/// Output columns of a tile (the other 2 * kRadius threads compute the halo).
constexpr int kTileColumns = kBlockThreads - 2 * kRadius;
/// Output rows of a tile.
constexpr int kTileRows = 8;
constexpr int kWarps = kBlockThreads / 32;
/// Threads of the single block of total_kernel (32 warps).
constexpr int kTotalThreads = 1024;

/// Sample (row, column) of a plane of Sample words with rows `pitch` bytes apart (32-bit pitch:
/// one widening multiply per address).
template <typename Sample>
__device__ inline Sample load_sample(const unsigned char* plane, int pitch, int row, int column) {
    return __ldg(reinterpret_cast<const Sample*>(plane + static_cast<std::ptrdiff_t>(row) * pitch) + column);
}

/// Adds one tile's row sums into `row_sums`. Grid: (column tiles, row tiles); block:
/// kBlockThreads threads. `prev` and `cur`: width x height luma planes (Sample words, rows
/// prev_pitch / cur_pitch bytes apart), width and height >= kRadius + 1. For each row of the
/// block, row_sums[row] += sum over the tile's columns of |blur(prev - cur)| at (row, column),
/// modulo 2^32. plant_mirror_shift / plant_half_rounding: the planted kMirrorShift /
/// kRoundingConstant (false outside the parity gate's tests).
template <typename Sample>
__global__ void __launch_bounds__(kBlockThreads)
    row_sums_kernel(const unsigned char* __restrict__ prev, int prev_pitch, const unsigned char* __restrict__ cur,
                    int cur_pitch, int width, int height, int bit_depth, std::uint32_t* __restrict__ row_sums,
                    bool plant_mirror_shift, bool plant_half_rounding) {
    constexpr int kInputRows = kTileRows + 2 * kRadius;
    __shared__ std::int32_t blurred[kTileRows][kBlockThreads];  // vertical pass, by tile row and thread
    __shared__ std::uint32_t warp_sums[kTileRows][kWarps];

    const int t = static_cast<int>(threadIdx.x);
    // Column of this thread's vertical pass, -kRadius .. width + kRadius - 1 where needed;
    // outside [0, width) it holds the mirrored column, as the CPU's horizontal pass reads it.
    const int x = static_cast<int>(blockIdx.x) * kTileColumns - kRadius + t;
    const int row0 = static_cast<int>(blockIdx.y) * kTileRows;
    const int rows = height - row0 < kTileRows ? height - row0 : kTileRows;

    if (x < width + kRadius) {
        const int column = motion::mirror(x, width);
        std::int32_t d[kInputRows];  // differences of rows row0 - kRadius .. row0 + rows + kRadius - 1
#pragma unroll
        for (int k = 0; k < kInputRows; ++k) {
            d[k] = 0;
            if (k < rows + 2 * kRadius) {
                int r = motion::mirror(row0 - kRadius + k, height);
                // Planted regression (parity-gate tests only): the top border mirror off by one.
                if (plant_mirror_shift && row0 - kRadius + k < 0) r += 1;
                d[k] = motion::sample_difference(load_sample<Sample>(prev, prev_pitch, r, column),
                                                 load_sample<Sample>(cur, cur_pitch, r, column));
            }
        }
#pragma unroll
        for (int i = 0; i < kTileRows; ++i)
            blurred[i][t] = motion::vertical_blur<Sample>(d[i], d[i + 1], d[i + 2], d[i + 3], d[i + 4], bit_depth,
                                                          plant_half_rounding);
    }
    __syncthreads();

    // Horizontal pass at column x by the threads that own an output column.
    const bool outputs = t >= kRadius && t < kBlockThreads - kRadius && x < width;
    const bool lane_column = x >= 2 && x < motion::lane_columns_end(width);
    const int warp = t / 32;
#pragma unroll
    for (int i = 0; i < kTileRows; ++i) {
        std::uint32_t term = 0;
        if (outputs && i < rows) {
            const std::int32_t* y = &blurred[i][t];
            term = motion::magnitude(lane_column ? motion::horizontal_blur_lane(y[-2], y[-1], y[0], y[1], y[2])
                                                 : motion::horizontal_blur_exact(y[-2], y[-1], y[0], y[1], y[2]));
        }
        const std::uint32_t warp_sum = __reduce_add_sync(0xffffffffu, term);  // modulo 2^32
        if (t % 32 == 0) warp_sums[i][warp] = warp_sum;
    }
    __syncthreads();

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
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (t % 32 == 0) warp_totals[t / 32] = acc;
    __syncthreads();
    if (t < 32) {
        acc = warp_totals[t];
        for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
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

    void enqueue(const GpuFrame& f, unsigned slot, GpuStream stream) override {
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
        const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(format_.width), kTileColumns),
                        cuda::blocks_for(static_cast<std::size_t>(format_.height), kTileRows));
        const auto* prev_data = static_cast<const unsigned char*>(prev.data);
        const auto* cur_data = static_cast<const unsigned char*>(cur.data);
        const int prev_pitch = checked_pitch(prev.pitch), cur_pitch = checked_pitch(cur.pitch);
        if (format_.bit_depth == 8)
            row_sums_kernel<std::uint8_t><<<grid, kBlockThreads, 0, stream>>>(
                prev_data, prev_pitch, cur_data, cur_pitch, format_.width, format_.height, 8, row_sums, mirror_shift,
                half_rounding);
        else
            row_sums_kernel<std::uint16_t><<<grid, kBlockThreads, 0, stream>>>(
                prev_data, prev_pitch, cur_data, cur_pitch, format_.width, format_.height, format_.bit_depth,
                row_sums, mirror_shift, half_rounding);
        cuda::check_launch("motion row_sums_kernel");
        total_kernel<<<1, kTotalThreads, 0, stream>>>(row_sums, format_.height, totals_.get() + slot);
        cuda::check_launch("motion total_kernel");
        cuda::check(cudaMemcpyAsync(host_totals_.get() + slot, totals_.get() + slot, sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying the motion sum to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const double score = slot_scored_[slot]
                                 ? settings_.sad_score(static_cast<std::uint64_t>(host_totals_[slot]),
                                                       format_.width, format_.height)
                                 : 0.0;
        settings_.write_frame(score, out);
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

extern const TwinDescriptor twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor twin{
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
