// SIMD kernel rows: Motion (src/feature/motion/motion_simd.cpp against the reference row kernels of motion.cpp)
// Run on every target by tests/test_simd_kernels.cpp (harness: tests/simd_kernels.hpp).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/motion/motion_kernels.hpp"
#include "feature/motion/motion_math.hpp"
#include "picture/picture.hpp"
#include "simd_kernels.hpp"

namespace vmafx {
namespace {

using namespace simd_test;

/// Every row of the vertical blur of the difference of two random planes, rows mirrored as
/// the frame driver does.
template <typename Sample>
void check_motion_vertical() {
    for_cases(1, motion::kRadius + 1, [&](const Case& c) {
        if ((sizeof(Sample) == 1) != (c.bits == 8)) return;
        std::mt19937 rng(c.seed);
        const TestPlane<Sample> prev(c.width, c.height, c.bits, c.content, rng, 0);
        TestPlane<Sample> cur(c.width, c.height, c.bits, c.content, rng, 0);
        for (int y = 0; y < c.height; ++y)  // sometimes equal rows (an all-zero blur)
            if (rng() % 3 == 0) std::copy(prev.row(y), prev.row(y) + c.width, cur.row(y));
        std::vector<int32_t> want(c.width, 5), have(c.width, 5);
        for (int i = 0; i < c.height; ++i) {
            const Sample* p[5];
            const Sample* q[5];
            for (int k = 0; k < 5; ++k) {
                const int r = motion::mirror(i - motion::kRadius + k, c.height);
                p[k] = prev.row(r);
                q[k] = cur.row(r);
            }
            int32_t want_any = 0, have_any = 0;
            if constexpr (sizeof(Sample) == 1) {
                want_any = motion::reference_kernels().vertical_u8(p, q, c.width, c.bits, want.data());
                have_any = motion::simd_kernels().vertical_u8(p, q, c.width, c.bits, have.data());
            } else {
                want_any = motion::reference_kernels().vertical_u16(p, q, c.width, c.bits, want.data());
                have_any = motion::simd_kernels().vertical_u16(p, q, c.width, c.bits, have.data());
            }
            ASSERT_EQ(have, want) << describe(c) << ", row " << i;
            ASSERT_EQ(have_any == 0, want_any == 0) << describe(c) << ", row " << i;
        }
    });
}

/// The row sums of |horizontal blur| of random vertically blurred rows (any 32-bit values:
/// the lane columns' products wrap as upstream's).
void check_motion_row_sad() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        if (width < motion::kRadius + 1) return;
        std::vector<int32_t> y(width);
        const int32_t base = static_cast<int32_t>(rng());
        for (int32_t& v : y) {
            switch (content) {
            case Content::kUniform: v = static_cast<int32_t>(rng()); break;
            case Content::kExtremes: v = rng() % 2 ? 2147483647 : -2147483647 - 1; break;
            case Content::kSmooth: v = static_cast<int32_t>(rng() % 2001) - 1000; break;  // in-range samples
            case Content::kFlatWithSpikes: v = rng() % 13 == 0 ? static_cast<int32_t>(rng()) : base; break;
            }
        }
        ASSERT_EQ(motion::simd_kernels().row_sad(y.data(), width), motion::reference_kernels().row_sad(y.data(), width))
            << "width " << width;
    });
}

}  // namespace

VMAFX_SIMD_KERNELS(motion,
                   {"motion_vertical_u8", motion::simd_target, check_motion_vertical<uint8_t>},
                   {"motion_vertical_u16", motion::simd_target, check_motion_vertical<uint16_t>},
                   {"motion_row_sad", motion::simd_target, check_motion_row_sad});

}  // namespace vmafx
