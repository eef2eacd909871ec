// Arithmetic of integer VIF shared by the CPU extractor (vif.cpp and its kernels) and the CUDA
// twin (vif_cuda.cu), so that each rounding, shift and term exists once. Written in the
// shared-arithmetic subset (base/shared_math.hpp): the per-sample functions compile as C++, CUDA
// (__host__ __device__) and GLSL. The logarithm's table is read by the callers: the subset's
// functions give the index to read (log2_index_32/_64) and turn the entry read into the
// logarithm (log2_q11_32/_64); sample_args and sample_terms hold the per-sample formula around
// those reads. The C++ adaptors below (add_sample_terms over any table and any sums, the host's
// Log2Table, score_of) read the table and add, with no arithmetic of their own beyond the sums.
//
// Algorithm and fixed-point arithmetic: upstream libvmaf 3.2.0 src/feature/integer_vif.c
// (vif_statistic_8 / vif_statistic_16: vertical and horizontal filtering, the variances and the
// log2-based terms; log2_32 / log2_64; vif_compute_line_residuals; subsample_rd_8 / _16;
// write_scores) and integer_vif.h.
#ifndef VMAFX_FEATURE_VIF_VIF_MATH_HPP
#define VMAFX_FEATURE_VIF_VIF_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(vif)

/// The noise variance 2.0 in the fixed-point units of sigma1_sq (2 * 65536).
VMAFX_CONST int32_t kSigmaNsq = 65536 << 1;

// ---------------------------------------------------------------------------------------------
// Filtering: borders and rounding shifts of the separable filters (kFilters, taps in 1/65536).

/// Mirrors index i into [0, n) without repeating the edge: -k -> k, n-1+k -> n-1-k (as
/// upstream pads its buffers). Valid for -n < i < 2n-1 (kMinSide guarantees it for every
/// filter at every scale).
VMAFX_CONSTEXPR_FN int mirror(int i, int n) { return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i; }

/// Right shift of the vertical pass of the means at `scale`, and of the vertical pass of the
/// decimation from `scale` (upstream shift_VP: the bit depth at scale 0, else 16).
VMAFX_CONSTEXPR_FN int vertical_shift(int scale, int bit_depth) { return scale == 0 ? bit_depth : 16; }

/// Right shift of the vertical pass of the products ref*ref, dis*dis, ref*dis at `scale`
/// (upstream shift_VP_sq: 2 * (bit_depth - 8) at scale 0, else 16; 0 for 8-bit scale 0).
VMAFX_CONSTEXPR_FN int vertical_square_shift(int scale, int bit_depth) {
    return scale == 0 ? 2 * (bit_depth - 8) : 16;
}

/// The rounding constant added before a right shift by `shift` (half its unit; 0 for no shift).
VMAFX_CONSTEXPR_FN uint32_t rounding(int shift) { return shift == 0 ? 0u : uint32_t(1) << (shift - 1); }

/// Right shift of every horizontal pass (means, products, decimation): 16 bits, rounded.
VMAFX_CONST int kHorizontalShift = 16;

/// A vertically filtered mean (of the statistics, or of the decimation's vertical pass): the
/// uint32 sum `acc` of taps times samples, rounded and shifted right by `shift`
/// (vertical_shift), kept as upstream's uint16.
VMAFX_CONSTEXPR_FN uint32_t vertical_mean(uint32_t acc, int shift) {
    return ((acc + rounding(shift)) >> shift) & 0xffffu;
}

/// A vertically filtered product: the sum `acc` of taps times products, rounded, shifted right
/// by `shift` (vertical_square_shift) and truncated to 32 bits. (Upstream sums in uint32 at 8
/// bits and scale 0, where the sum stays below 2^32, else in uint64: the same value.)
VMAFX_CONSTEXPR_FN uint32_t vertical_product(uint64_t acc, int shift) {
    return uint32_t((acc + uint64_t(rounding(shift))) >> shift);
}

/// A sample of the next scale's pictures: the uint32 sum `acc` of the decimation's taps times
/// its vertically filtered means (vertical_mean) at an even column, rounded, shifted right by
/// 16 and kept as uint16.
VMAFX_CONSTEXPR_FN uint32_t decimated_sample(uint32_t acc) {
    return ((acc + rounding(kHorizontalShift)) >> kHorizontalShift) & 0xffffu;
}

/// A horizontally filtered product: the 64-bit sum `acc` of taps times vertically filtered
/// products, rounded, shifted right by 16 and truncated to 32 bits. (The CUDA twin forms the
/// same value from two 32-bit sums of the products' 16-bit halves: vif_cuda.cu filter_products.)
VMAFX_FN uint32_t filtered_product(uint64_t acc) {
    return uint32_t((acc + uint64_t(rounding(kHorizontalShift))) >> kHorizontalShift);
}

/// The product of two horizontally filtered means (Q32 sums of taps times 16-bit means),
/// rounded to its top 32 bits.
VMAFX_FN uint32_t mean_product(uint32_t a, uint32_t b) {
    return uint32_t((uint64_t(a) * uint64_t(b) + uint64_t(0x80000000u)) >> 32);
}

