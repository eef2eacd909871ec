// Arithmetic of integer VIF shared by the CPU extractor (vif.cpp and its kernels) and the CUDA
// twin (vif_cuda.cu), so that each rounding, shift and term exists once. The per-sample
// functions are __host__ __device__ when compiled by nvcc; the host-only part (the scale score
// from its sums) is shared by the two extractors.
//
// Algorithm and fixed-point arithmetic: upstream libvmaf 3.2.0 src/feature/integer_vif.c
// (vif_statistic_8 / vif_statistic_16: vertical and horizontal filtering, the variances and the
// log2-based terms; log2_32 / log2_64; vif_compute_line_residuals; subsample_rd_8 / _16;
// write_scores) and integer_vif.h.
#pragma once

#include "base/host_device.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "feature/vif/vif_kernels.hpp"


namespace vmafx::vif {

// ---------------------------------------------------------------------------------------------
// Filtering: borders and rounding shifts of the separable filters (kFilters, taps in 1/65536).

/// Mirrors index i into [0, n) without repeating the edge: -k -> k, n-1+k -> n-1-k (as
/// upstream pads its buffers). Valid for -n < i < 2n-1 (kMinSide guarantees it for every
/// filter at every scale).
VMAFX_HOST_DEVICE constexpr int mirror(int i, int n) { return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i; }

/// Right shift of the vertical pass of the means at `scale`, and of the vertical pass of the
/// decimation from `scale` (upstream shift_VP: the bit depth at scale 0, else 16).
VMAFX_HOST_DEVICE constexpr int vertical_shift(int scale, int bit_depth) { return scale == 0 ? bit_depth : 16; }

/// Right shift of the vertical pass of the products ref*ref, dis*dis, ref*dis at `scale`
/// (upstream shift_VP_sq: 2 * (bit_depth - 8) at scale 0, else 16; 0 for 8-bit scale 0).
VMAFX_HOST_DEVICE constexpr int vertical_square_shift(int scale, int bit_depth) {
    return scale == 0 ? 2 * (bit_depth - 8) : 16;
}

/// The rounding constant added before a right shift by `shift` (half its unit; 0 for no shift).
VMAFX_HOST_DEVICE constexpr std::uint32_t rounding(int shift) { return shift == 0 ? 0u : 1u << (shift - 1); }

/// Right shift of every horizontal pass (means, products, decimation): 16 bits, rounded.
inline constexpr int kHorizontalShift = 16;

/// A horizontally filtered product: the 64-bit sum `acc` of taps times vertically filtered
/// products, rounded, shifted right by 16 and truncated to 32 bits. (The CUDA twin forms the
/// same value from two 32-bit sums of the products' 16-bit halves: vif_cuda.cu filter_products.)
VMAFX_HOST_DEVICE inline std::uint32_t filtered_product(std::uint64_t acc) {
    return static_cast<std::uint32_t>((acc + rounding(kHorizontalShift)) >> kHorizontalShift);
}

/// The product of two horizontally filtered means (Q32 sums of taps times 16-bit means),
/// rounded to its top 32 bits.
VMAFX_HOST_DEVICE inline std::uint32_t mean_product(std::uint32_t a, std::uint32_t b) {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b + 0x80000000u) >> 32);
}

/// Local variances and covariance of one sample, in the fixed-point units of the filtered
/// products.
struct Variances {
    std::int32_t sigma1_sq;  ///< reference variance (may be negative)
    std::int32_t sigma2_sq;  ///< distorted variance, clamped at 0
    std::int32_t sigma12;    ///< covariance
};

/// The variances of one sample from its horizontally filtered means a_mu1, a_mu2 (Q32) and
/// products xx_filt, yy_filt, xy_filt (filtered_product), all modulo 2^32 as upstream.
VMAFX_HOST_DEVICE inline Variances variances(std::uint32_t a_mu1, std::uint32_t a_mu2, std::uint32_t xx_filt,
                                        std::uint32_t yy_filt, std::uint32_t xy_filt) {
    const std::int32_t sigma2_sq = static_cast<std::int32_t>(yy_filt - mean_product(a_mu2, a_mu2));
    return {static_cast<std::int32_t>(xx_filt - mean_product(a_mu1, a_mu1)), sigma2_sq > 0 ? sigma2_sq : 0,
            static_cast<std::int32_t>(xy_filt - mean_product(a_mu1, a_mu2))};
}

// ---------------------------------------------------------------------------------------------
// The per-sample VIF terms.

