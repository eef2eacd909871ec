// The device side of ADM's CUDA twin (adm_cuda.cu, which includes this file once): the
// kernels' arguments, the level, contrast-masking and finalize kernels, and their launch
// constants. What each kernel computes, its exactness and its planted defects: adm_cuda.cu's
// head. Internal to adm_cuda.cu (an unnamed namespace).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/device.hpp"
#include "cuda/warp_sum.cuh"
#include "feature/adm/adm.hpp"
#include "feature/adm/adm_math.hpp"
#include "feature/adm/adm_pipeline.hpp"
#include "feature/adm/adm_twin_plan.hpp"

namespace vmafx {

namespace {

using std::int16_t;
using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;
using ull = unsigned long long;

/// Threads per block of the level and cm kernels; each level kernel thread owns one output
/// column, each cm kernel thread one visited column.
constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
/// Vertical-pass columns of a level kernel block: the taps of its kThreads outputs,
/// 2 j0 - 1 .. 2 (j0 + kThreads - 1) + 2.
constexpr int kSpan = 2 * kThreads + 2;
/// Threads of finalize_kernel (one block per sum).
constexpr int kFinalThreads = 256;
/// Sums per frame (adm_twin_plan.hpp's layout).
constexpr int kSums = adm::kTwinSums;

/// The planes of one level that a level kernel writes and its cm kernel (and the next level)
/// read; all `pitch` elements between rows, band-sized. T: int16_t at level 0, int32_t above.
template <typename T>
struct LevelPlanes {
    T* ref_a = nullptr;   ///< band a of the reference (the next level's input)
    T* dis_a = nullptr;   ///< band a of the distorted
    T* x[2][3] = {};      ///< coefficients contrast masking measures: [0] DLM (restored), [1] AIM
                          ///< (additive); by orientation h, v, d
    int32_t* sf[2] = {};      ///< sum over orientations of the masking filter input, [0] DLM, [1] AIM
    int32_t* centre[2] = {};  ///< sum over orientations of the masker term |x|/15 (as the CPU adds it)
    int pitch = 0;
};

/// Row sums of one level: [quantity 0 den, 1 num, 2 aim][orientation][row], `h` rows.
struct RowSums {
    ull* data = nullptr;
    int h = 0;
    __host__ __device__ ull* at(int quantity, int theta) const {
        return data + static_cast<std::ptrdiff_t>(quantity * 3 + theta) * h;
    }
};

// The kernels' arguments: adm_twin_plan.hpp's plan, shared with the Vulkan twin.
using adm::CmArgs;
using adm::FinalLevel;
using adm::Level0Args;
using adm::LevelArgs;

struct FinalArgs {
    FinalLevel level[4];
    RowSums rows[4];
    bool round_after_sum;  ///< planted kReductionOrder: rows added before rounding and shifting
};

/// Input row read by DWT tap position p of a pass over n rows; with `shifted` (planted
/// kMirrorShift) the mirror at the bottom edge is one row off.
__device__ inline int dwt_row(int p, int n, bool shifted) {
    return shifted && p >= n ? 2 * n - p - 2 : adm::dwt_mirror(p, n);
}

/// The planted kRoundingConstant (parity-gate tests only): adm::dwt0_horizontal_lo/_hi with half
/// their rounding constant, kDwt0RoundH / 2, on the shared tap sums (dwt0_taps_lo/_hi); the
/// CPU's math has no test-only parameter.
__device__ inline int16_t planted_dwt0_horizontal(int32_t taps) {
    return int16_t((taps + adm::kDwt0RoundH / 2) >> 16);
}

template <typename Sample>
__device__ inline uint32_t load_sample(const unsigned char* plane, std::ptrdiff_t pitch, int row, int col) {
    return __ldg(reinterpret_cast<const Sample*>(plane + static_cast<std::ptrdiff_t>(row) * pitch) + col);
}

/// Sums each of v[0..N-1] over the block (kThreads threads, all of which must call); the
/// totals are in thread 0's v. Integer addition modulo 2^64: the order does not matter (per warp
/// on the reduction unit, gpu::warp_sum_u64, then over the warps in shared memory).
template <int N>
__device__ inline void block_sum(ull (&v)[N]) {
    __shared__ ull partial[kWarps][N];
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32;
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = gpu::warp_sum_u64(v[k]);
    if (lane == 0)
#pragma unroll
        for (int k = 0; k < N; ++k) partial[warp][k] = v[k];
    __syncthreads();
    if (threadIdx.x == 0)
#pragma unroll
        for (int k = 0; k < N; ++k) {
            ull s = 0;
            for (int w = 0; w < kWarps; ++w) s += partial[w][k];
            v[k] = s;
        }
}

// ---------------------------------------------------------------------------------------
// Level 0
// ---------------------------------------------------------------------------------------

/// Level 0 DWT, decouple, CSF and masking inputs of output row blockIdx.y, columns
/// blockIdx.x * kThreads + (0 .. kThreads-1). ref/dis: width x height luma planes of Sample
/// words, rows *_pitch bytes apart. Writes `out` (band a everywhere, the masking inputs in the
/// tap region) and adds the row's denominator cubes into den_rows (score rows only).
template <typename Sample>
__global__ void __launch_bounds__(kThreads)
    level0_kernel(const unsigned char* __restrict__ ref, std::ptrdiff_t ref_pitch,
                  const unsigned char* __restrict__ dis, std::ptrdiff_t dis_pitch, Level0Args a,
                  LevelPlanes<int16_t> out, RowSums sums) {
    __shared__ int16_t vert[4][kSpan];  // vertical pass: ref lo, ref hi, dis lo, dis hi (upstream's scratch rows)
    const int t = static_cast<int>(threadIdx.x);
    const int i = static_cast<int>(blockIdx.y);
    const int j0 = static_cast<int>(blockIdx.x) * kThreads;
    const unsigned char* planes[2] = {ref, dis};
    const std::ptrdiff_t pitches[2] = {ref_pitch, dis_pitch};
    int rows[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) rows[k] = dwt_row(2 * i - 1 + k, a.height, a.mirror_shift);

    for (int c = t; c < kSpan; c += kThreads) {
        const int x = 2 * j0 - 1 + c;
        if (x > a.width + 1) break;  // read by no output
        const int col = adm::dwt_mirror(x, a.width);
#pragma unroll
        for (int img = 0; img < 2; ++img) {
            const uint32_t s0 = load_sample<Sample>(planes[img], pitches[img], rows[0], col);
            const uint32_t s1 = load_sample<Sample>(planes[img], pitches[img], rows[1], col);
            const uint32_t s2 = load_sample<Sample>(planes[img], pitches[img], rows[2], col);
            const uint32_t s3 = load_sample<Sample>(planes[img], pitches[img], rows[3], col);
            vert[2 * img][c] = adm::dwt0_vertical_lo(s0, s1, s2, s3, a.bit_depth);
            if (!a.lo_only) vert[2 * img + 1][c] = adm::dwt0_vertical_hi(s0, s1, s2, s3, a.bit_depth);
        }
    }
    __syncthreads();

    const int j = j0 + t;
    const bool active = j < a.w;
    const std::ptrdiff_t idx = static_cast<std::ptrdiff_t>(i) * out.pitch + j;
    int16_t band[2][4] = {};  // [ref, dis][a, h, v, d]
    if (active) {
        // The last column's reads past the row, tap by tap. (level_kernel writes them into the
        // vertical slots instead; here that took a 41st register, 10 blocks an SM instead of 12,
        // and ran 12 % slower on an H100: docs/performance.md, "ADM's kernels and the CLI's
        // marginal rates again".)
        const bool past_row = a.reads_past_row && j == a.w - 1;
#pragma unroll
        for (int img = 0; img < 2; ++img) {
            int32_t lo[4], hi[4];
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const int pos = 2 * j - 1 + q;
                if (past_row && pos >= a.width) {
                    // Upstream's next scratch row: the vertical high pass of this image at
                    // column pos - width after the low pass; zeros after the high pass.
                    const int col = pos - a.width;
                    lo[q] = adm::dwt0_vertical_hi(load_sample<Sample>(planes[img], pitches[img], rows[0], col),
                                                  load_sample<Sample>(planes[img], pitches[img], rows[1], col),
                                                  load_sample<Sample>(planes[img], pitches[img], rows[2], col),
                                                  load_sample<Sample>(planes[img], pitches[img], rows[3], col),
                                                  a.bit_depth);
                    hi[q] = 0;
                } else {
                    lo[q] = vert[2 * img][2 * t + q];
                    hi[q] = a.lo_only ? 0 : vert[2 * img + 1][2 * t + q];
                }
            }
            if (a.half_rounding) {
                band[img][0] = planted_dwt0_horizontal(adm::dwt0_taps_lo(lo[0], lo[1], lo[2], lo[3]));
                band[img][1] = planted_dwt0_horizontal(adm::dwt0_taps_lo(hi[0], hi[1], hi[2], hi[3]));
                band[img][2] = planted_dwt0_horizontal(adm::dwt0_taps_hi(lo[0], lo[1], lo[2], lo[3]));
                band[img][3] = planted_dwt0_horizontal(adm::dwt0_taps_hi(hi[0], hi[1], hi[2], hi[3]));
            } else {
                band[img][0] = adm::dwt0_horizontal_lo(lo[0], lo[1], lo[2], lo[3]);
                band[img][1] = adm::dwt0_horizontal_lo(hi[0], hi[1], hi[2], hi[3]);
                band[img][2] = adm::dwt0_horizontal_hi(lo[0], lo[1], lo[2], lo[3]);
                band[img][3] = adm::dwt0_horizontal_hi(hi[0], hi[1], hi[2], hi[3]);
            }
        }
        out.ref_a[idx] = band[0][0];
        out.dis_a[idx] = band[1][0];
    }
    if (a.lo_only) return;  // the whole block: no reduction follows

