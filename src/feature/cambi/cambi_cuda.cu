// CUDA twin of CAMBI (cambi.cpp), bit-identical to it on every frame, every option included
// (full_ref, the encode and source sizes, window_size, topk, the EOTFs and thresholds,
// max_log_contrast, the high-resolution speed-up, heatmaps_path).
//
// The device does a picture's per-pixel work and each scale's pooling (the CPU's quick_select
// and double sum as an exact integer sum, proven equal where it is used: cambi_topk.hpp,
// cambi_pool_cuda.cuh); the host (finish()) the rest, with the CPU's own functions. Per picture (the distorted one; with full_ref then the reference, on the same
// stream and buffers), on planes laid out as the CPU's (cambi_internal.hpp Buffers: rows of
// aligned_row(alloc_w) samples, alloc_h rows, zero outside the picture), so that where the CPU's
// windows read past a scale's columns (a window wider than the scale) they read the same earlier
// data here:
//  1. check_kernel (9 to 15 bits): the first sample above the bit depth, as a 64-bit key
//     (index << 16 | value, atomicMin: the first in row-major order, whatever the order);
//  2. preprocess_kernel: each sample to 10 bits at the target size (cambi_math.hpp to_10_bits;
//     the nearest-neighbour positions are the CPU's float walk, tabulated on the host), then,
//     when the encode had fewer than 10 bits, the anti-dithering means (dither_mean4/2) of the
//     converted samples: the CPU's in-place pass reads only samples it has not yet written,
//     so it is this out-of-place one;
//  3. mask_kernel: the spatial mask (7x7 clipped window sums of the derivative, integer; a
//     tile's derivative and 7-column sums in shared memory);
//  4. per scale: decimate_kernel (image and mask; the CPU's in-place decimation reads only
//     samples it has not yet written, so the plane is copied and decimated out of place, the
//     samples outside the scale left as they were), mode_kernel (the 3x3 mode, likewise out of
//     place: rows 1 .. h - 2; cambi_math.hpp mode3_of, symmetric, so the CPU's ring order does
//     not matter), and contrast_kernel: for each masked pixel of level L in the band, the counts
//     of the levels L - num_diffs .. L + num_diffs among the masked pixels of its window (rows
//     [r - pad, r + pad] inside the scale, columns [c - pad, c + pad] inside [0, max(pad,
//     width)): exactly what the CPU's sliding histograms hold for that pixel, integers below
//     4226; counted per level for a 32x32 tile of outputs, a warp a level (a ballot per row
//     and 32 columns, popcounts of each output's window columns, running sums down the rows),
//     for the levels both present in the tile (a superset of its windows' samples) and read by
//     some output, where they
//     are few, else per pixel: the same integers either way), then the largest contrast_term over
//     its visible steps, the CPU's function on the CPU's counts (levels below the band count 0,
//     as the CPU's missing histogram rows);
//  5. every scale's pooling of the frame at once on the device (cambi::TopkPool: the sum of the k
//     largest c values, exact where cambi_topk.hpp proves it the CPU's sequential double sum; one
//     TopkSum a scale to the host), or, with heatmaps_path (the files need every c value), the
//     five scales' c values copied to the slot's pinned memory; where the band of levels is not
//     kLevels, also each scale's image and mask planes, for the CPU's band_reach_error.
// finish(): per picture, the CPU's refusals (sample_error, check_band_reach) in the CPU's order,
// then per scale the device's sum over k, or, where the sum is not proven (none of the fixtures
// with vmafx's models), the scale's c values copied from the slot and pooled by the CPU's
// spatial_pooling; with heatmaps the files written with the CPU's Heatmaps::write and the CPU's
// spatial_pooling; then combine_scales and append_scores.
//
// Planted regressions (tests of the parity gate only; plant_, fixed at creation):
//  kMirrorShift:      the contrast window's columns shifted by one ([c - pad + 1, c + pad + 1]),
//                     in contrast_kernel (a window off by one at every border and inside);
//  kRoundingConstant: above 10 bits the conversion's rounding constant 2^(shift - 1) dropped,
//                     and the anti-dithering 2x2 mean rounded to nearest ((sum + 2) >> 2), in
//                     preprocess_kernel. (The latter changes nothing at 8 bits, whose 10-bit
//                     samples are multiples of 4: only 9-bit input, or enc_bitdepth below 10
//                     above 8 bits, reach it. So on 8- and 10-bit inputs this plant is invisible.)
// No kContraction: the only float arithmetic on the device is contrast_term, one int-to-float
// conversion and one product (no a*b+c a compiler could fuse). No kReductionOrder: the sums on
// the device are integers (window counts below 4226, mask sums below 50, the radix passes'
// counts, the pooled values in units of the smallest one's ulp: order-free; the proof that the
// CPU's double sum equals the integer sum is cambi_topk.hpp's).
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cuda/device.hpp"
#include "feature/cambi/cambi.hpp"
#include "feature/cambi/cambi_internal.hpp"
#include "feature/cambi/cambi_math.hpp"
#include "feature/cambi/cambi_pool_cuda.cuh"
#include "feature/cambi/cambi_topk.hpp"
#include "feature/cambi/cambi_window.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

using cambi::Band;
using cambi::kScales;

/// cambi::host_pooling_for_tests: twins made while set pool every scale on the host.
std::atomic<bool> force_host_pooling{false};
/// cambi::host_pooled_scales_for_tests: the scales pooled on the host so far.
std::atomic<unsigned> host_pooled_scales{0};

