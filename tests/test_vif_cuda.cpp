// Tests of the CUDA twin of the integer VIF metric (src/feature/vif/vif_cuda.cu): every output of
// every frame bit for bit equal to the CPU extractor's (vif.cpp), through the GPU pipeline
// (GpuScorer), on random content of odd sizes down to the smallest the CPU accepts, at 8 to 16
// bits, with every option; on fixtures against the golden values; and samples above the bit
// depth refused as the CPU refuses them. The parity tests skip, saying why, when no CUDA device
// is usable; the registry test needs no device.
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

#include "feature/vif/vif.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"
namespace vmafx {
namespace {

using test::OptionValues;

Options vif_options(const OptionValues& values = {}) {
    return Options("vif", vif_extractor_info().options, values);
}

TEST(VifCudaInfo, RegistryEntryDeclaresExactTwin) {
    test::expect_exact_twin_entry(vif_extractor_info(), vif_options(),
                                  {{15, 16, 8, Subsampling::k420}, {16, 15, 8, Subsampling::k420},
                                   {16, 16, 7, Subsampling::k420}, {16, 16, 17, Subsampling::k420}},
                                  {16, 16, 8, Subsampling::k420});
}

// ---------------------------------------------------------------------------------------------
// Parity with the CPU extractor.

#ifdef VMAFX_HAVE_CUDA

using namespace test;  // Clip, run_cpu, run_gpu, count_differences, set_sample

/// A clip of `count` frames of `format` from `seed`, samples within the bit depth. Reference
/// frame i is, by i % 3: uniform random samples (large variances: the logarithmic terms); a
/// smooth wave with patches of strong noise and elsewhere +-1 (both kinds of terms, exact zero
/// variances); samples that are 0 or the largest value (the largest sums). The distorted frame
/// is the reference blurred a little with noise added, except every fourth frame, independent
/// random samples (negative covariances).
Clip make_clip(const VideoFormat& format, unsigned count, unsigned seed) {
    Clip clip{format, {}, {}};
    std::mt19937 rng(seed * 7919u + static_cast<unsigned>(format.width * 31 + format.height * 17 + format.bit_depth));
    const std::uint32_t max = (1u << format.bit_depth) - 1;
    const auto uniform = [&](std::uint32_t hi) { return std::uniform_int_distribution<std::uint32_t>(0, hi)(rng); };
    for (unsigned i = 0; i < count; ++i) {
        Picture ref(format);
        Plane& r = ref.luma();
        for (int y = 0; y < format.height; ++y)
            for (int x = 0; x < format.width; ++x) {
                std::uint32_t v = 0;
                switch (i % 3) {
                case 0: v = uniform(max); break;
                case 1: {
                    const double wave = (std::sin(x * 0.05) + std::cos(y * 0.07) + 2.0) / 4.0 * max;
                    const bool noisy = (x / 24 + y / 20) % 3 == 0;
                    const std::int64_t spread = noisy ? std::max<std::int64_t>(1, max / 8) : 1;
                    const std::int64_t noise =
                        std::uniform_int_distribution<std::int64_t>(-spread, spread)(rng);
                    v = static_cast<std::uint32_t>(
                        std::clamp<std::int64_t>(std::llround(wave) + noise, 0, static_cast<std::int64_t>(max)));
                    break;
                }
                default: v = uniform(1) ? max : 0; break;
                }
                set_sample(ref, x, y, v);
            }
        Picture dist(format);
        const bool independent = i % 4 == 3;
        const std::int64_t unit = std::max<std::int64_t>(1, max / 255);
        for (int y = 0; y < format.height; ++y)
            for (int x = 0; x < format.width; ++x) {
                if (independent) {
                    set_sample(dist, x, y, uniform(max));
                    continue;
                }
                const std::int64_t left = r.at(x > 0 ? x - 1 : x, y);
                const std::int64_t here = r.at(x, y);
                const std::int64_t noise = std::uniform_int_distribution<std::int64_t>(-4, 4)(rng) * unit;
                set_sample(dist, x, y,
                    static_cast<std::uint32_t>(
                        std::clamp<std::int64_t>((left + 3 * here) / 4 + noise, 0, static_cast<std::int64_t>(max))));
            }
        clip.ref.push_back(std::move(ref));
        clip.dist.push_back(std::move(dist));
    }
    return clip;
}

/// Every output of the twin equals the CPU's for the clip under each option set.
void expect_parity(const Clip& clip, const std::vector<OptionValues>& option_sets) {
    for (const OptionValues& values : option_sets) {
        std::string label;
        for (const auto& [k, v] : values) label += k + "=" + v + " ";
        SCOPED_TRACE(label.empty() ? "default options" : label);
        const Options options = vif_options(values);
        const ScoreTable cpu = run_cpu(vif_extractor_info(), options, clip);
        const ScoreTable gpu = run_gpu(vif_extractor_info(), options, clip, 3);
        EXPECT_EQ(count_differences(cpu, gpu, label.empty() ? "default options" : label), 0);
    }
}

const std::vector<OptionValues> kAllOptions = {
    {{"debug", "true"}},
    {{"debug", "true"}, {"vif_enhn_gain_limit", "1"}},
    {{"debug", "true"}, {"vif_skip_scale0", "true"}},
    {{"vif_enhn_gain_limit", "1.5"}},
};

TEST(VifCudaParity, SmallestAndOddSizesEveryBitDepth) {
    VMAFX_REQUIRE_GPU();
    const int sizes[][2] = {{16, 16}, {17, 16}, {16, 19}, {33, 35}, {77, 41}, {113, 33}, {225, 97}};
    for (const auto& size : sizes)
        for (int bit_depth = 8; bit_depth <= 16; ++bit_depth) {
            const VideoFormat format{size[0], size[1], bit_depth, Subsampling::k420};
            SCOPED_TRACE(fmt::format("{}x{} {}-bit", format.width, format.height, bit_depth));
            expect_parity(make_clip(format, 6, 1), kAllOptions);
        }
}

TEST(VifCudaParity, LargeOddSizes) {
    VMAFX_REQUIRE_GPU();
    const int sizes[][2] = {{853, 481}, {1921, 1079}};
    for (const auto& size : sizes)
        for (int bit_depth : {8, 10, 12, 16}) {
            const VideoFormat format{size[0], size[1], bit_depth, Subsampling::k420};
            SCOPED_TRACE(fmt::format("{}x{} {}-bit", format.width, format.height, bit_depth));
            expect_parity(make_clip(format, 4, 2), {{}, {{"vif_enhn_gain_limit", "1"}}});
        }
}

TEST(VifCudaParity, SeveralSeeds) {
    VMAFX_REQUIRE_GPU();
    for (unsigned seed = 3; seed < 7; ++seed)
        for (int bit_depth : {8, 10, 12, 16}) {
            const VideoFormat format{67 + static_cast<int>(seed) * 26, 45 + static_cast<int>(seed) * 14, bit_depth,
                                     Subsampling::k420};
            SCOPED_TRACE(fmt::format("seed {} {}x{} {}-bit", seed, format.width, format.height, bit_depth));
            expect_parity(make_clip(format, 6, seed), {{}, {{"vif_enhn_gain_limit", "1"}}});
        }
}

/// Samples above the bit depth: the CPU refuses the frame, so does the twin.
TEST(VifCudaParity, SamplesAboveTheBitDepthAreRefused) {
    VMAFX_REQUIRE_GPU();
    for (int bit_depth : {9, 10, 12, 15}) {
        SCOPED_TRACE(fmt::format("{}-bit", bit_depth));
        const VideoFormat format{40, 24, bit_depth, Subsampling::k420};
        for (bool in_ref : {true, false}) {
            Clip clip = make_clip(format, 1, 9);
            set_sample((in_ref ? clip.ref : clip.dist)[0], 39, 23, 1u << bit_depth);
            EXPECT_THROW(run_cpu(vif_extractor_info(), vif_options(), clip), Error);
            EXPECT_THROW(run_gpu(vif_extractor_info(), vif_options(), clip, 3), Error);
        }
    }
}

/// Fixture frames: the twin's scores are upstream's golden values (and so the CPU's).
TEST(VifCudaParity, FixturesMatchGolden) {
    VMAFX_REQUIRE_GPU();
    VMAFX_REQUIRE_FIXTURES();
    for (const std::string fixture : {"odd_853x481_420p8", "cups_960x540_444p12"}) {
        SCOPED_TRACE(fixture);
        const Clip clip = test::fixture_clip(fixture, 8);
        const auto frames = static_cast<unsigned>(clip.ref.size());
        const nlohmann::json golden = test::golden(fixture);
        for (const OptionValues& values : {OptionValues{}, OptionValues{{"vif_enhn_gain_limit", "1"}}}) {
            const Options options = vif_options(values);
            const ScoreTable gpu = run_gpu(vif_extractor_info(), options, clip, 3);
            unsigned compared = 0;
            for (int s = 0; s < 4; ++s) {
                const std::string feature = "VMAF_integer_feature_vif_scale" + std::to_string(s) + "_score";
                const std::string name = options.feature_name(feature);
                // Golden files name outputs by their alias: integer_vif_scale0[_egl_1].
                const std::string golden_name = feature_alias(feature) + (values.empty() ? "" : "_egl_1");
                for (unsigned i = 0; i < frames; ++i) {
                    const double want = golden.at("frames")[i].at("metrics").at(golden_name).get<double>();
                    const auto have = gpu.get(name, i);
                    ASSERT_TRUE(have.has_value()) << name << " frame " << i;
                    EXPECT_EQ(std::bit_cast<std::uint64_t>(*have), std::bit_cast<std::uint64_t>(want))
                        << golden_name << " frame " << i << ": GPU " << *have << ", golden " << want;
                    ++compared;
                }
            }
            EXPECT_EQ(compared, 4 * frames);
            EXPECT_EQ(count_differences(run_cpu(vif_extractor_info(), options, clip), gpu, fixture), 0);
        }
    }
}

#endif  // VMAFX_HAVE_CUDA

}  // namespace
}  // namespace vmafx
