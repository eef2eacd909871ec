// Tests of the integer VIF extractor ("vif"): bit-exactness against upstream libvmaf 3.2.0's
// golden values on every fixture, options and output names, refusal of impossible sizes.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "feature/vif/vif.hpp"
#include "feature/vif/vif_kernels.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

std::unique_ptr<FeatureExtractor> make_vif(const VideoFormat& format,
                                           const std::vector<std::pair<std::string, std::string>>& opts,
                                           Options* options_out = nullptr) {
    const ExtractorInfo& info = vif_extractor_info();
    Options options("vif", info.options, opts);
    if (options_out) *options_out = options;
    return info.create(options, format);
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

/// A picture of `format` whose luma is filled by a fixed pseudo-random generator (xorshift32)
/// with samples in [0, 2^bit_depth); chroma stays zero (vif reads luma only).
Picture random_picture(const VideoFormat& format, std::uint32_t seed) {
    Picture pic(format);
    std::uint32_t x = seed;
    const std::uint32_t mask = (1u << format.bit_depth) - 1u;
    Plane& y = pic.luma();
    for (int r = 0; r < y.height(); ++r)
        for (int c = 0; c < y.width(); ++c) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if (format.bit_depth == 8) y.row<std::uint8_t>(r)[c] = static_cast<std::uint8_t>(x & mask);
            else y.row<std::uint16_t>(r)[c] = static_cast<std::uint16_t>(x & mask);
        }
    return pic;
}

/// `pic` with its luma smoothed a little and noise added, as a distorted version of it.
Picture distort(const Picture& pic, std::uint32_t seed) {
    Picture out = pic;
    std::uint32_t x = seed;
    const int max = (1 << pic.format.bit_depth) - 1;
    const Plane& in = pic.luma();
    Plane& y = out.luma();
    for (int r = 0; r < y.height(); ++r)
        for (int c = 0; c < y.width(); ++c) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            const int left = static_cast<int>(in.at(c > 0 ? c - 1 : c, r));
            const int here = static_cast<int>(in.at(c, r));
            const int noise = static_cast<int>(x % 9) - 4;
            const int v = std::clamp((left + 3 * here) / 4 + noise * (max / 255), 0, max);
            if (pic.format.bit_depth == 8) y.row<std::uint8_t>(r)[c] = static_cast<std::uint8_t>(v);
            else y.row<std::uint16_t>(r)[c] = static_cast<std::uint16_t>(v);
        }
    return out;
}

TEST(VifInfo, NameOptionsAndFeatures) {
    const ExtractorInfo& info = vif_extractor_info();
    EXPECT_STREQ(info.name, "vif");
    ASSERT_EQ(info.options.size(), 3u);

    EXPECT_STREQ(info.options[0].name, "debug");
    EXPECT_EQ(info.options[0].alias, nullptr);
    EXPECT_EQ(info.options[0].type, OptionType::kBool);
    EXPECT_EQ(info.options[0].default_value, 0.0);
    EXPECT_FALSE(info.options[0].feature_param);

    EXPECT_STREQ(info.options[1].name, "vif_enhn_gain_limit");
    EXPECT_STREQ(info.options[1].alias, "egl");
    EXPECT_EQ(info.options[1].type, OptionType::kDouble);
    EXPECT_EQ(info.options[1].default_value, 100.0);
    EXPECT_EQ(info.options[1].min, 1.0);
    EXPECT_EQ(info.options[1].max, 100.0);
    EXPECT_TRUE(info.options[1].feature_param);

    EXPECT_STREQ(info.options[2].name, "vif_skip_scale0");
    EXPECT_STREQ(info.options[2].alias, "ssclz");
    EXPECT_EQ(info.options[2].type, OptionType::kBool);
    EXPECT_EQ(info.options[2].default_value, 0.0);
    EXPECT_TRUE(info.options[2].feature_param);

    const std::vector<std::string> expected = {
        "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
        "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
        "integer_vif", "integer_vif_num", "integer_vif_den", "integer_vif_num_scale0",
        "integer_vif_den_scale0", "integer_vif_num_scale1", "integer_vif_den_scale1",
        "integer_vif_num_scale2", "integer_vif_den_scale2", "integer_vif_num_scale3",
        "integer_vif_den_scale3"};
    EXPECT_EQ(info.provided_features, expected);
    EXPECT_EQ(find_extractor_by_feature("VMAF_integer_feature_vif_scale2_score"), find_extractor("vif"));
}

