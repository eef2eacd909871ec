// Tests of the integer PSNR extractor "psnr" beyond the registry-driven suites (test_metrics.cpp:
// golden values, tables, refusals at the size and depth limits, threads): upstream's values on a
// small clip at every bit depth with every output (mse_*, the apsnr_* aggregates), the caps on
// identical pictures (peak cap, min_sse, reduced_hbd_peak), the bit depths upstream refuses, the
// option values it refuses. apsnr over every frame whatever the subsampling, and the aggregates
// in the JSON and XML output, go through the engine: tests/test_psnr_run.cpp.
//
// The oracle values come from upstream libvmaf 3.2.0 built locally (printing %.17g) on the clip
// of test::hashed_clip() written as raw files (/tmp/psnr/t/gen.py in the session that wrote this, the
// same formula), e.g. for 10 bits:
//   vmaf -r ref.yuv -d dist.yuv -w 8 -h 6 -p 420 -b 10 -n --json -o out.json
//        --feature psnr=enable_mse=true:enable_apsnr=true
// and for the caps with `-d ref.yuv` (identical pictures).
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/printf.h>
#include <gtest/gtest.h>

#include "feature/psnr/psnr.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using psnr::descriptor;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

std::optional<double> aggregate(const ScoreTable& table, const std::string& name) {
    for (const auto& [n, v] : table.aggregates())
        if (n == name) return v;
    return std::nullopt;
}

void expect_same(double got, double want, const std::string& what) {
    if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << what;
        return;
    }
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want))
        << what << ": " << fmt::format("{:.17g}", got) << ", upstream " << fmt::format("{:.17g}", want);
}

// ---------------------------------------------------------------------------------------------
// Upstream's values.

struct OracleRow {
    int bits;
    std::array<double, 6> psnr;   // frame 0 y, cb, cr, frame 1 y, cb, cr
    std::array<double, 6> mse;    // the same order
    std::array<double, 3> apsnr;  // y, cb, cr
};

// --feature psnr=enable_mse=true:enable_apsnr=true on test::hashed_clip(bits).
const OracleRow kOracle[] = {
    {8, {38.669557416507644, 40.23029887184559, 38.669557416507644, 38.353567555790626, 35.70042312181616, 35.538051133109306},
         {8.833333333333334, 6.166666666666667, 8.833333333333334, 9.5, 17.5, 18.166666666666668},
         {38.50868921757309, 37.39973262532478, 36.82746592372904}},
    {10, {48.38861125486871, 50.42027662135473, 50.42027662135473, 50.49714490801763, 48.11130783541719, 52.793885779300766},
         {15.166666666666666, 9.5, 9.5, 9.333333333333334, 16.166666666666668, 5.5},
         {49.316151787237686, 49.11411792635482, 51.4469000403262}},
    {12, {61.96479088592631, 61.63809971839263, 60.732401368622256, 62.54471035570318, 60.941740436978684, 61.89745705933663},
         {10.666666666666666, 11.5, 14.166666666666666, 9.333333333333334, 13.5, 10.833333333333334},
         {62.24507812192874, 61.27597799184818, 61.27597799184818}},
    {16, {86.11757308460561, 84.42614909360208, 85.24607132741662, 85.59839509195069, 84.24326123647899, 84.42614909360208},
         {10.5, 15.5, 12.833333333333334, 11.833333333333334, 16.166666666666668, 15.5},
         {85.85023055213316, 84.33374252625296, 84.8167893219985}},
};

TEST(Psnr, UpstreamValuesAtEveryBitDepthWithEveryOutput) {
    const Options options = descriptor.parse_options({{"enable_mse", "true"}, {"enable_apsnr", "true"}});
    const char* planes[] = {"y", "cb", "cr"};
    for (const OracleRow& row : kOracle) {
        SCOPED_TRACE(fmt::format("{} bits", row.bits));
        const ScoreTable t = test::run_cpu(descriptor, options, test::hashed_clip(row.bits));
        EXPECT_EQ(t.names(), (std::vector<std::string>{"psnr_y", "mse_y", "psnr_cb", "mse_cb", "psnr_cr", "mse_cr"}));
        for (unsigned f = 0; f < 2; ++f)
            for (int p = 0; p < 3; ++p) {
                const std::string at = fmt::format("frame {} ", f);
                expect_same(t.get(fmt::format("psnr_{}", planes[p]), f).value_or(-1), row.psnr[3 * f + p],
                            at + "psnr_" + planes[p]);
                expect_same(t.get(fmt::format("mse_{}", planes[p]), f).value_or(-1), row.mse[3 * f + p],
                            at + "mse_" + planes[p]);
            }
        ASSERT_EQ(t.aggregates().size(), 3u);
        for (int p = 0; p < 3; ++p) {
            EXPECT_EQ(t.aggregates()[p].first, fmt::format("apsnr_{}", planes[p]));
            expect_same(t.aggregates()[p].second, row.apsnr[p], t.aggregates()[p].first);
        }
    }
}

