// CUDA twin of the integer VIF metric (vif.cpp), bit-identical to it on every frame.
//
// Per frame, on the frame's stream: a memset of the slot's device results, one kernel per scale
// (scale_kernel<S>), and the copy of the results to the slot's pinned host memory. The kernel of
// scale S reads the scale's two pictures (the luma at scale 0, else the uint16 pictures the
// previous kernel decimated) and, per tile of kTileRows x kTileColumns samples:
//  1. vertical pass (one column and kRowsPerThread rows per thread; the input rows stream
//     through once, coalesced, each one's products formed once and added with its tap to the
//     sums of every output row it reaches; borders mirrored): the vertically filtered means and
//     products of the tile and its horizontal halo into shared memory, and for scales 0..2 the
//     vertical pass of the decimation (the next scale's taps) at the even rows;
//  2. decimation: the horizontal pass of the decimation at the even columns, written to the next
//     scale's pictures;
//  3. horizontal pass (a warp's lanes are the tile's 32 rows, each runs along kRun outputs of its
//     row): the filtered means and products, the variances, and the per-sample VIF terms
//     (2048 * log2 from a packed copy of the CPU's table in shared memory);
//     the filter sums the CPU keeps in uint64 (the products' horizontal pass, and their vertical
//     pass except at 8 bits and scale 0, which runs on the tensor cores) are summed here as
//     doubles, exactly: integers below 2^49, so no fused multiply-add rounds (exact_double,
//     floor_low32);
//  4. the terms are integers: added per thread, per warp (__reduce_add_sync; for 64 bits
//     gpu::warp_sum_u64), per block, and into the slot's four 64-bit sums of the scale with
//     one atomicAdd each. Integer sums are exact in any order, so they equal the CPU's.
// Scale 0 of 8-bit video (most of the twin's time: 142 of 222 us a 4K frame on an H100) runs
// passes 1 and 3 on the tensor cores instead (vertical_mma, horizontal_mma): each 17-tap pass
// over 16 x 8 outputs is a product of an 8-bit matrix and a Toeplitz matrix of the taps' bytes
// (mma.sync m16n8k32, exact int32 sums), the values split into their bytes and the byte products
// summed with their weights in uint32; the vertical pass writes its results as byte planes
// (TileMma) that are the horizontal pass's operands. Every value formed is the CPU's integer
// (its uint32 sums at 8 bits and scale 0); see the section of those passes.
// finish() turns the sums into scores with the CPU's host code (score_of, write_scores).
// Every rounding, shift and term is the CPU's (vif_math.hpp, shared); the taps are kFilters.
// Upstream: libvmaf 3.2.0 src/feature/integer_vif.c.
//
// Planted regressions (tests of the parity gate only; the twin's plant_, fixed at creation and
// passed to the kernels in ScaleArgs), all inside scale_kernel:
//  kMirrorShift:      scale 0's vertical pass mirrors the rows below the bottom edge one row off
//                     (height - 1 + k reads height - 2 - k);
//  kRoundingConstant: the horizontal pass of ref*ref rounds with 2^14 instead of 2^15
//                     (filter_products, from horizontal_run).
// No kContraction: the device's one floating-point a*b+c that can round is sv = s2 - g * s12
// (double; the filter sums' explicit fused multiply-adds act on integers below 2^49 and round
// nothing), and a
// fused multiply-add there moves sv by at most half an ulp of g * s12 (2^-23 below 2^31) before
// sv is truncated to an integer, so it changes a term only where an integer lies between the two
// roundings, and even then by one unit of sv, which the log2 table (16 significant bits) and the
// float scale numerator mostly absorb: planted, it left all 124 rows of `vmafx-parity --random 1 --seed 5 --twin vif` identical (H200,
// 2026-11-30), so the gate cannot be shown to catch it and it is not declared.
// No kReductionOrder: every sum is an integer sum (order-free); a sum in float instead would be
// off by a few units in sums above 2^24, below what the float scale numerators and denominators
// keep, so the gate could not be shown to catch it on every run either.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/warp_sum.cuh"
#include "gpu/twin.hpp"
#include "feature/vif/vif.hpp"
#include "feature/vif/vif_math.hpp"

