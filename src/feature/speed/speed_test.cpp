// Tests of speed_chroma and speed_temporal beyond the registry-driven suites (test_metrics.cpp:
// golden values, tables, refusals at the descriptors' limits, threads): the exact size limits
// under speed_prescale and the subsamplings, the other refusals (kernel scales, bit depths,
// prescales upstream cannot run), output names, upstream's rules for singular planes, clipping
// and frame 0, and oracle values on a synthetic clip.
#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/speed/speed.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

const MetricDescriptor& chroma = speed_chroma::descriptor;
const MetricDescriptor& temporal = speed_temporal::descriptor;

bool accepts(const MetricDescriptor& m, const OptionValues& values, const VideoFormat& f) {
    try {
        (void)m.make_extractor(m.parse_options(values), f);
        return true;
    } catch (const Error&) {
        return false;
    }
}

std::string refusal(const MetricDescriptor& m, const OptionValues& values, const VideoFormat& f) {
    return test::error_of([&] { (void)m.make_extractor(m.parse_options(values), f); });
}

// ---------------------------------------------------------------------------------------
// Size limits: the picture SpEED scores, scaled by speed_prescale ((int)(size * ps + 0.5)),
// must be at least 80 x 80 (its 1/16 needs a 5 x 5 block). Upstream logs "SpEED: image too
// small" and then crashes below (checked with the oracle at 79x80, 80x79, 159x160 4:2:0).

TEST(SpeedLimits, TemporalAtDefaultPrescale) {
    EXPECT_TRUE(accepts(temporal, {}, {80, 80, 8, Subsampling::k420}));
    EXPECT_FALSE(accepts(temporal, {}, {79, 80, 8, Subsampling::k420}));
    EXPECT_FALSE(accepts(temporal, {}, {80, 79, 8, Subsampling::k420}));
}

TEST(SpeedLimits, TemporalAtPrescaleHalf) {
    // (int)(159 * 0.5 + 0.5) = 80, (int)(158 * 0.5 + 0.5) = 79.
    EXPECT_TRUE(accepts(temporal, {{"speed_prescale", "0.5"}}, {159, 159, 8, Subsampling::k420}));
    const std::string got = refusal(temporal, {{"speed_prescale", "0.5"}}, {158, 159, 8, Subsampling::k420});
    EXPECT_EQ(got.rfind("speed_temporal: luma 158x159 is too small at speed_prescale 0.5: scaled to 79x80, it must "
                        "be at least 80x80",
                        0),
              0u)
        << got;
    EXPECT_FALSE(accepts(temporal, {{"speed_prescale", "0.5"}}, {159, 158, 8, Subsampling::k420}));
    // speed_prescale 0.1: 800 -> 80 accepted, 794 -> 79 refused.
    EXPECT_TRUE(accepts(temporal, {{"speed_prescale", "0.1"}}, {795, 795, 8, Subsampling::k420}));
    EXPECT_FALSE(accepts(temporal, {{"speed_prescale", "0.1"}}, {794, 795, 8, Subsampling::k420}));
}

