// Tests of the integer VIF extractor ("vif") beyond the registry-driven suites (test_metrics.cpp:
// golden values, tables, refusals, threads): its debug outputs and vif_skip_scale0, what
// extract() refuses (another size, samples above the bit depth), its AVX2 kernels against the
// reference kernels, upstream's values on random content, and the reference kernels alone
// against the golden values.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/vif/vif.hpp"
#include "feature/vif/vif_kernels.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

using test::distorted_picture;
using test::random_picture;

std::unique_ptr<FeatureExtractor> make_vif(const VideoFormat& format, const OptionValues& opts) {
    return vif::descriptor.make_extractor(vif::descriptor.parse_options(opts), format);
}

FrameScores run(const FeatureExtractor& fex, const Picture& ref, const Picture& dist, unsigned index = 0) {
    FrameInput in;
    in.index = index;
    in.ref = &ref;
    in.dist = &dist;
    FrameScores out;
    fex.extract(in, out);
    return out;
}

double score_of(const FrameScores& scores, const std::string& name) {
    for (const auto& [n, v] : scores)
        if (n == name) return v;
    ADD_FAILURE() << "no output named " << name;
    return 0.0;
}

std::vector<std::string> names_of(const FrameScores& scores) {
    std::vector<std::string> out;
    for (const auto& s : scores) out.push_back(s.first);
    return out;
}

TEST(VifInfo, OutputNamesFollowOptions) {
    const VideoFormat format{64, 36, 8, Subsampling::k420};
    const Picture ref = random_picture(format, 1);
    const Picture dist = distorted_picture(ref, 2);

    EXPECT_EQ(names_of(run(*make_vif(format, {}), ref, dist)),
              (std::vector<std::string>{"VMAF_integer_feature_vif_scale0_score",
                                        "VMAF_integer_feature_vif_scale1_score",
                                        "VMAF_integer_feature_vif_scale2_score",
                                        "VMAF_integer_feature_vif_scale3_score"}));
    // The default value written out changes nothing.
    EXPECT_EQ(names_of(run(*make_vif(format, {{"vif_enhn_gain_limit", "100"}}), ref, dist))[0],
              "VMAF_integer_feature_vif_scale0_score");
    EXPECT_EQ(names_of(run(*make_vif(format, {{"vif_enhn_gain_limit", "1"}}), ref, dist)),
              (std::vector<std::string>{"integer_vif_scale0_egl_1", "integer_vif_scale1_egl_1",
                                        "integer_vif_scale2_egl_1", "integer_vif_scale3_egl_1"}));
    EXPECT_EQ(names_of(run(*make_vif(format, {{"vif_enhn_gain_limit", "1.5"}}), ref, dist))[3],
              "integer_vif_scale3_egl_1.5");

    // debug is not a feature parameter: it adds outputs without renaming any.
    const FrameScores dbg = run(*make_vif(format, {{"debug", "true"}, {"vif_enhn_gain_limit", "1"}}), ref, dist);
    EXPECT_EQ(names_of(dbg),
              (std::vector<std::string>{
                  "integer_vif_scale0_egl_1", "integer_vif_scale1_egl_1", "integer_vif_scale2_egl_1",
                  "integer_vif_scale3_egl_1", "integer_vif_egl_1", "integer_vif_num_egl_1", "integer_vif_den_egl_1",
                  "integer_vif_num_scale0_egl_1", "integer_vif_den_scale0_egl_1", "integer_vif_num_scale1_egl_1",
                  "integer_vif_den_scale1_egl_1", "integer_vif_num_scale2_egl_1", "integer_vif_den_scale2_egl_1",
                  "integer_vif_num_scale3_egl_1", "integer_vif_den_scale3_egl_1"}));
    // Each scale score is the float quotient of its float numerator and denominator.
    for (int s = 0; s < 4; ++s) {
        const std::string sfx = "_scale" + std::to_string(s) + "_egl_1";
        const float num = static_cast<float>(score_of(dbg, "integer_vif_num" + sfx));
        const float den = static_cast<float>(score_of(dbg, "integer_vif_den" + sfx));
        EXPECT_EQ(score_of(dbg, "integer_vif" + sfx), static_cast<double>(num / den));
    }
    EXPECT_EQ(score_of(dbg, "integer_vif_egl_1"),
              score_of(dbg, "integer_vif_num_egl_1") / score_of(dbg, "integer_vif_den_egl_1"));
}

