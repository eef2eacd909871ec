// Tests of psnr_hvs beyond the registry-driven suites (test_metrics.cpp: golden values, tables,
// refusals, threads): its refusal (bit depth above 12), no size limit (a plane without an 8x8 block
// scores NaN as upstream's, down to 1x1), its values against upstream's on synthetic pictures,
// identical planes giving +inf, and how the four writers print those infinities (and NaN) as
// upstream does.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "feature/psnr_hvs/psnr_hvs.hpp"
#include "output/writers.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

using test::distorted_picture;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::unique_ptr<FeatureExtractor> make_hvs(const VideoFormat& format) {
    return psnr_hvs::descriptor.make_extractor(psnr_hvs::descriptor.parse_options({}), format);
}

FrameScores run(const FeatureExtractor& fex, const Picture& ref, const Picture& dist) {
    FrameInput in;
    in.ref = &ref;
    in.dist = &dist;
    FrameScores out;
    fex.extract(in, out);
    return out;
}

TEST(PsnrHvs, OutputsInUpstreamsOrder) {
    const VideoFormat format{16, 16, 8, Subsampling::k420};
    const Picture ref = test::random_picture(format, 1);
    const FrameScores s = run(*make_hvs(format), ref, distorted_picture(ref, 2));
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s[0].first, "psnr_hvs_y");
    EXPECT_EQ(s[1].first, "psnr_hvs_cb");
    EXPECT_EQ(s[2].first, "psnr_hvs_cr");
    EXPECT_EQ(s[3].first, "psnr_hvs");
}

TEST(PsnrHvs, NoOptions) {
    EXPECT_TRUE(psnr_hvs::descriptor.options.empty());
    test::expect_error([] { (void)psnr_hvs::descriptor.parse_options({{"psnr_hvs_step", "7"}}); },
                       {"psnr_hvs_step"});
}

