// The CUDA twin of CAMBI (src/feature/cambi/cambi_cuda.cu) beyond the registry-driven twin
// suites (test_twins.cpp): banded 10-bit gradients (the inputs where CAMBI's values are large),
// the largest window at 1080p and 4K, full_ref with source sizes above and below the picture's,
// the high-resolution speed-up, every max_log_contrast, samples above the bit depth, and the
// heatmap files, which a GPU run must write byte for byte as the CPU run does (and as upstream's,
// on the pattern whose hashes cambi_test.cpp holds). Skips, saying why, where no CUDA device is
// usable.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/cambi/cambi.hpp"
#include "feature/cambi/cambi_topk.hpp"
#include "cambi_scales.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using cambi::descriptor;

/// Banded gradients (cambi_scales.hpp banded) with a sample a level up where (5x + 11y + seed) %
/// 97 == 0 (dither).
Picture banded_picture(const VideoFormat& format, int band, int seed) { return cambi::scales::banded(format, band, seed, 97); }

test::Clip banded_clip(const VideoFormat& format, int band, unsigned frames) {
    test::Clip clip{format, {}, {}};
    for (unsigned i = 0; i < frames; ++i) {
        clip.ref.push_back(banded_picture(format, band, static_cast<int>(i)));
        clip.dist.push_back(banded_picture(format, band + 1, static_cast<int>(i) + 7));
    }
    return clip;
}

TEST(CambiCuda, BandedGradientsEveryBitDepthAndContrast) {
    VMAFX_REQUIRE_GPU();
    for (const int bits : {8, 10, 12, 16})
        for (const char* mlc : {"0", "2", "5"})
            EXPECT_TRUE(test::expect_twin_matches_cpu(descriptor, {{"max_log_contrast", mlc}},
                                                      banded_clip({481, 271, bits, Subsampling::k420}, 6, 2), 2))
                << bits << " bits, max_log_contrast " << mlc;
}

TEST(CambiCuda, LargestWindowAt1080pAnd4K) {
    VMAFX_REQUIRE_GPU();
    const OptionValues sets[] = {{}, {{"window_size", "127"}}, {{"cambi_high_res_speedup", "1080"}}};
    for (const OptionValues& values : sets)
        EXPECT_TRUE(test::expect_twin_matches_cpu(descriptor, values,
                                                  banded_clip({1920, 1080, 10, Subsampling::k420}, 9, 1), 1));
    EXPECT_TRUE(test::expect_twin_matches_cpu(descriptor, {}, banded_clip({3840, 2160, 10, Subsampling::k420}, 17, 1),
                                              1));
}

// (8 bits: vmafx refuses full_ref with a source wider than a 10-bit picture, as upstream
// mixes its rows there.)
TEST(CambiCuda, FullReferenceAndEncodeSizes) {
    VMAFX_REQUIRE_GPU();
    const OptionValues sets[] = {
        {{"full_ref", "true"}},
        {{"full_ref", "true"}, {"src_width", "1280"}, {"src_height", "720"}},
        {{"full_ref", "true"}, {"src_width", "320"}, {"src_height", "200"}, {"enc_width", "480"}, {"enc_height", "270"}},
        {{"enc_width", "300"}, {"enc_height", "150"}, {"enc_bitdepth", "10"}},
        {{"eotf", "pq"}, {"tvi_threshold", "0.1"}, {"topk", "0.2"}},
    };
    for (const OptionValues& values : sets)
        EXPECT_TRUE(test::expect_twin_matches_cpu(descriptor, values,
                                                  banded_clip({641, 361, 8, Subsampling::k420}, 5, 3), 2))
            << test::option_label(values);
}