TEST(VifInfo, SkipScale0) {
    const VideoFormat format{64, 36, 8, Subsampling::k420};
    const Picture ref = random_picture(format, 3);
    const Picture dist = distorted_picture(ref, 4);
    const FrameScores all = run(*make_vif(format, {}), ref, dist);
    const FrameScores skip = run(*make_vif(format, {{"vif_skip_scale0", "true"}, {"debug", "true"}}), ref, dist);
    EXPECT_EQ(skip[0].first, "integer_vif_scale0_ssclz");
    EXPECT_EQ(skip[0].second, 0.0);
    for (int s = 1; s < 4; ++s) EXPECT_EQ(skip[s].second, all[s].second) << "scale " << s;
    EXPECT_EQ(score_of(skip, "integer_vif_num_scale0_ssclz"), 0.0);
    EXPECT_EQ(score_of(skip, "integer_vif_den_scale0_ssclz"), -1.0);
}

// A picture of another size than the extractor was made for is refused, not read.
TEST(VifInfo, RefusesPicturesOfAnotherSize) {
    const auto fex = make_vif(VideoFormat{64, 36, 8, Subsampling::k420}, {});
    const Picture small(VideoFormat{32, 36, 8, Subsampling::k420});
    EXPECT_THROW(run(*fex, small, small), Error);
}

TEST(VifInfo, RejectsSamplesAboveTheBitDepth) {
    // Upstream's C, AVX2 and AVX-512 code give three different results for such samples.
    const VideoFormat format{64, 36, 10, Subsampling::k420};
    const Picture ref = random_picture(format, 5);
    Picture dist = distorted_picture(ref, 6);
    const auto fex = make_vif(format, {});
    EXPECT_NO_THROW(run(*fex, ref, dist));
    dist.luma().row<std::uint16_t>(7)[3] = 1024;
    try {
        run(*fex, ref, dist);
        ADD_FAILURE() << "a 10-bit sample of 1024 was accepted";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("vif"), std::string::npos) << msg;
        EXPECT_NE(msg.find("(3, 7) is 1024"), std::string::npos) << msg;
        EXPECT_NE(msg.find("1023"), std::string::npos) << msg;
    }
}

// The SIMD kernels give the reference kernels' integers (and so the same floats) for every
// size (widths that are and are not multiples of 16, the smallest accepted), bit depth and
// option, on random, smooth and extreme content.
TEST(VifKernels, SimdMatchesReference) {
    const vif::RowKernels* simd = &vif::simd_kernels();
    const std::pair<int, int> sizes[] = {{16, 16}, {17, 19}, {31, 33}, {48, 20}, {64, 36}, {97, 61}, {853, 481}};
    for (const int bpc : {8, 9, 10, 12, 16}) {
        for (const auto& [w, h] : sizes) {
            const VideoFormat format{w, h, bpc, Subsampling::k420};
            for (int content = 0; content < 3; ++content) {
                SCOPED_TRACE(testing::Message() << w << "x" << h << " " << bpc << "-bit content " << content);
                // 0: random; 1: smooth ramps (few logarithm terms); 2: only 0 and the maximum.
                const std::uint32_t seed = 11 + static_cast<std::uint32_t>(content);
                const Picture ref = content == 0   ? random_picture(format, seed)
                                    : content == 1 ? test::smooth_picture(format, seed, 1)
                                                   : test::extreme_picture(format, seed);
                const Picture dist = content == 2 ? test::sprinkled_picture(ref, ref.luma().width() * 2, seed + 1)
                                                  : distorted_picture(ref, seed + 1);
                for (const double gain_limit : {100.0, 1.0}) {
                    const vif::Params params{bpc, false, gain_limit};
                    const auto want = vif::compute_scales(ref.luma(), dist.luma(), params, vif::reference_kernels());
                    const auto have = vif::compute_scales(ref.luma(), dist.luma(), params, *simd);
                    for (int s = 0; s < vif::kScales; ++s) {
                        EXPECT_EQ(std::bit_cast<std::uint32_t>(have[s].num), std::bit_cast<std::uint32_t>(want[s].num))
                            << "scale " << s << " num " << have[s].num << " vs " << want[s].num;
                        EXPECT_EQ(std::bit_cast<std::uint32_t>(have[s].den), std::bit_cast<std::uint32_t>(want[s].den))
                            << "scale " << s << " den " << have[s].den << " vs " << want[s].den;
                    }
                }
            }
        }
    }
}

