// vmafx's own library math: the functions whose results the golden values depend on, computed
// with the bits that the golden machine's C library gives (Debian 12: glibc 2.36 on x86-64 with
// FMA, where glibc's ifunc picks the variants compiled with -mfma -mavx2), on any machine and any
// C library. Issue 25, item 3; docs/metrics.md, "Library math calls (libm)", lists every call
// and which of them these functions pin.
//
// The algorithms are Szabolcs Nagy's table-driven powf, exp and log2 (Arm optimized-routines,
// MIT OR Apache-2.0 WITH LLVM-exception; in glibc since 2.28 as
// sysdeps/ieee754/flt-32/e_powf.c, dbl-64/e_exp.c, dbl-64/e_log2.c). glibc's FMA variants are
// the same C compiled with FMA contraction: the multiply-adds that GCC fused there (read from the
// disassembly of libm.so.6's __powf_fma, __ieee754_exp_fma and __ieee754_log2_fma) are std::fma
// calls here and every other operation is a separate IEEE 754 operation (the project compiles
// with -ffp-contract=off), so the results do not depend on the compiler, the processor or the
// host's libm. Round to nearest, the only rounding mode vmafx runs in, is assumed; errno and
// floating-point exception flags are not reproduced.
//
// The tables are src/base/libm_tables.inc, written by tools/libm_tables.py. The proofs are
// src/base/libm_test.cpp: powf(x, 1/3f) over every non-negative float against a committed
// SHA-256 (and against the host's powf where the host is glibc 2.36 with FMA), the other
// exponents, exp and log2 by samples against the host's libm and committed digests.
#pragma once

namespace vmafx::libm {

/// x raised to the power y, as glibc 2.36's powf (its FMA variant) computes it: the same float
/// for every x and y, including zeros, infinities, NaNs (a NaN result is a NaN; its payload is
/// not promised), subnormals, negative x with an integer y, overflow to ±inf and underflow to
/// ±0. Accuracy: within 0.82 ULP of x^y (the algorithm's bound). Thread-safe, no errno.
float powf(float x, float y);

/// e^x, as glibc 2.36's exp (its FMA variant) computes it: the same double for every x,
/// including the subnormal results of x below about -708.4, 0 below about -745.1, +inf above
/// about 709.8, exp(-inf) = 0 and a NaN for a NaN. Accuracy: within 0.51 ULP. Thread-safe, no
/// errno.
double exp(double x);

/// log2 x, as glibc 2.36's log2 (its FMA variant) computes it: the same double for every x,
/// including subnormal x, log2(±0) = -inf, log2(+inf) = +inf, log2(1) = +0 and a NaN for a
/// negative x or a NaN. Accuracy: within 0.55 ULP. Thread-safe, no errno.
double log2(double x);

/// Whether the host's libm is the golden machine's: glibc 2.36 on x86 with FMA and AVX2, where
/// glibc's ifunc picks the FMA variants these functions reproduce. Tests compare with the
/// host's functions (and with libsvm, which calls the host's exp) only there.
bool host_libm_is_golden();

}  // namespace vmafx::libm
