// Tests of the integer ADM extractor "adm" beyond the registry-driven suites (test_metrics.cpp:
// golden values, tables, refusals, threads): its output names under options, the debug outputs
// and the adm3 formula, adm_skip_aim and adm_skip_scale0, the viewing conditions it refuses, a
// picture of another size, and its per-thread scratch memory.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/adm/adm.hpp"
#include "test_support.hpp"

namespace {

using vmafx::Error;
using vmafx::FeatureExtractor;
using vmafx::FrameInput;
using vmafx::FrameScores;
using vmafx::OptionValues;
using vmafx::Picture;
using vmafx::VideoFormat;
using vmafx::adm::descriptor;

std::unique_ptr<FeatureExtractor> make_adm(const OptionValues& values, const VideoFormat& format) {
    return descriptor.make_extractor(descriptor.parse_options(values), format);
}

// vmaf_v1.0.16 models' adm options.
const OptionValues kV1016 = {{"adm_csf_mode", "2"},
                             {"adm_dlm_weight", "0.7"},
                             {"adm_enhn_gain_limit", "1"},
                             {"adm_min_val", "0.5"},
                             {"adm_noise_weight", "0.02"}};

bool same_double(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// A smooth reference and a distorted copy of it (8 bits unless the format says otherwise).
struct Pair {
    Picture ref, dist;
    Pair(const VideoFormat& f, std::uint32_t seed)
        : ref(vmafx::test::smooth_picture(f, seed)), dist(vmafx::test::distorted_picture(ref, seed + 1)) {}
};

FrameScores score(const FeatureExtractor& ex, const Picture& ref, const Picture& dist) {
    FrameInput in;
    in.ref = &ref;
    in.dist = &dist;
    FrameScores out;
    ex.extract(in, out);
    return out;
}

TEST(AdmOutputs, NamesFollowOptions) {
    const VideoFormat f{96, 64, 8, vmafx::Subsampling::k420};
    const Pair p(f, 1);
    const Picture& ref = p.ref;
    const Picture& dist = p.dist;

    const FrameScores def = score(*make_adm({}, f), ref, dist);
    ASSERT_EQ(def.size(), 7u);
    EXPECT_EQ(def[0].first, "VMAF_integer_feature_adm2_score");
    EXPECT_EQ(def[1].first, "VMAF_integer_feature_aim_score");
    EXPECT_EQ(def[2].first, "VMAF_integer_feature_adm3_score");
    EXPECT_EQ(def[3].first, "integer_adm_scale0");
    EXPECT_EQ(def[6].first, "integer_adm_scale3");

    const FrameScores egl = score(*make_adm({{"adm_enhn_gain_limit", "1"}}, f), ref, dist);
    EXPECT_EQ(egl[0].first, "integer_adm2_egl_1");
    EXPECT_EQ(egl[3].first, "integer_adm_scale0_egl_1");

    const FrameScores v1016 = score(*make_adm(kV1016, f), ref, dist);
    EXPECT_EQ(v1016[0].first, "integer_adm2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02");
    EXPECT_EQ(v1016[2].first, "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02");

    // debug: 18 outputs; "integer_adm" repeats adm2; num/den per scale give the scale ratios.
    const FrameScores dbg = score(*make_adm({{"debug", "true"}}, f), ref, dist);
    ASSERT_EQ(dbg.size(), 18u);
    EXPECT_EQ(dbg[7].first, "integer_adm");
    EXPECT_TRUE(same_double(dbg[7].second, dbg[0].second));
    EXPECT_EQ(dbg[17].first, "integer_adm_den_scale3");
    for (int k = 0; k < 4; ++k) EXPECT_TRUE(same_double(dbg[3 + k].second, dbg[10 + 2 * k].second / dbg[11 + 2 * k].second));
    for (int k = 0; k < 7; ++k) EXPECT_TRUE(same_double(dbg[k].second, def[k].second));

    // adm3 = max(adm2 * w + (1 - aim) * (1 - w), min); skipping AIM leaves aim 0.
    const FrameScores noaim = score(*make_adm({{"adm_skip_aim", "true"}}, f), ref, dist);
    EXPECT_EQ(noaim[1].second, 0.0);
    EXPECT_TRUE(same_double(noaim[0].second, def[0].second));
    EXPECT_TRUE(same_double(def[2].second, std::max(def[0].second * 0.5 + (1 - def[1].second) * 0.5, 0.0)));
    // Skipping scale 0 zeroes its score and is a feature parameter ("ssz").
    const FrameScores ssz = score(*make_adm({{"adm_skip_scale0", "true"}}, f), ref, dist);
    EXPECT_EQ(ssz[3].first, "integer_adm_scale0_ssz");
    EXPECT_EQ(ssz[3].second, 0.0);
}

TEST(AdmRefusal, ViewingConditionsAndPicturesOfAnotherSize) {
    // Upstream fails every frame when nvd * rdh < 3.0 * 1080.
    VideoFormat f{640, 360, 8, vmafx::Subsampling::k420};
    try {
        make_adm({{"adm_norm_view_dist", "2"}}, f);
        FAIL() << "nvd 2 accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("adm"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("3240"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(make_adm({{"adm_norm_view_dist", "1.5"}, {"adm_ref_display_height", "2160"}}, f));

    // A frame of another size than the extractor's format is refused, not read out of bounds.
    const auto ex = make_adm({}, f);
    VideoFormat g = f;
    g.width = 320;
    Picture ref(g), dist(g);
    FrameInput in;
    in.ref = &ref;
    in.dist = &dist;
    FrameScores out;
    EXPECT_THROW(ex->extract(in, out), Error);
}

// The per-thread scratch memory carries nothing from one frame to the next, also when the
// picture size and bit depth change between calls on one thread.
TEST(AdmThreads, ScratchReuseAcrossSizes) {
    const VideoFormat big{300, 170, 8, vmafx::Subsampling::k420};
    const VideoFormat small{97, 65, 10, vmafx::Subsampling::k420};
    const Pair b(big, 7), s(small, 9);
    const Picture &ref_big = b.ref, &dist_big = b.dist, &ref_small = s.ref;
    const Picture dist_small = vmafx::test::random_picture(small, 10);
    const auto ex_big = make_adm({}, big);
    const auto ex_small = make_adm({}, small);
    const FrameScores small_first = score(*ex_small, ref_small, dist_small);
    const FrameScores big_first = score(*ex_big, ref_big, dist_big);
    const FrameScores small_again = score(*ex_small, ref_small, dist_small);
    const FrameScores big_again = score(*ex_big, ref_big, dist_big);
    ASSERT_EQ(small_first.size(), 7u);
    for (std::size_t k = 0; k < 7; ++k) {
        EXPECT_TRUE(same_double(small_first[k].second, small_again[k].second)) << small_first[k].first;
        EXPECT_TRUE(same_double(big_first[k].second, big_again[k].second)) << big_first[k].first;
    }
}

}  // namespace
