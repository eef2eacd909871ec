// The CUDA twin of float_motion as host-testable code: the per-thread work of its kernels
// (float_motion_cuda.cu) as VMAFX_HOST_DEVICE functions built on the CPU's own arithmetic
// (common/float_image_math.hpp, float_motion_math.hpp), with the planted regressions inside them.
// The kernels only index and call these; float_motion_cuda_test.cpp runs the same functions on
// the host, in the kernels' decomposition, against the CPU extractor. No CUDA header needed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/host_device.hpp"
#include "feature/common/float_image_math.hpp"
#include "feature/common/planted_arith.hpp"
#include "feature/float_motion/float_motion_math.hpp"
#include "gpu/twin.hpp"

namespace vmafx::float_motion {

/// Largest blur.
inline constexpr int kMaxTaps = 5;

/// The blur's taps (float_motion_math.hpp's blur_tap), passed to the kernels by value.
struct Blur {
    float f[kMaxTaps];
    int taps;
};

/// The blur of motion_filter_size `filter_size`.
inline Blur blur_of(int filter_size) {
    Blur b{};
    b.taps = blur_taps(filter_size);
    for (int k = 0; k < b.taps; ++k) b.f[k] = blur_tap(filter_size, k);
    return b;
}

/// The planted regressions of the twin (parity-gate tests only; all off in normal runs):
/// fma, the blur's taps (both passes) as fused multiply-adds (kContraction); mirror, the rows
/// above the top mirrored one row further in (kMirrorShift); toward_zero, the vertical adds
/// rounded toward 0 (kRoundingConstant); order, the row sums by float atomics, device only
/// (kReductionOrder).
using Plant = planted::Flags;

/// The vertical pass at (x, y) of the h-row plane `plane` (rows `pitch` bytes apart): the float
/// sum from 0 of f[k] * sample(mirror(y - r + k, h), x) for k in order, each sample picture_copy's
/// float with offset -128 (Sample: uint16_t where `scaler` != 0, i.e. 10, 12, 16 bits; uint8_t
/// otherwise, the row's bytes, upstream's reading of 8, 9, 11, 13..15 bits).
template <typename Sample>
VMAFX_HOST_DEVICE inline float vertical_at(const unsigned char* plane, std::ptrdiff_t pitch, int h, int x, int y,
                                           float scaler, const Blur& blur, const Plant& plant) {
    const int r = blur.taps / 2;
    float acc = 0.0f;
    for (int k = 0; k < blur.taps; ++k) {
        int row = floatimg::mirror(y - r + k, h);
        if (plant.mirror && y - r + k < 0) row += 1;  // planted (parity-gate tests only)
        const Sample s = reinterpret_cast<const Sample*>(plane + static_cast<std::ptrdiff_t>(row) * pitch)[x];
        const float v = floatimg::picture_copy_sample(static_cast<std::int32_t>(s), scaler, -128.0f);
        if (plant.fma) acc = planted::fma(blur.f[k], v, acc);
        else if (plant.toward_zero) acc = planted::add_rz(acc, blur.f[k] * v);
        else acc = floatimg::convolve_tap(acc, blur.f[k], v);
    }
    return acc;
}

/// The horizontal pass at column x of a w-wide row `row` of vertical results: the float sum from
/// 0 of f[k] * row[mirror(x - r + k, w)] for k in order.
/// Planted kContraction (plant.fma): every tap as a fused multiply-add, as in vertical_at.
VMAFX_HOST_DEVICE inline float horizontal_at(const float* row, int w, int x, const Blur& blur, const Plant& plant) {
    const int r = blur.taps / 2;
    float acc = 0.0f;
    for (int k = 0; k < blur.taps; ++k) {
        const float v = row[floatimg::mirror(x - r + k, w)];
        acc = plant.fma ? planted::fma(blur.f[k], v, acc) : floatimg::convolve_tap(acc, blur.f[k], v);
    }
    return acc;
}

/// The half-size SAD's term at one output: each of the w-wide blurs a and b scaled by the CPU's
/// bilinear_sample between rows y1, y2 (fraction dy) and columns x1, x2 (fraction dx), then
/// their abs_difference.
VMAFX_HOST_DEVICE inline float scaled_term_at(const float* a, const float* b, int w, int x1, int x2, float dx, int y1,
                                              int y2, float dy) {
    const std::size_t r1 = static_cast<std::size_t>(y1) * static_cast<std::size_t>(w);
    const std::size_t r2 = static_cast<std::size_t>(y2) * static_cast<std::size_t>(w);
    const float as = floatimg::bilinear_sample(dy, dx, a[r1 + x1], a[r1 + x2], a[r2 + x1], a[r2 + x2]);
    const float bs = floatimg::bilinear_sample(dy, dx, b[r1 + x1], b[r1 + x2], b[r2 + x1], b[r2 + x2]);
    return abs_difference(as, bs);
}

}  // namespace vmafx::float_motion
