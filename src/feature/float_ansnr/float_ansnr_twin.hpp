// The CUDA twin of float_ansnr as host-testable code: the per-thread work of its kernel
// (float_ansnr_cuda.cu) as VMAFX_HOST_DEVICE functions built on the CPU's own arithmetic
// (float_ansnr_math.hpp, common/float_image_math.hpp), with the planted regressions inside them.
// The kernel only indexes and calls these; float_ansnr_cuda_test.cpp runs the same functions on
// the host, in the kernel's decomposition, against the CPU extractor. No CUDA header needed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/host_device.hpp"
#include "feature/common/float_image_math.hpp"
#include "feature/common/planted_arith.hpp"
#include "feature/float_ansnr/float_ansnr_math.hpp"
#include "gpu/twin.hpp"

namespace vmafx::float_ansnr {

/// The two filters' weights (float_ansnr_math.hpp's ref_weight, dist_weight), row-major, passed
/// to the kernel by value.
struct Weights {
    float ref[kRefTaps * kRefTaps];
    float dist[kDistTaps * kDistTaps];
};

/// The weights as the CPU's tables hold them.
inline Weights weights() {
    Weights w{};
    for (int fi = 0; fi < kRefTaps; ++fi)
        for (int fj = 0; fj < kRefTaps; ++fj) w.ref[fi * kRefTaps + fj] = ref_weight(fi, fj);
    for (int fi = 0; fi < kDistTaps; ++fi)
        for (int fj = 0; fj < kDistTaps; ++fj) w.dist[fi * kDistTaps + fj] = dist_weight(fi, fj);
    return w;
}

/// The planted regressions of the twin (parity-gate tests only; all off in normal runs):
/// fma, both filters' products as fused multiply-adds (kContraction); mirror, the rows above the
/// top reflected one further in (kMirrorShift); toward_zero, the kernel rows' sums added rounding
/// toward 0 (kRoundingConstant); order, the row sums by float atomics, device only (kReductionOrder).
using Plant = planted::Flags;

/// The Taps x Taps filter (3: the reference's, 5: the distorted picture's) of the w x h plane
/// `plane` (Sample words, rows `pitch` bytes apart; 8 bits uint8_t, 10, 12, 16 bits uint16_t
/// with picture_copy's divisor `scaler`) at (x, y): the reflected window gathered as the CPU
/// gathers it, each sample picture_copy's float with offset -128, then the CPU's filter3_at /
/// filter5_at, or its planted variants.
template <int Taps, typename Sample>
VMAFX_HOST_DEVICE inline float filtered_at(const unsigned char* plane, std::ptrdiff_t pitch, int w, int h, int x, int y,
                                           float scaler, const float (&f)[Taps * Taps], const Plant& plant) {
    constexpr int r = Taps / 2;
    float window[Taps * Taps];
    for (int fi = 0; fi < Taps; ++fi) {
        int row = reflect(y - r + fi, h);
        if (plant.mirror && y - r + fi < 0) row += 1;  // planted (parity-gate tests only)
        const Sample* p = reinterpret_cast<const Sample*>(plane + static_cast<std::ptrdiff_t>(row) * pitch);
        for (int fj = 0; fj < Taps; ++fj)
            window[fi * Taps + fj] =
                floatimg::picture_copy_sample(static_cast<std::int32_t>(p[reflect(x - r + fj, w)]), scaler, -128.0f);
    }
    if (!plant.fma && !plant.toward_zero) {
        if constexpr (Taps == kRefTaps) return filter3_at(f, window);
        else return filter5_at(f, window);
    }
    // Planted variants (parity-gate tests only).
    float accum = 0.0f;
    for (int fi = 0; fi < Taps; ++fi) {
        float inner = 0.0f;
        for (int fj = 0; fj < Taps; ++fj)
            inner = plant.fma ? planted::fma(f[fi * Taps + fj], window[fi * Taps + fj], inner)
                              : inner + f[fi * Taps + fj] * window[fi * Taps + fj];
        accum = plant.toward_zero ? planted::add_rz(accum, inner) : accum + inner;
    }
    return accum;
}

}  // namespace vmafx::float_ansnr