/// The largest window half: window^2 < 4226 (the reciprocal table), so window <= 65.
constexpr int kMaxPad = 32;
/// contrast_kernel's tile: kLevelTile x kLevelTile outputs; a warp's lanes are its columns, and
/// each of a block's warps (kFewWarps, or kManyWarps on scales of few tiles, so that their many
/// level passes spread over more warps) has every warps-th row of outputs.
constexpr int kTileSide = cambi::kLevelTile;
constexpr int kTileOutputs = kTileSide * kTileSide;
constexpr int kFewWarps = 8;
constexpr int kManyWarps = 32;
/// Scales of fewer tiles than this take kManyWarps a block.
constexpr unsigned kFewTiles = 256;
/// A tile counts level by level when its outputs' levels and reach span at most kMaxChunks x 64
/// levels and at most kMaxPasses of them occur in its windows (a pass costs about what 8 of
/// its outputs' own window counts cost, at 33 x 33); else each output counts its own window.
constexpr int kMaxChunks = 8;
constexpr int kMaxPasses = 160;
/// A tile output that is no target (unmasked, outside the band or the scale): a level below
/// every level minus num_diffs, so no level's count is stored for it.
constexpr std::int16_t kNotTarget = -1024;
constexpr unsigned kThreads = 256;

/// The first sample above `max` (key index << 16 | value, atomicMin). Grid: rows x column blocks.
template <typename Sample>
__global__ void check_kernel(const unsigned char* __restrict__ src, std::ptrdiff_t pitch, int width, int height,
                             unsigned max, unsigned long long* __restrict__ first) {
    const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = static_cast<int>(blockIdx.y);
    if (j >= width || i >= height) return;
    const unsigned v = reinterpret_cast<const Sample*>(src + i * pitch)[j];
    if (v > max)
        atomicMin(first, (static_cast<unsigned long long>(i) * static_cast<unsigned>(width) + static_cast<unsigned>(j))
                                 << 16 |
                             v);
}

/// Sample (ys[i], xs[j]) of the input, to 10 bits.
template <typename Sample>
__device__ inline std::int32_t converted(const unsigned char* src, std::ptrdiff_t pitch, const int* xs, const int* ys,
                                         int i, int j, int bit_depth, bool plant) {
    const std::int32_t v = reinterpret_cast<const Sample*>(src + ys[i] * pitch)[xs[j]];
    if (plant && bit_depth > 10) return v >> (bit_depth - 10);  // planted: no rounding constant
    return cambi::to_10_bits(v, bit_depth);
}

/// The 10-bit picture at width x height (anti-dithered when `dither`) into image (stride
/// samples a row). Grid: rows x column blocks.
template <typename Sample>
__global__ void preprocess_kernel(const unsigned char* __restrict__ src, std::ptrdiff_t pitch,
                                  const int* __restrict__ xs, const int* __restrict__ ys, int width, int height,
                                  int bit_depth, bool dither, bool plant, std::uint16_t* __restrict__ image,
                                  std::ptrdiff_t stride) {
    const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = static_cast<int>(blockIdx.y);
    if (j >= width || i >= height) return;
    const auto at = [&](int y, int x) { return converted<Sample>(src, pitch, xs, ys, y, x, bit_depth, plant); };
    std::int32_t v = at(i, j);
    if (dither) {
        const bool right = j < width - 1, below = i < height - 1;
        if (right && below) {
            v = plant ? (v + at(i, j + 1) + at(i + 1, j) + at(i + 1, j + 1) + 2) >> 2
                      : cambi::dither_mean4(v, at(i, j + 1), at(i + 1, j), at(i + 1, j + 1));
        } else if (below) {
            v = cambi::dither_mean2(v, at(i + 1, j));
        } else if (right) {
            v = cambi::dither_mean2(v, at(i, j + 1));
        }
    }
    image[i * stride + j] = static_cast<std::uint16_t>(v);
}

/// The spatial mask's derivative (cambi_preprocess.cpp spatial_mask) at (r, c): 1 where the sample equals
/// its right and lower neighbours (the last column and row count as equal); 0 outside the
/// picture (the mask's window is clipped to it).
__device__ inline unsigned derivative_at(const std::uint16_t* image, std::ptrdiff_t stride, int width, int height,
                                         int r, int c) {
    if (r < 0 || r >= height || c < 0 || c >= width) return 0u;
    const std::uint16_t* here = image + r * stride;
    bool d;
    if (c < width - 1) {
        d = here[c] == here[c + 1];
        if (r < height - 1) d = d && here[c] == here[stride + c];
    } else {
        d = r == height - 1 || here[c] == here[stride + c];
    }
    return d ? 1u : 0u;
}

/// Outputs of a mask_kernel block: kMaskColumns x kMaskRows, a thread each.
constexpr int kMaskColumns = 32, kMaskRows = 8;

/// The spatial mask: 1 where the derivative's 7x7 window (clipped to the picture) sums above
/// `threshold`. Grid: column tiles x row tiles of kMaskColumns x kMaskRows. The tile's
/// derivative with the window's reach, then its 7-column sums, in shared memory; each output
/// adds 7 of those (integers: the CPU's sums in any order).
__global__ void __launch_bounds__(kMaskColumns * kMaskRows)
    mask_kernel(const std::uint16_t* __restrict__ image, std::ptrdiff_t stride, int width, int height,
                unsigned threshold, std::uint16_t* __restrict__ mask) {
    constexpr int pad = cambi::kMaskFilter >> 1, rows = kMaskRows + 2 * pad, cols = kMaskColumns + 2 * pad;
    constexpr int threads = kMaskColumns * kMaskRows;
    __shared__ std::uint8_t derivative[rows][cols];
    __shared__ std::uint8_t across[rows][kMaskColumns];  // 7-column sums
    const int tid = static_cast<int>(threadIdx.y) * kMaskColumns + static_cast<int>(threadIdx.x);
    const int r0 = static_cast<int>(blockIdx.y) * kMaskRows, c0 = static_cast<int>(blockIdx.x) * kMaskColumns;
    for (int k = tid; k < rows * cols; k += threads)
        derivative[k / cols][k % cols] = static_cast<std::uint8_t>(
            derivative_at(image, stride, width, height, r0 - pad + k / cols, c0 - pad + k % cols));
    __syncthreads();
    for (int k = tid; k < rows * kMaskColumns; k += threads) {
        const int i = k / kMaskColumns, j = k % kMaskColumns;
        unsigned sum = 0;
        for (int t = 0; t < cambi::kMaskFilter; ++t) sum += derivative[i][j + t];
        across[i][j] = static_cast<std::uint8_t>(sum);
    }
    __syncthreads();
    const int r = r0 + static_cast<int>(threadIdx.y), c = c0 + static_cast<int>(threadIdx.x);
    if (r >= height || c >= width) return;
    unsigned sum = 0;
    for (int t = 0; t < cambi::kMaskFilter; ++t) sum += across[threadIdx.y + t][threadIdx.x];
    mask[r * stride + c] = sum > threshold ? 1 : 0;
}

