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
                      fmt::format("float_psnr: bit depth {} is not supported (8, 10, 12 or 16)", bits));
    }
}


// The noise sum, the float squares added in double one at a time, rows then columns, as
// upstream's compute_psnr adds them (the reference that frame_psnr's exact integer sum must
// equal), then frame_psnr's caps.
double running_psnr(const Plane& ref, const Plane& dist, int bits) {
    const float scaler = static_cast<float>(bits == 8 ? 1 : bits == 10 ? 4 : bits == 12 ? 16 : 256);
    double noise = 0;
    for (int y = 0; y < ref.height(); ++y)
        for (int x = 0; x < ref.width(); ++x) {
            const bool b8 = bits == 8;
            const std::uint32_t r = b8 ? ref.row<std::uint8_t>(y)[x] : ref.row<std::uint16_t>(y)[x];
            const std::uint32_t d = b8 ? dist.row<std::uint8_t>(y)[x] : dist.row<std::uint16_t>(y)[x];
            const float diff = static_cast<float>(r) / scaler - static_cast<float>(d) / scaler;
            const float diff2 = diff * diff;
            noise += diff2;
        }
    return float_psnr::psnr_of_noise(noise, ref.width(), ref.height(), bits);
}

// frame_psnr against the running sum, bit for bit: random samples within the bit depth and over
// the whole 16-bit word (squares that round in float), widths 1..70, odd heights, and 0 against
// the word's largest value on a plane large enough that the sum exceeds 2^53 units at 16 bits
// (the running sum rounds there: frame_psnr adds one term at a time).
TEST(FloatPsnr, ExactSumEqualsTheRunningSum) {
    auto check = [](const Picture& ref, const Picture& dist, int bits, const std::string& what) {
        const double got = float_psnr::frame_psnr(ref.luma(), dist.luma(), bits);
        const double want = running_psnr(ref.luma(), dist.luma(), bits);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want))
            << what << fmt::format(": {:.17g} against {:.17g}", got, want);
    };
    for (int bits : {8, 10, 12, 16})
        for (int w = 1; w <= 70; w += 3)
            for (int h : {1, 3, 7}) {
                const VideoFormat f{w, h, bits, Subsampling::k444};
                check(test::random_picture(f, 17u * w + h), test::random_picture(f, 19u * w + h), bits,
                      fmt::format("{} bits {}x{}", bits, w, h));
                check(test::random_word_picture(f, 31u * w + h), test::random_word_picture(f, 37u * w + h), bits,
                      fmt::format("{} bits {}x{}, whole words", bits, w, h));
            }
    for (int bits : {8, 10, 16}) {
        const VideoFormat f{2000, 1100, bits, Subsampling::k420};
        // Noise below the caps: 0 against the largest word, and random words.
        check(test::constant_picture(f, 0), test::constant_picture(f, test::max_word(f)), bits,
              fmt::format("{} bits, 2000x1100 0 against the largest", bits));
        check(test::random_word_picture(f, 5), test::random_word_picture(f, 6), bits,
              fmt::format("{} bits, 2000x1100 random words", bits));
    }
    // Many chunks of the exact integer path: samples within the bit depth on a large plane, and
    // 0 against the depth's largest value.
    for (int bits : {8, 10, 12, 16}) {
        const VideoFormat f{2000, 1100, bits, Subsampling::k420};
        check(test::random_picture(f, 7), test::random_picture(f, 8), bits,
              fmt::format("{} bits, 2000x1100 random", bits));
        check(test::constant_picture(f, 0), test::constant_picture(f, (1u << bits) - 1), bits,
              fmt::format("{} bits, 2000x1100 0 against {}", bits, (1u << bits) - 1));
    }
}
}  // namespace
}  // namespace vmafx
