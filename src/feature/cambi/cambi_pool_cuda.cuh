// The device half of the CUDA twin of CAMBI's pooling (cambi_cuda.cu): each scale's spatial
// pooling (cambi_contrast.cpp spatial_pooling: quick_select, then the double sum of the first k
// values in the order it leaves them, over k) without copying the c values to the host. Include
// only from .cu files.
//
// Per selection (a picture's scale), on the frame's stream:
//  1. the state select_start(n, k) copied in (cambi_select.hpp);
//  2. the rounds of quick_select's partition (cambi_select.hpp, which proves them the CPU's
//     loop, and whose select_rounds the host tests run against the CPU's quick_select, with
//     chunks of every size): rounds_for(n) grid-wide rounds, each the count kernel (its last
//     block to finish scans the chunks' counts), the rank kernel and the swap kernel (its last
//     block to finish closes the round: close_round), which read the bounds from the state in
//     device memory and return at once when the range is down to kFinishRange positions (or
//     the selection done), so the host never waits between rounds; then finish_kernel, one
//     block taking the same rounds until the selection is done;
//  3. to_double_kernel: the first k values as doubles, and gpu::SequentialSum<double> over them:
//     the CPU's running double sum in index order, bit for bit;
//  4. (fetch) the states and sums copied to pinned host memory.
// On the host (result): the sum over k, as the CPU divides it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>

#include <cuda_runtime.h>

#include "cuda/device.hpp"
#include "cuda/sequential_sum.hpp"
#include "feature/cambi/cambi_select.hpp"

namespace vmafx::cambi {

namespace pool {

constexpr int kThreads = 256;                        ///< count, rank and swap kernels' blocks
constexpr int kItems = kSelectChunk / kThreads;      ///< positions a thread ranks
constexpr unsigned kMaxBlocks = 1024;                ///< count, rank and swap kernels' grids
constexpr int kFinishThreads = 1024;                 ///< finish_kernel's one block
constexpr int kFinishRange = 16384;                  ///< ranges this small: finish_kernel's
static_assert(kItems * kThreads == kSelectChunk);

/// The grid-wide rounds enqueued for a selection among n values: 2, and 3 for each halving of
/// n down to kFinishRange, at most 24 (measured on the CPU's c values of 4K and 1080p pictures,
/// banded and not, the rounds to kFinishRange were at most 20 at 2073600 values, 17 at
/// 8294400, 13 at 518400, 8 at 129600, 6 at 32400). Fewer than a selection needs only leaves a
/// larger range to finish_kernel (slower, the same result).
inline int rounds_for(int n) {
    int rounds = 2;
    for (long long size = n; size > kFinishRange; size = (size + 1) / 2) rounds += 3;
    return n > kFinishRange ? std::min(rounds, 24) : 0;
}

/// Exclusive prefix sum of v over the block (blockDim.x a multiple of 32, at most 1024), in
/// thread order; *total: the block's sum. Every thread must call it.
__device__ inline int block_exclusive_scan(int v, int* total) {
    __shared__ int warp_sums[32];
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    const int warps = static_cast<int>(blockDim.x) >> 5;
    int inclusive = v;
    for (int d = 1; d < 32; d <<= 1) {
        const int up = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) inclusive += up;
    }
    __syncthreads();  // warp_sums free (an earlier call's readers done)
    if (lane == 31) warp_sums[warp] = inclusive;
    __syncthreads();
    int before = 0, all = 0;
    for (int w = 0; w < warps; ++w) {
        if (w < warp) before += warp_sums[w];
        all += warp_sums[w];
    }
    *total = all;
    return before + inclusive - v;
}

/// Whether a grid-wide round runs on [left, right] (a range of more than kFinishRange
/// positions; smaller ones, and done selections, are finish_kernel's).
__device__ inline bool grid_round(int left, int right) { return right - left + 1 > kFinishRange; }

/// Whether this block is the last of `blocks` to arrive at st->arrived (then it resets it to 0
/// for the next such count). Every thread must call it, after its writes and reads that the
/// last block's work must follow; thread 0's writes (the caller's) are fenced device-wide.
__device__ inline bool last_to_arrive(SelectState* st, int blocks) {
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(&st->arrived, 1) == blocks - 1;
        if (last) st->arrived = 0;
    }
    __syncthreads();
    return last;
}

/// The chunks of the round's range (kSelectChunk positions, the last one shorter).
__device__ inline int chunks_of(int left, int right) { return (right - left + kSelectChunk) / kSelectChunk; }

