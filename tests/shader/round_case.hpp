// One test case of base/correctly_rounded.hpp (the division and square root the Vulkan twins use
// in place of the device's own), in the shared-arithmetic subset so that the shader (round.comp)
// and the C++ side of tests/shader/shader_test.cpp make the same calls. The device's own
// operations are returned beside them (how often they differ from the CPU is reported, not
// required). The structs' layouts are the same in C++ and in GLSL's std430.
#ifndef VMAFX_TESTS_SHADER_ROUND_CASE_HPP
#define VMAFX_TESTS_SHADER_ROUND_CASE_HPP

#include "base/shared_math.hpp"

/// Operands: a / b and sqrt(a) in float, c / d and sqrt(c) in double; the candidates moved by
/// `nudge` units (0: as the twins run).
struct RoundCase {
    float a;
    float b;
    int32_t nudge;
    int32_t pad;
    double c;
    double d;
};

struct RoundResult {
    float div_f;
    float sqrt_f;
    float native_div_f;
    float native_sqrt_f;
    double div_d;
    double sqrt_d;
    double native_div_d;
    double native_sqrt_d;
};

VMAFX_FN RoundResult round_case(RoundCase k) {
    RoundResult r;
    r.div_f = vmafx_div_rn_nudged_f(k.a, k.b, k.nudge);
    r.sqrt_f = vmafx_sqrt_rn_nudged_f(k.a, k.nudge);
    r.native_div_f = k.a / k.b;
    r.native_sqrt_f = vmafx_native_sqrt_f(k.a);
    r.div_d = vmafx_div_rn_nudged_d(k.c, k.d, k.nudge);
    r.sqrt_d = vmafx_sqrt_rn_nudged_d(k.c, k.nudge);
    r.native_div_d = k.c / k.d;
    r.native_sqrt_d = vmafx_native_sqrt_d(k.c);
    return r;
}

#endif  // VMAFX_TESTS_SHADER_ROUND_CASE_HPP
