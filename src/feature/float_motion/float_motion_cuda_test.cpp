// The CUDA twin of float_motion (src/feature/float_motion/float_motion_cuda.cu) beyond the
// registry-driven twin suites (test_twins.cpp): long runs (every frame's previous picture, the
// motion2 minimum and motion3 over many frames, fewer slots than frames), every motion_filter_size
// class, motion_add_scale1 on rows wider than one SequentialSum chunk, motion_add_uv at every
// subsampling, debug, and the bit depths upstream reads byte-wise (9, 11, 13..15 bits with
// samples over the whole word). Skips, saying why, where no CUDA device is usable. On the host
// (no device needed): the twin's per-thread code (float_motion_twin.hpp) in the kernels'
// decomposition, with plain row-order float sums where the device runs SequentialSum and
// finish()'s and flush()'s host code, gives the CPU's bits at every option corner, and each plant
// the host can run changes them.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/common/float_image.hpp"
#include "feature/float_motion/float_motion.hpp"
#include "feature/float_motion/float_motion_twin.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

/// Each row's float sum from 0 in column order of a rows x cols array (what SequentialSum
/// reproduces on the device).
std::vector<float> row_sums(const std::vector<float>& terms, int cols, int rows) {
    std::vector<float> out(static_cast<std::size_t>(rows));
    for (int y = 0; y < rows; ++y) {
        float s = 0.0f;
        for (int x = 0; x < cols; ++x) s += terms[static_cast<std::size_t>(y) * cols + x];
        out[static_cast<std::size_t>(y)] = s;
    }
    return out;
}

/// The SAD of plane p between two pictures as the twin computes it: vertical_at into the
/// vertical passes, horizontal_at into the blurs, abs_difference terms, with motion_add_scale1
/// scaled_term_at at the CPU's tap tables; the means by finish()'s host code.
float emulate_plane(const Picture& prev, const Picture& cur, int p, const float_motion::Settings& settings,
                    PlantedDefect defect) {
    const Plane& a = prev.planes[p];
    const Plane& b = cur.planes[p];
    const int w = a.width();
    const int h = a.height();
    const float scaler = floatimg::picture_copy_scaler(prev.format.bit_depth);
    const float_motion::Blur blur = float_motion::blur_of(settings.filter_size);
    const float_motion::Plant plant = float_motion::Plant::of(defect);
    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    std::vector<float> tmp(2 * n), blurred(2 * n), terms(n);
    for (int z = 0; z < 2; ++z) {
        const Plane& in = z == 0 ? a : b;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                tmp[z * n + static_cast<std::size_t>(y) * w + x] =
                    scaler != 0.0f
                        ? float_motion::vertical_at<std::uint16_t>(in.data(), in.stride(), h, x, y, scaler, blur, plant)
                        : float_motion::vertical_at<std::uint8_t>(in.data(), in.stride(), h, x, y, scaler, blur, plant);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const std::size_t at = z * n + static_cast<std::size_t>(y) * w;
                blurred[at + x] = float_motion::horizontal_at(tmp.data() + at, w, x, blur, plant);
            }
    }
    for (std::size_t i = 0; i < n; ++i) terms[i] = float_motion::abs_difference(blurred[i], blurred[n + i]);
    float sad = float_motion::mean_of_rows(row_sums(terms, w, h), w, h);
    if (settings.add_scale1) {
        const int sw = float_motion::scale1_size(w);
        const int sh = float_motion::scale1_size(h);
        std::vector<int> x1(sw), x2(sw), y1(sh), y2(sh);
        std::vector<float> dx(sw), dy(sh);
        floatimg::bilinear_axis(w, sw, x1.data(), x2.data(), dx.data());
        floatimg::bilinear_axis(h, sh, y1.data(), y2.data(), dy.data());
        std::vector<float> scaled(static_cast<std::size_t>(sw) * sh);
        for (int y = 0; y < sh; ++y)
            for (int x = 0; x < sw; ++x)
                scaled[static_cast<std::size_t>(y) * sw + x] = float_motion::scaled_term_at(
                    blurred.data(), blurred.data() + n, w, x1[x], x2[x], dx[x], y1[y], y2[y], dy[y]);
        sad = float_motion::add_scales(sad, float_motion::mean_of_rows(row_sums(scaled, sw, sh), sw, sh));
    }
    return sad;
}

/// The twin's scores of a clip on the host: each frame's finish() (write_frame of the planes'
/// SADs), then flush().
ScoreTable emulate(const OptionValues& values, const test::Clip& clip, PlantedDefect defect) {
    const float_motion::Settings settings(float_motion::descriptor.parse_options(values));
    ScoreTable table;
    for (unsigned i = 0; i < clip.frames(); ++i) {
        FrameScores out;
        double sad[3] = {0.0, 0.0, 0.0};
        if (settings.scores_frame(i))
            for (int p = 0; p < (settings.add_uv ? 3 : 1); ++p)
                sad[p] = static_cast<double>(emulate_plane(clip.ref[i - 1], clip.ref[i], p, settings, defect));
        settings.write_frame(i, settings.frame_score(sad[0], sad[1], sad[2]), out);
        for (const auto& [name, value] : out) table.set(name, i, value);
    }
    if (!settings.force_zero) settings.flush(table);
    return table;
}

