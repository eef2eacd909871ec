// One test case of subnormal arithmetic (the float controls that tools/spirv_strict.py asks for
// and src/vulkan/float_probe.cpp checks at start-up), in the shared-arithmetic subset so that the
// shader (denorm.comp) and tests/shader/shader_test.cpp compute the same expressions: products,
// sums, differences, negations and conversions whose operands or results are subnormal, in
// float and double. The structs' layouts are the same in C++ and in GLSL's std430.
#ifndef VMAFX_TESTS_SHADER_DENORM_CASE_HPP
#define VMAFX_TESTS_SHADER_DENORM_CASE_HPP

#include "base/shared_math.hpp"

/// Operands: x normal, h a factor, s and s2 subnormal (or any), u large; the same in double.
struct DenormCase {
    float x, h, s, s2, u, pad;
    double dx, dh, ds, ds2, du, dpad;
};

VMAFX_CONST int kDenormOps = 12;

struct DenormResult {
    float f[kDenormOps];
    double d[kDenormOps];
};

VMAFX_FN DenormResult denorm_case(DenormCase k) {
    DenormResult r;
    const float p = k.x * k.h;
    const float q = p * k.h;
    r.f[0] = p;               // normal x normal: a subnormal product
    r.f[1] = k.s * k.h;       // subnormal x normal
    r.f[2] = k.s + k.s2;      // subnormal + subnormal
    r.f[3] = k.x - k.s;       // normal - subnormal
    r.f[4] = k.s * k.u;       // subnormal operand, normal result
    r.f[5] = p - q;           // the difference of two computed subnormals
    r.f[6] = q;               // a computed subnormal times a factor
    r.f[7] = k.s - k.s2;      // subnormal - subnormal
    r.f[8] = -k.s;            // negation
    r.f[9] = float(k.ds);     // a double narrowed to a (subnormal) float
    r.f[10] = (k.s + k.s) - k.s2;
    r.f[11] = p * 1.0f - k.s;
    const double dp = k.dx * k.dh;
    const double dq = dp * k.dh;
    r.d[0] = dp;
    r.d[1] = k.ds * k.dh;
    r.d[2] = k.ds + k.ds2;
    r.d[3] = k.dx - k.ds;
    r.d[4] = k.ds * k.du;
    r.d[5] = dp - dq;
    r.d[6] = dq;
    r.d[7] = k.ds - k.ds2;
    r.d[8] = -k.ds;
    r.d[9] = double(k.s);     // a (subnormal) float widened
    r.d[10] = (k.ds + k.ds) - k.ds2;
    r.d[11] = double(p) - double(k.s2);
    return r;
}

#endif  // VMAFX_TESTS_SHADER_DENORM_CASE_HPP
