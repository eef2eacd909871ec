// Runs vif_case (tests/shader/vif_case.hpp: the shared-arithmetic header's functions) on each
// case of binding 0 into binding 1, reading the logarithm's table entries from the head of
// binding 0 (entries 32768..65535 of vif::log2_table()) between vif_case_reads and vif_case;
// tests/shader/shader_test.cpp compares the results with the same calls compiled as C++, bit
// for bit.
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
#include "vif_case.hpp"

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Cases {
    uint32_t log2_entries[32768];  // log2_table()[32768 + i]
    VifCase cases[];
};
layout(std430, binding = 1) writeonly buffer Results { VifResult results[]; };
layout(push_constant) uniform Count { uint count; } pc;

uint32_t entry_at(uint32_t index) { return index == 0u ? 0u : log2_entries[index - 32768u]; }

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    uint32_t den_index;
    uint32_t numer_index;
    uint32_t numer1_index;
    vif_case_reads(cases[i], den_index, numer_index, numer1_index);
    results[i] = vif_case(cases[i], entry_at(den_index), entry_at(numer_index), entry_at(numer1_index));
}
