// The per-block arithmetic of psnr_hvs (see psnr_hvs.hpp), shared by the CPU reference
// (psnr_hvs.cpp) and its CUDA twin (psnr_hvs_cuda.cu), so that each rounding exists once:
// Daala's integer 8x8 DCT (32-bit ints wrapping as upstream's on x86-64, through explicit
// uint32 arithmetic), the variance ratio and the masking level in upstream's float operations
// (the square root in double), and the 64 per-coefficient terms (err * csf)^2 of a block, each
// rounded to float exactly where upstream's C rounds it. Every function here is a pure function
// of its arguments; the caller adds the terms to its plane's running float sum in block raster
// order, 64 terms a block in row-major coefficient order (the DC term included, zeros
// included). Built with -ffp-contract=off on the host and --fmad=false -prec-div=true
// -prec-sqrt=true -ftz=false on the device, every a*b+c below rounds twice on both.
// Written in the shared-arithmetic subset (base/shared_math.hpp): it compiles as C++, CUDA and
// GLSL. The per-block functions whose float steps a planted kContraction fuses (variance_ratio,
// masking, block_terms) are in psnr_hvs_block.inc, included here once with plain steps; the
// twin's header (psnr_hvs_twin.hpp) includes it again under the planted policy, in a namespace
// of its own, so the CPU's functions have no test-only parameter.
// Upstream: libvmaf 3.2.0 src/feature/third_party/xiph/psnr_hvs.c (calc_psnrhvs, od_bin_fdct8).
#ifndef VMAFX_FEATURE_PSNR_HVS_PSNR_HVS_MATH_HPP
#define VMAFX_FEATURE_PSNR_HVS_PSNR_HVS_MATH_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(psnr_hvs)

/// A plane's tables, row-major by coefficient (row i, column j at 8 * i + j): the contrast
/// sensitivity csf (upstream's csf_y / csf_cb420 / csf_cr420, double literals rounded to float)
/// and the masking weights mask = (double(csf) * 0.3885746225901003)^2 rounded to float
/// (upstream's `mask`). Built once on the host (plane_tables() in psnr_hvs.cpp) and passed to
/// the device by value.
struct PlaneTables {
    float csf[64];
    float mask[64];
};

VMAFX_NAMESPACE_END

VMAFX_NAMESPACE_BEGIN(psnr_hvs::math)

// 32-bit int arithmetic wrapping as upstream's `int` does on x86-64 (its products do not
// overflow for samples of at most 12 bits, but the wrap keeps this free of undefined
// behaviour whatever the input).
VMAFX_FN int32_t add(int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); }
VMAFX_FN int32_t sub(int32_t a, int32_t b) { return int32_t(uint32_t(a) - uint32_t(b)); }
/// (v * mul + 2^(shift-1)) >> shift, arithmetic shift (one lifting step's product).
VMAFX_FN int32_t scaled(int32_t v, int32_t mul, int shift) {
    const uint32_t p = uint32_t(v) * uint32_t(mul) + (1u << (shift - 1));
    return int32_t(p) >> shift;
}
/// |a - b| as upstream's abs() of the int difference gives it on x86-64 (the negation wraps:
/// only samples above the bit depth could reach -2^31, which stays -2^31).
VMAFX_FN int32_t abs_diff(int32_t a, int32_t b) {
    const int32_t d = sub(a, b);
    return d < 0 ? sub(0, d) : d;
}
/// v / 2 rounded toward zero (OD_DCT_RSHIFT(v, 1): the sign bit added before the shift).
VMAFX_FN int32_t halve(int32_t v) { return add(v, int32_t(uint32_t(v) >> 31)) >> 1; }