// The descriptor's limits are per chroma plane, at speed_prescale 1: each plane, as upstream
// sizes it (floor(w/2) at 4:2:0 and 4:2:2, floor(h/2) at 4:2:0), at least 80x80. The smallest
// luma is 160x160 at 4:2:0, 160x80 at 4:2:2 and 80x80 at 4:4:4 (upstream: "SpEED: image too
// small" and a crash one below, at 79x80, 80x79 4:4:4, 158x80, 160x79 4:2:2, 158x160, 160x158
// 4:2:0 with the oracle).
TEST(SpeedLimits, ChromaPlanesAsUpstreamSizesThem) {
    EXPECT_EQ(chroma.limits.smallest(Subsampling::k420), (std::pair{160, 160}));
    EXPECT_EQ(chroma.limits.smallest(Subsampling::k422), (std::pair{160, 80}));
    EXPECT_EQ(chroma.limits.smallest(Subsampling::k444), (std::pair{80, 80}));
    for (const VideoFormat at : {VideoFormat{160, 160, 8, Subsampling::k420}, VideoFormat{160, 80, 8, Subsampling::k422},
                                 VideoFormat{80, 80, 8, Subsampling::k444}}) {
        SCOPED_TRACE(test::format_label(at));
        EXPECT_TRUE(accepts(chroma, {}, at));
        // One column or row below (159: floor 79 already) and two below (158, the even size).
        for (const auto& [w, h] : {std::pair{at.width - 1, at.height}, std::pair{at.width - 2, at.height},
                                   std::pair{at.width, at.height - 1}, std::pair{at.width, at.height - 2}})
            EXPECT_FALSE(accepts(chroma, {}, {w, h, 8, at.subsampling})) << w << "x" << h;
    }
    EXPECT_EQ(refusal(chroma, {}, {159, 160, 8, Subsampling::k420})
                  .rfind("speed_chroma: picture 159x160 in 4:2:0 is too small: its chroma planes are 79x80 (rounded "
                         "down, as upstream sizes them) and must be at least 80x80",
                         0),
              0u)
        << refusal(chroma, {}, {159, 160, 8, Subsampling::k420});
    // 4:4:4 from 80 and 4:2:2 from 80 high are scored (luma 160x160 was the limit once).
    EXPECT_TRUE(accepts(chroma, {}, {80, 159, 8, Subsampling::k444}));
    EXPECT_TRUE(accepts(chroma, {}, {159, 80, 8, Subsampling::k444}));
    EXPECT_TRUE(accepts(chroma, {}, {160, 159, 8, Subsampling::k422}));
    // speed_prescale 0.4, 4:4:4 (the plane is the luma): 199 -> (int)80.1, 198 -> (int)79.7.
    EXPECT_TRUE(accepts(chroma, {{"speed_prescale", "0.4"}}, {199, 199, 8, Subsampling::k444}));
    const std::string got = refusal(chroma, {{"speed_prescale", "0.4"}}, {198, 199, 8, Subsampling::k444});
    EXPECT_EQ(got.rfind("speed_chroma: chroma plane 198x199 is too small at speed_prescale 0.4: scaled to 79x80, it "
                        "must be at least 80x80",
                        0),
              0u)
        << got;
    // Above speed_prescale 1 the limits are those of the scaled planes, as upstream's: the
    // smallest plane side is the least n with (int)(n * prescale + 0.5) >= 80: 20 at 4, 40 at 2,
    // 53 at 1.5 (upstream: "SpEED: image too small", then a segmentation fault, one below; the
    // sizes accepted are scored as upstream scores them: SpeedValues.OracleAtTheChromaEdges).
    EXPECT_EQ(speed::smallest_plane_side(1.0), 80);
    EXPECT_EQ(speed::smallest_plane_side(4.0), 20);
    EXPECT_EQ(speed::smallest_plane_side(2.0), 40);
    EXPECT_EQ(speed::smallest_plane_side(1.5), 53);
    EXPECT_EQ(speed::smallest_plane_side(0.5), 159);
    EXPECT_EQ(speed::smallest_plane_side(0.1), 795);
    const struct {
        const char* prescale;
        VideoFormat smallest;
    } edges[] = {{"4", {20, 20, 8, Subsampling::k444}},
                 {"4", {40, 40, 8, Subsampling::k420}},
                 {"4", {40, 20, 10, Subsampling::k422}},
                 {"2", {40, 40, 8, Subsampling::k444}},
                 {"1.5", {53, 53, 8, Subsampling::k444}},
                 {"1.5", {106, 106, 8, Subsampling::k420}}};
    for (const auto& e : edges) {
        SCOPED_TRACE(test::format_label(e.smallest) + " speed_prescale " + e.prescale);
        const OptionValues ps = {{"speed_prescale", e.prescale}};
        const VideoFormat at = e.smallest;
        EXPECT_TRUE(accepts(chroma, ps, at));
        const int step = at.subsampling == Subsampling::k444 ? 1 : 2;  // (a chroma sample less)
        const int step_h = at.subsampling == Subsampling::k420 ? 2 : 1;
        EXPECT_FALSE(accepts(chroma, ps, {at.width - step, at.height, at.bit_depth, at.subsampling}));
        EXPECT_FALSE(accepts(chroma, ps, {at.width, at.height - step_h, at.bit_depth, at.subsampling}));
    }
    const std::string small = refusal(chroma, {{"speed_prescale", "4"}}, {39, 40, 8, Subsampling::k420});
    EXPECT_EQ(small.rfind("speed_chroma: picture 39x40 in 4:2:0 is too small: its chroma planes are 19x20 (rounded "
                          "down, as upstream sizes them) and must be at least 20x20 (each chroma plane, scaled by "
                          "speed_prescale, must be at least 80x80",
                          0),
              0u)
        << small;
    // At speed_prescale 1 and below the descriptor keeps 80x80; the factory refines it.
    EXPECT_EQ(chroma.limits_under(chroma.parse_options({{"speed_prescale", "0.5"}})).min_chroma_width, 80);
    EXPECT_EQ(chroma.limits_under(chroma.parse_options({})).min_chroma_width, 80);
}