TEST(VifInfo, OutputNamesFollowOptions) {
    const VideoFormat format{64, 36, 8, Subsampling::k420};
    const Picture ref = random_picture(format, 1);
    const Picture dist = distort(ref, 2);

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
    const Picture dist = distort(ref, 4);
    const FrameScores all = run(*make_vif(format, {}), ref, dist);
    const FrameScores skip = run(*make_vif(format, {{"vif_skip_scale0", "true"}, {"debug", "true"}}), ref, dist);
    EXPECT_EQ(skip[0].first, "integer_vif_scale0_ssclz");
    EXPECT_EQ(skip[0].second, 0.0);
    for (int s = 1; s < 4; ++s) EXPECT_EQ(skip[s].second, all[s].second) << "scale " << s;
    EXPECT_EQ(score_of(skip, "integer_vif_num_scale0_ssclz"), 0.0);
    EXPECT_EQ(score_of(skip, "integer_vif_den_scale0_ssclz"), -1.0);
}

TEST(VifInfo, RejectsBadOptionsAndSizes) {
    const ExtractorInfo& info = vif_extractor_info();
    EXPECT_THROW(Options("vif", info.options, {{"vif_enhn_gain_limit", "0.5"}}), Error);
    EXPECT_THROW(Options("vif", info.options, {{"vif_enhn_gain_limit", "101"}}), Error);
    EXPECT_THROW(Options("vif", info.options, {{"no_such_option", "1"}}), Error);

    for (const auto& [w, h] : {std::pair{15, 64}, std::pair{64, 15}, std::pair{8, 8}, std::pair{1, 1}}) {
        try {
            make_vif(VideoFormat{w, h, 8, Subsampling::k420}, {});
            ADD_FAILURE() << w << "x" << h << " was accepted";
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("vif"), std::string::npos) << msg;
            EXPECT_NE(msg.find("16x16"), std::string::npos) << msg;
        }
    }
    EXPECT_NO_THROW(make_vif(VideoFormat{16, 16, 10, Subsampling::k420}, {}));

    // A picture of another size than the extractor was made for is refused, not read.
    const auto fex = make_vif(VideoFormat{64, 36, 8, Subsampling::k420}, {});
    const Picture small(VideoFormat{32, 36, 8, Subsampling::k420});
    EXPECT_THROW(run(*fex, small, small), Error);
}

TEST(VifInfo, RejectsSamplesAboveTheBitDepth) {
    // Upstream's C, AVX2 and AVX-512 code give three different results for such samples.
    const VideoFormat format{64, 36, 10, Subsampling::k420};
    const Picture ref = random_picture(format, 5);
    Picture dist = distort(ref, 6);
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

// extract() is const and keeps its working memory per thread: frames scored at the same time
// on several threads give the values they give one after another.
TEST(VifInfo, ParallelFramesMatchSequential) {
    const VideoFormat format{203, 117, 10, Subsampling::k420};
    const auto fex = make_vif(format, {{"debug", "true"}});
    constexpr int kFrames = 8;
    std::vector<Picture> refs, dists;
    std::vector<FrameScores> sequential;
    for (int i = 0; i < kFrames; ++i) {
        refs.push_back(random_picture(format, 100 + i));
        dists.push_back(distort(refs.back(), 200 + i));
        sequential.push_back(run(*fex, refs[i], dists[i], i));
    }
    std::vector<FrameScores> parallel(kFrames);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 3; ++round)
                for (int i = t; i < kFrames; i += 4) parallel[i] = run(*fex, refs[i], dists[i], i);
        });
    for (auto& th : threads) th.join();
    for (int i = 0; i < kFrames; ++i) EXPECT_EQ(parallel[i], sequential[i]) << "frame " << i;
}

