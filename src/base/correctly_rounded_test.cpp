// base/correctly_rounded.hpp's division and square root (the functions the Vulkan twins use in
// place of the device's own) against the CPU's IEEE operations, bit for bit: random operands of
// every magnitude and the edge cases (subnormal operands and results, overflow, exact results,
// ties on the subnormal grid, zeros, infinities, NaNs), with the candidate moved up to 4 units
// off, so that the integer decision, not the CPU's own division inside the candidate, makes
// each result.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "base/shared_math.hpp"

namespace {

std::uint32_t bits(float x) { return vmafx_float_bits(x); }
std::uint64_t bits(double x) { return vmafx_double_bits(x); }

/// Floats of every kind: random bit patterns (every exponent), subnormals, powers of two and
/// their neighbours, the largest and smallest magnitudes, zeros, infinities and NaNs.
std::vector<float> float_operands(std::mt19937_64& rng, int random) {
    std::vector<float> v;
    for (int i = 0; i < random; ++i) v.push_back(vmafx_bits_float(static_cast<std::uint32_t>(rng())));
    for (std::uint32_t b : {0x00000001u, 0x00000002u, 0x00000003u, 0x007fffffu, 0x00400000u, 0x00800000u,
                            0x00800001u, 0x3f800000u, 0x3f7fffffu, 0x3f800001u, 0x40000000u, 0x40400000u,
                            0x7f7fffffu, 0x7f000000u, 0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                            0x7fc00000u, 0x7f800001u, 0xffc00001u, 0x3eaaaaabu, 0x4b7fffffu, 0x34000000u})
        v.push_back(vmafx_bits_float(b));
    return v;
}

std::vector<double> double_operands(std::mt19937_64& rng, int random) {
    std::vector<double> v;
    for (int i = 0; i < random; ++i) v.push_back(vmafx_bits_double(rng()));
    for (std::uint64_t b : {0x0000000000000001ull, 0x0000000000000003ull, 0x000fffffffffffffull, 0x0010000000000000ull,
                            0x0010000000000001ull, 0x3ff0000000000000ull, 0x3fefffffffffffffull,
                            0x3ff0000000000001ull, 0x4000000000000000ull, 0x7fefffffffffffffull,
                            0x7fe0000000000000ull, 0x0000000000000000ull, 0x8000000000000000ull,
                            0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                            0x7ff0000000000001ull, 0x3fd5555555555555ull, 0x433fffffffffffffull})
        v.push_back(vmafx_bits_double(b));
    // Floats as doubles, as the twins divide them (float(x) / double(y) and the like).
    for (int i = 0; i < random / 4; ++i) v.push_back(static_cast<double>(vmafx_bits_float(static_cast<std::uint32_t>(rng()))));
    return v;
}

}  // namespace

TEST(CorrectlyRounded, FloatDivisionIsTheCpusOnEveryKindOfOperand) {
    std::mt19937_64 rng(11);
    const std::vector<float> ops = float_operands(rng, 700);
    long checked = 0;
    for (float a : ops)
        for (float b : ops)
            for (int nudge = -4; nudge <= 4; nudge += (nudge == 0 ? 1 : 4)) {
                const float want = a / b, got = vmafx_div_rn_nudged_f(a, b, nudge);
                ASSERT_EQ(bits(got), bits(want)) << std::hexfloat << a << " / " << b << " nudge " << nudge;
                ++checked;
            }
    EXPECT_GT(checked, 1'000'000);
}

TEST(CorrectlyRounded, DoubleDivisionIsTheCpusOnEveryKindOfOperand) {
    std::mt19937_64 rng(12);
    const std::vector<double> ops = double_operands(rng, 640);
    long checked = 0;
    for (double a : ops)
        for (double b : ops)
            for (int nudge = -4; nudge <= 4; nudge += (nudge == 0 ? 1 : 4)) {
                const double want = a / b, got = vmafx_div_rn_nudged_d(a, b, nudge);
                ASSERT_EQ(bits(got), bits(want)) << std::hexfloat << a << " / " << b << " nudge " << nudge;
                ++checked;
            }
    EXPECT_GT(checked, 1'000'000);
}