/// A picture of 16x16 blocks of hashed levels (the same for every seed) plus per-sample noise
/// of `seed` (8 levels for seed 1, 48 for others), shifted to the bit depth, so that a few
/// lines of Python write the same raw files for the oracle:
///   h(x, y, p, s) = v of (x * 73856093) ^ (y * 19349663) ^ ((p + 1) * 83492791) ^ (s * 2654435761)
///                   (mod 2^32), then v ^= v >> 13; v *= 0x5bd1e995 (mod 2^32); v ^= v >> 15
///   sample = (h(x / 16, y / 16, p, 1) % 200 + h(x, y, p, seed) % (seed == 1 ? 8 : 48)) << (bits - 8)
Picture block_picture(const VideoFormat& format, std::uint32_t seed) {
    const auto h = [](std::uint32_t x, std::uint32_t y, std::uint32_t p, std::uint32_t s) {
        std::uint32_t v = x * 73856093u ^ y * 19349663u ^ (p + 1) * 83492791u ^ s * 2654435761u;
        v ^= v >> 13;
        v *= 0x5bd1e995u;
        return v ^ (v >> 15);
    };
    Picture pic(format);
    for (int p = 0; p < 3; ++p) {
        Plane& plane = pic.planes[p];
        for (int y = 0; y < plane.height(); ++y)
            for (int x = 0; x < plane.width(); ++x) {
                const auto ux = static_cast<std::uint32_t>(x), uy = static_cast<std::uint32_t>(y);
                const auto up = static_cast<std::uint32_t>(p);
                const std::uint32_t v = (h(ux / 16, uy / 16, up, 1) % 200 + h(ux, uy, up, seed) % (seed == 1 ? 8 : 48))
                                        << (format.bit_depth - 8);
                if (format.bit_depth == 8) plane.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
                else plane.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
            }
    }
    return pic;
}