namespace vmafx {

namespace {

using vif::kFilters;
using vif::kScales;

// ---------------------------------------------------------------------------------------------
// Geometry of the scale kernels.

/// Threads per block of scale_kernel and their warps.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
/// Output rows of a tile: one per lane of a warp in the horizontal pass.
constexpr int kTileRows = 32;
/// Output columns of a tile.
constexpr int kTileColumns = 112;
/// Rows of the vertical pass per thread, and the thread groups that share a column.
constexpr int kRowsPerThread = 16;
constexpr int kRowGroups = kTileRows / kRowsPerThread;
/// Threads of one row group: one column of the tile or its halo each.
constexpr int kGroupThreads = kThreads / kRowGroups;
/// Outputs of one run of the horizontal pass (a lane's consecutive columns), and the runs of a
/// warp (its lanes cover the tile's columns [kRun * kRunsPerWarp * warp, ...)).
constexpr int kRun = 7;
constexpr int kRunsPerWarp = kTileColumns / (kRun * kWarps);
/// Taps and widths of kFilters as compile-time constants the device code can use.
template <int S, int K>
inline constexpr std::uint32_t kTap = kFilters[S].taps[K];
template <int S>
inline constexpr int kWidth = kFilters[S].width;

/// Words per shared-memory row of the vertical results: odd, so that the 32 lanes of a warp
/// (32 rows, same column) hit 32 different banks; holds the tile and its widest halo
/// (scale 0's, vif::kMaxHalf).
constexpr int kPitch = kTileColumns + 2 * vif::kMaxHalf + 1;
/// Rows and words per row of the vertical pass of the decimation (the tile's even rows, with
/// the widest decimation halo: scale 1's taps).
constexpr int kConvRows = kTileRows / 2;
constexpr int kConvPitch = kTileColumns + 2 * (kWidth<1> / 2) + 1;

static_assert(kTileRows == 32, "the horizontal pass maps the 32 lanes of a warp to the tile's rows");
static_assert(kRowGroups * kRowsPerThread == kTileRows);
static_assert(kRun * kRunsPerWarp * kWarps == kTileColumns && kTileColumns % 2 == 0);
static_assert(kWidth<0> / 2 == vif::kMaxHalf && kTileColumns + 2 * vif::kMaxHalf <= kGroupThreads);
static_assert(kPitch % 2 == 1);

/// Whether filter f is symmetric with taps summing to 65536 (the horizontal passes rely on both).
constexpr bool symmetric_unit_filter(const vif::Filter& f) {
    std::uint32_t sum = 0;
    for (int k = 0; k < f.width; ++k) {
        if (f.taps[k] != f.taps[f.width - 1 - k]) return false;
        sum += f.taps[k];
    }
    return f.width % 2 == 1 && sum == 65536;
}
static_assert(symmetric_unit_filter(kFilters[0]) && symmetric_unit_filter(kFilters[1]) &&
              symmetric_unit_filter(kFilters[2]) && symmetric_unit_filter(kFilters[3]));

/// Tap k of scale S's filter (k a compile-time constant after unrolling: an immediate).
template <int S, int... K>
__device__ __forceinline__ std::uint32_t tap_of(int k, std::integer_sequence<int, K...>) {
    const std::uint32_t taps[] = {kTap<S, K>...};
    return taps[k];
}
template <int S>
__device__ __forceinline__ std::uint32_t tap(int k) {
    return tap_of<S>(k, std::make_integer_sequence<int, kWidth<S>>{});
}

/// What the kernel of scale S does and how far its tiles reach.
template <int S, typename Sample = std::uint16_t>
struct ScaleGeometry {
    static constexpr int kHalf = kWidth<S> / 2;  ///< halo of the statistics filter
    static constexpr bool kDecimates = S + 1 < kScales;
    static constexpr int kNext = kDecimates ? S + 1 : S;  ///< filter of the decimation
    static constexpr int kDecimationHalf = kDecimates ? kWidth<kNext> / 2 : 0;
    static_assert(kDecimationHalf <= kHalf, "the decimation reads within the statistics halo");
    static constexpr int kColumns = kTileColumns + 2 * kHalf;  ///< columns of the vertical pass
    /// Output rows a thread's vertical pass holds the sums of at a time (vertical_chunk): as
    /// many as fit the registers without spilling (64-bit product sums except at 8 bits).
    static constexpr int kChunkRows = S == 0 ? (sizeof(Sample) == 1 ? 16 : 4) : 8;
    static constexpr int kWindow = kChunkRows + 2 * kHalf;  ///< input rows of a chunk
    static_assert(kRowsPerThread % kChunkRows == 0 && kChunkRows % 2 == 0);
};

// ---------------------------------------------------------------------------------------------
// The log2 table on the device: the CPU's log2_table() packed 8 entries to a word.

/// round(2048 * log2(32768)): the smallest entry that the VIF terms read.
constexpr std::uint32_t kLog2Base = 2048 * 15;
/// Packed entries: one per 8 consecutive indices of [32768, 65536); 16-byte vectors of them.
constexpr int kPackedLog2Entries = 32768 / 8;
constexpr int kPackedLog2Vectors = kPackedLog2Entries * 2 / 16;

/// Packs log2_table(): over 8 consecutive indices the table rises by at most 1 (its slope,
/// 2048 / (i ln 2), is below 1/11 there), so entry b holds table[32768 + 8b] - kLog2Base
/// (12 bits) and, in its top 4 bits, the first k in 1..7 with table[32768 + 8b + k] one more
/// (8: none). Checks every index against the table (throws Error if one differs).
std::vector<std::uint16_t> pack_log2_table() {
    const auto& table = vif::log2_table();
    std::vector<std::uint16_t> packed(kPackedLog2Entries);
    for (int b = 0; b < kPackedLog2Entries; ++b) {
        const std::uint32_t first = 32768 + 8 * static_cast<std::uint32_t>(b);
        const std::uint32_t base = table[first];
        std::uint32_t step = 8;
        for (std::uint32_t k = 1; k < 8 && step == 8; ++k)
            if (table[first + k] != base) step = k;
        if (base < kLog2Base || base - kLog2Base > 0xfff)
            throw Error("vif (CUDA): internal: log2 table entry " + std::to_string(first) + " out of range");
        for (std::uint32_t k = 0; k < 8; ++k)
            if (table[first + k] != base + (k >= step ? 1u : 0u))
                throw Error("vif (CUDA): internal: log2 table rises by more than 1 at " +
                            std::to_string(first + k));
        packed[b] = static_cast<std::uint16_t>((base - kLog2Base) | (step << 12));
    }
    return packed;
}

/// The packed table (in shared memory) as a Table for vif::add_sample_terms: entry i of log2_table()
/// for i in [32768, 65536).
struct PackedLog2 {
    const std::uint16_t* packed;
    __device__ std::uint32_t operator()(std::uint32_t i) const {
        const std::uint32_t e = packed[(i >> 3) - kPackedLog2Entries];
        return kLog2Base + (e & 0xfffu) + ((i & 7u) >= (e >> 12) ? 1u : 0u);
    }
};

// ---------------------------------------------------------------------------------------------
// The kernel.

/// Arguments of scale_kernel<S>.
struct ScaleArgs {
    const unsigned char* ref;  ///< the scale's reference picture, rows ref_pitch bytes apart
    std::ptrdiff_t ref_pitch;
    const unsigned char* dis;  ///< the distorted picture, rows dis_pitch bytes apart
    std::ptrdiff_t dis_pitch;
    int width, height;         ///< of the scale's pictures
    int bit_depth;             ///< of the video
    std::uint16_t* ref_out;    ///< next scale's (width/2) x (height/2) pictures (scales 0..2)
    std::uint16_t* dis_out;
    std::ptrdiff_t out_pitch;  ///< in samples
    unsigned long long* sums;  ///< num_log, den_log, num_non_log, den_non_log of the scale
    unsigned* max_sample;      ///< scale 0 at 9..15 bits: largest ref, dis sample; else null
    const std::uint16_t* log2_packed;  ///< pack_log2_table() in device memory
    const std::uint32_t* mma_fragments;  ///< mma_fragments() in device memory
    double gain_limit;                 ///< vif_enhn_gain_limit
    bool statistics;                   ///< false: decimate only (scale 0 with vif_skip_scale0)
    // Planted defects (parity-gate tests only; the exact values otherwise).
    std::uint32_t xx_round;  ///< rounding of the horizontal pass of ref*ref: 1 << 15 (exact)
    bool mirror_shift;       ///< scale 0's bottom border mirrored one row off
};

/// Device results of one frame: the four sums of each scale, and the largest luma samples.
struct FrameResults {
    unsigned long long sums[kScales][4];  ///< num_log, den_log, num_non_log, den_non_log
    unsigned max_sample[2];               ///< reference, distorted (9..15 bits only)
};

/// Shared memory of one block: the vertically filtered means and products of the tile's rows
/// and columns -kHalf .. kTileColumns + kHalf - 1 (as uint32), the vertical pass of the
/// decimation at the even rows, the packed log2 table, and the warps' sums.
struct Tile {
    std::uint32_t mu1[kTileRows * kPitch];
    std::uint32_t mu2[kTileRows * kPitch];
    std::uint32_t xx[kTileRows * kPitch];
    std::uint32_t yy[kTileRows * kPitch];
    std::uint32_t xy[kTileRows * kPitch];
    std::uint32_t conv_ref[kConvRows * kConvPitch];
    std::uint32_t conv_dis[kConvRows * kConvPitch];
    std::uint16_t log2[kPackedLog2Entries];
    unsigned long long warp_sums[kWarps][4];
};
static_assert(offsetof(Tile, log2) % 16 == 0 && sizeof(Tile::log2) % 16 == 0);

/// Bytes per row of a byte plane of TileMma: holds the tile and its halo (128 columns) and the
/// 8 columns the last horizontal product reads past them (times zero taps); 160 = 40 words, so
/// that the 8-byte loads of the A operands (rows g, columns 8t) of a half warp hit distinct banks.
constexpr int kPlanePitch = 160;
/// The byte planes of TileMma: the vertically filtered means (2 bytes each) and products (4).
constexpr int kMu1Plane = 0, kMu2Plane = 2, kXxPlane = 4, kYyPlane = 8, kXyPlane = 12, kPlanes = 16;

/// Shared memory of one block of scale 0 at 8 bits with the tensor-core passes: the vertically
/// filtered means and products of the tile as byte planes (byte k of every value in plane
/// first + k), then as Tile.
struct TileMma {
    std::uint8_t planes[kPlanes][kTileRows * kPlanePitch];
    int rows[kTileRows + 2 * vif::kMaxHalf];  ///< picture rows of the input rows y0 - 8 .. y0 + 39
    std::uint32_t conv_ref[kConvRows * kConvPitch];
    std::uint32_t conv_dis[kConvRows * kConvPitch];
    std::uint16_t log2[kPackedLog2Entries];
    unsigned long long warp_sums[kWarps][4];
};
static_assert(offsetof(TileMma, log2) % 16 == 0 && sizeof(TileMma::planes[0]) % 16 == 0);
static_assert(kTileColumns + 2 * vif::kMaxHalf + 8 <= kPlanePitch && kPlanePitch % 32 == 0);

/// Dynamic shared memory of every scale_kernel: the larger tile (one size for all kernels).
constexpr std::size_t kSharedBytes = sizeof(Tile) > sizeof(TileMma) ? sizeof(Tile) : sizeof(TileMma);

/// The smaller of two ints.
__device__ __forceinline__ int min_of(int a, int b) { return a < b ? a : b; }

// Exact integer sums on the double-precision pipe. The 64-bit sums of the filters (taps below
// 2^16 times values below 2^32: below 2^48) are integers below 2^53, so a double holds each
// term and every partial sum exactly and a fused multiply-add of them rounds nothing: the sums
// equal the CPU's uint64 sums in any order. On the device an IMAD.WIDE and 64-bit adds, or two
// 32-bit halves, cost two to three integer instructions a tap where one DFMA does, and the DFMAs
// run on the FP64 pipe beside the integer ones.

/// 2^52: doubles in [2^52, 2^53) are the integers, one apart, with the integer's bits in the low
/// word of the double's bits.
constexpr double kTwo52 = 4503599627370496.0;

/// v as a double, exactly: the double with bits 2^52's | v is 2^52 + v (a double add instead of a
/// conversion instruction, which runs at a quarter of the rate).
__device__ __forceinline__ double exact_double(std::uint32_t v) {
    return __dadd_rn(__hiloint2double(0x43300000, static_cast<int>(v)), -kTwo52);
}

/// floor(sum * unit) modulo 2^32 for a double `sum` holding an integer in [0, 2^52) and `unit` a
/// power of two with sum * unit below 2^52: the one rounding (down) of 2^52 + sum * unit lands on
/// 2^52 + floor(sum * unit), whose low word is the result. With sum = acc + round and unit =
/// 2^-shift it is the CPU's (uint32_t)((acc + round) >> shift).
__device__ __forceinline__ std::uint32_t floor_low32(double sum, double unit) {
    return static_cast<std::uint32_t>(__double2loint(__fma_rd(sum, unit, kTwo52)));
}

/// 2^-shift as a double (shift in 0..32).
__device__ __forceinline__ double unit_of(int shift) { return __hiloint2double((1023 - shift) << 20, 0); }

/// Sample (row, column) of a picture of Sample words with rows `pitch` bytes apart.
template <typename Sample>
__device__ __forceinline__ std::uint32_t load_sample(const unsigned char* picture, std::ptrdiff_t pitch, int row,
                                                     int column) {
    return __ldg(reinterpret_cast<const Sample*>(picture + static_cast<std::ptrdiff_t>(row) * pitch) + column);
}

/// Picture row of input row y of a scale whose filter reaches `half` rows (mirrored; rows past
/// height - 1 + half are never read and are clamped to a valid one). At scale 0 (`plantable`)
/// the planted kMirrorShift mirrors the bottom one row off.
__device__ __forceinline__ int input_row(const ScaleArgs& a, int y, int half, bool plantable) {
    y = min_of(y, a.height - 1 + half);
    return plantable && a.mirror_shift && y >= a.height ? 2 * a.height - 3 - y : vif::mirror(y, a.height);
}

/// Vertical passes of one chunk of one tile column: output rows first_row .. first_row +
/// kChunkRows - 1 of the tile at tile column `column` (picture column x), from the picture rows
/// r0 - kHalf .. r0 + kChunkRows - 1 + kHalf (mirrored; r0 = y0 + first_row). Writes, where
/// `statistics`, the filtered means mu = (sum c*x + round) >> shift and products
/// (sum c*x*y + round) >> square_shift (as the CPU's vertical_statistics: products in 64 bits
/// here; 8-bit samples at scale 0 take vertical_mma instead) to the tile, and for scales 0..2 the vertical pass of
/// the decimation at the chunk's even rows (the CPU's generic_decimation_at, first loop, with
/// the next scale's taps) to the conv rows first_row/2 .. at conv column `conv_column` (when it
/// lies in [0, conv_columns)). Raises ref_max and dis_max to the largest samples read.
///
/// The input rows stream through once: each is loaded, its three products x*x, y*y, x*y formed
/// once (below 2^32 at 16 bits), and added with its tap to every output row it reaches. The
/// CPU forms (c*x)*x instead of c*(x*x): the same value, exactly at 64 bits (c*x < 2^32 since
/// every tap is below 2^16).
template <int S, typename Sample>
__device__ __forceinline__ void vertical_chunk(const ScaleArgs& a, Tile& tile, int first_row, int r0, int column,
                                               int x, int conv_column, std::uint32_t& ref_max,
                                               std::uint32_t& dis_max) {
    using G = ScaleGeometry<S, Sample>;
    constexpr int kChunkRows = G::kChunkRows;
    // The CPU's products sums in uint64 (here doubles, exact).
    static_assert(!(S == 0 && sizeof(Sample) == 1), "scale 0 at 8 bits: vertical_mma");
    std::uint32_t mu1[kChunkRows] = {}, mu2[kChunkRows] = {};
    double xx[kChunkRows] = {}, yy[kChunkRows] = {}, xy[kChunkRows] = {};
    std::uint32_t dec_ref[kChunkRows / 2] = {}, dec_dis[kChunkRows / 2] = {};
#pragma unroll
    for (int m = 0; m < G::kWindow; ++m) {
        const int row = input_row(a, r0 - G::kHalf + m, G::kHalf, S == 0);
        const std::uint32_t rv = load_sample<Sample>(a.ref, a.ref_pitch, row, x);
        const std::uint32_t dv = load_sample<Sample>(a.dis, a.dis_pitch, row, x);
        ref_max = rv > ref_max ? rv : ref_max;
        dis_max = dv > dis_max ? dv : dis_max;
        const double rr_d = exact_double(rv * rv), dd_d = exact_double(dv * dv), rd_d = exact_double(rv * dv);
#pragma unroll
        for (int i = 0; i < kChunkRows; ++i) {
            const int k = m - i;  // tap of input row m in output row i
            if (k < 0 || k >= kWidth<S>) continue;
            const std::uint32_t c = tap<S>(k);
            mu1[i] += c * rv;
            mu2[i] += c * dv;
            const double cd = static_cast<double>(tap<S>(k));
            xx[i] = __fma_rn(cd, rr_d, xx[i]);
            yy[i] = __fma_rn(cd, dd_d, yy[i]);
            xy[i] = __fma_rn(cd, rd_d, xy[i]);
        }
        if constexpr (G::kDecimates) {
#pragma unroll
            for (int i = 0; i < kChunkRows; i += 2) {
                const int k = m - (i + G::kHalf - G::kDecimationHalf);  // decimation tap of row m
                if (k < 0 || k >= kWidth<G::kNext>) continue;
                dec_ref[i / 2] += tap<G::kNext>(k) * rv;
                dec_dis[i / 2] += tap<G::kNext>(k) * dv;
            }
        }
    }
    const int mean_shift = vif::vertical_shift(S, a.bit_depth);
    if (a.statistics) {
        const int square_shift = vif::vertical_square_shift(S, a.bit_depth);
        const std::uint32_t mean_round = vif::rounding(mean_shift);
        const std::uint32_t square_round = vif::rounding(square_shift);
        const double square_unit = unit_of(square_shift);
#pragma unroll
        for (int i = 0; i < kChunkRows; ++i) {
            const int at = (first_row + i) * kPitch + column;
            tile.mu1[at] = static_cast<std::uint16_t>((mu1[i] + mean_round) >> mean_shift);
            tile.mu2[at] = static_cast<std::uint16_t>((mu2[i] + mean_round) >> mean_shift);
            // Below 2^48 plus the rounding: exact; (sum + round) >> shift as floor_low32.
            const double r = static_cast<double>(square_round);
            tile.xx[at] = floor_low32(__dadd_rn(xx[i], r), square_unit);
            tile.yy[at] = floor_low32(__dadd_rn(yy[i], r), square_unit);
            tile.xy[at] = floor_low32(__dadd_rn(xy[i], r), square_unit);
        }
    }
    if constexpr (G::kDecimates) {
        if (conv_column >= 0 && conv_column < kTileColumns + 2 * G::kDecimationHalf) {
            const std::uint32_t round = vif::rounding(mean_shift);
#pragma unroll
            for (int i = 0; i < kChunkRows; i += 2) {
                const int at = (first_row + i) / 2 * kConvPitch + conv_column;
                tile.conv_ref[at] = static_cast<std::uint16_t>((dec_ref[i / 2] + round) >> mean_shift);
                tile.conv_dis[at] = static_cast<std::uint16_t>((dec_dis[i / 2] + round) >> mean_shift);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scale 0 at 8 bits: the vertical and horizontal passes as integer tensor-core products.
//
// A vertical pass is a product of matrices: the 16 output rows of a block of a tile column group
// (8 columns) are T * X, with X the 32 input rows around them (32 x 8 samples) and T the 16 x 32
// Toeplitz matrix of the taps (T[i][j] = c[j - i]). mma.sync m16n8k32 multiplies 8-bit matrices
// into int32 sums, exactly; the taps (below 2^13) and the products x*x, y*y, x*y (below 2^16)
// are split into their bytes, and the byte products are summed with their weights 2^8 and 2^16
// in uint32. Every sum equals the CPU's uint32 sum (sum c*x below 2^24, sum c*x*x below 2^32).
// The decimation's vertical pass (the next scale's 9 taps at the even rows) is a second
// Toeplitz matrix on the same X. The results go to shared memory as byte planes.
//
// A horizontal pass is X * B for 16 rows and 8 output columns: X the 16 x 32 bytes of one plane
// (24 columns used) and B the 32 x 8 Toeplitz matrix of the taps' bytes. The means (2 bytes)
// give 3 weighted sums, the products (4 bytes) 5, whose sum (below 2^48) is rounded and shifted
// by 16 in uint32 without forming it (horizontal_products_mma). The terms of each output are
// then the scalar path's (vif::variances, vif::add_sample_terms).

/// The A operand of one m16n8k32 product: rows g and g + 8, columns 4t..4t+3 and 16+4t..16+4t+3
/// of a 16 x 32 matrix of bytes (g = lane / 4, t = lane % 4), low byte first.
struct MmaA {
    std::uint32_t w[4];
};

/// The B operand: rows 4t..4t+3 and 16+4t..16+4t+3 of column g of a 32 x 8 matrix of bytes.
struct MmaB {
    std::uint32_t w[2];
};

/// d += A * B (16 x 8 sums in int32: d[0], d[1] at row g, columns 2t, 2t+1; d[2], d[3] at row
/// g + 8).
__device__ __forceinline__ void mma_u8(int (&d)[4], const MmaA& a, const MmaB& b) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a.w[0]), "r"(a.w[1]), "r"(a.w[2]), "r"(a.w[3]), "r"(b.w[0]), "r"(b.w[1]));
}

/// Byte `piece` (0 low, 1 high) of filter f's taps in row `row` of a Toeplitz matrix whose row i
/// holds tap k at column shift + step * i + k (0 in rows from `rows` on and outside the filter),
/// for columns col .. col + 3, low byte first; `column_of` maps a K index to its column.
template <typename ColumnOf>
std::uint32_t toeplitz_word(const vif::Filter& f, int row, int col, int piece, int step, int shift, int rows,
                            ColumnOf column_of) {
    std::uint32_t w = 0;
    for (int b = 0; b < 4; ++b) {
        const int k = column_of(col + b) - (shift + step * row);
        if (row < rows && k >= 0 && k < f.width) w |= ((f.taps[k] >> (8 * piece)) & 0xffu) << (8 * b);
    }
    return w;
}

/// The window column of K index k of the horizontal products: lane t's two A words (k = 4t..4t+3
/// and 16+4t..16+4t+3) are the 8 consecutive columns 8t..8t+7, one 8-byte load.
constexpr int window_column(int k) { return k < 16 ? 8 * (k / 4) + k % 4 : 8 * ((k - 16) / 4) + 4 + k % 4; }

/// Words of the constant MMA operands per lane (mma_fragments): the vertical statistics' Toeplitz
/// matrix (high, low bytes: 4 words each), the decimation's (4 + 4), and the horizontal B
/// operands (low, high: 2 + 2).
constexpr int kStatHi = 0, kStatLo = 4, kDecHi = 8, kDecLo = 12, kHorLo = 16, kHorHi = 18, kFragmentWords = 20;

/// The constant operands of scale 0's tensor-core passes for every lane, word w of lane l at
/// [w * 32 + l] (each warp's loads of a word coalesced), from kFilters: the vertical statistics'
/// T[i][j] = c0[j - i] (16 x 32); the decimation's rows i < 8, the even output rows 2i, with
/// c1[k] at column 2i + 4 + k (kHalf - kDecimationHalf = 4); the horizontal B[k][n] =
/// c0[window_column(k) - n] (32 x 8). A operands: lane (g, t) holds rows g, g + 8 of columns
/// 4t..4t+3 and 16+4t..16+4t+3; B operands: rows 4t..4t+3 and 16+4t..16+4t+3 of column g
/// (PTX ISA, mma.m16n8k32 fragments for .u8).
std::vector<std::uint32_t> mma_fragments() {
    std::vector<std::uint32_t> words(kFragmentWords * 32);
    const auto same = [](int k) { return k; };
    for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        const auto put = [&](int word, std::uint32_t value) { words[static_cast<std::size_t>(word) * 32 + lane] = value; };
        for (int piece = 0; piece < 2; ++piece) {
            const int stat = piece == 1 ? kStatHi : kStatLo;
            const int dec = piece == 1 ? kDecHi : kDecLo;
            const int rows[4] = {g, g + 8, g, g + 8};
            const int cols[4] = {4 * t, 4 * t, 16 + 4 * t, 16 + 4 * t};
            for (int w = 0; w < 4; ++w) {
                put(stat + w, toeplitz_word(kFilters[0], rows[w], cols[w], piece, 1, 0, 16, same));
                put(dec + w, toeplitz_word(kFilters[1], rows[w], cols[w], piece, 2, 4, 8, same));
            }
            // B[k][n] = c0[window_column(k) - n]: the transposed Toeplitz row n = g, shift 0, step 1.
            const int hor = piece == 1 ? kHorHi : kHorLo;
            put(hor, toeplitz_word(kFilters[0], g, 4 * t, piece, 1, 0, 8, window_column));
            put(hor + 1, toeplitz_word(kFilters[0], g, 16 + 4 * t, piece, 1, 0, 8, window_column));
        }
    }
    return words;
}

/// Word `first` .. first + 3 of this lane's constant operands as an A operand.
__device__ __forceinline__ MmaA fragment_a(const std::uint32_t* fragments, int first, int lane) {
    return MmaA{{__ldg(fragments + first * 32 + lane), __ldg(fragments + (first + 1) * 32 + lane),
                 __ldg(fragments + (first + 2) * 32 + lane), __ldg(fragments + (first + 3) * 32 + lane)}};
}

/// Word `first`, first + 1 of this lane's constant operands as a B operand.
__device__ __forceinline__ MmaB fragment_b(const std::uint32_t* fragments, int first, int lane) {
    return MmaB{{__ldg(fragments + first * 32 + lane), __ldg(fragments + (first + 1) * 32 + lane)}};
}

/// Four samples of one column as bytes of a word, and their products split into low and high
/// bytes: the B operands' words of one group of 4 input rows.
struct RowQuad {
    std::uint32_t ref, dis;                            ///< x, y (low byte: the first row)
    std::uint32_t rr_lo, rr_hi, dd_lo, dd_hi, rd_lo, rd_hi;  ///< bytes of x*x, y*y, x*y
};

/// Low and high bytes of four 16-bit values p0..p3 (low byte first).
__device__ __forceinline__ void split_bytes(std::uint32_t p0, std::uint32_t p1, std::uint32_t p2, std::uint32_t p3,
                                            std::uint32_t& lo, std::uint32_t& hi) {
    const std::uint32_t p01 = p0 | (p1 << 16), p23 = p2 | (p3 << 16);
    lo = __byte_perm(p01, p23, 0x6420);
    hi = __byte_perm(p01, p23, 0x7531);
}

/// Loads picture rows rows[0..3] of picture column x of both 8-bit pictures and forms their
/// products.
__device__ __forceinline__ RowQuad load_quad(const ScaleArgs& a, const int* rows, int x) {
    std::uint32_t r[4], d[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        r[i] = load_sample<std::uint8_t>(a.ref, a.ref_pitch, rows[i], x);
        d[i] = load_sample<std::uint8_t>(a.dis, a.dis_pitch, rows[i], x);
    }
    RowQuad q;
    q.ref = __byte_perm(r[0] | (r[1] << 8), r[2] | (r[3] << 8), 0x5410);
    q.dis = __byte_perm(d[0] | (d[1] << 8), d[2] | (d[3] << 8), 0x5410);
    split_bytes(r[0] * r[0], r[1] * r[1], r[2] * r[2], r[3] * r[3], q.rr_lo, q.rr_hi);
    split_bytes(d[0] * d[0], d[1] * d[1], d[2] * d[2], d[3] * d[3], q.dd_lo, q.dd_hi);
    split_bytes(r[0] * d[0], r[1] * d[1], r[2] * d[2], r[3] * d[3], q.rd_lo, q.rd_hi);
    return q;
}

/// sum c*v over the block for a sample word (taps split in two bytes): 256 * hi + lo, the 16 x 8
/// sums in the D layout.
__device__ __forceinline__ void filter_samples(const MmaA& hi, const MmaA& lo, const MmaB& b, std::uint32_t (&out)[4]) {
    int h[4] = {}, l[4] = {};
    mma_u8(h, hi, b);
    mma_u8(l, lo, b);
#pragma unroll
    for (int e = 0; e < 4; ++e) out[e] = (static_cast<std::uint32_t>(h[e]) << 8) + static_cast<std::uint32_t>(l[e]);
}

/// The product of two 16-bit matrices given as their bytes, a = a_lo + 2^8 a_hi and b = b_lo +
/// 2^8 b_hi: the byte products' sums with their weights (2^16, 2^8, 1), modulo 2^32 (exact where
/// the true sums are below 2^32: the vertical pass's sums c*p, the horizontal pass's c*mu).
__device__ __forceinline__ void product_16x16(const MmaA& a_lo, const MmaA& a_hi, const MmaB& b_lo, const MmaB& b_hi,
                                              std::uint32_t (&out)[4]) {
    int hh[4] = {}, mid[4] = {}, ll[4] = {};
    mma_u8(hh, a_hi, b_hi);
    mma_u8(mid, a_hi, b_lo);
    mma_u8(mid, a_lo, b_hi);
    mma_u8(ll, a_lo, b_lo);
#pragma unroll
    for (int e = 0; e < 4; ++e)
        out[e] = (static_cast<std::uint32_t>(hh[e]) << 16) + (static_cast<std::uint32_t>(mid[e]) << 8) +
                 static_cast<std::uint32_t>(ll[e]);
}

/// Writes the 16 x 8 values v (D layout) of one block at tile row row0 (d[2], d[3]: row0 + 8) and
/// tile column `column` (d[1], d[3]: column + 1) as `bytes` byte planes from plane `first`.
__device__ __forceinline__ void store_planes(TileMma& tile, int first, int bytes, int row0, int column,
                                             const std::uint32_t (&v)[4]) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        const int at = (row0 + 8 * half) * kPlanePitch + column;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            if (k >= bytes) break;
            const std::uint32_t pair = __byte_perm(v[2 * half], v[2 * half + 1], k | ((4 + k) << 4));
            *reinterpret_cast<std::uint16_t*>(tile.planes[first + k] + at) = static_cast<std::uint16_t>(pair);
        }
    }
}

