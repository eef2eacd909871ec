// Tests of the integer ADM extractor "adm": every frame of every golden fixture at 0
// tolerance (default options, adm_enhn_gain_limit=1, and the v1.0.16 model's options),
// the option table and output names against upstream's, and the refusals.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/parallel_for.h>

#include "feature/adm/adm.hpp"
#include "feature/feature_extractor.hpp"
#include "test_support.hpp"

namespace {

using vmafx::Error;
using vmafx::FeatureExtractor;
using vmafx::FrameInput;
using vmafx::FrameScores;
using vmafx::Options;
using vmafx::Picture;
using vmafx::VideoFormat;

using OptionValues = std::vector<std::pair<std::string, std::string>>;

Options adm_options(const OptionValues& values) {
    return Options("adm", vmafx::adm_extractor_info().options, values);
}

std::unique_ptr<FeatureExtractor> make_adm(const OptionValues& values, const VideoFormat& format) {
    return vmafx::adm_extractor_info().create(adm_options(values), format);
}

// The per-frame outputs the golden files hold (upstream's short names without options).
const std::vector<std::string> kCompared = {"integer_adm2",       "integer_aim",        "integer_adm3",
                                            "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2",
                                            "integer_adm_scale3"};

// One option set compared against the goldens: its options and the suffix upstream's
// names get from them.
struct OptionSet {
    OptionValues values;
    std::string suffix;
};
const std::vector<OptionSet> kGoldenSets = {
    {{}, ""},
    {{{"adm_enhn_gain_limit", "1"}}, "_egl_1"},
    // vmaf_v1.0.16 model's adm options
    {{{"adm_csf_mode", "2"},
      {"adm_dlm_weight", "0.7"},
      {"adm_enhn_gain_limit", "1"},
      {"adm_min_val", "0.5"},
      {"adm_noise_weight", "0.02"}},
     "_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02"},
};

bool same_double(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// Every frame of every golden fixture, every option set whose values the golden holds,
// bit for bit. Frames are scored in parallel (extract() is const and thread-safe).
TEST(AdmGolden, AllFixturesAllFramesBitExact) {
    VMAFX_REQUIRE_FIXTURES();
    std::size_t compared = 0;
    for (const std::string& fixture : vmafx::test::golden_fixtures()) {
        SCOPED_TRACE(fixture);
        const VideoFormat format = vmafx::test::fixture_format(fixture);
        const nlohmann::json golden = vmafx::test::golden(fixture);
        const auto& frames = golden.at("frames");
        const unsigned n = vmafx::test::fixture_frames(fixture);
        ASSERT_EQ(frames.size(), n);

        std::vector<std::unique_ptr<FeatureExtractor>> extractors;
        std::vector<const OptionSet*> sets;
        for (const OptionSet& set : kGoldenSets) {
            // Only sets the golden file has values of (upstream refused the v1.0.16 model
            // at 64x36 for another of its features).
            if (!frames.at(0).at("metrics").contains("integer_adm2" + set.suffix)) continue;
            extractors.push_back(make_adm(set.values, format));
            sets.push_back(&set);
        }
        ASSERT_GE(sets.size(), 2u) << "golden values of the default and egl_1 outputs expected";

        std::vector<std::vector<FrameScores>> scores(n, std::vector<FrameScores>(sets.size()));
        tbb::parallel_for(0u, n, [&](unsigned i) {
            const Picture ref = vmafx::test::fixture_frame(fixture, "ref", i);
            const Picture dist = vmafx::test::fixture_frame(fixture, "dist", i);
            FrameInput in;
            in.index = i;
            in.ref = &ref;
            in.dist = &dist;
            for (std::size_t s = 0; s < sets.size(); ++s) extractors[s]->extract(in, scores[i][s]);
        });

        for (unsigned i = 0; i < n; ++i) {
            const auto& metrics = frames.at(i).at("metrics");
            for (std::size_t s = 0; s < sets.size(); ++s) {
                const FrameScores& out = scores[i][s];
                ASSERT_EQ(out.size(), kCompared.size());
                for (std::size_t k = 0; k < kCompared.size(); ++k) {
                    const std::string key = kCompared[k] + sets[s]->suffix;
                    EXPECT_EQ(vmafx::feature_alias(out[k].first), key);
                    const double want = metrics.at(key).get<double>();
                    EXPECT_TRUE(same_double(out[k].second, want))
                        << "frame " << i << " " << key << ": " << out[k].second << " != golden " << want;
                    ++compared;
                }
            }
        }
    }
    // 12 fixtures x 2..3 option sets x 7 outputs; fails loudly if the goldens went missing.
    EXPECT_GT(compared, 1500u);
}

TEST(AdmOptions, TableIsUpstreams) {
    struct Expected {
        const char* name;
        const char* alias;
        vmafx::OptionType type;
        double def, min, max;
        bool feature_param;
    };
    using vmafx::OptionType;
    const Expected expected[] = {
        {"debug", nullptr, OptionType::kBool, 0, 0, 1, false},
        {"adm_csf_scale", "scf", OptionType::kDouble, 1.0, 0.0, 50.0, true},
        {"adm_csf_diag_scale", "scfd", OptionType::kDouble, 1.0, 0.0, 50.0, true},
        {"adm_dlm_weight", "dlmw", OptionType::kDouble, 0.5, 0.0, 1.0, true},
        {"adm_enhn_gain_limit", "egl", OptionType::kDouble, 100.0, 1.0, 100.0, true},
        {"adm_norm_view_dist", "nvd", OptionType::kDouble, 3.0, 0.75, 24.0, true},
        {"adm_ref_display_height", "rdh", OptionType::kInt, 1080, 1, 4320, true},
        {"adm_csf_mode", "csf", OptionType::kInt, 0, 0, 3, true},
        {"adm_noise_weight", "nw", OptionType::kDouble, 0.03125, 0.0, 1500.0, true},
        {"adm_skip_aim", nullptr, OptionType::kBool, 0, 0, 1, false},
        {"adm_skip_scale0", "ssz", OptionType::kBool, 0, 0, 1, true},
        {"adm_min_val", "min", OptionType::kDouble, 0.0, 0.0, 1.0, true},
    };
    const auto& info = vmafx::adm_extractor_info();
    EXPECT_STREQ(info.name, "adm");
    ASSERT_EQ(info.options.size(), std::size(expected));
    for (std::size_t i = 0; i < info.options.size(); ++i) {
        const auto& o = info.options[i];
        const auto& e = expected[i];
        SCOPED_TRACE(e.name);
        EXPECT_STREQ(o.name, e.name);
        if (e.alias) EXPECT_STREQ(o.alias, e.alias);
        else EXPECT_EQ(o.alias, nullptr);
        EXPECT_EQ(o.type, e.type);
        EXPECT_EQ(o.default_value, e.def);
        EXPECT_EQ(o.min, e.min);
        EXPECT_EQ(o.max, e.max);
        EXPECT_EQ(o.feature_param, e.feature_param);
    }
    EXPECT_EQ(info.provided_features,
              (std::vector<std::string>{
                  "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
                  "VMAF_integer_feature_adm3_score", "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2",
                  "integer_adm_scale3", "integer_adm", "integer_adm_num", "integer_adm_den", "integer_adm_num_scale0",
                  "integer_adm_den_scale0", "integer_adm_num_scale1", "integer_adm_den_scale1",
                  "integer_adm_num_scale2", "integer_adm_den_scale2", "integer_adm_num_scale3",
                  "integer_adm_den_scale3"}));
    EXPECT_EQ(vmafx::find_extractor_by_feature("VMAF_integer_feature_adm2_score"), vmafx::find_extractor("adm"));
    // Out-of-range values are refused by the option parser.
    EXPECT_THROW(adm_options({{"adm_enhn_gain_limit", "0.5"}}), Error);
    EXPECT_THROW(adm_options({{"adm_csf_mode", "4"}}), Error);
}

// Synthetic 8-bit frames: a gradient reference and a noisy, shifted copy.
void fill_frames(Picture& ref, Picture& dist, unsigned seed) {
    auto& r = ref.luma();
    auto& d = dist.luma();
    std::uint32_t state = seed;
    for (int y = 0; y < r.height(); ++y) {
        for (int x = 0; x < r.width(); ++x) {
            state = state * 1664525u + 1013904223u;
            const int v = (x * 7 + y * 3) % 256;
            r.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
            d.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(std::clamp(v + static_cast<int>(state >> 28) - 8, 0, 255));
        }
    }
}

FrameScores score(const FeatureExtractor& ex, const Picture& ref, const Picture& dist) {
    FrameInput in;
    in.ref = &ref;
    in.dist = &dist;
    FrameScores out;
    ex.extract(in, out);
    return out;
}

TEST(AdmOutputs, NamesFollowOptions) {
    VideoFormat f;
    f.width = 96;
    f.height = 64;
    Picture ref(f), dist(f);
    fill_frames(ref, dist, 1);

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

    const FrameScores v1016 = score(*make_adm(kGoldenSets[2].values, f), ref, dist);
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

TEST(AdmRefusal, ImpossibleSizesAndViewingConditions) {
    VideoFormat f;
    f.width = 32;
    f.height = 64;
    try {
        make_adm({}, f);
        FAIL() << "32x64 accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("adm"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("33"), std::string::npos) << e.what();
    }
    f.width = 640;
    f.height = 16;
    EXPECT_THROW(make_adm({}, f), Error);
    f.width = f.height = 1;
    EXPECT_THROW(make_adm({}, f), Error);
    f.width = f.height = 33;  // the smallest accepted
    EXPECT_NO_THROW(make_adm({}, f));

    // Upstream fails every frame when nvd * rdh < 3.0 * 1080.
    f.width = 640;
    f.height = 360;
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

TEST(AdmThreads, ParallelFramesEqualSequential) {
    VideoFormat f;
    f.width = 200;
    f.height = 120;
    f.bit_depth = 8;
    const auto ex = make_adm({}, f);
    constexpr int kFrames = 8;
    std::vector<Picture> refs, dists;
    for (int i = 0; i < kFrames; ++i) {
        refs.emplace_back(f);
        dists.emplace_back(f);
        fill_frames(refs.back(), dists.back(), static_cast<unsigned>(i + 1));
    }
    std::vector<FrameScores> seq(kFrames), par(kFrames);
    for (int i = 0; i < kFrames; ++i) seq[i] = score(*ex, refs[i], dists[i]);
    std::vector<std::thread> threads;
    for (int i = 0; i < kFrames; ++i)
        threads.emplace_back([&, i] { par[i] = score(*ex, refs[i], dists[i]); });
    for (auto& t : threads) t.join();
    for (int i = 0; i < kFrames; ++i) {
        ASSERT_EQ(seq[i].size(), par[i].size());
        for (std::size_t k = 0; k < seq[i].size(); ++k) EXPECT_TRUE(same_double(seq[i][k].second, par[i][k].second));
    }
}

// The per-thread scratch memory carries nothing from one frame to the next, also when the
// picture size and bit depth change between calls on one thread.
TEST(AdmThreads, ScratchReuseAcrossSizes) {
    VideoFormat big;
    big.width = 300;
    big.height = 170;
    VideoFormat small;
    small.width = 97;
    small.height = 65;
    small.bit_depth = 10;
    Picture ref_big(big), dist_big(big);
    fill_frames(ref_big, dist_big, 7);
    Picture ref_small(small), dist_small(small);
    for (int y = 0; y < small.height; ++y) {
        for (int x = 0; x < small.width; ++x) {
            ref_small.luma().row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>((x * 37 + y * 11) % 1024);
            dist_small.luma().row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>((x * 37 + y * 13) % 1024);
        }
    }
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
