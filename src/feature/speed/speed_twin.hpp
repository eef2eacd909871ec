// The per-sample work of SpEED's CUDA twins' kernels (speed_cuda.cuh), as host/device functions
// so that a host test (speed_twin_test.cpp) runs the very code the kernels run against the CPU
// reference (floatimg::scale, floatimg::convolve, speed::band_pass). Each walks a strided float
// picture through pointers (outside the shared-arithmetic subset) and calls the subset's
// arithmetic (float_image_math.hpp, speed_math.hpp) in the CPU's order. No CUDA header: host
// code includes it too.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "base/host_device.hpp"
#include "feature/common/float_image_math.hpp"
#include "feature/common/float_image_twin.hpp"
#include "feature/common/planted_arith.hpp"
#include "feature/speed/speed_kernels.hpp"
#include "feature/speed/speed_math.hpp"

namespace vmafx::speed {

/// A planted defect as the kernels take it (all false outside the parity gate's tests): fma, the
/// anti-alias horizontal sum fused into fma (kContraction); mirror, the anti-alias vertical
/// mirror one row off above the top edge (kMirrorShift); toward_zero, the anti-alias vertical
/// sum rounded toward zero (kRoundingConstant); order, the local-mean taps summed in reverse
/// order (kReductionOrder).
using TwinPlant = planted::Flags;

/// The anti-alias convolution of src (w x h, rows `stride` floats apart) with `filter` (`taps`
/// floats, odd, radius <= w - 1 and h - 1) at the decimated sample (ox, oy), i.e. at (16 ox,
/// 16 oy): for each tap column c in order, the vertical float sum from 0 of filter[q] * sample
/// over the tap rows q in order, then the float sum from 0 of filter[c] * those, with the
/// convolutions' mirror: floatimg::convolve's value there.
VMAFX_HOST_DEVICE inline float anti_aliased_sample(const float* src, std::ptrdiff_t stride, int w, int h,
                                                   const float* filter, int taps, int ox, int oy, TwinPlant plant) {
    const int x = ox * kDecimation, y = oy * kDecimation;
    const int r = taps / 2;
    float sum = 0.0f;
    for (int c = 0; c < taps; ++c) {
        const int column = floatimg::mirror(x - r + c, w);
        float t = 0.0f;
        for (int q = 0; q < taps; ++q) {
            int row = floatimg::mirror(y - r + q, h);
            if (plant.mirror && y - r + q < 0) row += 1;
            const float s = src[row * stride + column];
            t = plant.toward_zero ? planted::add_rz(t, filter[q] * s) : floatimg::convolve_tap(t, filter[q], s);
        }
        sum = plant.fma ? planted::fma(filter[c], t, sum) : floatimg::convolve_tap(sum, filter[c], t);
    }
    return sum;
}

/// The band-pass sample (x, y) of the decimated picture src (w x h, rows w floats apart): the
/// sample minus its local-mean convolution with `filter` (`taps` floats; the same sums as
/// anti_aliased_sample at (x, y) itself).
VMAFX_HOST_DEVICE inline float band_pass_at(const float* src, int w, int h, const float* filter, int taps, int x,
                                            int y, TwinPlant plant) {
    const int r = taps / 2;
    float sum = 0.0f;
    for (int cc = 0; cc < taps; ++cc) {
        const int c = plant.order ? taps - 1 - cc : cc;
        const int column = floatimg::mirror(x - r + c, w);
        float t = 0.0f;
        for (int qq = 0; qq < taps; ++qq) {
            const int q = plant.order ? taps - 1 - qq : qq;
            const int row = floatimg::mirror(y - r + q, h);
            t = floatimg::convolve_tap(t, filter[q], src[static_cast<std::ptrdiff_t>(row) * w + column]);
        }
        sum = floatimg::convolve_tap(sum, filter[c], t);
    }
    return band_pass_sample(src[static_cast<std::ptrdiff_t>(y) * w + x], sum);
}

/// The covariance matrix's size: 25 positions of the 5 x 5 block, 325 pairs (xi >= yi), and the
/// 17 chains of each pair's sum (speed_kernels.hpp: 8 lanes of the first fused chain, 8 of the
/// second, the plain rest).
inline constexpr int kPositions = 25;
inline constexpr int kPairs = kPositions * (kPositions + 1) / 2;
inline constexpr int kChains = 17;

/// The pair (xi, yi), yi <= xi, of pair index p = xi (xi + 1) / 2 + yi (0 <= p < kPairs).
VMAFX_HOST_DEVICE inline void covariance_pair(int p, int& xi, int& yi) {
    xi = 0;
    while ((xi + 1) * (xi + 2) / 2 <= p) ++xi;
    yi = p - xi * (xi + 1) / 2;
}

/// The float mean of the sub-picture of `data` (rows `stride` floats apart) at block position
/// (r, c): the float sum of its sub_h x sub_w samples in row-major order from 0, divided by the
/// float count (covariance_matrix's step).
VMAFX_HOST_DEVICE inline float shifted_mean(const float* data, std::ptrdiff_t stride, int r, int c, int sub_h,
                                            int sub_w) {
    const float count = static_cast<float>(static_cast<std::size_t>(sub_w) * static_cast<std::size_t>(sub_h));
    float sum = 0.0f;
    for (int i = 0; i < sub_h; ++i)
        for (int j = 0; j < sub_w; ++j) sum += data[static_cast<std::ptrdiff_t>(r + i) * stride + c + j];
    return sum / count;
}

/// Chain `chain` of covariance_sum_reference(x, y, stride, h, w, mx, my): 0..7 the first fused
/// chain's lane `chain` (columns j + chain of each 16-run and of the 8-run), 8..15 the second's
/// (columns j + chain of each 16-run), 16 the plain rest (covariance_add_rest of each row); each
/// over the rows in order, from 0. covariance_reduce of the 16 lanes and the rest is the sum.
/// `reverse`: the planted kReductionOrder (the rows in reverse order).
VMAFX_HOST_DEVICE inline double covariance_chain(const float* x, const float* y, std::ptrdiff_t stride, int h, int w,
                                                 double mx, double my, int chain, bool reverse) {
    double acc = 0.0;
    for (int ii = 0; ii < h; ++ii) {
        const int i = reverse ? h - 1 - ii : ii;
        const float* rx = x + static_cast<std::ptrdiff_t>(i) * stride;
        const float* ry = y + static_cast<std::ptrdiff_t>(i) * stride;
        int j = 0;
        for (; j + 15 < w; j += 16)
            if (chain < 16)
                acc = fma(static_cast<double>(rx[j + chain]) - mx, static_cast<double>(ry[j + chain]) - my, acc);
        for (; j + 7 < w; j += 8)
            if (chain < 8)
                acc = fma(static_cast<double>(rx[j + chain]) - mx, static_cast<double>(ry[j + chain]) - my, acc);
        if (chain == 16) covariance_add_rest(rx, ry, j, w, mx, my, acc);
    }
    return acc;
}

/// Element (xi, yi) and (yi, xi) of the covariance matrix `cov` (25 x 25 floats) from the 17
/// chains of pair p (chains[0..16]) and the sample count: float(covariance_reduce / count).
VMAFX_HOST_DEVICE inline void covariance_element(const double* chains, int p, double count, float* cov) {
    int xi = 0, yi = 0;
    covariance_pair(p, xi, yi);
    const double sum = covariance_reduce(chains, chains + 8, chains[16]);
    const float v = static_cast<float>(sum / count);
    cov[xi * kPositions + yi] = v;
    cov[yi * kPositions + xi] = v;
}

}  // namespace vmafx::speed
