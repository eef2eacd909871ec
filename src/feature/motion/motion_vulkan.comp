// Vulkan twin of the integer MOTION metric (motion_vulkan.cpp says how the passes make the CPU's
// sum): pass 0, an invocation per output sample (each column's vertical pass once per workgroup,
// in shared memory), blurs the difference prev - cur with
// motion_math.hpp's functions (the CPU's own: the mirror, the vertical blur at the sample's bit
// depth, the horizontal blur as upstream's vector lanes or exactly, by column), and a workgroup
// adds the magnitudes of its 256 columns of a row modulo 2^32 (the CPU's wrapped row sum,
// order-free); pass 1 (one workgroup, vulkan/reduce.glsl's rows_total) adds each row's partial
// sums modulo 2^32 and the rows in 64 bits. Integer arithmetic only.
// plant: 1 kMirrorShift (rows above the top edge mirrored one row off), 2 kRoundingConstant (the
// vertical pass rounds with 2^(bit_depth - 2)).
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
#include "feature/motion/motion_math.hpp"
#include "vulkan/planes.glsl"
#include "vulkan/reduce.glsl"

layout(local_size_x = VMAFX_GROUP) in;

// motion_vulkan.cpp's Push, member for member.
layout(push_constant) uniform Push {
    uint64_t a;  // pass 0: the previous reference luma; pass 1: the partial sums
    uint64_t b;  // pass 0: the current reference luma; pass 1: the frame's uint64 total
    uint64_t c;  // pass 0: the partial sums
    uint32_t prev_pitch, cur_pitch;  // bytes
    int32_t width, height;
    int32_t bit_depth;
    int32_t plant;
    int32_t pass;
    int32_t groups;  // workgroups along a row
} pc;

int32_t difference(int row, int column) {
    const bool wide = pc.bit_depth > 8;
    return sample_difference(sample_at(pc.a, pc.prev_pitch, row, column, wide),
                             sample_at(pc.b, pc.cur_pitch, row, column, wide));
}

/// The vertical blur of column `column` at output row y.
int32_t vertical(int y, int column) {
    int32_t d[5];
    for (int m = 0; m < 5; ++m) {
        int r = mirror(y - kRadius + m, pc.height);
        if (pc.plant == 1 && y - kRadius + m < 0) r += 1;
        d[m] = difference(r, column);
    }
    if (pc.plant == 2) {
        if (pc.bit_depth > 8)
            return int32_t((vertical_taps_16(d[0], d[1], d[2], d[3], d[4]) + (int64_t(1) << (pc.bit_depth - 2))) >>
                           pc.bit_depth);
        return (vertical_taps_8(d[0], d[1], d[2], d[3], d[4]) + (int32_t(1) << (pc.bit_depth - 2))) >> pc.bit_depth;
    }
    return pc.bit_depth > 8 ? vertical_blur_16(d[0], d[1], d[2], d[3], d[4], pc.bit_depth)
                            : vertical_blur_8(d[0], d[1], d[2], d[3], d[4], pc.bit_depth);
}

shared int32_t blurred[VMAFX_GROUP + 2 * kRadius];  // vertical blurs of columns x0 - 2 .. x0 + 257

void row_sums() {
    const int lid = int(gl_LocalInvocationID.x);
    const int x0 = int(gl_WorkGroupID.x) * VMAFX_GROUP;
    const int x = x0 + lid;
    for (int y = int(gl_WorkGroupID.y); y < pc.height; y += int(gl_NumWorkGroups.y)) {
        // The vertical pass once per column of the workgroup's window (its own 256 and the
        // 2 x kRadius halo), mirrored at the picture's left and right edges.
        for (int i = lid; i < VMAFX_GROUP + 2 * kRadius; i += VMAFX_GROUP) {
            const int column = x0 - kRadius + i;
            if (column < pc.width + kRadius) blurred[i] = vertical(y, mirror(column, pc.width));
        }
        barrier();
        uint32_t term = 0u;
        if (x < pc.width) {
            const bool lane = x >= 2 && x < lane_columns_end(pc.width);
            term = magnitude(lane ? horizontal_blur_lane(blurred[lid], blurred[lid + 1], blurred[lid + 2],
                                                         blurred[lid + 3], blurred[lid + 4])
                                  : horizontal_blur_exact(blurred[lid], blurred[lid + 1], blurred[lid + 2],
                                                          blurred[lid + 3], blurred[lid + 4]));
        }
        const uint64_t s = block_sum(uint64_t(term));  // its barriers also free `blurred`
        if (lid == 0) U32s(pc.c).v[y * pc.groups + int(gl_WorkGroupID.x)] = uint32_t(s);
    }
}

void main() {
    if (pc.pass == 0) {
        row_sums();
    } else {
        uint64_t total;
        float planted;
        rows_total(pc.a, pc.groups, pc.height, total, planted);
        if (gl_LocalInvocationID.x == 0u) U64s(pc.b).v[0] = total;
    }
}