/// to[i][j] = from[2i][2j] over the scale's width x height (to: a copy of from elsewhere).
__global__ void decimate_kernel(const std::uint16_t* __restrict__ from, std::uint16_t* __restrict__ to,
                                std::ptrdiff_t stride, int width, int height) {
    const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = static_cast<int>(blockIdx.y);
    if (j >= width || i >= height) return;
    to[i * stride + j] = from[2 * i * stride + 2 * j];
}

/// The horizontal 3-tap mode of row i at column j (the first and last columns kept).
__device__ inline std::int32_t horizontal_mode(const std::uint16_t* from, std::ptrdiff_t stride, int i, int j,
                                               int width) {
    const std::uint16_t* row = from + i * stride;
    if (j == 0 || j == width - 1) return row[j];
    return cambi::mode3_of(row[j - 1], row[j], row[j + 1]);
}

/// The 3x3 mode filter: rows 1 .. height - 2 of `to` (a copy of from elsewhere). Grid: rows
/// 1 .. height - 2 x column blocks.
__global__ void mode_kernel(const std::uint16_t* __restrict__ from, std::uint16_t* __restrict__ to,
                            std::ptrdiff_t stride, int width, int height) {
    const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = static_cast<int>(blockIdx.y) + 1;
    if (j >= width || i >= height - 1) return;
    to[i * stride + j] = static_cast<std::uint16_t>(cambi::mode3_of(horizontal_mode(from, stride, i - 1, j, width),
                                                                    horizontal_mode(from, stride, i, j, width),
                                                                    horizontal_mode(from, stride, i + 1, j, width)));
}

/// What contrast_kernel reads besides the planes.
struct ContrastArgs {
    int width, height, pad;             ///< the scale, the window's half
    int band_base, band_size, num_diffs;
    const std::uint32_t* steps;         ///< per level of the band: the visible steps d, as bits
    const float* reciprocals;           ///< cambi::reciprocals()
    const int* weights;                 ///< cambi::kContrastWeights
    int shift;                          ///< 0; 1 with the planted kMirrorShift
};

/// contrast_kernel's dynamic shared memory (bytes from its start): each output's counts of
/// the levels level - num_diffs .. level + num_diffs, the tile's window samples (rows of
/// `words` 32-column words), each warp's running sums, the outputs' levels.
struct ContrastLayout {
    int words = 0, rows = 0;
    std::size_t tile = 0, prefix = 0, levels = 0, bytes = 0;

    ContrastLayout(int pad, int num_diffs, int shift, int warps) {
        words = (kTileSide + 2 * pad + shift + 31) / 32;
        rows = kTileSide + 2 * pad;
        tile = static_cast<std::size_t>(2 * num_diffs + 1) * kTileOutputs * sizeof(std::uint16_t);
        prefix = tile + static_cast<std::size_t>(rows) * 32u * static_cast<std::size_t>(words) * sizeof(std::uint16_t);
        levels = prefix + static_cast<std::size_t>(warps) * kTileOutputs * sizeof(std::uint16_t);
        bytes = levels + kTileOutputs * sizeof(std::int16_t);
    }
};