// reduced_hbd_peak (255 << (bits - 8) instead of 2^bits - 1) with chroma off: psnr_y alone per
// frame, and the aggregates of the planes not scored are -inf (upstream writes null).
TEST(Psnr, ReducedHbdPeakWithoutChroma) {
    struct Row {
        int bits;
        double psnr[2];
        double apsnr_y;
    };
    const Row rows[] = {{8, {38.669557416507644, 38.353567555790626}, 38.50868921757309},
                        {10, {48.36310201586385, 50.471635669012784}, 49.290642548232825},
                        {12, {61.932916025795166, 62.512835495572034}, 62.21320326179759},
                        {16, {86.0837099242167, 85.56453193156179}, 85.81636739174428}};
    const Options options = descriptor.parse_options(
        {{"reduced_hbd_peak", "true"}, {"enable_apsnr", "true"}, {"enable_chroma", "false"}});
    for (const Row& row : rows) {
        SCOPED_TRACE(fmt::format("{} bits", row.bits));
        const ScoreTable t = test::run_cpu(descriptor, options, test::hashed_clip(row.bits));
        EXPECT_EQ(t.names(), std::vector<std::string>{"psnr_y"});
        for (unsigned f = 0; f < 2; ++f) expect_same(*t.get("psnr_y", f), row.psnr[f], "psnr_y");
        expect_same(aggregate(t, "apsnr_y").value(), row.apsnr_y, "apsnr_y");
        expect_same(aggregate(t, "apsnr_cb").value(), kNegInf, "apsnr_cb");
        expect_same(aggregate(t, "apsnr_cr").value(), kNegInf, "apsnr_cr");
    }
}

// Identical pictures: each plane's PSNR is the cap, 6 * bits + 12 dB by default; with
// min_sse = 2 (and reduced_hbd_peak) ceil(10 log10(peak^2 * samples / 2)), per plane; the
// aggregate is its own cap ceil(10 log10(peak^2 * samples * 2)) over the two frames.
TEST(Psnr, IdenticalPicturesScoreTheCaps) {
    struct Row {
        int bits;
        double cap;
        double apsnr_y, apsnr_c;
        double min_sse_y, min_sse_c;  // with reduced_hbd_peak and min_sse=2
        double reduced_apsnr_c;
    };
    const Row rows[] = {{8, 60, 71, 65, 62, 56, 65},
                        {10, 72, 84, 78, 74, 68, 77},
                        {12, 84, 96, 90, 87, 80, 90},
                        {16, 108, 120, 114, 111, 105, 114}};
    const Options defaults = descriptor.parse_options({{"enable_apsnr", "true"}});
    const Options capped = descriptor.parse_options(
        {{"enable_apsnr", "true"}, {"reduced_hbd_peak", "true"}, {"min_sse", "2"}});
    for (const Row& row : rows) {
        SCOPED_TRACE(fmt::format("{} bits", row.bits));
        test::Clip clip = test::hashed_clip(row.bits);
        clip.dist = clip.ref;
        const ScoreTable t = test::run_cpu(descriptor, defaults, clip);
        const ScoreTable c = test::run_cpu(descriptor, capped, clip);
        for (unsigned f = 0; f < 2; ++f)
            for (const char* name : {"psnr_y", "psnr_cb", "psnr_cr"}) {
                EXPECT_EQ(*t.get(name, f), row.cap) << name;
                EXPECT_EQ(*c.get(name, f), name == std::string("psnr_y") ? row.min_sse_y : row.min_sse_c) << name;
            }
        EXPECT_EQ(aggregate(t, "apsnr_y"), row.apsnr_y);
        EXPECT_EQ(aggregate(t, "apsnr_cb"), row.apsnr_c);
        EXPECT_EQ(aggregate(c, "apsnr_y"), row.apsnr_y);
        EXPECT_EQ(aggregate(c, "apsnr_cr"), row.reduced_apsnr_c);
    }
}

