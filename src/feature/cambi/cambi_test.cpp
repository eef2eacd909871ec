// Tests of CAMBI beyond the registry-driven suites (test_metrics.cpp: golden values, tables,
// refusals at the descriptor's limits, threads): string options and output names, upstream's
// values and heatmap files on small synthetic pictures (pasted from the oracle), and each
// refusal at its edge.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/error.hpp"
#include "feature/cambi/cambi.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using cambi::descriptor;

Options cambi_options(const OptionValues& values = {}) { return descriptor.parse_options(values); }

// The luma the oracle values below were computed from: bands of 40 levels from 60 (8-bit
// units, shifted up to the bit depth) across and down the picture, with a sample one level up
// wherever (7x + 13y + seed) % 53 == 0; chroma mid-grey. The reference has seed 1, the
// distorted seed 2. The same pattern as 4:2:0 raw files (written by a few lines of Python) gave
// the oracle values: vmaf -r ref.yuv -d dist.yuv -w W -h H -p 420 -b BITS -n --feature cambi...
Picture pattern_picture(const VideoFormat& format, int seed) {
    Picture pic(format);
    const int w = format.width, h = format.height;
    test::fill(pic, [&](int plane, int x, int y) -> std::uint32_t {
        if (plane != 0) return 128u << (format.bit_depth - 8);
        const int v = ((x * 3) / (w / 7 + 1) + (y * 2) / (h / 5 + 1)) % 40 + 60 + ((x * 7 + y * 13 + seed) % 53 == 0);
        return static_cast<std::uint32_t>(v) << (format.bit_depth - 8);
    });
    return pic;
}

// The pattern with dark patches: where (5x / w + 3y / h) is even, level 16 (8-bit units; 64 at
// 10 bits, the foot of the limited range) with the same one-level-up samples.
Picture dark_pattern_picture(const VideoFormat& format, int seed) {
    Picture pic = pattern_picture(format, seed);
    const int w = format.width, h = format.height;
    test::fill(pic, [&](int plane, int x, int y) -> std::uint32_t {
        if (plane != 0) return 128u << (format.bit_depth - 8);
        const int bump = (x * 7 + y * 13 + seed) % 53 == 0;
        const int v = (x * 5 / w + y * 3 / h) % 2 == 0
                          ? 16 + bump
                          : ((x * 3) / (w / 7 + 1) + (y * 2) / (h / 5 + 1)) % 40 + 60 + bump;
        return static_cast<std::uint32_t>(v) << (format.bit_depth - 8);
    });
    return pic;
}

// The scores of one frame of the pattern (dark: with dark patches) at width x height and `bits`.
ScoreTable run_pattern(int width, int height, int bits, const OptionValues& values, bool dark = false) {
    const VideoFormat format{width, height, bits, Subsampling::k420};
    const auto make = dark ? dark_pattern_picture : pattern_picture;
    test::Clip clip{format, {make(format, 1)}, {make(format, 2)}};
    return test::run_cpu(descriptor, cambi_options(values), clip);
}

// The message of the Error scoring the pattern throws, "" when it is scored.
std::string error_scoring(int width, int height, int bits, const OptionValues& values, bool dark = false) {
    return test::error_of([&] { (void)run_pattern(width, height, bits, values, dark); });
}

double score(const ScoreTable& t, const std::string& name) {
    const auto v = t.get(name, 0);
    EXPECT_TRUE(v.has_value()) << name;
    return v.value_or(-1.0);
}

