// Tests of the integer MOTION extractor: every golden fixture frame bit for bit (sad, motion2,
// motion3, default and motion_max_val=18 as the v1.0.16 models set it), and hand-derived
// values on synthetic constant frames for the temporal rules of upstream's flush().
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/motion/motion.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

constexpr const char* kSad = "VMAF_integer_feature_motion_sad_score";
constexpr const char* kMotion = "VMAF_integer_feature_motion_score";
constexpr const char* kMotion2 = "VMAF_integer_feature_motion2_score";
constexpr const char* kMotion3 = "VMAF_integer_feature_motion3_score";

Options motion_options(const std::vector<std::pair<std::string, std::string>>& values = {}) {
    return Options("motion", motion_extractor_info().options, values);
}

std::unique_ptr<FeatureExtractor> make_motion(const Options& options, const VideoFormat& format) {
    return motion_extractor_info().create(options, format);
}

// Runs extract() on frames 0..count-1 in order (reference picture of frame i from
// `reference(i)`), keeping the previous references the extractor asks for, then flush().
ScoreTable run_motion(const FeatureExtractor& fex, unsigned count,
                      const std::function<Picture(unsigned)>& reference) {
    ScoreTable table;
    std::deque<Picture> window;  // frames i-2, i-1, i (as many as exist)
    for (unsigned i = 0; i < count; ++i) {
        window.push_back(reference(i));
        if (window.size() > 3) window.pop_front();
        const std::size_t cur = window.size() - 1;
        FrameInput in;
        in.index = i;
        in.ref = in.dist = &window[cur];
        if (fex.previous_refs() >= 1 && cur >= 1) in.prev_ref = &window[cur - 1];
        if (fex.previous_refs() >= 2 && cur >= 2) in.prev_prev_ref = &window[cur - 2];
        FrameScores scores;
        fex.extract(in, scores);
        for (const auto& [name, value] : scores) table.set(name, i, value);
    }
    fex.flush(table);
    return table;
}

// A picture whose luma is `value` everywhere.
Picture constant_picture(const VideoFormat& format, std::uint32_t value) {
    Picture pic(format);
    Plane& luma = pic.luma();
    for (int y = 0; y < luma.height(); ++y)
        for (int x = 0; x < luma.width(); ++x) {
            if (luma.bytes_per_sample() == 1) luma.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(value);
            else luma.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(value);
        }
    return pic;
}

// Runs the extractor over constant frames of the given luma values (8-bit unless told).
ScoreTable run_constant(const Options& options, const std::vector<std::uint32_t>& values,
                        VideoFormat format = {8, 6, 8, Subsampling::k420}) {
    const auto fex = make_motion(options, format);
    return run_motion(*fex, static_cast<unsigned>(values.size()),
                      [&](unsigned i) { return constant_picture(format, values[i]); });
}

std::vector<double> column(const ScoreTable& table, const std::string& name, unsigned count) {
    std::vector<double> out;
    for (unsigned i = 0; i < count; ++i) {
        const auto v = table.get(name, i);
        EXPECT_TRUE(v.has_value()) << name << " missing at frame " << i;
        out.push_back(v.value_or(-1.0));
    }
    return out;
}

// ---------------------------------------------------------------------------------------
// Golden fixtures: every frame bit for bit.

// Compares sad, motion2 and motion3 of every frame of `fixture` under `values` with the
// golden file; returns false (and says nothing) when the golden file lacks these outputs.
bool check_fixture(const std::string& fixture, const std::vector<std::pair<std::string, std::string>>& values) {
    const nlohmann::json result = test::golden(fixture);
    const nlohmann::json& frames = result.at("frames");
    const Options options = motion_options(values);
    const std::string features[] = {kSad, kMotion2, kMotion3};
    for (const auto& f : features)
        if (!frames.at(0).at("metrics").contains(feature_alias(options.feature_name(f)))) return false;

    const unsigned count = test::fixture_frames(fixture);
    EXPECT_EQ(count, frames.size()) << fixture << ": frame count differs from the golden file";
    const auto fex = make_motion(options, test::fixture_format(fixture));
    const ScoreTable table =
        run_motion(*fex, count, [&](unsigned i) { return test::fixture_frame(fixture, "ref", i); });

    int mismatches = 0;
    std::size_t compared = 0;
    for (unsigned i = 0; i < count && i < frames.size(); ++i) {
        for (const auto& f : features) {
            const std::string ours = options.feature_name(f);
            const std::string golden_name = feature_alias(ours);
            const double want = frames[i].at("metrics").at(golden_name).get<double>();
            const auto got = table.get(ours, i);
            if (!got) {
                ADD_FAILURE() << fixture << " frame " << i << ": no " << ours;
                continue;
            }
            ++compared;
            if (*got != want && ++mismatches <= 10)
                ADD_FAILURE() << fixture << " frame " << i << " " << golden_name << ": got "
                              << fmt::format("{:.17g}", *got) << ", golden " << fmt::format("{:.17g}", want);
        }
    }
    EXPECT_EQ(mismatches, 0) << fixture;
    EXPECT_EQ(compared, 3 * static_cast<std::size_t>(count)) << fixture;
    std::printf("[ motion   ] %s %s: %zu values of %u frames compared, %d differ\n", fixture.c_str(),
                options.key().empty() ? "(defaults)" : options.key().c_str(), compared, count, mismatches);
    return true;
}