/// Local variances and covariance of one sample, in the fixed-point units of the filtered
/// products.
struct Variances {
    int32_t sigma1_sq;  ///< reference variance (may be negative)
    int32_t sigma2_sq;  ///< distorted variance, clamped at 0
    int32_t sigma12;    ///< covariance
};

/// The variances of one sample from its horizontally filtered means a_mu1, a_mu2 (Q32) and
/// products xx_filt, yy_filt, xy_filt (filtered_product), all modulo 2^32 as upstream.
VMAFX_FN Variances variances(uint32_t a_mu1, uint32_t a_mu2, uint32_t xx_filt, uint32_t yy_filt, uint32_t xy_filt) {
    const int32_t sigma2_sq = int32_t(yy_filt - mean_product(a_mu2, a_mu2));
    Variances v;
    v.sigma1_sq = int32_t(xx_filt - mean_product(a_mu1, a_mu1));
    v.sigma2_sq = sigma2_sq > 0 ? sigma2_sq : 0;
    v.sigma12 = int32_t(xy_filt - mean_product(a_mu1, a_mu2));
    return v;
}

// ---------------------------------------------------------------------------------------------
// The logarithm: 2048 * log2(v) from the top 16 significant bits of v, read in a table of
// round(2048 * log2(i)) for i in [32768, 65536) (log2_table(); on the device its packed copy).
// The caller reads entry log2_index_*(v) and passes it to log2_q11_*.

/// The right shift that keeps the top 16 significant bits of v >= 2^15 (upstream log2_32).
VMAFX_FN int log2_shift_32(uint32_t v) { return 16 - vmafx_clz32(v); }
/// The right shift that keeps the top 16 significant bits of 64-bit v >= 2^15 (upstream log2_64).
VMAFX_FN int log2_shift_64(uint64_t v) { return 48 - vmafx_clz64(v); }

/// The table index of v >= 2^15: its top 16 significant bits, in [32768, 65536).
VMAFX_FN uint32_t log2_index_32(uint32_t v) { return v >> log2_shift_32(v); }
VMAFX_FN uint32_t log2_index_64(uint64_t v) { return uint32_t(v >> log2_shift_64(v)); }

/// 2048 * log2(v) (Q11) for v >= 2^15 from `entry`, the table's entry at log2_index_32(v).
VMAFX_FN int32_t log2_q11_32(uint32_t entry, uint32_t v) { return int32_t(entry) + 2048 * log2_shift_32(v); }
/// 2048 * log2(v) for 64-bit v >= 2^17 from the entry at log2_index_64(v).
VMAFX_FN int32_t log2_q11_64(uint32_t entry, uint64_t v) { return int32_t(entry) + 2048 * log2_shift_64(v); }

// ---------------------------------------------------------------------------------------------
// The per-sample VIF terms (upstream vif_statistic_*, per-sample part), in two steps around the
// table reads: sample_args, then the caller reads the entries of the logarithms it asks for,
// then sample_terms.

/// What one sample's terms need of the logarithm. Where s1 = sigma1_sq reaches the noise
/// variance kSigmaNsq (logs), the sample adds 2048 * log2 of its information terms: den_v's
/// logarithm always, and where num (s12 > 0 and s2 > 0) the difference of numer_v's and
/// numer1_v's. Elsewhere it adds s2 and a count, and reads no entry.
struct SampleArgs {
    bool logs;          ///< s1 >= kSigmaNsq
    bool num;           ///< logs, s12 > 0 and s2 > 0: the numerator's two logarithms are read
    uint32_t den_v;     ///< s1 + kSigmaNsq (read at log2_index_32) where logs
    uint64_t numer_v;   ///< g^2 s1 + sv^2 + kSigmaNsq (read at log2_index_64) where num
    uint64_t numer1_v;  ///< sv^2 + kSigmaNsq (read at log2_index_64) where num
};

