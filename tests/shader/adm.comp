// Runs adm_case (tests/shader/adm_case.hpp: the shared-arithmetic header's functions) on each
// case of binding 0 into binding 1; tests/shader/shader_test.cpp compares the results with the
// same function compiled as C++, bit for bit.
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
#include "adm_case.hpp"

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Cases { AdmCase cases[]; };
layout(std430, binding = 1) writeonly buffer Results { AdmResult results[]; };
layout(push_constant) uniform Count { uint count; } pc;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    results[i] = adm_case(cases[i]);
}
