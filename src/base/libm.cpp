// vmafx's own powf, exp and log2 with glibc 2.36's FMA-variant bits (libm.hpp says why and how);
// powf's and log2's steps are in libm_powf.hpp and libm_log2.hpp (host and device: the GPU twins
// run them too).
// Each function follows the published algorithm step by step; a comment "fused" marks a
// multiply-add that glibc's FMA variant computes with one rounding (vfmadd in the
// disassembly of glibc 2.36's libm.so.6 on Debian 12), and every other operation rounds on its
// own as in the C source.
#include "base/libm.hpp"
#include "base/libm_log2.hpp"
#include "base/libm_powf.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

// The bodies are always inlined into two entry points, one compiled for x86-64's FMA extension
// (std::fma then is one vfmadd instruction instead of a call) and a generic one; both compute the
// same IEEE 754 operations, so the choice changes the speed, never a bit.
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define VMAFX_LIBM_FMA_ENTRY 1
#define VMAFX_LIBM_INLINE [[gnu::always_inline]] inline
#define VMAFX_LIBM_FMA(a, b, c) __builtin_fma(a, b, c)  // expanded in the caller's target
#else
#define VMAFX_LIBM_FMA_ENTRY 0
#define VMAFX_LIBM_INLINE inline
#define VMAFX_LIBM_FMA(a, b, c) std::fma(a, b, c)
#endif