// Upstream: "psnr_hvs: invalid bitdepth (16), bpc must be less than or equal to 12" at init.
TEST(PsnrHvs, BitDepthAtMost12) {
    EXPECT_NO_THROW(make_hvs({16, 16, 12, Subsampling::k420}));
    for (const int bits : {13, 16})
        test::expect_error([&] { make_hvs({16, 16, bits, Subsampling::k420}); },
                           {"psnr_hvs", "bit depth " + std::to_string(bits), "8 to 12"});
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A picture whose sample (x, y) of plane p is a hash of (x, y, p, seed) masked to the bit
/// depth, so that a few lines of Python write the same raw files for the oracle:
///   v = (x * 73856093) ^ (y * 19349663) ^ ((p + 1) * 83492791) ^ (seed * 2654435761)  (mod 2^32)
///   v ^= v >> 13; v *= 0x5bd1e995 (mod 2^32); v ^= v >> 15; sample = v & (2^bits - 1)
Picture hashed_picture(const VideoFormat& format, std::uint32_t seed) {
    Picture pic(format);
    const std::uint32_t mask = (1u << format.bit_depth) - 1;
    for (int p = 0; p < 3; ++p) {
        Plane& plane = pic.planes[p];
        for (int y = 0; y < plane.height(); ++y)
            for (int x = 0; x < plane.width(); ++x) {
                std::uint32_t v = static_cast<std::uint32_t>(x) * 73856093u ^ static_cast<std::uint32_t>(y) * 19349663u ^
                                  static_cast<std::uint32_t>(p + 1) * 83492791u ^ seed * 2654435761u;
                v ^= v >> 13;
                v *= 0x5bd1e995u;
                v ^= v >> 15;
                v &= mask;
                if (format.bit_depth == 8) plane.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
                else plane.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
            }
    }
    return pic;
}

/// `a` and `b` are the same double, or both NaN.
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// No size limit: a plane narrower or lower than 8 holds no 8x8 block, and upstream divides by
// its count of 0 coefficients: NaN (null in its JSON) for that plane and the combined score,
// while a plane with blocks keeps its score. Upstream's values (vmaf 3.2.0, %.17g) on
// hashed_picture(seed 1) against hashed_picture(seed 2), written as raw files by the Python
// above and scored by
//   vmaf -r ref.yuv -d dist.yuv -w W -h H -p P -b B --feature psnr_hvs --no_prediction --json -o out.json
// (upstream crashes reading raw files of odd widths at 4:2:0 and 4:2:2 and odd heights at 4:2:0, so
// those are even).
TEST(PsnrHvs, PlanesWithoutABlockScoreNaNAsUpstreams) {
    struct Case {
        VideoFormat format;
        double y, cb, cr, all;
    };
    const Case cases[] = {
        {{4, 4, 8, Subsampling::k420}, kNaN, kNaN, kNaN, kNaN},
        {{8, 8, 8, Subsampling::k420}, 10.671191801679313, kNaN, kNaN, kNaN},
        {{16, 14, 8, Subsampling::k420}, 9.535918323489842, kNaN, kNaN, kNaN},
        {{16, 16, 8, Subsampling::k420}, 9.66783130579163, 10.182541143030605, 8.19754884926793, 9.54319548707154},
        {{4, 4, 8, Subsampling::k422}, kNaN, kNaN, kNaN, kNaN},
        {{8, 8, 8, Subsampling::k422}, 10.671191801679313, kNaN, kNaN, kNaN},
        {{16, 7, 8, Subsampling::k422}, kNaN, kNaN, kNaN, kNaN},
        {{16, 8, 8, Subsampling::k422}, 9.535918323489842, 10.182541143030605, 8.19754884926793, 9.440305846684828},
        {{4, 4, 8, Subsampling::k444}, kNaN, kNaN, kNaN, kNaN},
        {{8, 8, 8, Subsampling::k444}, 10.671191801679313, 10.182541143030605, 8.19754884926793, 10.302265165522256},
        {{9, 7, 8, Subsampling::k444}, kNaN, kNaN, kNaN, kNaN},
        {{15, 15, 8, Subsampling::k444}, 9.66783130579163, 11.081366398074215, 9.104189929846664, 9.728725984309426},
        {{4, 4, 10, Subsampling::k420}, kNaN, kNaN, kNaN, kNaN},
        {{8, 8, 10, Subsampling::k420}, 12.916286457498884, kNaN, kNaN, kNaN},
        {{16, 14, 10, Subsampling::k420}, 11.591358401511073, kNaN, kNaN, kNaN},
        {{16, 16, 10, Subsampling::k420}, 11.254377854365734, 9.198203363105709, 9.289739474569242, 10.77090492715623},
        {{4, 4, 10, Subsampling::k422}, kNaN, kNaN, kNaN, kNaN},
        {{8, 8, 10, Subsampling::k422}, 12.916286457498884, kNaN, kNaN, kNaN},
        {{16, 7, 10, Subsampling::k422}, kNaN, kNaN, kNaN, kNaN},
        {{16, 8, 10, Subsampling::k422}, 11.591358401511073, 9.198203363105709, 9.289739474569242, 11.009398990585183},
        {{4, 4, 10, Subsampling::k444}, kNaN, kNaN, kNaN, kNaN},
        {{8, 8, 10, Subsampling::k444}, 12.916286457498884, 9.198203363105709, 9.289739474569242, 11.892318571298407},
        {{9, 7, 10, Subsampling::k444}, kNaN, kNaN, kNaN, kNaN},
        {{15, 15, 10, Subsampling::k444}, 11.254377854365734, 8.819758574176399, 10.73378971522021, 10.888464541055768},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(test::format_label(c.format));
        const FrameScores s = run(*make_hvs(c.format), hashed_picture(c.format, 1), hashed_picture(c.format, 2));
        ASSERT_EQ(s.size(), 4u);
        const double want[4] = {c.y, c.cb, c.cr, c.all};
        for (int k = 0; k < 4; ++k) EXPECT_TRUE(same(s[k].second, want[k])) << s[k].first << " " << s[k].second;
    }
}

// Down to 1x1, odd 4:2:0 sizes included (whose raw files upstream cannot read, but whose y4m
// files it scores): every size is accepted; planes without a block score NaN.
TEST(PsnrHvs, NoSizeLimit) {
    for (const Subsampling sub : {Subsampling::k420, Subsampling::k422, Subsampling::k444})
        for (const auto& [w, h] : {std::pair{1, 1}, std::pair{7, 8}, std::pair{8, 7}, std::pair{15, 15}}) {
            const VideoFormat format{w, h, 12, sub};
            SCOPED_TRACE(test::format_label(format));
            const FrameScores s = run(*make_hvs(format), hashed_picture(format, 3), hashed_picture(format, 4));
            for (int p = 0; p < 3; ++p)
                EXPECT_EQ(std::isnan(s[p].second), format.plane_width(p) < 8 || format.plane_height(p) < 8)
                    << s[p].first;
            EXPECT_EQ(std::isnan(s[3].second), std::isnan(s[0].second + s[1].second + s[2].second));
        }
}

TEST(PsnrHvs, RefusesAPictureOfAnotherSize) {
    const auto fex = make_hvs({16, 16, 8, Subsampling::k420});
    const Picture small = test::random_picture({16, 8, 8, Subsampling::k420}, 1);
    test::expect_error([&] { run(*fex, small, small); }, {"psnr_hvs", "frame 0", "expected 16x16"});
}

// Upstream's values (vmaf 3.2.0, %.17g) on the pictures these tests make, written as raw files
// with test::write_raw and scored by
//   vmaf -r ref.yuv -d dist.yuv -w W -h H -p P -b B --feature psnr_hvs --no_prediction --json -o out.json
TEST(PsnrHvs, UpstreamsValues) {
    struct Case {
        VideoFormat format;
        bool smooth;
        std::uint32_t seed;
        double y, cb, cr, all;
    };
    const Case cases[] = {
        // 40x24 4:2:0 8 bits, smooth_picture(seed 3) against distorted_picture(ref, 4)
        {{40, 24, 8, Subsampling::k420}, true, 3,
         40.319089437833014, 37.492442491076204, 37.338597690207436, 39.562339835984311},
        // 32x16 4:2:2 10 bits, random_picture(seed 5) against distorted_picture(ref, 6)
        {{32, 16, 10, Subsampling::k422}, false, 5,
         33.748035853257676, 35.25682928892379, 39.400974159997389, 34.215949712260667},
        // 24x24 4:4:4 12 bits, smooth_picture(seed 7) against distorted_picture(ref, 8)
        {{24, 24, 12, Subsampling::k444}, true, 7,
         44.451104154478678, 42.673855115873913, 40.781150676446671, 43.71989150023456},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.seed);
        const Picture ref =
            c.smooth ? test::smooth_picture(c.format, c.seed) : test::random_picture(c.format, c.seed);
        const FrameScores s = run(*make_hvs(c.format), ref, distorted_picture(ref, c.seed + 1));
        ASSERT_EQ(s.size(), 4u);
        EXPECT_EQ(s[0].second, c.y);
        EXPECT_EQ(s[1].second, c.cb);
        EXPECT_EQ(s[2].second, c.cr);
        EXPECT_EQ(s[3].second, c.all);
    }
}

