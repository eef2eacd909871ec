// Per-target helper shared by the SIMD kernels (Google Highway "-inl.h" convention: included
// once per target from inside a file that includes hwy/foreach_target.h, so it is re-entered
// for every HWY_TARGET).
//
// SumLanesWrapping: the sum of a vector's integer lanes modulo 2^bits, added in unsigned
// arithmetic. Highway's SumOfLanes reduces 64-bit lanes on AVX-512 through GCC's
// _mm512_reduce_add_epi64, which adds in signed C arithmetic: a row sum the reference keeps
// modulo 2^64 (uint64_t) may pass through values above INT64_MAX there, which is undefined
// behaviour (UndefinedBehaviorSanitizer reports it). Adding the stored lanes as unsigned gives
// the same bits with no undefined step; it runs once a row, so it costs nothing measurable.
// For signed lanes the result is the true sum wherever that fits the type (as the reference's).
#if defined(VMAFX_FEATURE_SIMD_SUM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef VMAFX_FEATURE_SIMD_SUM_INL_H_
#undef VMAFX_FEATURE_SIMD_SUM_INL_H_
#else
#define VMAFX_FEATURE_SIMD_SUM_INL_H_
#endif

#include <cstddef>
#include <type_traits>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace vmafx::HWY_NAMESPACE {

/// Sum of the lanes of v (integer lanes of the descriptor d) modulo 2^(8 * sizeof(lane)).
template <class D>
HWY_INLINE hwy::HWY_NAMESPACE::TFromD<D> SumLanesWrapping(D d, hwy::HWY_NAMESPACE::Vec<D> v) {
    namespace hn = hwy::HWY_NAMESPACE;
    using T = hn::TFromD<D>;
    static_assert(std::is_integral_v<T>, "SumLanesWrapping adds integer lanes");
    using U = std::make_unsigned_t<T>;
    HWY_ALIGN T lanes[hn::MaxLanes(d)];
    hn::Store(v, d, lanes);
    U sum = 0;
    for (std::size_t i = 0; i < hn::Lanes(d); ++i) sum = static_cast<U>(sum + static_cast<U>(lanes[i]));
    return static_cast<T>(sum);
}

}  // namespace vmafx::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // VMAFX_FEATURE_SIMD_SUM_INL_H_
