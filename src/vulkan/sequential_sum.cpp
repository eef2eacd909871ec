// SequentialSum on a Vulkan device (vulkan/sequential_sum.hpp): the four passes of
// sequential_sum.glsl (A bounds, B base, C transfer, D walk, the walk in several dispatches on a
// device emulated on the CPU), dispatched in order on the caller's queue (every command there
// follows a full barrier, so each pass sees the previous one's writes).
#include "vulkan/sequential_sum.hpp"

#include <algorithm>
#include <span>
#include <type_traits>
#include <string>

#include "base/error.hpp"

namespace vmafx::vulkan {

namespace {

using gpu::seqsum::kChunk;
using gpu::seqsum::SeqChunk;
using gpu::seqsum::SeqStep;

const std::uint32_t kSpirvDouble[] = {
#include "sequential_sum_d_vulkan.spv.inc"
};
const std::uint32_t kSpirvFloat[] = {
#include "sequential_sum_f_vulkan.spv.inc"
};

/// The module of the passes for Acc, and its name in errors.
template <typename Acc>
std::span<const std::uint32_t> module_of() {
    if constexpr (std::is_same_v<Acc, float>) return kSpirvFloat;
    else return kSpirvDouble;
}
template <typename Acc>
const char* name_of() {
    return std::is_same_v<Acc, float> ? "SequentialSum<float> (Vulkan)" : "SequentialSum<double> (Vulkan)";
}

/// Workgroups along x of passes A and C (chunks beyond are taken in a stride): every device
/// allows this many.
constexpr std::size_t kMaxGroups = 65535;

/// sequential_sum.glsl's push constants, member for member.
struct Push {
    std::uint64_t terms, info, steps, sums;
    std::uint32_t n, pitch, chunks;
    std::int32_t pass;
    std::uint32_t walk_begin, walk_end;
};
static_assert(sizeof(Push) == 56);

/// Chunks a walk dispatch takes on a device emulated on the CPU: lavapipe (Mesa 22's llvmpipe)
/// ends every loop of a shader invocation silently once it has run 65535 loop iterations in all,
/// and the walk's invocation runs at most about 150 a chunk (8 staging batches of chunks, the
/// chunks' applications, a one-by-one chunk's 4 pieces of 32 sixteen-term iterations and their
/// tails), so 64 chunks stay far below. A GPU walks a row in one dispatch.
constexpr std::size_t kEmulatedWalkChunks = 64;
// The device alone reads and writes the scratch, with the shader's std430 layout of these
// structures, which is the host's (so that the host allocates their size): 128 bytes each.
static_assert(sizeof(SeqChunk) == 128 && sizeof(SeqStep) == 128);

std::size_t chunks_of(std::size_t n) { return (n + kChunk - 1) / kChunk; }

/// max_terms, once it and max_batch are checked (before any device work).
std::size_t checked(std::size_t max_terms, unsigned max_batch) {
    if (max_terms == 0 || max_batch == 0) throw Error("SequentialSum: max_terms and max_batch must be positive");
    if (max_terms >= (std::size_t{1} << 31))
        throw Error("SequentialSum (Vulkan): " + std::to_string(max_terms) + " terms a row, 2^31 or more");
    if (max_batch > kMaxGroups)
        throw Error("SequentialSum (Vulkan): " + std::to_string(max_batch) + " rows, more than " +
                    std::to_string(kMaxGroups));
    return max_terms;
}

}  // namespace

template <typename Acc>
SequentialSum<Acc>::SequentialSum(std::size_t max_terms, unsigned max_batch)
    : max_terms_(checked(max_terms, max_batch)), max_batch_(max_batch),
      kernel_(module_of<Acc>(), sizeof(Push), name_of<Acc>()) {
    walk_chunks_ = api().device_info().emulated ? kEmulatedWalkChunks : chunks_of(max_terms);
    info_ = DeviceBuffer<SeqChunk>(chunks_of(max_terms) * max_batch);
    steps_ = DeviceBuffer<SeqStep>(chunks_of(max_terms) * max_batch);
}

template <typename Acc>
void SequentialSum<Acc>::enqueue(GpuQueue* queue, std::uint64_t terms, std::size_t n, std::size_t pitch, unsigned batch,
                            std::uint64_t out) const {
    if (n > max_terms_)
        throw Error("SequentialSum: " + std::to_string(n) + " terms, more than " + std::to_string(max_terms_));
    if (batch > max_batch_)
        throw Error("SequentialSum: " + std::to_string(batch) + " rows, more than " + std::to_string(max_batch_));
    if (pitch < n) throw Error("SequentialSum: a pitch below the row length");
    if (pitch >= (std::size_t{1} << 32)) throw Error("SequentialSum (Vulkan): a pitch of 2^32 terms or more");
    if (batch == 0) return;
    if (n == 0) {
        fill(queue, reinterpret_cast<void*>(static_cast<std::uintptr_t>(out)), batch * sizeof(Acc), 0);  // +0
        return;
    }
    const std::size_t chunks = chunks_of(n);
    Push p{terms, info_.address(), steps_.address(), out, static_cast<std::uint32_t>(n),
           static_cast<std::uint32_t>(pitch), static_cast<std::uint32_t>(chunks), 0, 0, 0};
    const auto groups = static_cast<std::uint32_t>(std::min(chunks, kMaxGroups));
    p.pass = 0;
    kernel_.dispatch(queue, groups, batch, 1, &p);
    p.pass = 1;
    kernel_.dispatch(queue, batch, 1, 1, &p);
    p.pass = 2;
    kernel_.dispatch(queue, groups, batch, 1, &p);
    p.pass = 3;
    for (std::size_t begin = 0; begin < chunks; begin += walk_chunks_) {
        p.walk_begin = static_cast<std::uint32_t>(begin);
        p.walk_end = static_cast<std::uint32_t>(std::min(chunks, begin + walk_chunks_));
        kernel_.dispatch(queue, batch, 1, 1, &p);
    }
}

template class SequentialSum<float>;
template class SequentialSum<double>;

SlotSequentialSums::SlotSequentialSums(std::size_t n, unsigned rows, unsigned slots, bool needed)
    : n_(n), rows_(rows) {
    if (!needed) return;
    terms_ = DeviceBuffer<double>(n * rows * slots);
    for (unsigned s = 0; s < slots; ++s) sums_.push_back(std::make_unique<SequentialSum<double>>(n, rows));
}

std::uint64_t SlotSequentialSums::terms(unsigned slot, unsigned row) const {
    return active() ? terms_.address(n_ * (static_cast<std::size_t>(slot) * rows_ + row)) : 0;
}

void SlotSequentialSums::enqueue(GpuQueue* queue, unsigned slot, std::uint64_t out) const {
    if (active()) sums_.at(slot)->enqueue(queue, terms(slot), n_, n_, rows_, out);
}

}  // namespace vmafx::vulkan