const OptionValues kHostSets[] = {
    {},
    {{"debug", "true"}, {"motion_fps_weight", "2.5"}, {"motion_max_val", "5"}},
    {{"motion_filter_size", "1"}},
    {{"motion_filter_size", "3"}, {"motion_add_uv", "true"}},
    {{"motion_add_uv", "true"}},
    {{"motion_add_scale1", "true"}, {"motion_blend_factor", "0.5"}, {"motion_blend_offset", "3"}},
    {{"motion_force_zero", "true"}, {"debug", "true"}},
};

TEST(FloatMotionTwinHost, KernelDecompositionIsTheCpusBits) {
    const int sizes[][2] = {{5, 5}, {6, 7}, {37, 21}};
    for (const auto& s : sizes)
        for (const int bits : {8, 9, 10, 12, 15, 16})
            for (const Subsampling sub : {Subsampling::k420, Subsampling::k422, Subsampling::k444}) {
                const VideoFormat format{s[0], s[1], bits, sub};
                test::Clip clip = test::synthetic_clip(format, 5, 11);
                if (bits == 9 || bits == 15)  // upstream's byte-wise reading: samples over the whole word
                    for (unsigned i = 0; i < clip.frames(); ++i) clip.ref[i] = test::random_word_picture(format, 30 + i);
                for (const OptionValues& values : kHostSets) {
                    const Options options = float_motion::descriptor.parse_options(values);
                    const ScoreTable want = test::run_cpu(float_motion::descriptor, options, clip);
                    const ScoreTable got = emulate(values, clip, PlantedDefect::kNone);
                    EXPECT_EQ(test::count_differences(want, got, test::option_label(values)), 0)
                        << s[0] << "x" << s[1] << " " << bits << " bits " << subsampling_name(sub) << " "
                        << test::option_label(values);
                }
            }
}

// The plants the host can run (the reduction order is the device's atomics) change the scores of
// random pictures as the parity gate's (odd sizes, 4 frames).
TEST(FloatMotionTwinHost, PlantsChangeTheScores) {
    const VideoFormat format{65, 41, 8, Subsampling::k420};
    test::Clip clip{format, test::random_pictures(format, 4, 7), {}};
    clip.dist = clip.ref;
    const ScoreTable want = emulate({}, clip, PlantedDefect::kNone);
    for (const PlantedDefect d : {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                  PlantedDefect::kRoundingConstant})
        EXPECT_GT(test::count_differences(want, emulate({}, clip, d), planted_defect_name(d), 0.0, false), 0)
            << planted_defect_name(d);
}

TEST(FloatMotionCuda, LongRunsEveryFilterAndScale) {
    VMAFX_REQUIRE_GPU();
    const OptionValues sets[] = {
        {{"debug", "true"}},
        {{"motion_filter_size", "1"}},
        {{"motion_filter_size", "3"}, {"motion_add_uv", "true"}},
        {{"motion_add_scale1", "true"}, {"motion_blend_factor", "0.5"}, {"motion_blend_offset", "3"}},
        {{"motion_force_zero", "true"}, {"debug", "true"}},
    };
    const int sizes[][2] = {{5, 5}, {37, 21}, {4099, 9}};
    for (const auto& s : sizes)
        for (const int bits : {8, 10, 16})
            for (const Subsampling sub : {Subsampling::k420, Subsampling::k444}) {
                const VideoFormat format{s[0], s[1], bits, sub};
                const test::Clip clip = test::synthetic_clip(format, 9, 11);
                for (const OptionValues& values : sets)
                    EXPECT_TRUE(test::expect_twin_matches_cpu(float_motion::descriptor, values, clip, 3))
                        << s[0] << "x" << s[1] << " " << bits << " bits " << test::option_label(values);
            }
}

TEST(FloatMotionCuda, ByteWiseBitDepths) {
    VMAFX_REQUIRE_GPU();
    for (const int bits : {9, 11, 13, 14, 15}) {
        const VideoFormat format{33, 7, bits, Subsampling::k422};
        test::Clip clip{format, {}, {}};
        for (unsigned i = 0; i < 4; ++i) {
            clip.ref.push_back(test::random_word_picture(format, 20 + i));
            clip.dist.push_back(test::constant_picture(format, 0));
        }
        for (const OptionValues& values : {OptionValues{}, OptionValues{{"motion_add_uv", "true"}}})
            EXPECT_TRUE(test::expect_twin_matches_cpu(float_motion::descriptor, values, clip, 2))
                << bits << " bits " << test::option_label(values);
    }
}

}  // namespace
}  // namespace vmafx