TEST(MotionGolden, AllFixturesAllFramesBitExact) {
    VMAFX_REQUIRE_FIXTURES();
    const auto fixtures = test::golden_fixtures();
    ASSERT_FALSE(fixtures.empty());
    for (const auto& fixture : fixtures) {
        SCOPED_TRACE(fixture);
        EXPECT_TRUE(check_fixture(fixture, {})) << fixture << ": golden file lacks the default motion outputs";
    }
}

TEST(MotionGolden, MaxVal18AsV1016ModelBitExact) {
    VMAFX_REQUIRE_FIXTURES();
    int checked = 0;
    for (const auto& fixture : test::golden_fixtures()) {
        SCOPED_TRACE(fixture);
        checked += check_fixture(fixture, {{"motion_max_val", "18"}});
    }
    EXPECT_GT(checked, 0) << "no golden file holds integer_motion2_mmxv_18";
}

TEST(MotionGolden, LastFrameMotion2IsItsSad) {
    VMAFX_REQUIRE_FIXTURES();
    const std::string fixture = "path_576x324_420p8";
    const nlohmann::json result = test::golden(fixture);
    const nlohmann::json& frames = result.at("frames");
    const unsigned last = static_cast<unsigned>(frames.size()) - 1;
    const auto fex = make_motion(motion_options(), test::fixture_format(fixture));
    const ScoreTable table = run_motion(*fex, last + 1, [&](unsigned i) { return test::fixture_frame(fixture, "ref", i); });
    const double golden_sad = frames[last].at("metrics").at(kSad).get<double>();
    EXPECT_EQ(frames[last].at("metrics").at("integer_motion2").get<double>(), golden_sad);
    EXPECT_EQ(table.get(kMotion2, last), golden_sad);
    EXPECT_EQ(table.get(kMotion3, last), golden_sad);
}

TEST(MotionGolden, ConcurrentExtractMatchesSerial) {
    VMAFX_REQUIRE_FIXTURES();
    const std::string fixture = "path_576x324_420p8";
    const unsigned count = 12;
    std::vector<Picture> refs;
    for (unsigned i = 0; i < count; ++i) refs.push_back(test::fixture_frame(fixture, "ref", i));
    const auto fex = make_motion(motion_options(), test::fixture_format(fixture));
    const ScoreTable serial = run_motion(*fex, count, [&](unsigned i) { return refs[i]; });

    std::vector<FrameScores> results(count);
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (unsigned i = t; i < count; i += 4) {
                FrameInput in{i, &refs[i], &refs[i], i >= 1 ? &refs[i - 1] : nullptr, nullptr};
                fex->extract(in, results[i]);
            }
        });
    for (auto& th : threads) th.join();
    for (unsigned i = 0; i < count; ++i) {
        ASSERT_EQ(results[i].size(), 1u);
        EXPECT_EQ(results[i][0].first, kSad);
        EXPECT_EQ(serial.get(kSad, i), results[i][0].second) << "frame " << i;
    }
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
            const ScoreTable t = run_constant(motion_options(), {0, top, top - 7}, format);
            const double scale = static_cast<double>(1 << (depth - 8));
            EXPECT_EQ(column(t, kSad, 3), (std::vector<double>{0.0, top / scale, 7 / scale}));
        }
    }
}

TEST(MotionSynthetic, SingleFrameVideo) {
    // One frame: no sad beyond frame 0, so the stamp value (motion of frame 1) is 0.
    const ScoreTable t = run_constant(motion_options(), {100});
    EXPECT_EQ(t.get(kSad, 0), 0.0);
    EXPECT_EQ(t.get(kMotion2, 0), 0.0);
    EXPECT_EQ(t.get(kMotion3, 0), 0.0);
    EXPECT_EQ(t.frames(kMotion2), 1u);
}

