// Tests of the floating-point ADM extractor beyond the registry-driven suites (test_metrics.cpp:
// golden values, tables, refusals at the descriptor's limits, threads): its size limit, option
// ranges and names (upstream's quirks: adm_skip_aim_scale's default outside its range, the
// debug output "adm" under its bare name), and oracle values of option paths the golden files
// do not reach.
#include <bit>
#include <cstdint>
#include <string>

#include <immintrin.h>

#include <gtest/gtest.h>

#include "feature/float_adm/float_adm.hpp"
#include "feature/float_adm/rcp_estimate.hpp"
#include "pictures.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using float_adm::descriptor;

Options adm_options(const OptionValues& values = {}) { return descriptor.parse_options(values); }

// 17 x 17: every DWT level's input has 2 samples and the last level's bands are 2 x 2, what
// the 3 x 3 masking neighbourhood needs; at 16 they are 1 x 1 and upstream reads outside its
// buffers (it runs, on garbage).
/// The estimate of the instruction (this CPU's table) and of the emulation, as bits.
std::uint32_t rcpss_bits(std::uint32_t x) {
    return std::bit_cast<std::uint32_t>(_mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(std::bit_cast<float>(x)))));
}
std::uint32_t emulated_bits(std::uint32_t x) {
    return std::bit_cast<std::uint32_t>(float_adm::rcp_estimate(std::bit_cast<float>(x)));
}

TEST(FloatAdmRcpEstimate, MeasuredValuesAndEnds) {
    // Values read off the golden machines' rcpss (tools/rcpss_table.cpp's CPU): 1 -> 0x3f7ff000,
    // 2^-126 (smallest normal) -> 0x7e7ff000, a value just below 2^126 -> smallest normal.
    EXPECT_EQ(emulated_bits(0x3f800000u), 0x3f7ff000u);
    EXPECT_EQ(emulated_bits(0xbf800000u), 0xbf7ff000u);
    EXPECT_EQ(emulated_bits(0xc0000000u), 0xbefff000u);
    EXPECT_EQ(emulated_bits(0x00800000u), 0x7e7ff000u);
    EXPECT_EQ(emulated_bits(0x7e7fffffu), 0x00800000u);
    EXPECT_EQ(emulated_bits(0x7e000000u), 0x00fff000u);
    EXPECT_EQ(emulated_bits(0x3fc00000u), 0x3f2aa800u);  // 1.5
    // Ends: zeros and subnormals give infinities, huge values and infinities zeros, NaN NaN.
    EXPECT_EQ(emulated_bits(0x00000000u), 0x7f800000u);
    EXPECT_EQ(emulated_bits(0x80000000u), 0xff800000u);
    EXPECT_EQ(emulated_bits(0x007fffffu), 0x7f800000u);
    EXPECT_EQ(emulated_bits(0x7e800000u), 0x00000000u);
    EXPECT_EQ(emulated_bits(0x7f800000u), 0x00000000u);
    EXPECT_EQ(emulated_bits(0xff800000u), 0x80000000u);
    EXPECT_EQ(emulated_bits(0x7fc00000u), 0x7fc00000u);
}

TEST(FloatAdmRcpEstimate, EveryFloatAsTheInstructionWhereItsTableIsTheGoldenMachines) {
    // On a CPU with another table (e.g. Intel's) there is nothing to compare: the emulation is
    // what keeps float_adm's values the golden ones there.
    for (std::uint32_t x : {0x3f800000u, 0x3fc00000u, 0x3fffffffu, 0x3f812345u})
        if (rcpss_bits(x) != emulated_bits(x)) GTEST_SKIP() << "skipped: this CPU's rcpss table is another one";
    std::uint64_t differ = 0;
    for (std::uint64_t x = 0; x <= 0xffffffffu; x += 31) {  // every 31st float: each exponent, each group of 2048
        const auto b = static_cast<std::uint32_t>(x);
        if (((b >> 23) & 0xffu) == 0xffu && (b & 0x7fffffu)) continue;  // NaNs: the payload rules differ by CPU
        differ += rcpss_bits(b) != emulated_bits(b);
    }
    EXPECT_EQ(differ, 0u);
}

