// SIMD covariance sum of SpEED (speed_kernels.hpp; Google Highway, one source for every target,
// the best one the CPU supports picked at run time): the reference's two 8-lane double chains
// held in vectors of up to 8 doubles (8 / lanes vectors per chain), lane l of the chain in lane
// l % lanes of vector l / lanes, each lane a chain of fused multiply-adds (hn::MulAdd where the
// reference calls std::fma, nothing else fused) over the same samples in the same order. At the
// end the lanes are stored and reduced, and the rows' leftover samples summed, exactly as the
// reference does. Targets without a native FMA (where MulAdd would round twice) and scalable
// targets (lane counts known only at run time) run the reference. tests/test_simd_kernels.cpp
// runs every compiled target against the reference bit for bit.
#include <cstddef>
#include <cstdint>

#include "feature/speed/speed_kernels.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "feature/speed/speed_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace vmafx::speed::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

#if HWY_NATIVE_FMA && !HWY_HAVE_SCALABLE && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
double CovarianceSum(const float* x, const float* y, int stride, int h, int w, double mx, double my) {
    const hn::CappedTag<double, 8> d;
    const hn::Rebind<float, decltype(d)> df;
    using V = hn::Vec<decltype(d)>;
    constexpr int kLanes = static_cast<int>(hn::MaxLanes(d));
    constexpr int kGroups = 8 / kLanes;  // vectors per 8-lane chain
    static_assert(kLanes * kGroups == 8);
    const V vmx = hn::Set(d, mx), vmy = hn::Set(d, my);
    V acc0[kGroups], acc1[kGroups];
    for (int g = 0; g < kGroups; ++g) acc0[g] = acc1[g] = hn::Zero(d);
    // (x[j..] - mx) and (y[j..] - my) of one vector of samples, in double.
    const auto dx = [&](const float* r, int j) { return hn::Sub(hn::PromoteTo(d, hn::LoadU(df, r + j)), vmx); };
    const auto dy = [&](const float* r, int j) { return hn::Sub(hn::PromoteTo(d, hn::LoadU(df, r + j)), vmy); };
    double tail = 0.0;
    for (int i = 0; i < h; ++i) {
        const float* rx = x + static_cast<std::ptrdiff_t>(i) * stride;
        const float* ry = y + static_cast<std::ptrdiff_t>(i) * stride;
        int j = 0;
        for (; j + 15 < w; j += 16)
            for (int g = 0; g < kGroups; ++g) {
                const int o = g * kLanes;
                acc0[g] = hn::MulAdd(dx(rx, j + o), dy(ry, j + o), acc0[g]);
                acc1[g] = hn::MulAdd(dx(rx, j + 8 + o), dy(ry, j + 8 + o), acc1[g]);
            }
        for (; j + 7 < w; j += 8)
            for (int g = 0; g < kGroups; ++g)
                acc0[g] = hn::MulAdd(dx(rx, j + g * kLanes), dy(ry, j + g * kLanes), acc0[g]);
        covariance_add_rest(rx, ry, j, w, mx, my, tail);
    }
    HWY_ALIGN double c0[8];
    HWY_ALIGN double c1[8];
    for (int g = 0; g < kGroups; ++g) {
        hn::Store(acc0[g], d, c0 + g * kLanes);
        hn::Store(acc1[g], d, c1 + g * kLanes);
    }
    return covariance_reduce(c0, c1, tail);
}
#else
double CovarianceSum(const float* x, const float* y, int stride, int h, int w, double mx, double my) {
    return covariance_sum_reference(x, y, stride, h, w, mx, my);
}
#endif

std::int64_t Target() { return HWY_TARGET; }

}  // namespace vmafx::speed::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vmafx::speed {

HWY_EXPORT(CovarianceSum);
HWY_EXPORT(Target);

double covariance_sum_simd(const float* x, const float* y, int stride, int h, int w, double mx, double my) {
    return HWY_DYNAMIC_DISPATCH(CovarianceSum)(x, y, stride, h, w, mx, my);
}

std::int64_t simd_target() { return HWY_DYNAMIC_DISPATCH(Target)(); }

}  // namespace vmafx::speed
#endif  // HWY_ONCE
