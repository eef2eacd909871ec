// The GPU twins (CUDA and Vulkan) of the summing metrics float_moment, float_psnr and psnr beyond
// the registry-driven suites (test_twins.cpp, test_parity_gate.cpp), where those suites' sizes do
// not reach: 16-bit frames past 2^21 samples, whose CPU double sums round (the twins then take
// SequentialSum's path: bright frames, where dark samples' squares fall below the sum's grid,
// and frames whose differences are the largest, where float(D^2) rounds), and 8-bit rows of
// psnr wide enough for upstream's uint32 row sums to wrap. SumTwins/LargeSums.*/BACKEND: skips,
// saying why, where the backend has no usable device; on a device emulated on the CPU
// (test::DeviceScale) the largest frames are left out, the first past 2^21 samples kept.
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "feature/float_moment/float_moment.hpp"
#include "feature/float_moment/float_moment_math.hpp"
#include "feature/float_psnr/float_psnr.hpp"
#include "feature/float_psnr/float_psnr_math.hpp"
#include "feature/psnr/psnr.hpp"
#include "gpu/sequential_sum_core.hpp"
#include "gpu/twin.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

/// Bright samples (the top fifth of the range) with one in `dark_every` dark (the bottom
/// sixteenth), every plane.
Picture bright_picture(const VideoFormat& format, std::uint32_t seed, unsigned dark_every) {
    Picture pic = test::constant_picture(format, 0);
    std::mt19937 rng(seed);
    const std::uint32_t max = test::max_sample(format);
    test::fill(pic, [&](int, int, int) {
        return rng() % dark_every == 0 ? rng() % (max / 16 + 1) : max - rng() % (max / 5 + 1);
    });
    return pic;
}

/// Frames whose CPU sums round at 16 bits: bright references against dark, random and extreme
/// distorted pictures, and random against random.
test::Clip rounding_clip(const VideoFormat& format, std::uint32_t seed) {
    test::Clip clip{format, {}, {}};
    clip.ref.push_back(bright_picture(format, seed, 7));
    clip.dist.push_back(test::constant_picture(format, 0));
    clip.ref.push_back(bright_picture(format, seed + 1, 50));
    clip.dist.push_back(test::random_picture(format, seed + 2));
    clip.ref.push_back(test::extreme_picture(format, seed + 3));
    clip.dist.push_back(test::extreme_picture(format, seed + 4));
    clip.ref.push_back(test::random_picture(format, seed + 5));
    clip.dist.push_back(bright_picture(format, seed + 6, 3));
    return clip;
}

/// Sample x of a plane as the twins' kernels read it.
template <typename Sample>
Sample at(const Plane& plane, int x, int y) {
    return plane.row<Sample>(y)[x];
}

/// The twins' sums on the host (the kernels' per-sample arithmetic, integer sums in any order,
/// SequentialSum's method on the terms), as each twin's finish() forms them, against the CPU
/// extractor's functions: proves on the host the exactness argument of the integer path and the
/// switch to the sequential path (w * h * 2^(2 * bits) > 2^53).
template <typename Sample>
void expect_host_twin_sums(const Picture& ref, const Picture& dist, int bits) {
    const Plane& r = ref.luma();
    const Plane& d = dist.luma();
    const int w = r.width(), h = r.height();
    const float scaler = float_moment::scaler_of(bits);
    const bool sequential = gpu::double_sum_may_round(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), 2 * bits);
    unsigned long long first = 0, second = 0, noise = 0;
    std::vector<double> moment_terms, noise_terms;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const Sample s = at<Sample>(r, x, y);
            const double m2 = float_moment::square_term(float_moment::sample_value(s, scaler));
            const double n2 = float_psnr::squared_difference(s, at<Sample>(d, x, y), scaler);
            first += s;
            second += static_cast<unsigned long long>(m2 * (static_cast<double>(scaler) * scaler));
            noise += static_cast<unsigned long long>(n2 * (static_cast<double>(scaler) * scaler));
            moment_terms.push_back(m2);
            noise_terms.push_back(n2);
        }
    double first_moment = static_cast<double>(first) / static_cast<double>(scaler);
    double second_moment = sequential ? gpu::seqsum::seq_emulate(moment_terms.data(), moment_terms.size())
                                      : static_cast<double>(second) / (static_cast<double>(scaler) * scaler);
    float_moment::finish_moments(first_moment, second_moment, w, h);
    double want_first = 0, want_second = 0;
    float_moment::plane_moments(r, bits, want_first, want_second);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(first_moment), std::bit_cast<std::uint64_t>(want_first)) << w << "x" << h;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(second_moment), std::bit_cast<std::uint64_t>(want_second)) << w << "x" << h;
    const double noise_sum = sequential ? gpu::seqsum::seq_emulate(noise_terms.data(), noise_terms.size())
                                        : static_cast<double>(noise) / (static_cast<double>(scaler) * scaler);
    const double psnr = float_psnr::psnr_of_noise(noise_sum, w, h, bits);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(psnr), std::bit_cast<std::uint64_t>(float_psnr::frame_psnr(r, d, bits)))
        << w << "x" << h;
}

