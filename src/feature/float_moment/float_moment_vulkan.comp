// Vulkan twin of float_moment (float_moment_vulkan.cpp says how the passes make the CPU's sums):
// pass 0, per picture, forms each luma sample's value v and float square v2 by
// float_moment_math.hpp's sample_value and square_term (the CPU's own functions) and adds, per
// invocation in 64 bits, the sample x and v2 * scaler^2 (an exact integer), a workgroup's sums to
// its two partials; where the CPU's double sum may round it also writes v2 as a double term,
// row-major (the CPU's order), for SequentialSum. Pass 1 (one workgroup) adds each picture's
// partials in 64 bits (rows_total). Integer sums only: their order changes nothing. flag plants
// the gate's defects: in pass 0 the first column read from column 1 (1, kMirrorShift) or the
// square kept in double (2, kRoundingConstant), in pass 1 the second sums also taken in float
// (kReductionOrder).
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
#include "feature/float_moment/float_moment_math.hpp"

#include "vulkan/planes.glsl"
#include "vulkan/reduce.glsl"

layout(local_size_x = VMAFX_GROUP) in;

layout(buffer_reference, std430, buffer_reference_align = 8) writeonly buffer F64s { double v[]; };

// float_moment_vulkan.cpp's Push, member for member.
layout(push_constant) uniform Push {
    uint64_t a;      // pass 0: the picture's luma plane; pass 1: the partials ([picture][first, second][count])
    uint64_t b;      // pass 0: the picture's partials (first, then second); pass 1: the sums (first[2], second[2])
    uint64_t c;      // pass 0: the picture's double terms (w * h), or 0; pass 1: the planted float sums
    float scaler;    // picture_copy's divisor
    uint32_t pitch;  // bytes
    int32_t width, height;  // pass 0: the plane's; pass 1: height = the partials of one sum
    int32_t wide;    // samples of 16 bits (above 8 bits)
    int32_t flag;    // the planted defect of this pass (0: none)
    int32_t pass;
    int32_t groups;  // pass 0: workgroups along a row
} pc;

void moments() {
    const int x = int(gl_GlobalInvocationID.x);
    const double units_per_term = double(pc.scaler) * double(pc.scaler);
    uint64_t first = uint64_t(0), second = uint64_t(0);
    for (int y = int(gl_WorkGroupID.y); y < pc.height; y += int(gl_NumWorkGroups.y)) {
        if (x >= pc.width) continue;
        const int column = pc.flag == 1 && x == 0 && pc.width > 1 ? 1 : x;
        const int32_t s = sample_at(pc.a, pc.pitch, y, column, pc.wide != 0);
        const float v = sample_value(s, pc.scaler);
        const double term = pc.flag == 2 ? double(v) * double(v) : double(square_term(v));
        first += uint64_t(s);
        second += uint64_t(term * units_per_term);  // an exact integer below 2^32
        if (pc.c != uint64_t(0)) F64s(pc.c).v[y * pc.width + x] = term;
    }
    const int count = pc.groups * int(gl_NumWorkGroups.y);
    const int at = int(gl_WorkGroupID.y) * pc.groups + int(gl_WorkGroupID.x);
    const uint64_t f = block_sum(first);
    const uint64_t q = block_sum(second);
    if (gl_LocalInvocationID.x == 0u) {
        U64s(pc.b).v[at] = f;
        U64s(pc.b).v[count + at] = q;
    }
}

void totals() {
    for (int pic = 0; pic < 2; ++pic) {
        uint64_t first, second;
        float unused, planted;
        rows_total(pc.a + uint64_t(8 * (2 * pic) * pc.height), 0, pc.height, first, unused);
        rows_total(pc.a + uint64_t(8 * (2 * pic + 1) * pc.height), 0, pc.height, second, planted);
        if (gl_LocalInvocationID.x == 0u) {
            U64s(pc.b).v[pic] = first;
            U64s(pc.b).v[2 + pic] = second;
            if (pc.flag != 0) F32s(pc.c).v[pic] = planted;
        }
    }
}

void main() {
    if (pc.pass == 0)
        moments();
    else
        totals();
}
