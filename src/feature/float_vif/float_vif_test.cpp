// Tests of the floating-point VIF extractor beyond the registry-driven suites (test_metrics.cpp:
// golden values, tables, refusals at the descriptor's limits, threads): the size each option
// set needs, the kernel scales upstream accepts, vif_prescale_method, hand-derived values on
// constant pictures and output names.
#include <string>

#include <gtest/gtest.h>

#include "feature/float_vif/float_vif.hpp"
#include "pictures.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using float_vif::descriptor;

Options vif_options(const OptionValues& values = {}) { return descriptor.parse_options(values); }

std::unique_ptr<FeatureExtractor> make(const OptionValues& values, int w, int h) {
    return descriptor.make_extractor(vif_options(values), {w, h, 8, Subsampling::k420});
}

// Scale 3 of a 16 x 16 luma is 2 x 2, what its 3-tap mirrored filter needs; upstream reads
// outside its buffers below (e.g. 12 x 12 runs and reads garbage).
TEST(FloatVifLimits, SixteenBySixteenAtTheDefaults) {
    EXPECT_NO_THROW(make({}, 16, 16));
    test::expect_error([] { make({}, 15, 16); }, {"float_vif", "16x16"});
    test::expect_error([] { make({}, 16, 15); }, {"float_vif"});
}

// The limit follows the options: vif_prescale 0.5 needs 32 x 32 ((int)(31 * 0.5 + 0.5) = 16
// is still enough: 31 passes, 30 gives 15), a larger kernel scale needs more, skipping scale 0
// does not change scale 3's need.
TEST(FloatVifLimits, FollowPrescaleAndKernelscale) {
    EXPECT_NO_THROW(make({{"vif_prescale", "0.5"}}, 31, 31));
    test::expect_error([] { make({{"vif_prescale", "0.5"}}, 30, 31); }, {"float_vif", "prescaled to 15x16"});
    // kernelscale 2: scale 3's filter is 7 taps (radius 3): scale 3 must be 4 x 4.
    EXPECT_NO_THROW(make({{"vif_kernelscale", "2"}}, 32, 32));
    test::expect_error([] { make({{"vif_kernelscale", "2"}}, 31, 32); }, {"float_vif", "scale 3"});
    EXPECT_NO_THROW(make({{"vif_skip_scale0", "true"}}, 16, 16));
}

// Upstream accepts only 21 kernel scales (within 1e-3); the others fail every frame there.
TEST(FloatVifOptions, KernelScalesAndRanges) {
    for (const char* ks : {"1", "0.5", "1.5", "2", "0.666667", "2.4", "3.71134", "3", "0.444444", "1.111111"})
        EXPECT_NO_THROW(make({{"vif_kernelscale", ks}}, 64, 64)) << ks;
    test::expect_error([] { make({{"vif_kernelscale", "0.3"}}, 64, 64); }, {"float_vif", "vif_kernelscale 0.3"});
    EXPECT_THROW(vif_options({{"vif_kernelscale", "4.5"}}), UsageError);
    EXPECT_THROW(vif_options({{"vif_prescale", "0.05"}}), UsageError);
    EXPECT_THROW(vif_options({{"vif_sigma_nsq", "5.5"}}), UsageError);
}

// vif_prescale_method (pm): a text feature parameter between vif_scale3_min_val and
// vif_sigma_nsq, as upstream's table. Upstream's init refuses an unknown method ("Invalid
// scale method area. Supported scale methods: [...]") and, for bilinear, a prescaled width
// above VIF_BILINEAR_MAX_WIDTH (7680; oracle: -w 1920 -h 16 with vif_prescale=4 runs, -w 1922
// is refused). Values: tools/option_corners.py float_vif_corners().
TEST(FloatVifOptions, PrescaleMethod) {
    const auto& rows = descriptor.options;
    std::size_t i = 0;
    while (i < rows.size() && std::string(rows[i].name) != "vif_prescale_method") ++i;
    ASSERT_LT(i + 1, rows.size());
    EXPECT_STREQ(rows[i - 1].name, "vif_scale3_min_val");
    EXPECT_STREQ(rows[i + 1].name, "vif_sigma_nsq");
    EXPECT_STREQ(rows[i].alias, "pm");
    EXPECT_EQ(rows[i].type, OptionType::kString);
    EXPECT_STREQ(rows[i].default_text, "nearest");
    EXPECT_TRUE(rows[i].is_feature_parameter());
    EXPECT_STREQ(rows[i].help, "scaling method for the frame, supported options: [nearest, bilinear, bicubic, lanczos4]");

    EXPECT_EQ(vif_options({{"vif_prescale", "0.5"}, {"vif_prescale_method", "bicubic"}})
                  .feature_name("VMAF_feature_vif_scale1_score"),
              "vif_scale1_ps_0.5_pm_bicubic");  // upstream orders by option name
    EXPECT_EQ(vif_options({{"vif_prescale_method", "nearest"}}).feature_name("VMAF_feature_vif_scale1_score"),
              "VMAF_feature_vif_scale1_score");
    for (const char* m : {"nearest", "bilinear", "bicubic", "lanczos4"})
        EXPECT_NO_THROW(make({{"vif_prescale_method", m}, {"vif_prescale", "1.5"}}, 64, 64)) << m;
    EXPECT_EQ(test::error_of([] { make({{"vif_prescale_method", "area"}}, 64, 64); }),
              "float_vif: invalid vif_prescale_method \"area\" (nearest, bilinear, bicubic or lanczos4)");
    // Bilinear: (int)(1920 * 4 + 0.5) = 7680 is the widest; 1921 gives 7684.
    EXPECT_NO_THROW(make({{"vif_prescale_method", "bilinear"}, {"vif_prescale", "4"}}, 1920, 16));
    test::expect_error([] { make({{"vif_prescale_method", "bilinear"}, {"vif_prescale", "4"}}, 1921, 16); },
                       {"float_vif", "7684", "7680"});
    EXPECT_NO_THROW(make({{"vif_prescale_method", "bicubic"}, {"vif_prescale", "4"}}, 1921, 16));
}