TEST(SumTwinsHost, IntegerAndSequentialPathsGiveTheCpuSums) {
    const int sizes[][2] = {{1, 1}, {33, 17}, {431, 271}, {1920, 1080}, {2048, 1040}};
    for (const int bits : {8, 10, 12, 16})
        for (const auto& s : sizes) {
            if (bits < 16 && s[0] > 1000) continue;  // the same path as the smaller sizes
            const VideoFormat format{s[0], s[1], bits, Subsampling::k420};
            const test::Clip clip = rounding_clip(format, 404);
            for (unsigned i = 0; i < clip.frames(); ++i) {
                if (bits == 8) expect_host_twin_sums<std::uint8_t>(clip.ref[i], clip.dist[i], bits);
                else expect_host_twin_sums<std::uint16_t>(clip.ref[i], clip.dist[i], bits);
            }
        }
}

// Past 2^21 samples at 16 bits the integer path would not be the CPU's: the sequential path is
// needed (here the CPU's double sum of bright squares rounds).
TEST(SumTwinsHost, TheIntegerPathDiffersPast2To53Units) {
    const VideoFormat format{2560, 1440, 16, Subsampling::k420};
    const Picture ref = bright_picture(format, 505, 7);
    const Plane& r = ref.luma();
    unsigned long long units = 0;
    double cpu = 0;
    for (int y = 0; y < r.height(); ++y)
        for (int x = 0; x < r.width(); ++x) {
            const float v2 = float_moment::square_term(float_moment::sample_value(at<std::uint16_t>(r, x, y), 256.0f));
            units += static_cast<unsigned long long>(static_cast<double>(v2) * 65536.0);
            cpu += v2;
        }
    EXPECT_GT(units, 1ull << 53);
    EXPECT_NE(static_cast<double>(units) / 65536.0, cpu);
}

std::vector<std::string> built_backends() {
    std::vector<std::string> out;
    for (const GpuBackendInfo& b : gpu_backends())
        if (b.built) out.push_back(b.name);
    return out;
}

class LargeSums : public testing::TestWithParam<std::string> {
protected:
    void SetUp() override { VMAFX_REQUIRE_BACKEND(GetParam()); }
    bool matches(const MetricDescriptor& m, const OptionValues& values, const test::Clip& clip, unsigned slots) const {
        return test::expect_twin_matches_cpu(m, values, clip, slots, GetParam());
    }
    bool full() const { return test::device_scale(GetParam()) == test::DeviceScale::kFull; }
};

INSTANTIATE_TEST_SUITE_P(SumTwins, LargeSums, testing::ValuesIn(built_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LargeSums);

// 2048x1040 is the first common shape past 2^21 samples (1920x1080 stays on the exact integer
// path); 3840x2160 is the largest the pipeline is sized for.
TEST_P(LargeSums, FloatMomentAndFloatPsnrPast2To53Units) {
    std::vector<std::pair<int, int>> sizes = {{2048, 1040}};
    if (full()) sizes = {{1920, 1080}, {2048, 1040}, {2560, 1440}, {3840, 2160}};
    for (const auto& [w, h] : sizes) {
        const VideoFormat format{w, h, 16, Subsampling::k420};
        const test::Clip clip = rounding_clip(format, 101);
        for (const unsigned slots : {1u, 3u}) {
            EXPECT_TRUE(matches(float_moment::descriptor, {}, clip, slots));
            EXPECT_TRUE(matches(float_psnr::descriptor, {}, clip, slots));
        }
    }
}

TEST_P(LargeSums, LargeFramesEveryBitDepth) {
    for (const int bits : {8, 10, 12}) {
        const VideoFormat format = full() ? VideoFormat{2560, 1440, bits, Subsampling::k420}
                                          : VideoFormat{1283, 721, bits, Subsampling::k420};
        const test::Clip clip = rounding_clip(format, 202);
        EXPECT_TRUE(matches(float_moment::descriptor, {}, clip, 2));
        EXPECT_TRUE(matches(float_psnr::descriptor, {}, clip, 2));
        EXPECT_TRUE(matches(psnr::descriptor, {{"enable_apsnr", "true"}, {"enable_mse", "true"}}, clip, 2));
    }
}

// At 8 bits upstream sums each row's squared errors in a uint32_t: rows of 66052 samples and
// more of the largest error wrap. Chroma (4:2:0: half the width) wraps from twice that.
TEST_P(LargeSums, PsnrWrappedRowSums) {
    const OptionValues sets[] = {{}, {{"enable_apsnr", "true"}, {"enable_mse", "true"}}, {{"enable_chroma", "false"}}};
    for (const int width : {66051, 66053, 140001}) {
        const VideoFormat format{width, 5, 8, Subsampling::k420};
        test::Clip clip{format, {}, {}};
        clip.ref.push_back(test::constant_picture(format, 255));
        clip.dist.push_back(test::constant_picture(format, 0));
        clip.ref.push_back(test::extreme_picture(format, 7));
        clip.dist.push_back(test::extreme_picture(format, 8));
        for (const OptionValues& values : sets) EXPECT_TRUE(matches(psnr::descriptor, values, clip, 2));
    }
}

TEST_P(LargeSums, PsnrEverySubsamplingAt16Bits) {
    for (const Subsampling sub : {Subsampling::k420, Subsampling::k422, Subsampling::k444}) {
        const VideoFormat format{1031, 517, 16, sub};
        const test::Clip clip = rounding_clip(format, 303);
        EXPECT_TRUE(matches(psnr::descriptor,
                            {{"enable_apsnr", "true"}, {"enable_mse", "true"}, {"reduced_hbd_peak", "true"}}, clip, 3));
        EXPECT_TRUE(matches(psnr::descriptor, {{"min_sse", "0.5"}}, clip, 1));
    }
}

}  // namespace
}  // namespace vmafx