/// The c values of a scale (width x height packed) from its image and mask. Grid: column tiles x
/// row tiles of kTileSide; block: 32 kWarps threads; dynamic shared memory: ContrastLayout's
/// bytes (at `layout`, computed by the host for this pad, num_diffs, shift and kWarps; kWords
/// its words). The tile's window samples (levels of masked pixels in the CPU's reach, else
/// kNoLevel) and its outputs' levels (kNotTarget where no target) go to shared memory; then,
/// where the levels the outputs read span at most kMaxChunks x 64 levels, the levels both some
/// tile sample has (a superset of the windows' samples) and some output reads (its level
/// -num_diffs .. +num_diffs): at most kMaxPasses, each a warp's pass (level_counts: a ballot a
/// row and 32-bit word, each lane an output column) storing each output's count where it reads
/// that level (the others' counts stay 0, as the CPU's for a level no window sample has), then
/// each output's contrast_of_counts; else each output's window_contrast. The same integers
/// either way: the CPU's histogram counts.
template <int kWords, int kWarps>
__global__ void __launch_bounds__(32 * kWarps, kWarps == kManyWarps ? 1 : 4)
    contrast_kernel(const std::uint16_t* __restrict__ image, const std::uint16_t* __restrict__ mask,
                    std::ptrdiff_t stride, ContrastArgs a, ContrastLayout layout, float* __restrict__ out) {
    constexpr int kThreadsHere = 32 * kWarps, kRowsPerWarp = kTileSide / kWarps, kPitch = 32 * kWords;
    extern __shared__ __align__(16) unsigned char shared[];
    auto* counts = reinterpret_cast<std::uint16_t*>(shared);
    auto* tile = reinterpret_cast<std::uint16_t*>(shared + layout.tile);
    auto* prefix = reinterpret_cast<std::uint16_t*>(shared + layout.prefix);
    auto* levels = reinterpret_cast<std::int16_t*>(shared + layout.levels);
    __shared__ int warp_low[kWarps], warp_high[kWarps], passes;
    __shared__ unsigned present[2 * kMaxChunks], wanted[2 * kMaxChunks];
    __shared__ std::uint16_t list[kMaxPasses];
    constexpr unsigned kAll = 0xffffffffu;
    const int lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    const int r0 = static_cast<int>(blockIdx.y) * kTileSide, c0 = static_cast<int>(blockIdx.x) * kTileSide;
    const int pad = a.pad, side = 2 * pad + 1, nd = a.num_diffs, rows = layout.rows;
    // The CPU's histograms count columns [0, max(pad, width)) and rows [0, height).
    const int column_end = max(pad, a.width);
    if (threadIdx.x < 2 * kMaxChunks) present[threadIdx.x] = wanted[threadIdx.x] = 0u;
    {
        auto* pairs = reinterpret_cast<std::uint32_t*>(counts);
        for (int k = static_cast<int>(threadIdx.x); k < (2 * nd + 1) * kTileOutputs / 2; k += kThreadsHere)
            pairs[k] = 0u;
    }
    for (int i = warp; i < rows; i += kWarps) {
        const int gi = r0 - pad + i;
        const bool in_rows = gi >= 0 && gi < a.height;
#pragma unroll
        for (int w = 0; w < kWords; ++w) {
            const int j = c0 - pad + 32 * w + lane;
            unsigned v = cambi::kNoLevel;
            if (in_rows && j >= 0 && j < column_end && mask[gi * stride + j]) v = image[gi * stride + j];
            tile[i * kPitch + 32 * w + lane] = static_cast<std::uint16_t>(v);
        }
    }
    int low = 0x7fffffff, high = -1;
    for (int k = 0; k < kRowsPerWarp; ++k) {
        const int rr = warp + kWarps * k, r = r0 + rr, c = c0 + lane;
        int level = kNotTarget;
        if (r < a.height && c < a.width && mask[r * stride + c]) {
            const int v = image[r * stride + c], compact = v - a.band_base;
            if (compact >= 0 && compact < a.band_size) level = v;
        }
        if (level != kNotTarget) low = min(low, level), high = max(high, level);
        levels[rr * kTileSide + lane] = static_cast<std::int16_t>(level);
    }
    low = __reduce_min_sync(kAll, low);
    high = __reduce_max_sync(kAll, high);
    if (lane == 0) warp_low[warp] = low, warp_high[warp] = high;
    __syncthreads();  // the tile, the levels, the zeroed counts and bits
    int lowest = warp_low[0], highest = warp_high[0];
    for (int k = 1; k < kWarps; ++k) lowest = min(lowest, warp_low[k]), highest = max(highest, warp_high[k]);
    const auto write = [&](int k, float value) {
        const int r = r0 + warp + kWarps * k, c = c0 + lane;
        if (r < a.height && c < a.width) out[static_cast<std::size_t>(r) * static_cast<std::size_t>(a.width) + c] = value;
    };
    if (lowest > highest) {  // no target (uniform, as every condition below)
        for (int k = 0; k < kRowsPerWarp; ++k) write(k, 0.0f);
        return;
    }
    const int base = lowest - nd, chunks = (highest + nd - base + 64) / 64;
    int count = kMaxPasses + 1;  // the level passes; above kMaxPasses: each output's own window
    if (chunks <= kMaxChunks) {
        for (int k = 0; k < chunks; ++k) {
            const int first = base + 64 * k;
            unsigned long long have = 0, want = 0;  // levels first .. first + 63
            for (int i = warp; i < rows; i += kWarps)
#pragma unroll
                for (int w = 0; w < kWords; ++w) {
                    const unsigned l = static_cast<unsigned>(tile[i * kPitch + 32 * w + lane] - first);
                    if (l < 64u) have |= 1ull << l;
                }
            for (int kk = 0; kk < kRowsPerWarp; ++kk) {
                const int level = levels[(warp + kWarps * kk) * kTileSide + lane];
                const int from = max(level - nd - first, 0), to = min(level + nd - first, 63);
                if (level != kNotTarget && from <= to)
                    want |= (to == 63 ? ~0ull : (1ull << (to + 1)) - 1) & ~((1ull << from) - 1);
            }
            const unsigned h0 = __reduce_or_sync(kAll, static_cast<unsigned>(have));
            const unsigned h1 = __reduce_or_sync(kAll, static_cast<unsigned>(have >> 32));
            const unsigned w0 = __reduce_or_sync(kAll, static_cast<unsigned>(want));
            const unsigned w1 = __reduce_or_sync(kAll, static_cast<unsigned>(want >> 32));
            if (lane == 0) {
                if (h0) atomicOr(&present[2 * k], h0);
                if (h1) atomicOr(&present[2 * k + 1], h1);
                if (w0) atomicOr(&wanted[2 * k], w0);
                if (w1) atomicOr(&wanted[2 * k + 1], w1);
            }
        }
        __syncthreads();
        if (warp == 0) {  // the list of levels to pass, in order
            const unsigned bits = lane < 2 * chunks ? present[lane] & wanted[lane] : 0u;
            const int n = __popc(bits);
            int end = n;  // inclusive scan over the lanes' words
            for (int d = 1; d < 32; d <<= 1) {
                const int t = __shfl_up_sync(kAll, end, static_cast<unsigned>(d));
                if (lane >= d) end += t;
            }
            const int total = __shfl_sync(kAll, end, 31);
            if (total <= kMaxPasses) {
                int at = end - n;
                for (unsigned b = bits; b != 0; b &= b - 1)
                    list[at++] = static_cast<std::uint16_t>(base + 32 * lane + __ffs(static_cast<int>(b)) - 1);
            }
            if (lane == 0) passes = total;
        }
        __syncthreads();
        count = passes;
    }
    if (count <= kMaxPasses) {
        std::uint32_t masks[kWords];
#pragma unroll
        for (int w = 0; w < kWords; ++w) masks[w] = cambi::window_bits(lane + a.shift, side, w);
        std::uint16_t* sums = prefix + warp * kTileOutputs + lane;
        const std::uint16_t* column = tile + lane;
        for (int p = warp; p < count; p += kWarps) {
            const unsigned v = list[p];
            cambi::level_counts<kWords>(
                kTileSide, side, masks, sums, kTileSide,
                [&](int i, std::uint32_t* bits) {
#pragma unroll
                    for (int w = 0; w < kWords; ++w) bits[w] = __ballot_sync(kAll, column[i * kPitch + 32 * w] == v);
                },
                [&](int r, int n) {
                    const unsigned o = v - static_cast<unsigned>(levels[r * kTileSide + lane] - nd);
                    if (o <= static_cast<unsigned>(2 * nd))
                        counts[o * kTileOutputs + r * kTileSide + lane] = static_cast<std::uint16_t>(n);
                });
        }
        __syncthreads();
    }
    for (int k = 0; k < kRowsPerWarp; ++k) {
        const int rr = warp + kWarps * k, at = rr * kTileSide + lane;
        const int level = levels[at], compact = level - a.band_base;
        float best = 0.0f;
        if (level != kNotTarget) {
            best = count <= kMaxPasses
                       ? cambi::contrast_of_counts(counts + at, kTileOutputs, compact, nd, a.steps[compact],
                                                   a.reciprocals, a.weights)
                       : cambi::window_contrast(tile + rr * kPitch + lane + a.shift, kPitch, side, level, compact, nd,
                                                a.steps[compact], a.reciprocals, a.weights, counts + at, kTileOutputs);
        }
        write(k, best);
    }
}