/// The vertical passes of scale 0 at 8 bits for the whole tile (vertical_chunk's work there):
/// warp w computes tile column groups 2w and 2w + 1 (8 columns each: the tile and its halo,
/// 128 columns), both 16-row blocks, and writes the tile's means and products (the values
/// vertical_chunk writes, as byte planes) and the decimation's vertical pass (conv rows, as
/// vertical_chunk).
__device__ __forceinline__ void vertical_mma(const ScaleArgs& a, TileMma& tile, int x0, int y0) {
    using G = ScaleGeometry<0, std::uint8_t>;
    static_assert(G::kColumns == 16 * kWarps && kTileRows == 32 && G::kHalf == 8 && G::kDecimationHalf == 4);
    static_assert(G::kWindow == 32, "16 output rows read 32 input rows: the k of m16n8k32");
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int g = lane / 4, t = lane % 4;
    // Statistics: T[i][j] = c0[j - i]. Decimation: rows i < 8 are the even output rows 2i, whose
    // taps c1[k] sit at input row 2i + (kHalf - kDecimationHalf) + k.
    static_assert(G::kHalf - G::kDecimationHalf == 4, "mma_fragments places the decimation's taps 4 columns on");
    const MmaA stat_hi = fragment_a(a.mma_fragments, kStatHi, lane), stat_lo = fragment_a(a.mma_fragments, kStatLo, lane);
    const MmaA dec_hi = fragment_a(a.mma_fragments, kDecHi, lane), dec_lo = fragment_a(a.mma_fragments, kDecLo, lane);
    const int mean_shift = vif::vertical_shift(0, a.bit_depth);
    const int square_shift = vif::vertical_square_shift(0, a.bit_depth);
    const std::uint32_t mean_round = vif::rounding(mean_shift);
    const std::uint32_t square_round = vif::rounding(square_shift);
#pragma unroll 1
    for (int group = 2 * warp; group < 2 * warp + 2; ++group) {
        // This lane's B column: tile column 8 * group + g (picture column mirrored as in phase 1).
        const int x = vif::mirror(min_of(x0 - G::kHalf + 8 * group + g, a.width - 1 + G::kHalf), a.width);
        // Input rows y0 - 8 + 16m + [0, 16) for m = 0..2 (tile.rows); this lane holds 4t..4t+3 of each.
        RowQuad quads[3];
#pragma unroll
        for (int m = 0; m < 3; ++m) quads[m] = load_quad(a, tile.rows + 16 * m + 4 * t, x);
#pragma unroll
        for (int block = 0; block < 2; ++block) {
            const RowQuad& q0 = quads[block];
            const RowQuad& q1 = quads[block + 1];
            const int row0 = 16 * block + g;       // tile row of d[0], d[1]; d[2], d[3]: + 8
            const int column = 8 * group + 2 * t;  // tile column of d[0], d[2]; d[1], d[3]: + 1
            if (a.statistics) {
                std::uint32_t v[4];
                const auto shifted = [&](std::uint32_t round, int shift, std::uint32_t mask) {
#pragma unroll
                    for (int e = 0; e < 4; ++e) v[e] = ((v[e] + round) >> shift) & mask;
                };
                filter_samples(stat_hi, stat_lo, MmaB{{q0.ref, q1.ref}}, v);
                shifted(mean_round, mean_shift, 0xffffu);
                store_planes(tile, kMu1Plane, 2, row0, column, v);
                filter_samples(stat_hi, stat_lo, MmaB{{q0.dis, q1.dis}}, v);
                shifted(mean_round, mean_shift, 0xffffu);
                store_planes(tile, kMu2Plane, 2, row0, column, v);
                product_16x16(stat_lo, stat_hi, MmaB{{q0.rr_lo, q1.rr_lo}}, MmaB{{q0.rr_hi, q1.rr_hi}}, v);
                shifted(square_round, square_shift, 0xffffffffu);
                store_planes(tile, kXxPlane, 4, row0, column, v);
                product_16x16(stat_lo, stat_hi, MmaB{{q0.dd_lo, q1.dd_lo}}, MmaB{{q0.dd_hi, q1.dd_hi}}, v);
                shifted(square_round, square_shift, 0xffffffffu);
                store_planes(tile, kYyPlane, 4, row0, column, v);
                product_16x16(stat_lo, stat_hi, MmaB{{q0.rd_lo, q1.rd_lo}}, MmaB{{q0.rd_hi, q1.rd_hi}}, v);
                shifted(square_round, square_shift, 0xffffffffu);
                store_planes(tile, kXyPlane, 4, row0, column, v);
            }
            // The decimation: d[0], d[1] of rows g < 8 are conv row 8 * block + g.
            std::uint32_t dr[4], dd[4];
            filter_samples(dec_hi, dec_lo, MmaB{{q0.ref, q1.ref}}, dr);
            filter_samples(dec_hi, dec_lo, MmaB{{q0.dis, q1.dis}}, dd);
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int conv_column = column + e - (G::kHalf - G::kDecimationHalf);
                if (conv_column < 0 || conv_column >= kTileColumns + 2 * G::kDecimationHalf) continue;
                const int at = (8 * block + g) * kConvPitch + conv_column;
                tile.conv_ref[at] = ((dr[e] + mean_round) >> mean_shift) & 0xffffu;
                tile.conv_dis[at] = ((dd[e] + mean_round) >> mean_shift) & 0xffffu;
            }
        }
    }
}