// By hand: 8-bit 2x2 4:4:4 luma errors 1, 2, 0, 3 (sse 14, mse 3.5).
TEST(Psnr, HandValueOnATinyPicture) {
    const VideoFormat format{2, 2, 8, Subsampling::k444};
    test::Clip clip{format, {test::constant_picture(format, 100)}, {test::constant_picture(format, 100)}};
    test::set_sample(clip.dist[0].luma(), 0, 0, 101);
    test::set_sample(clip.dist[0].luma(), 1, 0, 98);
    test::set_sample(clip.dist[0].luma(), 1, 1, 97);
    const ScoreTable t = test::run_cpu(descriptor, descriptor.parse_options({{"enable_mse", "true"}}), clip);
    EXPECT_EQ(*t.get("mse_y", 0), 3.5);
    EXPECT_EQ(*t.get("psnr_y", 0), 10. * std::log10(65025.0 / 3.5));
    EXPECT_EQ(*t.get("psnr_cb", 0), 60.0);
}

// ---------------------------------------------------------------------------------------------
// Refusals and options.

// Upstream's extract() scores 8, 10, 12 and 16 bits only (any other: -EINVAL): refused when the
// extractor is made, naming the metric; 1x1 pictures are scored at every subsampling (the
// chroma planes are ceil(w/2) x ceil(h/2), here 1x1).
TEST(Psnr, BitDepthsAndTheSmallestPicture) {
    const Options options = descriptor.parse_options({});
    for (int bits = 8; bits <= 16; ++bits) {
        const VideoFormat f{8, 6, bits, Subsampling::k420};
        if (bits == 8 || bits == 10 || bits == 12 || bits == 16) {
            EXPECT_NO_THROW(descriptor.make_extractor(options, f)) << bits;
        } else {
            EXPECT_EQ(test::error_of([&] { descriptor.make_extractor(options, f); }),
                      fmt::format("psnr: bit depth {} is not supported (8, 10, 12 or 16)", bits));
        }
    }
    for (const Subsampling s : {Subsampling::k420, Subsampling::k422, Subsampling::k444}) {
        const test::Clip clip = test::hashed_clip(8, 1, {1, 1, 8, s});
        const ScoreTable t = test::run_cpu(descriptor, descriptor.parse_options({{"min_sse", "1"}}), clip);
        EXPECT_EQ(t.names(), (std::vector<std::string>{"psnr_y", "psnr_cb", "psnr_cr"}));
        for (const auto& name : t.names()) EXPECT_TRUE(std::isfinite(*t.get(name, 0))) << name;
    }
}

// Upstream's option parsing: bools only "true"/"false"; min_sse in [0, DBL_MAX] and finite,
// after the --feature value is normalized through a float ("1e39" becomes "inf": refused). No
// option is a feature parameter: the output names never change.
TEST(Psnr, OptionValues) {
    const auto usage = [](const std::string& text) {
        try {
            (void)parse_feature_spec(text);
        } catch (const UsageError& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_EQ(usage("psnr=enable_mse=1"), "feature \"psnr\": option enable_mse=1: expected true or false");
    EXPECT_EQ(usage("psnr=min_sse=-1"), "feature \"psnr\": option min_sse=-1: out of range [0, 1.79769e+308]");
    EXPECT_EQ(usage("psnr=min_sse=1e39"), "feature \"psnr\": option min_sse=inf: expected a finite number");
    EXPECT_EQ(usage("psnr=min_sse=3.4e38"), "(accepted)");
    EXPECT_EQ(usage("psnr=enable_chroma=false:enable_mse=true:enable_apsnr=true:reduced_hbd_peak=true:min_sse=0"),
              "(accepted)");
    const Options o = descriptor.parse_options({{"min_sse", "5"}, {"reduced_hbd_peak", "true"}});
    for (const FeatureName& f : descriptor.features) EXPECT_EQ(o.feature_name(f.name), f.name);
}

}  // namespace
}  // namespace vmafx