/// contrast_kernel's instance for `words` (1 .. kMaxRowWords) and kWarps.
template <int kWarps>
const void* contrast_entry(int words) {
    switch (words) {
    case 1: return reinterpret_cast<const void*>(&contrast_kernel<1, kWarps>);
    case 2: return reinterpret_cast<const void*>(&contrast_kernel<2, kWarps>);
    case 3: return reinterpret_cast<const void*>(&contrast_kernel<3, kWarps>);
    case 4: return reinterpret_cast<const void*>(&contrast_kernel<4, kWarps>);
    default: throw Error("cambi (CUDA): internal: a tile row of " + std::to_string(words) + " words");
    }
}

const void* contrast_entry(int words, int warps) {
    return warps == kManyWarps ? contrast_entry<kManyWarps>(words) : contrast_entry<kFewWarps>(words);
}

/// Raises contrast_kernel instance `entry`'s dynamic shared memory limit on the current device
/// to `bytes`, never lowering it: the limit is the kernel's for the whole process, and every
/// cambi twin of a run is made before any frame runs, so a twin needing less must not lower
/// what an earlier one set (two cambi features with other options in one run).
void raise_shared_limit(const void* entry, int bytes) {
    static std::mutex lock;
    static std::map<std::pair<int, const void*>, int> limits;  // by device and instance
    int device = 0;
    cuda::check(cudaGetDevice(&device), "cudaGetDevice");
    const std::lock_guard<std::mutex> hold(lock);
    int& now = limits[{device, entry}];
    if (bytes <= now) return;
    cuda::check(cudaFuncSetAttribute(entry, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
                "cudaFuncSetAttribute (cambi contrast_kernel)");
    now = bytes;
}

/// cambi.cpp resample's source positions of `out` samples from `in` (the CPU's float walk).
std::vector<int> positions(int in, int out, bool same) {
    std::vector<int> at(static_cast<std::size_t>(out));
    if (same) {
        for (int k = 0; k < out; ++k) at[static_cast<std::size_t>(k)] = k;
        return at;
    }
    const float ratio = static_cast<float>(static_cast<unsigned>(in)) / static_cast<unsigned>(out);
    float x = static_cast<float>(static_cast<double>(ratio / 2) - 0.5);
    for (int k = 0; k < out; ++k) {
        at[static_cast<std::size_t>(k)] = static_cast<int>(static_cast<unsigned>(static_cast<int>(static_cast<double>(x) + 0.5)));
        x += ratio;
    }
    return at;
}

/// One picture's sizes (the distorted picture at the encode's, the reference at the source's).
struct Geometry {
    int width = 0, height = 0, window = 0;
    std::array<int, kScales> w{}, h{};
    std::array<std::size_t, kScales> offset{};  ///< of each scale's c values in the picture's
    std::size_t values = 0;                     ///< c values of the five scales
    cuda::DeviceBuffer<int> xs, ys;             ///< source positions
};

template <typename T>
cuda::DeviceBuffer<T> upload(const T* data, std::size_t n) {
    cuda::DeviceBuffer<T> b(n);
    if (n) cuda::check(cudaMemcpy(b.get(), data, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy (cambi tables)");
    return b;
}

class CambiTwin final : public GpuTwin {
public:
    CambiTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), settings_(options), plan_(cambi::make_plan(settings_, format)), plant_(plant),
          frames_("cambi", slots) {
        const cambi::Plan& p = plan_;
        pictures_ = settings_.full_ref ? 2 : 1;
        stride_ = cambi::aligned_row(p.alloc_w);
        plane_ = static_cast<std::size_t>(stride_) * static_cast<std::size_t>(p.alloc_h);
        geometry(geo_[0], p.enc_w, p.enc_h, p.window);
        if (settings_.full_ref) geometry(geo_[1], p.src_w, p.src_h, p.src_window);
        // Tables: the reciprocals, the weights, each band level's visible steps (the CPU's).
        const auto& rec = cambi::reciprocals();
        reciprocals_ = upload(rec.data(), rec.size());
        weights_ = upload(cambi::kContrastWeights, 32);
        std::vector<std::uint32_t> steps;
        if (p.band == Band::kLevels) steps = cambi::visible_steps(p);
        if (steps.empty()) steps.push_back(0u);
        const int widest = (settings_.full_ref ? std::max(p.window, p.src_window) : p.window) >> 1;
        if (widest > kMaxPad) throw Error("cambi (CUDA): internal: a window wider than the reciprocal table allows");
        // contrast_kernel's shared memory, above the default 48 KB for wide windows, many
        // num_diffs or many warps (220 KB at window 65, num_diffs 32 and kManyWarps), within
        // what the device allows a block: kManyWarps only where it fits, and a clear refusal
        // where not even kFewWarps does (GPUs before sm_90 allow 99 or 163 KB).
        int device = 0, allowed = 0;
        cuda::check(cudaGetDevice(&device), "cudaGetDevice");
        cuda::check(cudaDeviceGetAttribute(&allowed, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                    "cudaDeviceGetAttribute");
        const int shift = plant_ == PlantedDefect::kMirrorShift ? 1 : 0;
        const auto fits = [&](int warps) {
            const ContrastLayout most(widest, p.num_diffs, shift, warps);
            for (int words = 1; words <= cambi::kMaxRowWords; ++words) {
                cudaFuncAttributes attributes{};
                cuda::check(cudaFuncGetAttributes(&attributes, contrast_entry(words, warps)), "cudaFuncGetAttributes");
                if (most.bytes + attributes.sharedSizeBytes > static_cast<std::size_t>(allowed)) return false;
            }
            for (int words = 1; words <= cambi::kMaxRowWords; ++words)
                raise_shared_limit(contrast_entry(words, warps), static_cast<int>(most.bytes));
            return true;
        };
        if (!fits(kFewWarps))
            throw Error("cambi (CUDA): window_size " + std::to_string(2 * widest + 1) + " with max_log_contrast " +
                        std::to_string(settings_.max_log_contrast) + " needs " +
                        std::to_string(ContrastLayout(widest, p.num_diffs, shift, kFewWarps).bytes) +
                        " bytes of shared memory a block; this GPU allows " + std::to_string(allowed));
        many_warps_ = fits(kManyWarps);
        steps_ = upload(steps.data(), steps.size());
        // The pooling's selections: each picture's scales, in the slot's c values.
        std::size_t values = 0;
        std::vector<cambi::TopkJob> jobs;
        for (int k = 0; k < pictures_; ++k) {
            for (int scale = 0; scale < kScales; ++scale) {
                const int n = geo_[k].w[static_cast<std::size_t>(scale)] * geo_[k].h[static_cast<std::size_t>(scale)];
                jobs.push_back({values + geo_[k].offset[static_cast<std::size_t>(scale)], n, pooled(n)});
            }
            values += geo_[k].values;
        }
        values_ = values;
        host_pool_ = !settings_.heatmaps_path.empty();
        proven_only_ = !force_host_pooling.load();
        for (unsigned s = 0; s < slots; ++s) {
            Slot slot;
            slot.image = cuda::DeviceBuffer<std::uint16_t>(plane_);
            slot.mask = cuda::DeviceBuffer<std::uint16_t>(plane_);
            slot.scratch = cuda::DeviceBuffer<std::uint16_t>(plane_);
            slot.c = cuda::DeviceBuffer<float>(values);
            if (host_pool_) slot.host_c = cuda::PinnedBuffer<float>(values);
            else slot.pool = std::make_unique<cambi::TopkPool>(jobs);
            slot.keys = cuda::DeviceBuffer<unsigned long long>(2);
            slot.host_keys = cuda::PinnedBuffer<unsigned long long>(2);
            if (p.band != Band::kLevels)
                slot.host_planes = cuda::PinnedBuffer<std::uint16_t>(plane_ * 2 * kScales * 2);
            slots_.push_back(std::move(slot));
        }
        if (!settings_.heatmaps_path.empty()) heatmaps_.open(settings_.heatmaps_path, plan_);
    }
    ~CambiTwin() override { heatmaps_.close(); }
    CambiTwin(const CambiTwin&) = delete;
    CambiTwin& operator=(const CambiTwin&) = delete;

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        Slot& s = slots_[slot];
        cuda::check(cudaMemsetAsync(s.keys.get(), 0xff, 2 * sizeof(unsigned long long), stream), "cudaMemsetAsync");
        const DevicePlane* planes[2] = {&f.dist.luma(), &f.ref.luma()};
        std::size_t offset = 0;
        for (int k = 0; k < pictures_; ++k) {
            if (!planes[k]->data) throw Error("cambi (CUDA): a luma plane is missing");
            const Geometry& g = geo_[k];
            picture(*planes[k], g, s, k, s.c.get() + offset, stream);
            offset += g.values;
        }
        if (host_pool_)
            cuda::check(cudaMemcpyAsync(s.host_c.get(), s.c.get(), values_ * sizeof(float), cudaMemcpyDeviceToHost,
                                        stream),
                        "copying cambi's c values to the host");
        else
            s.pool->enqueue(s.c.get(), stream);
        cuda::check(cudaMemcpyAsync(s.host_keys.get(), s.keys.get(), 2 * sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying cambi's sample checks to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        Slot& s = slots_[slot];
        const double dist = score(s, 0, 0, index);
        if (!settings_.full_ref) return cambi::append_scores(settings_, dist, nullptr, out);
        const double src = score(s, 1, geo_[0].values, index);
        cambi::append_scores(settings_, dist, &src, out);
    }

private:
    struct Slot {
        cuda::DeviceBuffer<std::uint16_t> image, mask, scratch;
        cuda::DeviceBuffer<float> c;
        cuda::PinnedBuffer<float> host_c;        ///< heatmaps only: the c values
        std::unique_ptr<cambi::TopkPool> pool;    ///< else: the pooling on the device
        cuda::DeviceBuffer<unsigned long long> keys;
        cuda::PinnedBuffer<unsigned long long> host_keys;
        /// Band not kLevels: per picture and scale, the image then the mask plane.
        cuda::PinnedBuffer<std::uint16_t> host_planes;
    };

    void geometry(Geometry& g, int width, int height, int window) {
        g.width = width, g.height = height, g.window = window;
        int sw = width, sh = height;
        std::size_t offset = 0;
        for (int scale = 0; scale < kScales; ++scale) {
            if (scale > 0 || plan_.speedup) sw = (sw + 1) >> 1, sh = (sh + 1) >> 1;
            g.w[static_cast<std::size_t>(scale)] = sw, g.h[static_cast<std::size_t>(scale)] = sh;
            g.offset[static_cast<std::size_t>(scale)] = offset;
            offset += static_cast<std::size_t>(sw) * static_cast<std::size_t>(sh);
        }
        g.values = offset;
        const bool same = width == format_.width && height == format_.height;
        const std::vector<int> xs = positions(format_.width, width, same), ys = positions(format_.height, height, same);
        g.xs = upload(xs.data(), xs.size());
        g.ys = upload(ys.data(), ys.size());
    }

    template <typename Sample>
    void input_kernels(const DevicePlane& in, const Geometry& g, Slot& s, int k, cudaStream_t stream) {
        const auto* src = static_cast<const unsigned char*>(in.data);
        const int bits = format_.bit_depth;
        if (bits != 8 && bits != 16) {
            const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(format_.width), kThreads),
                            static_cast<unsigned>(format_.height));
            check_kernel<Sample><<<grid, kThreads, 0, stream>>>(src, in.pitch, format_.width, format_.height,
                                                                (1u << bits) - 1, s.keys.get() + k);
            cuda::check_launch("cambi check_kernel");
        }
        const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(g.width), kThreads), static_cast<unsigned>(g.height));
        preprocess_kernel<Sample><<<grid, kThreads, 0, stream>>>(src, in.pitch, g.xs.get(), g.ys.get(), g.width,
                                                                 g.height, bits, plan_.enc_bitdepth < 10,
                                                                 plant_ == PlantedDefect::kRoundingConstant,
                                                                 s.image.get(), stride_);
        cuda::check_launch("cambi preprocess_kernel");
    }

    // Copies rows [0, rows) x columns [0, columns) of the plane to the scratch plane: the
    // samples the out-of-place pass that follows reads (the CPU's in-place passes read the old
    // samples); the rest of the scratch plane is never read.
    void to_scratch(const cuda::DeviceBuffer<std::uint16_t>& plane, int rows, int columns, Slot& s,
                    cudaStream_t stream) {
        const std::size_t pitch = static_cast<std::size_t>(stride_) * sizeof(std::uint16_t);
        cuda::check(cudaMemcpy2DAsync(s.scratch.get(), pitch, plane.get(), pitch,
                                      static_cast<std::size_t>(columns) * sizeof(std::uint16_t),
                                      static_cast<std::size_t>(rows), cudaMemcpyDeviceToDevice, stream),
                    "cudaMemcpy2DAsync (cambi scratch)");
    }

    void picture(const DevicePlane& in, const Geometry& g, Slot& s, int k, float* c, cudaStream_t stream) {
        const cambi::Plan& p = plan_;
        cuda::check(cudaMemsetAsync(s.image.get(), 0, plane_ * sizeof(std::uint16_t), stream), "cudaMemsetAsync");
        cuda::check(cudaMemsetAsync(s.mask.get(), 0, plane_ * sizeof(std::uint16_t), stream), "cudaMemsetAsync");
        if (format_.bit_depth == 8) input_kernels<std::uint8_t>(in, g, s, k, stream);
        else input_kernels<std::uint16_t>(in, g, s, k, stream);
        const dim3 mask_tiles(cuda::blocks_for(static_cast<std::size_t>(g.width), kMaskColumns),
                              cuda::blocks_for(static_cast<std::size_t>(g.height), kMaskRows));
        mask_kernel<<<mask_tiles, dim3(kMaskColumns, kMaskRows), 0, stream>>>(
            s.image.get(), stride_, g.width, g.height, cambi::mask_threshold(g.width, g.height), s.mask.get());
        cuda::check_launch("cambi mask_kernel");
        const int pad = g.window >> 1;
        for (int scale = 0; scale < kScales; ++scale) {
            const int sw = g.w[static_cast<std::size_t>(scale)], sh = g.h[static_cast<std::size_t>(scale)];
            const unsigned columns = cuda::blocks_for(static_cast<std::size_t>(sw), kThreads);
            if (scale > 0 || p.speedup) {
                for (auto* plane : {&s.image, &s.mask}) {
                    to_scratch(*plane, 2 * sh - 1, 2 * sw - 1, s, stream);  // decimate reads (2i, 2j)
                    decimate_kernel<<<dim3(columns, static_cast<unsigned>(sh)), kThreads, 0, stream>>>(
                        s.scratch.get(), plane->get(), stride_, sw, sh);
                    cuda::check_launch("cambi decimate_kernel");
                }
            }
            if (sh > 2) {
                to_scratch(s.image, sh, sw, s, stream);
                mode_kernel<<<dim3(columns, static_cast<unsigned>(sh - 2)), kThreads, 0, stream>>>(
                    s.scratch.get(), s.image.get(), stride_, sw, sh);
                cuda::check_launch("cambi mode_kernel");
            }
            if (p.band != Band::kLevels) {
                std::uint16_t* at = s.host_planes.get() + plane_ * 2 * static_cast<std::size_t>(k * kScales + scale);
                cuda::check(cudaMemcpyAsync(at, s.image.get(), plane_ * sizeof(std::uint16_t), cudaMemcpyDeviceToHost,
                                            stream),
                            "copying cambi's image to the host");
                cuda::check(cudaMemcpyAsync(at + plane_, s.mask.get(), plane_ * sizeof(std::uint16_t),
                                            cudaMemcpyDeviceToHost, stream),
                            "copying cambi's mask to the host");
            }
            const ContrastArgs a{sw,
                                 sh,
                                 pad,
                                 p.band_base,
                                 p.band == Band::kLevels ? p.band_size : 0,
                                 p.num_diffs,
                                 steps_.get(),
                                 reciprocals_.get(),
                                 weights_.get(),
                                 plant_ == PlantedDefect::kMirrorShift ? 1 : 0};
            const dim3 tiles(cuda::blocks_for(static_cast<std::size_t>(sw), kTileSide),
                             cuda::blocks_for(static_cast<std::size_t>(sh), kTileSide));
            const int warps = many_warps_ && tiles.x * tiles.y < kFewTiles ? kManyWarps : kFewWarps;
            ContrastLayout layout(pad, p.num_diffs, a.shift, warps);
            const std::uint16_t *image = s.image.get(), *mask = s.mask.get();
            std::ptrdiff_t stride = stride_;
            float* at = c + g.offset[static_cast<std::size_t>(scale)];
            void* params[] = {&image, &mask, &stride, const_cast<ContrastArgs*>(&a), &layout, &at};
            cuda::check(cudaLaunchKernel(contrast_entry(layout.words, warps), tiles, dim3(32u * warps), params,
                                         layout.bytes, stream),
                        "cambi contrast_kernel");
            cuda::check_launch("cambi contrast_kernel");
        }
    }

    /// spatial_pooling's count of pooled values among n.
    int pooled(int n) const {
        const int want = static_cast<int>(plan_.topk * n);
        return want < 1 ? 1 : (want > n ? n : want);
    }

    // A picture's score (its c values at `first` in the slot's) from the slot's host copies or
    // device pooling, with the CPU's refusals and functions.
    double score(Slot& s, int k, std::size_t first, unsigned frame) {
        const char* what = k == 0 ? "distorted" : "reference";
        const unsigned long long key = s.host_keys[static_cast<std::size_t>(k)];
        if (key != ~0ull) throw cambi::sample_error(what, static_cast<unsigned>(key & 0xffffu), format_.bit_depth);
        const Geometry& g = geo_[k];
        const int pad = g.window >> 1;
        double per_scale[kScales];
        for (int scale = 0; scale < kScales; ++scale) {
            const int sw = g.w[static_cast<std::size_t>(scale)], sh = g.h[static_cast<std::size_t>(scale)];
            const std::size_t at = first + g.offset[static_cast<std::size_t>(scale)];
            if (plan_.band != Band::kLevels) {
                const std::uint16_t* at =
                    s.host_planes.get() + plane_ * 2 * static_cast<std::size_t>(k * kScales + scale);
                cambi::Buffers b;
                b.stride = stride_;
                b.image.assign(at, at + plane_);
                b.mask.assign(at + plane_, at + 2 * plane_);
                cambi::check_band_reach(plan_, b, scale, sw, sh, pad, frame, what);
            }
            if (!host_pool_) {
                const cambi::TopkSum& sum = s.pool->sum(static_cast<unsigned>(k * kScales + scale));
                if (sum.exact && proven_only_) {
                    per_scale[scale] = cambi::topk_value(sum) / pooled(sw * sh);  // the CPU's sum over k
                    continue;
                }
                // Not proven (cambi_topk.hpp): this scale's c values, still the slot's, pooled by
                // the CPU's own function.
                std::vector<float> c(static_cast<std::size_t>(sw) * static_cast<std::size_t>(sh));
                cuda::check(cudaMemcpy(c.data(), s.c.get() + at, c.size() * sizeof(float), cudaMemcpyDeviceToHost),
                            "copying cambi's c values to the host");
                per_scale[scale] = cambi::spatial_pooling(c.data(), plan_.topk, sw, sh);
                host_pooled_scales.fetch_add(1);
                continue;
            }
            float* values = s.host_c.get() + at;
            if (k == 0 && heatmaps_.fds[0] >= 0) heatmaps_.write(scale, values, sw, sh, frame);
            per_scale[scale] = cambi::spatial_pooling(values, plan_.topk, sw, sh);
        }
        return cambi::combine_scales(per_scale, g.window);
    }

    VideoFormat format_;
    cambi::Settings settings_;
    cambi::Plan plan_;
    PlantedDefect plant_;
    cuda::SlotFrames frames_;
    int pictures_ = 1;
    std::ptrdiff_t stride_ = 0;
    std::size_t plane_ = 0, values_ = 0;
    bool host_pool_ = false;  ///< heatmaps_path set: the c values copied, pooled on the host
    bool proven_only_ = true;  ///< false: every scale pooled on the host (host_pooling_for_tests)
    bool many_warps_ = false;  ///< kManyWarps' contrast_kernel fits the device's shared memory
    Geometry geo_[2];
    cuda::DeviceBuffer<float> reciprocals_;
    cuda::DeviceBuffer<int> weights_;
    cuda::DeviceBuffer<std::uint32_t> steps_;
    std::vector<Slot> slots_;
    cambi::Heatmaps heatmaps_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant};

}  // namespace