/// The A operand of byte plane `plane` for the outputs at tile rows row0, row0 + 8 (row0 = 16 *
/// block + g) and tile columns c0 .. c0 + 7: rows row0, row0 + 8 of window columns c0 + 8t ..
/// c0 + 8t + 7 (see window_column).
__device__ __forceinline__ MmaA plane_operand(const TileMma& tile, int plane, int row0, int c0, int t) {
    const uint2 top = *reinterpret_cast<const uint2*>(tile.planes[plane] + row0 * kPlanePitch + c0 + 8 * t);
    const uint2 bottom = *reinterpret_cast<const uint2*>(tile.planes[plane] + (row0 + 8) * kPlanePitch + c0 + 8 * t);
    return MmaA{{top.x, bottom.x, top.y, bottom.y}};
}

/// Horizontally filtered means of a 2-byte plane pair: the CPU's uint32 sums c * mu (below 2^32).
__device__ __forceinline__ void horizontal_means_mma(const TileMma& tile, int plane, int row0, int c0, int t,
                                                     const MmaB& lo, const MmaB& hi, std::uint32_t (&out)[4]) {
    product_16x16(plane_operand(tile, plane, row0, c0, t), plane_operand(tile, plane + 1, row0, c0, t), lo, hi, out);
}

/// Horizontally filtered products of a 4-byte plane group: the CPU's filtered_product, (sum c * p
/// + round) >> 16 truncated to 32 bits, from the sums acc_w of the byte products of weight 2^(8w):
/// acc_0 + 2^8 acc_1 + round is below 2^31, and the rest is a multiple of 2^16.
__device__ __forceinline__ void horizontal_products_mma(const TileMma& tile, int plane, int row0, int c0, int t,
                                                        const MmaB& lo, const MmaB& hi, std::uint32_t round,
                                                        std::uint32_t (&out)[4]) {
    int acc[5][4] = {};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const MmaA p = plane_operand(tile, plane + k, row0, c0, t);
        mma_u8(acc[k], p, lo);
        mma_u8(acc[k + 1], p, hi);
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const std::uint32_t low = static_cast<std::uint32_t>(acc[0][e]) + (static_cast<std::uint32_t>(acc[1][e]) << 8) + round;
        out[e] = (low >> 16) + static_cast<std::uint32_t>(acc[2][e]) + (static_cast<std::uint32_t>(acc[3][e]) << 8) +
                 (static_cast<std::uint32_t>(acc[4][e]) << 16);
    }
}

