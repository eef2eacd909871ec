// Vulkan twin of the integer VIF metric (vif_vulkan.cpp says how the passes make the CPU's sums).
// Every value is formed by vif_math.hpp's functions (the CPU's own: the mirror, the vertical
// mean and product roundings, the horizontal filtered product, the variances, the per-sample
// terms around the logarithm's table, the decimated sample); the taps and the table are the
// CPU's (kFilters, log2_table()), uploaded by the host. Integer arithmetic except sample_args'
// doubles (g = s12 / (s1 + eps) correctly rounded, sv = s2 - g * s12, g * g * s1), each an IEEE
// double operation as the CPU's (every float operation NoContraction, tools/spirv_strict.py).
//  pass 0 (statistics of one scale): a workgroup per 256 columns and a stride of rows; per row,
//    the vertical pass of the 256 columns and their halo into shared memory, then per column
//    the horizontal pass, the variances and the terms, added per invocation in 64 bits; the
//    workgroup's six sums (four of the scale, and at scale 0 the samples above the bit depth of
//    each picture) go to its partials;
//  pass 1 (decimation to the next scale): a workgroup per 256 columns of the next scale's
//    pictures and a stride of their rows; per row, the vertical pass of the next scale's taps at
//    the even source row, once per source column the outputs read, into shared memory, then per
//    output the horizontal pass at the even column;
//  pass 2 (one workgroup per sum, six): a scale's partials added in 64 bits.
// Integer sums are exact in any order, so the totals are the CPU's.
// plant: 1 kMirrorShift (scale 0's rows below the bottom edge mirrored one row off), 2
// kRoundingConstant (the horizontal pass of ref*ref rounds with 2^14).
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
#include "feature/vif/vif_math.hpp"
#include "vulkan/planes.glsl"
#include "vulkan/reduce.glsl"

layout(local_size_x = VMAFX_GROUP) in;

layout(buffer_reference, std430, buffer_reference_align = 2) buffer OutWords { uint16_t v[]; };

/// The largest filter (scale 0: 17 taps) and its radius.
#define MAX_TAPS 17
#define MAX_HALF 8

// vif_vulkan.cpp's Push, member for member.
layout(push_constant) uniform Push {
    uint64_t ref;        // pass 0, 1: the scale's reference picture; pass 2: the scale's partials
    uint64_t dis;        // pass 0, 1: the distorted picture; pass 2: the scale's six totals
    uint64_t out_ref;    // pass 0: the partials; pass 1: the next scale's reference picture
    uint64_t out_dis;    // pass 1: the next scale's distorted picture
    uint64_t constants;  // uint32 taps of the four scales (MAX_TAPS each), their widths, the table's uint16 entries
    double gain_limit;   // vif_enhn_gain_limit
    uint32_t ref_pitch, dis_pitch, out_pitch;  // bytes
    int32_t width, height;  // the scale's pictures (pass 2: the partials of each sum)
    int32_t scale;
    int32_t bit_depth;
    int32_t wide;     // the scale's samples are 16 bits (every scale but 8-bit scale 0)
    int32_t plant;
    int32_t pass;
    int32_t groups;   // pass 0: workgroups along a row
    int32_t pad;
} pc;

/// The four filters' widths follow the 4 x MAX_TAPS uint32 taps; the table's uint16 entries
/// 32768..65535 follow the widths (bytes).
#define WIDTHS_AT (4 * MAX_TAPS)
#define TABLE_OFFSET ((4 * MAX_TAPS + 4) * 4)

uint32_t tap(int scale, int k) { return U32s(pc.constants).v[scale * MAX_TAPS + k]; }

uint32_t log2_entry(uint32_t index) { return uint32_t(Words(pc.constants + TABLE_OFFSET).v[index - 32768u]); }

/// hi * 2^16 + lo: a sum of taps times values below 2^32 from the sums of their 16-bit halves.
uint64_t joined(uint32_t hi, uint32_t lo) { return (uint64_t(hi) << 16) + uint64_t(lo); }

int filter_width(int scale) { return int(U32s(pc.constants).v[WIDTHS_AT + scale]); }

int32_t ref_at(int y, int x) { return sample_at(pc.ref, pc.ref_pitch, y, x, pc.wide != 0); }
int32_t dis_at(int y, int x) { return sample_at(pc.dis, pc.dis_pitch, y, x, pc.wide != 0); }

shared uint32_t s_taps[MAX_TAPS];
shared uint32_t s_mu1[VMAFX_GROUP + 2 * MAX_HALF];
shared uint32_t s_mu2[VMAFX_GROUP + 2 * MAX_HALF];
shared uint32_t s_xx[VMAFX_GROUP + 2 * MAX_HALF];
shared uint32_t s_yy[VMAFX_GROUP + 2 * MAX_HALF];
shared uint32_t s_xy[VMAFX_GROUP + 2 * MAX_HALF];