    ull den[3] = {0, 0, 0};
    const bool row_in_tap = i >= a.tap.top && i < a.tap.bottom;
    if (active && row_in_tap && j >= a.tap.left && j < a.tap.right) {
        // band[0][1 + theta]: reference h, v, d; band[1][1 + theta]: distorted.
        const bool vec = j < a.tap_vec_end;
        const bool same = vec ? adm::same_direction_avx512(band[0][1], band[0][2], band[1][1], band[1][2])
                              : adm::same_direction(band[0][1], band[0][2], band[1][1], band[1][2]);
        int16_t restored[3], additive[3];
#pragma unroll
        for (int theta = 0; theta < 3; ++theta) {
            const int32_t oj = band[0][1 + theta];
            const int32_t tj = band[1][1 + theta];
            const int32_t k = adm::decouple0_k(oj, tj);
            int32_t rst = adm::restored0(k, oj);
            rst = a.integer_gain ? adm::restore0_integer_gain(rst, tj, k, oj, same ? -1 : 0, a.egl_int)
                                 : adm::restore<int32_t>(rst, tj, k, oj, same, a.egl, vec);
            restored[theta] = static_cast<int16_t>(rst);
            additive[theta] = static_cast<int16_t>(tj - rst);
            out.x[0][theta][idx] = restored[theta];
            if (a.aim) out.x[1][theta][idx] = additive[theta];
        }
        // Masking inputs: DLM's masker is the additive part, AIM's the restored part.
        const bool cm_vec = j < a.cm.vector_cut(i, 14);
#pragma unroll
        for (int m = 0; m < 2; ++m) {
            if (m == 1 && !a.aim) break;
            int32_t sf = 0;
            uint32_t centre = 0;
#pragma unroll
            for (int theta = 0; theta < 3; ++theta) {
                const int32_t src = m == 0 ? additive[theta] : restored[theta];
                const int32_t wide = adm::csf0_weight(src, a.wt[theta], theta);
                const int16_t narrow = static_cast<int16_t>(wide);
                sf += adm::csf0_filter(vec ? wide : narrow);
                const int32_t term = adm::cm0_centre_term(narrow);
                centre += cm_vec ? static_cast<uint32_t>(term) : static_cast<uint32_t>(static_cast<int16_t>(term));
            }
            out.sf[m][idx] = sf;
            out.centre[m][idx] = static_cast<int32_t>(centre);
        }
    }
    const bool row_in_score = i >= a.score.top && i < a.score.bottom;
    if (active && row_in_score && j >= a.score.left && j < a.score.right)
#pragma unroll
        for (int theta = 0; theta < 3; ++theta) den[theta] = adm::den0_cube(band[0][1 + theta]);
    block_sum(den);
    if (t == 0 && row_in_score)
#pragma unroll
        for (int theta = 0; theta < 3; ++theta) atomicAdd(sums.at(0, theta) + i, den[theta]);
}

/// Element offsets (row * pitch + column) of the 3x3 masking neighbourhood of (i, j) in an
/// h x w band, row by row, mirrored at the edges as upstream's adm_cm reads them (-1 -> 1;
/// past the end, the last row or column itself); at[4] is (i, j). Band planes hold at most
/// 32768 x 32768 values (sides of at most 65536), so the offsets fit 32 bits.
__device__ inline void neighbourhood(int i, int j, int w, int h, int pitch, int (&at)[9]) {
    const int rows[3] = {i == 0 ? 1 : i - 1, i, i == h - 1 ? h - 1 : i + 1};
    const int cols[3] = {j == 0 ? 1 : j - 1, j, j == w - 1 ? w - 1 : j + 1};
#pragma unroll
    for (int r = 0; r < 3; ++r)
#pragma unroll
        for (int c = 0; c < 3; ++c) at[3 * r + c] = rows[r] * pitch + cols[c];
}

/// Level 0 contrast masking of visited row cm.row_begin + blockIdx.y, columns cm.col_begin +
/// blockIdx.x * kThreads + (0 .. kThreads-1): adds the row's DLM (and AIM) cube terms into the
/// row sums. The masking threshold wraps modulo 2^32 as the CPU's.
__global__ void __launch_bounds__(kThreads) cm0_kernel(LevelPlanes<int16_t> in, CmArgs a, RowSums sums) {
    const int t = static_cast<int>(threadIdx.x);
    const int i = a.cm.row_begin + static_cast<int>(blockIdx.y);
    const int j = a.cm.col_begin + static_cast<int>(blockIdx.x) * kThreads + t;
    ull acc[6] = {0, 0, 0, 0, 0, 0};  // [DLM h, v, d, AIM h, v, d]
    if (j < a.cm.col_end) {
        int at[9];
        neighbourhood(i, j, a.w, a.h, in.pitch, at);
        const int idx = at[4];
#pragma unroll
        for (int m = 0; m < 2; ++m) {
            if (m == 1 && !a.aim) break;
            const int32_t* sf = in.sf[m];
            uint32_t thr = 0;
#pragma unroll
            for (int k = 0; k < 9; ++k) thr += static_cast<uint32_t>(__ldg(sf + at[k]));
            thr = thr - static_cast<uint32_t>(sf[idx]) + static_cast<uint32_t>(in.centre[m][idx]);
#pragma unroll
            for (int theta = 0; theta < 3; ++theta)
                acc[3 * m + theta] = static_cast<ull>(
                    adm::cm0_cube(in.x[m][theta][idx], a.wt[theta], thr, theta, a.rcub[theta], a.scub[theta]));
        }
    }
    block_sum(acc);
    if (t == 0)
#pragma unroll
        for (int k = 0; k < 6; ++k) atomicAdd(sums.at(1 + k / 3, k % 3) + i, acc[k]);
}

// ---------------------------------------------------------------------------------------
// Levels 1..3
// ---------------------------------------------------------------------------------------

/// Level 1..3 DWT, decouple, CSF and masking inputs of output row blockIdx.y (as
/// level0_kernel). ref_in/dis_in: band a of the previous level (w_in x h_in, in_pitch elements
/// between rows). tail_in: the 2 values the last output column reads past the distorted high
/// row (this level's reads_past_row); tail_out: the 2 values of this level's last row the
/// next level reads there.
template <typename In>
__global__ void __launch_bounds__(kThreads)
    level_kernel(const In* __restrict__ ref_in, const In* __restrict__ dis_in, int in_pitch,
                 const int32_t* __restrict__ tail_in, LevelArgs a, LevelPlanes<int32_t> out, int32_t* tail_out,
                 RowSums sums) {
    __shared__ int32_t vert[4][kSpan];  // ref lo, ref hi, dis lo, dis hi (upstream's scratch rows)
    const int t = static_cast<int>(threadIdx.x);
    const int i = static_cast<int>(blockIdx.y);
    const int j0 = static_cast<int>(blockIdx.x) * kThreads;
    // The four input rows of each image that the vertical taps read (mirrored).
    const In* taps_rows[2][4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int row = dwt_row(2 * i - 1 + k, a.h_in, a.mirror_shift);
        taps_rows[0][k] = ref_in + static_cast<std::ptrdiff_t>(row) * in_pitch;
        taps_rows[1][k] = dis_in + static_cast<std::ptrdiff_t>(row) * in_pitch;
    }

    for (int c = t; c < kSpan; c += kThreads) {
        const int x = 2 * j0 - 1 + c;
        if (x > a.w_in + 1) break;
        // Columns past the row's end are read by the last output only. Where upstream reads them
        // past its scratch row (reads_past_row), its scratch rows follow each other: past the end
        // of row s it reads row s + 1 at column x - w_in, and past the last one what the previous
        // level left there (tail_in).
        const bool past_row = a.reads_past_row && x >= a.w_in;
        const int col = past_row ? x - a.w_in : adm::dwt_mirror(x, a.w_in);
        int32_t v[4];  // ref lo, ref hi, dis lo, dis hi at col
#pragma unroll
        for (int img = 0; img < 2; ++img) {
            const int64_t s0 = __ldg(taps_rows[img][0] + col);
            const int64_t s1 = __ldg(taps_rows[img][1] + col);
            const int64_t s2 = __ldg(taps_rows[img][2] + col);
            const int64_t s3 = __ldg(taps_rows[img][3] + col);
            v[2 * img] = adm::dwt_lo(s0, s1, s2, s3, a.round_v, a.shift_v);
            v[2 * img + 1] = adm::dwt_hi(s0, s1, s2, s3, a.round_v, a.shift_v);
        }
        if (past_row) {
            vert[0][c] = v[1];
            vert[1][c] = v[2];
            vert[2][c] = v[3];
            vert[3][c] = tail_in[col];
        } else {
#pragma unroll
            for (int s = 0; s < 4; ++s) vert[s][c] = v[s];
        }
    }
    __syncthreads();
    // Column tail_col < w_in of block 0: a mirrored column, never one past the row.
    if (a.store_tail && i == a.h - 1 && blockIdx.x == 0 && t < 2) tail_out[t] = vert[a.tail_slot[t]][a.tail_col[t] + 1];

    const int j = j0 + t;
    const bool active = j < a.w;
    const std::ptrdiff_t idx = static_cast<std::ptrdiff_t>(i) * out.pitch + j;
    int32_t band[2][4] = {};  // [ref, dis][a, h, v, d]
    if (active) {
#pragma unroll
        for (int img = 0; img < 2; ++img) {
            int32_t lo[4], hi[4];
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                lo[q] = vert[2 * img][2 * t + q];
                hi[q] = vert[2 * img + 1][2 * t + q];
            }
            band[img][0] = adm::dwt_lo(lo[0], lo[1], lo[2], lo[3], a.round_h, a.shift_h);
            band[img][1] = adm::dwt_lo(hi[0], hi[1], hi[2], hi[3], a.round_h, a.shift_h);
            band[img][2] = adm::dwt_hi(lo[0], lo[1], lo[2], lo[3], a.round_h, a.shift_h);
            band[img][3] = adm::dwt_hi(hi[0], hi[1], hi[2], hi[3], a.round_h, a.shift_h);
        }
        if (a.store_a) {
            out.ref_a[idx] = band[0][0];
            out.dis_a[idx] = band[1][0];
        }
    }

