// The CUDA twin's per-pixel contrast (cambi_window.hpp window_contrast, and its per-level tile
// counts level_counts, window_bits and contrast_of_counts, which contrast_kernel runs) against
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
// contrast_kernel's level passes over the whole scale's tile (`tile`, rows `pitch` apart, the
// window of output (r, c) at row r, column c): per kLevelTile x kLevelTile block of outputs whose
// levels span at most 8 x 64 levels with their reach (the kernel's kMaxChunks), each level of
// that span runs level_counts for each output column (a lane of the kernel's warp) with the
// row bits the kernel's ballots give, storing each output's count where it reads that level (0
// elsewhere), then contrast_of_counts; the other blocks' outputs are NaN. (The kernel passes
// only the levels some window sample has, a subset giving the same counts.)
// `fast`: the blocks taken.
std::vector<float> tiled_contrast(const Plan& p, const Buffers& b, const std::vector<std::uint16_t>& tile, int pitch,
                                  int sw, int sh, const std::vector<std::uint32_t>& steps, int& fast) {
    constexpr int kSide = kLevelTile, kOutputs = kSide * kSide, kMaxSpan = 8 * 64;
    const int pad = p.window >> 1, side = 2 * pad + 1, nd = p.num_diffs;
    const int words = (kSide + 2 * pad + 31) / 32, tile_rows = sh + 2 * pad;
    std::vector<float> out(static_cast<std::size_t>(sw) * static_cast<std::size_t>(sh), std::nanf(""));
    std::vector<std::uint16_t> counts(static_cast<std::size_t>(2 * nd + 1) * kOutputs);
    std::vector<std::uint16_t> prefix(kSide);
    std::vector<std::uint32_t> row_bits(static_cast<std::size_t>(kSide + side - 1) * kMaxRowWords);
    const auto level_at = [&](int r, int c) {
        return static_cast<int>(b.image[static_cast<std::size_t>(r) * static_cast<std::size_t>(b.stride) + c]);
    };
    const auto target = [&](int r, int c) {
        if (r >= sh || c >= sw) return false;
        const int compact = level_at(r, c) - p.band_base;
        return b.mask[static_cast<std::size_t>(r) * static_cast<std::size_t>(b.stride) + c] && compact >= 0 &&
               compact < p.band_size;
    };
    for (int r0 = 0; r0 < sh; r0 += kSide)
        for (int c0 = 0; c0 < sw; c0 += kSide) {
            const int rows = std::min(kSide, sh - r0), outs = std::min(kSide, sw - c0);
            int lowest = 1 << 30, highest = -1;
            for (int r = r0; r < r0 + rows; ++r)
                for (int c = c0; c < c0 + outs; ++c)
                    if (target(r, c)) lowest = std::min(lowest, level_at(r, c)), highest = std::max(highest, level_at(r, c));
            if (lowest > highest) {
                for (int r = r0; r < r0 + rows; ++r)
                    for (int c = c0; c < c0 + outs; ++c) out[static_cast<std::size_t>(r * sw + c)] = 0.0f;
                continue;
            }
            const int base = lowest - nd;
            if (highest + nd - base + 1 > kMaxSpan) continue;
            ++fast;
            std::fill(counts.begin(), counts.end(), std::uint16_t{0});
            for (int v = std::max(base, 0); v <= highest + nd; ++v) {
                // The kernel's ballots: bit j of word w of row i, tile sample (r0 + i, c0 + 32 w + j) == v.
                for (int i = 0; i < kSide + side - 1; ++i)
                    for (int w = 0; w < kMaxRowWords; ++w) {
                        std::uint32_t bits = 0;
                        for (int j = 0; j < 32 && w < words; ++j) {
                            const int ti = r0 + i, tj = c0 + 32 * w + j;
                            if (ti < tile_rows && tj < pitch &&
                                tile[static_cast<std::size_t>(ti) * static_cast<std::size_t>(pitch) + tj] == v)
                                bits |= 1u << j;
                        }
                        row_bits[static_cast<std::size_t>(i * kMaxRowWords + w)] = bits;
                    }
                for (int lane = 0; lane < kSide; ++lane) {
                    std::uint32_t masks[kMaxRowWords];
                    for (int w = 0; w < kMaxRowWords; ++w) masks[w] = window_bits(lane, side, w);
                    // (The kernel's instance has `words` words; the bits and masks of the others are 0 here.)
                    level_counts<kMaxRowWords>(
                        kSide, side, masks, prefix.data(), 1,
                        [&](int i, std::uint32_t* bits) {
                            std::memcpy(bits, &row_bits[static_cast<std::size_t>(i * kMaxRowWords)],
                                        sizeof(std::uint32_t) * kMaxRowWords);
                        },
                        [&](int r, int n) {
                            if (!target(r0 + r, c0 + lane)) return;
                            const unsigned o = static_cast<unsigned>(v - level_at(r0 + r, c0 + lane) + nd);
                            if (o <= static_cast<unsigned>(2 * nd))
                                counts[o * kOutputs + static_cast<unsigned>(r * kSide + lane)] =
                                    static_cast<std::uint16_t>(n);
                        });
                }
            }
            for (int r = r0; r < r0 + rows; ++r)
                for (int c = c0; c < c0 + outs; ++c) {
                    float got = 0.0f;
                    if (target(r, c)) {
                        const int compact = level_at(r, c) - p.band_base;
                        got = contrast_of_counts(&counts[static_cast<std::size_t>((r - r0) * kSide + (c - c0))],
                                                 kOutputs, compact, nd, steps[static_cast<std::size_t>(compact)],
                                                 reciprocals().data(), kContrastWeights);
                    }
                    out[static_cast<std::size_t>(r * sw + c)] = got;
                }
        }
    return out;
}

TEST(CambiWindow, WindowBitsAreTheColumnsOfEachWord) {
    for (int first = 0; first < 40; ++first)
        for (int side : {1, 3, 31, 32, 33, 65})
            for (int w = 0; w < kMaxRowWords; ++w) {
                std::uint32_t want = 0;
                for (int j = 0; j < 32; ++j)
                    if (32 * w + j >= first && 32 * w + j < first + side) want |= 1u << j;
                EXPECT_EQ(window_bits(first, side, w), want) << first << " " << side << " " << w;
            }
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