/// out[j] = sum_k c_k * row[j + k] for j < kRun: horizontally filtered means, the CPU's uint32
/// sums (taps symmetric: c_k * (row[j + k] + row[j + W-1-k]) is the same sum modulo 2^32).
template <int S>
__device__ __forceinline__ void filter_means(const std::uint32_t* row, std::uint32_t (&out)[kRun]) {
    constexpr int kLast = kWidth<S> - 1;
    std::uint32_t w[kRun + kLast];
#pragma unroll
    for (int m = 0; m < kRun + kLast; ++m) w[m] = row[m];
#pragma unroll
    for (int j = 0; j < kRun; ++j) {
        std::uint32_t a = tap<S>(kLast / 2) * w[j + kLast / 2];
#pragma unroll
        for (int k = 0; k < kLast / 2; ++k) a += tap<S>(k) * (w[j + k] + w[j + kLast - k]);
        out[j] = a;
    }
}

/// out[j] = filtered_product(sum_k c_k * row[j + k], round) for j < kRun: horizontally
/// filtered products, the CPU's 64-bit sum (acc + round) >> 16 truncated to 32 bits, formed as
/// an exact double sum (below 2^48 + 2^15: every tap below 2^16, every value below 2^32; see
/// exact_double) started at `round`, then floor_low32.
template <int S>
__device__ __forceinline__ void filter_products(const std::uint32_t* row, std::uint32_t round,
                                                std::uint32_t (&out)[kRun]) {
    constexpr int kLast = kWidth<S> - 1;
    double w[kRun + kLast];
#pragma unroll
    for (int m = 0; m < kRun + kLast; ++m) w[m] = exact_double(row[m]);
    const double start = static_cast<double>(round);
    constexpr double kUnit = 1.0 / 65536.0;
    static_assert(vif::kHorizontalShift == 16);
#pragma unroll
    for (int j = 0; j < kRun; ++j) {
        double acc = start;
#pragma unroll
        for (int k = 0; k <= kLast; ++k) acc = __fma_rn(static_cast<double>(tap<S>(k)), w[j + k], acc);
        out[j] = floor_low32(acc, kUnit);
    }
}

