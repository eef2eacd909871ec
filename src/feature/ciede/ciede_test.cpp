// Tests of ciede beyond the registry-driven suites (test_metrics.cpp: golden values, tables,
// threads): upstream's values at the smallest sizes of each subsampling and bit depth, its
// 4:2:2 chroma upsampling (rows read on into the padding and the next row), odd 4:2:0 sizes
// (which upstream cannot read), identical pictures, and what it refuses.
//
// The oracle values come from upstream's vmaf 3.2.0 (built locally, %.17g) on raw files of
// test::random_picture(format, 1) (reference) and test::random_picture(format, 101)
// (distorted), e.g.
//   vmaf -r ref.yuv -d dist.yuv -w 66 -h 5 -b 10 -p 422 --feature ciede --no_prediction --json -o out.json
// Odd 4:2:0 sizes: upstream crashes reading them, so their values are upstream's on the same
// pictures with each chroma plane upsampled to 4:4:4 by nearest neighbour (sample (x/2, y/2)),
// run with -p 444: the upsampling upstream's scale_chroma_planes does for 4:2:0.
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/ciede/ciede.hpp"
#include "pictures.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using ciede::descriptor;

struct OracleCase {
    VideoFormat format;
    double score;
};

// Upstream's values (see the file's head).
const OracleCase kOracle[] = {
    {{1, 1, 8, Subsampling::k444}, 18.63124505066366},    // the smallest picture
    {{2, 2, 8, Subsampling::k420}, 10.505367092202327},   // the smallest 4:2:0 upstream reads
    {{4, 4, 12, Subsampling::k420}, 11.537967345201508},
    {{3, 3, 16, Subsampling::k444}, 11.918743362165422},
    {{2, 1, 8, Subsampling::k422}, 7.411318849934865},    // 4:2:2: column 1 reads the padding (0)
    {{32, 1, 8, Subsampling::k422}, 10.321189795731705},  // one row: the widest read inside the planes
    {{66, 5, 10, Subsampling::k422}, 12.125717055145834},  // 33-wide chroma, 64-sample rows
    {{6, 3, 8, Subsampling::k422}, 10.455092577630836},
    {{5, 3, 8, Subsampling::k420}, 10.81990039175767},    // odd 4:2:0 (upstream on the 4:4:4 upsampling)
    {{853, 1, 8, Subsampling::k420}, 11.298928423078152},  // odd 4:2:0, one row
};

TEST(Ciede, UpstreamValuesAtTheEdgesOfEverySubsampling) {
    for (const OracleCase& c : kOracle) {
        SCOPED_TRACE(test::format_label(c.format));
        test::Clip clip{c.format, {test::random_picture(c.format, 1)}, {test::random_picture(c.format, 101)}};
        const ScoreTable t = test::run_cpu(descriptor, descriptor.parse_options({}), clip);
        EXPECT_EQ(t.get("ciede2000", 0), c.score);
    }
}

// Identical pictures: every difference 0, 45 - 20 log10(0) = +inf (upstream writes null).
TEST(Ciede, IdenticalPicturesGiveInfinity) {
    const VideoFormat f{9, 7, 10, Subsampling::k420};
    const Picture p = test::random_picture(f, 3);
    test::Clip clip{f, {p}, {p}};
    const auto v = test::run_cpu(descriptor, descriptor.parse_options({}), clip).get("ciede2000", 0);
    ASSERT_TRUE(v.has_value());
    EXPECT_TRUE(std::isinf(*v) && *v > 0) << *v;
}

