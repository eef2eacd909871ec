// Tests of the float moments extractor "float_moment" beyond the registry-driven suites
// (test_metrics.cpp): upstream's values on a small clip at every bit depth (its four outputs in
// upstream's order), values by hand, and the bit depths refused.
//
// Oracle values: upstream libvmaf 3.2.0 built locally (printing %.17g) on the clip of
// test::hashed_clip() written as raw files, e.g. for 16 bits:
//   vmaf -r ref.yuv -d dist.yuv -w 8 -h 6 -p 420 -b 16 -n --json -o out.json --feature float_moment
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/float_moment/float_moment.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using float_moment::descriptor;

const std::vector<std::string> kNames = {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd",
                                         "float_moment_dis2nd"};

TEST(FloatMoment, UpstreamValuesAtEveryBitDepth) {
    struct Row {
        int bits;
        double v[8];  // frame 0 then 1, each in kNames' order
    };
    const Row rows[] = {
        {8, {123.52083333333333, 123.22916666666667, 20805.0625, 20824.520833333332, 136, 135.5, 23822.333333333332, 23731.5}},
        {10, {123.99479166666667, 123.55729166666667, 20922.912760416668, 20795.21484375, 136.328125, 135.88020833333334,
              23920.022135416668, 23787.561197916668}},
        {12, {124.08203125, 124.06901041666667, 20946.598714192707, 20935.450113932293, 136.43098958333334, 136.40234375,
              23943.441324869793, 23935.521565755207}},
        {16, {124.11116536458333, 124.11149088541667, 20953.85143438975, 20953.58399804433, 136.4619140625,
              136.46126302083334, 23950.940677960712, 23951.091822624207}},
    };
    for (const Row& row : rows) {
        const ScoreTable t = test::run_cpu(descriptor, descriptor.parse_options({}), test::hashed_clip(row.bits));
        EXPECT_EQ(t.names(), kNames);  // upstream's order: ref1st, dis1st, ref2nd, dis2nd
        for (unsigned f = 0; f < 2; ++f)
            for (unsigned k = 0; k < 4; ++k) {
                const double got = t.get(kNames[k], f).value_or(-1);
                EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(row.v[4 * f + k]))
                    << row.bits << " bits, frame " << f << " " << kNames[k] << ": " << fmt::format("{:.17g}", got);
            }
    }
}

// By hand: 12-bit 2x1 luma 16 and 48 (1 and 3 in 8-bit units): mean 2, mean square 5.
TEST(FloatMoment, HandValues) {
    const VideoFormat format{2, 1, 12, Subsampling::k420};
    test::Clip clip{format, {test::constant_picture(format, 16)}, {test::constant_picture(format, 16)}};
    test::set_sample(clip.ref[0].luma(), 1, 0, 48);
    const ScoreTable t = test::run_cpu(descriptor, descriptor.parse_options({}), clip);
    EXPECT_EQ(*t.get("float_moment_ref1st", 0), 2.0);
    EXPECT_EQ(*t.get("float_moment_ref2nd", 0), 5.0);
    EXPECT_EQ(*t.get("float_moment_dis1st", 0), 1.0);
    EXPECT_EQ(*t.get("float_moment_dis2nd", 0), 1.0);
}

// Upstream's picture_copy reads 8, 10, 12 and 16 bits (any other depth as 8-bit samples, which
// upstream's reader never gives it): the others are refused.
TEST(FloatMoment, RefusesTheBitDepthsUpstreamDoesNotRead) {
    const Options options = descriptor.parse_options({});
    for (int bits = 8; bits <= 16; ++bits) {
        const VideoFormat f{1, 1, bits, Subsampling::k444};
        if (bits == 8 || bits == 10 || bits == 12 || bits == 16)
            EXPECT_NO_THROW(descriptor.make_extractor(options, f)) << bits;
        else
            EXPECT_EQ(test::error_of([&] { descriptor.make_extractor(options, f); }),
                      fmt::format("float_moment: bit depth {} is not supported (8, 10, 12 or 16)", bits));
    }
}