    ull den[3] = {0, 0, 0};
    const bool row_in_tap = i >= a.tap.top && i < a.tap.bottom;
    if (active && row_in_tap && j >= a.tap.left && j < a.tap.right) {
        const bool vec = j < a.tap_vec_end;
        const bool same = adm::same_direction(band[0][1], band[0][2], band[1][1], band[1][2]);
        int32_t restored[3], additive[3];
#pragma unroll
        for (int theta = 0; theta < 3; ++theta) {
            const int32_t o = band[0][1 + theta];
            const int32_t d = band[1][1 + theta];
            const int64_t k = adm::decouple_k(o, d);
            const int32_t rst =
                adm::restore<int32_t>(adm::restored(k, o), d, static_cast<int32_t>(k), o, same, a.egl, vec);
            restored[theta] = rst;
            additive[theta] = static_cast<int32_t>(static_cast<uint32_t>(d) - static_cast<uint32_t>(rst));
            out.x[0][theta][idx] = restored[theta];
            if (a.aim) out.x[1][theta][idx] = additive[theta];
        }
#pragma unroll
        for (int m = 0; m < 2; ++m) {
            if (m == 1 && !a.aim) break;
            int32_t sf = 0;     // |sum| < 2^28: exact in 32 bits
            int64_t centre = 0;  // |sum| < 2^29
#pragma unroll
            for (int theta = 0; theta < 3; ++theta) {
                const int64_t wt = vec ? static_cast<int64_t>(static_cast<int32_t>(a.wq[theta]))
                                       : static_cast<int64_t>(a.wq[theta]);
                const int32_t v = adm::csf_weight(m == 0 ? additive[theta] : restored[theta], wt);
                sf += adm::csf_filter(v);
                centre += adm::cm_centre_term(v);
            }
            out.sf[m][idx] = sf;
            out.centre[m][idx] = static_cast<int32_t>(centre);
        }
    }
    const bool row_in_score = i >= a.score.top && i < a.score.bottom;
    if (active && row_in_score && j >= a.score.left && j < a.score.right)
#pragma unroll
        for (int theta = 0; theta < 3; ++theta)
            den[theta] =
                adm::den_cube(band[0][1 + theta], a.den_round_sq, a.den_shift_sq, a.den_cub_round, a.den_cub_shift);
    block_sum(den);
    if (t == 0 && row_in_score)
#pragma unroll
        for (int theta = 0; theta < 3; ++theta) atomicAdd(sums.at(0, theta) + i, den[theta]);
}