/// A thread's sums of the VIF terms. Per warp (at most 32 * kRun * kRunsPerWarp samples) the
/// log terms (each below 2^17) and the count stay below 2^31, so 32 bits are exact;
/// num_non_log adds int32 variances and needs 64.
struct ThreadSums {
    std::uint32_t num_log = 0;
    std::uint32_t den_log = 0;
    std::uint64_t num_non_log = 0;
    std::uint32_t den_non_log = 0;
};
static_assert(32ull * kRun * kRunsPerWarp * (1u << 17) < (1ull << 31));

/// Horizontal pass and VIF terms of one run: the outputs at tile row `row`, columns
/// first .. first + count - 1 (count <= kRun; the window beyond them is read, unused).
template <int S>
__device__ __forceinline__ void horizontal_run(const Tile& tile, int row, int first, int count,
                                               const ScaleArgs& a, const PackedLog2& table, ThreadSums& sums) {
    const int at = row * kPitch + first;
    std::uint32_t mu1[kRun], mu2[kRun], xx[kRun], yy[kRun], xy[kRun];
    filter_means<S>(tile.mu1 + at, mu1);
    filter_means<S>(tile.mu2 + at, mu2);
    filter_products<S>(tile.xx + at, a.xx_round, xx);
    filter_products<S>(tile.yy + at, vif::rounding(vif::kHorizontalShift), yy);
    filter_products<S>(tile.xy + at, vif::rounding(vif::kHorizontalShift), xy);
#pragma unroll
    for (int j = 0; j < kRun; ++j) {
        if (j >= count) break;
        const vif::Variances v = vif::variances(mu1[j], mu2[j], xx[j], yy[j], xy[j]);
        vif::add_sample_terms(v.sigma1_sq, v.sigma2_sq, v.sigma12, a.gain_limit, table, sums);
    }
}

/// The horizontal passes and the VIF terms of scale 0 at 8 bits (replaces horizontal_run there):
/// the tile's 16 x 8 output blocks (2 row blocks, kTileColumns / 8 column groups) dealt to the
/// warps in turn; each lane adds the terms of its 4 outputs of a block.
__device__ __forceinline__ void horizontal_mma(const ScaleArgs& a, const TileMma& tile, int x0, int y0,
                                               const PackedLog2& table, ThreadSums& sums) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int g = lane / 4, t = lane % 4;
    const MmaB lo = fragment_b(a.mma_fragments, kHorLo, lane), hi = fragment_b(a.mma_fragments, kHorHi, lane);
    constexpr int kGroups = kTileColumns / 8;
    const std::uint32_t product_round = vif::rounding(vif::kHorizontalShift);
#pragma unroll 1
    for (int unit = warp; unit < 2 * kGroups; unit += kWarps) {
        const int block = unit / kGroups;
        const int c0 = 8 * (unit % kGroups);
        if (y0 + 16 * block >= a.height || x0 + c0 >= a.width) continue;  // the same in every lane
        const int row0 = 16 * block + g;
        std::uint32_t mu1[4], mu2[4], xx[4], yy[4], xy[4];
        horizontal_means_mma(tile, kMu1Plane, row0, c0, t, lo, hi, mu1);
        horizontal_means_mma(tile, kMu2Plane, row0, c0, t, lo, hi, mu2);
        horizontal_products_mma(tile, kXxPlane, row0, c0, t, lo, hi, a.xx_round, xx);
        horizontal_products_mma(tile, kYyPlane, row0, c0, t, lo, hi, product_round, yy);
        horizontal_products_mma(tile, kXyPlane, row0, c0, t, lo, hi, product_round, xy);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            if (y0 + row0 + 8 * (e / 2) >= a.height || x0 + c0 + 2 * t + e % 2 >= a.width) continue;
            const vif::Variances v = vif::variances(mu1[e], mu2[e], xx[e], yy[e], xy[e]);
            vif::add_sample_terms(v.sigma1_sq, v.sigma2_sq, v.sigma12, a.gain_limit, table, sums);
        }
    }
}

/// Adds the block's thread sums into sums[0..3] (num_log, den_log, num_non_log, den_non_log):
/// per warp, then one atomicAdd per value. Every thread of the block must call it.
template <typename TileT>
__device__ __forceinline__ void add_block_sums(const ThreadSums& s, TileT& tile, unsigned long long* sums) {
    const unsigned full = 0xffffffffu;
    const int t = static_cast<int>(threadIdx.x);
    const std::uint32_t num_log = __reduce_add_sync(full, s.num_log);
    const std::uint32_t den_log = __reduce_add_sync(full, s.den_log);
    const std::uint32_t den_non_log = __reduce_add_sync(full, s.den_non_log);
    const unsigned long long num_non_log = gpu::warp_sum_u64(s.num_non_log);
    if (t % 32 == 0) {
        unsigned long long* w = tile.warp_sums[t / 32];
        w[0] = num_log;
        w[1] = den_log;
        w[2] = num_non_log;
        w[3] = den_non_log;
    }
    __syncthreads();
    if (t < 4) {
        unsigned long long total = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) total += tile.warp_sums[w][t];
        if (total) atomicAdd(sums + t, total);
    }
}

