// The Vulkan passes of the float_ssim and float_ms_ssim twins (iqa_vulkan.cpp runs them; the
// CUDA twins' iqa_cuda.cuh has the same passes). Every value is formed by the CPU's own
// functions: floatimg::picture_copy_sample (float_image_math.hpp) for the float copy of a
// sample, iqa_math.hpp's add_product (each tap's float product added in double, rounded to float
// at the end), mirror, gaussian_tap, variance, covariance and window_terms (double divisions and
// the double square root correctly rounded by base/correctly_rounded.hpp), every operation
// NoContraction (tools/spirv_strict.py). The loops only index, in the CPU's order of taps.
//  pass 0, a workgroup per 256 columns and row: both lumas as floats (level 0, packed rows);
//  pass 1: one decimation of one picture: output (x, y) is the klen x klen filter of the level
//    above at (x * factor, y * factor) with its taps in order, mirrored where the kernel leaves
//    the picture (upstream's _iqa_filter_pixel, as iqa::filter_pixel);
//  pass 2, a workgroup per 256 valid columns and row of a level: the Gaussian's horizontal pass
//    of the five maps (ref, cmp, ref*ref, cmp*cmp, ref*cmp, each product the CPU's float
//    product) into the map planes;
//  pass 3, a workgroup per 256 windows and row of windows: the vertical pass of the five maps,
//    the clamped variances, the covariance and the window's terms, written to the term rows
//    (window (x, y) at y * dw + x) for SequentialSum.
// plant_shift (kMirrorShift): the decimation's mirror reads indices reflected from below 0 one
// sample further in, and the last window column's last horizontal tap is one column to the left;
// toward_zero (kRoundingConstant): ref*ref's vertical pass rounded to float toward zero.
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
// float_image_math.hpp's mirror (the convolution's, the edge not repeated) renamed: GLSL has one
// namespace, and the mirror these passes use is iqa_math.hpp's (the edge repeated).
#define mirror convolution_mirror
#include "feature/common/float_image_math.hpp"
#undef mirror
#include "feature/common/iqa_math.hpp"
#include "vulkan/planes.glsl"
#include "vulkan/reduce.glsl"

layout(local_size_x = VMAFX_GROUP) in;

layout(buffer_reference, std430, buffer_reference_align = 8) buffer F64s { double v[]; };

#define MAPS 5

// iqa_vulkan.cpp's Push, member for member.
layout(push_constant) uniform Push {
    uint64_t a;     // pass 0: reference luma; 1: the level above; 2: the level's reference; 3: the maps
    uint64_t b;     // pass 0: distorted luma; 2: the level's distorted picture
    uint64_t dst;   // pass 0: reference floats; 1: the decimated level; 2: the maps; 3: the term rows
    uint64_t dst2;  // pass 0: distorted floats
    uint64_t taps;  // pass 1: klen x klen floats
    float scaler;   // pass 0: picture_copy's divisor (0 at 8 bits)
    uint32_t ref_pitch, dis_pitch;  // pass 0: bytes
    int32_t w, h;   // pass 0: the luma; 1: the level above; 2: the level; 3: windows dw x dh
    int32_t out_w;  // pass 1: the decimated width
    int32_t factor, klen;
    int32_t plane;  // passes 2, 3: floats between maps
    int32_t pitch;  // pass 3: doubles between term rows
    int32_t first_row, row_count;  // pass 3: the term rows formed (iqa_math.hpp's kRow*)
    int32_t wide;   // pass 0: 16-bit samples
    int32_t plant_shift, toward_zero;
    int32_t pass;
} pc;

void to_float() {
    const int x = int(gl_GlobalInvocationID.x);
    const int y = int(gl_WorkGroupID.y);
    if (x >= pc.w) return;
    const int i = y * pc.w + x;
    F32s(pc.dst).v[i] = picture_copy_sample(sample_at(pc.a, pc.ref_pitch, y, x, pc.wide != 0), pc.scaler, 0.0f);
    F32s(pc.dst2).v[i] = picture_copy_sample(sample_at(pc.b, pc.dis_pitch, y, x, pc.wide != 0), pc.scaler, 0.0f);
}