void statistics() {
    const int lid = int(gl_LocalInvocationID.x);
    const int fw = filter_width(pc.scale);
    const int radius = fw / 2;
    if (lid < fw) s_taps[lid] = tap(pc.scale, lid);
    barrier();
    const int mean_shift = vertical_shift(pc.scale, pc.bit_depth);
    const int square_shift = vertical_square_shift(pc.scale, pc.bit_depth);
    const int x0 = int(gl_WorkGroupID.x) * VMAFX_GROUP;
    const int x = x0 + lid;
    const uint32_t max_sample = (1u << pc.bit_depth) - 1u;
    const bool check_range = pc.scale == 0 && pc.bit_depth > 8 && pc.bit_depth < 16;
    int64_t num_log = int64_t(0), den_log = int64_t(0), num_non_log = int64_t(0), den_non_log = int64_t(0);
    int64_t ref_over = int64_t(0), dis_over = int64_t(0);
    for (int y = int(gl_WorkGroupID.y); y < pc.height; y += int(gl_NumWorkGroups.y)) {
        // The vertical pass of the workgroup's columns and their halo, mirrored at the edges.
        for (int i = lid; i < VMAFX_GROUP + 2 * radius; i += VMAFX_GROUP) {
            const int column = x0 - radius + i;
            if (column >= pc.width + radius) continue;
            const int c = mirror(column, pc.width);
            // The taps sum to 65536, so a sum of taps times values below 2^16 stays below 2^32:
            // each product (below 2^32) is summed as its two 16-bit halves, in uint32, exactly.
            uint32_t a_mu1 = 0u, a_mu2 = 0u;
            uint32_t xx_hi = 0u, xx_lo = 0u, yy_hi = 0u, yy_lo = 0u, xy_hi = 0u, xy_lo = 0u;
            for (int k = 0; k < fw; ++k) {
                const int src = y - radius + k;
                int r = mirror(src, pc.height);
                if (pc.plant == 1 && pc.scale == 0 && src >= pc.height) r -= 1;
                const uint32_t rv = uint32_t(ref_at(r, c));
                const uint32_t dv = uint32_t(dis_at(r, c));
                const uint32_t tk = s_taps[k];
                a_mu1 += tk * rv;
                a_mu2 += tk * dv;
                const uint32_t rr = rv * rv, dd = dv * dv, rd = rv * dv;
                xx_hi += tk * (rr >> 16);
                xx_lo += tk * (rr & 0xffffu);
                yy_hi += tk * (dd >> 16);
                yy_lo += tk * (dd & 0xffffu);
                xy_hi += tk * (rd >> 16);
                xy_lo += tk * (rd & 0xffffu);
            }
            s_mu1[i] = vertical_mean(a_mu1, mean_shift);
            s_mu2[i] = vertical_mean(a_mu2, mean_shift);
            s_xx[i] = vertical_product(joined(xx_hi, xx_lo), square_shift);
            s_yy[i] = vertical_product(joined(yy_hi, yy_lo), square_shift);
            s_xy[i] = vertical_product(joined(xy_hi, xy_lo), square_shift);
        }
        barrier();
        if (x < pc.width) {
            uint32_t h_mu1 = 0u, h_mu2 = 0u;
            uint32_t xx_hi = 0u, xx_lo = 0u, yy_hi = 0u, yy_lo = 0u, xy_hi = 0u, xy_lo = 0u;
            for (int k = 0; k < fw; ++k) {
                const uint32_t c = s_taps[k];
                h_mu1 += c * s_mu1[lid + k];
                h_mu2 += c * s_mu2[lid + k];
                const uint32_t xx = s_xx[lid + k], yy = s_yy[lid + k], xy = s_xy[lid + k];
                xx_hi += c * (xx >> 16);
                xx_lo += c * (xx & 0xffffu);
                yy_hi += c * (yy >> 16);
                yy_lo += c * (yy & 0xffffu);
                xy_hi += c * (xy >> 16);
                xy_lo += c * (xy & 0xffffu);
            }
            const uint64_t h_xx = joined(xx_hi, xx_lo), h_yy = joined(yy_hi, yy_lo), h_xy = joined(xy_hi, xy_lo);
            const uint32_t xx_filt =
                pc.plant == 2 ? uint32_t((h_xx + uint64_t(1u << 14)) >> kHorizontalShift) : filtered_product(h_xx);
            const Variances v = variances(h_mu1, h_mu2, xx_filt, filtered_product(h_yy), filtered_product(h_xy));
            const SampleArgs a = sample_args(v.sigma1_sq, v.sigma2_sq, v.sigma12, pc.gain_limit);
            const uint32_t den_entry = a.logs ? log2_entry(log2_index_32(a.den_v)) : 0u;
            const uint32_t numer_entry = a.num ? log2_entry(log2_index_64(a.numer_v)) : 0u;
            const uint32_t numer1_entry = a.num ? log2_entry(log2_index_64(a.numer1_v)) : 0u;
            const SampleTerms t = sample_terms(a, v.sigma2_sq, den_entry, numer_entry, numer1_entry);
            num_log += int64_t(t.num_log);
            den_log += int64_t(t.den_log);
            num_non_log += int64_t(t.num_non_log);
            den_non_log += int64_t(t.den_non_log);
            if (check_range) {
                if (uint32_t(ref_at(y, x)) > max_sample) ref_over += int64_t(1);
                if (uint32_t(dis_at(y, x)) > max_sample) dis_over += int64_t(1);
            }
        }
        barrier();  // the shared rows are free for the next row
    }
    const int partials = int(gl_NumWorkGroups.y) * pc.groups;
    const int at = int(gl_WorkGroupID.y) * pc.groups + int(gl_WorkGroupID.x);
    const uint64_t s0 = block_sum(uint64_t(num_log));
    const uint64_t s1 = block_sum(uint64_t(den_log));
    const uint64_t s2 = block_sum(uint64_t(num_non_log));
    const uint64_t s3 = block_sum(uint64_t(den_non_log));
    const uint64_t s4 = block_sum(uint64_t(ref_over));
    const uint64_t s5 = block_sum(uint64_t(dis_over));
    if (lid == 0) {
        U64s(pc.out_ref).v[0 * partials + at] = s0;
        U64s(pc.out_ref).v[1 * partials + at] = s1;
        U64s(pc.out_ref).v[2 * partials + at] = s2;
        U64s(pc.out_ref).v[3 * partials + at] = s3;
        U64s(pc.out_ref).v[4 * partials + at] = s4;
        U64s(pc.out_ref).v[5 * partials + at] = s5;
    }
}

