// The float image core's work per output sample that the GPU twins of float_vif and SpEED run,
// as host/device functions walking strided float pictures through pointers (outside the
// shared-arithmetic subset), with the subset's arithmetic (float_image_math.hpp) in the CPU's
// order, so that host tests run the very code the kernels run against floatimg::scale. No CUDA
// header: host code includes it too.
#pragma once

#include <cstddef>

#include "base/host_device.hpp"
#include "feature/common/float_image_math.hpp"

namespace vmafx::floatimg {

/// Sample (x, y) of a picture rescaled by floatimg::scale, from the tables of
/// floatimg::scale_taps for the columns (x_index, x_weight) and the rows (y_index, y_weight),
/// `taps` each (1 nearest, 2 bilinear, 4 bicubic, 9 lanczos4), of `src` (rows `stride` floats
/// apart): the CPU scaler's value. Its arithmetic is float_image_math.hpp's: bilinear_sample; the
/// bicubic and lanczos4 sums rows outer, columns inner, from 0 (tap_weight, add_tap); lanczos4
/// divided by the sum of its weights. Upstream: the OpenCV-style resize of speed.c / vif_tools.c.
VMAFX_HOST_DEVICE inline float scaled_sample(const float* src, std::ptrdiff_t stride, int x, int y,
                                             const int* x_index, const float* x_weight, const int* y_index,
                                             const float* y_weight, int taps) {
    const int* xi = x_index + static_cast<std::ptrdiff_t>(x) * taps;
    const float* xw = x_weight + static_cast<std::ptrdiff_t>(x) * taps;
    const int* yi = y_index + static_cast<std::ptrdiff_t>(y) * taps;
    const float* yw = y_weight + static_cast<std::ptrdiff_t>(y) * taps;
    if (taps == 1) return src[yi[0] * stride + xi[0]];
    if (taps == 2) {
        const float* r1 = src + yi[0] * stride;
        const float* r2 = src + yi[1] * stride;
        return bilinear_sample(yw[0], xw[0], r1[xi[0]], r1[xi[1]], r2[xi[0]], r2[xi[1]]);
    }
    float value = 0.0f, weight_sum = 0.0f;
    for (int j = 0; j < taps; ++j)
        for (int i = 0; i < taps; ++i) {
            const float w = tap_weight(xw[i], yw[j]);
            weight_sum += w;
            value = add_tap(value, src[yi[j] * stride + xi[i]], w);
        }
    return taps == 4 ? value : value / weight_sum;  // bicubic: the sum; lanczos4: normalised
}

}  // namespace vmafx::floatimg
