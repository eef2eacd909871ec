// SequentialSum on a Vulkan device: the value that a CPU's running sum in Acc (float or double)
//
//     Acc s = 0;
//     for (std::size_t i = 0; i < n; ++i) s += terms[i];   // each add rounded to Acc
//
// leaves (IEEE binary32 or binary64, round to nearest, ties to even), computed in parallel on the
// device, bit for bit, by the method of gpu/sequential_sum_core.hpp (why it is exact:
// cuda/sequential_sum.hpp and docs/parity.md, "Sequential sums"). The arithmetic of every step is
// the core header's, compiled as GLSL (sequential_sum_d_vulkan.comp and sequential_sum_f_vulkan.comp,
// the passes in sequential_sum.glsl); the same
// functions run in the CUDA passes (cuda/sequential_sum.cu) and in the host emulation that
// tests/test_sequential_sum.cpp proves against plain loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu/sequential_sum_core.hpp"  // double_sum_may_round
#include "gpu/twin.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx::vulkan {

/// Reproduces on the device the sequential sum in Acc (float or double, as the CPU's accumulator)
/// of `batch` rows of `n` Acc terms each. Device scratch is allocated once at construction for at
/// most `max_terms` terms a row and `max_batch` rows; one object serves one queue at a time (a twin
/// keeps one per result slot).
template <typename Acc>
class SequentialSum {
public:
    /// Throws Error on Vulkan errors, for max_terms or max_batch 0, and for max_terms of 2^31
    /// or more (the shader indexes a row with 32-bit integers).
    SequentialSum(std::size_t max_terms, unsigned max_batch);
    SequentialSum(const SequentialSum&) = delete;
    SequentialSum& operator=(const SequentialSum&) = delete;

    /// Records on `queue`: for b in [0, batch): the Acc at device address out + sizeof(Acc) b =
    /// the sequential sum of the Acc terms at terms + sizeof(Acc) (b * pitch + i), i in [0, n)
    /// (+0 for n == 0).
    /// The terms must be complete when the queue reaches this work (every command on a queue
    /// follows a full barrier) and stay unchanged until it is done. Throws Error for
    /// n > max_terms, batch > max_batch and pitch < n.
    void enqueue(GpuQueue* queue, std::uint64_t terms, std::size_t n, std::size_t pitch, unsigned batch,
                 std::uint64_t out) const;

private:
    std::size_t max_terms_;
    unsigned max_batch_;
    std::size_t walk_chunks_ = 0;  ///< chunks a walk dispatch takes (sequential_sum.cpp)
    Kernel kernel_;  // sequential_sum_f_vulkan.comp or sequential_sum_d_vulkan.comp
    DeviceBuffer<gpu::seqsum::SeqChunk> info_;  // max chunks x max_batch (passes A to C)
    DeviceBuffer<gpu::seqsum::SeqStep> steps_;  // max chunks x max_batch (passes C and D)
};

extern template class SequentialSum<float>;
extern template class SequentialSum<double>;

/// A twin's per-frame terms and their sequential sums, per result slot: `rows` rows of `n`
/// double terms in each slot's device memory and a SequentialSum over them, all allocated only
/// where `needed` (where the CPU's running double sums may round: gpu::double_sum_may_round).
class SlotSequentialSums {
public:
    /// Throws Error as SequentialSum's constructor does, and on Vulkan errors.
    SlotSequentialSums(std::size_t n, unsigned rows, unsigned slots, bool needed);

    /// Whether the terms and sums exist (`needed` at construction).
    bool active() const { return !sums_.empty(); }
    /// The device address of row `row` of slot `slot`'s terms; 0 when not active.
    std::uint64_t terms(unsigned slot, unsigned row = 0) const;
    /// Records on `queue` the sums of slot `slot`'s rows into the doubles at device address
    /// out, out + 8, ... (one per row). Nothing when not active.
    void enqueue(GpuQueue* queue, unsigned slot, std::uint64_t out) const;

private:
    std::size_t n_;
    unsigned rows_;
    DeviceBuffer<double> terms_;                        // slots x rows x n
    std::vector<std::unique_ptr<SequentialSum<double>>> sums_;  // per slot
};

}  // namespace vmafx::vulkan
