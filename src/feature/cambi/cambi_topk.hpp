// CAMBI's spatial pooling as an exact sum (the CUDA twin's, cambi_cuda.cu): the CPU's
// spatial_pooling (cambi_contrast.cpp: upstream's quick_select of the k largest c values, then
// their double sum in the order quick_select leaves them, over k) without the selection's order.
//
// Why the order can be left out where it is: the c values are floats >= 0. Let r be the
// smallest positive value among the k largest (the k-th largest itself when that is positive)
// and q = 2^e its float ulp (e = its biased exponent - 150; -149 for a denormal). Every value
// >= r is a whole multiple of q (a float's ulp grows with it), and so is every partial sum of
// the CPU's loop, a sum of some of the k values. When their whole sum S (units * q) is below
// 2^53 q, every partial sum is a multiple of q below 2^53 q, a double exactly; each addition of
// the loop is then exact, whatever the order, and the CPU's sum is S. The k largest values are
// one multiset (those above the k-th largest t, and k minus their count copies of t), so S is
// found without the selection: t by a radix selection on the values' bits (non-negative floats
// order as their bits), then the integer sum of the values above t in units of q, plus the
// copies of t. Where S reaches 2^53 q (a wide range of values among the k: seen on none of the
// fixtures with vmafx's models), or a value is negative, infinite or NaN (never, from the
// contrast), the sum is not proven, and the twin pools those values with the CPU's own function.
//
// The value arithmetic is here once, host-device: the kernels (cambi_pool_cuda.cuh) and the host
// model (exact_topk_sum, which the CPU tests check against spatial_pooling) share it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "base/host_device.hpp"

