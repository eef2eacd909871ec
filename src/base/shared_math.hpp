// The shared-arithmetic subset: the language that the *_math.hpp headers are written in, so that
// one text compiles as C++20 (the CPU reference), as CUDA (the twins) and as GLSL 4.60 with
// GL_EXT_shader_explicit_arithmetic_types (a Vulkan compute shader), with the same operations in
// the same order on each. docs/design.md "The shared-arithmetic subset" states the rules; in
// short:
//  - fixed-width integer types by their <stdint.h> names (int32_t, uint32_t, int64_t, uint64_t;
//    no arithmetic on 8- or 16-bit types, which C++ promotes to int and GLSL does not), float,
//    double, bool, int;
//  - casts as functional casts, T(x), for those single-word type names (C++: a static_cast;
//    GLSL: a constructor; integer narrowing wraps modulo 2^n on both, C++20 and SPIR-V
//    OpSConvert/OpUConvert/OpBitcast);
//  - every operation whose operands differ in width or signedness written with an explicit cast
//    (C++'s usual conversions and GLSL's implicit ones then have nothing to decide);
//  - double literals through VMAFX_D (GLSL's unsuffixed literal is a float; VMAFX_D(x) is
//    double(x) there, so x must be exactly a float: 0.0, 2.0, 32.0...), float literals with f; integer literals of 64 bits as int64_t(k) / uint64_t(k); no hex float literals;
//  - functions marked VMAFX_FN (VMAFX_CONSTEXPR_FN where C++ needs a constant expression),
//    constants VMAFX_CONST, out and in-out parameters through VMAFX_OUT / VMAFX_INOUT and
//    fixed-size arrays through VMAFX_IN_ARRAY / VMAFX_INOUT_ARRAY (C++: references; GLSL: copy
//    in, copy out; the subset never passes one object as two parameters, so the two agree);
//  - float division and square roots through vmafx_div_f / vmafx_div_d / vmafx_sqrt_f /
//    vmafx_sqrt_d (base/correctly_rounded.hpp: Vulkan's own are not correctly rounded);
//  - bit counting, rounding to even and bit casts through vmafx_clz32, vmafx_clz64,
//    vmafx_round_even, vmafx_float_bits / vmafx_bits_float and vmafx_double_bits /
//    vmafx_bits_double (defined here for each language);
//  - no templates, overloads, pointers, references elsewhere, auto, range-for, lambdas, enums,
//    default arguments, member initialisers, std:: calls; structs are plain aggregates; width
//    or float/double variants are separate functions named by suffix (_8/_16, _f/_d); variants
//    that differ only in their types are one .inc body included once per type, the type and
//    the suffix given by macros (gpu/sequential_sum_acc.inc);
//  - names within VMAFX_NAMESPACE_BEGIN(ns) / VMAFX_NAMESPACE_END (C++: vmafx::ns; GLSL has one
//    global namespace, so one shader includes one metric's header);
//  - include guards, not #pragma once (glslang does not implement it); C++-only adaptors
//    (templates that dispatch to the named variants, pointer-walking loops) sit in
//    `#if !VMAFX_GLSL` blocks and hold no arithmetic of their own.
// A shader defines VMAFX_GLSL 1 before including a header (and enables
// GL_GOOGLE_include_directive and GL_EXT_shader_explicit_arithmetic_types); C++ and CUDA leave
// it undefined. Floating-point contraction is off on all three: -ffp-contract=off (C++),
// --fmad=false (CUDA), and on the GLSL side every floating operation of the SPIR-V decorated
// NoContraction (tools/spirv_strict.py; `precise` does not reach out-parameters).
#ifndef VMAFX_BASE_SHARED_MATH_HPP
#define VMAFX_BASE_SHARED_MATH_HPP

#if !defined(VMAFX_GLSL)
#define VMAFX_GLSL 0
#endif

#if VMAFX_GLSL

#define VMAFX_FN
#define VMAFX_CONSTEXPR_FN
#define VMAFX_CONST const
#define VMAFX_D(x) double(x)
#define VMAFX_IN(T, name) in T name
#define VMAFX_OUT(T, name) out T name
#define VMAFX_INOUT(T, name) inout T name
#define VMAFX_IN_ARRAY(T, name, n) in T name[n]
#define VMAFX_INOUT_ARRAY(T, name, n) inout T name[n]
#define VMAFX_NAMESPACE_BEGIN(ns)
#define VMAFX_NAMESPACE_END

