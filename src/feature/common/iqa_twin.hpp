// The CUDA twins of float_ssim and float_ms_ssim as host-testable code: the per-thread work of
// their kernels (iqa_cuda.cuh) as VMAFX_HOST_DEVICE functions built on the CPU's own arithmetic
// (iqa_math.hpp), the planted regressions inside them, and the shape of a twin's plan (pyramid,
// scored levels, term rows; each metric's own plan is in its folder: float_ssim/float_ssim_twin.hpp,
// float_ms_ssim/float_ms_ssim_twin.hpp). The kernels only index and call these;
// float_ssim/float_ssim_cuda_test.cpp runs the same functions on the host, in the kernels'
// decomposition, against the CPU extractors, and checks that each planted regression changes an
// output on the parity gate's inputs. No CUDA header needed.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "base/host_device.hpp"
#include "feature/common/float_image_math.hpp"
#include "feature/common/iqa.hpp"
#include "feature/common/iqa_math.hpp"
#include "gpu/twin.hpp"

namespace vmafx::iqa {

/// Maps the Gaussian filters in a twin: ref, cmp, ref*ref, cmp*cmp, ref*cmp.
inline constexpr int kMaps = 5;

/// The planted regressions of the twins (parity-gate tests only; all off in normal runs).
struct Plant {
    bool fma = false;       ///< kContraction: the horizontal pass as fused multiply-adds
    int mirror_shift = 0;   ///< kMirrorShift: decimation mirror (decimate_at's ShiftedBorder)...
    bool border = false;    ///< ...and the last window column's last tap one column left
    bool toward_zero = false;  ///< kRoundingConstant: ref*ref's vertical pass rounded toward 0

    static Plant of(PlantedDefect d) {
        Plant p;
        p.fma = d == PlantedDefect::kContraction;
        p.mirror_shift = d == PlantedDefect::kMirrorShift ? 1 : 0;
        p.border = d == PlantedDefect::kMirrorShift;
        p.toward_zero = d == PlantedDefect::kRoundingConstant;
        return p;
    }
};

/// The planted kMirrorShift's border for filter_pixel_with: the symmetric mirror, with `shift`
/// added to every index mirrored from below 0 (the twin's mutant; the CPU's math has no
/// test-only parameter).
struct ShiftedBorder {
    int shift;
    VMAFX_HOST_DEVICE int operator()(int i, int n) const { return mirror(i, n) + (i < 0 ? shift : 0); }
};

/// A twin's decimation output: iqa::filter_pixel, or with the planted ShiftedBorder where
/// `mirror_shift` (Plant::mirror_shift) is not 0.
VMAFX_HOST_DEVICE inline float decimate_at(const float* img, int w, int h, int x, int y, const float* kernel, int klen,
                                           int mirror_shift) {
    return mirror_shift != 0 ? filter_pixel_with(img, w, h, x, y, kernel, klen, ShiftedBorder{mirror_shift})
                             : filter_pixel(img, w, h, x, y, kernel, klen);
}

/// picture_copy's float of one luma sample with offset 0, as the IQA metrics read it: the CPU's
/// floatimg::picture_copy_sample (float(sample) / scaler + 0.0f, scaler 4, 16 or 256 at 10, 12,
/// 16 bits; float(sample) + 0.0f at 8 bits, scaler 0).
VMAFX_HOST_DEVICE inline float sample_float(unsigned sample, float scaler) {
    return floatimg::picture_copy_sample(static_cast<int32_t>(sample), scaler, 0.0f);
}

/// The double `d` rounded to float toward zero (the planted kRoundingConstant only).
VMAFX_HOST_DEVICE inline float round_toward_zero(double d) {
    float f = static_cast<float>(d);
    if (fabs(static_cast<double>(f)) > fabs(d)) f = nextafterf(f, 0.0f);
    return f;
}

/// The Gaussian's horizontal pass of the five maps at column x (< w - 10) of row y of a w x h
/// level pair (packed rows): out[m * plane + y * (w - 10) + x] = float(sum over taps k of
/// map_m(x + k) * tap_k), each product the float product of the map (the CPU's product maps:
/// ref*ref, cmp*cmp, ref*cmp in float) and the tap, added in double (add_product).
VMAFX_HOST_DEVICE inline void horizontal_at(const float* ref, const float* cmp, int w, int x, int y, float* out,
                                            std::size_t plane, Plant plant) {
    const int dw = w - kGaussianLen + 1;
    const float* r = ref + static_cast<std::ptrdiff_t>(y) * w + x;
    const float* c = cmp + static_cast<std::ptrdiff_t>(y) * w + x;
    double sum[kMaps] = {0.0, 0.0, 0.0, 0.0, 0.0};
    for (int k = 0; k < kGaussianLen; ++k) {
        // Planted kMirrorShift: the last window column's last tap one column to the left.
        const int j = plant.border && k == kGaussianLen - 1 && x == dw - 1 ? k - 1 : k;
        const float a = r[j], b = c[j];
        const float v[kMaps] = {a, b, a * a, b * b, a * b};
        const float tap = gaussian_tap(k);
        for (int m = 0; m < kMaps; ++m)
            sum[m] = plant.fma ? fma(static_cast<double>(v[m]), static_cast<double>(tap), sum[m])  // planted
                               : add_product(sum[m], v[m], tap);
    }
    const std::ptrdiff_t i = static_cast<std::ptrdiff_t>(y) * dw + x;
    for (int m = 0; m < kMaps; ++m) out[static_cast<std::ptrdiff_t>(m) * plane + i] = static_cast<float>(sum[m]);
}

/// The Gaussian's vertical pass of the five maps (horizontal_at's output, rows dw floats wide) at
/// window (x, y), the clamped variances and the covariance, and the window's terms
/// (window_terms) into rows[r * pitch + y * dw + x] for each TermRow r whose bit is set in
/// `row_mask`.
VMAFX_HOST_DEVICE inline void terms_at(const float* maps, std::size_t plane, int dw, int x, int y, double* rows,
                                       std::size_t pitch, unsigned row_mask, Plant plant) {
    float v[kMaps];
    for (int m = 0; m < kMaps; ++m) {
        const float* col = maps + static_cast<std::ptrdiff_t>(m) * plane + static_cast<std::ptrdiff_t>(y) * dw + x;
        double sum = 0.0;
        for (int k = 0; k < kGaussianLen; ++k) sum = add_product(sum, col[static_cast<std::ptrdiff_t>(k) * dw], gaussian_tap(k));
        v[m] = plant.toward_zero && m == 2 ? round_toward_zero(sum) : static_cast<float>(sum);  // planted
    }
    const float v1 = variance(v[2], v[0]);
    const float v2 = variance(v[3], v[1]);
    const float cov = covariance(v[4], v[0], v[1]);
    const WindowTerms t = window_terms(v[0], v[1], v1, v2, cov);
    const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(dw) + static_cast<std::size_t>(x);
    if (row_mask & (1u << kRowL)) rows[kRowL * pitch + i] = t.l;
    if (row_mask & (1u << kRowC)) rows[kRowC * pitch + i] = t.c;
    if (row_mask & (1u << kRowS)) rows[kRowS * pitch + i] = t.s;
    if (row_mask & (1u << kRowLcs)) rows[kRowLcs * pitch + i] = t.lcs;
}

/// What a twin computes: the pyramid (level 0: the luma as floats; level k: level k - 1
/// decimated by `factor` with the klen x klen `taps`, filter_pixel), the levels whose sums it
/// forms, in order, and the term rows it forms (first_row .. first_row + row_count - 1).
struct TwinPlan {
    int levels = 1;
    int factor = 1;
    std::vector<float> taps;
    int klen = 0;
    std::vector<int> scored;
    int first_row = 0;
    int row_count = kTermRows;

