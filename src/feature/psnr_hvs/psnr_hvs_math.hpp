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
// Upstream: libvmaf 3.2.0 src/feature/third_party/xiph/psnr_hvs.c (calc_psnrhvs, od_bin_fdct8).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "base/host_device.hpp"

namespace vmafx::psnr_hvs {

/// A plane's tables, row-major by coefficient (row i, column j at 8 * i + j): the contrast
/// sensitivity csf (upstream's csf_y / csf_cb420 / csf_cr420, double literals rounded to float)
/// and the masking weights mask = (double(csf) * 0.3885746225901003)^2 rounded to float
/// (upstream's `mask`). Built once on the host (plane_tables() in psnr_hvs.cpp) and passed to
/// the device by value.
struct PlaneTables {
    float csf[64];
    float mask[64];
};

namespace math {

// 32-bit int arithmetic wrapping as upstream's `int` does on x86-64 (its products do not
// overflow for samples of at most 12 bits, but the wrap keeps this free of undefined
// behaviour whatever the input).
VMAFX_HOST_DEVICE inline std::int32_t add(std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
VMAFX_HOST_DEVICE inline std::int32_t sub(std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
/// (v * mul + 2^(shift-1)) >> shift, arithmetic shift (one lifting step's product).
VMAFX_HOST_DEVICE inline std::int32_t scaled(std::int32_t v, std::int32_t mul, int shift) {
    const auto p = static_cast<std::uint32_t>(v) * static_cast<std::uint32_t>(mul) + (1u << (shift - 1));
    return static_cast<std::int32_t>(p) >> shift;
}
/// |a - b| as upstream's abs() of the int difference gives it on x86-64 (the negation wraps:
/// only samples above the bit depth could reach -2^31, which stays -2^31).
VMAFX_HOST_DEVICE inline std::int32_t abs_diff(std::int32_t a, std::int32_t b) {
    const std::int32_t d = sub(a, b);
    return d < 0 ? sub(0, d) : d;
}
/// v / 2 rounded toward zero (OD_DCT_RSHIFT(v, 1): the sign bit added before the shift).
VMAFX_HOST_DEVICE inline std::int32_t half(std::int32_t v) {
    return add(v, static_cast<std::int32_t>(static_cast<std::uint32_t>(v) >> 31)) >> 1;
}

/// Daala's integer 8-point forward DCT (od_bin_fdct8): out[0..7] from in[0], in[stride], ...,
/// in[7 * stride] (out and in must not overlap).
VMAFX_HOST_DEVICE inline void fdct8(std::int32_t out[8], const std::int32_t* in, int stride) {
    // Inputs in the transform's permuted order.
    std::int32_t t0 = in[0 * stride], t4 = in[1 * stride], t2 = in[2 * stride], t6 = in[3 * stride];
    std::int32_t t7 = in[4 * stride], t3 = in[5 * stride], t5 = in[6 * stride], t1 = in[7 * stride];
    // Butterflies.
    t1 = sub(t0, t1);
    const std::int32_t t1h = half(t1);
    t0 = sub(t0, t1h);
    t4 = add(t4, t5);
    const std::int32_t t4h = half(t4);
    t5 = sub(t5, t4h);
    t3 = sub(t2, t3);
    t2 = sub(t2, half(t3));
    t6 = add(t6, t7);
    const std::int32_t t6h = half(t6);
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
    t7 = sub(half(t5), t7);
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
    out[0] = t0;
    out[1] = t1;
    out[2] = t2;
    out[3] = t3;
    out[4] = t4;
    out[5] = t5;
    out[6] = t6;
    out[7] = t7;
}

/// The 8x8 DCT in place on a row-major 8x8 block (od_bin_fdct8x8: the columns of the block
/// become the rows of a scratch block, whose columns become the rows of the result).
VMAFX_HOST_DEVICE inline void fdct8x8(std::int32_t block[64]) {
    std::int32_t columns[64];
    for (int c = 0; c < 8; ++c) fdct8(columns + 8 * c, block + c, 8);
    for (int c = 0; c < 8; ++c) fdct8(block + 8 * c, columns + c, 8);
}

/// c + a * b rounded twice (a float product, then a float sum), or, where `fused` (the twin's
/// planted kContraction, parity-gate tests only), rounded once as a fused multiply-add.
VMAFX_HOST_DEVICE inline float mul_add(float a, float b, float c, bool fused) {
    if (fused) return fmaf(a, b, c);
    return c + a * b;
}

/// Quadrant of (row i, column j) of a block: 0 top left, 1 bottom left, 2 top right,
/// 3 bottom right (upstream's (i & 12) >> 2) + ((j & 12) >> 1)).
VMAFX_HOST_DEVICE inline int quadrant(int i, int j) { return ((i & 12) >> 2) + ((j & 12) >> 1); }

/// The variance ratio of a block of samples s (row-major 8x8; upstream's *_gmean, *_means,
/// *_gvar, *_vars): the sum of the four 4x4 quadrants' variances over the block's variance
/// (each an unbiased estimate, scaled by n / (n - 1) as a float constant); the block's variance
/// itself where that is not above 0. Float sums in row-major order, as upstream's. `fused`: the
/// twin's planted kContraction (each step of the squared-deviation sums one fused
/// multiply-add); false everywhere else.
VMAFX_HOST_DEVICE inline float variance_ratio(const std::int32_t s[64], bool fused = false) {
    float gmean = 0;
    float means[4] = {0, 0, 0, 0};
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
            const int q = quadrant(i, j);
            gmean += static_cast<float>(s[i * 8 + j]);
            means[q] += static_cast<float>(s[i * 8 + j]);
        }
    gmean /= 64.f;
    for (float& m : means) m /= 16.f;
    float gvar = 0;
    float vars[4] = {0, 0, 0, 0};
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
            const int q = quadrant(i, j);
            const float dg = static_cast<float>(s[i * 8 + j]) - gmean;
            const float dq = static_cast<float>(s[i * 8 + j]) - means[q];
            gvar = mul_add(dg, dg, gvar, fused);
            vars[q] = mul_add(dq, dq, vars[q], fused);
        }
    constexpr float kBlock = 1 / 63.f * 64;
    constexpr float kQuadrant = 1 / 15.f * 16;
    gvar *= kBlock;
    for (float& v : vars) v *= kQuadrant;
    if (gvar > 0) gvar = (vars[0] + vars[1] + vars[2] + vars[3]) / gvar;
    return gvar;
}

/// The masking level of a transformed block (upstream's *_mask, then sqrt and / 32):
/// sqrt(AC energy weighted by `mask` times the variance ratio) / 32, the energy a float sum in
/// row-major order of float(c * c) * mask (c * c an int product), the square root in double,
/// the result rounded to float. `fused`: the twin's planted kContraction (each energy step one
/// fused multiply-add); false everywhere else.
VMAFX_HOST_DEVICE inline float masking(const std::int32_t dct[64], float ratio, const float mask[64],
                                       bool fused = false) {
    float energy = 0;
    for (int i = 0; i < 8; ++i)
        for (int j = i == 0 ? 1 : 0; j < 8; ++j) {
            const std::int32_t c = dct[i * 8 + j];
            // int * int (no overflow: |c| < 2^15 for samples of at most 12 bits), then float.
            const float c2 = static_cast<float>(
                static_cast<std::int32_t>(static_cast<std::uint32_t>(c) * static_cast<std::uint32_t>(c)));
            energy = mul_add(c2, mask[i * 8 + j], energy, fused);
        }
    return static_cast<float>(sqrt(static_cast<double>(energy * ratio)) / 32.0);
}

/// The 64 terms of one block pair, written to terms[0..63] in row-major coefficient order:
/// s and d are the reference and distorted blocks' samples (row-major 8x8), transformed in
/// place (on return they hold their DCTs). Per coefficient, err = |S - D| as a float, lowered
/// for the AC coefficients by the threshold level / mask (level: the larger masking level of
/// the two blocks) and floored at 0, and the term (err * csf) * (err * csf), each product
/// rounded to float. `plant_contraction`: the twin's planted kContraction (see variance_ratio
/// and masking).
VMAFX_HOST_DEVICE inline void block_terms(std::int32_t s[64], std::int32_t d[64], const PlaneTables& t, float* terms,
                                          bool plant_contraction = false) {
    const float s_ratio = variance_ratio(s, plant_contraction);
    const float d_ratio = variance_ratio(d, plant_contraction);
    fdct8x8(s);
    fdct8x8(d);
    float level = masking(s, s_ratio, t.mask, plant_contraction);
    const float d_level = masking(d, d_ratio, t.mask, plant_contraction);
    if (d_level > level) level = d_level;
    for (int k = 0; k < 64; ++k) {
        float err = static_cast<float>(abs_diff(s[k], d[k]));
        if (k != 0) {
            const float threshold = level / t.mask[k];
            err = err < threshold ? 0 : err - threshold;
        }
        const float weighted = err * t.csf[k];
        terms[k] = weighted * weighted;
    }
}

/// The number of 8x8 blocks along a plane side of `size` samples: blocks start at 0, 7, 14, ...
/// while start + 7 < size (upstream's `y < height - 7`), so 0 below 8.
VMAFX_HOST_DEVICE inline int blocks_along(int size) { return size < 8 ? 0 : (size - 8) / 7 + 1; }

/// The twin's per-thread work (terms_kernel in psnr_hvs_cuda.cu), here so that the host tests
/// run the same indexing: block `block` of a plane with `blocks_x` blocks per row (raster
/// order: bx = block % blocks_x, by = block / blocks_x, top-left sample (7 bx, 7 by)), its
/// samples read from `ref` / `dist` (Sample words, rows ref_pitch / dist_pitch bytes apart),
/// its 64 terms written to out[8 * i + j]; the plane's terms in the CPU's summation order are
/// then block after block (out = plane_terms + 64 * block). plant_contraction /
/// plant_mirror_shift: the twin's planted kContraction (see block_terms) / kMirrorShift (the
/// block's last row read one row up); false outside the parity gate's tests.
template <typename Sample>
VMAFX_HOST_DEVICE inline void grid_block_terms(const unsigned char* ref, std::ptrdiff_t ref_pitch,
                                               const unsigned char* dist, std::ptrdiff_t dist_pitch, int blocks_x,
                                               std::size_t block, const PlaneTables& t, float* out,
                                               bool plant_contraction, bool plant_mirror_shift) {
    const int bx = static_cast<int>(block % static_cast<std::size_t>(blocks_x));
    const int by = static_cast<int>(block / static_cast<std::size_t>(blocks_x));
    const int x = 7 * bx, y = 7 * by;
    std::int32_t s[64];
    std::int32_t d[64];
    for (int i = 0; i < 8; ++i) {
        int row = y + i;
        // Planted regression (parity-gate tests only): the block's last row read one row up.
        if (plant_mirror_shift && i == 7) row -= 1;
        const auto* r = reinterpret_cast<const Sample*>(ref + static_cast<std::ptrdiff_t>(row) * ref_pitch) + x;
        const auto* q = reinterpret_cast<const Sample*>(dist + static_cast<std::ptrdiff_t>(row) * dist_pitch) + x;
        for (int j = 0; j < 8; ++j) {
            s[i * 8 + j] = r[j];
            d[i * 8 + j] = q[j];
        }
    }
    block_terms(s, d, t, out, plant_contraction);
}

}  // namespace math

}  // namespace vmafx::psnr_hvs
