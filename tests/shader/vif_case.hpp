// One test case of vif_math.hpp (integer VIF's per-sample arithmetic), written in the
// shared-arithmetic subset so that the shader (vif.comp) and the C++ side of
// tests/shader/shader_test.cpp make the same calls. The logarithm's table is read between the
// two steps, as every caller of vif_math.hpp reads it: vif_case_reads gives the indices, the
// caller reads the entries (the shader from its buffer, C++ from vif::log2_table()), vif_case
// computes the rest. The structs' layouts are the same in C++ and in GLSL's std430.
#ifndef VMAFX_TESTS_SHADER_VIF_CASE_HPP
#define VMAFX_TESTS_SHADER_VIF_CASE_HPP

#include "feature/vif/vif_math.hpp"

VMAFX_NAMESPACE_BEGIN(vif)

/// Inputs: one sample's horizontally filtered means (Q32) and products, as variances() takes
/// them, and vif_enhn_gain_limit.
struct VifCase {
    double gain_limit;
    uint32_t a_mu1;
    uint32_t a_mu2;
    uint32_t xx;
    uint32_t yy;
    uint32_t xy;
    uint32_t pad;
};

/// Outputs: the variances, sample_args' members (the flags as 0 / 1), the indices read, and
/// sample_terms' four terms.
struct VifResult {
    uint64_t numer_v;
    uint64_t numer1_v;
    int32_t sigma1_sq;
    int32_t sigma2_sq;
    int32_t sigma12;
    uint32_t den_v;
    int32_t logs;
    int32_t num;
    uint32_t den_index;
    uint32_t numer_index;
    uint32_t numer1_index;
    int32_t num_log;
    int32_t den_log;
    int32_t num_non_log;
    int32_t den_non_log;
    int32_t pad;
};

/// The arguments of case c's logarithms (sample_args on its variances).
VMAFX_FN SampleArgs vif_case_args(VMAFX_IN(VifCase, c)) {
    const Variances v = variances(c.a_mu1, c.a_mu2, c.xx, c.yy, c.xy);
    return sample_args(v.sigma1_sq, v.sigma2_sq, v.sigma12, c.gain_limit);
}

/// The table indices case c reads: den_index where its sample has log terms, numer_index and
/// numer1_index where it has the numerator's; 0 for an entry it does not read.
VMAFX_FN void vif_case_reads(VMAFX_IN(VifCase, c), VMAFX_OUT(uint32_t, den_index), VMAFX_OUT(uint32_t, numer_index),
                             VMAFX_OUT(uint32_t, numer1_index)) {
    const SampleArgs a = vif_case_args(c);
    den_index = a.logs ? log2_index_32(a.den_v) : 0u;
    numer_index = a.num ? log2_index_64(a.numer_v) : 0u;
    numer1_index = a.num ? log2_index_64(a.numer1_v) : 0u;
}

/// Every function of vif_math.hpp on case c, given the entries read at vif_case_reads' indices
/// (0 where none is read).
VMAFX_FN VifResult vif_case(VMAFX_IN(VifCase, c), uint32_t den_entry, uint32_t numer_entry, uint32_t numer1_entry) {
    const Variances v = variances(c.a_mu1, c.a_mu2, c.xx, c.yy, c.xy);
    const SampleArgs a = vif_case_args(c);
    const SampleTerms t = sample_terms(a, v.sigma2_sq, den_entry, numer_entry, numer1_entry);
    VifResult r;
    r.numer_v = a.numer_v;
    r.numer1_v = a.numer1_v;
    r.sigma1_sq = v.sigma1_sq;
    r.sigma2_sq = v.sigma2_sq;
    r.sigma12 = v.sigma12;
    r.den_v = a.den_v;
    r.logs = a.logs ? 1 : 0;
    r.num = a.num ? 1 : 0;
    vif_case_reads(c, r.den_index, r.numer_index, r.numer1_index);
    r.num_log = t.num_log;
    r.den_log = t.den_log;
    r.num_non_log = t.num_non_log;
    r.den_non_log = t.den_non_log;
    r.pad = 0;
    return r;
}

VMAFX_NAMESPACE_END

#endif  // VMAFX_TESTS_SHADER_VIF_CASE_HPP