// The message of the Error making the extractor throws, "" when it is made.
std::string error_making(int width, int height, int bits, const OptionValues& values) {
    try {
        (void)descriptor.make_extractor(cambi_options(values), {width, height, bits, Subsampling::k420});
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// ---------------------------------------------------------------------------------------------
// String options.

TEST(CambiOptions, StringOptionsNameOutputsAsUpstream) {
    EXPECT_EQ(cambi::Settings(cambi_options()).score_name, "Cambi_feature_cambi_score");
    EXPECT_EQ(cambi::Settings(cambi_options({{"eotf", "pq"}})).score_name, "cambi_eotf_pq");
    EXPECT_EQ(cambi::Settings(cambi_options({{"cambi_eotf", "pq"}})).score_name, "cambi_ceot_pq");
    // The default text is no feature parameter; strings and numbers sort together by option name.
    EXPECT_EQ(cambi::Settings(cambi_options({{"eotf", "bt1886"}})).score_name, "Cambi_feature_cambi_score");
    EXPECT_EQ(cambi::Settings(cambi_options({{"window_size", "33"},
                                             {"eotf", "pq"},
                                             {"cambi_max_val", "17"},
                                             {"cambi_eotf", "pq"}}))
                  .score_name,
              "cambi_ceot_pq_cmxv_17_eotf_pq_ws_33");
    // heatmaps_path and full_ref are no feature parameters.
    EXPECT_EQ(cambi::Settings(cambi_options({{"full_ref", "true"}, {"heatmaps_path", "x"}})).score_name,
              "Cambi_feature_cambi_score");
    EXPECT_EQ(cambi::Settings(cambi_options({{"cambi_high_res_speedup", "1080"},
                                             {"cambi_vis_lum_threshold", "0.06"},
                                             {"cambi_max_val", "17"}}))
                  .score_name,
              "cambi_hrs_1080_cmxv_17_vlt_0.06");
}

TEST(CambiOptions, StringOptionsBindTextAndKeepTheirDefaults) {
    const Options set = cambi_options({{"eotf", "pq"}, {"heatmaps_path", ""}});
    EXPECT_EQ(set.get_text("eotf"), "pq");
    EXPECT_EQ(set.get_text("cambi_eotf"), "bt1886");
    EXPECT_EQ(set.get_text("heatmaps_path"), "");  // upstream's NULL default
    cambi::Settings s(set);
    EXPECT_EQ(s.eotf, "pq");
    EXPECT_EQ(s.cambi_eotf, "bt1886");
    EXPECT_TRUE(s.heatmaps_path.empty());
    EXPECT_THROW((void)set.get("eotf"), Error);
    EXPECT_THROW((void)set.get_text("window_size"), Error);
    EXPECT_EQ(set.key(), "eotf=\"pq\";");
    EXPECT_EQ(cambi_options({{"eotf", "bt1886"}}).key(), "");
    // Any text parses; the extractor checks it.
    EXPECT_NO_THROW((void)cambi_options({{"cambi_eotf", "whatever"}}));
}

// ---------------------------------------------------------------------------------------------
// Upstream's values.

TEST(CambiValues, EqualTheOracleOnSyntheticPictures) {
    // --feature cambi
    EXPECT_EQ(score(run_pattern(216, 216, 8, {}), "Cambi_feature_cambi_score"), 20.347879636277213);
    // --feature cambi=eotf=pq:full_ref=true
    const ScoreTable full = run_pattern(216, 216, 8, {{"eotf", "pq"}, {"full_ref", "true"}});
    EXPECT_EQ(score(full, "cambi_eotf_pq"), 20.370192170146023);
    EXPECT_EQ(score(full, "cambi_source"), 20.407520545538098);
    EXPECT_EQ(score(full, "cambi_full_reference"), 0.0);
    // -b 10 --feature cambi=cambi_eotf=pq:cambi_max_val=17:eotf=pq:window_size=33
    EXPECT_EQ(score(run_pattern(216, 216, 10,
                                {{"cambi_eotf", "pq"}, {"cambi_max_val", "17"}, {"eotf", "pq"}, {"window_size", "33"}}),
                    "cambi_ceot_pq_cmxv_17_eotf_pq_ws_33"),
              16.938347227976045);
    // -b 10 --feature cambi=enc_bitdepth=8:max_log_contrast=5:topk=0.1
    EXPECT_EQ(score(run_pattern(320, 240, 10, {{"enc_bitdepth", "8"}, {"max_log_contrast", "5"}, {"topk", "0.1"}}),
                    "cambi_encbd_8_mlc_5_topk_0.1"),
              28.78949619961434);
}

// ---------------------------------------------------------------------------------------------
// Refusals, each at its edge.

// Pictures below 216 wide that are at least 216 high, which upstream scores (its only size
// check is an encode below 216 in both dimensions). Upstream's values from the same luma as raw
// files (4:2:0 at 214x216, else 4:4:4 of the same luma), its output printed with %.17g:
//   vmaf -r ref.yuv -d dist.yuv -w W -h H -p P -b B --no_prediction --feature cambi --json -o out.json
// each also checked under valgrind (no error).
TEST(CambiValues, NarrowPicturesAtLeast216High) {
    EXPECT_EQ(score(run_pattern(214, 216, 8, {}), "Cambi_feature_cambi_score"), 20.406965069527679);
    EXPECT_EQ(score(run_pattern(32, 216, 10, {}), "Cambi_feature_cambi_score"), 18.069306973745441);
    EXPECT_EQ(score(run_pattern(64, 216, 10, {}), "Cambi_feature_cambi_score"), 23.628165656214275);
    EXPECT_EQ(score(run_pattern(200, 400, 10, {}), "Cambi_feature_cambi_score"), 23.719915443977339);
    // Windows wider than the small scales (24 wide: 12, 6, 3, 2 at scales 1 to 4, window 21):
    // their columns past the scale read the scale before's data, as upstream's.
    EXPECT_EQ(score(run_pattern(24, 2000, 10, {}), "Cambi_feature_cambi_score"), 2.1050611558763048);
    EXPECT_EQ(score(run_pattern(40, 1200, 10, {}), "Cambi_feature_cambi_score"), 7.2842470742337895);
    // The narrowest: 1 wide (window 3), and windows wider than the picture itself (12 x 2500:
    // window 27; upstream reads its zero row padding there).
    EXPECT_EQ(score(run_pattern(1, 216, 8, {}), "Cambi_feature_cambi_score"), 0.0);
    EXPECT_EQ(score(run_pattern(12, 2500, 10, {}), "Cambi_feature_cambi_score"), 0.0);
    EXPECT_EQ(score(run_pattern(8, 1500, 8, {}), "Cambi_feature_cambi_score"), 0.0);
}

TEST(CambiRefusals, SmallestPictures) {
    // Upstream refuses an encode below 216 in both dimensions at initialisation.
    EXPECT_EQ(error_making(214, 214, 8, {}).rfind("cambi: picture 214x214 is too small: its luma plane must be at "
                                                  "least 216 wide or 216 high",
                                                  0),
              0u);
    EXPECT_EQ(error_making(215, 215, 8, {}).rfind("cambi: picture 215x215 is too small", 0), 0u);
    EXPECT_EQ(error_making(1, 215, 8, {}).rfind("cambi: picture 1x215 is too small", 0), 0u);
    EXPECT_EQ(error_making(1, 216, 8, {}), "");
    EXPECT_EQ(error_making(215, 216, 8, {}), "");
    // 216 x 2 is the smallest the windows fit (216 x 1: upstream corrupts its heap); its value is 0.
    EXPECT_EQ(score(run_pattern(216, 2, 8, {}), "Cambi_feature_cambi_score"), 0.0);
    EXPECT_NE(error_making(216, 1, 8, {}).find("cambi: picture 216x1 is too small"), std::string::npos);
    // Wide, low pictures: the window (scaled by width + height) must not be higher than the
    // fifth scale. At 576 wide, 33 is the lowest accepted (the window's 3 rows past the centre
    // reach exactly the fifth scale's 3 rows; upstream's values below at 33, from a 4:4:4 file
    // of the same luma, and 34), 32 refused (upstream prints scores, then "free(): invalid
    // pointer": it wrote before its buffer).
    EXPECT_EQ(score(run_pattern(576, 33, 8, {}), "Cambi_feature_cambi_score"), 20.018753692976404);
    EXPECT_EQ(score(run_pattern(576, 34, 8, {}), "Cambi_feature_cambi_score"), 20.019083782472222);
    EXPECT_EQ(error_making(576, 32, 8, {}).rfind("cambi: picture 576x32 is too small for its window", 0), 0u);
    EXPECT_EQ(error_making(1920, 161, 8, {}), "");
    EXPECT_NE(error_making(1920, 160, 8, {}).find("too small for its window"), std::string::npos);
}

TEST(CambiRefusals, OptionsUpstreamRefusesAtInitialisation) {
    // Encode 180 x 150 (both below 216), 300 x 150 accepted.
    EXPECT_NE(error_making(576, 324, 8, {{"enc_width", "180"}, {"enc_height", "150"}}).find("must be at least 216"),
              std::string::npos);
    EXPECT_EQ(error_making(576, 324, 8, {{"enc_width", "300"}, {"enc_height", "150"}}), "");
    // Source and encode scaled in opposite directions.
    EXPECT_NE(error_making(576, 324, 8, {{"src_width", "7680"}, {"src_height", "200"}}).find("opposite directions"),
              std::string::npos);
    // An unknown EOTF, unless cambi_eotf overrides it.
    EXPECT_NE(error_making(576, 324, 8, {{"eotf", "hlg"}}).find("unknown EOTF \"hlg\""), std::string::npos);
    EXPECT_EQ(error_making(576, 324, 8, {{"eotf", "hlg"}, {"cambi_eotf", "pq"}}), "");
    // The window must fit the reciprocal table: at 4K window_size is taken as is (made odd), 65
    // the largest that fits.
    EXPECT_EQ(error_making(3840, 2160, 8, {{"window_size", "65"}}), "");
    EXPECT_NE(error_making(3840, 2160, 8, {{"window_size", "66"}}).find("too large for the reciprocal table"),
              std::string::npos);
    // ... the source's window counts too, even without full_ref.
    EXPECT_NE(error_making(3840, 2160, 8, {{"window_size", "127"}, {"enc_width", "1920"}, {"enc_height", "1080"}})
                  .find("too large"),
              std::string::npos);
}

// The band of levels (cambi_internal.hpp Band): with T = tvi_for_diff[num_diffs - 1] (+ num_diffs) and
// V the 10-bit level of cambi_vis_lum_threshold, upstream's band [max(0, V - 3 num_diffs + 1),
// T] is empty when V = T + 3 num_diffs and wraps its uint16_t size above; every contrast value
// is then 0, and whether upstream reads (empty) or writes (wrapped) outside its histograms
// depends on the picture. At the default tvi_threshold and bt1886, T = 563: V = 574 up to
// 83.835217544898953 cd/m^2 (band of one level), 575 up to 84.221105437494984 (empty), 576
// above (wrapped). Upstream's values (0 wherever it scores) from the same luma as raw files:
//   vmaf -r ref.yuv -d dist.yuv -w W -h H -p P -b 8 --no_prediction --feature cambi=OPTIONS ...
// and where vmafx refuses, an upstream build counting its accesses outside the histograms
// (and valgrind: "Invalid read of size 4" in calculate_c_values_row_avx2 for the empty band,
// "Invalid write" in cambi_increment_range_avx2 for the wrapped one; a segmentation fault for
// the wrapped band on the dark pattern).
TEST(CambiBand, ScoredWhereUpstreamStaysInsideItsHistograms) {
    // One level: scored as any band.
    EXPECT_EQ(score(run_pattern(216, 216, 8, {{"cambi_vis_lum_threshold", "83.8352"}}), "cambi_vlt_83.8352"), 0.0);
    // Empty: upstream reads histogram row -1 only in its 8-column vectors (col + 8 < width);
    // 8 columns have none.
    EXPECT_EQ(score(run_pattern(8, 216, 8, {{"cambi_vis_lum_threshold", "84.2211"}}), "cambi_vlt_84.2211"), 0.0);
    EXPECT_EQ(score(run_pattern(8, 216, 8, {{"cambi_vis_lum_threshold", "84.2212"}}), "cambi_vlt_84.2212"), 0.0);
    // Wrapped (tvi_threshold 0.7: T = 72; 27 cd/m^2: V = 378): no masked level <= 72 in the
    // pattern (levels 240 to 400 at 10 bits).
    EXPECT_EQ(score(run_pattern(216, 216, 8, {{"tvi_threshold", "0.7"}, {"cambi_vis_lum_threshold", "27"}}),
                    "cambi_vlt_27_tvit_0.7"),
              0.0);
    // pq, tvi_threshold 0.7: T = 80; 0.0209 cd/m^2 gives V = 91 (one level), 0.021 V = 92 (empty).
    EXPECT_EQ(score(run_pattern(216, 216, 8,
                                {{"eotf", "pq"}, {"tvi_threshold", "0.7"}, {"cambi_vis_lum_threshold", "0.0209"}}),
                    "cambi_vlt_0.0209_eotf_pq_tvit_0.7"),
              0.0);
    EXPECT_EQ(score(run_pattern(216, 216, 8, {{"tvi_threshold", "0.7"}, {"cambi_vis_lum_threshold", "0.0963"}}, true),
                    "cambi_vlt_0.0963_tvit_0.7"),
              0.0);
}

TEST(CambiBand, RefusedWhereUpstreamReachesOutsideItsHistograms) {
    // Empty band, a masked pixel in an 8-column vector: upstream reads before its buffer.
    const std::string empty = error_scoring(216, 216, 8, {{"cambi_vis_lum_threshold", "84.2211"}});
    EXPECT_EQ(empty.rfind("cambi: tvi_threshold=0.019 with cambi_vis_lum_threshold=84.2211, max_log_contrast=2 and "
                          "EOTF bt1886 put the band of levels at [564, 563] (empty; upstream's uint16_t size 0): frame "
                          "0 (distorted picture), scale 0 (216x216): the masked pixel at row 0, column 0 makes upstream "
                          "read the count of histogram row -1",
                          0),
              0u)
        << empty;
    EXPECT_NE(error_scoring(216, 216, 8, {{"eotf", "pq"}, {"tvi_threshold", "0.7"}, {"cambi_vis_lum_threshold", "0.021"}})
                  .find("(empty; upstream's uint16_t size 0)"),
              std::string::npos);
    // Wrapped band, a masked pixel at a level <= T entering or leaving the window: upstream
    // writes before its buffer (the dark patches: level 64, 65 after the 8-bit encode's
    // anti-dithering, <= 72).
    const std::string wrapped =
        error_scoring(216, 216, 8, {{"tvi_threshold", "0.7"}, {"cambi_vis_lum_threshold", "27"}}, true);
    EXPECT_EQ(wrapped.rfind("cambi: tvi_threshold=0.7 with cambi_vis_lum_threshold=27, max_log_contrast=2 and EOTF "
                            "bt1886 put the band of levels at [367, 72] (base above top; upstream's uint16_t size "
                            "65242): frame 0 (distorted picture), scale 0 (216x216): the masked pixel of level 65 (at most "
                            "the band's top 72) at row 0, column 12 makes upstream write to histogram row -302",
                            0),
              0u)
        << wrapped;
    EXPECT_NE(wrapped.find("before its buffer"), std::string::npos);
    // At the default tvi_threshold every level of the pattern is <= 563.
    EXPECT_NE(error_scoring(216, 216, 8, {{"cambi_vis_lum_threshold", "84.2212"}}).find("(base above top"),
              std::string::npos);
    // The reference too, with full_ref.
    const VideoFormat format{216, 216, 8, Subsampling::k420};
    test::Clip clip{format, {dark_pattern_picture(format, 1)}, {pattern_picture(format, 2)}};
    const OptionValues wrap = {{"tvi_threshold", "0.7"}, {"cambi_vis_lum_threshold", "27"}};
    EXPECT_EQ(test::run_cpu(descriptor, cambi_options(wrap), clip).get("cambi_vlt_27_tvit_0.7", 0).value_or(-1), 0.0);
    OptionValues full = wrap;
    full.push_back({"full_ref", "true"});
    EXPECT_NE(test::error_of([&] { (void)test::run_cpu(descriptor, cambi_options(full), clip); })
                  .find("frame 0 (reference picture)"),
              std::string::npos);
}

TEST(CambiRefusals, WhereUpstreamReadsOutsideItsBuffers) {
    // bt1886 reaches 300 cd/m^2, the option's maximum, at level 940: every threshold has a level
    // (the band wraps there: CambiBand).
    EXPECT_EQ(error_making(216, 216, 8, {{"cambi_vis_lum_threshold", "300"}}), "");
    // pq reaches 10000 cd/m^2: 300 is fine there.
    EXPECT_EQ(error_making(216, 216, 8, {{"cambi_vis_lum_threshold", "300"}, {"eotf", "pq"}}), "");
    // full_ref with a source wider than a 10-bit picture (upstream copies rows with the
    // picture's stride into the wider buffer); not at 8 bits, nor within the same 32 columns.
    EXPECT_NE(error_making(1280, 720, 10, {{"full_ref", "true"}, {"src_width", "1920"}, {"src_height", "1080"}})
                  .find("not supported"),
              std::string::npos);
    EXPECT_EQ(error_making(1280, 720, 8, {{"full_ref", "true"}, {"src_width", "1920"}, {"src_height", "1080"}}), "");
    EXPECT_EQ(error_making(1270, 720, 10, {{"full_ref", "true"}, {"src_width", "1280"}, {"src_height", "720"}}), "");
}

// Heatmaps: upstream's five files (16-bit c values of each scale, rows of frame i at i * rows),
// byte for byte: FNV-1a 64 of the files the oracle wrote for the pattern at 216 x 216 with
// --feature cambi=heatmaps_path=DIR.
class CambiHeatmaps : public test::TempDirTest {};

std::uint64_t fnv1a(const std::filesystem::path& file, std::uintmax_t& size) {
    std::ifstream in(file, std::ios::binary);
    std::uint64_t h = 0xcbf29ce484222325ull;
    size = 0;
    for (char c; in.get(c); ++size) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    return h;
}

TEST_F(CambiHeatmaps, EqualUpstreamsFiles) {
    const std::filesystem::path dir = path("maps") / "deeper";  // made as mkdirp does
    (void)run_pattern(216, 216, 8, {{"heatmaps_path", dir.string()}});
    const struct {
        const char* name;
        std::uintmax_t size;
        std::uint64_t hash;
    } want[] = {{"cambi_heatmap_scale_0_216x216_16b.gray", 93312, 0xe5d18abd04569d88ull},
                {"cambi_heatmap_scale_1_108x108_16b.gray", 23328, 0x8c586f341707bcf8ull},
                {"cambi_heatmap_scale_2_54x54_16b.gray", 5832, 0x7a2c08550a9584e8ull},
                {"cambi_heatmap_scale_3_27x27_16b.gray", 1458, 0x9030bad0c6fb2076ull},
                {"cambi_heatmap_scale_4_14x14_16b.gray", 392, 0xc2b963876c861f10ull}};
    for (const auto& w : want) {
        std::uintmax_t size = 0;
        EXPECT_EQ(fnv1a(dir / w.name, size), w.hash) << w.name;
        EXPECT_EQ(size, w.size) << w.name;
    }
}

TEST_F(CambiHeatmaps, RefusedWhereTheyCannotBeWritten) {
    const std::string file = write("plain", "x");
    EXPECT_NE(error_making(216, 216, 8, {{"heatmaps_path", file + "/maps"}}).find("is not a directory"),
              std::string::npos);
    EXPECT_EQ(error_making(216, 216, 8, {{"heatmaps_path", ""}}), "");  // empty: none written
}

TEST(CambiRefusals, SamplesAboveTheBitDepth) {
    const VideoFormat format{216, 216, 10, Subsampling::k420};
    test::Clip clip{format, {pattern_picture(format, 1)}, {pattern_picture(format, 2)}};
    test::set_sample(clip.dist[0].luma(), 5, 7, 1024);
    const std::string message = test::error_of([&] { (void)test::run_cpu(descriptor, cambi_options(), clip); });
    EXPECT_NE(message.find("cambi: the distorted picture has a sample of 1024 above the largest 10-bit value 1023"),
              std::string::npos)
        << message;
    // The reference is read only with full_ref.
    test::set_sample(clip.dist[0].luma(), 5, 7, 1023);
    test::set_sample(clip.ref[0].luma(), 5, 7, 1024);
    EXPECT_NO_THROW((void)test::run_cpu(descriptor, cambi_options(), clip));
    EXPECT_NE(test::error_of([&] { (void)test::run_cpu(descriptor, cambi_options({{"full_ref", "true"}}), clip); })
                  .find("the reference picture"),
              std::string::npos);
}

}  // namespace
}  // namespace vmafx