/// Each chunk's left and right stops (the round's pivot arr[k]), blocks taking chunks blockIdx.x,
/// + gridDim.x, ...; then the last block to finish scans them: base_a[c], the left stops of the
/// chunks before c; base_b[c], the right stops of the chunks after c; the totals, the pivot and
/// pairs = 0 into the state.
__global__ void __launch_bounds__(kThreads)
    count_kernel(const float* __restrict__ arr, SelectState* st, int* count_a, int* count_b, int* __restrict__ base_a,
                 int* __restrict__ base_b) {
    const int left = st->left, right = st->right, k = st->k;
    if (!grid_round(left, right)) return;
    const int chunks = chunks_of(left, right);
    if (static_cast<int>(blockIdx.x) >= chunks) return;
    const float p = arr[k];
    for (int chunk = static_cast<int>(blockIdx.x); chunk < chunks; chunk += static_cast<int>(gridDim.x)) {
        const int lo = left + chunk * kSelectChunk, hi = min(lo + kSelectChunk, right + 1);
        int a = 0, b = 0;
        for (int x = lo + static_cast<int>(threadIdx.x); x < hi; x += kThreads) {
            a += left_stop(arr[x], p);
            b += right_stop(arr[x], p);
        }
        int total_a = 0, total_b = 0;
        block_exclusive_scan(a, &total_a);
        block_exclusive_scan(b, &total_b);
        if (threadIdx.x == 0) {
            count_a[chunk] = total_a;
            count_b[chunk] = total_b;
        }
    }
    if (!last_to_arrive(st, min(static_cast<int>(gridDim.x), chunks))) return;
    const int t = static_cast<int>(threadIdx.x);
    int carry_a = 0, carry_b = 0;
    for (int first = 0; first < chunks; first += kThreads) {
        const int c = first + t;
        const int rc = chunks - 1 - c;  // the right stops' chunks from the right
        int total = 0;
        const int ea = block_exclusive_scan(c < chunks ? __ldcg(count_a + c) : 0, &total);
        if (c < chunks) base_a[c] = carry_a + ea;
        carry_a += total;
        const int eb = block_exclusive_scan(c < chunks ? __ldcg(count_b + rc) : 0, &total);
        if (c < chunks) base_b[rc] = carry_b + eb;
        carry_b += total;
    }
    if (t == 0) {
        st->total_a = carry_a;
        st->total_b = carry_b;
        st->pivot = p;
        st->pairs = 0;
    }
}

/// Each position's ranks: pos_a[r - 1] = x for the left stop of rank r, pos_b likewise for the
/// right stops (ranked from the right); the largest paired rank into pairs (atomicMax). Blocks
/// take chunks as count_kernel's.
__global__ void __launch_bounds__(kThreads)
    rank_kernel(const float* __restrict__ arr, SelectState* st, const int* __restrict__ count_b,
                const int* __restrict__ base_a, const int* __restrict__ base_b, int* __restrict__ pos_a,
                int* __restrict__ pos_b) {
    __shared__ float values[kSelectChunk];
    const int left = st->left, right = st->right;
    if (!grid_round(left, right)) return;
    const int chunks = chunks_of(left, right);
    const float p = st->pivot;
    int best = 0;
    for (int chunk = static_cast<int>(blockIdx.x); chunk < chunks; chunk += static_cast<int>(gridDim.x)) {
        const int lo = left + chunk * kSelectChunk;
        const int size = min(kSelectChunk, right + 1 - lo);
        for (int x = static_cast<int>(threadIdx.x); x < size; x += kThreads) values[x] = arr[lo + x];
        __syncthreads();
        const int first = static_cast<int>(threadIdx.x) * kItems, last = min(first + kItems, size);
        int a = 0, b = 0;
        for (int x = first; x < last; ++x) {
            a += left_stop(values[x], p);
            b += right_stop(values[x], p);
        }
        int all_a = 0, all_b = 0;
        const int before_a = block_exclusive_scan(a, &all_a);
        const int before_b = block_exclusive_scan(b, &all_b);
        int ra = base_a[chunk] + before_a;                  // left stops in [left, x)
        int rb = base_b[chunk] + count_b[chunk] - before_b;  // right stops in [x, right]
        for (int x = first; x < last; ++x) {
            const bool is_a = left_stop(values[x], p), is_b = right_stop(values[x], p);
            ra += is_a;
            if (is_a) {
                pos_a[ra - 1] = lo + x;
                if (paired(ra, rb - is_b)) best = ra;  // ranks rise with x: the last is the largest
            }
            if (is_b) pos_b[rb - 1] = lo + x;
            rb -= is_b;
        }
        __syncthreads();  // values free for the next chunk
    }
    for (int d = 16; d > 0; d >>= 1) best = max(best, __shfl_xor_sync(0xffffffffu, best, d));
    if ((threadIdx.x & 31) == 0 && best > 0) atomicMax(&st->pairs, best);  // a warp's largest
}

