// SequentialSum (cuda/sequential_sum.hpp) on the device: the four passes of
// gpu/sequential_sum_core.hpp's method, one kernel each, all on the caller's stream:
//  bounds_kernel    (A, a block per chunk and row): pos / neg of the chunk, double, any order;
//  base_kernel      (B, a block per row): the prefix of the chunk sums (double, any order) and
//                   each chunk's SeqBase;
//  transfer_kernel  (C, a block per chunk and row): the chunk's transfers in its candidate
//                   binades, each thread composing kTermsPerThread consecutive terms in order,
//                   then an ordered pairwise tree in shared memory (the host emulation's grouping);
//  walk_kernel      (D, a block per row): one thread walks the chunks in order with the exact
//                   running sum (seq_apply on pass C's seq_step data), the chunk data staged in shared memory in
//                   batches by the whole block; a chunk the walk must add one by one is loaded
//                   into shared memory by the block, then added by the one thread (seq_add).
// The arithmetic of each step is the core header's (shared with the host emulation that the
// tests prove against plain loops); the passes only index, load and store. Exactness does not
// depend on A's and B's summation order (they only choose a path; seq_step/seq_apply check).
#include "cuda/sequential_sum.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "cuda/device.hpp"
#include "gpu/sequential_sum_core.hpp"

