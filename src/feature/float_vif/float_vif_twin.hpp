// The CUDA twin of float_vif as host-testable code: the per-thread work of its kernels
// (float_vif_cuda.cu) as VMAFX_HOST_DEVICE functions built on the CPU's own arithmetic
// (float_vif_math.hpp), with the planted regressions inside them, and the probe of the exhaustive
// log2 test. The kernels only index and call these; float_vif_cuda_test.cpp runs the same
// functions on the host, in the kernels' decomposition, against the CPU extractor. No CUDA
// header needed.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "base/host_device.hpp"
#include "feature/common/float_image_math.hpp"
#include "feature/common/float_image_twin.hpp"
#include "feature/common/planted_arith.hpp"
#include "feature/float_vif/float_vif_math.hpp"
#include "gpu/twin.hpp"

namespace vmafx::float_vif {

/// The maps the Gaussian filters at each scale, in the twin's plane order: mu1 (ref), mu2 (dis),
/// ref * ref, dis * dis, ref * dis.
inline constexpr int kMaps = 5;

/// The planted regressions of the twin (parity-gate tests only; all off in normal runs):
/// fma, mu1's vertical taps as fused multiply-adds (kContraction); mirror, the horizontal pass's
/// left mirror repeating the edge (kMirrorShift); toward_zero, ref*ref's horizontal adds rounded
/// toward 0 (kRoundingConstant); order, each row's terms summed last to first (kReductionOrder).
using Plant = planted::Flags;

/// The vertical pass of the plain convolution at (x, y) of a w x h image (packed): the float sum
/// from 0 of f[k] * src(x, mirror(y - r + k)), k = 0..fw-1 (floatimg::convolve's vertical pass).
VMAFX_HOST_DEVICE inline float vertical_plain_at(const float* src, int w, int h, int x, int y, const float* f, int fw) {
    const int r = fw / 2;
    float acc = 0.0f;
    for (int k = 0; k < fw; ++k)
        acc = tap_plain(acc, f[k], src[static_cast<std::ptrdiff_t>(mirror_index(y - r + k, h)) * w + x]);
    return acc;
}

/// The horizontal pass at column x of a row `t` of w floats: the float sum from 0 of
/// f[k] * t[mirror(x - r + k)] (floatimg::convolve's horizontal pass over the mirrored row).
/// Planted: `shift` reads the left border one sample nearer the edge (the edge repeated);
/// `toward_zero` rounds each add toward 0.
VMAFX_HOST_DEVICE inline float horizontal_at(const float* t, int w, int x, const float* f, int fw, bool shift,
                                             bool toward_zero) {
    const int r = fw / 2;
    float acc = 0.0f;
    for (int k = 0; k < fw; ++k) {
        const int i = x - r + k;
        const int m = shift && i < 0 ? -i - 1 : mirror_index(i, w);
        if (toward_zero) acc = planted::add_rz(acc, f[k] * t[m]);
        else acc = tap_plain(acc, f[k], t[m]);
    }
    return acc;
}

/// The vertical pass of the five maps at (x, y) of the w x h images ref and dis (packed), into
/// maps[m * plane + y * w + x] (mu1, mu2, ref^2, dis^2, ref*dis: floatimg::convolve's kPlain,
/// kSquare and kCross). Planted: `fma` contracts mu1's taps.
VMAFX_HOST_DEVICE inline void vertical_maps_at(const float* ref, const float* dis, int w, int h, int x, int y,
                                               const float* f, int fw, float* maps, std::size_t plane, bool fma) {
    const int r = fw / 2;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f;
    for (int k = 0; k < fw; ++k) {
        const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(mirror_index(y - r + k, h)) * w + x;
        const float c = f[k];
        const float s = ref[at];
        const float d = dis[at];
        a0 = fma ? planted::fma(c, s, a0) : tap_plain(a0, c, s);
        a1 = tap_plain(a1, c, d);
        a2 = tap_square(a2, c, s);
        a3 = tap_square(a3, c, d);
        a4 = tap_cross(a4, c, s, d);
    }
    const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x);
    maps[i] = a0;
    maps[plane + i] = a1;
    maps[2 * plane + i] = a2;
    maps[3 * plane + i] = a3;
    maps[4 * plane + i] = a4;
}

/// The horizontal pass of the five maps at (x, y) and the sample's terms (sample_terms):
/// terms[y * w + x] = num, terms[(h + y) * w + x] = den. Planted: `shift` and `toward_zero` as
/// horizontal_at (toward_zero on the ref^2 map only).
VMAFX_HOST_DEVICE inline void terms_at(const float* maps, std::size_t plane, int w, int h, int x, int y,
                                       const float* f, int fw, float limit, double sigma_nsq, float sigma_max_inv,
                                       float* terms, bool shift, bool toward_zero) {
    const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
    const float m1 = horizontal_at(maps + row, w, x, f, fw, shift, false);
    const float m2 = horizontal_at(maps + plane + row, w, x, f, fw, shift, false);
    const float xx = horizontal_at(maps + 2 * plane + row, w, x, f, fw, shift, toward_zero);
    const float yy = horizontal_at(maps + 3 * plane + row, w, x, f, fw, shift, false);
    const float xy = horizontal_at(maps + 4 * plane + row, w, x, f, fw, shift, false);
    const SampleTerms t = sample_terms(m1, m2, xx, yy, xy, limit, sigma_nsq, sigma_max_inv);
    terms[row + static_cast<std::size_t>(x)] = t.num;
    terms[static_cast<std::size_t>(h + y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)] = t.den;
}

/// The planted kReductionOrder: the float sum of a row of n terms, last to first.
VMAFX_HOST_DEVICE inline float reversed_row_sum(const float* terms, int n) {
    float acc = 0.0f;
    for (int j = n - 1; j >= 0; --j) acc += terms[j];
    return acc;
}

/// The CUDA backend's log2_approx of the `count` floats whose bits are first, first + 1, ...
/// (wrapping past 0xffffffff), into out[0 .. count) (host memory), computed on the default CUDA
/// device; for the exhaustive test (float_vif_cuda_test.cpp). Throws Error on CUDA errors.
/// Defined in float_vif_cuda.cu (CUDA builds only).
void device_log2_approx(std::uint32_t first, std::size_t count, float* out);

}  // namespace vmafx::float_vif
