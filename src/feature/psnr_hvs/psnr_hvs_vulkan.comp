// Vulkan twin of psnr_hvs (psnr_hvs_vulkan.cpp says how the passes make the CPU's sums).
//  pass 0 (terms): an invocation per 8x8 block of one plane pair (the CPU's grid: blocks at
//    x, y = 0, 7, 14, ... while x + 7 < width, y + 7 < height; block b at bx = b % blocks_x,
//    by = b / blocks_x), its 64 terms by the CPU's own block_terms (psnr_hvs_math.hpp compiled
//    as GLSL: the int32 DCT wrapping through uint32, the float variance ratios and masking
//    levels, the double square root, the squares) into shared memory, from where the workgroup
//    stores its blocks' terms, contiguous, to terms[64 b + k]: the plane's row of terms in the
//    CPU's summation order (blocks in raster order, coefficients row-major). The plane's tables
//    (the CPU's plane_tables) are staged in shared memory per workgroup. flag plants kMirrorShift
//    (each block's last row read one row up).
//  pass 1 (the planted kReductionOrder only): a workgroup per row of n terms, strided float sums
//    and a workgroup tree, another order than the CPU's running sum.
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
#include "feature/psnr_hvs/psnr_hvs_math.hpp"

#include "vulkan/planes.glsl"
#include "vulkan/tree_sum.glsl"

#define GROUP 64        // psnr_hvs_vulkan.cpp's kGroup: blocks a workgroup of pass 0
#define STAGE_PITCH 65  // words a block in the shared staging (64 terms and a pad word)

layout(local_size_x = GROUP) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer F32s { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Tables { PlaneTables t; };

// psnr_hvs_vulkan.cpp's Push, member for member.
layout(push_constant) uniform Push {
    uint64_t ref;     // pass 0: the reference plane
    uint64_t dist;    // pass 0: the distorted plane
    uint64_t tables;  // pass 0: the plane's PlaneTables
    uint64_t terms;   // pass 0: the plane's terms (written); pass 1: the rows (read)
    uint64_t sums;    // pass 1: a float per row
    uint32_t ref_pitch, dist_pitch;  // bytes
    int32_t blocks_x, blocks_y;
    int32_t wide;     // samples of 16 bits (above 8 bits)
    int32_t flag;     // pass 0: the planted kMirrorShift
    int32_t pass;
    uint32_t n;       // pass 1: terms a row (rows n apart)
} pc;

shared PlaneTables table;
shared float stage[GROUP * STAGE_PITCH];
shared float tree[GROUP];

VMAFX_TREE_SUM(float, group_sum, tree, GROUP)

void block_pass() {
    const uint lid = gl_LocalInvocationID.x;
    for (uint k = lid; k < 64u; k += GROUP) {
        table.csf[k] = Tables(pc.tables).t.csf[k];
        table.mask[k] = Tables(pc.tables).t.mask[k];
    }
    barrier();
    const uint blocks = uint(pc.blocks_x) * uint(pc.blocks_y);
    const uint first = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(GROUP);
    const uint block = first + lid;
    if (block < blocks) {
        const int x = 7 * int(block % uint(pc.blocks_x));
        const int y = 7 * int(block / uint(pc.blocks_x));
        int32_t s[64];
        int32_t d[64];
        for (int i = 0; i < 8; ++i) {
            // Planted kMirrorShift (parity-gate tests only): the block's last row read one row up.
            const int row = pc.flag != 0 && i == 7 ? y + 6 : y + i;
            for (int j = 0; j < 8; ++j) {
                s[i * 8 + j] = sample_at(pc.ref, pc.ref_pitch, row, x + j, pc.wide != 0);
                d[i * 8 + j] = sample_at(pc.dist, pc.dist_pitch, row, x + j, pc.wide != 0);
            }
        }
        float terms[64];
        block_terms(s, d, table, terms);
        for (int k = 0; k < 64; ++k) stage[lid * STAGE_PITCH + uint(k)] = terms[k];
    }
    barrier();
    if (first >= blocks) return;
    // This workgroup's blocks first .. first + count - 1: their terms are contiguous.
    const uint count = min(blocks - first, uint(GROUP));
    for (uint k = lid; k < 64u * count; k += GROUP)
        F32s(pc.terms).v[64u * first + k] = stage[(k / 64u) * STAGE_PITCH + k % 64u];
}

void planted_sum_pass() {
    const uint lid = gl_LocalInvocationID.x, row = gl_WorkGroupID.x;
    float sum = 0.0;
    for (uint i = lid; i < pc.n; i += GROUP) sum += F32s(pc.terms).v[row * pc.n + i];
    sum = group_sum(sum);
    if (lid == 0u) F32s(pc.sums).v[row] = sum;
}

void main() {
    if (pc.pass == 0)
        block_pass();
    else
        planted_sum_pass();
}
