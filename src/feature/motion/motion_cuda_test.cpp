// The CUDA twin of the integer MOTION metric (src/feature/motion/motion_cuda.cu) beyond the
// registry-driven twin suites (test_twins.cpp): samples above the bit depth, where the CPU
// emulates upstream's 32-bit lane arithmetic (its products wrap), and references that change in
// a few samples only (most blurred rows all zero, which the CPU skips). Skips, saying why, where
// no CUDA device is usable.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/motion/motion.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

/// A clip whose reference frames alternate between random samples over the whole sample word
/// and the previous frame with a few samples changed; the distorted frames are black (motion
/// does not read them).
test::Clip word_clip(const VideoFormat& format, unsigned count, std::uint32_t seed) {
    test::Clip clip{format, {}, {}};
    for (unsigned i = 0; i < count; ++i) {
        clip.ref.push_back(i % 2 == 0 ? test::random_word_picture(format, seed + i)
                                      : test::sprinkled_picture(clip.ref.back(), 3, seed + i));
        clip.dist.push_back(test::constant_picture(format, 0));
    }
    return clip;
}

// Widths below 20 have no AVX-512 lane columns on the CPU; 20, 37, 121, 253 and 481 put the
// lane/edge boundaries, the kernel's 120-column strips (121: one column into the second), its
// 480-column blocks and its 16-row tiles (17, 19 rows) at various places.
TEST(MotionCuda, SamplesAboveTheBitDepthAndSparseChanges) {
    VMAFX_REQUIRE_GPU();
    const int sizes[][2] = {{3, 3}, {20, 3}, {37, 5}, {121, 17}, {253, 11}, {481, 19}, {853, 481}};
    const OptionValues sets[] = {{}, {{"motion_five_frame_window", "true"}}};
    for (const auto& s : sizes)
        for (const int bits : {8, 10, 12, 16})
            for (const OptionValues& values : sets)
                EXPECT_TRUE(test::expect_twin_matches_cpu(motion::descriptor, values,
                                                          word_clip({s[0], s[1], bits, Subsampling::k420}, 7, 5), 3));
}

}  // namespace
}  // namespace vmafx
