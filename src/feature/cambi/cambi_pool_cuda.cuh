// The device half of the CUDA twin of CAMBI's pooling (cambi_cuda.cu): each scale's spatial
// pooling as the exact sum of cambi_topk.hpp (the proof is there), for every selection of a
// frame (its pictures' scales) at once, without copying the c values to the host. Include only
// from .cu files.
//
// Per frame, on the frame's stream (six operations, whatever the scales):
//  1. the selections' states zeroed;
//  2. three radix passes (histogram_kernel, grid: blocks x selections): each block counts its
//     share of the selection's values whose bits carry the digits fixed so far, by the pass's
//     digit, in shared memory, then adds its counts to the selection's histogram; the last
//     block to finish finds the digit of the k-th largest value (the bins from the top, a
//     block-wide scan) and the rank left to seek within it, and clears the histogram. Pass 0
//     also notes the smallest positive value and any value the sum does not take;
//  3. sum_kernel: the units of the values above the threshold (cambi_topk.hpp topk_units), per
//     thread, per block, then into the selection's sum (integers: order-free), and the counts of
//     the values above and at the threshold; the last block checks that the threshold is the
//     k-th largest, adds its copies and writes the TopkSum;
//  4. the TopkSums copied to pinned host memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "base/error.hpp"
#include "cuda/device.hpp"
#include "feature/cambi/cambi_topk.hpp"

namespace vmafx::cambi {

/// One selection of a frame: the k largest of the n values at c + offset.
struct TopkJob {
    unsigned long long offset = 0;
    int n = 0, k = 0;
};

namespace pool {

constexpr int kThreads = 256;
constexpr int kValuesPerThread = 16;  ///< at least, before the grid is capped
constexpr unsigned kMaxBlocks = 1024;

/// A selection's working state in device memory (zero at the frame's start).
struct State {
    unsigned hist[kTopkBins];
    unsigned prefix;        ///< the threshold's bits found so far
    unsigned rank;          ///< the rank (1 = largest) still sought among the values with that prefix
    unsigned min_inverted;  ///< ~(the smallest positive value's bits), atomicMax; 0: none
    unsigned not_plain;     ///< a value the exact sum does not take
    unsigned overflow;      ///< a block's units reached kTopkLimit
    unsigned arrived;       ///< blocks done with this kernel (0 between kernels)
    unsigned greater;       ///< sum_kernel: values above the threshold
    unsigned equal;         ///< sum_kernel: values equal to it
    unsigned long long units;
};

/// Exclusive prefix sum of v over the block (kThreads threads), in thread order; *total: the
/// block's sum. Every thread must call it.
__device__ inline unsigned block_exclusive_scan(unsigned v, unsigned* total) {
    __shared__ unsigned warp_sums[kThreads / 32];
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    unsigned inclusive = v;
    for (int d = 1; d < 32; d <<= 1) {
        const unsigned up = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) inclusive += up;
    }
    __syncthreads();  // warp_sums free (an earlier call's readers done)
    if (lane == 31) warp_sums[warp] = inclusive;
    __syncthreads();
    unsigned before = 0, all = 0;
    for (int w = 0; w < kThreads / 32; ++w) {
        if (w < warp) before += warp_sums[w];
        all += warp_sums[w];
    }
    *total = all;
    return before + inclusive - v;
}

/// Whether this block is the last of the grid's row to finish (then it resets the count for
/// the next kernel). Every thread must call it, after the writes the last block must see.
__device__ inline bool last_to_arrive(State* st) {
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(&st->arrived, 1u) == gridDim.x - 1;
        if (last) st->arrived = 0;
    }
    __syncthreads();
    if (last) __threadfence();
    return last;
}