/// Leading zero bits of x (32 for 0).
int vmafx_clz32(uint32_t x) { return 31 - findMSB(x); }
/// Leading zero bits of x (64 for 0); findMSB takes 32-bit operands only.
int vmafx_clz64(uint64_t x) {
    uint32_t hi = uint32_t(x >> 32);
    return hi != 0u ? 31 - findMSB(hi) : 63 - findMSB(uint32_t(x));
}
/// x rounded to the nearest integer, ties to even, with x's sign: (x + 2^52) - 2^52 (x's sign on
/// 2^52), exact for |x| < 2^52 under round-to-nearest-even, which the twins require of the device
/// (tools/spirv_strict.py's float controls; vulkan/float_probe.cpp); larger x are integers. Not
/// the device's roundEven: lavapipe (Mesa 22.3.6) rounds double halves toward zero (63427.5 ->
/// 63427; tests/shader's SharedMathShader.AdmMathMatchesCpuBitForBit).
double vmafx_round_even(double x) {
    const double big = 4503599627370496.0lf;  // 2^52
    if (!(abs(x) < big)) return x;
    const double t = x < 0.0lf ? -big : big;
    const double r = (x + t) - t;
    return uint64BitsToDouble((doubleBitsToUint64(r) & 0x7fffffffffffffffUL) |
                              (doubleBitsToUint64(x) & 0x8000000000000000UL));
}
/// The bits of a float / the float of bits (IEEE binary32).
uint32_t vmafx_float_bits(float x) { return floatBitsToUint(x); }
float vmafx_bits_float(uint32_t b) { return uintBitsToFloat(b); }
/// The bits of a double / the double of bits (IEEE binary64).
uint64_t vmafx_double_bits(double x) { return doubleBitsToUint64(x); }
double vmafx_bits_double(uint64_t b) { return uint64BitsToDouble(b); }
/// The device's own square root (not correctly rounded: base/correctly_rounded.hpp).
float vmafx_native_sqrt_f(float x) { return sqrt(x); }
double vmafx_native_sqrt_d(double x) { return sqrt(x); }

#else  // C++20 and CUDA

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/host_device.hpp"

/// A function of the subset (inline; __host__ __device__ under nvcc).
#define VMAFX_FN VMAFX_HOST_DEVICE inline
/// A function of the subset that C++ callers use in constant expressions.
#define VMAFX_CONSTEXPR_FN VMAFX_HOST_DEVICE constexpr
/// A named constant (C++: inline constexpr; GLSL: const).
#define VMAFX_CONST inline constexpr
/// A double literal whose value is exactly a float (GLSL: double(x) of the float literal; its
/// lf suffix cannot be pasted on by glslang's preprocessor).
#define VMAFX_D(x) x
/// A read-only aggregate parameter of type T (C++: const T&; GLSL: a copy).
#define VMAFX_IN(T, name) const T& name
/// An out parameter of type T (C++: T&).
#define VMAFX_OUT(T, name) T& name
/// An in-out parameter of type T (C++: T&).
#define VMAFX_INOUT(T, name) T& name
/// An input array of n elements of T (C++: a reference to const T[n]).
#define VMAFX_IN_ARRAY(T, name, n) const T (&name)[n]
/// An in-out array of n elements of T (C++: a reference to T[n]).
#define VMAFX_INOUT_ARRAY(T, name, n) T (&name)[n]
/// Opens / closes namespace vmafx::ns (nothing in GLSL).
#define VMAFX_NAMESPACE_BEGIN(ns) namespace vmafx::ns {
#define VMAFX_NAMESPACE_END }

/// Leading zero bits of x (32 for 0).
VMAFX_FN int vmafx_clz32(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __clz(static_cast<int>(x));
#else
    return x == 0 ? 32 : __builtin_clz(x);
#endif
}

/// Leading zero bits of x (64 for 0).
VMAFX_FN int vmafx_clz64(uint64_t x) {
#if defined(__CUDA_ARCH__)
    return __clzll(static_cast<long long>(x));
#else
    return x == 0 ? 64 : __builtin_clzll(x);
#endif
}

/// x rounded to the nearest integer, ties to even (nearbyint in the default rounding mode).
VMAFX_FN double vmafx_round_even(double x) { return nearbyint(x); }

/// The bits of a float (IEEE binary32), and the float of bits.
VMAFX_FN uint32_t vmafx_float_bits(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}
VMAFX_FN float vmafx_bits_float(uint32_t b) {
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}
/// The bits of a double (IEEE binary64), and the double of bits.
VMAFX_FN uint64_t vmafx_double_bits(double x) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}
VMAFX_FN double vmafx_bits_double(uint64_t b) {
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/// The library's square root (correctly rounded, IEEE 754).
VMAFX_FN float vmafx_native_sqrt_f(float x) { return sqrtf(x); }
VMAFX_FN double vmafx_native_sqrt_d(double x) { return sqrt(x); }

#endif

// Division and square root, correctly rounded in every language: vmafx_div_f, vmafx_div_d,
// vmafx_sqrt_f, vmafx_sqrt_d (the shared headers' only divisions and roots of floats).
#include "base/correctly_rounded.hpp"

#endif  // VMAFX_BASE_SHARED_MATH_HPP
