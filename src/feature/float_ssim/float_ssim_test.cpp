// Tests of float_ssim beyond the registry-driven suites (test_metrics.cpp: golden values,
// option tables, the 11x11 limit, threads): upstream's values on small synthetic pictures
// (every option, the decimation scales, dB and its cap), the automatic scale, the refusals
// that depend on the scale and the bit depth, and the output names.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/float_ssim/float_ssim.hpp"
#include "feature/common/iqa.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using float_ssim::descriptor;

ScoreTable run(const OptionValues& values, const test::Clip& clip) {
    return test::run_cpu(descriptor, descriptor.parse_options(values), clip);
}

// The oracle values below are upstream's `vmaf` 3.2.0 (printing %.17g) on the same pictures
// written as raw 4:4:4 files (a Python copy of tests/pictures.cpp's random_picture and
// distorted_picture), e.g. for the first:
//   vmaf -r ref.yuv -d dist.yuv -w 11 -h 11 -p 444 -b 8 --no_prediction --json -o out.json -q
//       --feature float_ssim=enable_lcs=true (one line)

// 11x11: exactly one Gaussian window.
TEST(FloatSsim, OneWindowWithLcsAsUpstream) {
    const ScoreTable t = run({{"enable_lcs", "true"}}, test::pair_clip(11, 11, 8, 1, 2));
    EXPECT_EQ(test::value(t, "float_ssim"), 0.9408062100410461);
    EXPECT_EQ(test::value(t, "float_ssim_l"), 0.9996333122253418);
    EXPECT_EQ(test::value(t, "float_ssim_c"), 0.9828912019729614);
    EXPECT_EQ(test::value(t, "float_ssim_s"), 0.957533597946167);
}

// scale=2 on odd 37x29 10-bit: decimated to 19x15 (n / 2 + (n & 1)).
TEST(FloatSsim, ScaleTwoOddSizeTenBitAsUpstream) {
    const ScoreTable t = run({{"enable_lcs", "true"}, {"scale", "2"}}, test::pair_clip(37, 29, 10, 3, 4));
    EXPECT_EQ(test::value(t, "float_ssim"), 0.9637979865074158);
    EXPECT_EQ(test::value(t, "float_ssim_l"), 0.9999887347221375);
    EXPECT_EQ(test::value(t, "float_ssim_c"), 0.9878125786781311);
    EXPECT_EQ(test::value(t, "float_ssim_s"), 0.9756698608398438);
}

// scale=3 on 33x31: decimated to 12x11 (33 / 3 + 1: the parity is added, not a ceiling), in dB.
TEST(FloatSsim, ScaleThreeInDbAsUpstream) {
    const ScoreTable t = run({{"scale", "3"}, {"enable_db", "true"}}, test::pair_clip(33, 31, 8, 5, 6));
    EXPECT_EQ(test::value(t, "float_ssim"), 16.029434973740752);
}

// 16-bit (samples / 256), dB with the cap (not reached here).
TEST(FloatSsim, SixteenBitClippedDbAsUpstream) {
    const ScoreTable t = run({{"enable_db", "true"}, {"clip_db", "true"}}, test::pair_clip(40, 24, 16, 7, 8));
    EXPECT_EQ(test::value(t, "float_ssim"), 10.786743840488809);
}

// Identical pictures: SSIM exactly 1, so -10 log10(0) = +inf (upstream writes null), and with
// clip_db the cap ceil(10 log10(255^2 / (0.5 / (24 * 24)))) = ceil(78.8...) = 79.
TEST(FloatSsim, IdenticalPicturesInDbInfiniteOrCapped) {
    const test::Clip same = test::pair_clip(24, 24, 8, 9, 0);
    EXPECT_EQ(test::value(run({}, same), "float_ssim"), 1.0);
    EXPECT_EQ(test::value(run({{"enable_db", "true"}}, same), "float_ssim"), INFINITY);
    EXPECT_EQ(test::value(run({{"enable_db", "true"}, {"clip_db", "true"}}, same), "float_ssim"), 79.0);
    // clip_db alone changes nothing.
    EXPECT_EQ(test::value(run({{"clip_db", "true"}}, same), "float_ssim"), 1.0);
    EXPECT_EQ(iqa::max_db(true, 8, 24, 24), 79.0);
    EXPECT_EQ(iqa::max_db(true, 8, 64, 36), 85.0);  // 10 log10(65025 * 4608) = 84.77
    EXPECT_EQ(iqa::max_db(false, 8, 64, 36), INFINITY);
}