/// Pass `pass` of the radix selection. Grid: blocks x selections; block: kThreads.
template <int kPass>
__global__ void __launch_bounds__(kThreads)
    histogram_kernel(const float* __restrict__ c, const TopkJob* __restrict__ jobs, State* __restrict__ states) {
    constexpr int kShift = topk_shift(kPass), kBins = topk_bins(kPass);
    constexpr unsigned kFixed = topk_fixed_mask(kPass);
    __shared__ unsigned hist[kBins];
    const TopkJob job = jobs[blockIdx.y];
    State* st = states + blockIdx.y;
    const auto* bits = reinterpret_cast<const std::uint32_t*>(c + job.offset);
    for (int b = static_cast<int>(threadIdx.x); b < kBins; b += kThreads) hist[b] = 0;
    __syncthreads();
    const unsigned prefix = kPass == 0 ? 0u : st->prefix;
    unsigned not_plain = 0, min_positive = 0xffffffffu;
    for (int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x); x < job.n;
         x += static_cast<int>(gridDim.x * kThreads)) {
        const std::uint32_t v = bits[x];
        if (kPass == 0) {
            not_plain |= !topk_plain(v);
            if (v != 0 && v < min_positive) min_positive = v;
        }
        if ((v & kFixed) == prefix) atomicAdd(&hist[(v >> kShift) & (kBins - 1)], 1u);
    }
    if (kPass == 0) {
        for (int d = 16; d > 0; d >>= 1) {
            not_plain |= __shfl_xor_sync(0xffffffffu, not_plain, d);
            min_positive = min(min_positive, __shfl_xor_sync(0xffffffffu, min_positive, d));
        }
        if ((threadIdx.x & 31) == 0) {
            if (not_plain) atomicOr(&st->not_plain, 1u);
            if (min_positive != 0xffffffffu) atomicMax(&st->min_inverted, ~min_positive);
        }
    }
    __syncthreads();
    for (int b = static_cast<int>(threadIdx.x); b < kBins; b += kThreads)
        if (hist[b]) atomicAdd(&st->hist[b], hist[b]);
    if (!last_to_arrive(st)) return;
    // The digit of the value of rank `rank` (from the largest): thread t holds kPer bins from
    // the top, the scan gives the count above them.
    constexpr int kPer = kBins / kThreads;
    const int t = static_cast<int>(threadIdx.x);
    const unsigned rank = kPass == 0 ? static_cast<unsigned>(job.k) : st->rank;
    unsigned mine = 0;
    for (int i = 0; i < kPer; ++i) mine += __ldcg(&st->hist[kBins - 1 - (t * kPer + i)]);
    unsigned total = 0;
    unsigned above = block_exclusive_scan(mine, &total);
    if (above < rank && rank <= above + mine) {
        for (int i = 0; i < kPer; ++i) {
            const int b = kBins - 1 - (t * kPer + i);
            const unsigned count = __ldcg(&st->hist[b]);
            if (rank <= above + count) {
                st->prefix = prefix | static_cast<unsigned>(b) << kShift;
                st->rank = rank - above;
                break;
            }
            above += count;
        }
    }
    __syncthreads();  // the walk's reads of the histogram done before it is cleared
    for (int b = t; b < kBins; b += kThreads) st->hist[b] = 0;
}

/// The selection's sum (after the three passes: st->prefix is the threshold t, st->rank the
/// copies of t among the k largest). Grid: blocks x selections; block: kThreads.
__global__ void __launch_bounds__(kThreads)
    sum_kernel(const float* __restrict__ c, const TopkJob* __restrict__ jobs, State* __restrict__ states,
               TopkSum* __restrict__ sums) {
    __shared__ unsigned long long warp_units[kThreads / 32];
    __shared__ unsigned warp_greater[kThreads / 32], warp_equal[kThreads / 32];
    const TopkJob job = jobs[blockIdx.y];
    State* st = states + blockIdx.y;
    const auto* bits = reinterpret_cast<const std::uint32_t*>(c + job.offset);
    const std::uint32_t t = st->prefix;
    const std::uint32_t min_positive = st->min_inverted ? ~st->min_inverted : 0u;
    const int unit = topk_unit(t, min_positive);
    unsigned long long units = 0;
    unsigned greater = 0, equal = 0;  // the selection's check: k - greater copies of t exist
    for (int x = static_cast<int>(blockIdx.x * kThreads + threadIdx.x); x < job.n;
         x += static_cast<int>(gridDim.x * kThreads)) {
        const std::uint32_t v = bits[x];
        if (v > t) {
            units = min(units + topk_units(v, unit), kTopkLimit);
            ++greater;
        } else if (v == t) {
            ++equal;
        }
    }
    for (int d = 16; d > 0; d >>= 1) units = min(units + __shfl_xor_sync(0xffffffffu, units, d), kTopkLimit);
    greater = __reduce_add_sync(0xffffffffu, greater);
    equal = __reduce_add_sync(0xffffffffu, equal);
    if ((threadIdx.x & 31) == 0) {
        warp_units[threadIdx.x >> 5] = units;
        warp_greater[threadIdx.x >> 5] = greater;
        warp_equal[threadIdx.x >> 5] = equal;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long block = 0;
        unsigned block_greater = 0, block_equal = 0;
        for (int w = 0; w < kThreads / 32; ++w) {
            block = min(block + warp_units[w], kTopkLimit);
            block_greater += warp_greater[w];
            block_equal += warp_equal[w];
        }
        if (block >= kTopkLimit) atomicOr(&st->overflow, 1u);
        else if (block) atomicAdd(&st->units, block);  // < 2^53 each, at most kMaxBlocks: no wrap
        if (block_greater) atomicAdd(&st->greater, block_greater);
        if (block_equal) atomicAdd(&st->equal, block_equal);
    }
    if (!last_to_arrive(st) || threadIdx.x != 0) return;
    // (__ldcg: the other blocks' atomics, past this block's L1, which holds the state's line.)
    const unsigned long long above = __ldcg(&st->overflow) ? kTopkLimit : min(__ldcg(&st->units), kTopkLimit);
    // The radix passes found the k-th largest: fewer than k values above it, at least k with
    // its copies, and the copies counted are those missing. Else (never seen) not proven.
    const unsigned k = static_cast<unsigned>(job.k), above_t = __ldcg(&st->greater), at_t = __ldcg(&st->equal);
    const bool found = above_t < k && k <= above_t + at_t && st->rank == k - above_t;
    sums[blockIdx.y] = topk_total(t, st->rank, min_positive, above, st->not_plain == 0 && found);
}

}  // namespace pool

