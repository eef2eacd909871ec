// The CUDA twin's per-pixel contrast (cambi_window.hpp window_contrast, and its per-level tile
// counts column_counts, row_count and contrast_of_counts, which contrast_kernel runs) against
// the CPU's sliding histograms (cambi_contrast.cpp contrast_values), on the host:
// at every scale of banded gradients the CPU has just prepared (its own preprocessing, mask,
// decimation and mode filter), each pixel's window is laid out as contrast_kernel's tile lays it
// out (levels of masked pixels in rows [0, height) and columns [0, max(pad, width)) of the
// CPU's planes, kNoLevel elsewhere) and window_contrast must give the CPU's c value, bit for
// bit. Windows wider than a scale (their reach past its columns), every max_log_contrast,
// bands above the visibility threshold and 8 to 16 bits are covered. Runs without a GPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/cambi/cambi.hpp"
#include "feature/cambi/cambi_internal.hpp"
#include "feature/cambi/cambi_kernels.hpp"
#include "feature/cambi/cambi_window.hpp"
#include "cambi_scales.hpp"
#include "pictures.hpp"

namespace vmafx {
namespace {

using namespace cambi;

using scales::banded;

// Compares, at each scale, the CPU's c values with window_contrast's on contrast_kernel's
// layout; returns the count of pixels that differ and of c values above 0 (so that a test can
// check it compared something).
// contrast_kernel's fast path over the whole scale's tile (`tile`, rows `pitch` apart, the window
// of output (r, c) at row r, column c): per kTile x kTile block of outputs whose levels span at
// most 65 levels with their reach (the kernel's kMaxLevels), each level's counts by
// column_counts and row_count (0 for the levels none of the block's windows has), then
// contrast_of_counts; the other blocks' outputs are NaN.
// `fast`: the blocks taken.
std::vector<float> tiled_contrast(const Plan& p, const Buffers& b, const std::vector<std::uint16_t>& tile, int pitch,
                                  int sw, int sh, const std::vector<std::uint32_t>& steps, int& fast) {
    constexpr int kTile = 16, kMaxLevels = 65;
    const int pad = p.window >> 1, side = 2 * pad + 1, nd = p.num_diffs;
    std::vector<float> out(static_cast<std::size_t>(sw) * static_cast<std::size_t>(sh), std::nanf(""));
    std::vector<std::uint16_t> columns(static_cast<std::size_t>(kTile) * static_cast<std::size_t>(pitch));
    std::vector<std::uint16_t> counts(static_cast<std::size_t>(kMaxLevels) * kTile * kTile);
    const auto level_at = [&](int r, int c) {
        return static_cast<int>(b.image[static_cast<std::size_t>(r) * static_cast<std::size_t>(b.stride) + c]);
    };
    const auto target = [&](int r, int c) {
        const int compact = level_at(r, c) - p.band_base;
        return b.mask[static_cast<std::size_t>(r) * static_cast<std::size_t>(b.stride) + c] && compact >= 0 &&
               compact < p.band_size;
    };
    for (int r0 = 0; r0 < sh; r0 += kTile)
        for (int c0 = 0; c0 < sw; c0 += kTile) {
            const int rows = std::min(kTile, sh - r0), outs = std::min(kTile, sw - c0);
            int lowest = 1 << 30, highest = -1;
            for (int r = r0; r < r0 + rows; ++r)
                for (int c = c0; c < c0 + outs; ++c)
                    if (target(r, c)) lowest = std::min(lowest, level_at(r, c)), highest = std::max(highest, level_at(r, c));
            if (lowest > highest) {
                for (int r = r0; r < r0 + rows; ++r)
                    for (int c = c0; c < c0 + outs; ++c) out[static_cast<std::size_t>(r * sw + c)] = 0.0f;
                continue;
            }
            const int base = lowest - nd, levels = highest + nd - base + 1;
            if (levels > kMaxLevels) continue;
            ++fast;
            // the levels some sample of the block's windows has (the kernel's: of its whole tile)
            std::vector<bool> present(static_cast<std::size_t>(levels));
            for (int i = r0; i < r0 + rows + side - 1; ++i)
                for (int j = c0; j < c0 + outs + side - 1; ++j) {
                    const int l = tile[static_cast<std::size_t>(i) * static_cast<std::size_t>(pitch) + j] - base;
                    if (l >= 0 && l < levels) present[static_cast<std::size_t>(l)] = true;
                }
            for (int l = 0; l < levels; ++l) {
                const int v = base + l;
                if (!present[static_cast<std::size_t>(l)]) {
                    for (std::size_t o = 0; o < kTile * kTile; ++o)
                        counts[static_cast<std::size_t>(l * kTile * kTile) + o] = 0;
                    continue;
                }
                for (int j = c0; j < c0 + outs + side - 1; ++j)
                    if (v >= 0)
                        column_counts(&tile[static_cast<std::size_t>(r0) * static_cast<std::size_t>(pitch)], pitch, side,
                                      rows, j, static_cast<std::uint16_t>(v), &columns[static_cast<std::size_t>(j)],
                                      pitch);
                for (int r = r0; r < r0 + rows; ++r)
                    for (int c = c0; c < c0 + outs; ++c)
                        counts[static_cast<std::size_t>(l * kTile * kTile + (r - r0) * kTile + (c - c0))] =
                            v < 0 ? 0
                                  : static_cast<std::uint16_t>(row_count(
                                        &columns[static_cast<std::size_t>((r - r0) * pitch)], c, side));
            }
            for (int r = r0; r < r0 + rows; ++r)
                for (int c = c0; c < c0 + outs; ++c) {
                    float got = 0.0f;
                    if (target(r, c)) {
                        const int level = level_at(r, c), compact = level - p.band_base;
                        got = contrast_of_counts(&counts[static_cast<std::size_t>((level - nd - base) * kTile * kTile +
                                                                                  (r - r0) * kTile + (c - c0))],
                                                 kTile * kTile, compact, nd, steps[static_cast<std::size_t>(compact)],
                                                 reciprocals().data(), kContrastWeights);
                    }
                    out[static_cast<std::size_t>(r * sw + c)] = got;
                }
        }
    return out;
}

void compare_scales(const VideoFormat& format, const OptionValues& values, int band, int& differ, int& nonzero,
                    int& fast) {
    const Settings s(descriptor.parse_options(values));
    const Plan p = make_plan(s, format);
    ASSERT_EQ(p.band, Band::kLevels);
    const Picture pic = banded(format, band, 3);
    Buffers b;
    const std::vector<std::uint32_t> steps = visible_steps(p);
    const int pad = p.window >> 1, side = 2 * pad + 1;
    std::vector<std::uint16_t> counts(65);
    scales::each_scale(p, pic, format.bit_depth, b, [&](int scale, int sw, int sh) {
        // contrast_kernel's tile over the whole scale: rows [-pad, sh + pad), columns [-pad, sw + pad].
        const int pitch = sw + 2 * pad + 1, column_end = pad > sw ? pad : sw;
        std::vector<std::uint16_t> tile(static_cast<std::size_t>(sh + 2 * pad) * static_cast<std::size_t>(pitch));
        for (int ti = 0; ti < sh + 2 * pad; ++ti)
            for (int tj = 0; tj < pitch; ++tj) {
                const int i = ti - pad, j = tj - pad;
                const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(b.stride) +
                                       static_cast<std::size_t>(j);
                const bool in = i >= 0 && i < sh && j >= 0 && j < column_end && b.mask[at];
                tile[static_cast<std::size_t>(ti * pitch + tj)] = in ? b.image[at] : kNoLevel;
            }
        const std::vector<float> tiled = tiled_contrast(p, b, tile, pitch, sw, sh, steps, fast);
        for (int r = 0; r < sh; ++r)
            for (int c = 0; c < sw; ++c) {
                const std::size_t at = static_cast<std::size_t>(r) * static_cast<std::size_t>(b.stride) +
                                       static_cast<std::size_t>(c);
                const int level = b.image[at], compact = level - p.band_base;
                float got = 0.0f;
                if (b.mask[at] && compact >= 0 && compact < p.band_size)
                    got = window_contrast(&tile[static_cast<std::size_t>(r * pitch + c)], pitch, side, level, compact,
                                          p.num_diffs, steps[static_cast<std::size_t>(compact)],
                                          reciprocals().data(), kContrastWeights, counts.data(), 1);
                const float want = b.c_values[static_cast<std::size_t>(r * sw + c)];
                const float by_level = tiled[static_cast<std::size_t>(r * sw + c)];
                if (by_level == by_level && std::memcmp(&by_level, &want, sizeof want) != 0) {  // (NaN: not taken)
                    if (differ < 5)
                        ADD_FAILURE() << "scale " << scale << " (" << sw << "x" << sh << "), pixel (" << r << ", " << c
                                      << "): CPU " << want << ", the tile's level counts " << by_level;
                    ++differ;
                }
                if (std::memcmp(&got, &want, sizeof got) != 0) {
                    if (differ < 5)
                        ADD_FAILURE() << "scale " << scale << " (" << sw << "x" << sh << "), pixel (" << r << ", " << c
                                      << "): CPU " << want << ", window_contrast " << got;
                    ++differ;
                }
                nonzero += want > 0;
            }
    });
}

TEST(CambiWindow, TheTwinsCountsGiveTheCpusContrastAtEveryScale) {
    const scales::BandedCase cases[] = {
        {{481, 271, 10, Subsampling::k420}, {}, 3},
        {{481, 271, 8, Subsampling::k420}, {{"max_log_contrast", "5"}}, 2},
        {{433, 241, 12, Subsampling::k420}, {{"max_log_contrast", "0"}}, 4},
        {{640, 360, 16, Subsampling::k420}, {{"window_size", "127"}, {"tvi_threshold", "0.1"}}, 5},
        {{216, 400, 10, Subsampling::k420}, {{"window_size", "127"}, {"cambi_vis_lum_threshold", "10"}}, 2},
        // narrow: the window is wider than the later scales (it reads past their columns)
        {{24, 400, 10, Subsampling::k420}, {{"window_size", "127"}}, 6},
        {{1920, 1080, 10, Subsampling::k420}, {{"cambi_high_res_speedup", "1080"}}, 7},
    };
    for (const scales::BandedCase& k : cases) {
        int differ = 0, nonzero = 0, fast = 0;
        compare_scales(k.format, k.values, k.band, differ, nonzero, fast);
        EXPECT_EQ(differ, 0) << test::format_label(k.format);
        if (k.values.empty() || k.values.begin()->first != "max_log_contrast" || k.values.begin()->second != "5") {
            EXPECT_GT(fast, 0) << test::format_label(k.format) << ": no block counted level by level";
        }
        EXPECT_GT(nonzero, 0) << test::format_label(k.format) << ": no contrast at all, nothing compared";
    }
}

}  // namespace
}  // namespace vmafx