// At the new edges upstream scores, vmafx scores the same: upstream's values (vmaf 3.2.0,
// %.17g) on block_picture(seed 1) against block_picture(seed 2), written as raw files by the
// Python above and scored by
//   vmaf -r ref.yuv -d dist.yuv -w W -h H -p P -b B --no_prediction --json -o out.json
//        --feature speed_chroma            (one 5x5 block: 0, 0, 0 at every edge)
//        --feature speed_chroma=speed_prescale=2 (or 4, 1.5)
// with its output printed with %.17g (output.c's %.6f replaced).
TEST(SpeedValues, OracleAtTheChromaEdges) {
    struct Case {
        VideoFormat format;
        const char* prescale;
        double u, v, uv;
    };
    const Case cases[] = {
        {{80, 80, 8, Subsampling::k444}, "1", 0, 0, 0},
        {{80, 159, 8, Subsampling::k444}, "1", 0, 0, 0},
        {{159, 80, 10, Subsampling::k444}, "1", 0, 0, 0},
        {{160, 80, 10, Subsampling::k422}, "1", 0, 0, 0},
        {{160, 159, 8, Subsampling::k422}, "1", 0, 0, 0},
        {{160, 160, 8, Subsampling::k420}, "1", 0, 0, 0},
        {{80, 80, 8, Subsampling::k444}, "2", 44.94847106933594, 23.12622833251953, 34.037349700927734},
        {{80, 159, 8, Subsampling::k444}, "2", 26.483680725097656, 15.57262897491455, 21.028154373168945},
        {{159, 80, 8, Subsampling::k444}, "2", 23.457992553710938, 43.19246292114258, 33.325225830078125},
        {{160, 80, 10, Subsampling::k422}, "2", 44.94847106933594, 23.12622833251953, 34.037349700927734},
        {{160, 80, 8, Subsampling::k422}, "2", 44.94847106933594, 23.12622833251953, 34.037349700927734},
        // Chroma planes below 80x80 that speed_prescale scales to 80x80 or more.
        {{40, 40, 8, Subsampling::k444}, "4", 111.84990692138672, 44.929977416992188, 78.389938354492188},
        {{79, 79, 8, Subsampling::k444}, "4", 35.730030059814453, 53.011585235595703, 44.370807647705078},
        {{20, 20, 8, Subsampling::k444}, "4", 0, 0, 0},
        {{40, 40, 10, Subsampling::k420}, "4", 0, 0, 0},
        {{80, 80, 8, Subsampling::k422}, "2", 0, 0, 0},
        {{53, 53, 8, Subsampling::k444}, "1.5", 0, 0, 0},
        {{60, 45, 10, Subsampling::k444}, "2", 0, 0, 0},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(test::format_label(c.format) + " speed_prescale " + c.prescale);
        const auto fex = chroma.make_extractor(chroma.parse_options({{"speed_prescale", c.prescale}}), c.format);
        const Picture ref = block_picture(c.format, 1), dist = block_picture(c.format, 2);
        FrameInput in;
        in.ref = &ref;
        in.dist = &dist;
        FrameScores out;
        fex->extract(in, out);
        ASSERT_EQ(out.size(), 3u);
        EXPECT_EQ(out[0].second, c.u) << out[0].first;
        EXPECT_EQ(out[1].second, c.v) << out[1].first;
        EXPECT_EQ(out[2].second, c.uv) << out[2].first;
    }
}

TEST(SpeedLimits, ChromaOddSizesUseUpstreamsFloorForTheLimit) {
    // Upstream sizes 4:2:0 chroma as floor(w/2) x floor(h/2): luma 318 -> 159 (scales to 80 at
    // 0.5), 317 -> 158 (79) refused, though the ceil(317/2) = 159 plane vmafx scores would do.
    const OptionValues half = {{"speed_prescale", "0.5"}};
    EXPECT_TRUE(accepts(chroma, half, {318, 318, 8, Subsampling::k420}));
    EXPECT_FALSE(accepts(chroma, half, {317, 318, 8, Subsampling::k420}));
    EXPECT_FALSE(accepts(chroma, half, {318, 317, 8, Subsampling::k420}));
    // 4:2:2 halves the width only (speed_prescale 0.4: 199 is the smallest plane size).
    const OptionValues p4 = {{"speed_prescale", "0.4"}};
    EXPECT_TRUE(accepts(chroma, p4, {398, 199, 8, Subsampling::k422}));
    EXPECT_FALSE(accepts(chroma, p4, {397, 199, 8, Subsampling::k422}));
    EXPECT_FALSE(accepts(chroma, p4, {398, 198, 8, Subsampling::k422}));
    // Odd sizes are scored, not refused (853x481: planes 427x241).
    EXPECT_TRUE(accepts(chroma, {}, {853, 481, 8, Subsampling::k420}));
}

// ---------------------------------------------------------------------------------------
// Other refusals.

TEST(SpeedRefusals, KernelScalesOutsideUpstreamsList) {
    // vif_tools.c accepts 21 kernel scales (within 1e-3); upstream crashes on any other.
    for (const MetricDescriptor* m : {&chroma, &temporal}) {
        EXPECT_TRUE(accepts(*m, {{"speed_kernelscale", "3.7113402"}}, {176, 176, 8, Subsampling::k420}));  // 360/97
        EXPECT_TRUE(accepts(*m, {{"speed_kernelscale", "0.4449"}}, {176, 176, 8, Subsampling::k420}));  // ~1/2.25
        test::expect_error([&] { (void)m->make_extractor(m->parse_options({{"speed_kernelscale", "0.3"}}),
                                                         {176, 176, 8, Subsampling::k420}); },
                           {m->name, "invalid speed_kernelscale 0.3"});
    }
}

