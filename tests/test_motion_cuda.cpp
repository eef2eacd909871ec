// Tests of the CUDA twin of the integer MOTION metric (src/feature/motion/motion_cuda.cu): every
// output of every frame bit for bit equal to the CPU extractor's (motion.cpp), on random frames
// of many sizes (3x3 up, odd) and bit depths, with samples above the bit depth (where the CPU
// emulates upstream's 32-bit lane wrap), short videos, and every option. The parity tests skip,
// saying why, when no CUDA device is usable; the registry test needs no device.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/motion/motion.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using test::OptionValues;

Options motion_options(const OptionValues& values = {}) {
    return Options("motion", motion_extractor_info().options, values);
}

TEST(MotionCudaInfo, RegistryEntryDeclaresExactTwin) {
    test::expect_exact_twin_entry(motion_extractor_info(), motion_options(),
                                  {{2, 8, 8, Subsampling::k420}, {8, 2, 8, Subsampling::k420},
                                   {8, 8, 7, Subsampling::k420}, {8, 8, 17, Subsampling::k420}},
                                  {8, 8, 8, Subsampling::k420});
}

// ---------------------------------------------------------------------------------------
// Parity with the CPU extractor.

#ifdef VMAFX_HAVE_CUDA

using namespace test;  // Clip, run_cpu, run_gpu, count_differences, set_sample

/// splitmix64: a small, fast deterministic generator for the test pictures.
class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n).
    std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }

private:
    std::uint64_t state_;
};

/// A clip of `count` frames of `format` from `seed`. Reference frame i is, by i % 6: fresh
/// random samples within the bit depth; a smooth gradient with small noise; a repeat of frame
/// i-1 (zero difference); frame i-1 with a few samples changed (mostly all-zero blurred rows);
/// random samples over the whole 16-bit range (above the bit depth, for > 8 bits: the CPU's
/// 32-bit lane products wrap); samples that are 0 or the largest word (the largest blurred
/// differences). Distorted frames are black (motion must not read them).
Clip make_clip(const VideoFormat& format, unsigned count, unsigned seed) {
    Clip clip{format, {}, {}};
    Random rng(seed * 1000003ull + static_cast<std::uint64_t>(format.width) * 131 +
               static_cast<std::uint64_t>(format.height) * 17 + static_cast<std::uint64_t>(format.bit_depth));
    const std::uint32_t in_range_max = (1u << format.bit_depth) - 1;  // 2^k - 1: masks draw uniformly
    const std::uint32_t word_max = format.bit_depth > 8 ? 65535u : 255u;
    const auto fill = [&](Picture& pic, const auto& sample) {
        for (int y = 0; y < format.height; ++y)
            for (int x = 0; x < format.width; ++x) set_sample(pic, x, y, sample(x, y));
    };
    for (unsigned i = 0; i < count; ++i) {
        Picture ref(format);
        switch (i % 6) {
            case 0: fill(ref, [&](int, int) { return static_cast<std::uint32_t>(rng.next()) & in_range_max; }); break;
            case 1:
                fill(ref, [&](int x, int y) {
                    const std::uint64_t ramp = static_cast<std::uint64_t>(x + 2 * y) * in_range_max;
                    const auto base = static_cast<std::uint32_t>(ramp / (format.width + 2 * format.height));
                    return std::min(in_range_max, base + rng.below(7));
                });
                break;
            case 2: ref = clip.ref[i - 1]; break;
            case 3:
                ref = clip.ref[i - 1];
                for (int k = 0; k < 3; ++k)
                    set_sample(ref, static_cast<int>(rng.below(static_cast<std::uint32_t>(format.width))),
                               static_cast<int>(rng.below(static_cast<std::uint32_t>(format.height))),
                               static_cast<std::uint32_t>(rng.next()) & word_max);
                break;
            case 4: fill(ref, [&](int, int) { return static_cast<std::uint32_t>(rng.next()) & word_max; }); break;
            default: fill(ref, [&](int, int) { return (rng.next() & 1) ? word_max : 0u; }); break;
        }
        clip.ref.push_back(std::move(ref));
        clip.dist.emplace_back(format);
    }
    return clip;
}