    /// Bit r set for each TermRow r formed.
    unsigned row_mask() const {
        unsigned mask = 0;
        for (int r = first_row; r < first_row + row_count; ++r) mask |= 1u << r;
        return mask;
    }
};

/// Where a twin keeps a frame's pictures, maps and terms (both backends): each pyramid level's
/// size {w, h} (level 0 the luma; level k decimated_size of level k - 1 by the plan's factor) and
/// offset in the packed pyramid of floats; the largest scored level's windows (dw x dh, dw =
/// w - 10) and horizontal-pass plane (dw x h); the term rows' pitch and the maps' plane, rounded
/// up to 32 elements.
struct TwinLayout {
    std::vector<std::array<int, 2>> size;
    std::vector<std::size_t> offset;
    std::size_t pyramid = 0;
    std::size_t max_windows = 1;
    std::size_t pitch = 0;        ///< doubles between term rows
    std::size_t cache_plane = 0;  ///< floats between the horizontal pass's maps

    TwinLayout(int width, int height, const TwinPlan& plan) {
        size.push_back({width, height});
        for (int k = 0; k < plan.levels; ++k) {
            if (k > 0)
                size.push_back({decimated_size(size[k - 1][0], plan.factor), decimated_size(size[k - 1][1], plan.factor)});
            offset.push_back(pyramid);
            pyramid += static_cast<std::size_t>(size[k][0]) * static_cast<std::size_t>(size[k][1]);
        }
        std::size_t max_cache = 1;
        for (const int k : plan.scored) {
            const std::size_t dw = static_cast<std::size_t>(size[k][0] - kGaussianLen + 1);
            const std::size_t dh = static_cast<std::size_t>(size[k][1] - kGaussianLen + 1);
            max_windows = std::max(max_windows, dw * dh);
            max_cache = std::max(max_cache, dw * static_cast<std::size_t>(size[k][1]));
        }
        pitch = (max_windows + 31) / 32 * 32;
        cache_plane = (max_cache + 31) / 32 * 32;
    }
};

}  // namespace vmafx::iqa