TEST(SpeedRefusals, BitDepthsPictureCopyDoesNotConvert) {
    for (const MetricDescriptor* m : {&chroma, &temporal}) {
        for (const int bits : {8, 10, 12, 16}) EXPECT_TRUE(accepts(*m, {}, {176, 176, bits, Subsampling::k420}));
        for (const int bits : {9, 11, 13, 14, 15})
            test::expect_error([&] { (void)m->make_extractor(m->parse_options({}), {176, 176, bits, Subsampling::k420}); },
                               {m->name, fmt::format("bit depth {} is not supported", bits)});
    }
}

TEST(SpeedRefusals, TemporalPrescaleThatRaisesTheHeight) {
    // Upstream's speed_temporal buffers have the unscaled height; a larger scaled height is
    // written past them (the oracle aborts at speed_prescale 1.1 and 2 on 576x324).
    EXPECT_FALSE(accepts(temporal, {{"speed_prescale", "2"}}, {176, 176, 8, Subsampling::k420}));
    EXPECT_FALSE(accepts(temporal, {{"speed_prescale", "1.1"}}, {176, 176, 8, Subsampling::k420}));
    EXPECT_TRUE(accepts(chroma, {{"speed_prescale", "2"}}, {176, 176, 8, Subsampling::k420}));
}

TEST(SpeedRefusals, PrescaleNearOneThatChangesTheSize) {
    // Within 1e-3 of 1 upstream does not rescale but scores (int)(size * ps + 0.5) samples.
    EXPECT_TRUE(accepts(temporal, {{"speed_prescale", "1.0005"}}, {960, 540, 8, Subsampling::k420}));
    EXPECT_FALSE(accepts(temporal, {{"speed_prescale", "0.9995"}}, {1920, 1080, 8, Subsampling::k420}));
    EXPECT_FALSE(accepts(chroma, {{"speed_prescale", "1.0005"}}, {3840, 2160, 8, Subsampling::k420}));
}

// ---------------------------------------------------------------------------------------
// Options and output names.

constexpr VideoFormat kFormat444{320, 240, 8, Subsampling::k444};

TEST(SpeedOptions, OutputNamesAsUpstream) {
    const Options model = chroma.parse_options({{"speed_kernelscale", "1.0"},
                                                {"speed_nn_floor", "0.1"},
                                                {"speed_sigma_nn", "0.19"},
                                                {"speed_weight_var_mode", "5"},
                                                {"speed_max_val", "45.0"}});
    EXPECT_EQ(model.feature_name("Speed_chroma_feature_speed_chroma_uv_score"),
              "speed_chroma_uv_mxv_45_nnf_0.1_snn_0.19_wvm_5");
    EXPECT_EQ(temporal.parse_options({{"speed_use_ref_diff", "true"}, {"speed_prescale", "0.5"}})
                  .feature_name("Speed_temporal_feature_speed_temporal_score"),
              "speed_temporal_ps_0.5_urd");
    // Default options: the upstream name (the writers print its alias, speed_chroma_u).
    EXPECT_EQ(chroma.parse_options({}).feature_name("Speed_chroma_feature_speed_chroma_u_score"),
              "Speed_chroma_feature_speed_chroma_u_score");
}

