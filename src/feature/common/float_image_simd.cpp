// SIMD row kernels of the separable float convolution (float_image_kernels.hpp; Google Highway,
// one source for every target, the best one the CPU supports picked at run time): the same
// floats as the scalar reference in float_image.cpp, one output sample per lane. Each lane
// keeps its sum in a register and adds filter[k] * tap for k = 0, 1, ... to it from 0: the
// reference's operations in the reference's order (a multiply, then an add; nothing fused,
// the build has -ffp-contract=off). Whole vectors of samples run the SIMD code (four at a time,
// then one), the rest of a row the same sums one sample at a time; nothing is read or written
// outside the rows (t's mirrored borders included). tests/test_simd_kernels.cpp runs every
// compiled target against the reference bit for bit.
#include <cstddef>
#include <cstdint>

#include "feature/common/float_image_kernels.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "feature/common/float_image_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace vmafx::floatimg::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

/// Tap of the vertical pass at column j of rows s (and s2 for kCross), one sample.
template <Product P>
HWY_INLINE float tap1(const float* s, const float* s2, int j) {
    if constexpr (P == Product::kPlain) return s[j];
    else if constexpr (P == Product::kSquare) return s[j] * s[j];
    else return s[j] * s2[j];
}

/// The same, a vector of columns from j.
template <Product P>
HWY_INLINE VF tap(DF d, const float* s, const float* s2, int j) {
    const VF v = hn::LoadU(d, s + j);
    if constexpr (P == Product::kPlain) return v;
    else if constexpr (P == Product::kSquare) return hn::Mul(v, v);
    else return hn::Mul(v, hn::LoadU(d, s2 + j));
}

/// out[j] = the float sum, from 0, of filter[k] * tap for k = 0..taps-1 and j in [0, width):
/// `vtap(d, k, j)` gives the taps k of the vector of outputs from j, `tap(k, j)` that of one.
template <class VTap, class Tap>
HWY_INLINE void filter_row(const float* filter, int taps, int width, float* out, const VTap& vtap, const Tap& tap) {
    const DF d;
    const int n = static_cast<int>(hn::Lanes(d));
    int j = 0;
    for (; j + 4 * n <= width; j += 4 * n) {
        VF a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
        for (int k = 0; k < taps; ++k) {
            const VF c = hn::Set(d, filter[k]);
            a0 = hn::Add(a0, hn::Mul(c, vtap(d, k, j)));
            a1 = hn::Add(a1, hn::Mul(c, vtap(d, k, j + n)));
            a2 = hn::Add(a2, hn::Mul(c, vtap(d, k, j + 2 * n)));
            a3 = hn::Add(a3, hn::Mul(c, vtap(d, k, j + 3 * n)));
        }
        hn::StoreU(a0, d, out + j);
        hn::StoreU(a1, d, out + j + n);
        hn::StoreU(a2, d, out + j + 2 * n);
        hn::StoreU(a3, d, out + j + 3 * n);
    }
    for (; j + n <= width; j += n) {
        VF a = hn::Zero(d);
        for (int k = 0; k < taps; ++k) a = hn::Add(a, hn::Mul(hn::Set(d, filter[k]), vtap(d, k, j)));
        hn::StoreU(a, d, out + j);
    }
    for (; j < width; ++j) {
        float a = 0;
        for (int k = 0; k < taps; ++k) a += filter[k] * tap(k, j);
        out[j] = a;
    }
}

template <Product P>
void vertical_row(const float* filter, int taps, const float* const* rows, const float* const* rows2, int width,
                  float* t) {
    const float* const none = nullptr;
    filter_row(
        filter, taps, width, t,
        [&](DF d, int k, int j) { return tap<P>(d, rows[k], P == Product::kCross ? rows2[k] : none, j); },
        [&](int k, int j) { return tap1<P>(rows[k], P == Product::kCross ? rows2[k] : none, j); });
}

void horizontal_row(const float* filter, int taps, const float* t, int width, float* out) {
    const float* base = t - taps / 2;  // base[j + k]: tap k of output j
    filter_row(
        filter, taps, width, out, [&](DF d, int k, int j) { return hn::LoadU(d, base + k + j); },
        [&](int k, int j) { return base[k + j]; });
}

}  // namespace

void Vertical(const float* filter, int taps, const float* const* rows, const float* const* rows2, Product product,
              int width, float* t) {
    switch (product) {
    case Product::kPlain: vertical_row<Product::kPlain>(filter, taps, rows, rows2, width, t); break;
    case Product::kSquare: vertical_row<Product::kSquare>(filter, taps, rows, rows2, width, t); break;
    case Product::kCross: vertical_row<Product::kCross>(filter, taps, rows, rows2, width, t); break;
    }
}

void Horizontal(const float* filter, int taps, const float* t, int width, float* out) {
    horizontal_row(filter, taps, t, width, out);
}

std::int64_t Target() { return HWY_TARGET; }

}  // namespace vmafx::floatimg::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vmafx::floatimg {

HWY_EXPORT(Vertical);
HWY_EXPORT(Horizontal);
HWY_EXPORT(Target);

namespace {
void vertical(const float* filter, int taps, const float* const* rows, const float* const* rows2, Product product,
              int width, float* t) {
    HWY_DYNAMIC_DISPATCH(Vertical)(filter, taps, rows, rows2, product, width, t);
}
void horizontal(const float* filter, int taps, const float* t, int width, float* out) {
    HWY_DYNAMIC_DISPATCH(Horizontal)(filter, taps, t, width, out);
}
}  // namespace

const ConvolveKernels& simd_convolve_kernels() {
    static const ConvolveKernels kernels{"simd", vertical, horizontal};
    return kernels;
}

std::int64_t simd_target() { return HWY_DYNAMIC_DISPATCH(Target)(); }

}  // namespace vmafx::floatimg
#endif  // HWY_ONCE
