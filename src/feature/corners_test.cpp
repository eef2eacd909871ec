// Option corners derived from descriptors (feature/corners.hpp): the range rule per type, the
// declared values, a metric's base options and declared sets, on a small table made here and on
// psnr's and adm's descriptors as registered.
#include "feature/corners.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "feature/registry.hpp"

namespace vmafx {
namespace {

using Strings = std::vector<std::string>;

struct CornerSettings {
    bool flag = false;
    bool on = true;
    int mode = 0;
    double gain = 0.0;
    double cap = 0.0;
    std::string method;
};

constexpr OptionSpec kRows[] = {
    option<&CornerSettings::flag>("flag", nullptr, 0, 0, 1, OptionRole::kSetting, ""),
    option<&CornerSettings::on>("on", nullptr, 1, 0, 1, OptionRole::kSetting, ""),
    option<&CornerSettings::mode>("mode", nullptr, 0, 0, 3, OptionRole::kSetting, "").also_at("1,2"),
    option<&CornerSettings::gain>("gain", nullptr, 100.0, 1.0, 100.0, OptionRole::kSetting, "").also_at("1.2,1"),
    option<&CornerSettings::cap>("cap", nullptr, 0.0, 0.0, 1e300, OptionRole::kSetting, ""),
    option<&CornerSettings::method>("method", nullptr, "nearest", OptionRole::kSetting, "").also_at("bicubic"),
};

TEST(OptionCorners, RangeValuesPerType) {
    EXPECT_EQ(range_corner_values(kRows[0]), (Strings{"true"}));            // a bool flipped
    EXPECT_EQ(range_corner_values(kRows[1]), (Strings{"false"}));
    EXPECT_EQ(range_corner_values(kRows[2]), (Strings{"3"}));               // min is the default
    EXPECT_EQ(range_corner_values(kRows[3]), (Strings{"1", "30.7"}));       // max is the default
    EXPECT_EQ(range_corner_values(kRows[4]), (Strings{"1e+06", "300000"}));  // max capped at 1e6
    EXPECT_EQ(range_corner_values(kRows[5]), Strings{});                    // a string has no range
}

TEST(OptionCorners, DeclaredValuesFollowTheRangeOnes) {
    EXPECT_EQ(corner_values(kRows[2]), (Strings{"3", "1", "2"}));
    EXPECT_EQ(corner_values(kRows[3]), (Strings{"1", "30.7", "1.2"}));  // "1" once
    EXPECT_EQ(corner_values(kRows[5]), (Strings{"bicubic"}));
}

constexpr const char* kSets[] = {"mode=2:gain=1", "flag=true:on=false"};

TEST(OptionCorners, MetricCornersCarryTheBaseUnlessSetThemselves) {
    MetricDescriptor m{.name = "m", .options = std::span<const OptionSpec>(kRows, 2)};
    EXPECT_EQ(option_corners(m), (Strings{"m", "m=flag=true", "m=on=false"}));
    m.corner_base = "on=true";
    m.corner_sets = kSets;
    EXPECT_EQ(option_corners(m), (Strings{"m=on=true", "m=flag=true:on=true", "m=on=false", "m=mode=2:gain=1:on=true",
                                          "m=flag=true:on=false"}));
    constexpr const char* kBad[] = {"mode"};
    m.corner_sets = kBad;
    EXPECT_THROW(option_corners(m), Error);
}

// The registered descriptors: what tools/option_corners.py scores starts so.
TEST(OptionCorners, OfRegisteredMetrics) {
    const Strings psnr = option_corners(metric_named("psnr"));
    ASSERT_GE(psnr.size(), 6u);
    EXPECT_EQ(Strings(psnr.begin(), psnr.begin() + 6),
              (Strings{"psnr", "psnr=enable_chroma=false", "psnr=enable_mse=true", "psnr=enable_apsnr=true",
                       "psnr=reduced_hbd_peak=true", "psnr=min_sse=1e+06"}));
    const Strings adm = option_corners(metric_named("adm"));
    ASSERT_GE(adm.size(), 3u);
    EXPECT_EQ(Strings(adm.begin(), adm.begin() + 3),
              (Strings{"adm=debug=true", "adm=adm_csf_scale=0:debug=true", "adm=adm_csf_scale=50:debug=true"}));
}

}  // namespace
}  // namespace vmafx
