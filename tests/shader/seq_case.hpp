// One test case of gpu/sequential_sum_core.hpp (SequentialSum's per-element arithmetic),
// written in the shared-arithmetic subset so that the shader (seq.comp) and the C++ side of
// tests/shader/shader_test.cpp make the same calls: both accumulator variants (_f, _d) of the
// term transfer, the binade and parity, the chunk's walk step and its application, and the
// composition and base. The structs' layouts are the same in C++ and in GLSL's std430.
#ifndef VMAFX_TESTS_SHADER_SEQ_CASE_HPP
#define VMAFX_TESTS_SHADER_SEQ_CASE_HPP

#include "gpu/sequential_sum_core.hpp"

VMAFX_NAMESPACE_BEGIN(gpu::seqsum)

/// Inputs, per accumulator: a running sum s, two terms t1, t2 (the chunk's), the chunk's term
/// bounds pos / neg and count; the prefix that predicts the chunk's base.
struct SeqCase {
    double s_d;
    double t1_d;
    double t2_d;
    double pos_d;
    double neg_d;
    double prefix_d;
    double pos_f;
    double neg_f;
    double prefix_f;
    float s_f;
    float t1_f;
    float t2_f;
    int32_t count;
};

/// Outputs, per accumulator: the chunk's walk step (its candidates' transfers: t1 then t2 in
/// each candidate binade of the base), the sum after seq_apply and whether it applied, and the
/// binade and parity of |s|.
struct SeqResult {
    SeqStep step_f;
    SeqStep step_d;
    SeqTransfer first_d;
    double s_d;
    float s_f;
    int32_t applied_f;
    int32_t applied_d;
    int32_t binade_f;
    int32_t binade_d;
    int32_t parity_f;
    int32_t parity_d;
    int32_t e0_d;
};

/// Every function of the header on case c.
VMAFX_FN SeqResult seq_case(VMAFX_IN(SeqCase, c)) {
    SeqResult r;
    SeqChunk chunk_f;
    chunk_f.pos = c.pos_f;
    chunk_f.neg = c.neg_f;
    chunk_f.base = seq_base(c.prefix_f);
    chunk_f.count = c.count;
    SeqChunk chunk_d;
    chunk_d.pos = c.pos_d;
    chunk_d.neg = c.neg_d;
    chunk_d.base = seq_base(c.prefix_d);
    chunk_d.count = c.count;
    for (int k = 0; k < kCandidates; ++k) {
        const int ef = seq_candidate(chunk_f.base, k);
        const int ed = seq_candidate(chunk_d.base, k);
        if (ef == kNoBase || !seq_usable_binade_f(ef)) {
            chunk_f.tr[k] = seq_identity();
            chunk_f.tr[k].bad = 1;
        } else {
            chunk_f.tr[k] = seq_compose(seq_term_f(c.t1_f, ef, chunk_f.base.sigma),
                                        seq_term_f(c.t2_f, ef, chunk_f.base.sigma));
        }
        if (ed == kNoBase || !seq_usable_binade_d(ed)) {
            chunk_d.tr[k] = seq_identity();
            chunk_d.tr[k].bad = 1;
        } else {
            chunk_d.tr[k] = seq_compose(seq_term_d(c.t1_d, ed, chunk_d.base.sigma),
                                        seq_term_d(c.t2_d, ed, chunk_d.base.sigma));
        }
    }
    r.first_d = chunk_d.tr[1];
    r.step_f = seq_step_f(chunk_f);
    r.step_d = seq_step_d(chunk_d);
    float sf = c.s_f;
    double sd = c.s_d;
    r.applied_f = seq_apply_f(sf, r.step_f) ? 1 : 0;
    r.applied_d = seq_apply_d(sd, r.step_d) ? 1 : 0;
    r.s_f = sf;
    r.s_d = sd;
    r.binade_f = seq_binade_f(c.s_f < 0.0f ? -c.s_f : c.s_f);
    r.binade_d = seq_binade_d(c.s_d < VMAFX_D(0.0) ? -c.s_d : c.s_d);
    r.parity_f = seq_parity_f(c.s_f);
    r.parity_d = seq_parity_d(c.s_d);
    r.e0_d = chunk_d.base.e0;
    return r;
}

VMAFX_NAMESPACE_END

#endif  // VMAFX_TESTS_SHADER_SEQ_CASE_HPP