TEST(FloatAdmLimits, SeventeenBySeventeen) {
    const auto make = [](int w, int h) {
        return descriptor.make_extractor(adm_options(), {w, h, 8, Subsampling::k420});
    };
    EXPECT_NO_THROW(make(17, 17));
    test::expect_error([&] { make(16, 17); }, {"float_adm", "17"});
    test::expect_error([&] { make(17, 16); }, {"float_adm", "17"});
}

TEST(FloatAdmOptions, RangesAndNames) {
    // adm_skip_aim_scale defaults to -1 (no scale skipped) but accepts only 0..3, as upstream.
    EXPECT_EQ(adm_options().get("adm_skip_aim_scale"), -1.0);
    EXPECT_THROW(adm_options({{"adm_skip_aim_scale", "-1"}}), UsageError);
    EXPECT_THROW(adm_options({{"adm_csf_mode", "10"}}), UsageError);
    EXPECT_THROW(adm_options({{"adm_f1s0", "-1.5"}}), UsageError);
    EXPECT_THROW(adm_options({{"adm_p_norm", "0.5"}}), UsageError);
    const Options o = adm_options({{"adm_ref_display_height", "720"}, {"adm_skip_aim_scale", "0"}});
    EXPECT_EQ(o.feature_name("VMAF_feature_adm2_score"), "adm2_rdf_720_sasc_0");
    EXPECT_EQ(o.feature_name("adm_num_scale0"), "adm_num_scale0_rdf_720_sasc_0");
}

// Oracle values (upstream 3.2.0, default flags) of frame 1 of fixture path_576x324_420p8:
//   vmaf -r ref.yuv -d dist.yuv -w 576 -h 324 -p 420 -b 8 -n --feature
//   float_adm=adm_csf_mode=2:adm_p_norm=2.5:adm_skip_aim_scale=1:debug=true --frame_cnt 2
//   --json -o out.json
// (the DLM paper's CSF, a p-norm through powf, AIM without scale 1; "adm" keeps its bare name).
TEST(FloatAdmValues, OracleNativeCsfPNormSkipAimScale) {
    VMAFX_REQUIRE_FIXTURE("path_576x324_420p8");
    const test::Clip clip = test::fixture_clip("path_576x324_420p8", 2);
    const ScoreTable t = test::run_cpu(descriptor,
                                       adm_options({{"adm_csf_mode", "2"},
                                                    {"adm_p_norm", "2.5"},
                                                    {"adm_skip_aim_scale", "1"},
                                                    {"debug", "true"}}),
                                       clip);
    const std::string s = "_csf_2_apn_2.5_sasc_1";
    EXPECT_EQ(t.get("adm2" + s, 1), 0.899831940735133);
    EXPECT_EQ(t.get("aim" + s, 1), 0.03103132405751521);
    EXPECT_EQ(t.get("adm3" + s, 1), 0.9344003083388088);
    EXPECT_EQ(t.get("adm_scale1" + s, 1), 0.7371385648651566);
    EXPECT_EQ(t.get("adm", 1), 0.899831940735133);
    EXPECT_EQ(t.get("adm_num_scale3" + s, 1), 2744.6025390625);
    EXPECT_EQ(t.get("adm_den" + s, 1), 4735.393325805664);
}

// A thread keeps its images between frames and runs (ImagePool): what an image held before,
// from another size or another clip, never reaches a score, also after the pool has let old
// images go for new ones.
TEST(FloatAdmValues, ReusedImagesChangeNoScore) {
    const Options options = adm_options();
    const test::Clip a = test::synthetic_clip({99, 67, 8, Subsampling::k420}, 3, 11);
    const test::Clip b = test::synthetic_clip({130, 41, 10, Subsampling::k420}, 3, 12);
    const ScoreTable first = test::run_cpu(descriptor, options, a);
    for (int round = 0; round < 12; ++round) test::run_cpu(descriptor, options, round % 2 ? a : b);
    const ScoreTable again = test::run_cpu(descriptor, options, a);
    ASSERT_FALSE(first.names().empty());
    for (const std::string& name : first.names())
        for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(first.get(name, i), again.get(name, i)) << name << " frame " << i;
}

}  // namespace
}  // namespace vmafx