TEST(FloatVifOptions, OutputNames) {
    const Options o = vif_options({{"vif_kernelscale", "0.5"}, {"vif_scale2_min_val", "0.25"}});
    EXPECT_EQ(o.feature_name("VMAF_feature_vif_scale0_score"), "vif_scale0_ks_0.5_s2miv_0.25");
    EXPECT_EQ(vif_options({{"debug", "true"}}).feature_name("VMAF_feature_vif_scale0_score"),
              "VMAF_feature_vif_scale0_score");
}

// Constant pictures: every variance is 0, below the noise variance, so each sample adds
// 1 - 0 to the numerator and 1 to the denominator: each scale scores 1 and its sums are the
// scale's sample count (scales of 16, 8, 4, 2 samples square).
TEST(FloatVifValues, ConstantPicturesScoreOne) {
    const VideoFormat format{16, 16, 10, Subsampling::k420};
    test::Clip clip{format, {test::constant_picture(format, 700)}, {test::constant_picture(format, 12)}};
    const ScoreTable t = test::run_cpu(descriptor, vif_options({{"debug", "true"}}), clip);
    for (int s = 0; s < 4; ++s) {
        EXPECT_EQ(t.get("VMAF_feature_vif_scale" + std::to_string(s) + "_score", 0), 1.0) << s;
        const double n = 16 >> s;
        EXPECT_EQ(t.get("vif_num_scale" + std::to_string(s), 0), n * n) << s;
        EXPECT_EQ(t.get("vif_den_scale" + std::to_string(s), 0), n * n) << s;
    }
    EXPECT_EQ(t.get("vif", 0), 1.0);
    // vif_skip_scale0: scale 0 scores 0, its debug numerator 0 and denominator -1 (upstream).
    const ScoreTable k = test::run_cpu(descriptor, vif_options({{"debug", "true"}, {"vif_skip_scale0", "true"}}), clip);
    EXPECT_EQ(k.get("vif_scale0_ssclz", 0), 0.0);
    EXPECT_EQ(k.get("vif_num_scale0_ssclz", 0), 0.0);
    EXPECT_EQ(k.get("vif_den_scale0_ssclz", 0), -1.0);
}

// Oracle values (upstream 3.2.0, default flags) of frame 1 of fixture path_576x324_420p8:
//   vmaf -r ref.yuv -d dist.yuv -w 576 -h 324 -p 420 -b 8 -n --feature
//   float_vif=vif_kernelscale=0.5:vif_prescale=0.5:debug=true --frame_cnt 2 --json -o out.json
TEST(FloatVifValues, OracleKernelscaleAndPrescale) {
    VMAFX_REQUIRE_FIXTURE("path_576x324_420p8");
    const test::Clip clip = test::fixture_clip("path_576x324_420p8", 2);
    const ScoreTable t = test::run_cpu(
        descriptor, vif_options({{"vif_kernelscale", "0.5"}, {"vif_prescale", "0.5"}, {"debug", "true"}}), clip);
    EXPECT_EQ(t.get("vif_scale0_ks_0.5_ps_0.5", 1), 0.19250273377904192);
    EXPECT_EQ(t.get("vif_scale3_ks_0.5_ps_0.5", 1), 0.9093323697812031);
    EXPECT_EQ(t.get("vif_num_scale0_ks_0.5_ps_0.5", 1), 50058.87109375);
    EXPECT_EQ(t.get("vif_ks_0.5_ps_0.5", 1), 0.27686009603440825);
}

}  // namespace
}  // namespace vmafx
