// Tests of the floating-point MOTION extractor beyond the registry-driven suites
// (test_metrics.cpp: golden values, tables, refusals at the descriptor's limits, threads):
// hand-derived values on constant frames for upstream's temporal rules (motion2, motion3, the
// first and last frames), the options' effects, and the option-dependent refusals.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/float_motion/float_motion.hpp"
#include "pictures.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using float_motion::descriptor;

constexpr const char* kMotion = "VMAF_feature_motion_score";
constexpr const char* kMotion2 = "VMAF_feature_motion2_score";
constexpr const char* kMotion3 = "VMAF_feature_motion3_score";

Options motion_options(const OptionValues& values = {}) { return descriptor.parse_options(values); }

// With motion_filter_size 1 (the 5-tap identity) the blurred frames are the frames, so frame
// i's score is |v_i - v_(i-1)| exactly: 4, 6, 0 for 10, 14, 20, 20. motion2 is the smaller of
// a frame's and the next frame's score (0 for frame 0, its own for the last), motion3 frame 0
// takes frame 1's score, and debug's motion is each frame's own score.
TEST(FloatMotionValues, TemporalRulesOnConstantFrames) {
    const ScoreTable t =
        test::run_constant(descriptor, motion_options({{"motion_filter_size", "1"}}), {10, 14, 20, 20});
    const std::string suffix = "_mfs_1";
    EXPECT_EQ(test::column(t, std::string("motion") + suffix, 4), (std::vector<double>{0, 4, 6, 0}));
    EXPECT_EQ(test::column(t, std::string("motion2") + suffix, 4), (std::vector<double>{0, 4, 0, 0}));
    EXPECT_EQ(test::column(t, std::string("motion3") + suffix, 4), (std::vector<double>{4, 4, 0, 0}));
    (void)kMotion;
}

// Blend (factor 0.5 above offset 2: 4 -> 3), clip (max 5: 6 -> 5), weight (x 2).
TEST(FloatMotionValues, BlendClipAndWeight) {
    const ScoreTable t = test::run_constant(descriptor, motion_options({{"motion_filter_size", "1"},
                                                      {"motion_blend_factor", "0.5"},
                                                      {"motion_blend_offset", "2"},
                                                      {"motion_max_val", "5"}}),
                                      {10, 14, 20, 20});
    const std::string s = "_mbf_0.5_mbo_2_mfs_1_mmxv_5";
    EXPECT_EQ(test::column(t, "motion" + s, 4), (std::vector<double>{0, 4, 5, 0}));
    EXPECT_EQ(test::column(t, "motion2" + s, 4), (std::vector<double>{0, 4, 0, 0}));
    EXPECT_EQ(test::column(t, "motion3" + s, 4), (std::vector<double>{3, 3, 0, 0}));
    const ScoreTable w = test::run_constant(
        descriptor, motion_options({{"motion_filter_size", "1"}, {"motion_fps_weight", "2"}}), {10, 14, 20});
    EXPECT_EQ(test::column(w, "motion2_mfs_1_mfw_2", 3), (std::vector<double>{0, 8, 12}));
}

// motion_add_uv adds both chroma planes' scores (constant planes: three times the step).
TEST(FloatMotionValues, AddUv) {
    const ScoreTable t = test::run_constant(
        descriptor, motion_options({{"motion_filter_size", "1"}, {"motion_add_uv", "true"}}), {10, 14});
    EXPECT_EQ(test::column(t, "motion_mau_mfs_1", 2), (std::vector<double>{0, 12}));
}

