// The CUDA twin's per-thread work of psnr_hvs (terms_kernel in psnr_hvs_cuda.cu), host and
// device, so that the host tests run the same indexing and the same planted regressions:
// grid_block_terms, and the planted kContraction's variant of psnr_hvs_math.hpp's block
// functions (psnr_hvs_block.inc under VMAFX_PSNR_HVS_PLANT_CONTRACTION, in math::planted). The
// CPU reference (psnr_hvs.cpp) does not include this header: its math has no test-only
// parameter.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/host_device.hpp"
#include "feature/psnr_hvs/psnr_hvs_math.hpp"

namespace vmafx::psnr_hvs::math::planted {
#define VMAFX_PSNR_HVS_PLANT_CONTRACTION 1
#include "feature/psnr_hvs/psnr_hvs_block.inc"
#undef VMAFX_PSNR_HVS_PLANT_CONTRACTION
}  // namespace vmafx::psnr_hvs::math::planted

namespace vmafx::psnr_hvs::math {

/// Block `block` of a plane with `blocks_x` blocks per row (raster order: bx = block % blocks_x,
/// by = block / blocks_x, top-left sample (7 bx, 7 by)), its samples read from `ref` / `dist`
/// (Sample words, rows ref_pitch / dist_pitch bytes apart), its 64 terms (block_terms) written
/// to out[8 * i + j]; the plane's terms in the CPU's summation order are then block after block
/// (out = plane_terms + 64 * block). kPlantContraction / plant_mirror_shift: the twin's planted
/// kContraction (planted::block_terms) / kMirrorShift (the block's last row read one row up);
/// false outside the parity gate's tests.
template <typename Sample, bool kPlantContraction>
VMAFX_HOST_DEVICE inline void grid_block_terms(const unsigned char* ref, std::ptrdiff_t ref_pitch,
                                               const unsigned char* dist, std::ptrdiff_t dist_pitch, int blocks_x,
                                               std::size_t block, const PlaneTables& t, float* out,
                                               bool plant_mirror_shift) {
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
    float terms[64];
    if constexpr (kPlantContraction) planted::block_terms(s, d, t, terms);
    else block_terms(s, d, t, terms);
    for (int k = 0; k < 64; ++k) out[k] = terms[k];
}

}  // namespace vmafx::psnr_hvs::math