// speed_prescale_method (psm): a text feature parameter of both extractors, third in their
// tables as upstream's; names from the oracle (tools/option_corners.py
// speed_prescale_method_corners), e.g. speed_chroma_u_ps_0.5_psm_bilinear.
TEST(SpeedOptions, PrescaleMethodIsATextOption) {
    for (const MetricDescriptor* m : {&chroma, &temporal}) {
        ASSERT_GE(m->options.size(), 3u);
        const OptionSpec& row = m->options[2];
        EXPECT_STREQ(row.name, "speed_prescale_method");
        EXPECT_STREQ(row.alias, "psm");
        EXPECT_EQ(row.type, OptionType::kString);
        EXPECT_STREQ(row.default_text, "nearest");
        EXPECT_TRUE(row.is_feature_parameter());
        EXPECT_STREQ(row.help, "scaling method for the frame, supported options: [nearest, bilinear, bicubic, lanczos4]");
    }
    EXPECT_EQ(chroma.parse_options({{"speed_prescale", "0.5"}, {"speed_prescale_method", "bilinear"}})
                  .feature_name("Speed_chroma_feature_speed_chroma_u_score"),
              "speed_chroma_u_ps_0.5_psm_bilinear");
    EXPECT_EQ(temporal.parse_options({{"speed_prescale", "0.6"}, {"speed_prescale_method", "lanczos4"}})
                  .feature_name("Speed_temporal_feature_speed_temporal_score"),
              "speed_temporal_ps_0.6_psm_lanczos4");
    // The default, given explicitly, leaves the name alone.
    EXPECT_EQ(chroma.parse_options({{"speed_prescale_method", "nearest"}})
                  .feature_name("Speed_chroma_feature_speed_chroma_v_score"),
              "Speed_chroma_feature_speed_chroma_v_score");
    // Upstream: "Invalid scale method area. Supported scale methods: [...]", at init.
    EXPECT_EQ(refusal(chroma, {{"speed_prescale_method", "area"}}, kFormat444),
              "speed_chroma: invalid speed_prescale_method \"area\" (nearest, bilinear, bicubic or lanczos4)");
    EXPECT_FALSE(accepts(temporal, {{"speed_prescale_method", "Bilinear"}}, kFormat444));
    EXPECT_TRUE(accepts(temporal, {{"speed_prescale_method", "bicubic"}}, kFormat444));
}

TEST(SpeedOptions, TemporalHasNoWeightVarMode) {
    EXPECT_THROW((void)temporal.parse_options({{"speed_weight_var_mode", "1"}}), UsageError);
    EXPECT_THROW((void)chroma.parse_options({{"speed_use_ref_diff", "true"}}), UsageError);
    EXPECT_THROW((void)chroma.parse_options({{"speed_weight_var_mode", "7"}}), UsageError);
    EXPECT_THROW((void)chroma.parse_options({{"speed_weight_var_mode", "0.5"}}), UsageError);
}

// ---------------------------------------------------------------------------------------
// Values.

constexpr VideoFormat kFormat{640, 480, 8, Subsampling::k420};
constexpr const char* kU = "Speed_chroma_feature_speed_chroma_u_score";
constexpr const char* kV = "Speed_chroma_feature_speed_chroma_v_score";
constexpr const char* kUv = "Speed_chroma_feature_speed_chroma_uv_score";
constexpr const char* kT = "Speed_temporal_feature_speed_temporal_score";

double score(const ScoreTable& t, const std::string& name, unsigned i) {
    const auto v = t.get(name, i);
    EXPECT_TRUE(v.has_value()) << name << " frame " << i;
    return v.value_or(-1.0);
}

// A plane whose covariance matrix is singular in both videos (constant Cb) scores 0, and uv is
// then the other plane's score, not the mean (upstream extract_chroma).
TEST(SpeedValues, SingularPlaneGivesUvTheOtherPlane) {
    test::Clip clip{kFormat, {}, {}};
    for (std::uint32_t s = 0; s < 2; ++s) {
        Picture ref = test::random_picture(kFormat, 11 + s);
        Picture dist = test::distorted_picture(ref, 21 + s);
        for (Picture* p : {&ref, &dist})
            for (int y = 0; y < p->planes[1].height(); ++y)
                for (int x = 0; x < p->planes[1].width(); ++x) test::set_sample(p->planes[1], x, y, 77);
        clip.ref.push_back(ref);
        clip.dist.push_back(dist);
    }
    const ScoreTable t = test::run_cpu(chroma, chroma.parse_options({}), clip);
    for (unsigned i = 0; i < 2; ++i) {
        EXPECT_EQ(score(t, kU, i), 0.0);
        EXPECT_GT(score(t, kV, i), 0.0);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(score(t, kUv, i)), std::bit_cast<std::uint64_t>(score(t, kV, i)));
    }
}