/// Number of leading zero bits of v (v != 0).
VMAFX_HOST_DEVICE inline int leading_zeros(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __clz(static_cast<int>(v));
#else
    return std::countl_zero(v);
#endif
}
VMAFX_HOST_DEVICE inline int leading_zeros(std::uint64_t v) {
#if defined(__CUDA_ARCH__)
    return __clzll(static_cast<long long>(v));
#else
    return std::countl_zero(v);
#endif
}

/// 2048 * log2(v) for v >= 2^15 from the top 16 significant bits of v: table(i) is
/// round(2048 * log2(i)) for i in [32768, 65536) (log2_table(); on the device its packed copy)
/// (upstream log2_32).
template <typename Table>
VMAFX_HOST_DEVICE inline std::int32_t log2_q11(const Table& table, std::uint32_t v) {
    const int shift = 16 - leading_zeros(v);
    return static_cast<std::int32_t>(table(v >> shift)) + 2048 * shift;
}

/// 2048 * log2(v) for 64-bit v >= 2^17, as log2_q11 (upstream log2_64).
template <typename Table>
VMAFX_HOST_DEVICE inline std::int32_t log2_q11(const Table& table, std::uint64_t v) {
    const int shift = 48 - leading_zeros(v);
    return static_cast<std::int32_t>(table(static_cast<std::uint32_t>(v >> shift))) + 2048 * shift;
}

/// The host's table as a Table for log2_q11.
struct Log2Table {
    const std::uint16_t* entries;  ///< log2_table().data()
    std::uint32_t operator()(std::uint32_t i) const { return entries[i]; }
};

/// Adds the terms of one sample with variances s1 = sigma1_sq, s2 = sigma2_sq (>= 0),
/// s12 = sigma12 to `sums` (members num_log, den_log, num_non_log, den_non_log; any integer
/// types wide enough): where s1 reaches the noise variance kSigmaNsq, 2048 * log2 of the
/// information terms; elsewhere s2 and a count (upstream vif_statistic_*, per-sample part).
/// `gain_limit` is vif_enhn_gain_limit.
template <typename Table, typename Sums>
VMAFX_HOST_DEVICE inline void add_sample_terms(std::int32_t s1, std::int32_t s2, std::int32_t s12, double gain_limit,
                                          const Table& table, Sums& sums) {
    if (s1 >= kSigmaNsq) {
        // log2(1 + sigma1_sq / 2) as log2(2*65536 + sigma1_sq) - 17, in 1/2048 units.
        sums.den_log += log2_q11(table, static_cast<std::uint32_t>(s1) + static_cast<std::uint32_t>(kSigmaNsq)) -
                        2048 * 17;
        if (s12 > 0 && s2 > 0) {
            // log2(1 + g^2 sigma1_sq / (sv_sq + 2)) as the difference of two logarithms.
            const double eps = 65536 * 1.0e-10;
            double g = s12 / (s1 + eps);
            // sv <= s2 (g * s12 > 0), so the conversion to int32 cannot overflow.
            const double sv = s2 - g * s12;
            const std::int32_t sv_sq = sv > 0.0 ? static_cast<std::int32_t>(sv) : 0;
            g = gain_limit < g ? gain_limit : g;  // std::min(g, gain_limit)
            const std::uint32_t numer1 = static_cast<std::uint32_t>(sv_sq) + static_cast<std::uint32_t>(kSigmaNsq);
            const std::int64_t numer1_tmp = static_cast<std::int64_t>(g * g * s1) + numer1;
            sums.num_log += log2_q11(table, static_cast<std::uint64_t>(numer1_tmp)) -
                            log2_q11(table, static_cast<std::uint64_t>(numer1));
        }
    } else {
        sums.num_non_log += s2;
        sums.den_non_log += 1;
    }
}

// ---------------------------------------------------------------------------------------------
// Host side: scores and outputs.

/// Numerator and denominator of one scale from its sums, as upstream stores them (float).
inline ScaleScore score_of(const ScaleSums& sums) {
    ScaleScore out;
    out.num = static_cast<float>(static_cast<double>(sums.num_log) / 2048.0 +
                                 (static_cast<double>(sums.den_non_log) -
                                  (static_cast<double>(sums.num_non_log) / 16384.0) / 65025.0));
    out.den = static_cast<float>(static_cast<double>(sums.den_log) / 2048.0 + static_cast<double>(sums.den_non_log));
    return out;
}

}  // namespace vmafx::vif