/// Runs CPU and twin on a clip and expects identical tables; prints one line of what was compared.
void expect_parity(const OptionValues& values, const VideoFormat& format, unsigned count, unsigned seed,
                   unsigned slots) {
    const Options options = motion_options(values);
    const std::string what = fmt::format("{}x{} {}-bit, {} frames, seed {}, slots {}, options '{}'", format.width,
                                         format.height, format.bit_depth, count, seed, slots, options.key());
    SCOPED_TRACE(what);
    const Clip clip = make_clip(format, count, seed);
    const ScoreTable cpu = run_cpu(motion_extractor_info(), options, clip);
    const ScoreTable gpu = run_gpu(motion_extractor_info(), options, clip, slots);
    const std::string sad = options.feature_name("VMAF_integer_feature_motion_sad_score");
    EXPECT_EQ(cpu.frames(sad), count) << what;
    EXPECT_EQ(count_differences(cpu, gpu, what), 0) << what;
}

TEST(MotionCudaParity, RandomFramesAllSizesAndDepths) {
    VMAFX_REQUIRE_GPU();
    // Widths below 20 have no AVX-512 lane columns on the CPU; 20, 37 and 253 put lane/edge
    // boundaries and the 252-column tiles of the kernel at various places.
    const int sizes[][2] = {{3, 3},  {5, 4},   {17, 9},    {20, 3},    {37, 5},
                            {64, 36}, {253, 11}, {853, 481}, {1920, 1080}};
    const unsigned slots_of_seed[] = {1, 3, 4};
    for (const auto& s : sizes)
        for (int depth : {8, 10, 12, 16})
            for (unsigned seed = 1; seed <= 3; ++seed)
                expect_parity({}, {s[0], s[1], depth, Subsampling::k420}, 6, seed, slots_of_seed[seed - 1]);
}

TEST(MotionCudaParity, OneAndTwoFrameVideos) {
    VMAFX_REQUIRE_GPU();
    for (const OptionValues& values : {OptionValues{}, OptionValues{{"motion_five_frame_window", "true"}}})
        for (unsigned count : {1u, 2u})
            for (int depth : {8, 10, 16})
                for (const auto& s : {std::pair{3, 3}, std::pair{64, 36}, std::pair{853, 481}})
                    expect_parity(values, {s.first, s.second, depth, Subsampling::k420}, count, 5, 2);
}

TEST(MotionCudaParity, FiveFrameWindowAndEveryOption) {
    VMAFX_REQUIRE_GPU();
    const OptionValues option_sets[] = {
        {{"motion_five_frame_window", "true"}},
        {{"motion_five_frame_window", "true"}, {"motion_moving_average", "true"}},
        {{"motion_moving_average", "true"}},
        {{"motion_force_zero", "true"}},
        {{"motion_force_zero", "true"}, {"motion_five_frame_window", "true"}},
        {{"debug", "true"}},
        {{"motion_blend_factor", "0.5"}, {"motion_blend_offset", "25"}},
        {{"motion_max_val", "18"}},
        {{"motion_fps_weight", "2.5"}},
    };
    for (const auto& values : option_sets)
        for (int depth : {8, 10, 16})
            for (const auto& s : {std::pair{5, 4}, std::pair{64, 36}, std::pair{853, 481}})
                expect_parity(values, {s.first, s.second, depth, Subsampling::k420}, 9, 11, 3);
}

TEST(MotionCudaParity, RepeatedRunsAllIdentical) {
    VMAFX_REQUIRE_GPU();
    const VideoFormat format{1920, 1080, 10, Subsampling::k420};
    const Options options = motion_options();
    const Clip clip = make_clip(format, 12, 21);
    const ScoreTable cpu = run_cpu(motion_extractor_info(), options, clip);
    for (int run = 0; run < 3; ++run)
        for (unsigned slots : {1u, 4u})
            EXPECT_EQ(count_differences(cpu, run_gpu(motion_extractor_info(), options, clip, slots), fmt::format("run {} slots {}", run, slots)),
                      0);
}

#else  // !VMAFX_HAVE_CUDA

TEST(MotionCudaParity, SkippedWithoutCudaBackend) { GTEST_SKIP() << "skipped: the CUDA backend is not built"; }

#endif

}  // namespace
}  // namespace vmafx
