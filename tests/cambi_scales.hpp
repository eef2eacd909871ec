// CAMBI's CPU c values of a picture at every scale, as the CPU's Contrast computes them (the
// preprocessing, the spatial mask, each scale's decimation and mode filter, contrast_values),
// for the tests that check other arithmetic against them (cambi_window_test.cpp: the CUDA
// twin's window counts; cambi_topk_test.cpp: its pooling sums).
#pragma once

#include <cstdint>

#include "feature/cambi/cambi.hpp"
#include "feature/cambi/cambi_internal.hpp"
#include "feature/cambi/cambi_kernels.hpp"
#include "pictures.hpp"

namespace vmafx::cambi::scales {

/// A banded gradient: one 10-bit level more every `band` columns and every `band` rows (so the
/// bands run diagonally), from 64, with a sample a level up where (5x + 11y + seed) % dither
/// == 0; chroma mid-grey. Any bit depth (the 10-bit levels shifted to it).
inline Picture banded(const VideoFormat& format, int band, int seed, int dither = 23) {
    Picture pic(format);
    vmafx::test::fill(pic, [&](int plane, int x, int y) -> std::uint32_t {
        const int bits = format.bit_depth;
        if (plane != 0) return 128u << (bits - 8);
        const int level = 64 + x / band + y / band + ((x * 5 + y * 11 + seed) % dither == 0);
        return bits >= 10 ? static_cast<std::uint32_t>(level) << (bits - 10)
                          : static_cast<std::uint32_t>(level) >> (10 - bits);
    });
    return pic;
}

/// A test case of banded pictures: the format, the options, the band's width.
struct BandedCase {
    VideoFormat format;
    OptionValues values;
    int band;
};

/// Runs the CPU's steps on the luma of `pic` (bit depth `bits`) under plan `p` into `b` and
/// calls visit(scale, width, height) after each scale's contrast_values: b.c_values then holds
/// that scale's width x height c values, b.image and b.mask its planes.
template <typename Visit>
void each_scale(const Plan& p, const Picture& pic, int bits, Buffers& b, Visit&& visit) {
    b.prepare(p, p.enc_w, p.enc_h);
    preprocess(pic.luma(), bits, p, b, p.enc_w, p.enc_h);
    spatial_mask(b, p.enc_w, p.enc_h);
    int sw = p.enc_w, sh = p.enc_h;
    for (int scale = 0; scale < kScales; ++scale) {
        if (scale > 0 || p.speedup) {
            sw = (sw + 1) >> 1;
            sh = (sh + 1) >> 1;
            simd_decimate()(b.image.data(), b.stride, sw, sh);
            simd_decimate()(b.mask.data(), b.stride, sw, sh);
        }
        simd_mode_filter()(b.image.data(), b.stride, sw, sh, b.mode_rows.data());
        contrast_values(p, b, sw, sh, p.window >> 1);
        visit(scale, sw, sh);
    }
}

}  // namespace vmafx::cambi::scales