// The 4:2:2 upsampling, sample by sample: row y / 2, read x samples on through 32-aligned rows.
TEST(Ciede, ChromaAtFollowsUpstreamsUpsampling) {
    const VideoFormat f{66, 4, 8, Subsampling::k422};  // chroma 33 x 4, upstream rows of 64
    Picture p(f);
    test::fill(p, [](int plane, int x, int y) { return plane == 0 ? 0u : static_cast<std::uint32_t>(1 + x + 40 * y); });
    const Plane& cb = p.planes[1];
    EXPECT_EQ(ciede::chroma_at(cb, Subsampling::k422, 0, 0), 1.0f);
    EXPECT_EQ(ciede::chroma_at(cb, Subsampling::k422, 32, 1), 33.0f);  // row 0, last sample
    EXPECT_EQ(ciede::chroma_at(cb, Subsampling::k422, 33, 1), 0.0f);   // row 0's padding
    EXPECT_EQ(ciede::chroma_at(cb, Subsampling::k422, 63, 0), 0.0f);
    EXPECT_EQ(ciede::chroma_at(cb, Subsampling::k422, 64, 0), 41.0f);  // row 1, sample 0
    EXPECT_EQ(ciede::chroma_at(cb, Subsampling::k422, 65, 3), 82.0f);  // row 1 + 1, sample 1
    EXPECT_EQ(ciede::chroma_at(cb, Subsampling::k420, 65, 3), 1.0f + 32 + 40);
    EXPECT_EQ(ciede::chroma_at(p.planes[2], Subsampling::k444, 3, 2), 1.0f + 3 + 80);
}

// Bit depths: upstream refuses any but 8, 10, 12 and 16 (its init for 4:2:0 and 4:2:2, its
// extract for 4:4:4; its CLI refuses them too).
TEST(Ciede, RefusesTheBitDepthsUpstreamRefuses) {
    const Options o = descriptor.parse_options({});
    for (const Subsampling s : {Subsampling::k420, Subsampling::k422, Subsampling::k444})
        for (int depth = 8; depth <= 16; ++depth) {
            const VideoFormat f{4, 4, depth, s};
            if (depth == 8 || depth == 10 || depth == 12 || depth == 16) {
                EXPECT_NO_THROW((void)descriptor.make_extractor(o, f)) << depth;
            } else {
                EXPECT_EQ(test::error_of([&] { (void)descriptor.make_extractor(o, f); }),
                          fmt::format("ciede: bit depth {} is not supported (8, 10, 12 or 16)", depth));
            }
        }
}

// One-row 4:2:2 pictures: up to 32 wide upstream's last column reads inside its chroma
// planes; from 33 on the Cr plane's last columns read past the end of upstream's buffer.
TEST(Ciede, RefusesOneRow422WiderThan32) {
    const Options o = descriptor.parse_options({});
    EXPECT_NO_THROW((void)descriptor.make_extractor(o, {32, 1, 8, Subsampling::k422}));
    EXPECT_NO_THROW((void)descriptor.make_extractor(o, {33, 2, 8, Subsampling::k422}));
    EXPECT_NO_THROW((void)descriptor.make_extractor(o, {853, 1, 8, Subsampling::k420}));
    EXPECT_NO_THROW((void)descriptor.make_extractor(o, {853, 1, 8, Subsampling::k444}));
    for (const int w : {33, 34, 64, 1000})
        EXPECT_EQ(test::error_of([&] { (void)descriptor.make_extractor(o, {w, 1, 10, Subsampling::k422}); }),
                  fmt::format("ciede: 4:2:2 picture {}x1 is not supported: one row high, it must be at most 32 "
                              "wide (upstream's chroma upsampling reads beyond the chroma planes)",
                              w));
}

TEST(Ciede, NoOptionsAndPlainName) {
    EXPECT_TRUE(descriptor.options.empty());
    ASSERT_EQ(descriptor.features.size(), 1u);
    EXPECT_STREQ(descriptor.features[0].name, "ciede2000");
    EXPECT_EQ(descriptor.planes_for(descriptor.parse_options({})), PlaneSet::kAll);
    EXPECT_EQ(ciede::Settings(descriptor.parse_options({})).name, "ciede2000");
    EXPECT_THROW((void)descriptor.parse_options({{"ciede_kl", "1"}}), UsageError);
}

}  // namespace
}  // namespace vmafx
