// The device reproduction of a CPU's running floating-point sum: the value that
//
//     Acc s = 0;
//     for (std::size_t i = 0; i < n; ++i) s += terms[i];   // each add rounded to Acc
//
// leaves on the host (IEEE binary32 or binary64, round to nearest, ties to even; no FMA,
// no extended precision), computed in parallel on the device, bit for bit.
//
// Why it is possible (../shared/DESIGN.md, "Exactness"; docs/parity.md, "Sequential sums"):
// while the running sum s stays inside one binade [2^e, 2^(e+1)) (or its negative), every add
// rounds s + t to the same grid of spacing u = 2^(e - p + 1) (p = 24 or 53 significand bits),
// and because s is on that grid, round(s + t) = s + u * r(t / u), where r rounds to an integer,
// nearest, and only a tie (t / u exactly k + 1/2) depends on s: on the parity of s / u. So a
// run of terms that keeps s inside one binade acts on s as a function of one bit (the parity of
// s / u): two exact integer increments and two end parities. These functions compose
// associatively, hence reduce in parallel, exactly, in int64. Runs that cross a binade (and the
// start, below the smallest binade a chunk can be placed in) are added one by one, in order, as
// the CPU adds them. The result is the CPU's sum, not an approximation of it: there is no bound.
//
// Implementation: src/cuda/sequential_sum.cu (CUDA) on top of the host/device arithmetic of
// src/gpu/sequential_sum_core.hpp, which the host tests run on their own to prove the method
// against plain sequential loops (ties, binade crossings both ways, negative terms, zeros,
// subnormal terms, huge and tiny terms).
#pragma once

#include <cstddef>
#include <memory>

#include <cuda_runtime.h>

#include "gpu/sequential_sum_core.hpp"  // double_sum_may_round

namespace vmafx::gpu {

/// Reproduces on the device the sequential sum of `batch` rows of `n` terms each (Acc = float or
/// double), as above. Device scratch is allocated once at construction for at most `max_terms`
/// terms a row and `max_batch` rows; one object serves one stream at a time (a twin keeps one
/// per result slot).
template <typename Acc>
class SequentialSum {
public:
    /// Throws Error on CUDA errors, and for max_terms or max_batch 0.
    SequentialSum(std::size_t max_terms, unsigned max_batch);
    ~SequentialSum();
    SequentialSum(const SequentialSum&) = delete;
    SequentialSum& operator=(const SequentialSum&) = delete;

    /// Enqueues on `stream`: for b in [0, batch): out[b] = the sequential sum of
    /// terms[b * pitch + i], i in [0, n) (0 for n == 0). `terms` and `out` are device memory;
    /// the terms must be complete when the stream reaches this work and stay unchanged until it
    /// is done. Never synchronizes the host. Throws Error for n > max_terms, batch > max_batch,
    /// pitch < n, and on CUDA errors.
    void enqueue(const Acc* terms, std::size_t n, std::size_t pitch, unsigned batch, Acc* out, cudaStream_t stream);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

extern template class SequentialSum<float>;
extern template class SequentialSum<double>;

}  // namespace vmafx::gpu
