// Exact warp sums of 64-bit unsigned integers on the reduction unit (device code only; include
// from .cu files). Knows no metric.
#pragma once

namespace vmafx::gpu {

/// Sum of `v` over the 32 lanes of a full warp, modulo 2^64 (the value any order of unsigned
/// 64-bit additions gives), returned in every lane. All 32 lanes must call it.
///
/// v is cut into slices of 22, 22 and 20 bits; each slice's warp sum is below 32 * 2^22 = 2^27,
/// so one 32-bit `__reduce_add_sync` (a single REDUX instruction on sm_80 and later) sums it
/// exactly, and s0 + s1 * 2^22 + s2 * 2^44 is the exact sum, taken modulo 2^64. About 10
/// instructions in place of the 20 of five 64-bit shuffle-and-add steps (two SHFL and two
/// additions each).
__device__ inline unsigned long long warp_sum_u64(unsigned long long v) {
    constexpr unsigned kFull = 0xffffffffu;
    const unsigned s0 = __reduce_add_sync(kFull, static_cast<unsigned>(v) & 0x3FFFFFu);
    const unsigned s1 = __reduce_add_sync(kFull, static_cast<unsigned>(v >> 22) & 0x3FFFFFu);
    const unsigned s2 = __reduce_add_sync(kFull, static_cast<unsigned>(v >> 44));
    return static_cast<unsigned long long>(s0) + (static_cast<unsigned long long>(s1) << 22) +
           (static_cast<unsigned long long>(s2) << 44);
}

}  // namespace vmafx::gpu
