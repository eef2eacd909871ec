// Vulkan twin of float_psnr (float_psnr_vulkan.cpp says how the passes make the CPU's sum): pass 0
// forms each luma sample pair's float square d2 by float_psnr_math.hpp's squared_difference (the
// CPU's own function) and adds d2 * scaler^2 (an exact integer) in 64 bits per invocation, a
// workgroup's sum to its partial; where the CPU's double sum may round it also writes d2 as a
// double term, row-major (the CPU's order), for SequentialSum. Pass 1 (one workgroup) adds the
// partials in 64 bits (rows_total). Integer sums only: their order changes nothing. flag plants
// the gate's defects: in pass 0 the first column read from column 1 (kMirrorShift), in pass 1 the
// partials also summed in float (kReductionOrder).
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
#include "feature/float_psnr/float_psnr_math.hpp"

#include "vulkan/planes.glsl"
#include "vulkan/reduce.glsl"

layout(local_size_x = VMAFX_GROUP) in;

layout(buffer_reference, std430, buffer_reference_align = 8) writeonly buffer F64s { double v[]; };

// float_psnr_vulkan.cpp's Push, member for member.
layout(push_constant) uniform Push {
    uint64_t a;      // pass 0: the reference plane; pass 1: the partial sums
    uint64_t b;      // pass 0: the distorted plane; pass 1: the frame's uint64 sum of units
    uint64_t c;      // pass 0: the partial sums; pass 1: the planted float sum
    uint64_t terms;  // pass 0: the double terms (w * h), or 0
    float scaler;    // picture_copy's divisor
    uint32_t ref_pitch, dist_pitch;  // bytes
    int32_t width, height;  // pass 0: the plane's; pass 1: height = the partials
    int32_t wide;    // samples of 16 bits (above 8 bits)
    int32_t flag;    // the planted defect of this pass (0: none)
    int32_t pass;
    int32_t groups;  // pass 0: workgroups along a row
    int32_t pad;
} pc;

void noise() {
    const int x = int(gl_GlobalInvocationID.x);
    const double units_per_term = double(pc.scaler) * double(pc.scaler);
    uint64_t units = uint64_t(0);
    for (int y = int(gl_WorkGroupID.y); y < pc.height; y += int(gl_NumWorkGroups.y)) {
        if (x >= pc.width) continue;
        const int column = pc.flag != 0 && x == 0 && pc.width > 1 ? 1 : x;
        const float d2 = squared_difference(sample_at(pc.a, pc.ref_pitch, y, column, pc.wide != 0),
                                            sample_at(pc.b, pc.dist_pitch, y, column, pc.wide != 0), pc.scaler);
        units += uint64_t(double(d2) * units_per_term);  // an exact integer
        if (pc.terms != uint64_t(0)) F64s(pc.terms).v[y * pc.width + x] = double(d2);
    }
    const uint64_t s = block_sum(units);
    if (gl_LocalInvocationID.x == 0u) U64s(pc.c).v[int(gl_WorkGroupID.y) * pc.groups + int(gl_WorkGroupID.x)] = s;
}

void total() {
    uint64_t sum;
    float planted;
    rows_total(pc.a, 0, pc.height, sum, planted);
    if (gl_LocalInvocationID.x == 0u) {
        U64s(pc.b).v[0] = sum;
        if (pc.flag != 0) F32s(pc.c).v[0] = planted;
    }
}

void main() {
    if (pc.pass == 0)
        noise();
    else
        total();
}