namespace cambi {

void host_pooling_for_tests(bool on) { force_host_pooling.store(on); }

unsigned host_pooled_scales_for_tests() { return host_pooled_scales.load(); }

std::vector<TopkSum> device_topk_sums(const std::vector<std::vector<float>>& arrays, const std::vector<int>& ks) {
    std::vector<TopkJob> jobs;
    std::vector<float> all;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        jobs.push_back({all.size(), static_cast<int>(arrays[i].size()), ks.at(i)});
        all.insert(all.end(), arrays[i].begin(), arrays[i].end());
    }
    cuda::DeviceBuffer<float> c = upload(all.data(), all.size());
    TopkPool pool(jobs);
    cudaStream_t stream = nullptr;
    cuda::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    std::vector<TopkSum> sums;
    try {
        pool.enqueue(c.get(), stream);
        cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    } catch (...) {
        cudaStreamDestroy(stream);
        throw;
    }
    cudaStreamDestroy(stream);
    for (unsigned i = 0; i < jobs.size(); ++i) sums.push_back(pool.sum(i));
    return sums;
}

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "cambi",
    make_twin<CambiTwin>,
    {exact_bound,
     "bound 0 at every format and option: the device computes with integers only (the conversion to 10 bits, "
     "the anti-dithering means, the mask's window sums, the decimation, the 3x3 mode and each pixel's window "
     "counts of its neighbouring levels, which equal the CPU's sliding histograms' counts: integers below "
     "4226), then each pixel's contrast with the CPU's own contrast_term (cambi_math.hpp: an int-to-float "
     "conversion and one IEEE float product by the CPU's reciprocal table) and the same maximum over the same "
     "steps. The pooling's double sum of the k largest c values in quick_select's order is computed on the device "
     "as an integer sum in units of the smallest pooled value's ulp, which equals the CPU's sum whatever its order "
     "wherever it stays below 2^53 units (cambi_topk.hpp: every partial sum is then a double exactly; the k "
     "largest found by a radix selection on the values' bits); where it does not, the host pools that scale's c "
     "values with the CPU's spatial_pooling. The division by k, the weighted sum over scales, the window area "
     "division, the heatmap files (with the c values copied back) and the refusals are the CPU's own functions "
     "on the host"},
    kDefects,
    "no a*b+c in floating point on the device: the only float operation is contrast_term, one int-to-float "
    "conversion and one product; the pooled sum is an integer sum, proven the CPU's running double sum",
};

}  // namespace cambi

}  // namespace vmafx