/// The shared memory of scale_kernel<S, Sample>: TileMma where its passes run on the tensor cores
/// (scale 0 at 8 bits; every architecture the build allows, sm_80 and newer, has them), else Tile.
template <int S, typename Sample>
struct TileFor {
    static constexpr bool kMma = S == 0 && sizeof(Sample) == 1;
    using type = std::conditional_t<kMma, TileMma, Tile>;
};

/// Scale S of one frame, one tile per block (grid: column tiles x row tiles, kThreads threads,
/// kSharedBytes of dynamic shared memory). Adds the VIF terms of the tile's samples to
/// a.sums and, for S < 3, writes the tile's part of the next scale's pictures. Sample: uint8_t
/// or uint16_t at scale 0 (as the luma), uint16_t above. Pictures at least 2x2 and every
/// filter's half width below their sides (kMinSide at scale 0).
template <int S, typename Sample>
__global__ void __launch_bounds__(kThreads, 2) scale_kernel(const ScaleArgs a) {
    using G = ScaleGeometry<S, Sample>;
    constexpr bool kMma = TileFor<S, Sample>::kMma;
    extern __shared__ __align__(16) unsigned char vif_shared[];
    auto& tile = *reinterpret_cast<typename TileFor<S, Sample>::type*>(vif_shared);

    const int t = static_cast<int>(threadIdx.x);
    const int x0 = static_cast<int>(blockIdx.x) * kTileColumns;
    const int y0 = static_cast<int>(blockIdx.y) * kTileRows;
    const int width = a.width;
    const int height = a.height;

    if (a.statistics) {
        const uint4* from = reinterpret_cast<const uint4*>(a.log2_packed);
        uint4* to = reinterpret_cast<uint4*>(tile.log2);
        for (int i = t; i < kPackedLog2Vectors; i += kThreads) to[i] = __ldg(from + i);
    }

    // 1. Vertical passes: thread (column, group) computes rows group * kRowsPerThread + 0..15
    //    of tile column `column` (picture column x0 - kHalf + column, mirrored), kChunkRows at
    //    a time.
    if constexpr (kMma) {
        if (t < kTileRows + 2 * vif::kMaxHalf) tile.rows[t] = input_row(a, y0 - vif::kMaxHalf + t, vif::kMaxHalf, true);
        __syncthreads();
        vertical_mma(a, tile, x0, y0);
    } else {
        const int column = t % kGroupThreads;
        const int group_row = t / kGroupThreads * kRowsPerThread;
        std::uint32_t ref_max = 0, dis_max = 0;
        if (column < G::kColumns) {
            // Columns past width - 1 + kHalf are never read: clamp them to a valid one.
            const int x = vif::mirror(min_of(x0 - G::kHalf + column, width - 1 + G::kHalf), width);
#pragma unroll 1
            for (int first_row = group_row; first_row < group_row + kRowsPerThread; first_row += G::kChunkRows) {
                const int r0 = y0 + first_row;
                if (r0 >= height) break;
                vertical_chunk<S, Sample>(a, tile, first_row, r0, column, x,
                                          column - (G::kHalf - G::kDecimationHalf), ref_max, dis_max);
            }
        }
        if (S == 0 && a.max_sample) {
            ref_max = __reduce_max_sync(0xffffffffu, ref_max);
            dis_max = __reduce_max_sync(0xffffffffu, dis_max);
            if (t % 32 == 0) {
                atomicMax(a.max_sample, ref_max);
                atomicMax(a.max_sample + 1, dis_max);
            }
        }
    }
    __syncthreads();

    // 2. Decimation: horizontal pass at the even columns of the even rows (the CPU's
    //    generic_decimation_at, second loop).
    if constexpr (G::kDecimates) {
        constexpr int kOutColumns = kTileColumns / 2;
        const int out_width = width / 2;
        const int out_height = height / 2;
        for (int i = t; i < kConvRows * kOutColumns; i += kThreads) {
            const int m = i / kOutColumns;
            const int j = i % kOutColumns;
            const int out_row = y0 / 2 + m;
            const int out_column = x0 / 2 + j;
            if (out_row >= out_height || out_column >= out_width) continue;
            const std::uint32_t* ref_conv = tile.conv_ref + m * kConvPitch + 2 * j;
            const std::uint32_t* dis_conv = tile.conv_dis + m * kConvPitch + 2 * j;
            std::uint32_t a_ref = 0, a_dis = 0;
#pragma unroll
            for (int k = 0; k < kWidth<G::kNext>; ++k) {
                a_ref += tap<G::kNext>(k) * ref_conv[k];
                a_dis += tap<G::kNext>(k) * dis_conv[k];
            }
            const std::uint32_t round = vif::rounding(vif::kHorizontalShift);
            const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(out_row) * a.out_pitch + out_column;
            a.ref_out[at] = static_cast<std::uint16_t>((a_ref + round) >> vif::kHorizontalShift);
            a.dis_out[at] = static_cast<std::uint16_t>((a_dis + round) >> vif::kHorizontalShift);
        }
    }

    // 3. Horizontal pass and VIF terms: lane = tile row, runs of kRun columns; 4. sums.
    if (a.statistics) {
        const int row = t % 32;
        const int warp = t / 32;
        const PackedLog2 table{tile.log2};
        ThreadSums sums;
        if constexpr (kMma) {
            horizontal_mma(a, tile, x0, y0, table, sums);
        } else if (y0 + row < height) {
            for (int run = 0; run < kRunsPerWarp; ++run) {
                const int first = (warp * kRunsPerWarp + run) * kRun;
                const int count = min_of(kRun, width - x0 - first);
                if (count > 0) horizontal_run<S>(tile, row, first, count, a, table, sums);
            }
        }
        add_block_sums(sums, tile, a.sums);
    }
}

// ---------------------------------------------------------------------------------------------
// The twin.

