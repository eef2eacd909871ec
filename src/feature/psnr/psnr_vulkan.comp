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

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 1) readonly buffer Bytes { uint8_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) readonly buffer Words { uint16_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32s { uint32_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer U64s { uint64_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer F32s { float v[]; };

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

shared uint64_t tree[256];
shared float ftree[256];

/// The workgroup's sum of v (exact), for every invocation.
uint64_t block_sum(uint64_t v) {
    const uint lid = gl_LocalInvocationID.x;
    tree[lid] = v;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) tree[lid] += tree[lid + s];
        barrier();
    }
    const uint64_t total = tree[0];
    barrier();  // tree free for the next call
    return total;
}

int32_t sample_at(uint64_t plane, uint32_t pitch, int y, int x) {
    const uint64_t row = plane + uint64_t(y) * uint64_t(pitch);
    return pc.wide != 0 ? int32_t(Words(row).v[x]) : int32_t(Bytes(row).v[x]);
}

void squared_errors() {
    const int x = int(gl_GlobalInvocationID.x);
    const int gx = int(gl_WorkGroupID.x);
    uint64_t plane = uint64_t(0);
    for (int y = int(gl_WorkGroupID.y); y < pc.height; y += int(gl_NumWorkGroups.y)) {
        uint32_t e2 = 0u;
        if (x < pc.width) {
            const int column = pc.flag != 0 && x == 0 && pc.width > 1 ? 1 : x;
            e2 = squared_error(sample_at(pc.a, pc.ref_pitch, y, column), sample_at(pc.b, pc.dist_pitch, y, column));
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
    const int lid = int(gl_LocalInvocationID.x);
    uint64_t sum = uint64_t(0);
    float planted = 0.0f;
    if (pc.width > 0) {  // 8 bits: rows of pc.width uint32 partials, each row modulo 2^32
        for (int row = lid; row < pc.height; row += 256) {
            uint32_t r = 0u;
            for (int g = 0; g < pc.width; ++g) r += U32s(pc.a).v[row * pc.width + g];
            sum += uint64_t(r);
            planted += float(r);
        }
    } else {
        for (int i = lid; i < pc.height; i += 256) {
            const uint64_t v = U64s(pc.a).v[i];
            sum += v;
            planted += float(v);
        }
    }
    const uint64_t s = block_sum(sum);
    if (lid == 0) U64s(pc.b).v[0] = s;
    if (pc.flag != 0) {
        ftree[lid] = planted;
        barrier();
        for (int k = 128; k > 0; k >>= 1) {
            if (lid < k) ftree[lid] += ftree[lid + k];
            barrier();
        }
        if (lid == 0) F32s(pc.c).v[0] = ftree[0];
    }
}

void main() {
    if (pc.pass == 0)
        squared_errors();
    else
        total();
}