TEST(MotionSynthetic, Motion2IsMinOfNeighboursLastFrameKeepsItsSad) {
    // sad = 0, 10, 20, 1, 19, 2.
    const ScoreTable t = run_constant(motion_options(), {0, 10, 30, 31, 50, 52});
    EXPECT_EQ(column(t, kSad, 6), (std::vector<double>{0, 10, 20, 1, 19, 2}));
    EXPECT_EQ(column(t, kMotion2, 6), (std::vector<double>{0, 10, 1, 1, 2, 2}));
    // Frame 0 gets the stamp value: motion of frame 1.
    EXPECT_EQ(column(t, kMotion3, 6), (std::vector<double>{10, 10, 1, 1, 2, 2}));
}

TEST(MotionSynthetic, FiveFrameWindowAndMovingAverage) {
    // Five-frame window: sad(i) from frames i and i-2 = 0, 0, 30, 21, 20, 21; frame 2 has no
    // scored lower neighbour and takes sad(3); the stamp is sad(2) = 30.
    const std::vector<std::uint32_t> values = {0, 10, 30, 31, 50, 52};
    const Options window = motion_options({{"motion_five_frame_window", "true"}});
    EXPECT_EQ(make_motion(window, {8, 6, 8, Subsampling::k420})->previous_refs(), 2u);
    ScoreTable t = run_constant(window, values);
    const std::string sad = window.feature_name(kSad), m2 = window.feature_name(kMotion2),
                      m3 = window.feature_name(kMotion3);
    EXPECT_EQ(m2, "integer_motion2_mffw");
    EXPECT_EQ(column(t, sad, 6), (std::vector<double>{0, 0, 30, 21, 20, 21}));
    EXPECT_EQ(column(t, m2, 6), (std::vector<double>{0, 0, 21, 20, 21, 21}));
    EXPECT_EQ(column(t, m3, 6), (std::vector<double>{30, 30, 21, 20, 21, 21}));

    const Options averaged = motion_options({{"motion_five_frame_window", "true"}, {"motion_moving_average", "true"}});
    t = run_constant(averaged, values);
    EXPECT_EQ(column(t, averaged.feature_name(kMotion3), 6), (std::vector<double>{30, 30, 25.5, 20.5, 20.5, 21}));
}

TEST(MotionSynthetic, BlendAndMaxValClip) {
    // sad = 60, 60, 60; blend with factor 0.5 above offset 25: 60 * 0.5 + 0.5 * 25 = 42.5.
    const Options blend = motion_options({{"motion_blend_factor", "0.5"}, {"motion_blend_offset", "25"}});
    ScoreTable t = run_constant(blend, {0, 60, 0, 60});
    EXPECT_EQ(column(t, blend.feature_name(kMotion2), 4), (std::vector<double>{0, 60, 60, 60}));
    EXPECT_EQ(column(t, blend.feature_name(kMotion3), 4), (std::vector<double>{42.5, 42.5, 42.5, 42.5}));

    // motion_max_val clips the sad score in extract() and motion3 in flush().
    const Options clip = motion_options({{"motion_max_val", "18"}});
    t = run_constant(clip, {0, 60, 50});
    EXPECT_EQ(column(t, clip.feature_name(kSad), 3), (std::vector<double>{0, 18, 10}));
    EXPECT_EQ(column(t, clip.feature_name(kMotion2), 3), (std::vector<double>{0, 10, 10}));
    // Frame 0's stamp is the clipped sad of frame 1.
    EXPECT_EQ(column(t, clip.feature_name(kMotion3), 3), (std::vector<double>{18, 10, 10}));

    // motion_fps_weight scales the sad score before the clip.
    const Options weight = motion_options({{"motion_fps_weight", "2.5"}});
    t = run_constant(weight, {0, 4});
    EXPECT_EQ(t.get(weight.feature_name(kSad), 1), 10.0);
}