/// The round's swaps: arr[pos_a[m]] with arr[pos_b[m]], m < pairs (disjoint pairs), grid-stride;
/// then the last block to finish closes the round (close_round, one thread: it reads no value,
/// only the stops' positions and counts; the blocks' reads of the bounds come before it).
__global__ void __launch_bounds__(kThreads)
    swap_kernel(float* __restrict__ arr, SelectState* st, const int* __restrict__ pos_a,
                const int* __restrict__ pos_b) {
    if (!grid_round(st->left, st->right)) return;
    const int pairs = st->pairs;
    for (int m = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); m < pairs;
         m += static_cast<int>(gridDim.x * blockDim.x)) {
        const int x = pos_a[m], y = pos_b[m];
        const float t = arr[x];
        arr[x] = arr[y];
        arr[y] = t;
    }
    if (!last_to_arrive(st, static_cast<int>(gridDim.x)) || threadIdx.x != 0) return;
    SelectState s = *st;
    close_round(s, pos_a, pos_b);
    *st = s;
}

/// The rounds left (ranges of at most kFinishRange positions, or more where the grid-wide
/// rounds did not get there), until done, in one block: each round as the grid-wide kernels
/// take it, a thread's contiguous share of the range as their chunks, the block's scans as
/// count_kernel's last block's; each thread closes the round on its own copy of the state (the
/// same inputs, the same state). One block of kFinishThreads.
__global__ void __launch_bounds__(kFinishThreads)
    finish_kernel(float* __restrict__ arr, SelectState* st, int* __restrict__ pos_a, int* __restrict__ pos_b) {
    __shared__ int pairs;
    const int t = static_cast<int>(threadIdx.x);
    SelectState s = *st;
    while (!select_done(s)) {
        const float p = arr[s.k];
        const int per = (s.right - s.left + kFinishThreads) / kFinishThreads;
        const int first = min(s.left + t * per, s.right + 1), last = min(first + per, s.right + 1);
        int a = 0, b = 0;
        for (int x = first; x < last; ++x) {
            a += left_stop(arr[x], p);
            b += right_stop(arr[x], p);
        }
        int total_a = 0, total_b = 0;
        int ra = block_exclusive_scan(a, &total_a);  // left stops in [left, x)
        const int before_b = block_exclusive_scan(b, &total_b);
        int rb = total_b - before_b;  // right stops in [x, right]
        if (t == 0) pairs = 0;
        int best = 0;
        for (int x = first; x < last; ++x) {
            const bool is_a = left_stop(arr[x], p), is_b = right_stop(arr[x], p);
            ra += is_a;
            if (is_a) {
                pos_a[ra - 1] = x;
                if (paired(ra, rb - is_b)) best = ra;
            }
            if (is_b) pos_b[rb - 1] = x;
            rb -= is_b;
        }
        for (int d = 16; d > 0; d >>= 1) best = max(best, __shfl_xor_sync(0xffffffffu, best, d));
        __syncthreads();  // pairs = 0 and every position's ranks written
        if ((t & 31) == 0 && best > 0) atomicMax(&pairs, best);
        __syncthreads();
        const int m = pairs;
        for (int i = t; i < m; i += kFinishThreads) {
            const int x = pos_a[i], y = pos_b[i];
            const float v = arr[x];
            arr[x] = arr[y];
            arr[y] = v;
        }
        __syncthreads();  // the swaps done, before close_round's reads and the next round's
        s.pivot = p;
        s.total_a = total_a;
        s.total_b = total_b;
        s.pairs = m;
        close_round(s, pos_a, pos_b);
        __syncthreads();  // close_round's reads of pos_a and pos_b done before the next round writes them
    }
    if (t == 0) *st = s;
}

/// terms[i] = arr[i] as a double, i < k.
__global__ void to_double_kernel(const float* __restrict__ arr, int k, double* __restrict__ terms) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < k) terms[i] = static_cast<double>(arr[i]);
}

}  // namespace pool