// The SIMD kernels give the reference kernels' integers (and so the same floats) for every
// size (widths that are and are not multiples of 16, the smallest accepted), bit depth and
// option, on random, smooth and extreme content.
TEST(VifKernels, SimdMatchesReference) {
    const vif::Kernels* simd = &vif::simd_kernels();
    const std::pair<int, int> sizes[] = {{16, 16}, {17, 19}, {31, 33}, {48, 20}, {64, 36}, {97, 61}, {853, 481}};
    for (const int bpc : {8, 9, 10, 12, 16}) {
        for (const auto& [w, h] : sizes) {
            const VideoFormat format{w, h, bpc, Subsampling::k420};
            const std::uint32_t max = (1u << bpc) - 1;
            for (int content = 0; content < 3; ++content) {
                SCOPED_TRACE(testing::Message() << w << "x" << h << " " << bpc << "-bit content " << content);
                Picture ref = random_picture(format, 11 + content);
                Picture dist = distort(ref, 12 + content);
                if (content > 0) {
                    // 1: smooth ramps (few logarithm terms); 2: only 0 and the maximum.
                    for (int y = 0; y < h; ++y)
                        for (int x = 0; x < w; ++x) {
                            const std::uint32_t r = content == 1 ? (x * 7 + y * 3) * max / (10 * (w + h))
                                                                 : ((x * 5 + y * 3) % 7 < 3 ? max : 0);
                            const std::uint32_t d = content == 1 ? std::min(max, r + (ref.luma().at(x, y) & 3))
                                                                 : ((x + y) % 5 == 0 ? max - r : r);
                            if (bpc == 8) {
                                ref.luma().row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(r);
                                dist.luma().row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(d);
                            } else {
                                ref.luma().row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(r);
                                dist.luma().row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(d);
                            }
                        }
                }
                for (const double gain_limit : {100.0, 1.0}) {
                    const vif::Params params{bpc, false, gain_limit};
                    const auto want = vif::compute_scales(ref.luma(), dist.luma(), params, vif::generic_kernels());
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
// these exact luma planes (ref = random_picture(format, 7), dist = distort(ref, 8)), read through
// its API (vmaf_use_feature "vif", vmaf_feature_score_at_index) and printed with %.17g. Its C
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
        const Picture dist = distort(ref, 8);
        const FrameScores got = run(*make_vif(c.format, {}), ref, dist);
        for (int s = 0; s < 4; ++s)
            EXPECT_EQ(std::bit_cast<std::uint64_t>(got[s].second), std::bit_cast<std::uint64_t>(c.expected[s]))
                << "scale " << s << ": got " << got[s].second << " expected " << c.expected[s];
    }
}

TEST(VifGolden, AllFixturesBitExact) {
    VMAFX_REQUIRE_FIXTURES();
    const char* suffixes[] = {"", "_egl_1"};
    for (const std::string& fixture : test::golden_fixtures()) {
        SCOPED_TRACE(fixture);
        const VideoFormat format = test::fixture_format(fixture);
        const nlohmann::json golden = test::golden(fixture);
        const auto& frames = golden.at("frames");
        ASSERT_EQ(frames.size(), test::fixture_frames(fixture));
        Options plain_opts, egl_opts;
        const auto plain = make_vif(format, {}, &plain_opts);
        const auto egl = make_vif(format, {{"vif_enhn_gain_limit", "1"}}, &egl_opts);
        unsigned compared = 0;
        for (unsigned i = 0; i < frames.size(); ++i) {
            const Picture ref = test::fixture_frame(fixture, "ref", i);
            const Picture dist = test::fixture_frame(fixture, "dist", i);
            const FrameScores got_plain = run(*plain, ref, dist, i);
            const FrameScores got_egl = run(*egl, ref, dist, i);
            const auto& metrics = frames[i].at("metrics");
            for (int s = 0; s < 4; ++s) {
                const std::string feature = "VMAF_integer_feature_vif_scale" + std::to_string(s) + "_score";
                for (const char* sfx : suffixes) {
                    const bool is_egl = std::strlen(sfx) > 0;
                    // Golden files name outputs by their alias: integer_vif_scale0[_egl_1].
                    const std::string golden_name = feature_alias(feature) + sfx;
                    const std::string our_name = (is_egl ? egl_opts : plain_opts).feature_name(feature);
                    const double want = metrics.at(golden_name).get<double>();
                    const double have = score_of(is_egl ? got_egl : got_plain, our_name);
                    EXPECT_EQ(std::bit_cast<std::uint64_t>(have), std::bit_cast<std::uint64_t>(want))
                        << "frame " << i << " " << golden_name << ": got " << have << " golden " << want;
                    ++compared;
                }
            }
        }
        EXPECT_EQ(compared, frames.size() * 8);
    }
}

// The reference kernels alone (the scalar reference of the SIMD kernels) against the golden values too.
TEST(VifGolden, ReferenceKernelsBitExact) {
    VMAFX_REQUIRE_FIXTURES();
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
                const auto scores = vif::compute_scales(ref.luma(), dist.luma(), params, vif::generic_kernels());
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