// speed_max_val clips speed_chroma's three outputs; speed_temporal declares it but never
// applies it (upstream), and scores 0 at frame 0.
TEST(SpeedValues, MaxValClipsChromaOnly) {
    const test::Clip clip = test::synthetic_clip(kFormat, 3, 5);
    const ScoreTable c = test::run_cpu(chroma, chroma.parse_options({{"speed_max_val", "0"}}), clip);
    for (unsigned i = 0; i < 3; ++i)
        for (const char* n : {"speed_chroma_u_mxv_0", "speed_chroma_v_mxv_0", "speed_chroma_uv_mxv_0"})
            EXPECT_EQ(score(c, n, i), 0.0) << n;
    const ScoreTable t0 = test::run_cpu(temporal, temporal.parse_options({}), clip);
    const ScoreTable t1 = test::run_cpu(temporal, temporal.parse_options({{"speed_max_val", "0"}}), clip);
    EXPECT_EQ(score(t0, kT, 0), 0.0);
    EXPECT_GT(score(t0, kT, 1), 0.0);  // (frame 2 repeats reference 1: 0)
    for (unsigned i = 1; i < 3; ++i) {
        EXPECT_EQ(score(t0, kT, i), score(t1, "speed_temporal_mxv_0", i));
    }
}

// Oracle values: upstream libvmaf 3.2.0 (vmaf, %.17g) on test::synthetic_clip(320x256 8-bit
// 4:2:0, 6 frames, seed 3) and at 256x192 10-bit 4:4:4, written with test::write_raw:
//   vmaf -r ref.yuv -d dist.yuv -w 320 -h 256 -p 420 -b 8 -n --json -o out.json
//        --feature speed_chroma --feature speed_temporal
//        --feature speed_temporal=speed_use_ref_diff=true
//        --feature speed_chroma=speed_prescale=2:speed_weight_var_mode=6
struct Expected {
    const char* name;
    double values[6];
};

void expect_oracle(const VideoFormat& format, const std::vector<Expected>& expected) {
    const test::Clip clip = test::synthetic_clip(format, 6, 3);
    const ScoreTable c = test::run_cpu(chroma, chroma.parse_options({}), clip);
    const ScoreTable t = test::run_cpu(temporal, temporal.parse_options({}), clip);
    const ScoreTable u = test::run_cpu(temporal, temporal.parse_options({{"speed_use_ref_diff", "true"}}), clip);
    const ScoreTable p = test::run_cpu(
        chroma, chroma.parse_options({{"speed_prescale", "2"}, {"speed_weight_var_mode", "6"}}), clip);
    for (const Expected& e : expected) {
        const std::string n = e.name;
        const ScoreTable& table = n.find("urd") != std::string::npos ? u
                                  : n.find("ps_") != std::string::npos ? p
                                  : n.find("temporal") != std::string::npos ? t
                                                                        : c;
        for (unsigned i = 0; i < 6; ++i)
            EXPECT_EQ(fmt::format("{:.17g}", score(table, n, i)), fmt::format("{:.17g}", e.values[i]))
                << n << " frame " << i << " " << test::format_label(format);
    }
}

TEST(SpeedValues, OracleOnSyntheticClip8Bit420) {
    expect_oracle({320, 256, 8, Subsampling::k420},
                  {
        {"Speed_chroma_feature_speed_chroma_u_score", {0, 0, 0, 0, 0, 0}},
        {"Speed_chroma_feature_speed_chroma_v_score", {0, 0, 0, 0, 0, 0}},
        {"Speed_chroma_feature_speed_chroma_uv_score", {0, 0, 0, 0, 0, 0}},
        {"Speed_temporal_feature_speed_temporal_score", {0, 6.6452469825744629, 0, 139.826416015625, 13.077614784240723, 5.4273414611816406}},
        {"speed_temporal_urd", {0, 6.1584396362304688, 0, 126.62993621826172, 12.905548095703125, 0.49945959448814392}},
        {"speed_chroma_u_ps_2_wvm_6", {8.5768356323242188, 13.798375129699707, 169.59992980957031, 0, 5.0862631724157836e-06, 23.922248840332031}},
        {"speed_chroma_v_ps_2_wvm_6", {9.1303339004516602, 14.350956916809082, 171.329833984375, 0, 0.19721730053424835, 23.483182907104492}},
        {"speed_chroma_uv_ps_2_wvm_6", {8.8535842895507812, 14.074666023254395, 170.46487426757812, 0, 0.098611190915107727, 23.702716827392578}},
                  });
}