/// One result slot's device pooling: the frame's selections (`jobs`, fixed at construction),
/// enqueued together; the sums copied to the host. Serves one stream at a time.
class TopkPool {
public:
    /// Throws Error on CUDA errors, or where a job has not 1 <= k <= n.
    explicit TopkPool(const std::vector<TopkJob>& jobs)
        : count_(static_cast<unsigned>(jobs.size())), jobs_(jobs.size()), states_(jobs.size()),
          sums_(jobs.size()), host_sums_(jobs.size()) {
        int largest = 0;
        for (const TopkJob& j : jobs) {
            if (j.k < 1 || j.k > j.n) throw Error("cambi (CUDA): internal: a pooling of k values not among n");
            largest = std::max(largest, j.n);
        }
        blocks_ = std::min(cuda::blocks_for(static_cast<std::size_t>(largest),
                                            static_cast<unsigned>(pool::kThreads * pool::kValuesPerThread)),
                           pool::kMaxBlocks);
        if (count_)
            cuda::check(cudaMemcpy(jobs_.get(), jobs.data(), jobs.size() * sizeof(TopkJob), cudaMemcpyHostToDevice),
                        "cudaMemcpy (cambi pooling jobs)");
    }

    /// Enqueues on `stream` every selection of the frame whose c values are at `c`, and the
    /// copy of their sums to the host. Never synchronizes the host.
    void enqueue(const float* c, cudaStream_t stream) {
        if (!count_) return;
        cuda::check(cudaMemsetAsync(states_.get(), 0, count_ * sizeof(pool::State), stream),
                    "cudaMemsetAsync (cambi pooling states)");
        const dim3 grid(blocks_, count_);
        pool::histogram_kernel<0><<<grid, pool::kThreads, 0, stream>>>(c, jobs_.get(), states_.get());
        pool::histogram_kernel<1><<<grid, pool::kThreads, 0, stream>>>(c, jobs_.get(), states_.get());
        pool::histogram_kernel<2><<<grid, pool::kThreads, 0, stream>>>(c, jobs_.get(), states_.get());
        pool::sum_kernel<<<grid, pool::kThreads, 0, stream>>>(c, jobs_.get(), states_.get(), sums_.get());
        cuda::check_launch("cambi pooling");
        cuda::check(cudaMemcpyAsync(host_sums_.get(), sums_.get(), count_ * sizeof(TopkSum), cudaMemcpyDeviceToHost,
                                    stream),
                    "copying cambi's pooled sums to the host");
    }

    /// After the stream's work is done: selection `index`'s sum.
    const TopkSum& sum(unsigned index) const { return host_sums_[index]; }

private:
    unsigned count_;
    unsigned blocks_ = 1;
    cuda::DeviceBuffer<TopkJob> jobs_;
    cuda::DeviceBuffer<pool::State> states_;
    cuda::DeviceBuffer<TopkSum> sums_;
    cuda::PinnedBuffer<TopkSum> host_sums_;
};

}  // namespace vmafx::cambi