namespace vmafx::cambi {

/// The radix selection's digits of a value's 32 bits: pass 0 bits 21..31, pass 1 bits 10..20,
/// pass 2 bits 0..9.
inline constexpr int kTopkPasses = 3;
inline constexpr int kTopkBins = 2048;  ///< the largest digit's bins
VMAFX_HOST_DEVICE constexpr int topk_shift(int pass) { return pass == 0 ? 21 : (pass == 1 ? 10 : 0); }
VMAFX_HOST_DEVICE constexpr int topk_bins(int pass) { return pass == 2 ? 1024 : 2048; }
/// The bits above pass `pass`'s digit (those the earlier passes fixed).
VMAFX_HOST_DEVICE constexpr unsigned topk_fixed_mask(int pass) {
    return pass == 0 ? 0u : (pass == 1 ? 0xffe00000u : 0xfffffc00u);
}

/// The sums below 2^53 units are exact doubles (the proof's bound).
inline constexpr unsigned long long kTopkLimit = 1ull << 53;

/// Whether a value's bits are +0 or a positive finite float (normal or denormal): the values
/// the exact sum takes (others: not proven).
VMAFX_HOST_DEVICE inline bool topk_plain(std::uint32_t bits) { return bits < 0x7f800000u; }

/// e of a positive finite value's ulp 2^e (its biased exponent - 150; denormals -149).
VMAFX_HOST_DEVICE inline int topk_ulp_exponent(std::uint32_t bits) {
    const int biased = static_cast<int>(bits >> 23);
    return (biased ? biased : 1) - 150;
}

/// A positive finite value (bits) in units of 2^unit_exponent, for a value whose ulp is at
/// least that unit: its 24-bit significand shifted left; kTopkLimit where the units reach 2^53
/// (the sum is then not proven).
VMAFX_HOST_DEVICE inline unsigned long long topk_units(std::uint32_t bits, int unit_exponent) {
    const std::uint32_t biased = bits >> 23;
    const unsigned long long significand = (bits & 0x7fffffu) | (biased ? 0x800000u : 0u);
    const int shift = topk_ulp_exponent(bits) - unit_exponent;  // >= 0 for values >= the unit's value
    return shift > 29 ? kTopkLimit : significand << shift;      // significand < 2^24
}

/// A selection's exact sum: S = units * 2^exponent where `exact`, else not proven.
struct TopkSum {
    int exact = 0;
    int exponent = 0;
    unsigned long long units = 0;
};

/// The exponent of the sum's unit: the ulp of the threshold t (the k-th largest value's bits),
/// or, where t is 0, of the smallest positive value (`min_positive`; 0 where none).
VMAFX_HOST_DEVICE inline int topk_unit(std::uint32_t t, std::uint32_t min_positive) {
    return topk_ulp_exponent(t ? t : (min_positive ? min_positive : 1u));
}

/// The sum S from the threshold t, the copies of t among the k largest (`copies`), the smallest
/// positive value's bits and the units of the values above t (`above`, saturated at
/// kTopkLimit) in units of 2^topk_unit(t, min_positive); exact where `plain` and below 2^53.
VMAFX_HOST_DEVICE inline TopkSum topk_total(std::uint32_t t, unsigned copies, std::uint32_t min_positive,
                                            unsigned long long above, bool plain) {
    TopkSum s;
    s.exponent = topk_unit(t, min_positive);
    const unsigned long long each = t ? topk_units(t, s.exponent) : 0ull;  // < 2^24: t's own unit
    s.units = above + each * copies;                                       // < 2^53 + 2^55: no wrap
    s.exact = plain && above < kTopkLimit && s.units < kTopkLimit;
    return s;
}

/// The double S of a proven sum.
inline double topk_value(const TopkSum& s) { return std::ldexp(static_cast<double>(s.units), s.exponent); }

/// The host model (the kernels' arithmetic, found by a sort instead of the radix passes): the
/// sum of the k largest of values[0, n) (1 <= k <= n) that the CPU's spatial_pooling computes
/// before its division by k, bit for bit, where proven; nullopt where not (header comment).
inline std::optional<double> exact_topk_sum(const float* values, int n, int k) {
    std::vector<std::uint32_t> bits(static_cast<std::size_t>(n));
    std::memcpy(bits.data(), values, bits.size() * sizeof(float));
    bool plain = true;
    std::uint32_t min_positive = 0;
    for (const std::uint32_t b : bits) {
        plain = plain && topk_plain(b);
        if (b != 0 && (min_positive == 0 || b < min_positive)) min_positive = b;
    }
    std::vector<std::uint32_t> sorted = bits;
    std::nth_element(sorted.begin(), sorted.begin() + (k - 1), sorted.end(), [](std::uint32_t a, std::uint32_t b) {
        return a > b;
    });
    const std::uint32_t t = sorted[static_cast<std::size_t>(k - 1)];
    const int unit = topk_unit(t, min_positive);
    unsigned long long above = 0;
    unsigned greater = 0;
    for (const std::uint32_t b : bits)
        if (b > t) {
            ++greater;
            above = std::min(above + topk_units(b, unit), kTopkLimit);
        }
    const TopkSum s = topk_total(t, static_cast<unsigned>(k) - greater, min_positive, above, plain);
    if (!s.exact) return std::nullopt;
    return topk_value(s);
}

/// The CUDA twin's device pooling of `arrays` (each with its k), for the tests: each array's
/// TopkSum as the kernels find it. Defined in cambi_cuda.cu (only where the CUDA backend is
/// built). Throws Error on CUDA errors.
std::vector<TopkSum> device_topk_sums(const std::vector<std::vector<float>>& arrays, const std::vector<int>& ks);

/// For the tests: CUDA twins made while `on` pool every scale on the host as where a sum is not
/// proven (copying the c values back; the CPU's spatial_pooling), so that path runs on real
/// pictures. Defined in cambi_cuda.cu.
void host_pooling_for_tests(bool on);

/// For the tests: the scales CUDA twins have pooled on the host so far (not proven, or
/// host_pooling_for_tests). Defined in cambi_cuda.cu.
unsigned host_pooled_scales_for_tests();

}  // namespace vmafx::cambi