/// Level 1..3 contrast masking (as cm0_kernel): the threshold is exact (64 bits); the
/// columns upstream's AVX-512 kernel vectorises compare in 64 bits with the weight read as
/// signed, the others wrap to 32 bits.
__global__ void __launch_bounds__(kThreads) cm_kernel(LevelPlanes<int32_t> in, CmArgs a, RowSums sums) {
    const int t = static_cast<int>(threadIdx.x);
    const int i = a.cm.row_begin + static_cast<int>(blockIdx.y);
    const int j = a.cm.col_begin + static_cast<int>(blockIdx.x) * kThreads + t;
    ull acc[6] = {0, 0, 0, 0, 0, 0};
    if (j < a.cm.col_end) {
        int at[9];
        neighbourhood(i, j, a.w, a.h, in.pitch, at);
        const int idx = at[4];
        const bool vec = j < a.cm.vector_cut(i, 6);
#pragma unroll
        for (int m = 0; m < 2; ++m) {
            if (m == 1 && !a.aim) break;
            const int32_t* sf = in.sf[m];
            int64_t thr = 0;
#pragma unroll
            for (int k = 0; k < 9; ++k) thr += __ldg(sf + at[k]);
            thr = thr - sf[idx] + in.centre[m][idx];
#pragma unroll
            for (int theta = 0; theta < 3; ++theta) {
                const int32_t x = in.x[m][theta][idx];
                const int32_t e =
                    vec ? adm::cm_excess_vector(x, static_cast<int64_t>(static_cast<int32_t>(a.wq[theta])), thr)
                        : adm::cm_excess_scalar(x, static_cast<int64_t>(a.wq[theta]), thr);
                acc[3 * m + theta] = static_cast<ull>(adm::cm_cube(e, a.rcub[0], a.scub[0]));
            }
        }
    }
    block_sum(acc);
    if (t == 0)
#pragma unroll
        for (int k = 0; k < 6; ++k) atomicAdd(sums.at(1 + k / 3, k % 3) + i, acc[k]);
}