namespace vmafx::gpu {

namespace {

using namespace seqsum;

constexpr int kThreads = kChunk / kTermsPerThread;  // 256: passes A, C and D
constexpr int kBaseThreads = 1024;                  // pass B
constexpr int kWalkBatch = 64;                       // chunks staged at a time in pass D

static_assert(kChunk % kTermsPerThread == 0 && (kThreads & (kThreads - 1)) == 0);

/// Pass A. Grid: (chunks, batch); block: kThreads. Writes info[row * chunks + j].pos/neg/length.
template <typename Acc>
__global__ void __launch_bounds__(kThreads)
    bounds_kernel(const Acc* __restrict__ terms, std::size_t n, std::size_t pitch, unsigned chunks,
                  SeqChunk* __restrict__ info) {
    __shared__ double pos_s[kThreads], neg_s[kThreads];
    const unsigned j = blockIdx.x, row = blockIdx.y;
    const std::size_t begin = static_cast<std::size_t>(j) * kChunk;
    const std::size_t end = begin + kChunk < n ? begin + kChunk : n;
    const Acc* t = terms + row * pitch;
    double pos = 0, neg = 0;
    for (std::size_t i = begin + threadIdx.x; i < end; i += kThreads) {
        const double v = static_cast<double>(t[i]);
        if (v > 0) pos += v;
        else if (v < 0) neg -= v;
        else if (v != v) pos += v;  // NaN poisons the bounds: never applied
    }
    pos_s[threadIdx.x] = pos;
    neg_s[threadIdx.x] = neg;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (static_cast<int>(threadIdx.x) < stride) {
            pos_s[threadIdx.x] += pos_s[threadIdx.x + stride];
            neg_s[threadIdx.x] += neg_s[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        SeqChunk& c = info[static_cast<std::size_t>(row) * chunks + j];
        c.pos = pos_s[0];
        c.neg = neg_s[0];
        c.count = static_cast<int>(end - begin);
    }
}

/// Pass B. Grid: batch; block: kBaseThreads. Each thread scans a contiguous segment of the
/// row's chunks; the segments' totals are scanned in shared memory.
__global__ void __launch_bounds__(kBaseThreads) base_kernel(unsigned chunks, SeqChunk* __restrict__ info) {
    __shared__ double total[kBaseThreads];
    SeqChunk* c = info + static_cast<std::size_t>(blockIdx.x) * chunks;
    const unsigned seg = (chunks + kBaseThreads - 1) / kBaseThreads;
    const unsigned begin = threadIdx.x * seg;
    const unsigned end = begin + seg < chunks ? begin + seg : chunks;
    double sum = 0;
    for (unsigned j = begin; j < end; ++j) sum += c[j].pos - c[j].neg;
    total[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = 1; stride < kBaseThreads; stride *= 2) {  // inclusive Hillis-Steele scan
        const double add = static_cast<int>(threadIdx.x) >= stride ? total[threadIdx.x - stride] : 0.0;
        __syncthreads();
        total[threadIdx.x] += add;
        __syncthreads();
    }
    double prefix = threadIdx.x > 0 ? total[threadIdx.x - 1] : 0.0;
    for (unsigned j = begin; j < end; ++j) {
        c[j].base = seq_base(prefix);
        prefix += c[j].pos - c[j].neg;
    }
}

/// Pass C. Grid: (chunks, batch); block: kThreads. Writes the chunk's transfers in every
/// candidate binade and, from them, its walk data steps[row * chunks + j].
template <typename Acc>
__global__ void __launch_bounds__(kThreads)
    transfer_kernel(const Acc* __restrict__ terms, std::size_t pitch, unsigned chunks, SeqChunk* __restrict__ info,
                    SeqStep* __restrict__ steps) {
    __shared__ SeqTransfer tree[kCandidates][kThreads];
    const unsigned j = blockIdx.x, row = blockIdx.y;
    SeqChunk* c = info + static_cast<std::size_t>(row) * chunks + j;
    const SeqBase base = c->base;
    const int length = c->count;
    const Acc* t = terms + row * pitch + static_cast<std::size_t>(j) * kChunk;
    int e[kCandidates];
    SeqTransfer acc[kCandidates];
    for (int k = 0; k < kCandidates; ++k) {
        e[k] = seq_candidate(base, k);
        acc[k] = seq_identity();
        if (e[k] == kNoBase || !seq_usable_binade<Acc>(e[k])) acc[k].bad = 1;
    }
    if (base.e0 != kNoBase) {
        const int first = static_cast<int>(threadIdx.x) * kTermsPerThread;
        for (int i = 0; i < kTermsPerThread; ++i) {
            if (first + i >= length) break;
            const Acc v = t[first + i];
            for (int k = 0; k < kCandidates; ++k)
                if (!acc[k].bad) acc[k] = seq_compose(acc[k], seq_term<Acc>(v, e[k], base.sigma));
        }
    }
    for (int k = 0; k < kCandidates; ++k) tree[k][threadIdx.x] = acc[k];
    __syncthreads();
    for (int stride = 1; stride < kThreads; stride *= 2) {
        const int r = static_cast<int>(threadIdx.x) * 2 * stride;
        if (r + stride < kThreads)
            for (int k = 0; k < kCandidates; ++k) tree[k][r] = seq_compose(tree[k][r], tree[k][r + stride]);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        SeqChunk whole = *c;
        for (int k = 0; k < kCandidates; ++k) whole.tr[k] = tree[k][0];
        steps[static_cast<std::size_t>(row) * chunks + j] = seq_step<Acc>(whole);
    }
}

/// Pass D. Grid: batch; block: kThreads. out[row] = the row's sequential sum.
template <typename Acc>
__global__ void __launch_bounds__(kThreads)
    walk_kernel(const Acc* __restrict__ terms, std::size_t n, std::size_t pitch, unsigned chunks,
                const SeqStep* __restrict__ steps, Acc* __restrict__ out) {
    __shared__ SeqStep staged[kWalkBatch];
    __shared__ Acc chunk_terms[kChunk];
    __shared__ Acc sum;
    __shared__ unsigned stop;
    const unsigned row = blockIdx.x;
    const SeqStep* c = steps + static_cast<std::size_t>(row) * chunks;
    const Acc* t = terms + row * pitch;
    if (threadIdx.x == 0) sum = Acc(0);
    for (unsigned batch = 0; batch < chunks; batch += kWalkBatch) {
        const unsigned count = chunks - batch < kWalkBatch ? chunks - batch : kWalkBatch;
        __syncthreads();  // the previous batch's staged data is no longer read
        {
            // Stage the batch, word by word (SeqStep is a plain aggregate of 8-byte words).
            constexpr unsigned words = sizeof(SeqStep) / sizeof(std::uint64_t);
            static_assert(sizeof(SeqStep) % sizeof(std::uint64_t) == 0);
            const auto* src = reinterpret_cast<const std::uint64_t*>(c + batch);
            auto* dst = reinterpret_cast<std::uint64_t*>(staged);
            for (unsigned w = threadIdx.x; w < count * words; w += kThreads) dst[w] = src[w];
        }
        __syncthreads();
        unsigned j = 0;
        while (j < count) {
            if (threadIdx.x == 0) {
                Acc s = sum;
                unsigned k = j;
                while (k < count && seq_apply<Acc>(s, staged[k])) ++k;
                sum = s;
                stop = k;
            }
            __syncthreads();
            j = stop;
            if (j >= count) break;
            // Chunk batch + j goes one by one.
            const std::size_t begin = static_cast<std::size_t>(batch + j) * kChunk;
            const int length = static_cast<int>(n - begin < kChunk ? n - begin : kChunk);
            const Acc* chunk = t + begin;
            for (int i = static_cast<int>(threadIdx.x); i < length; i += kThreads) chunk_terms[i] = chunk[i];
            __syncthreads();
            if (threadIdx.x == 0) sum = seq_add<Acc>(sum, chunk_terms, static_cast<std::size_t>(length));
            ++j;
            __syncthreads();  // chunk_terms and sum before the next step
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) out[row] = sum;
}

/// out[b] = +0 for b < batch (n == 0).
template <typename Acc>
__global__ void zero_kernel(Acc* out, unsigned batch) {
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < batch) out[b] = Acc(0);
}

}  // namespace

template <typename Acc>
struct SequentialSum<Acc>::Impl {
    std::size_t max_terms;
    unsigned max_batch;
    cuda::DeviceBuffer<SeqChunk> info;
    cuda::DeviceBuffer<SeqStep> steps;
};

template <typename Acc>
SequentialSum<Acc>::SequentialSum(std::size_t max_terms, unsigned max_batch) {
    if (max_terms == 0 || max_batch == 0) throw Error("SequentialSum: max_terms and max_batch must be positive");
    const std::size_t chunks = (max_terms + kChunk - 1) / kChunk;
    impl_ = std::make_unique<Impl>(Impl{max_terms, max_batch, cuda::DeviceBuffer<SeqChunk>(chunks * max_batch),
                                        cuda::DeviceBuffer<SeqStep>(chunks * max_batch)});
}

template <typename Acc>
SequentialSum<Acc>::~SequentialSum() = default;

template <typename Acc>
void SequentialSum<Acc>::enqueue(const Acc* terms, std::size_t n, std::size_t pitch, unsigned batch, Acc* out,
                                 cudaStream_t stream) {
    if (n > impl_->max_terms)
        throw Error("SequentialSum: " + std::to_string(n) + " terms, more than " + std::to_string(impl_->max_terms));
    if (batch > impl_->max_batch)
        throw Error("SequentialSum: " + std::to_string(batch) + " rows, more than " + std::to_string(impl_->max_batch));
    if (pitch < n) throw Error("SequentialSum: a pitch below the row length");
    if (batch == 0) return;
    if (n == 0) {
        zero_kernel<Acc><<<1, 32 * ((batch + 31) / 32), 0, stream>>>(out, batch);
        cuda::check_launch("SequentialSum zero_kernel");
        return;
    }
    const auto chunks = static_cast<unsigned>((n + kChunk - 1) / kChunk);
    SeqChunk* info = impl_->info.get();
    bounds_kernel<Acc><<<dim3(chunks, batch), kThreads, 0, stream>>>(terms, n, pitch, chunks, info);
    cuda::check_launch("SequentialSum bounds_kernel");
    base_kernel<<<batch, kBaseThreads, 0, stream>>>(chunks, info);
    cuda::check_launch("SequentialSum base_kernel");
    SeqStep* steps = impl_->steps.get();
    transfer_kernel<Acc><<<dim3(chunks, batch), kThreads, 0, stream>>>(terms, pitch, chunks, info, steps);
    cuda::check_launch("SequentialSum transfer_kernel");
    walk_kernel<Acc><<<batch, kThreads, 0, stream>>>(terms, n, pitch, chunks, steps, out);
    cuda::check_launch("SequentialSum walk_kernel");
}

template class SequentialSum<float>;
template class SequentialSum<double>;

}  // namespace vmafx::gpu