TEST(SpeedValues, OracleOnSyntheticClip10Bit444) {
    expect_oracle({256, 192, 10, Subsampling::k444},
                  {
        {"Speed_chroma_feature_speed_chroma_u_score", {4.349118709564209, 10.958437919616699, 140.04158020019531, 0, 0.96391803026199341, 11.355158805847168}},
        {"Speed_chroma_feature_speed_chroma_v_score", {3.8468704223632812, 7.0497951507568359, 130.90762329101562, 0, 0.87951403856277466, 14.254956245422363}},
        {"Speed_chroma_feature_speed_chroma_uv_score", {4.0979948043823242, 9.0041160583496094, 135.474609375, 0, 0.92171603441238403, 12.805057525634766}},
        {"Speed_temporal_feature_speed_temporal_score", {0, 6.500943660736084, 0, 161.03446960449219, 12.544474601745605, 7.6781744956970215}},
        {"speed_temporal_urd", {0, 6.0017218589782715, 0, 152.74885559082031, 12.544474601745605, 0}},
        {"speed_chroma_u_ps_2_wvm_6", {8.4138402938842773, 14.408787727355957, 193.35107421875, 0, 1.33514404296875e-05, 17.294992446899414}},
        {"speed_chroma_v_ps_2_wvm_6", {7.5567588806152344, 11.335989952087402, 189.12223815917969, 0, 0.039609272032976151, 15.968119621276855}},
        {"speed_chroma_uv_ps_2_wvm_6", {7.9852995872497559, 12.87238883972168, 191.23666381835938, 0, 0.019811311736702919, 16.631555557250977}},
                  });
}

// The four scalers of speed_prescale_method, through the core. Oracle: upstream on the 256x192
// 10-bit 4:4:4 clip above,
//   vmaf ... -p 444 -b 10 -n --frame_cnt 2
//        --feature speed_chroma=speed_prescale=1.5:speed_prescale_method=METHOD
// (speed_chroma_u_ps_1.5_psm_METHOD, speed_chroma_v_...; "nearest" is the default, unnamed).
TEST(SpeedValues, PrescaleMethodsAsUpstream) {
    const VideoFormat format{256, 192, 10, Subsampling::k444};
    const test::Clip clip = test::synthetic_clip(format, 2, 3);
    struct Case {
        speed::ScaleMethod method;
        double u[2], v[2];
    };
    const Case cases[] = {
        {speed::ScaleMethod::kNearest, {9.3428945541381836, 16.389642715454102}, {9.0672645568847656, 17.523244857788086}},
        {speed::ScaleMethod::kBilinear, {9.0176095962524414, 14.522835731506348}, {12.176602363586426, 14.648531913757324}},
        {speed::ScaleMethod::kBicubic, {5.970639705657959, 13.957371711730957}, {10.16609001159668, 15.884739875793457}},
        {speed::ScaleMethod::kLanczos4, {6.1910223960876465, 13.74065113067627}, {10.246785163879395, 16.107719421386719}},
    };
    const speed::Geometry g = speed::Geometry::of(256, 192, 1.5);
    for (const Case& c : cases) {
        const speed::Params p{.kernelscale = 1.0, .prescale = 1.5, .method = c.method, .sigma_nn = 0.29,
                              .nn_floor = 0.0, .weight_var_mode = 0};
        for (unsigned i = 0; i < 2; ++i)
            for (int plane = 1; plane <= 2; ++plane) {
                std::vector<float> ref(g.buffer_size(), 0.0f), dis(g.buffer_size(), 0.0f);
                floatimg::to_float(clip.ref[i].planes[plane], 10, ref.data(), g.alloc_width);
                floatimg::to_float(clip.dist[i].planes[plane], 10, dis.data(), g.alloc_width);
                bool singular = false;
                const double got = speed::score(g, p, ref.data(), dis.data(), singular);
                EXPECT_EQ(fmt::format("{:.17g}", got), fmt::format("{:.17g}", plane == 1 ? c.u[i] : c.v[i]))
                    << "method " << static_cast<int>(c.method) << " frame " << i << " plane " << plane;
            }
    }
    EXPECT_EQ(speed::parse_scale_method("speed_chroma", "bilinear"), speed::ScaleMethod::kBilinear);
    test::expect_error([] { (void)speed::parse_scale_method("speed_chroma", "area"); },
                       {"speed_chroma", "invalid speed_prescale_method \"area\""});
}

}  // namespace
}  // namespace vmafx
