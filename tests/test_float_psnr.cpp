// Tests of the float PSNR extractor "float_psnr" beyond the registry-driven suites
// (test_metrics.cpp): upstream's values on a small clip at every bit depth, the caps on
// identical pictures, the bit depths upstream refuses, and a value by hand.
//
// Oracle values: upstream libvmaf 3.2.0 built locally (printing %.17g) on the clip of
// test::hashed_clip() written as raw files, e.g. for 12 bits:
//   vmaf -r ref.yuv -d dist.yuv -w 8 -h 6 -p 420 -b 12 -n --json -o out.json --feature float_psnr
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/float_psnr/float_psnr.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using float_psnr::descriptor;

TEST(FloatPsnr, UpstreamValuesAtEveryBitDepth) {
    struct Row {
        int bits;
        double score[2];
    };
    const Row rows[] = {{8, {38.669557416507644, 38.353567555790626}},
                        {10, {48.38861125486871, 50.49714490801763}},
                        {12, {61.96479088592631, 62.54471035570318}},
                        {16, {86.11757308460561, 85.59839509195069}}};
    for (const Row& row : rows) {
        const ScoreTable t = test::run_cpu(descriptor, descriptor.parse_options({}), test::hashed_clip(row.bits));
        EXPECT_EQ(t.names(), std::vector<std::string>{"float_psnr"});
        for (unsigned f = 0; f < 2; ++f)
            EXPECT_EQ(std::bit_cast<std::uint64_t>(*t.get("float_psnr", f)), std::bit_cast<std::uint64_t>(row.score[f]))
                << row.bits << " bits, frame " << f << ": " << fmt::format("{:.17g}", *t.get("float_psnr", f));
    }
}

// Identical pictures: upstream's cap, 60, 72, 84 and 108 dB.
TEST(FloatPsnr, IdenticalPicturesScoreTheCap) {
    for (const auto& [bits, cap] : {std::pair{8, 60.0}, {10, 72.0}, {12, 84.0}, {16, 108.0}}) {
        test::Clip clip = test::hashed_clip(bits, 1);
        clip.dist = clip.ref;
        EXPECT_EQ(*test::run_cpu(descriptor, descriptor.parse_options({}), clip).get("float_psnr", 0), cap) << bits;
    }
}

// By hand: 10-bit 2x1 luma, differences 4 and 2 samples (1 and 0.5 in 8-bit units): noise
// (1 + 0.25) / 2 = 0.625, peak 255.75.
TEST(FloatPsnr, HandValue) {
    const VideoFormat format{2, 1, 10, Subsampling::k444};
    test::Clip clip{format, {test::constant_picture(format, 500)}, {test::constant_picture(format, 500)}};
    test::set_sample(clip.dist[0].luma(), 0, 0, 504);
    test::set_sample(clip.dist[0].luma(), 1, 0, 498);
    EXPECT_EQ(*test::run_cpu(descriptor, descriptor.parse_options({}), clip).get("float_psnr", 0),
              10 * std::log10(255.75 * 255.75 / 0.625));
}

// Upstream's init() knows the peak of 8, 10, 12 and 16 bits only and fails on any other.
TEST(FloatPsnr, RefusesTheBitDepthsUpstreamRefuses) {
    const Options options = descriptor.parse_options({});
    for (int bits = 8; bits <= 16; ++bits) {
        const VideoFormat f{1, 1, bits, Subsampling::k420};
        if (bits == 8 || bits == 10 || bits == 12 || bits == 16)
            EXPECT_NO_THROW(descriptor.make_extractor(options, f)) << bits;
        else
            EXPECT_EQ(test::error_of([&] { descriptor.make_extractor(options, f); }),
                      fmt::format("float_psnr: bit depth {} is not supported (upstream scores 8, 10, 12 and 16 bits "
                                  "only)",
                                  bits));
    }
}

}  // namespace
}  // namespace vmafx
