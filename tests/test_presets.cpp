// The CLI presets --aom_ctc and --nflx_ctc (engine/presets.hpp) against upstream libvmaf 3.2.0's
// cli_parse.c: their models and features, in command-line order. Their scores are compared with
// upstream's in tests/data/option_corners.json (the preset corners of tools/option_corners.py).
#include <gtest/gtest.h>

#include "engine/presets.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

using Strings = std::vector<std::string>;

const Strings kAomModels = {"version=vmaf_v0.6.1:name=vmaf", "version=vmaf_v0.6.1neg:name=vmaf_neg"};
const Strings kAomV1Features = {"psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5", "ciede",
                                "float_ssim=enable_db=true:clip_db=true", "float_ms_ssim=enable_db=true:clip_db=true",
                                "psnr_hvs"};

TEST(Presets, AomCtcVersionsOneAndTwoAddTheV061ModelsAndFiveFeatures) {
    for (const char* v : {"v1.0", "v2.0"}) {
        ModelAndFeatureArgs args;
        apply_preset(Preset::kAomCtc, v, args);
        EXPECT_EQ(args.models, kAomModels) << v;
        EXPECT_EQ(args.features, kAomV1Features) << v;
    }
}

TEST(Presets, AomCtcVersionsThreeToSixAddCambi) {
    Strings expected = kAomV1Features;
    expected.push_back("cambi");
    for (const char* v : {"v3.0", "v4.0", "v5.0", "v6.0"}) {
        ModelAndFeatureArgs args;
        apply_preset(Preset::kAomCtc, v, args);
        EXPECT_EQ(args.models, kAomModels) << v;
        EXPECT_EQ(args.features, expected) << v;
    }
}

TEST(Presets, AomCtcSevenReplacesTheFirstFloatSsimGivenBeforeIt) {
    ModelAndFeatureArgs args;
    args.features = {"psnr", "float_ssim=enable_lcs=true"};
    apply_preset(Preset::kAomCtc, "v7.0", args);
    const Strings expected = {"psnr",
                              "float_ssim=scale=1:enable_db=true:clip_db=true",  // the user's, replaced
                              "psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5",
                              "ciede",
                              "float_ssim=enable_db=true:clip_db=true",  // the preset's own stays
                              "float_ms_ssim=enable_db=true:clip_db=true",
                              "psnr_hvs",
                              "cambi"};
    EXPECT_EQ(args.features, expected);

    ModelAndFeatureArgs alone;
    apply_preset(Preset::kAomCtc, "v7.0", alone);
    EXPECT_EQ(alone.features.at(2), "float_ssim=scale=1:enable_db=true:clip_db=true");
    EXPECT_EQ(alone.features.size(), 6u);
}

TEST(Presets, NflxCtcAddsThe4kModelsPsnrSsimAndCambiAfterWhatWasGiven) {
    ModelAndFeatureArgs args;
    args.models = {"version=vmaf_v0.6.1:name=first"};
    apply_preset(Preset::kNflxCtc, "v1.0", args);
    EXPECT_EQ(args.models, (Strings{"version=vmaf_v0.6.1:name=first", "version=vmaf_4k_v0.6.1:name=vmaf",
                                    "version=vmaf_4k_v0.6.1neg:name=vmaf_neg"}));
    EXPECT_EQ(args.features,
              (Strings{"psnr=enable_chroma=true:enable_apsnr=true", "float_ssim=enable_db=true:clip_db=true", "cambi"}));
}

TEST(Presets, UnknownVersionsAreUsageErrorsListingTheVersions) {
    ModelAndFeatureArgs args;
    const std::string aom = test::error_of([&] { apply_preset(Preset::kAomCtc, "v8.0", args); });
    EXPECT_NE(aom.find("--aom_ctc v8.0"), std::string::npos) << aom;
    EXPECT_NE(aom.find("v1.0, v2.0, v3.0, v4.0, v5.0, v6.0, v7.0"), std::string::npos) << aom;
    const std::string proposed = test::error_of([&] { apply_preset(Preset::kAomCtc, "proposed", args); });
    EXPECT_NE(proposed.find("deprecated"), std::string::npos) << proposed;
    const std::string nflx = test::error_of([&] { apply_preset(Preset::kNflxCtc, "v1.1", args); });
    EXPECT_NE(nflx.find("--nflx_ctc v1.1"), std::string::npos) << nflx;
    EXPECT_TRUE(args.models.empty());
    EXPECT_TRUE(args.features.empty());
}

}  // namespace
}  // namespace vmafx