// Scores of random-content frame pairs (odd sizes, 8 to 16 bits, the smallest accepted size):
// the values upstream libvmaf 3.2.0 (its AVX-512 build, as the golden files were made) wrote for
// these exact luma planes (ref = random_picture(format, 7), dist = distorted_picture(ref, 8): the
// luma of both is what the pictures library makes of these seeds), read through its API (vmaf_use_feature "vif", vmaf_feature_score_at_index) and printed with %.17g. Its C
// and AVX2 paths give the same values.
TEST(VifOracle, RandomContent) {
    struct Case {
        VideoFormat format;
        double expected[4];
    };
    const std::vector<Case> cases = {
        {{853, 481, 8, Subsampling::k420}, {0.28890970349311829, 0.86495769023895264, 0.94904804229736328, 0.97744375467300415}},
        {{67, 45, 10, Subsampling::k420}, {0.29049763083457947, 0.85204184055328369, 0.9403650164604187, 0.96615469455718994}},
        {{50, 33, 12, Subsampling::k420}, {0.28851160407066345, 0.84198093414306641, 0.94905674457550049, 0.98002612590789795}},
        {{41, 29, 16, Subsampling::k420}, {0.29029092192649841, 0.87877935171127319, 0.94971239566802979, 0.95957136154174805}},
        {{16, 16, 8, Subsampling::k420}, {0.29772254824638367, 0.79688286781311035, 0.89487171173095703, 0.68287563323974609}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::Message() << c.format.width << "x" << c.format.height << " " << c.format.bit_depth
                                        << "-bit");
        const Picture ref = random_picture(c.format, 7);
        const Picture dist = distorted_picture(ref, 8);
        const FrameScores got = run(*make_vif(c.format, {}), ref, dist);
        for (int s = 0; s < 4; ++s)
            EXPECT_EQ(std::bit_cast<std::uint64_t>(got[s].second), std::bit_cast<std::uint64_t>(c.expected[s]))
                << "scale " << s << ": got " << got[s].second << " expected " << c.expected[s];
    }
}

// The reference kernels alone (the scalar reference of the SIMD kernels) against the golden values too.
TEST(VifGolden, ReferenceKernelsBitExact) {
    VMAFX_REQUIRE_GOLDEN_FIXTURES();
    for (const std::string& fixture : test::golden_fixtures()) {
        SCOPED_TRACE(fixture);
        const VideoFormat format = test::fixture_format(fixture);
        const nlohmann::json golden = test::golden(fixture);
        const auto& frames = golden.at("frames");
        ASSERT_EQ(frames.size(), test::fixture_frames(fixture));
        for (unsigned i = 0; i < frames.size(); ++i) {
            const Picture ref = test::fixture_frame(fixture, "ref", i);
            const Picture dist = test::fixture_frame(fixture, "dist", i);
            for (const double gain_limit : {100.0, 1.0}) {
                const vif::Params params{format.bit_depth, false, gain_limit};
                const auto scores = vif::compute_scales(ref.luma(), dist.luma(), params, vif::reference_kernels());
                for (int s = 0; s < vif::kScales; ++s) {
                    const std::string name =
                        "integer_vif_scale" + std::to_string(s) + (gain_limit == 1.0 ? "_egl_1" : "");
                    const double want = frames[i].at("metrics").at(name).get<double>();
                    const double have = scores[s].num / scores[s].den;
                    EXPECT_EQ(std::bit_cast<std::uint64_t>(have), std::bit_cast<std::uint64_t>(want))
                        << "frame " << i << " " << name << ": got " << have << " golden " << want;
                }
            }
        }
    }
}

}  // namespace
}  // namespace vmafx