// One frame: motion2 and motion3 are 0 (upstream's flush at index 0); debug off: no motion.
// motion_force_zero: zeros in every frame, under the option's names.
TEST(FloatMotionValues, SingleFrameDebugOffAndForceZero) {
    const ScoreTable one = test::run_constant(descriptor, motion_options({{"debug", "false"}}), {10});
    EXPECT_EQ(one.get(kMotion2, 0), 0.0);
    EXPECT_EQ(one.get(kMotion3, 0), 0.0);
    EXPECT_FALSE(one.get(kMotion, 0).has_value());
    const ScoreTable z = test::run_constant(descriptor, motion_options({{"motion_force_zero", "true"}}), {10, 200, 3});
    EXPECT_EQ(test::column(z, "motion2_force_0", 3), (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(test::column(z, "motion3_force_0", 3), (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(test::column(z, "motion_force_0", 3), (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(descriptor.history_for(motion_options({{"motion_force_zero", "true"}})).refs, 0u);
    EXPECT_EQ(descriptor.history_for(motion_options()).refs, 1u);
}

std::unique_ptr<FeatureExtractor> make(const OptionValues& values, int w, int h,
                                       Subsampling s = Subsampling::k420) {
    return descriptor.make_extractor(motion_options(values), {w, h, 8, s});
}

// The 5-tap mirrored blur needs 3 samples (upstream reads outside the picture below); with
// motion_add_uv the chroma planes too (3-tap filter: 2); motion_add_uv with
// motion_add_scale1 is refused (upstream reads uninitialised memory there).
TEST(FloatMotionLimits, SizesAndOptionCombinations) {
    EXPECT_NO_THROW(make({}, 3, 3));
    test::expect_error([] { make({}, 2, 3); }, {"float_motion", "3x3"});
    test::expect_error([] { make({}, 3, 2); }, {"float_motion"});
    EXPECT_NO_THROW(make({{"motion_add_uv", "true"}}, 6, 6));
    test::expect_error([] { make({{"motion_add_uv", "true"}}, 4, 6); }, {"float_motion", "plane 1 is 2x3"});
    EXPECT_NO_THROW(make({{"motion_add_uv", "true"}, {"motion_filter_size", "3"}}, 4, 4));
    EXPECT_NO_THROW(make({{"motion_add_uv", "true"}}, 3, 3, Subsampling::k444));
    test::expect_error([] { make({{"motion_add_uv", "true"}, {"motion_add_scale1", "true"}}, 64, 64); },
                       {"float_motion", "motion_add_uv with motion_add_scale1"});
    EXPECT_THROW(motion_options({{"motion_filter_size", "10"}}), UsageError);
    EXPECT_THROW(motion_options({{"motion_fps_weight", "5.5"}}), UsageError);
}

// Oracle values (upstream 3.2.0, default flags) of fixture path_576x324_420p8, frames 0-2:
//   vmaf -r ref.yuv -d dist.yuv -w 576 -h 324 -p 420 -b 8 -n --feature
//   float_motion=motion_add_scale1=true:motion_filter_size=3 --frame_cnt 3 --json -o out.json
TEST(FloatMotionValues, OracleScale1AndFilter3) {
    VMAFX_REQUIRE_FIXTURE("path_576x324_420p8");
    const test::Clip clip = test::fixture_clip("path_576x324_420p8", 3);
    const ScoreTable t = test::run_cpu(
        descriptor, motion_options({{"motion_add_scale1", "true"}, {"motion_filter_size", "3"}}), clip);
    EXPECT_EQ(test::column(t, "motion2_mdc_mfs_3", 3), (std::vector<double>{0, 6.645384788513184, 6.645384788513184}));
    EXPECT_EQ(test::column(t, "motion_mdc_mfs_3", 3), (std::vector<double>{0, 7.000349044799805, 6.645384788513184}));
}


// The blur kept from one frame serves the next only for a previous plane of the same bytes: an
// extractor that saw frame 1 (pictures A, B) then frame 2 with previous picture C (not B) scores
// frame 2 as a fresh extractor does, and with B as previous as one that never kept anything
// (frames given out of order, or the same index twice with other pictures, change nothing).
TEST(FloatMotionValues, KeptBlurOnlyForTheSameBytes) {
    const VideoFormat f{64, 48, 8, Subsampling::k420};
    const Picture a = test::random_picture(f, 1), b = test::random_picture(f, 2), c = test::random_picture(f, 3),
                  d = test::random_picture(f, 4);
    auto score = [](const FeatureExtractor& e, unsigned index, const Picture& prev, const Picture& cur) {
        FrameInput in;
        in.index = index;
        in.ref = &cur;
        in.dist = &cur;
        in.prev_ref[0] = &prev;
        in.prev_dist[0] = &prev;
        FrameScores out;
        e.extract(in, out);
        return out.at(0).second;
    };
    const auto used = make({}, 64, 48);
    const double first = score(*used, 1, a, b);
    EXPECT_EQ(first, score(*make({}, 64, 48), 1, a, b));
    EXPECT_GT(first, 0.0);
    const double other = score(*used, 2, c, d);  // frame 1's picture was b, not c
    EXPECT_EQ(other, score(*make({}, 64, 48), 2, c, d));
    EXPECT_NE(other, score(*make({}, 64, 48), 2, b, d));
    const double again = score(*used, 2, b, d);  // index 1 kept b's blur: the same as computing it
    EXPECT_EQ(again, score(*make({}, 64, 48), 2, b, d));
    EXPECT_EQ(score(*used, 3, d, a), score(*make({}, 64, 48), 3, d, a));
}
}  // namespace
}  // namespace vmafx