TEST(MotionSynthetic, ForceZero) {
    const Options options = motion_options({{"motion_force_zero", "true"}});
    EXPECT_EQ(feature_alias(options.feature_name(kSad)), "VMAF_integer_feature_motion_sad_score_force_0");
    EXPECT_EQ(options.feature_name(kMotion2), "integer_motion2_force_0");
    const ScoreTable t = run_constant(options, {0, 200, 10, 90});
    for (const char* f : {kSad, kMotion2, kMotion3})
        EXPECT_EQ(column(t, options.feature_name(f), 4), (std::vector<double>(4, 0.0))) << f;
    // Forced to zero, it needs no previous picture.
    const VideoFormat format{8, 6, 8, Subsampling::k420};
    const Picture pic = constant_picture(format, 5);
    FrameScores out;
    make_motion(options, format)->extract(FrameInput{3, &pic, &pic, nullptr, nullptr}, out);
    EXPECT_EQ(out, (FrameScores{{options.feature_name(kSad), 0.0}}));
}

TEST(MotionSynthetic, DebugAlsoWritesMotionScore) {
    const ScoreTable t = run_constant(motion_options({{"debug", "true"}}), {0, 9});
    EXPECT_EQ(t.get(kSad, 1), 9.0);
    EXPECT_EQ(t.get(kMotion, 1), 9.0);
}

// ---------------------------------------------------------------------------------------
// Registry entry, names, refusals.

TEST(MotionInfo, NameOptionsFeatures) {
    const ExtractorInfo& info = motion_extractor_info();
    EXPECT_STREQ(info.name, "motion");
    EXPECT_EQ(info.provided_features, (std::vector<std::string>{kSad, kMotion, kMotion2, kMotion3}));
    std::vector<std::string> names;
    for (const auto& o : info.options) names.push_back(o.name);
    EXPECT_EQ(names, (std::vector<std::string>{"motion_force_zero", "motion_blend_factor", "motion_blend_offset",
                                               "motion_fps_weight", "motion_max_val", "motion_five_frame_window",
                                               "motion_moving_average", "debug"}));
    const ExtractorInfo* provider = find_extractor_by_feature(kMotion3);
    ASSERT_NE(provider, nullptr);
    EXPECT_STREQ(provider->name, "motion");
    EXPECT_EQ(make_motion(motion_options(), {8, 6, 8, Subsampling::k420})->previous_refs(), 1u);
}

TEST(MotionInfo, MaxValNamesAsGolden) {
    const Options options = motion_options({{"motion_max_val", "18"}});
    EXPECT_EQ(feature_alias(options.feature_name(kSad)), "VMAF_integer_feature_motion_sad_score_mmxv_18");
    EXPECT_EQ(options.feature_name(kMotion2), "integer_motion2_mmxv_18");
    EXPECT_EQ(options.feature_name(kMotion3), "integer_motion3_mmxv_18");
    // Defaults keep upstream's full names; their aliases are the golden names.
    EXPECT_EQ(feature_alias(motion_options().feature_name(kMotion2)), "integer_motion2");
    EXPECT_EQ(feature_alias(motion_options().feature_name(kSad)), kSad);
}

TEST(MotionInfo, Refusals) {
    EXPECT_THROW(make_motion(motion_options(), {2, 8, 8, Subsampling::k420}), Error);
    EXPECT_THROW(make_motion(motion_options(), {8, 2, 8, Subsampling::k420}), Error);
    EXPECT_THROW(make_motion(motion_options(), {1, 1, 8, Subsampling::k444}), Error);
    EXPECT_THROW(make_motion(motion_options(), {8, 8, 7, Subsampling::k420}), Error);
    EXPECT_THROW(make_motion(motion_options(), {8, 8, 17, Subsampling::k420}), Error);
    EXPECT_THROW(motion_options({{"motion_blend_factor", "1.5"}}), Error);
    EXPECT_THROW(motion_options({{"motion_max_val", "-1"}}), Error);

    const VideoFormat format{8, 6, 8, Subsampling::k420};
    const auto fex = make_motion(motion_options(), format);
    const Picture pic = constant_picture(format, 1);
    FrameScores out;
    EXPECT_THROW(fex->extract(FrameInput{1, &pic, &pic, nullptr, nullptr}, out), Error);  // no previous ref
    const Picture other = constant_picture({9, 6, 8, Subsampling::k420}, 1);
    EXPECT_THROW(fex->extract(FrameInput{1, &pic, &pic, &other, nullptr}, out), Error);  // size differs
    const Picture deep = constant_picture({8, 6, 10, Subsampling::k420}, 1);
    EXPECT_THROW(fex->extract(FrameInput{1, &pic, &pic, &deep, nullptr}, out), Error);  // depth differs
    EXPECT_NO_THROW(fex->extract(FrameInput{0, &pic, &pic, nullptr, nullptr}, out));   // frame 0 needs none
}

}  // namespace
}  // namespace vmafx