// The moments' sums, in double one add at a time, rows then columns, as upstream's moment.c
// adds them (the reference that plane_moments' exact integer sums must equal).
void running_moments(const Plane& plane, int bits, double& first, double& second) {
    const float scaler = static_cast<float>(bits == 8 ? 1 : bits == 10 ? 4 : bits == 12 ? 16 : 256);
    first = 0;
    second = 0;
    for (int y = 0; y < plane.height(); ++y)
        for (int x = 0; x < plane.width(); ++x) {
            const std::uint32_t s = bits == 8 ? plane.row<std::uint8_t>(y)[x] : plane.row<std::uint16_t>(y)[x];
            const float v = static_cast<float>(s) / scaler;
            first += v;
            const float v2 = v * v;
            second += v2;
        }
    first /= plane.width() * plane.height();
    second /= plane.width() * plane.height();
}

// plane_moments against the running sums, bit for bit: random samples within the bit depth and
// over the whole 16-bit word (squares that round in float), widths 1..70, odd heights, and
// samples all at the word's largest value on a plane large enough that the second sum exceeds
// 2^53 units at 16 bits (the running sum rounds there: plane_moments adds one term at a time).
TEST(FloatMoment, ExactSumsEqualTheRunningSums) {
    auto check = [](const Plane& plane, int bits, const std::string& what) {
        double first = 0, second = 0, want1 = 0, want2 = 0;
        float_moment::plane_moments(plane, bits, first, second);
        running_moments(plane, bits, want1, want2);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(first), std::bit_cast<std::uint64_t>(want1)) << what;
        EXPECT_EQ(std::bit_cast<std::uint64_t>(second), std::bit_cast<std::uint64_t>(want2)) << what;
    };
    for (int bits : {8, 10, 12, 16})
        for (int w = 1; w <= 70; w += 3)
            for (int h : {1, 3, 7}) {
                const VideoFormat f{w, h, bits, Subsampling::k444};
                check(test::random_picture(f, 17u * w + h).luma(), bits, fmt::format("{} bits {}x{}", bits, w, h));
                check(test::random_word_picture(f, 31u * w + h).luma(), bits,
                      fmt::format("{} bits {}x{}, whole words", bits, w, h));
            }
    for (int bits : {8, 10, 16}) {
        const VideoFormat f{2000, 1100, bits, Subsampling::k420};
        check(test::constant_picture(f, test::max_word(f)).luma(), bits, fmt::format("{} bits, 2000x1100 at most", bits));
        check(test::random_word_picture(f, 5).luma(), bits, fmt::format("{} bits, 2000x1100 random words", bits));
    }
    // Many chunks of the exact integer path: samples within the bit depth on a large plane,
    // all at the depth's largest value, and a plane whose last sample alone reaches it.
    for (int bits : {8, 10, 12, 16}) {
        const VideoFormat f{2000, 1100, bits, Subsampling::k420};
        const std::uint32_t top = (1u << bits) - 1;
        check(test::random_picture(f, 7).luma(), bits, fmt::format("{} bits, 2000x1100 random", bits));
        check(test::constant_picture(f, top).luma(), bits, fmt::format("{} bits, 2000x1100 all {}", bits, top));
        Picture last = test::constant_picture(f, top / 3);
        Plane& y = last.luma();
        if (bits == 8)
            y.row<std::uint8_t>(y.height() - 1)[y.width() - 1] = static_cast<std::uint8_t>(top);
        else
            y.row<std::uint16_t>(y.height() - 1)[y.width() - 1] = static_cast<std::uint16_t>(top);
        check(y, bits, fmt::format("{} bits, 2000x1100, the largest sample last", bits));
    }
}
}  // namespace
}  // namespace vmafx
