// Tests of the integer MOTION extractor beyond the registry-driven suites (test_metrics.cpp:
// golden values, tables, refusals, threads): hand-derived values on constant frames for the
// temporal rules of upstream's flush(), the last frame of a fixture, and what extract() refuses.
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/motion/motion.hpp"
#include "feature/registry.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using motion::descriptor;

constexpr const char* kSad = "VMAF_integer_feature_motion_sad_score";
constexpr const char* kMotion = "VMAF_integer_feature_motion_score";
constexpr const char* kMotion2 = "VMAF_integer_feature_motion2_score";
constexpr const char* kMotion3 = "VMAF_integer_feature_motion3_score";

Options motion_options(const OptionValues& values = {}) { return descriptor.parse_options(values); }

/// The frame input of frame `index` with reference and distorted `pic` and previous reference `prev`.
FrameInput frame(unsigned index, const Picture& pic, const Picture* prev) {
    FrameInput in;
    in.index = index;
    in.ref = in.dist = &pic;
    in.prev_ref[0] = prev;
    return in;
}

// ---------------------------------------------------------------------------------------
// A fixture.

// The golden last frame: its motion2 (and motion3) is its own sad score.
TEST(MotionGolden, LastFrameMotion2IsItsSad) {
    const std::string fixture = "path_576x324_420p8";
    VMAFX_REQUIRE_FIXTURE(fixture);
    VMAFX_SKIP_IF_MISSING(test::missing_golden(fixture));
    const nlohmann::json result = test::golden(fixture);
    const nlohmann::json& frames = result.at("frames");
    const unsigned last = static_cast<unsigned>(frames.size()) - 1;
    const ScoreTable table = test::run_cpu(descriptor, motion_options(), test::fixture_clip(fixture));
    const double golden_sad = frames[last].at("metrics").at(kSad).get<double>();
    EXPECT_EQ(frames[last].at("metrics").at("integer_motion2").get<double>(), golden_sad);
    EXPECT_EQ(table.get(kMotion2, last), golden_sad);
    EXPECT_EQ(table.get(kMotion3, last), golden_sad);
}

// ---------------------------------------------------------------------------------------
// Synthetic frames. For constant frames a and b at bit depth B, the blurred difference is
// (b - a) * 2^(16-B) everywhere (the taps sum to 2^16), so the sad score is |b - a| / 2^(B-8).

TEST(MotionSynthetic, ConstantStepAllDepthsAndSmallOddSizes) {
    const int sizes[][2] = {{3, 3}, {4, 3}, {3, 5}, {17, 3}, {21, 7}, {37, 4}, {64, 36}};
    for (int depth : {8, 9, 10, 12, 14, 16}) {
        for (const auto& s : sizes) {
            SCOPED_TRACE(fmt::format("{}x{} {}-bit", s[0], s[1], depth));
            const VideoFormat format{s[0], s[1], depth, Subsampling::k420};
            const std::uint32_t top = (1u << depth) - 1;
            const ScoreTable t = test::run_constant(descriptor, motion_options(), {0, top, top - 7}, format);
            const double scale = static_cast<double>(1 << (depth - 8));
            EXPECT_EQ(test::column(t, kSad, 3), (std::vector<double>{0.0, top / scale, 7 / scale}));
        }
    }
}

TEST(MotionSynthetic, SingleFrameVideo) {
    // One frame: no sad beyond frame 0, so the stamp value (motion of frame 1) is 0.
    const ScoreTable t = test::run_constant(descriptor, motion_options(), {100});
    EXPECT_EQ(t.get(kSad, 0), 0.0);
    EXPECT_EQ(t.get(kMotion2, 0), 0.0);
    EXPECT_EQ(t.get(kMotion3, 0), 0.0);
    EXPECT_EQ(t.frames(kMotion2), 1u);
}

TEST(MotionSynthetic, Motion2IsMinOfNeighboursLastFrameKeepsItsSad) {
    // sad = 0, 10, 20, 1, 19, 2.
    const ScoreTable t = test::run_constant(descriptor, motion_options(), {0, 10, 30, 31, 50, 52});
    EXPECT_EQ(test::column(t, kSad, 6), (std::vector<double>{0, 10, 20, 1, 19, 2}));
    EXPECT_EQ(test::column(t, kMotion2, 6), (std::vector<double>{0, 10, 1, 1, 2, 2}));
    // Frame 0 gets the stamp value: motion of frame 1.
    EXPECT_EQ(test::column(t, kMotion3, 6), (std::vector<double>{10, 10, 1, 1, 2, 2}));
}

