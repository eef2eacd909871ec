// Tests of the CUDA twin of the integer ADM (src/feature/adm/adm_cuda.cu): every output of every
// frame bit for bit equal to the CPU extractor's (adm.cpp / adm_pipeline.cpp) on random content
// of odd sizes down to the smallest the CPU accepts, at 8 to 16 bits, with every option and CSF
// mode, through GpuScorer; on fixtures when unpacked; and each planted regression makes some
// value differ. The parity tests skip, saying why, when no CUDA device is usable; the registry
// and shared-arithmetic tests need no device.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/adm/adm.hpp"
#include "feature/adm/adm_math.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"
namespace vmafx {
namespace {

using test::OptionValues;

Options adm_options(const OptionValues& values = {}) {
    return Options("adm", adm_extractor_info().options, values);
}

TEST(AdmCudaInfo, RegistryEntryDeclaresExactTwin) {
    const VideoFormat accepted{64, 64, 8, Subsampling::k420};
    test::expect_exact_twin_entry(adm_extractor_info(), adm_options(),
                                  {{32, 64, 8, Subsampling::k420}, {64, 32, 8, Subsampling::k420},
                                   {64, 64, 7, Subsampling::k420}, {64, 64, 17, Subsampling::k420}},
                                  accepted);
    // Viewing conditions the CPU refuses (1 x 1080 < 3240), the twin refuses too.
    const Options near = adm_options({{"adm_norm_view_dist", "1"}});
    EXPECT_THROW(adm_extractor_info().create(near, accepted), Error);
#ifdef VMAFX_HAVE_CUDA
    EXPECT_THROW(adm_extractor_info().create_gpu(near, accepted, 4), Error);
#endif
}

// The shared arithmetic's constants are the values the CPU reference used to compute.
TEST(AdmCudaMath, ConstantsAreUpstreams) {
    const double c = std::cos(1.0 * 3.14159265358979323846 / 180.0);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(adm::kCos1DegSq), std::bit_cast<std::uint32_t>(static_cast<float>(c * c)));
    // The reciprocal table entries 2^30 / i, as upstream's integer division makes them.
    for (std::int32_t i = 1; i <= 32768; ++i) ASSERT_EQ(adm::recip30(i), 1073741824 / i) << i;
    // The level-0 k in 32-bit pieces equals upstream's (div_lookup[o] * t + 16384) >> 15, clipped.
    std::mt19937 rng(3);
    for (int n = 0; n < 200000; ++n) {
        const std::int32_t o = static_cast<std::int16_t>(rng());
        const std::int32_t t = static_cast<std::int16_t>(rng());
        std::int64_t want = 32768;
        if (o != 0) {
            const std::int64_t entry = o < 0 ? -(1073741824 / -std::int64_t{o}) : 1073741824 / std::int64_t{o};
            want = std::clamp<std::int64_t>((entry * t + 16384) >> 15, 0, 32768);
        }
        ASSERT_EQ(adm::decouple0_k(o, t), want) << o << " " << t;
    }
}

#ifdef VMAFX_HAVE_CUDA

using namespace test;  // Clip, run_cpu, run_gpu, count_differences, set_sample

template <typename Fn>
void fill(Picture& pic, Fn&& sample) {
    for (int y = 0; y < pic.format.height; ++y)
        for (int x = 0; x < pic.format.width; ++x) set_sample(pic, x, y, sample(x, y));
}

/// A clip of `count` frames of `format` from `seed`. Frame i is, by i % 6: random reference with
/// the distorted a noisy copy; a smooth gradient with noise, distorted with its contrast raised
/// (enhancement: the gain limit matters) or lowered; independent random reference and distorted;
/// identical pictures; random samples over the whole sample word (above the bit depth at 10..12
/// bits: the widest DWT values, wraps); samples that are 0 or the largest in-range value.
Clip make_clip(const VideoFormat& format, unsigned count, unsigned seed) {
    Clip clip{format, {}, {}};
    std::mt19937 rng(seed * 7919u + static_cast<unsigned>(format.width * 31 + format.height * 17 + format.bit_depth));
    const std::int64_t max = (std::int64_t{1} << format.bit_depth) - 1;
    const std::uint32_t word_max = format.bit_depth > 8 ? 65535u : 255u;
    const auto uniform = [&](std::int64_t lo, std::int64_t hi) {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    const auto clamp = [&](std::int64_t v) { return static_cast<std::uint32_t>(std::clamp<std::int64_t>(v, 0, max)); };
    const std::int64_t noise = 4 << (format.bit_depth - 8);
    for (unsigned i = 0; i < count; ++i) {
        Picture ref(format), dist(format);
        switch (i % 6) {
            case 0:
                fill(ref, [&](int, int) { return clamp(uniform(0, max)); });
                fill(dist, [&](int x, int y) { return clamp(ref.luma().at(x, y) + uniform(-noise, noise)); });
                break;
            case 1: {
                fill(ref, [&](int x, int y) {
                    const std::int64_t base = (static_cast<std::int64_t>(x * 3 + y * 5) * max) /
                                              (3 * format.width + 5 * format.height);
                    return clamp(base + uniform(-noise, noise) + ((x / 7 + y / 5) % 2 ? noise * 8 : 0));
                });
                const std::int64_t mean = max / 2;
                const int gain = (seed % 2) ? 5 : 3;  // x 5/4 (enhanced) or x 3/4
                fill(dist, [&](int x, int y) {
                    return clamp(mean + (static_cast<std::int64_t>(ref.luma().at(x, y)) - mean) * gain / 4 +
                                 uniform(-1, 1));
                });
                break;
            }
            case 2:
                fill(ref, [&](int, int) { return clamp(uniform(0, max)); });
                fill(dist, [&](int, int) { return clamp(uniform(0, max)); });
                break;
            case 3:
                fill(ref, [&](int x, int y) { return clamp((x * 37 + y * 11) % (max + 1) + uniform(0, 2)); });
                dist = ref;
                break;
            case 4:
                fill(ref, [&](int, int) { return static_cast<std::uint32_t>(uniform(0, word_max)); });
                fill(dist, [&](int, int) { return static_cast<std::uint32_t>(uniform(0, word_max)); });
                break;
            default:
                fill(ref, [&](int, int) { return uniform(0, 1) ? static_cast<std::uint32_t>(max) : 0u; });
                fill(dist, [&](int x, int y) {
                    return uniform(0, 3) ? ref.luma().at(x, y) : static_cast<std::uint32_t>(max) - ref.luma().at(x, y);
                });
                break;
        }
        clip.ref.push_back(std::move(ref));
        clip.dist.push_back(std::move(dist));
    }
    return clip;
}

/// Runs CPU and twin on a generated clip and expects identical tables.
void expect_parity(const OptionValues& values, const VideoFormat& format, unsigned count, unsigned seed,
                   unsigned slots = 3) {
    const Options options = adm_options(values);
    const std::string what = fmt::format("{}x{} {}-bit, {} frames, seed {}, slots {}, options '{}'", format.width,
                                         format.height, format.bit_depth, count, seed, slots, options.key());
    SCOPED_TRACE(what);
    const Clip clip = make_clip(format, count, seed);
    const ScoreTable cpu = run_cpu(adm_extractor_info(), options, clip);
    const ScoreTable gpu = run_gpu(adm_extractor_info(), options, clip, slots);
    EXPECT_EQ(cpu.frames(options.feature_name("VMAF_integer_feature_adm2_score")), count) << what;
    EXPECT_EQ(count_differences(cpu, gpu, what), 0) << what;
}

const OptionValues kDefault = {};
const OptionValues kNeg = {{"adm_enhn_gain_limit", "1"}};

// Odd sizes, the smallest the CPU accepts, widths where upstream's vector DWT reads past its
// rows at every level (129, 130: ceil(w/2) - 1 a multiple of 64, then of 8 at each level), and
// 1080p-ish; every bit depth; the default and the NEG model's options.
TEST(AdmCudaParity, RandomFramesOddSizesEveryDepth) {
    VMAFX_REQUIRE_GPU();
    const int sizes[][2] = {{33, 33}, {33, 35}, {35, 33}, {77, 41}, {129, 67}, {130, 34}, {853, 481}, {1921, 1079}};
    for (const auto& s : sizes)
        for (int depth : {8, 10, 12, 16})
            for (const OptionValues* values : {&kDefault, &kNeg})
                expect_parity(*values, {s[0], s[1], depth, Subsampling::k420}, s[0] > 1000 ? 6 : 12,
                              static_cast<unsigned>(s[0] + depth), 3);
}

TEST(AdmCudaParity, MoreSeedsSmallSizes) {
    VMAFX_REQUIRE_GPU();
    for (unsigned seed = 1; seed <= 4; ++seed)
        for (int depth : {8, 9, 10, 11, 12, 14, 15, 16})
            for (const auto& s : {std::pair{33, 33}, std::pair{65, 47}, std::pair{257, 131}, std::pair{386, 97}})
                expect_parity(seed % 2 ? kDefault : kNeg, {s.first, s.second, depth, Subsampling::k420}, 6, seed,
                              seed % 3 + 1);
}

// Every option, each CSF mode (with viewing conditions that have blend tables and ones that
// do not), fractional gain limits (rounded differently in upstream's vector and scalar
// columns), debug outputs, skipped AIM and scale 0.
TEST(AdmCudaParity, EveryOption) {
    VMAFX_REQUIRE_GPU();
    const OptionValues option_sets[] = {
        {{"debug", "true"}},
        {{"adm_enhn_gain_limit", "1.5"}},
        {{"adm_enhn_gain_limit", "2.7"}, {"debug", "true"}},
        {{"adm_enhn_gain_limit", "37.25"}},
        {{"adm_csf_mode", "1"}},
        {{"adm_csf_mode", "1"}, {"adm_csf_scale", "1.7"}, {"adm_csf_diag_scale", "0.6"}},
        {{"adm_csf_mode", "2"}},
        {{"adm_csf_mode", "3"}},
        {{"adm_csf_mode", "3"}, {"adm_ref_display_height", "2160"}, {"adm_norm_view_dist", "1.5"}},
        {{"adm_csf_mode", "2"}, {"adm_ref_display_height", "720"}, {"adm_norm_view_dist", "5"}},
        {{"adm_csf_mode", "2"}, {"adm_ref_display_height", "1000"}, {"adm_norm_view_dist", "4"}},  // no table
        {{"adm_csf_mode", "2"}, {"adm_dlm_weight", "0.7"}, {"adm_enhn_gain_limit", "1"}, {"adm_min_val", "0.5"},
         {"adm_noise_weight", "0.02"}},
        {{"adm_norm_view_dist", "5"}, {"adm_ref_display_height", "2160"}},
        {{"adm_noise_weight", "0"}},
        {{"adm_noise_weight", "1000"}, {"adm_dlm_weight", "0.2"}},
        {{"adm_skip_aim", "true"}, {"debug", "true"}},
        {{"adm_skip_scale0", "true"}, {"debug", "true"}},
        {{"adm_skip_scale0", "true"}, {"adm_skip_aim", "true"}},
        {{"adm_min_val", "0.9"}, {"adm_dlm_weight", "1"}},
        {{"adm_dlm_weight", "0"}},
    };
    for (const auto& values : option_sets)
        for (int depth : {8, 10, 16})
            for (const auto& s : {std::pair{33, 35}, std::pair{130, 67}, std::pair{853, 481}})
                expect_parity(values, {s.first, s.second, depth, Subsampling::k420}, 6, 17, 2);
}

TEST(AdmCudaParity, RepeatedRunsAllIdentical) {
    VMAFX_REQUIRE_GPU();
    const VideoFormat format{1921, 1079, 10, Subsampling::k420};
    const Options options = adm_options({{"debug", "true"}});
    const Clip clip = make_clip(format, 8, 21);
    const ScoreTable cpu = run_cpu(adm_extractor_info(), options, clip);
    for (int run = 0; run < 3; ++run)
        for (unsigned slots : {1u, 4u})
            EXPECT_EQ(count_differences(cpu, run_gpu(adm_extractor_info(), options, clip, slots), fmt::format("run {} slots {}", run, slots)),
                      0);
}

// Real video: the first frames of two fixtures (8-bit odd size, 10-bit 1080p) when unpacked,
// with the default and the NEG options.
TEST(AdmCudaParity, Fixtures) {
    VMAFX_REQUIRE_GPU();
    if (test::fixtures_dir().empty()) GTEST_SKIP() << "skipped: fixtures not unpacked";
    for (const std::string fixture : {"odd_853x481_420p8", "volna_1920x1080_420p10"}) {
        const Clip clip = test::fixture_clip(fixture, 8);
        for (const OptionValues* values : {&kDefault, &kNeg}) {
            const Options options = adm_options(*values);
            const std::string what = fixture + " '" + options.key() + "'";
            EXPECT_EQ(count_differences(run_cpu(adm_extractor_info(), options, clip), run_gpu(adm_extractor_info(), options, clip, 4), what), 0) << what;
        }
    }
}

/// Restores kNone however the test ends.
struct PlantedDefectGuard {
    explicit PlantedDefectGuard(PlantedDefect d) { set_planted_defect(d); }
    ~PlantedDefectGuard() { set_planted_defect(PlantedDefect::kNone); }
};

// Each defect the twin plants changes some value the comparison sees (kContraction only
// where adm3's products are inexact: dlmw 0.7), and kNone is exact on the same input.
TEST(AdmCudaParity, PlantedDefectsAreCaught) {
    VMAFX_REQUIRE_GPU();
    struct Case {
        PlantedDefect defect;
        const char* name;
        OptionValues values;
    };
    const Case cases[] = {
        {PlantedDefect::kMirrorShift, "kMirrorShift", {}},
        {PlantedDefect::kRoundingConstant, "kRoundingConstant", {}},
        {PlantedDefect::kReductionOrder, "kReductionOrder", {}},
        {PlantedDefect::kContraction, "kContraction", {{"adm_dlm_weight", "0.7"}}},
    };
    for (const Case& c : cases) {
        int changed = 0;
        for (int depth : {8, 10}) {
            const VideoFormat format{77, 41, depth, Subsampling::k420};
            const Clip clip = make_clip(format, 12, 29);
            const Options options = adm_options(c.values);
            const ScoreTable cpu = run_cpu(adm_extractor_info(), options, clip);
            const std::string what = fmt::format("{} {}-bit", c.name, depth);
            EXPECT_EQ(count_differences(cpu, run_gpu(adm_extractor_info(), options, clip, 2), what + " (none planted)"), 0);
            PlantedDefectGuard guard(c.defect);
            changed += count_differences(cpu, run_gpu(adm_extractor_info(), options, clip, 2), what, false);
        }
        EXPECT_GT(changed, 0) << c.name << ": the planted defect changed no value";
    }
}

#else  // !VMAFX_HAVE_CUDA

TEST(AdmCudaParity, SkippedWithoutCudaBackend) { GTEST_SKIP() << "skipped: the CUDA backend is not built"; }

#endif

}  // namespace
}  // namespace vmafx
