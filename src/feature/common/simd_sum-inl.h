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
//
// PairProductsAccumulate: acc + a[2i]*b[2i] + a[2i+1]*b[2i+1] in each 32-bit lane, modulo 2^32,
// for signed 16-bit lanes (pmaddwd and an add on x86). On HWY_AVX3_DL (Ice Lake, Sapphire
// Rapids, Zen 4 and later) it is one AVX-512 VNNI vpdpwssd, which computes the same sum modulo
// 2^32; Highway 1.0 does not use VNNI itself, and its AVX3_DL target attributes name avxvnni
// (the 256-bit VEX form, which Zen 4 lacks) instead of avx512vnni, so the instruction is
// written as asm (tests/vnni_encoding.py checks that no VEX-encoded VNNI was generated).
#if defined(VMAFX_FEATURE_SIMD_SUM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef VMAFX_FEATURE_SIMD_SUM_INL_H_
#undef VMAFX_FEATURE_SIMD_SUM_INL_H_
#else
#define VMAFX_FEATURE_SIMD_SUM_INL_H_
#endif

#include <cstddef>
#include <cstdint>
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

/// acc + a[2i] * b[2i] + a[2i+1] * b[2i+1] per 32-bit lane i of d (int32_t lanes), modulo
/// 2^32; a and b hold twice as many signed 16-bit lanes.
template <class D32>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<D32> PairProductsAccumulate(
    D32 d, hwy::HWY_NAMESPACE::Vec<D32> acc, hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Repartition<int16_t, D32>> a,
    hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Repartition<int16_t, D32>> b) {
    namespace hn = hwy::HWY_NAMESPACE;
    static_assert(std::is_same_v<hn::TFromD<D32>, int32_t>, "PairProductsAccumulate adds into int32_t lanes");
#if HWY_TARGET == HWY_AVX3_DL
    if constexpr (hn::MaxLanes(D32()) == 16) {
        __m512i sum = acc.raw;
        asm("vpdpwssd %2, %1, %0" : "+v"(sum) : "v"(a.raw), "v"(b.raw));
        return hn::Vec<D32>{sum};
    }
#endif
    hn::Vec<D32> odd = hn::Zero(d);
    const hn::Vec<D32> even = hn::ReorderWidenMulAccumulate(d, a, b, acc, odd);
    return hn::RearrangeToOddPlusEven(even, odd);
}

}  // namespace vmafx::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // VMAFX_FEATURE_SIMD_SUM_INL_H_