/// mirror(), with plant_shift added to indices reflected from below 0 (planted kMirrorShift).
int border(int i, int n) { return mirror(i, n) + (i < 0 ? pc.plant_shift : 0); }

void decimate() {
    const int x = int(gl_GlobalInvocationID.x);
    const int y = int(gl_WorkGroupID.y);
    if (x >= pc.out_w) return;
    const int cx = x * pc.factor, cy = y * pc.factor;
    const int c = pc.klen / 2;
    const int even = (pc.klen & 1) != 0 ? 0 : 1;
    const bool edge = cx < c || cy < c || cx >= pc.w - c || cy >= pc.h - c;
    double sum = 0.0lf;
    int k = 0;
    for (int v = -c; v <= c - even; ++v) {
        for (int u = -c; u <= c - even; ++u) {
            const int yy = edge ? border(cy + v, pc.h) : cy + v;
            const int xx = edge ? border(cx + u, pc.w) : cx + u;
            sum = add_product(sum, F32s(pc.a).v[yy * pc.w + xx], F32s(pc.taps).v[k]);
            ++k;
        }
    }
    F32s(pc.dst).v[y * pc.out_w + x] = float(sum);
}

void horizontal() {
    const int x = int(gl_GlobalInvocationID.x);
    const int y = int(gl_WorkGroupID.y);
    const int dw = pc.w - kGaussianLen + 1;
    if (x >= dw) return;
    double sum[MAPS];
    for (int m = 0; m < MAPS; ++m) sum[m] = 0.0lf;
    for (int k = 0; k < kGaussianLen; ++k) {
        // Planted kMirrorShift: the last window column's last tap one column to the left.
        const int j = pc.plant_shift != 0 && k == kGaussianLen - 1 && x == dw - 1 ? k - 1 : k;
        const float a = F32s(pc.a).v[y * pc.w + x + j];
        const float b = F32s(pc.b).v[y * pc.w + x + j];
        const float tap = gaussian_tap(k);
        sum[0] = add_product(sum[0], a, tap);
        sum[1] = add_product(sum[1], b, tap);
        sum[2] = add_product(sum[2], a * a, tap);
        sum[3] = add_product(sum[3], b * b, tap);
        sum[4] = add_product(sum[4], a * b, tap);
    }
    for (int m = 0; m < MAPS; ++m) F32s(pc.dst).v[m * pc.plane + y * dw + x] = float(sum[m]);
}

/// d rounded to float toward zero (the planted kRoundingConstant only).
float round_toward_zero(double d) {
    float f = float(d);
    if (abs(double(f)) > abs(d)) f = uintBitsToFloat(floatBitsToUint(f) - 1u);
    return f;
}

void terms() {
    const int x = int(gl_GlobalInvocationID.x);
    const int y = int(gl_WorkGroupID.y);
    const int dw = pc.w;
    if (x >= dw) return;
    float v[MAPS];
    for (int m = 0; m < MAPS; ++m) {
        double sum = 0.0lf;
        for (int k = 0; k < kGaussianLen; ++k) sum = add_product(sum, F32s(pc.a).v[m * pc.plane + (y + k) * dw + x], gaussian_tap(k));
        v[m] = pc.toward_zero != 0 && m == 2 ? round_toward_zero(sum) : float(sum);
    }
    const float v1 = variance(v[2], v[0]);
    const float v2 = variance(v[3], v[1]);
    const float cov = covariance(v[4], v[0], v[1]);
    const WindowTerms t = window_terms(v[0], v[1], v1, v2, cov);
    const int i = y * dw + x;
    for (int r = pc.first_row; r < pc.first_row + pc.row_count; ++r) {
        const double value = r == kRowL ? t.l : r == kRowC ? t.c : r == kRowS ? t.s : t.lcs;
        F64s(pc.dst).v[(r - pc.first_row) * pc.pitch + i] = value;
    }
}

void main() {
    if (pc.pass == 0) {
        to_float();
    } else if (pc.pass == 1) {
        decimate();
    } else if (pc.pass == 2) {
        horizontal();
    } else {
        terms();
    }
}