/// One result slot's device pooling: `selections` selections a frame (a picture's scales), each
/// of at most max_values values. Scratch allocated at construction; serves one stream at a time.
class DevicePool {
public:
    /// Throws Error on CUDA errors.
    DevicePool(std::size_t max_values, unsigned selections)
        : max_values_(max_values), selections_(selections), pos_a_(max_values), pos_b_(max_values),
          counts_(4 * (max_values / kSelectChunk + 1)), states_(selections),
          sums_(selections), terms_(max_values), host_states_(selections), host_sums_(selections),
          host_initial_(selections),
          seq_(std::make_unique<gpu::SequentialSum<double>>(max_values > 0 ? max_values : 1, 1)) {}

    /// Enqueues on `stream` the selection `index` of the k largest of the n device values
    /// `values` (1 <= k <= n <= max_values; reordered as quick_select reorders them) and the
    /// sequential double sum of the first k. Never synchronizes the host.
    void enqueue(float* values, int n, int k, unsigned index, cudaStream_t stream) {
        if (index >= selections_ || n < 1 || k < 1 || k > n || static_cast<std::size_t>(n) > max_values_)
            throw Error("cambi (CUDA): internal: a pooling beyond the device pool's sizes");
        host_initial_[index] = select_start(n, k);
        SelectState* st = states_.get() + index;
        cuda::check(cudaMemcpyAsync(st, host_initial_.get() + index, sizeof(SelectState), cudaMemcpyHostToDevice,
                                    stream),
                    "cudaMemcpyAsync (cambi pooling state)");
        if (!select_done(host_initial_[index])) {
            const unsigned chunks = static_cast<unsigned>((n + kSelectChunk - 1) / kSelectChunk);
            const std::size_t c = max_values_ / kSelectChunk + 1;
            int* count_a = counts_.get();
            int* count_b = count_a + c;
            int* base_a = count_b + c;
            int* base_b = base_a + c;
            const unsigned blocks = std::min(chunks, pool::kMaxBlocks);
            const unsigned swaps =
                std::min(cuda::blocks_for(static_cast<std::size_t>(n / 2 + 1), pool::kThreads), pool::kMaxBlocks);
            for (int round = 0; round < pool::rounds_for(n); ++round) {
                pool::count_kernel<<<blocks, pool::kThreads, 0, stream>>>(values, st, count_a, count_b, base_a, base_b);
                pool::rank_kernel<<<blocks, pool::kThreads, 0, stream>>>(values, st, count_b, base_a, base_b,
                                                                         pos_a_.get(), pos_b_.get());
                pool::swap_kernel<<<swaps, pool::kThreads, 0, stream>>>(values, st, pos_a_.get(), pos_b_.get());
            }
            pool::finish_kernel<<<1, pool::kFinishThreads, 0, stream>>>(values, st, pos_a_.get(), pos_b_.get());
            cuda::check_launch("cambi pooling rounds");
        }
        pool::to_double_kernel<<<cuda::blocks_for(static_cast<std::size_t>(k), pool::kThreads), pool::kThreads, 0,
                                 stream>>>(values, k, terms_.get());
        cuda::check_launch("cambi to_double_kernel");
        seq_->enqueue(terms_.get(), static_cast<std::size_t>(k), static_cast<std::size_t>(k), 1, sums_.get() + index,
                      stream);
    }

    /// Enqueues on `stream` the copies of the states and sums to the host (after the
    /// selections' enqueue).
    void fetch(cudaStream_t stream) {
        cuda::check(cudaMemcpyAsync(host_states_.get(), states_.get(), selections_ * sizeof(SelectState),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying cambi's pooling states to the host");
        cuda::check(cudaMemcpyAsync(host_sums_.get(), sums_.get(), selections_ * sizeof(double),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying cambi's pooled sums to the host");
    }

    /// After the stream's work is done: the pooled value of selection `index` (the CPU's
    /// spatial_pooling: the sum over k). Throws Error (internal) if its rounds did not finish.
    double result(unsigned index) const {
        const SelectState& s = host_states_[index];
        if (!select_done(s)) throw Error("cambi (CUDA): internal: a pooling selection left unfinished");
        return host_sums_[index] / s.k;
    }

private:
    std::size_t max_values_;
    unsigned selections_;
    cuda::DeviceBuffer<int> pos_a_, pos_b_, counts_;
    cuda::DeviceBuffer<SelectState> states_;
    cuda::DeviceBuffer<double> sums_, terms_;
    cuda::PinnedBuffer<SelectState> host_states_;
    cuda::PinnedBuffer<double> host_sums_;
    cuda::PinnedBuffer<SelectState> host_initial_;
    std::unique_ptr<gpu::SequentialSum<double>> seq_;
};

}  // namespace vmafx::cambi
