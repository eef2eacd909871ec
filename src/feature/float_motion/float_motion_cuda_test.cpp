// The CUDA twin of float_motion (src/feature/float_motion/float_motion_cuda.cu) beyond the
// registry-driven twin suites (test_twins.cpp): long runs (every frame's previous picture, the
// motion2 minimum and motion3 over many frames, fewer slots than frames), every motion_filter_size
// class, motion_add_scale1 on rows wider than one SequentialSum chunk, motion_add_uv at every
// subsampling, debug, and the bit depths upstream reads byte-wise (9, 11, 13..15 bits with
// samples over the whole word). Skips, saying why, where no CUDA device is usable.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/float_motion/float_motion.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

TEST(FloatMotionCuda, LongRunsEveryFilterAndScale) {
    VMAFX_REQUIRE_GPU();
    const OptionValues sets[] = {
        {{"debug", "true"}},
        {{"motion_filter_size", "1"}},
        {{"motion_filter_size", "3"}, {"motion_add_uv", "true"}},
        {{"motion_add_scale1", "true"}, {"motion_blend_factor", "0.5"}, {"motion_blend_offset", "3"}},
        {{"motion_force_zero", "true"}, {"debug", "true"}},
    };
    const int sizes[][2] = {{5, 5}, {37, 21}, {4099, 9}};
    for (const auto& s : sizes)
        for (const int bits : {8, 10, 16})
            for (const Subsampling sub : {Subsampling::k420, Subsampling::k444}) {
                const VideoFormat format{s[0], s[1], bits, sub};
                const test::Clip clip = test::synthetic_clip(format, 9, 11);
                for (const OptionValues& values : sets)
                    EXPECT_TRUE(test::expect_twin_matches_cpu(float_motion::descriptor, values, clip, 3))
                        << s[0] << "x" << s[1] << " " << bits << " bits " << test::option_label(values);
            }
}

TEST(FloatMotionCuda, ByteWiseBitDepths) {
    VMAFX_REQUIRE_GPU();
    for (const int bits : {9, 11, 13, 14, 15}) {
        const VideoFormat format{33, 7, bits, Subsampling::k422};
        test::Clip clip{format, {}, {}};
        for (unsigned i = 0; i < 4; ++i) {
            clip.ref.push_back(test::random_word_picture(format, 20 + i));
            clip.dist.push_back(test::constant_picture(format, 0));
        }
        for (const OptionValues& values : {OptionValues{}, OptionValues{{"motion_add_uv", "true"}}})
            EXPECT_TRUE(test::expect_twin_matches_cpu(float_motion::descriptor, values, clip, 2))
                << bits << " bits " << test::option_label(values);
    }
}

}  // namespace
}  // namespace vmafx
