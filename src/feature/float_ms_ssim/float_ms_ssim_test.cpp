// Tests of float_ms_ssim beyond the registry-driven suites (test_metrics.cpp: golden values,
// option tables, threads): the 176x176 limit at its edge, upstream's values on synthetic
// pictures (the l, c, s means of every scale, odd sizes, 16 bits, dB and its cap), the
// bit-depth refusal, and scale 0 of MS-SSIM being float_ssim's SSIM terms.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/float_ms_ssim/float_ms_ssim.hpp"
#include "feature/float_ssim/float_ssim.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using float_ms_ssim::descriptor;

// Upstream refuses a side whose fourth halving (rounded down) is below 11: 175 -> 10.
TEST(FloatMsSsim, RefusesSidesBelow176) {
    const Options defaults = descriptor.parse_options({});
    const auto make = [&](int w, int h) {
        descriptor.make_extractor(defaults, VideoFormat{w, h, 8, Subsampling::k420});
    };
    EXPECT_NO_THROW(make(176, 176));
    for (const auto& [w, h] : {std::pair{175, 176}, std::pair{176, 175}, std::pair{64, 36}})
        EXPECT_EQ(test::error_of([&] { make(w, h); }),
                  fmt::format("float_ms_ssim: picture {}x{} is too small: its luma plane must be at least 176x176 (its fifth "
                              "scale, four halvings rounded down, must hold the 11x11 Gaussian window)",
                              w, h));
    EXPECT_EQ(test::error_of([&] { descriptor.make_extractor(defaults, VideoFormat{176, 176, 14}); }),
              "float_ms_ssim: bit depth 14 is not supported (8, 10, 12 or 16)");
}

// The oracle values are upstream's `vmaf` 3.2.0 (printing %.17g) on the same pictures written
// as raw 4:4:4 files (a Python copy of tests/pictures.cpp's random_picture and
// distorted_picture), e.g.
//   vmaf -r ref.yuv -d dist.yuv -w 176 -h 176 -p 444 -b 8 --no_prediction --json -o out.json -q
//       --feature float_ms_ssim=enable_lcs=true (one line)
TEST(FloatMsSsim, EveryScaleWithLcsAsUpstream) {
    const test::Clip clip = test::pair_clip(176, 176, 8, 11, 12);
    const ScoreTable t = test::run_cpu(descriptor, descriptor.parse_options({{"enable_lcs", "true"}}), clip);
    EXPECT_EQ(test::value(t, "float_ms_ssim"), 0.9831416621000572);
    const double l[] = {0.9999037384986877, 0.9999889731407166, 0.9999953508377075, 0.9999955296516418,
                        0.9999953508377075};
    const double c[] = {0.9690241813659668, 0.9943983554840088, 0.9995047450065613, 0.9999063014984131,
                        0.9999561905860901};
    const double s[] = {0.9480593800544739, 0.9720650315284729, 0.9911559224128723, 0.9974632263183594,
                        0.9995248317718506};
    std::vector<std::string> names = {"float_ms_ssim"};
    for (const char* term : {"l", "c", "s"})
        for (int k = 0; k < 5; ++k) names.push_back(fmt::format("float_ms_ssim_{}_scale{}", term, k));
    EXPECT_EQ(t.names(), names);
    for (int k = 0; k < 5; ++k) {
        EXPECT_EQ(test::value(t, fmt::format("float_ms_ssim_l_scale{}", k)), l[k]) << k;
        EXPECT_EQ(test::value(t, fmt::format("float_ms_ssim_c_scale{}", k)), c[k]) << k;
        EXPECT_EQ(test::value(t, fmt::format("float_ms_ssim_s_scale{}", k)), s[k]) << k;
    }
    // Scale 0 is float_ssim's SSIM (no decimation) term by term.
    const ScoreTable ssim = test::run_cpu(float_ssim::descriptor,
                                          float_ssim::descriptor.parse_options({{"enable_lcs", "true"}}), clip);
    EXPECT_EQ(test::value(ssim, "float_ssim_l"), l[0]);
    EXPECT_EQ(test::value(ssim, "float_ssim_c"), c[0]);
    EXPECT_EQ(test::value(ssim, "float_ssim_s"), s[0]);
}

// Odd sides (177 -> 89 -> 45 -> 23 -> 12; 190 -> 95 -> 48 -> 24 -> 12), 16 bits.
TEST(FloatMsSsim, OddSizeSixteenBitAsUpstream) {
    const ScoreTable t =
        test::run_cpu(descriptor, descriptor.parse_options({}), test::pair_clip(177, 190, 16, 13, 14));
    EXPECT_EQ(test::value(t, "float_ms_ssim"), 0.9830578044075533);
}

// Identical pictures: 1, so +inf in dB (upstream writes null), or the cap
// ceil(10 log10(255^2 / (0.5 / (176 * 176)))) = 97 with clip_db.
TEST(FloatMsSsim, IdenticalPicturesInDbInfiniteOrCapped) {
    const auto score = [](const OptionValues& values, int bits) {
        const test::Clip clip = test::pair_clip(176, 176, bits, 15, 0);
        return test::value(test::run_cpu(descriptor, descriptor.parse_options(values), clip), "float_ms_ssim");
    };
    EXPECT_EQ(score({}, 8), 1.0);
    EXPECT_EQ(score({{"enable_db", "true"}, {"clip_db", "true"}}, 8), 97.0);
    EXPECT_EQ(score({{"enable_db", "true"}}, 12), INFINITY);
}

}  // namespace
}  // namespace vmafx