/// The GPU twin: per slot, the decimated pictures of scales 1..3 and the frame's results on the
/// device and in pinned host memory; one packed log2 table.
class VifTwin final : public GpuTwin {
public:
    VifTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format),
          plant_(plant),
          settings_(options),
          results_(slots),
          host_results_(slots),
          frames_("vif", slots) {
        const std::vector<std::uint16_t> packed = pack_log2_table();
        log2_packed_ = cuda::DeviceBuffer<std::uint16_t>(packed.size());
        cuda::check(cudaMemcpy(log2_packed_.get(), packed.data(), packed.size() * sizeof(std::uint16_t),
                               cudaMemcpyHostToDevice),
                    "uploading the vif log2 table");
        const std::vector<std::uint32_t> fragments = mma_fragments();
        mma_fragments_ = cuda::DeviceBuffer<std::uint32_t>(fragments.size());
        cuda::check(cudaMemcpy(mma_fragments_.get(), fragments.data(), fragments.size() * sizeof(std::uint32_t),
                               cudaMemcpyHostToDevice),
                    "uploading the vif tensor-core operands");
        // Pictures of scales 1..3 (rows padded to 256 bytes), reference then distorted.
        std::size_t offset = 0;
        for (int s = 1; s < kScales; ++s) {
            scale_width_[s] = format.width >> s;
            scale_height_[s] = format.height >> s;
            scale_pitch_[s] = (static_cast<std::size_t>(scale_width_[s]) + 127) / 128 * 128;
            const std::size_t samples = scale_pitch_[s] * static_cast<std::size_t>(scale_height_[s]);
            scale_offset_[s][0] = offset;
            scale_offset_[s][1] = offset + samples;
            offset += 2 * samples;
        }
        slot_samples_ = offset;
        pictures_ = cuda::DeviceBuffer<std::uint16_t>(slot_samples_ * slots);
        // Every kernel's tile needs kSharedBytes of shared memory a block, more than GPUs of
        // compute capability 8.6, 8.7, 8.9 and 12.x allow (99 KB): refuse those clearly.
        int device = 0, allowed = 0, major = 0, minor = 0;
        cuda::check(cudaGetDevice(&device), "cudaGetDevice");
        cuda::check(cudaDeviceGetAttribute(&allowed, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                    "cudaDeviceGetAttribute");
        cuda::check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
        cuda::check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "cudaDeviceGetAttribute");
        if (static_cast<std::size_t>(allowed) < kSharedBytes)
            throw Error("vif (CUDA): needs " + std::to_string(kSharedBytes) +
                        " bytes of shared memory a block; this GPU (compute capability " + std::to_string(major) + "." +
                        std::to_string(minor) + ") allows " + std::to_string(allowed) +
                        ": score vif on the CPU (--backend cpu)");
        set_shared_memory(scale_kernel<0, std::uint8_t>);
        set_shared_memory(scale_kernel<0, std::uint16_t>);
        set_shared_memory(scale_kernel<1, std::uint16_t>);
        set_shared_memory(scale_kernel<2, std::uint16_t>);
        set_shared_memory(scale_kernel<3, std::uint16_t>);
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {

        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        const DevicePlane& ref_luma = f.ref.luma();
        const DevicePlane& dis_luma = f.dist.luma();
        if (!ref_luma.data || !dis_luma.data)
            throw Error("vif (CUDA): frame " + std::to_string(f.index) + " has no reference or distorted luma");
        const PlantedDefect planted = plant_;
        FrameResults* results = results_.get() + slot;
        cuda::check(cudaMemsetAsync(results, 0, sizeof(FrameResults), stream), "cudaMemsetAsync");

        ScaleArgs a{};
        a.bit_depth = format_.bit_depth;
        a.log2_packed = log2_packed_.get();
        a.mma_fragments = mma_fragments_.get();
        a.gain_limit = settings_.gain_limit;
        a.xx_round = planted == PlantedDefect::kRoundingConstant ? 1u << 14 : vif::rounding(vif::kHorizontalShift);
        a.mirror_shift = planted == PlantedDefect::kMirrorShift;
        std::uint16_t* pictures = pictures_.get() + slot_samples_ * slot;
        for (int s = 0; s < kScales; ++s) {
            if (s == 0) {
                a.ref = static_cast<const unsigned char*>(ref_luma.data);
                a.ref_pitch = ref_luma.pitch;
                a.dis = static_cast<const unsigned char*>(dis_luma.data);
                a.dis_pitch = dis_luma.pitch;
                a.width = format_.width;
                a.height = format_.height;
            } else {
                a.ref = reinterpret_cast<const unsigned char*>(pictures + scale_offset_[s][0]);
                a.dis = reinterpret_cast<const unsigned char*>(pictures + scale_offset_[s][1]);
                a.ref_pitch = a.dis_pitch = static_cast<std::ptrdiff_t>(scale_pitch_[s] * sizeof(std::uint16_t));
                a.width = scale_width_[s];
                a.height = scale_height_[s];
            }
            if (s + 1 < kScales) {
                a.ref_out = pictures + scale_offset_[s + 1][0];
                a.dis_out = pictures + scale_offset_[s + 1][1];
                a.out_pitch = static_cast<std::ptrdiff_t>(scale_pitch_[s + 1]);
            } else {
                a.ref_out = a.dis_out = nullptr;
                a.out_pitch = 0;
            }
            a.sums = results->sums[s];
            a.max_sample = s == 0 && format_.bit_depth > 8 && format_.bit_depth < 16 ? results->max_sample : nullptr;
            a.statistics = !(s == 0 && settings_.skip_scale0);
            const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(a.width), kTileColumns),
                            cuda::blocks_for(static_cast<std::size_t>(a.height), kTileRows));
            switch (s) {
            case 0:
                if (format_.bit_depth == 8)
                    scale_kernel<0, std::uint8_t><<<grid, kThreads, kSharedBytes, stream>>>(a);
                else
                    scale_kernel<0, std::uint16_t><<<grid, kThreads, kSharedBytes, stream>>>(a);
                break;
            case 1: scale_kernel<1, std::uint16_t><<<grid, kThreads, kSharedBytes, stream>>>(a); break;
            case 2: scale_kernel<2, std::uint16_t><<<grid, kThreads, kSharedBytes, stream>>>(a); break;
            default: scale_kernel<3, std::uint16_t><<<grid, kThreads, kSharedBytes, stream>>>(a); break;
            }
            cuda::check_launch("vif scale_kernel");
        }
        cuda::check(cudaMemcpyAsync(host_results_.get() + slot, results, sizeof(FrameResults),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying the vif sums to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const FrameResults& r = host_results_[slot];
        // As the CPU extractor: samples above the bit depth have no defined integer VIF.
        const unsigned max = (1u << format_.bit_depth) - 1u;
        for (int p = 0; p < 2; ++p)
            if (r.max_sample[p] > max)
                throw Error("vif (CUDA): frame " + std::to_string(index) + ": " +
                            (p == 0 ? "reference" : "distorted") + " luma has a sample of " +
                            std::to_string(r.max_sample[p]) + ", above the " + std::to_string(format_.bit_depth) +
                            "-bit maximum " + std::to_string(max));
        std::array<vif::ScaleScore, kScales> scores{};
        for (int s = settings_.skip_scale0 ? 1 : 0; s < kScales; ++s) {
            vif::ScaleSums sums;
            sums.num_log = static_cast<std::int64_t>(r.sums[s][0]);
            sums.den_log = static_cast<std::int64_t>(r.sums[s][1]);
            sums.num_non_log = static_cast<std::int64_t>(r.sums[s][2]);
            sums.den_non_log = static_cast<std::int64_t>(r.sums[s][3]);
            scores[s] = vif::score_of(sums);
        }
        settings_.write_frame(scores, out);
    }

private:
    template <typename Kernel>
    static void set_shared_memory(Kernel* kernel) {
        cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(kSharedBytes)),
                    "cudaFuncSetAttribute (vif shared memory)");
        cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxShared),
                    "cudaFuncSetAttribute (vif carveout)");
    }

    VideoFormat format_;
    PlantedDefect plant_;
    vif::Settings settings_;
    cuda::DeviceBuffer<std::uint16_t> log2_packed_;
    cuda::DeviceBuffer<std::uint32_t> mma_fragments_;  // mma_fragments()
    int scale_width_[kScales] = {};
    int scale_height_[kScales] = {};
    std::size_t scale_pitch_[kScales] = {};      // samples
    std::size_t scale_offset_[kScales][2] = {};  // in a slot's pictures: reference, distorted
    std::size_t slot_samples_ = 0;
    cuda::DeviceBuffer<std::uint16_t> pictures_;      // slots x slot_samples_
    cuda::DeviceBuffer<FrameResults> results_;        // per slot
    cuda::PinnedBuffer<FrameResults> host_results_;   // per slot
    cuda::SlotFrames frames_;  // frame enqueued in each slot
};

/// What this twin can plant (see the file's head).
constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant};

}  // namespace

namespace vif {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp

const TwinDescriptor cuda_twin{
    "vif",
    make_twin<VifTwin>,
    {exact_bound,
     "bound 0 at every format: every per-sample term is an integer formed by the CPU's own code (vif_math.hpp: "
     "the same integer filters, rounding shifts and 32-bit wraps at every bit depth 8..16 and size, the CPU's "
     "uint64 filter sums formed as doubles that hold every partial sum exactly (integers below 2^49); the same "
     "IEEE doubles g = s12 / (s1 + eps), sv = s2 - g * s12 and g * g * s1, built without contraction "
     "(--fmad=false) and with correctly rounded division, so each is the CPU's double; 2048 * log2 from a packed "
     "copy of the CPU's table checked entry by entry at creation); the terms are summed exactly in integers "
     "(32 bits per warp where the bounds allow it, 64 bits per frame: order-free), and the scores are formed "
     "from the same four sums per scale by the CPU's host code (vif::score_of, Settings::write_frame). A "
     "contraction of its one a*b+c (sv) is masked by sv's truncation to an integer, so none is declared"},
    kDefects,
    "its one device a*b+c (sv = s2 - g * s12) is truncated to an integer at once: a contraction planted there "
    "left 124 of 124 gate rows identical on the H200",
};

}  // namespace vif

}  // namespace vmafx