/// Row sum `v` of `quantity` (0 den, 1 num, 2 aim) of level L rounded and shifted, as the CPU
/// does before adding the rows.
__device__ inline ull rounded_row_sum(const FinalLevel& L, int quantity, ull v) {
    return quantity == 0 ? adm::den_row_rounded(v, L.den_round, L.den_shift)
                         : static_cast<ull>(adm::cm_row_rounded(static_cast<int64_t>(v), L.cm_round, L.cm_shift));
}

/// Sum blockIdx.x = level * 9 + quantity * 3 + orientation of the frame: the rows' sums
/// rounded and shifted, added over the rows the CPU visits (integer: order-free), into
/// out[blockIdx.x]; zeroes the row sums read. kFinalThreads threads. With a.round_after_sum
/// (planted kReductionOrder) the rows are added first and the total rounded and shifted once.
__global__ void __launch_bounds__(kFinalThreads) finalize_kernel(FinalArgs a, ull* __restrict__ out) {
    __shared__ ull partial[kFinalThreads / 32];
    const int b = static_cast<int>(blockIdx.x);
    const FinalLevel& L = a.level[b / 9];
    const int quantity = (b / 3) % 3;
    const int theta = b % 3;
    ull acc = 0;
    const bool on = quantity == 0 ? L.den : (quantity == 1 ? L.num : L.aim);
    if (on) {
        ull* rows = a.rows[b / 9].at(quantity, theta);
        const int begin = quantity == 0 ? L.den_begin : L.cm_begin;
        const int end = quantity == 0 ? L.den_end : L.cm_end;
        for (int r = begin + static_cast<int>(threadIdx.x); r < end; r += kFinalThreads) {
            const ull v = rows[r];
            rows[r] = 0;
            acc += a.round_after_sum ? v : rounded_row_sum(L, quantity, v);
        }
    }
    acc = gpu::warp_sum_u64(acc);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        ull s = 0;
        for (int w = 0; w < kFinalThreads / 32; ++w) s += partial[w];
        out[b] = a.round_after_sum && on ? rounded_row_sum(L, quantity, s) : s;
    }
}

}  // namespace

}  // namespace vmafx
