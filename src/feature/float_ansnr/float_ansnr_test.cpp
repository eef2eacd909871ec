// Tests of float_ansnr beyond the registry-driven suites (test_metrics.cpp: golden values,
// tables, refusals at 2x3 / 3x2 / 2x2, threads): upstream's values at the smallest size and at
// every bit depth, the flat-picture cap, the bit depths upstream refuses, and option names.
//
// The oracle values come from upstream's vmaf 3.2.0 (built locally, %.17g) on raw files of
// test::random_picture(format, 1) (reference) and test::random_picture(format, 101)
// (distorted), e.g. for the first row:
//   vmaf -r ref.yuv -d dist.yuv -w 3 -h 3 -b 8 -p 444 --feature float_ansnr --no_prediction --json -o out.json
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/float_ansnr/float_ansnr.hpp"
#include "pictures.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using float_ansnr::descriptor;

struct OracleCase {
    VideoFormat format;
    double ansnr;
    double anpsnr;
};

// Upstream's values (see the file's head).
const OracleCase kOracle[] = {
    {{3, 3, 8, Subsampling::k444}, 2.8276804535643234, 21.872670599953615},     // the smallest size
    {{5, 4, 10, Subsampling::k444}, -2.149169903505517, 14.263817355296455},
    {{3, 6, 12, Subsampling::k444}, 0.11607775457101623, 20.279128619493193},
    {{7, 3, 16, Subsampling::k444}, -1.4499167485739848, 14.772672362923986},
    {{16, 8, 8, Subsampling::k420}, -2.16943834254498, 15.31463144659635},
};

TEST(FloatAnsnr, UpstreamValuesAtTheEdgeAndEveryBitDepth) {
    for (const OracleCase& c : kOracle) {
        SCOPED_TRACE(test::format_label(c.format));
        test::Clip clip{c.format, {test::random_picture(c.format, 1)}, {test::random_picture(c.format, 101)}};
        const ScoreTable t = test::run_cpu(descriptor, descriptor.parse_options({}), clip);
        EXPECT_EQ(t.get("float_ansnr", 0), c.ansnr);
        EXPECT_EQ(t.get("float_anpsnr", 0), c.anpsnr);
    }
}

// Flat pictures filter to the same plane: noise 0, so both scores are the bit depth's cap
// (upstream: psnr_max; ANPSNR min(10 log10(peak^2 w h / 1e-10), psnr_max)).
TEST(FloatAnsnr, FlatPicturesGiveTheCapOfTheBitDepth) {
    const std::pair<int, double> caps[] = {{8, 60.0}, {10, 72.0}, {12, 84.0}, {16, 108.0}};
    for (const auto& [depth, cap] : caps) {
        const VideoFormat f{6, 5, depth, Subsampling::k420};
        const Picture flat = test::constant_picture(f, 1u << (depth - 1));  // 128 at 8 bits: 0 after the offset
        test::Clip clip{f, {flat}, {flat}};
        const ScoreTable t = test::run_cpu(descriptor, descriptor.parse_options({}), clip);
        EXPECT_EQ(t.get("float_ansnr", 0), cap) << depth;
        EXPECT_EQ(t.get("float_anpsnr", 0), cap) << depth;
    }
}

// Upstream's init() fails for any bit depth but 8, 10, 12 and 16 (its CLI refuses them too).
TEST(FloatAnsnr, RefusesTheBitDepthsUpstreamRefuses) {
    const Options o = descriptor.parse_options({});
    for (int depth = 8; depth <= 16; ++depth) {
        const VideoFormat f{3, 3, depth, Subsampling::k420};
        if (depth == 8 || depth == 10 || depth == 12 || depth == 16) {
            EXPECT_NO_THROW((void)descriptor.make_extractor(o, f)) << depth;
        } else {
            EXPECT_EQ(test::error_of([&] { (void)descriptor.make_extractor(o, f); }),
                      fmt::format("float_ansnr: bit depth {} is not supported (8, 10, 12 or 16)", depth));
        }
    }
}

// The size limit at its edge: 3x3 accepted, one less either way refused naming the limit.
TEST(FloatAnsnr, SmallestSizeIsThreeByThree) {
    const Options o = descriptor.parse_options({});
    EXPECT_NO_THROW((void)descriptor.make_extractor(o, {3, 3, 8, Subsampling::k444}));
    for (const auto& [w, h] : {std::pair{2, 3}, std::pair{3, 2}, std::pair{1, 1}}) {
        const std::string got =
            test::error_of([&] { (void)descriptor.make_extractor(o, {w, h, 8, Subsampling::k444}); });
        EXPECT_EQ(got.rfind(fmt::format("float_ansnr: picture {}x{} is too small: its luma plane must be at least 3x3", w, h), 0),
                  0u)
            << got;
    }
}

// No options (upstream has no option table); the outputs keep their plain names, the second
// one not being a provided feature (as upstream's provided_features lists only float_ansnr).
TEST(FloatAnsnr, NoOptionsAndPlainNames) {
    EXPECT_TRUE(descriptor.options.empty());
    ASSERT_EQ(descriptor.features.size(), 1u);
    EXPECT_STREQ(descriptor.features[0].name, "float_ansnr");
    const float_ansnr::Settings s(descriptor.parse_options({}));
    EXPECT_EQ(s.ansnr_name, "float_ansnr");
    EXPECT_EQ(s.anpsnr_name, "float_anpsnr");
    EXPECT_THROW((void)descriptor.parse_options({{"float_ansnr_peak", "1"}}), UsageError);
}

}  // namespace
}  // namespace vmafx