// Upstream's automatic scale: max(1, round(min(w, h) / 256)), halves away from zero.
TEST(FloatSsim, AutomaticScale) {
    const float_ssim::Settings s(descriptor.parse_options({}));
    EXPECT_EQ(s.factor(64, 36), 1);
    EXPECT_EQ(s.factor(1000, 383), 1);  // 1.496
    EXPECT_EQ(s.factor(384, 1000), 2);  // 1.5
    EXPECT_EQ(s.factor(1920, 1080), 4);  // 4.22
    EXPECT_EQ(s.factor(639, 4000), 2);
    EXPECT_EQ(s.factor(640, 4000), 3);  // 2.5
    EXPECT_EQ(s.factor(3840, 2160), 8);  // 8.44
    const float_ssim::Settings two(descriptor.parse_options({{"scale", "2"}}));
    EXPECT_EQ(two.factor(3840, 2160), 2);
}

// The window needs 11x11 samples after the decimation: refused one below, accepted at the edge
// (sides of n / scale + (n & 1) samples).
TEST(FloatSsim, RefusesPicturesTheScaleDecimatesBelowTheWindow) {
    const auto make = [](int scale, int w, int h) {
        descriptor.make_extractor(descriptor.parse_options({{"scale", std::to_string(scale)}}),
                                  VideoFormat{w, h, 8, Subsampling::k420});
    };
    EXPECT_NO_THROW(make(1, 11, 11));
    EXPECT_EQ(test::error_of([&] { make(1, 10, 11); }),
              "float_ssim: picture 10x11 is too small: its luma plane must be at least 11x11 (the 11x11 Gaussian window; "
              "upstream writes 0 or NaN below)");
    EXPECT_NO_THROW(make(2, 21, 22));  // 11x11
    EXPECT_EQ(test::error_of([&] { make(2, 20, 22); }),
              "float_ssim: picture 20x22 is too small for scale 2: decimated to 10x11, it must be at least 11x11 "
              "(the Gaussian window)");
    EXPECT_NO_THROW(make(3, 31, 31));  // 10 + 1
    test::expect_error([&] { make(3, 32, 33); }, {"float_ssim: picture 32x33 is too small for scale 3", "10x12"});
    EXPECT_NO_THROW(make(10, 109, 110));  // 10 + 1, 11
    test::expect_error([&] { make(10, 110, 108); }, {"scale 10", "decimated to 11x10"});
    // The automatic scale decimates no picture below the window: 384x384 gives 2, 192x192.
    EXPECT_NO_THROW(descriptor.make_extractor(descriptor.parse_options({}), VideoFormat{384, 384, 8}));
}

// Upstream's float copy knows 8, 10, 12 and 16 bits only.
TEST(FloatSsim, RefusesBitDepthsUpstreamReadsAsBytes) {
    const Options defaults = descriptor.parse_options({});
    for (const int bits : {8, 10, 12, 16})
        EXPECT_NO_THROW(descriptor.make_extractor(defaults, VideoFormat{16, 16, bits, Subsampling::k420})) << bits;
    for (const int bits : {9, 11, 13, 14, 15})
        EXPECT_EQ(test::error_of([&] { descriptor.make_extractor(defaults, VideoFormat{16, 16, bits}); }),
                  fmt::format("float_ssim: bit depth {} is not supported (8, 10, 12 or 16)", bits));
}

// No option is a feature parameter: the output names never carry option suffixes.
TEST(FloatSsim, OutputNamesIgnoreOptions) {
    const ScoreTable t = run({{"enable_lcs", "true"}, {"scale", "2"}, {"enable_db", "true"}, {"clip_db", "true"}},
                             test::pair_clip(30, 30, 8, 1, 2));
    EXPECT_EQ(t.names(), (std::vector<std::string>{"float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"}));
    EXPECT_EQ(run({}, test::pair_clip(30, 30, 8, 1, 2)).names(), std::vector<std::string>{"float_ssim"});
    try {
        (void)descriptor.parse_options({{"scale", "11"}});
        ADD_FAILURE() << "scale=11 accepted";
    } catch (const UsageError& e) {
        EXPECT_EQ(std::string(e.what()), "feature \"float_ssim\": option scale=11: out of range [0, 10]");
    }
}

}  // namespace
}  // namespace vmafx