// The integer DCT of a constant block is its DC coefficient alone (8 * value: the transform
// is orthonormal up to a factor 8 in 2-D).
TEST(PsnrHvs, DctOfAConstantBlock) {
    std::int32_t block[64];
    for (std::int32_t& v : block) v = 100;
    psnr_hvs::fdct8x8(block);
    EXPECT_EQ(block[0], 800);
    for (int i = 1; i < 64; ++i) EXPECT_EQ(block[i], 0) << i;
}

// Identical planes: the plane's sum is 0 and its score 10 * -log10(0) = +inf, as upstream's.
TEST(PsnrHvs, IdenticalPlanesGiveInfinity) {
    const VideoFormat format{32, 32, 10, Subsampling::k420};
    const auto fex = make_hvs(format);
    const Picture ref = test::smooth_picture(format, 9);
    for (const auto& [name, v] : run(*fex, ref, ref)) EXPECT_EQ(v, kInf) << name;

    // Only the chroma planes identical: cb and cr +inf, the luma and the combined score finite.
    Picture dist = distorted_picture(ref, 10);
    dist.planes[1] = ref.planes[1];
    dist.planes[2] = ref.planes[2];
    const FrameScores s = run(*fex, ref, dist);
    EXPECT_TRUE(std::isfinite(s[0].second));
    EXPECT_EQ(s[1].second, kInf);
    EXPECT_EQ(s[2].second, kInf);
    EXPECT_TRUE(std::isfinite(s[3].second));
    // psnr_hvs = 10 * -log10(0.8 * s_y + 0.1 * (0 + 0)).
    const Plane& a = ref.planes[0];
    const Plane& b = dist.planes[0];
    const double sy = psnr_hvs::plane_score(a.row<std::uint16_t>(0), a.stride(), b.row<std::uint16_t>(0), b.stride(),
                                            a.width(), a.height(), 10, 0);
    EXPECT_EQ(s[0].second, psnr_hvs::to_db(sy));
    EXPECT_EQ(s[3].second, psnr_hvs::to_db(sy * .8 + .1 * (0.0 + 0.0)));
}

