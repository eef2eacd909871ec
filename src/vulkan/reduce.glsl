// Workgroup sums for the Vulkan twins' shaders (src/feature/NAME/NAME_vulkan.comp): the kernel
// structure of an exact integer reduction, which is the backend's (no metric's arithmetic):
// block_sum over a workgroup, and rows_total, the one-workgroup pass that turns per-row partial
// sums into a plane's 64-bit total. Integer additions only: any order gives the same value.
// block_sum_float is for the planted kReductionOrder defects only (a float sum in tree order).
// Include after `#version 460`, the extensions GL_EXT_shader_explicit_arithmetic_types and
// GL_EXT_buffer_reference, in a shader whose local_size_x is 256 (VMAFX_GROUP).
#ifndef VMAFX_VULKAN_REDUCE_GLSL
#define VMAFX_VULKAN_REDUCE_GLSL

#define VMAFX_GROUP 256

#include "vulkan/tree_sum.glsl"

layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32s { uint32_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer U64s { uint64_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer F32s { float v[]; };

shared uint64_t vmafx_tree[VMAFX_GROUP];
shared float vmafx_ftree[VMAFX_GROUP];

/// The workgroup's sum of v over its invocations (exact modulo 2^64), for every invocation:
/// block_sum(uint64_t v). Call from uniform control flow.
VMAFX_TREE_SUM(uint64_t, block_sum, vmafx_tree, VMAFX_GROUP)

/// A float sum over the workgroup in tree order (planted defects only): block_sum_float(float v).
/// Uniform control flow.
VMAFX_TREE_SUM(float, block_sum_float, vmafx_ftree, VMAFX_GROUP)

/// One workgroup's total of per-row partial sums at `partials`: with per_row > 0, `count` rows of
/// per_row uint32 partials, each row's added modulo 2^32 (a wrapped uint32 row sum, as the CPU
/// forms it), the rows in 64 bits; with per_row == 0, `count` uint64 partials in 64 bits.
/// `planted`: the same terms summed in float (kReductionOrder). For every invocation.
void rows_total(uint64_t partials, int per_row, int count, out uint64_t total, out float planted) {
    const int lid = int(gl_LocalInvocationID.x);
    uint64_t sum = uint64_t(0);
    float fsum = 0.0f;
    if (per_row > 0) {
        for (int row = lid; row < count; row += VMAFX_GROUP) {
            uint32_t r = 0u;
            for (int g = 0; g < per_row; ++g) r += U32s(partials).v[row * per_row + g];
            sum += uint64_t(r);
            fsum += float(r);
        }
    } else {
        for (int i = lid; i < count; i += VMAFX_GROUP) {
            const uint64_t v = U64s(partials).v[i];
            sum += v;
            fsum += float(v);
        }
    }
    total = block_sum(sum);
    planted = block_sum_float(fsum);
}

#endif  // VMAFX_VULKAN_REDUCE_GLSL