// Quotients that land near or on the subnormal grid's midpoints (ties to even there), and next to
// the overflow threshold.
TEST(CorrectlyRounded, DivisionAtTheEdgesOfTheRange) {
    const float tiny = std::numeric_limits<float>::denorm_min(), big = std::numeric_limits<float>::max();
    for (float a : {tiny, 3 * tiny, 5 * tiny, 7 * tiny, 0x1p-126f, 0x1.fffffep-126f, big, 0x1p127f})
        for (float b : {2.0f, 4.0f, 0.5f, 3.0f, 1.5f, 0x1p-24f, 0x1.000002p+0f, 0x1.fffffep-1f, 0x1p-2f})
            for (int nudge : {-3, 0, 3})
                ASSERT_EQ(bits(vmafx_div_rn_nudged_f(a, b, nudge)), bits(a / b)) << std::hexfloat << a << " / " << b;
    const double dtiny = std::numeric_limits<double>::denorm_min(), dbig = std::numeric_limits<double>::max();
    for (double a : {dtiny, 3 * dtiny, 5 * dtiny, 0x1p-1022, 0x1.fffffffffffffp-1022, dbig, 0x1p1023})
        for (double b : {2.0, 4.0, 0.5, 3.0, 1.5, 0x1p-53, 0x1.0000000000001p+0, 0x1.fffffffffffffp-1})
            for (int nudge : {-3, 0, 3})
                ASSERT_EQ(bits(vmafx_div_rn_nudged_d(a, b, nudge)), bits(a / b)) << std::hexfloat << a << " / " << b;
}

TEST(CorrectlyRounded, SquareRootIsTheCpusOnEveryKindOfOperand) {
    std::mt19937_64 rng(13);
    long checked = 0;
    std::vector<float> fops = float_operands(rng, 400000);
    for (float x : fops)
        for (int nudge : {-4, 0, 4}) {
            ASSERT_EQ(bits(vmafx_sqrt_rn_nudged_f(x, nudge)), bits(std::sqrt(x))) << std::hexfloat << x;
            ++checked;
        }
    // Every float of a few binades, subnormals and the top included.
    for (std::uint32_t b = 0; b < 0x01000000u; b += 7) {
        const float x = vmafx_bits_float(b);
        ASSERT_EQ(bits(vmafx_sqrt_rn_f(x)), bits(std::sqrt(x))) << std::hexfloat << x;
    }
    for (std::uint32_t b = 0x3f000000u; b < 0x40800000u; b += 5) {
        const float x = vmafx_bits_float(b);
        ASSERT_EQ(bits(vmafx_sqrt_rn_nudged_f(x, 2)), bits(std::sqrt(x))) << std::hexfloat << x;
    }
    std::vector<double> dops = double_operands(rng, 400000);
    for (double x : dops)
        for (int nudge : {-4, 0, 4}) {
            ASSERT_EQ(bits(vmafx_sqrt_rn_nudged_d(x, nudge)), bits(std::sqrt(x))) << std::hexfloat << x;
            ++checked;
        }
    EXPECT_GT(checked, 2'000'000);
}

// What the shared headers call: in C++ the language's own operations.
TEST(CorrectlyRounded, TheSharedHeadersCallsAreTheLanguagesInCpp) {
    EXPECT_EQ(bits(vmafx_div_f(1.0f, 3.0f)), bits(1.0f / 3.0f));
    EXPECT_EQ(bits(vmafx_div_d(1.0, 3.0)), bits(1.0 / 3.0));
    EXPECT_EQ(bits(vmafx_sqrt_f(2.0f)), bits(std::sqrt(2.0f)));
    EXPECT_EQ(bits(vmafx_sqrt_d(2.0)), bits(std::sqrt(2.0)));
}