/// Daala's integer 8-point forward DCT (od_bin_fdct8): dst[at_dst .. at_out + 7] from src[at_src],
/// src[at_src + stride], ..., src[at_src + 7 * stride] of 64-element blocks (out and in must be
/// different arrays).
VMAFX_FN void fdct8(VMAFX_INOUT_ARRAY(int32_t, dst, 64), int at_dst, VMAFX_IN_ARRAY(int32_t, src, 64), int at_src,
                    int stride) {
    // Inputs in the transform's permuted order.
    int32_t t0 = src[at_src + 0 * stride];
    int32_t t4 = src[at_src + 1 * stride];
    int32_t t2 = src[at_src + 2 * stride];
    int32_t t6 = src[at_src + 3 * stride];
    int32_t t7 = src[at_src + 4 * stride];
    int32_t t3 = src[at_src + 5 * stride];
    int32_t t5 = src[at_src + 6 * stride];
    int32_t t1 = src[at_src + 7 * stride];
    // Butterflies.
    t1 = sub(t0, t1);
    const int32_t t1h = halve(t1);
    t0 = sub(t0, t1h);
    t4 = add(t4, t5);
    const int32_t t4h = halve(t4);
    t5 = sub(t5, t4h);
    t3 = sub(t2, t3);
    t2 = sub(t2, halve(t3));
    t6 = add(t6, t7);
    const int32_t t6h = halve(t6);
    t7 = sub(t6h, t7);
    // 4-point DCT-II of the even half.
    t0 = add(t0, t6h);
    t6 = sub(t0, t6);
    t2 = sub(t4h, t2);
    t4 = sub(t2, t4);
    // Its 2-point DCT-II: sqrt(2) - 1, sqrt(1/2), sqrt(2) - 1.
    t0 = sub(t0, scaled(t4, 13573, 15));
    t4 = add(t4, scaled(t0, 11585, 14));
    t0 = sub(t0, scaled(t4, 13573, 15));
    // Its 2-point DST-IV: rotation by 3 pi / 8 in three lifts.
    t6 = sub(t6, scaled(t2, 21895, 15));
    t2 = add(t2, scaled(t6, 15137, 14));
    t6 = sub(t6, scaled(t2, 21895, 15));
    // 4-point DST-IV of the odd half.
    t3 = add(t3, scaled(t5, 19195, 15));
    t5 = add(t5, scaled(t3, 11585, 14));
    t3 = sub(t3, scaled(t5, 7489, 13));
    t7 = sub(halve(t5), t7);
    t5 = sub(t5, t7);
    t3 = sub(t1h, t3);
    t1 = sub(t1, t3);
    // Rotation by pi / 16.
    t7 = add(t7, scaled(t1, 3227, 15));
    t1 = sub(t1, scaled(t7, 6393, 15));
    t7 = add(t7, scaled(t1, 3227, 15));
    // Rotation by 3 pi / 16.
    t5 = add(t5, scaled(t3, 2485, 13));
    t3 = sub(t3, scaled(t5, 18205, 15));
    t5 = add(t5, scaled(t3, 2485, 13));
    dst[at_dst + 0] = t0;
    dst[at_dst + 1] = t1;
    dst[at_dst + 2] = t2;
    dst[at_dst + 3] = t3;
    dst[at_dst + 4] = t4;
    dst[at_dst + 5] = t5;
    dst[at_dst + 6] = t6;
    dst[at_dst + 7] = t7;
}

/// The 8x8 DCT in place on a row-major 8x8 block (od_bin_fdct8x8: the columns of the block
/// become the rows of a scratch block, whose columns become the rows of the result).
VMAFX_FN void fdct8x8(VMAFX_INOUT_ARRAY(int32_t, block, 64)) {
    int32_t columns[64];
    for (int c = 0; c < 8; ++c) fdct8(columns, 8 * c, block, c, 8);
    for (int c = 0; c < 8; ++c) fdct8(block, 8 * c, columns, c, 8);
}

/// Quadrant of (row i, column j) of a block: 0 top left, 1 bottom left, 2 top right,
/// 3 bottom right (upstream's (i & 12) >> 2) + ((j & 12) >> 1)).
VMAFX_FN int quadrant(int i, int j) { return ((i & 12) >> 2) + ((j & 12) >> 1); }

/// n / (n - 1) of the unbiased variances as upstream's float constants: 1 / 63.f * 64 and
/// 1 / 15.f * 16, each operation rounded to float (written as their exact values, 0x1.041042p+0
/// and 0x1.111112p+0, so that no compiler folds them at another precision).
VMAFX_CONST float kBlockVarianceScale = 1.01587307453155517578125f;
VMAFX_CONST float kQuadrantVarianceScale = 1.06666672229766845703125f;

/// The number of 8x8 blocks along a plane side of `size` samples: blocks start at 0, 7, 14, ...
/// while start + 7 < size (upstream's `y < height - 7`), so 0 below 8.
VMAFX_FN int blocks_along(int size) { return size < 8 ? 0 : (size - 8) / 7 + 1; }

VMAFX_NAMESPACE_END

// variance_ratio, masking and block_terms with plain steps (c + a * b, two roundings).
VMAFX_NAMESPACE_BEGIN(psnr_hvs::math)
#include "feature/psnr_hvs/psnr_hvs_block.inc"
VMAFX_NAMESPACE_END

#endif  // VMAFX_FEATURE_PSNR_HVS_PSNR_HVS_MATH_HPP