/// The arguments of the logarithms of one sample with variances s1 = sigma1_sq, s2 = sigma2_sq
/// (>= 0), s12 = sigma12. `gain_limit` is vif_enhn_gain_limit. Unused members are 0.
VMAFX_FN SampleArgs sample_args(int32_t s1, int32_t s2, int32_t s12, double gain_limit) {
    SampleArgs a;
    a.logs = s1 >= kSigmaNsq;
    a.num = a.logs && s12 > 0 && s2 > 0;
    a.den_v = 0u;
    a.numer_v = uint64_t(0);
    a.numer1_v = uint64_t(0);
    if (a.logs) {
        // log2(1 + sigma1_sq / 2) as log2(2*65536 + sigma1_sq) - 17 (sample_terms).
        a.den_v = uint32_t(s1) + uint32_t(kSigmaNsq);
    }
    if (a.num) {
        // log2(1 + g^2 sigma1_sq / (sv_sq + 2)) as the difference of two logarithms.
        // eps = 65536 * 1.0e-10: 1.0e-10 as 1 / 1e10 (1e10 is a float; the quotient is the
        // double nearest 10^-10, the literal's value), times 2^16 (exact).
        const double eps = VMAFX_D(65536.0) * (VMAFX_D(1.0) / VMAFX_D(1.0e10));
        double g = vmafx_div_d(double(s12), double(s1) + eps);
        // sv <= s2 (g * s12 > 0), so the conversion to int32 cannot overflow.
        const double sv = double(s2) - g * double(s12);
        const int32_t sv_sq = sv > VMAFX_D(0.0) ? int32_t(sv) : 0;
        g = gain_limit < g ? gain_limit : g;  // min(g, gain_limit)
        const uint32_t numer1 = uint32_t(sv_sq) + uint32_t(kSigmaNsq);
        const int64_t numer1_tmp = int64_t(g * g * double(s1)) + int64_t(numer1);
        a.numer_v = uint64_t(numer1_tmp);
        a.numer1_v = uint64_t(numer1);
    }
    return a;
}

/// One sample's additions to the four sums of its scale (num_log, den_log in Q11; num_non_log,
/// den_non_log); 0 where a sum takes nothing from the sample.
struct SampleTerms {
    int32_t num_log;
    int32_t den_log;
    int32_t num_non_log;
    int32_t den_non_log;
};

/// One sample's terms from its arguments `a` (sample_args), its s2 = sigma2_sq, and the table
/// entries read for them: den_entry at log2_index_32(a.den_v) where a.logs, numer_entry and
/// numer1_entry at log2_index_64(a.numer_v / a.numer1_v) where a.num (any value elsewhere).
VMAFX_FN SampleTerms sample_terms(VMAFX_IN(SampleArgs, a), int32_t s2, uint32_t den_entry, uint32_t numer_entry,
                                  uint32_t numer1_entry) {
    SampleTerms t;
    t.num_log = 0;
    t.den_log = 0;
    t.num_non_log = 0;
    t.den_non_log = 0;
    if (a.logs) {
        t.den_log = log2_q11_32(den_entry, a.den_v) - 2048 * 17;
        if (a.num) t.num_log = log2_q11_64(numer_entry, a.numer_v) - log2_q11_64(numer1_entry, a.numer1_v);
    } else {
        t.num_non_log = s2;
        t.den_non_log = 1;
    }
    return t;
}

VMAFX_NAMESPACE_END

#if !VMAFX_GLSL
// ---------------------------------------------------------------------------------------------
// C++ adaptors: the table read through any table type, the sums of any integer types, and the
// host's scores.

#include "feature/vif/vif_kernels.hpp"

namespace vmafx::vif {

/// The host's table as a Table for add_sample_terms.
struct Log2Table {
    const uint16_t* entries;  ///< log2_table().data()
    uint32_t operator()(uint32_t i) const { return entries[i]; }
};

/// Adds the terms of one sample with variances s1 = sigma1_sq, s2 = sigma2_sq (>= 0),
/// s12 = sigma12 to `sums` (members num_log, den_log, num_non_log, den_non_log; any integer
/// types wide enough): sample_args, the table entries it asks for read through
/// `table(index)` (entry `index` of log2_table(), index in [32768, 65536)), sample_terms.
template <typename Table, typename Sums>
VMAFX_HOST_DEVICE inline void add_sample_terms(int32_t s1, int32_t s2, int32_t s12, double gain_limit,
                                               const Table& table, Sums& sums) {
    const SampleArgs a = sample_args(s1, s2, s12, gain_limit);
    uint32_t den_entry = 0, numer_entry = 0, numer1_entry = 0;
    if (a.logs) den_entry = table(log2_index_32(a.den_v));
    if (a.num) {
        numer_entry = table(log2_index_64(a.numer_v));
        numer1_entry = table(log2_index_64(a.numer1_v));
    }
    const SampleTerms t = sample_terms(a, s2, den_entry, numer_entry, numer1_entry);
    sums.num_log += t.num_log;
    sums.den_log += t.den_log;
    sums.num_non_log += t.num_non_log;
    sums.den_non_log += t.den_non_log;
}

// Host side: scores and outputs.

/// Numerator and denominator of one scale from its sums, as upstream stores them (float).
/// Host code (every backend's finish runs it on the host).
inline ScaleScore score_of(const ScaleSums& sums) {
    ScaleScore out;
    out.num = static_cast<float>(static_cast<double>(sums.num_log) / 2048.0 +
                                 (static_cast<double>(sums.den_non_log) -
                                  (static_cast<double>(sums.num_non_log) / 16384.0) / 65025.0));
    out.den = static_cast<float>(static_cast<double>(sums.den_log) / 2048.0 + static_cast<double>(sums.den_non_log));
    return out;
}

}  // namespace vmafx::vif
#endif  // !VMAFX_GLSL

#endif  // VMAFX_FEATURE_VIF_VIF_MATH_HPP