namespace vmafx::libm {
namespace {

#include "base/libm_tables.inc"

// powf's tables as the host-device powf (libm_powf.hpp) reads them.
constexpr PowfTables make_powf_tables() {
    PowfTables t{};
    for (int i = 0; i < 16; ++i) t.log2[i] = kPowfLog2Table[i];
    for (int i = 0; i < 5; ++i) t.log2_poly[i] = kPowfLog2Poly[i];
    for (int i = 0; i < 32; ++i) t.exp2[i] = kExp2fTable[i];
    for (int i = 0; i < 3; ++i) t.exp2_poly[i] = kExp2fPoly[i];
    return t;
}
constexpr PowfTables kPowfTables = make_powf_tables();

VMAFX_LIBM_INLINE uint32_t bits_of(float x) { return std::bit_cast<uint32_t>(x); }
VMAFX_LIBM_INLINE float float_of(uint32_t bits) { return std::bit_cast<float>(bits); }
VMAFX_LIBM_INLINE uint64_t bits_of(double x) { return std::bit_cast<uint64_t>(x); }
VMAFX_LIBM_INLINE double double_of(uint64_t bits) { return std::bit_cast<double>(bits); }

// ---- exp ---------------------------------------------------------------------------------

constexpr uint32_t top12(double x) { return static_cast<uint32_t>(std::bit_cast<uint64_t>(x) >> 52); }

// The end of exp where 2^(k/128) leaves the normal range: scale (1 + tmp) with scale's bits
// sbits, k = (int32_t)ki. Overflowing k: computed 2^1009 lower, then scaled up. Underflowing k:
// computed 2^1022 higher, rounded once more to the subnormal precision where the result is
// below 2^-1022, then scaled down.
VMAFX_LIBM_INLINE double exp_special(double tmp, uint64_t sbits, uint64_t ki) {
    if ((ki & 0x80000000u) == 0) {
        const double scale = double_of(sbits - (1009ull << 52));
        return 0x1p1009 * VMAFX_LIBM_FMA(scale, tmp, scale);  // fused
    }
    const double scale = double_of(sbits + (1022ull << 52));
    const double scaled_tmp = scale * tmp;
    double y = scale + scaled_tmp;
    if (y < 1.0) {
        double lo = (scale - y) + scaled_tmp;
        const double hi = 1.0 + y;
        lo = ((1.0 - hi) + y) + lo;
        y = (hi + lo) - 1.0;
        if (y == 0.0) return 0.0;
    }
    return 0x1p-1022 * y;
}

// ---- log2 --------------------------------------------------------------------------------

// log2's tables as the host-device log2 (libm_log2.hpp) reads them.
constexpr Log2Tables make_log2_tables() {
    Log2Tables t{};
    for (int i = 0; i < 64; ++i) t.table[i] = kLog2Table[i];
    t.inv_ln2_hi = kInvLn2Hi;
    t.inv_ln2_lo = kInvLn2Lo;
    for (int i = 0; i < 6; ++i) t.poly[i] = kLog2Poly[i];
    for (int i = 0; i < 10; ++i) t.poly_near_one[i] = kLog2PolyNearOne[i];
    return t;
}
constexpr Log2Tables kLog2Tables = make_log2_tables();

// libm_log2.hpp's constants, written there as bits (no std::bit_cast on the device).
static_assert(std::bit_cast<uint64_t>(1.0 - 0x1.5b51p-5) == 0x3feea4af00000000ull);
static_assert(std::bit_cast<uint64_t>(1.0 + 0x1.6ab2p-5) == 0x3ff0b55900000000ull);
static_assert(std::bit_cast<uint64_t>(-std::numeric_limits<double>::infinity()) == 0xfff0000000000000ull);

VMAFX_LIBM_INLINE double exp_body(double x) {
    uint32_t abstop = top12(x) & 0x7ffu;
    if (abstop - top12(0x1p-54) >= top12(512.0) - top12(0x1p-54)) {
        if (abstop < top12(0x1p-54)) return 1.0 + x;  // |x| < 2^-54 (0 included)
        if (abstop >= top12(1024.0)) {
            if (bits_of(x) == bits_of(-std::numeric_limits<double>::infinity())) return 0.0;
            if (abstop >= top12(std::numeric_limits<double>::infinity())) return 1.0 + x;  // +inf, NaN
            return (bits_of(x) >> 63) != 0 ? 0.0 : std::numeric_limits<double>::infinity();
        }
        abstop = 0;  // 512 <= |x| < 1024: the end goes through exp_special
    }
    // x = k ln2/128 + r, |r| <= ln2/256; e^x = 2^(k/128) e^r, 2^(k/128) = scale (1 + tail).
    constexpr double kShift = 0x1.8p52;
    const double shifted = VMAFX_LIBM_FMA(kInvLn2N, x, kShift);  // fused (z = x 128/ln2, then + shift)
    const uint64_t ki = bits_of(shifted);
    const double kd = shifted - kShift;
    double r = VMAFX_LIBM_FMA(kd, kNegLn2HiN, x);  // fused
    r = VMAFX_LIBM_FMA(kd, kNegLn2LoN, r);  // fused
    const uint64_t index = 2 * (ki % 128);
    const double tail = double_of(kExpTable[index]);
    const uint64_t sbits = kExpTable[index + 1] + (ki << 45);
    const double* c = kExpPoly;  // C2..C5
    const double r2 = r * r;
    const double quadratic = VMAFX_LIBM_FMA(r, c[1], c[0]);  // fused: C2 + r C3
    const double quartic = VMAFX_LIBM_FMA(r, c[3], c[2]);  // fused: C4 + r C5
    double tmp = tail + r;
    tmp = VMAFX_LIBM_FMA(r2, quadratic, tmp);  // fused
    tmp = VMAFX_LIBM_FMA(r2 * r2, quartic, tmp);  // fused
    if (abstop == 0) return exp_special(tmp, sbits, ki);
    const double scale = double_of(sbits);
    return VMAFX_LIBM_FMA(scale, tmp, scale);  // fused
}

#if VMAFX_LIBM_FMA_ENTRY
[[gnu::target("fma")]] float powf_fma(float x, float y) { return powf_with(x, y, kPowfTables); }
[[gnu::target("fma")]] double exp_fma(double x) { return exp_body(x); }
[[gnu::target("fma")]] double log2_fma(double x) { return log2_with(x, kLog2Tables); }
// Read once at start-up; were it read before that (a static initialiser of another file calling
// these functions), it would still be false, the generic entry: the same bits.
const bool kHostHasFma = (__builtin_cpu_init(), __builtin_cpu_supports("fma"));
#endif

}  // namespace

float powf(float x, float y) {
#if VMAFX_LIBM_FMA_ENTRY
    if (kHostHasFma) return powf_fma(x, y);
#endif
    return powf_with(x, y, kPowfTables);
}

const PowfTables& powf_tables() { return kPowfTables; }

double exp(double x) {
#if VMAFX_LIBM_FMA_ENTRY
    if (kHostHasFma) return exp_fma(x);
#endif
    return exp_body(x);
}

double log2(double x) {
#if VMAFX_LIBM_FMA_ENTRY
    if (kHostHasFma) return log2_fma(x);
#endif
    return log2_with(x, kLog2Tables);
}

const Log2Tables& log2_tables() { return kLog2Tables; }

bool host_libm_is_golden() {
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    return std::string_view(gnu_get_libc_version()) == "2.36" && __builtin_cpu_supports("fma") &&
           __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

}  // namespace vmafx::libm