shared uint32_t s_conv_ref[2 * VMAFX_GROUP + 2 * MAX_HALF];
shared uint32_t s_conv_dis[2 * VMAFX_GROUP + 2 * MAX_HALF];

void decimation() {
    const int next = pc.scale + 1;
    const int fw = filter_width(next);
    const int radius = fw / 2;
    const int lid = int(gl_LocalInvocationID.x);
    if (lid < fw) s_taps[lid] = tap(next, lid);
    barrier();
    const int shift = vertical_shift(pc.scale, pc.bit_depth);
    const int out_w = pc.width / 2, out_h = pc.height / 2;
    const int j0 = int(gl_WorkGroupID.x) * VMAFX_GROUP;
    const int j = j0 + lid;
    // The source columns of the workgroup's outputs: 2 * j0 - radius .. 2 * (j0 + 255) + radius.
    const int first = 2 * j0 - radius;
    const int columns = 2 * VMAFX_GROUP - 1 + 2 * radius;
    for (int i = int(gl_WorkGroupID.y); i < out_h; i += int(gl_NumWorkGroups.y)) {
        // The vertical pass at source row 2i, once per source column the outputs read.
        for (int t = lid; t < columns; t += VMAFX_GROUP) {
            const int column = first + t;
            if (column > 2 * (out_w - 1) + radius) continue;
            const int c = mirror(column, pc.width);
            uint32_t v_ref = 0u, v_dis = 0u;
            for (int k = 0; k < fw; ++k) {
                const int r = mirror(2 * i - radius + k, pc.height);
                v_ref += s_taps[k] * uint32_t(ref_at(r, c));
                v_dis += s_taps[k] * uint32_t(dis_at(r, c));
            }
            s_conv_ref[t] = vertical_mean(v_ref, shift);
            s_conv_dis[t] = vertical_mean(v_dis, shift);
        }
        barrier();
        if (j < out_w) {
            // The horizontal pass at the even column 2j.
            uint32_t h_ref = 0u, h_dis = 0u;
            for (int k = 0; k < fw; ++k) {
                h_ref += s_taps[k] * s_conv_ref[2 * lid + k];
                h_dis += s_taps[k] * s_conv_dis[2 * lid + k];
            }
            const uint64_t row = uint64_t(i) * uint64_t(pc.out_pitch);
            OutWords(pc.out_ref + row).v[j] = uint16_t(decimated_sample(h_ref));
            OutWords(pc.out_dis + row).v[j] = uint16_t(decimated_sample(h_dis));
        }
        barrier();  // the shared columns are free for the next row
    }
}

void main() {
    if (pc.pass == 0) {
        statistics();
    } else if (pc.pass == 1) {
        decimation();
    } else {
        const int k = int(gl_WorkGroupID.x);
        uint64_t total;
        float planted;
        rows_total(pc.ref + uint64_t(k) * uint64_t(pc.width) * uint64_t(8), 0, pc.width, total, planted);
        if (gl_LocalInvocationID.x == 0u) U64s(pc.dis).v[k] = total;
    }
}