TEST(MotionSynthetic, FiveFrameWindowAndMovingAverage) {
    // Five-frame window: sad(i) from frames i and i-2 = 0, 0, 30, 21, 20, 21; frame 2 has no
    // scored lower neighbour and takes sad(3); the stamp is sad(2) = 30.
    const std::vector<std::uint32_t> values = {0, 10, 30, 31, 50, 52};
    const Options window = motion_options({{"motion_five_frame_window", "true"}});
    ScoreTable t = test::run_constant(descriptor, window, values);
    const std::string sad = window.feature_name(kSad), m2 = window.feature_name(kMotion2),
                      m3 = window.feature_name(kMotion3);
    EXPECT_EQ(m2, "integer_motion2_mffw");
    EXPECT_EQ(test::column(t, sad, 6), (std::vector<double>{0, 0, 30, 21, 20, 21}));
    EXPECT_EQ(test::column(t, m2, 6), (std::vector<double>{0, 0, 21, 20, 21, 21}));
    EXPECT_EQ(test::column(t, m3, 6), (std::vector<double>{30, 30, 21, 20, 21, 21}));

    const Options averaged = motion_options({{"motion_five_frame_window", "true"}, {"motion_moving_average", "true"}});
    t = test::run_constant(descriptor, averaged, values);
    EXPECT_EQ(test::column(t, averaged.feature_name(kMotion3), 6), (std::vector<double>{30, 30, 25.5, 20.5, 20.5, 21}));
}

TEST(MotionSynthetic, BlendAndMaxValClip) {
    // sad = 60, 60, 60; blend with factor 0.5 above offset 25: 60 * 0.5 + 0.5 * 25 = 42.5.
    const Options blend = motion_options({{"motion_blend_factor", "0.5"}, {"motion_blend_offset", "25"}});
    ScoreTable t = test::run_constant(descriptor, blend, {0, 60, 0, 60});
    EXPECT_EQ(test::column(t, blend.feature_name(kMotion2), 4), (std::vector<double>{0, 60, 60, 60}));
    EXPECT_EQ(test::column(t, blend.feature_name(kMotion3), 4), (std::vector<double>{42.5, 42.5, 42.5, 42.5}));

    // motion_max_val clips the sad score in extract() and motion3 in flush().
    const Options clip = motion_options({{"motion_max_val", "18"}});
    t = test::run_constant(descriptor, clip, {0, 60, 50});
    EXPECT_EQ(test::column(t, clip.feature_name(kSad), 3), (std::vector<double>{0, 18, 10}));
    EXPECT_EQ(test::column(t, clip.feature_name(kMotion2), 3), (std::vector<double>{0, 10, 10}));
    // Frame 0's stamp is the clipped sad of frame 1.
    EXPECT_EQ(test::column(t, clip.feature_name(kMotion3), 3), (std::vector<double>{18, 10, 10}));

    // motion_fps_weight scales the sad score before the clip.
    const Options weight = motion_options({{"motion_fps_weight", "2.5"}});
    t = test::run_constant(descriptor, weight, {0, 4});
    EXPECT_EQ(t.get(weight.feature_name(kSad), 1), 10.0);
}

TEST(MotionSynthetic, ForceZero) {
    const Options options = motion_options({{"motion_force_zero", "true"}});
    EXPECT_EQ(feature_alias(options.feature_name(kSad)), "VMAF_integer_feature_motion_sad_score_force_0");
    EXPECT_EQ(options.feature_name(kMotion2), "integer_motion2_force_0");
    const ScoreTable t = test::run_constant(descriptor, options, {0, 200, 10, 90});
    for (const char* f : {kSad, kMotion2, kMotion3})
        EXPECT_EQ(test::column(t, options.feature_name(f), 4), (std::vector<double>(4, 0.0))) << f;
    // Forced to zero, it needs no previous picture.
    const VideoFormat format{8, 6, 8, Subsampling::k420};
    const Picture pic = test::constant_picture(format, 5);
    FrameScores out;
    descriptor.make_extractor(options, format)->extract(frame(3, pic, nullptr), out);
    EXPECT_EQ(out, (FrameScores{{options.feature_name(kSad), 0.0}}));
}

TEST(MotionSynthetic, DebugAlsoWritesMotionScore) {
    const ScoreTable t = test::run_constant(descriptor, motion_options({{"debug", "true"}}), {0, 9});
    EXPECT_EQ(t.get(kSad, 1), 9.0);
    EXPECT_EQ(t.get(kMotion, 1), 9.0);
}

// What extract() refuses: a scored frame without its previous reference, or with one of another
// size or sample size; frame 0 needs none.
TEST(MotionExtract, RefusesMissingOrMismatchedPreviousReference) {
    const VideoFormat format{8, 6, 8, Subsampling::k420};
    const auto fex = descriptor.make_extractor(motion_options(), format);
    const Picture pic = test::constant_picture(format, 1);
    FrameScores out;
    EXPECT_NE(test::error_of([&] { fex->extract(frame(1, pic, nullptr), out); })
                  .find("motion: frame 1 needs the reference picture of frame 0"),
              std::string::npos);
    const Picture other = test::constant_picture({9, 6, 8, Subsampling::k420}, 1);
    EXPECT_NE(test::error_of([&] { fex->extract(frame(1, pic, &other), out); }).find("previous reference luma is 9x6"),
              std::string::npos);
    const Picture deep = test::constant_picture({8, 6, 10, Subsampling::k420}, 1);
    EXPECT_NE(test::error_of([&] { fex->extract(frame(1, pic, &deep), out); }).find("with 2-byte samples"),
              std::string::npos);
    out.clear();
    EXPECT_NO_THROW(fex->extract(frame(0, pic, nullptr), out));
    EXPECT_EQ(out, (FrameScores{{kSad, 0.0}}));
}

}  // namespace
}  // namespace vmafx
