// The frame pipeline: same bits for every thread count, memory bounded by frames in flight.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "engine/parity.hpp"

namespace vmafx {
namespace {

namespace fs = std::filesystem;

class EngineTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("vmafx_engine_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path write_video(const std::string& name, const VideoFormat& f, int frames, unsigned seed, int noise) {
        write_random_video((dir_ / name).string(), f, frames, seed, noise);
        return dir_ / name;
    }

    RunConfig config(const VideoFormat& f, int frames) {
        RunConfig c;
        c.reference_path = write_video("ref.yuv", f, frames, 1, 0).string();
        c.distorted_path = write_video("dist.yuv", f, frames, 2, 6).string();
        c.raw_format = f;
        c.models.push_back(parse_model_spec("version=vmaf_v0.6.1"));
        c.models.push_back(parse_model_spec("version=vmaf_v0.6.1neg:name=vmaf_neg"));
        return c;
    }

    fs::path dir_;
};

bool same_bits(const RunResult& a, const RunResult& b) {
    if (a.scores.names() != b.scores.names() || a.frames != b.frames) return false;
    for (const auto& n : a.scores.names())
        for (unsigned i = 0; i < a.frames; ++i) {
            const auto x = a.scores.get(n, i), y = b.scores.get(n, i);
            if (x.has_value() != y.has_value()) return false;
            if (x && std::memcmp(&*x, &*y, sizeof(double)) != 0) return false;
        }
    return true;
}

TEST_F(EngineTest, SameBitsForEveryThreadCount) {
    VideoFormat f;
    f.width = 67;  // odd sizes, 10-bit
    f.height = 45;
    f.bit_depth = 10;
    RunConfig c = config(f, 7);
    c.threads = 1;
    const RunResult one = run(c);
    ASSERT_EQ(one.frames, 7u);
    ASSERT_TRUE(one.scores.get("vmaf", 6).has_value());
    ASSERT_TRUE(one.scores.get("vmaf_neg", 6).has_value());
    for (unsigned t : {2u, 3u, 8u}) {
        c.threads = t;
        EXPECT_TRUE(same_bits(one, run(c))) << t << " threads";
    }
}

TEST_F(EngineTest, PicturesBoundedByFramesInFlight) {
    VideoFormat f;
    f.width = 48;
    f.height = 40;
    RunConfig c = config(f, 48);
    c.threads = 2;
    const RunResult long_run = run(c);
    EXPECT_EQ(long_run.frames, 48u);
    // 2 x threads tokens, two pictures each, plus the previous reference motion keeps.
    EXPECT_LE(long_run.pictures_allocated, 2u * (2u * c.threads) + 2u);
    // The bound does not depend on the length: 48 frames never had more than that alive.
    EXPECT_LT(long_run.pictures_allocated, long_run.frames);
}

TEST_F(EngineTest, SubsampleScoresEveryNthFrame) {
    VideoFormat f;
    f.width = 48;
    f.height = 40;
    RunConfig c = config(f, 5);
    c.subsample = 2;
    const RunResult r = run(c);
    EXPECT_TRUE(r.scores.get("vmaf", 0).has_value());
    EXPECT_FALSE(r.scores.get("vmaf", 1).has_value());
    EXPECT_TRUE(r.scores.get("vmaf", 4).has_value());
    // motion sees every frame (it needs each previous reference), as upstream
    EXPECT_TRUE(r.scores.get("VMAF_integer_feature_motion_sad_score", 1).has_value());
}

TEST_F(EngineTest, FeatureSpecSyntax) {
    const FeatureSpec s = parse_feature_spec("adm=adm_enhn_gain_limit=1.0:debug=true");
    EXPECT_EQ(s.name, "adm");
    ASSERT_EQ(s.options.size(), 2u);
    EXPECT_EQ(s.options[0].first, "adm_enhn_gain_limit");
    EXPECT_EQ(s.options[0].second, "1");  // upstream normalizes numbers (%g of a float)
    EXPECT_EQ(s.options[1].second, "true");
    EXPECT_THROW(parse_feature_spec("vif=egl"), Error);
    EXPECT_THROW(parse_feature_spec("=x=1"), Error);
    EXPECT_THROW(parse_feature_spec("vif=a=1::b=2"), Error);
}

TEST_F(EngineTest, FeatureErrorsAreUsageErrors) {
    // What the caller asked for is wrong, not a file: the CLI exits with 2 on these.
    for (const char* text : {"nosuch", "=x=1", "vif=egl", "vif=nosuch=1", "vif=vif_enhn_gain_limit=0.5",
                             "motion=motion_force_zero=maybe"})
        EXPECT_THROW(parse_feature_spec(text), UsageError) << text;
    EXPECT_NO_THROW(parse_feature_spec("vif=vif_enhn_gain_limit=1.0"));
    // A FeatureSpec built by hand is checked by run() alike.
    VideoFormat f;
    f.width = 48;
    f.height = 40;
    RunConfig c = config(f, 2);
    c.features = {{"nosuch", {}}};
    EXPECT_THROW(run(c), UsageError);
    c.features = {{"vif", {{"nosuch", "1"}}}};
    EXPECT_THROW(run(c), UsageError);
}

TEST_F(EngineTest, ThreadsAboveTheLimitAreRefused) {
    VideoFormat f;
    f.width = 48;
    f.height = 40;
    RunConfig c = config(f, 2);
    // 4294967295 used to overflow 2 x threads frames in flight and end in std::bad_alloc.
    for (unsigned t : {kMaxThreads + 1, 4294967295u}) {
        c.threads = t;
        try {
            (void)run(c);
            ADD_FAILURE() << t << " threads accepted";
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find(std::to_string(kMaxThreads)), std::string::npos) << e.what();
        }
    }
    c.threads = kMaxThreads;
    EXPECT_EQ(run(c).frames, 2u);
}

TEST_F(EngineTest, HugeSubsampleScoresFrameZeroOnly) {
    // next + subsample must not wrap around to a frame below the count.
    VideoFormat f;
    f.width = 48;
    f.height = 40;
    RunConfig c = config(f, 3);
    c.subsample = 4294967295u;
    const RunResult r = run(c);
    EXPECT_TRUE(r.scores.get("vmaf", 0).has_value());
    EXPECT_FALSE(r.scores.get("vmaf", 1).has_value());
    EXPECT_FALSE(r.scores.get("vmaf", 2).has_value());
}

}  // namespace
}  // namespace vmafx
