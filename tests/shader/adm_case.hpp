// One test case of adm_math.hpp, written in the shared-arithmetic subset so that the shader
// (adm.comp) and the C++ side of tests/shader/shader_test.cpp run the same calls: the decouple,
// restore, CSF and contrast-masking steps of levels 1..3 and level 0 on one case's coefficients.
// The structs' layouts are the same in C++ and in GLSL's std430 (64-bit members first).
#ifndef VMAFX_TESTS_SHADER_ADM_CASE_HPP
#define VMAFX_TESTS_SHADER_ADM_CASE_HPP

#include "feature/adm/adm_math.hpp"

VMAFX_NAMESPACE_BEGIN(adm)

/// Inputs: reference and distorted coefficients (h, v; o and t are the pair decoupled), a gain
/// limit, a Q32 CSF weight, a masking threshold, a cube's rounding and shift.
struct AdmCase {
    double egl;
    int64_t thr;
    int64_t rcub;
    int32_t oh, ov, th, tv;  // levels 1..3 (any int32); level 0 takes their low 16 bits, signed
    uint32_t wq;
    uint32_t scub;
    int32_t wt;  // level 0 weight (16 bits)
    int32_t pad;
};

/// Outputs: one value of each step.
struct AdmResult {
    int64_t k;
    int64_t centre;
    int64_t cube;
    int64_t cube0;
    int32_t same, same_avx512;
    int32_t restored_nearest, restored_trunc;
    int32_t additive_part;
    int32_t weighted_signed, weighted_unsigned;
    int32_t masking_filter;
    int32_t excess_vector, excess_scalar;
    int32_t k0, restored0_value;
    int32_t csf0, masking_filter0, centre0;
    int32_t pad;
};

VMAFX_FN int32_t low16(int32_t x) { return int32_t(int16_t(x)); }

/// Every step of adm_math.hpp's levels 1..3 (and level 0's on the coefficients' low 16 bits) on
/// case c.
VMAFX_FN AdmResult adm_case(VMAFX_IN(AdmCase, c)) {
    AdmResult r;
    r.same = same_direction(int64_t(c.oh), int64_t(c.ov), int64_t(c.th), int64_t(c.tv)) ? 1 : 0;
    r.same_avx512 = same_direction_avx512(low16(c.oh), low16(c.ov), low16(c.th), low16(c.tv)) ? 1 : 0;
    r.k = decouple_k(c.oh, c.th);
    const int32_t plain = restored(r.k, c.oh);
    r.restored_nearest = restore32(plain, c.th, int32_t(r.k), c.oh, r.same != 0, c.egl, true);
    r.restored_trunc = restore32(plain, c.th, int32_t(r.k), c.oh, r.same != 0, c.egl, false);
    r.additive_part = additive(c.th, r.restored_nearest);
    r.weighted_signed = csf_weight(r.additive_part, int64_t(int32_t(c.wq)));
    r.weighted_unsigned = csf_weight(r.additive_part, int64_t(c.wq));
    r.masking_filter = csf_filter(r.weighted_signed);
    r.centre = cm_centre_term(r.weighted_unsigned);
    r.excess_vector = cm_excess_vector(c.ov, int64_t(int32_t(c.wq)), c.thr);
    r.excess_scalar = cm_excess_scalar(c.ov, int64_t(c.wq), c.thr);
    r.cube = cm_cube(r.excess_vector, c.rcub, c.scub);
    const int32_t o0 = low16(c.oh), t0 = low16(c.th);
    r.k0 = decouple0_k(o0, t0);
    r.restored0_value = restored0(r.k0, o0);
    r.csf0 = csf0_weight(t0, c.wt, int(uint32_t(c.wq) % 3u));
    r.masking_filter0 = int32_t(csf0_filter(r.csf0));
    r.centre0 = cm0_centre_term(low16(r.csf0));
    r.cube0 = cm0_cube(low16(c.tv), c.wt, uint32_t(c.thr), int(uint32_t(c.wq) % 3u), c.rcub, c.scub);
    r.pad = 0;
    return r;
}

VMAFX_NAMESPACE_END

#endif  // VMAFX_TESTS_SHADER_ADM_CASE_HPP