// The writers on the scores of a clip whose chroma planes are identical to the reference's and
// whose luma is identical in frames 0 and 2: what upstream 3.2.0 writes for the same scores
// (checked with vmaf --feature psnr_hvs on such a clip made from the tiny_64x36 fixture).
class PsnrHvsOutput : public test::TempDirTest {
protected:
    void SetUp() override {
        TempDirTest::SetUp();
        r_.frames = 3;
        r_.format = {64, 36, 8, Subsampling::k420};
        const double y[3] = {kInf, 30.365251891417021, kInf};
        const double all[3] = {kInf, 31.334352021497583, kInf};
        for (unsigned i = 0; i < 3; ++i) {
            r_.scores.set("psnr_hvs_y", i, y[i]);
            r_.scores.set("psnr_hvs_cb", i, kInf);
            r_.scores.set("psnr_hvs_cr", i, kInf);
            r_.scores.set("psnr_hvs", i, all[i]);
        }
    }
    RunResult r_;
};

TEST_F(PsnrHvsOutput, JsonWritesNullPerFrameAndPooled) {
    NumberFormat max;
    max.max_precision = true;
    const auto j = nlohmann::json::parse(render_output(r_, OutputFormat::kJson, max));
    for (unsigned i = 0; i < 3; ++i) {
        EXPECT_TRUE(j["frames"][i]["metrics"]["psnr_hvs_cb"].is_null());
        EXPECT_TRUE(j["frames"][i]["metrics"]["psnr_hvs_cr"].is_null());
        EXPECT_EQ(j["frames"][i]["metrics"]["psnr_hvs_y"].is_null(), i != 1);
    }
    EXPECT_EQ(j["frames"][1]["metrics"]["psnr_hvs_y"], 30.365251891417021);
    for (const char* name : {"psnr_hvs_cb", "psnr_hvs_cr"})
        for (const char* pool : {"min", "max", "mean", "harmonic_mean"})
            EXPECT_TRUE(j["pooled_metrics"][name][pool].is_null()) << name << " " << pool;
    // min is the finite frame, max and mean +inf; the harmonic mean n / sum(1 / (s + 1)) - 1 is
    // finite: 1 / (inf + 1) = 0.
    const auto& y = j["pooled_metrics"]["psnr_hvs_y"];
    EXPECT_EQ(y["min"], 30.365251891417021);
    EXPECT_TRUE(y["max"].is_null());
    EXPECT_TRUE(y["mean"].is_null());
    EXPECT_EQ(y["harmonic_mean"], 3 / (1 / (30.365251891417021 + 1)) - 1);
}