TEST(CambiCuda, SamplesAboveTheBitDepthAreRefusedAsTheCpuRefusesThem) {
    VMAFX_REQUIRE_GPU();
    const VideoFormat format{216, 216, 10, Subsampling::k420};
    test::Clip clip = banded_clip(format, 3, 2);
    test::set_sample(clip.dist[1].luma(), 5, 7, 1024);
    EXPECT_FALSE(test::expect_twin_matches_cpu(descriptor, {}, clip, 2));
    test::set_sample(clip.dist[1].luma(), 5, 7, 1000);
    test::set_sample(clip.ref[0].luma(), 9, 3, 1023 + 9);
    EXPECT_TRUE(test::expect_twin_matches_cpu(descriptor, {}, clip, 2));  // the reference is not read
    EXPECT_FALSE(test::expect_twin_matches_cpu(descriptor, {{"full_ref", "true"}}, clip, 2));
}

// Each declared plant changes values on banded gradients (the gate's random inputs are too noisy
// for any 7x7 area to pass the spatial mask: cambi is 0 there whatever the kernels do), and the
// control does not. 12 bits, with 2 added to the samples where (x + y) % 3 == 0 (so that the
// conversion's rounding constant matters: the plant drops it).
TEST(CambiCuda, EachPlantChangesValuesOnBandedGradients) {
    VMAFX_REQUIRE_GPU();
    const Options options = descriptor.parse_options({});
    for (const int bits : {12}) {
        test::Clip clip = banded_clip({481, 271, bits, Subsampling::k420}, 6, 2);
        for (Picture& pic : clip.dist)
            for (int y = 0; y < 271; ++y)
                for (int x = (3 - y % 3) % 3; x < 481; x += 3)
                    test::set_sample(pic.luma(), x, y, pic.luma().row<std::uint16_t>(y)[x] + 2u);
        const ScoreTable want = test::run_cpu(descriptor, options, clip);
        EXPECT_EQ(test::count_differences(want, test::run_gpu(descriptor, options, clip, 2), "control"), 0);
        for (const PlantedDefect d : {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant})
            EXPECT_GT(test::count_differences(want, test::run_gpu(descriptor, options, clip, 2, d), "plant", 0.0, false),
                      0)
                << planted_defect_name(d) << " at " << bits << " bits";
    }
}

// The device's pooling sums (cambi_pool_cuda.cuh: three radix passes, the integer sum) are the
// host model's (cambi_topk.hpp exact_topk_sum, which cambi_topk_test.cpp checks against the
// CPU's spatial_pooling): the same proven sums, bit for bit, and the same refusals, on arrays of
// every kind and size, with ties across the radix digits and many blocks.
TEST(CambiCuda, DevicePoolingSumsAreTheHostModels) {
    VMAFX_REQUIRE_GPU();
#ifdef VMAFX_HAVE_CUDA
    std::mt19937 rng(31);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    std::vector<std::vector<float>> arrays;
    std::vector<int> ks;
    const auto add = [&](std::vector<float> v) {
        const int n = static_cast<int>(v.size());
        for (const int k : {1, 2, n / 3, static_cast<int>(0.6 * n), n - 1, n})
            if (k >= 1 && k <= n) {
                arrays.push_back(v);
                ks.push_back(k);
            }
    };
    for (const int n : {1, 7, 1000, 70001, 2073600}) {
        std::vector<float> v(static_cast<std::size_t>(n));
        for (float& x : v) x = static_cast<float>(rng() % 4226) * (1.0f / 3.0f);
        add(v);
        for (float& x : v) x = rng() % 10 == 0 ? 1.0f + uniform(rng) : 0.0f;
        add(v);
        for (float& x : v) x = uniform(rng);  // mostly refused: values too small for the largest
        add(v);
        // Values that share their top 22 bits and differ in the last digit, and in the middle one.
        for (float& x : v) {
            std::uint32_t b = 0x43800000u | (rng() % 3u) << 10 | (rng() % 5u);
            std::memcpy(&x, &b, sizeof x);
        }
        add(v);
    }
    {
        std::vector<float> v(30001);
        for (float& x : v) x = std::numeric_limits<float>::denorm_min() * static_cast<float>(rng() % 1000);
        add(v);  // a denormal threshold and smallest value
        for (float& x : v) x = std::ldexp(1.0f + uniform(rng), static_cast<int>(rng() % 40) - 20);
        add(v);
        for (float& x : v) x = static_cast<float>(rng() % 7);
        add(v);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i / 3) * 0.25f;
        add(v);
    }
    add(std::vector<float>(5000, 0.0f));
    add({1.0f, -1.0f, 2.0f});
    add({1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f});
    add({std::ldexp(1.0f, 29), std::ldexp(1.0f, 29), 1.0f});
    const std::vector<cambi::TopkSum> sums = cambi::device_topk_sums(arrays, ks);
    ASSERT_EQ(sums.size(), arrays.size());
    int proven = 0, refused = 0;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        const std::optional<double> want =
            cambi::exact_topk_sum(arrays[i].data(), static_cast<int>(arrays[i].size()), ks[i]);
        const std::optional<double> got =
            sums[i].exact ? std::optional<double>(cambi::topk_value(sums[i])) : std::nullopt;
        EXPECT_EQ(got.has_value(), want.has_value()) << "array " << i << ", n " << arrays[i].size() << ", k " << ks[i];
        if (got && want) {
            EXPECT_EQ(*got, *want) << "array " << i << ", n " << arrays[i].size() << ", k " << ks[i];
        }
        (want ? proven : refused) += 1;
    }
    EXPECT_GT(proven, 50);
    EXPECT_GT(refused, 5);
