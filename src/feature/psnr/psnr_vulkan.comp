// Vulkan twin of the integer PSNR metric "psnr" (psnr_vulkan.cpp says how the passes make the
// CPU's sums): pass 0 forms each sample pair's squared error by psnr_math.hpp's squared_error
// (the CPU's own function) and sums a workgroup's 256 of them exactly (in 64 bits): at 8 bits one
// row's, kept modulo 2^32 as the CPU's uint32 row sum, above 8 bits over the workgroup's rows;
// pass 1 (one workgroup) adds those partial sums in 64 bits: at 8 bits each row's partials
// modulo 2^32 first (the CPU's wrapped row sum), then the rows. Integer arithmetic only: the
// order of the additions changes nothing. flag plants the gate's defects: in pass 0 the first
// column read from column 1 (kMirrorShift), in pass 1 the sum also taken in float (kReductionOrder).
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
#include "feature/psnr/psnr_math.hpp"

#include "vulkan/planes.glsl"
#include "vulkan/reduce.glsl"

layout(local_size_x = VMAFX_GROUP) in;

// psnr_vulkan.cpp's Push, member for member.
layout(push_constant) uniform Push {
    uint64_t a;      // pass 0: the reference plane; pass 1: the partial sums
    uint64_t b;      // pass 0: the distorted plane; pass 1: the plane's uint64 sum
    uint64_t c;      // pass 0: the partial sums; pass 1: the planted float sum
    uint32_t ref_pitch, dist_pitch;  // bytes
    int32_t width, height;  // pass 0: the plane's; pass 1: partials per row (8 bits) or 0, rows or entries
    int32_t wide;    // samples of 16 bits (above 8 bits)
    int32_t flag;    // the planted defect of this pass (0: none)
    int32_t pass;
    int32_t groups;  // pass 0: workgroups along a row
} pc;

void squared_errors() {
    const int x = int(gl_GlobalInvocationID.x);
    const int gx = int(gl_WorkGroupID.x);
    uint64_t plane = uint64_t(0);
    for (int y = int(gl_WorkGroupID.y); y < pc.height; y += int(gl_NumWorkGroups.y)) {
        uint32_t e2 = 0u;
        if (x < pc.width) {
            const int column = pc.flag != 0 && x == 0 && pc.width > 1 ? 1 : x;
            e2 = squared_error(sample_at(pc.a, pc.ref_pitch, y, column, pc.wide != 0),
                               sample_at(pc.b, pc.dist_pitch, y, column, pc.wide != 0));
        }
        if (pc.wide == 0) {
            const uint64_t s = block_sum(uint64_t(e2));
            if (gl_LocalInvocationID.x == 0u) U32s(pc.c).v[y * pc.groups + gx] = uint32_t(s);  // modulo 2^32
        } else {
            plane += uint64_t(e2);
        }
    }
    if (pc.wide != 0) {
        const uint64_t s = block_sum(plane);
        if (gl_LocalInvocationID.x == 0u) U64s(pc.c).v[int(gl_WorkGroupID.y) * pc.groups + gx] = s;
    }
}

void total() {
    uint64_t sum;
    float planted;
    rows_total(pc.a, pc.width, pc.height, sum, planted);
    if (gl_LocalInvocationID.x == 0u) {
        U64s(pc.b).v[0] = sum;
        if (pc.flag != 0) F32s(pc.c).v[0] = planted;
    }
}

void main() {
    if (pc.pass == 0)
        squared_errors();
    else
        total();
}
