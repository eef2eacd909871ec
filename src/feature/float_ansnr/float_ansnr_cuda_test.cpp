// The CUDA twin of float_ansnr (src/feature/float_ansnr/float_ansnr_cuda.cu) beyond the
// registry-driven twin suites (test_twins.cpp). On the host (no device needed): the twin's
// per-thread code (float_ansnr_twin.hpp) in the kernel's decomposition, with plain row-order
// float sums where the device runs SequentialSum, gives the CPU's bits, and each plant the host
// can run changes them. On the device: rows wider than one SequentialSum chunk (2048 terms) with
// large float sums (16-bit samples, 4K width), identical pictures (noise 0: the psnr_max branch)
// and extreme samples. The device tests skip, saying why, where no CUDA device is usable.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "feature/float_ansnr/float_ansnr.hpp"
#include "feature/float_ansnr/float_ansnr_twin.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

/// The twin's arithmetic on the host: terms_kernel at every sample (its functions, the same
/// indexing), each row's float sum from 0 in column order (what SequentialSum reproduces),
/// then finish()'s host code.
float_ansnr::Scores emulate(const Plane& ref, const Plane& dist, int bits, PlantedDefect defect) {
    const int w = ref.width();
    const int h = ref.height();
    const float scaler = floatimg::picture_copy_scaler(bits);
    const float_ansnr::Weights weights = float_ansnr::weights();
    const float_ansnr::Plant plant = float_ansnr::Plant::of(defect);
    std::vector<float> sig_rows(static_cast<std::size_t>(h)), noise_rows(static_cast<std::size_t>(h));
    for (int y = 0; y < h; ++y) {
        float sig = 0.0f;
        float noise = 0.0f;
        for (int x = 0; x < w; ++x) {
            float rf = 0.0f;
            float df = 0.0f;
            if (bits == 8) {
                rf = float_ansnr::filtered_at<float_ansnr::kRefTaps, std::uint8_t>(ref.data(), ref.stride(), w, h, x, y,
                                                                                  scaler, weights.ref, plant);
                df = float_ansnr::filtered_at<float_ansnr::kDistTaps, std::uint8_t>(dist.data(), dist.stride(), w, h, x,
                                                                                   y, scaler, weights.dist, plant);
            } else {
                rf = float_ansnr::filtered_at<float_ansnr::kRefTaps, std::uint16_t>(ref.data(), ref.stride(), w, h, x,
                                                                                   y, scaler, weights.ref, plant);
                df = float_ansnr::filtered_at<float_ansnr::kDistTaps, std::uint16_t>(dist.data(), dist.stride(), w, h,
                                                                                    x, y, scaler, weights.dist, plant);
            }
            sig += float_ansnr::signal_term(rf);
            noise += float_ansnr::noise_term(rf, df);
        }
        sig_rows[static_cast<std::size_t>(y)] = sig;
        noise_rows[static_cast<std::size_t>(y)] = noise;
    }
    return float_ansnr::scores_of(float_ansnr::sum_rows(sig_rows), float_ansnr::sum_rows(noise_rows), w, h, bits);
}

TEST(FloatAnsnrTwinHost, KernelDecompositionIsTheCpusBits) {
    const int sizes[][2] = {{3, 3}, {4, 7}, {37, 5}, {64, 36}};
    for (const auto& s : sizes)
        for (const int bits : {8, 10, 12, 16}) {
            const VideoFormat format{s[0], s[1], bits, Subsampling::k420};
            const Picture ref = test::random_picture(format, 3);
            const Picture dist = test::distorted_picture(ref, 4);
            const float_ansnr::Scores want = float_ansnr::compute(ref.luma(), dist.luma(), bits);
            const float_ansnr::Scores got = emulate(ref.luma(), dist.luma(), bits, PlantedDefect::kNone);
            EXPECT_EQ(got.ansnr, want.ansnr) << s[0] << "x" << s[1] << " " << bits << " bits";
            EXPECT_EQ(got.anpsnr, want.anpsnr) << s[0] << "x" << s[1] << " " << bits << " bits";
        }
}

// The plants the host can run (the reduction order is the device's atomics) change the scores.
TEST(FloatAnsnrTwinHost, PlantsChangeTheScores) {
    const VideoFormat format{31, 17, 8, Subsampling::k420};
    const Picture ref = test::random_picture(format, 5);
    const Picture dist = test::distorted_picture(ref, 6);
    const float_ansnr::Scores want = float_ansnr::compute(ref.luma(), dist.luma(), 8);
    for (const PlantedDefect d : {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                  PlantedDefect::kRoundingConstant}) {
        const float_ansnr::Scores got = emulate(ref.luma(), dist.luma(), 8, d);
        EXPECT_NE(got.ansnr, want.ansnr) << planted_defect_name(d);
    }
}

TEST(FloatAnsnrCuda, WideRowsIdenticalAndExtremePictures) {
    VMAFX_REQUIRE_GPU();
    const int sizes[][2] = {{3, 3}, {4097, 5}, {3840, 17}};
    for (const auto& s : sizes)
        for (const int bits : {8, 10, 12, 16}) {
            const VideoFormat format{s[0], s[1], bits, Subsampling::k420};
            test::Clip clip{format, {}, {}};
            clip.ref.push_back(test::random_picture(format, 3));
            clip.dist.push_back(test::distorted_picture(clip.ref.back(), 4));
            clip.ref.push_back(test::smooth_picture(format, 5));
            clip.dist.push_back(clip.ref.back());  // identical: noise 0
            clip.ref.push_back(test::extreme_picture(format, 6));
            clip.dist.push_back(test::extreme_picture(format, 7));
            EXPECT_TRUE(test::expect_twin_matches_cpu(float_ansnr::descriptor, {}, clip, 2))
                << s[0] << "x" << s[1] << " " << bits << " bits";
        }
}

}  // namespace
}  // namespace vmafx