#endif
}

// Where a sum is not proven the twin pools that scale on the host with the CPU's function:
// forced here for every scale, on the banded pictures and options above.
TEST(CambiCuda, HostPoolingGivesTheCpusValues) {
    VMAFX_REQUIRE_GPU();
#ifdef VMAFX_HAVE_CUDA
    struct Forced {  // on for this test's twins only, whatever happens in it
        Forced() { cambi::host_pooling_for_tests(true); }
        ~Forced() { cambi::host_pooling_for_tests(false); }
    };
    const unsigned before = cambi::host_pooled_scales_for_tests();
    {
        const Forced forced;
        const OptionValues sets[] = {{}, {{"full_ref", "true"}}, {{"topk", "1"}}};
        for (const OptionValues& values : sets)
            EXPECT_TRUE(test::expect_twin_matches_cpu(descriptor, values,
                                                      banded_clip({481, 271, 10, Subsampling::k420}, 6, 2), 2))
                << test::option_label(values);
    }
    // 2 frames x 5 scales, the full_ref run's reference too: 10 + 20 + 10 scales at least.
    EXPECT_GE(cambi::host_pooled_scales_for_tests() - before, 40u);
#endif
}

class CambiCudaHeatmaps : public test::TempDirTest {};

std::string bytes_of(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(CambiCudaHeatmaps, AGpuRunWritesTheCpuRunsFiles) {
    VMAFX_REQUIRE_GPU();
    const test::Clip clip = banded_clip({433, 241, 10, Subsampling::k420}, 4, 3);
    const std::filesystem::path cpu_dir = path("cpu"), gpu_dir = path("gpu");
    const ScoreTable want =
        test::run_cpu(descriptor, descriptor.parse_options({{"heatmaps_path", cpu_dir.string()}}), clip);
    const ScoreTable got =
        test::run_gpu(descriptor, descriptor.parse_options({{"heatmaps_path", gpu_dir.string()}}), clip, 2);
    EXPECT_EQ(test::count_differences(want, got, "cambi heatmaps run"), 0);
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(cpu_dir)) {
        ++files;
        const std::string name = entry.path().filename().string();
        const std::string cpu = bytes_of(entry.path()), gpu = bytes_of(gpu_dir / name);
        EXPECT_FALSE(cpu.empty()) << name;
        EXPECT_TRUE(cpu == gpu) << name << ": " << cpu.size() << " bytes on the CPU, " << gpu.size() << " on the GPU";
    }
    EXPECT_EQ(files, 5);
}

}  // namespace
}  // namespace vmafx