TEST_F(PsnrHvsOutput, XmlCsvSubWriteInf) {
    const std::string xml = render_output(r_, OutputFormat::kXml, {});
    EXPECT_NE(xml.find("<frame frameNum=\"0\" psnr_hvs_y=\"inf\" psnr_hvs_cb=\"inf\" psnr_hvs_cr=\"inf\" "
                       "psnr_hvs=\"inf\" />"),
              std::string::npos)
        << xml;
    EXPECT_NE(xml.find("<frame frameNum=\"1\" psnr_hvs_y=\"30.365252\" psnr_hvs_cb=\"inf\" psnr_hvs_cr=\"inf\" "
                       "psnr_hvs=\"31.334352\" />"),
              std::string::npos)
        << xml;
    EXPECT_NE(xml.find("<metric name=\"psnr_hvs_y\" min=\"30.365252\" max=\"inf\" mean=\"inf\" harmonic_mean="),
              std::string::npos)
        << xml;
    EXPECT_NE(xml.find("<metric name=\"psnr_hvs_cb\" min=\"inf\" max=\"inf\" mean=\"inf\" harmonic_mean=\"inf\" />"),
              std::string::npos)
        << xml;
    EXPECT_EQ(render_output(r_, OutputFormat::kCsv, {}),
              "Frame,psnr_hvs_y,psnr_hvs_cb,psnr_hvs_cr,psnr_hvs,\n"
              "0,inf,inf,inf,inf,\n"
              "1,30.365252,inf,inf,31.334352,\n"
              "2,inf,inf,inf,inf,\n");
    NumberFormat max;
    max.max_precision = true;
    const std::string sub = render_output(r_, OutputFormat::kSub, max);
    EXPECT_EQ(sub.substr(0, sub.find('\n', sub.find('\n') + 1)),
              "{0}{1}frame: 0|psnr_hvs_y: inf|psnr_hvs_cb: inf|psnr_hvs_cr: inf|psnr_hvs: inf|\n"
              "{1}{2}frame: 1|psnr_hvs_y: 30.365251891417021|psnr_hvs_cb: inf|psnr_hvs_cr: inf|"
              "psnr_hvs: 31.334352021497583|");
}

// NaN and -inf, which other inputs give upstream (a plane without a block; samples far above
// the bit depth), print as glibc's printf writes them in XML, CSV and SUB, whatever the number
// format; null in JSON.
TEST_F(PsnrHvsOutput, NanAndMinusInfAsPrintf) {
    r_.scores.set("psnr_hvs_y", 0, -kInf);
    r_.scores.set("psnr_hvs_cb", 0, std::nan(""));
    r_.scores.set("psnr_hvs_cr", 0, -std::nan(""));
    NumberFormat two;
    two.digits = 2;
    for (const NumberFormat& nf : {NumberFormat{}, two}) {
        const std::string csv = render_output(r_, OutputFormat::kCsv, nf);
        EXPECT_NE(csv.find("\n0,-inf,nan,-nan,inf,\n"), std::string::npos) << csv;
        const std::string xml = render_output(r_, OutputFormat::kXml, nf);
        EXPECT_NE(xml.find("psnr_hvs_y=\"-inf\" psnr_hvs_cb=\"nan\" psnr_hvs_cr=\"-nan\""), std::string::npos)
            << xml;
        const std::string sub = render_output(r_, OutputFormat::kSub, nf);
        EXPECT_NE(sub.find("psnr_hvs_y: -inf|psnr_hvs_cb: nan|psnr_hvs_cr: -nan|"), std::string::npos) << sub;
    }
    const auto j = nlohmann::json::parse(render_output(r_, OutputFormat::kJson, {}));
    for (const char* name : {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr"}) {
        EXPECT_TRUE(j["frames"][0]["metrics"][name].is_null()) << name;
        EXPECT_TRUE(j["pooled_metrics"][name]["mean"].is_null()) << name;
    }
}

}  // namespace
}  // namespace vmafx
