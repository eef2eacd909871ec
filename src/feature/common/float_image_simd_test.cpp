// SIMD kernel rows: The float convolution (float_vif, float_motion, speed_chroma / speed_temporal, ...).
// Run on every target by tests/test_simd_kernels.cpp (harness: tests/simd_kernels.hpp).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/common/float_image.hpp"
#include "feature/common/float_image_kernels.hpp"
#include "picture/picture.hpp"
#include "simd_kernels.hpp"

namespace vmafx {
namespace {

using namespace simd_test;

/// A random float sample of `content`: any value of a VMAF-offset pixel with a fraction,
/// values of large magnitude of either sign, a slow drift around `base`, or `base` with rare
/// large spikes.
float random_float(Content content, std::mt19937& rng, float base) {
    std::uniform_real_distribution<float> pixel(-128.0f, 128.0f);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    switch (content) {
    case Content::kUniform: return pixel(rng);
    case Content::kExtremes: return (rng() % 2 ? 1.0f : -1.0f) * (65504.0f + 4096.0f * unit(rng));
    case Content::kSmooth: return base + unit(rng);
    case Content::kFlatWithSpikes: return rng() % 13 == 0 ? 1.0e5f * unit(rng) : base;
    }
    return 0.0f;
}

/// floatimg::convolve with the SIMD row kernels against the reference row kernels, for
/// `product`: filter lengths of the metrics (VIF's 17, 9, 5, 3 and its kernel scales' up to 65,
/// SpEED's, float_motion's 5), Gaussian and random signed coefficients, every width the filter
/// allows from 1 to 70 and some larger, odd heights, strides longer than the width. The sources
/// end where their last row does (AddressSanitizer sees any read beyond); the destination's
/// padding must keep its sentinel.
void check_float_convolve(floatimg::Product product) {
    unsigned seed = 7000;
    for (const int taps : {3, 5, 7, 9, 11, 15, 17, 27, 33, 51, 65}) {
        const int r = taps / 2;
        const int h0 = (r + 1) | 1;  // the smallest odd height the filter allows
        for (const int width : widths_from(r + 1))
            for (const int height : {h0, h0 + 6}) {
                std::mt19937 rng(seed++);
                const Content content = kContents[rng() % std::size(kContents)];
                std::vector<float> filter(static_cast<std::size_t>(taps));
                if (rng() % 2) {
                    filter = floatimg::gaussian_filter(taps, static_cast<float>(taps) / 5.0f);
                } else {
                    std::uniform_real_distribution<float> coefficient(-1.0f, 1.0f);
                    for (float& c : filter) c = coefficient(rng);
                }
                const int src_stride = width + 1 + static_cast<int>(rng() % 7);
                const int dst_stride = width + 1 + static_cast<int>(rng() % 5);
                const std::size_t src_size = static_cast<std::size_t>(height - 1) * src_stride + width;
                std::vector<float> a(src_size), b(src_size);
                const float base = random_float(Content::kUniform, rng, 0.0f);
                for (float& v : a) v = random_float(content, rng, base);
                for (float& v : b) v = random_float(content, rng, base);
                const float* src2 = product == floatimg::Product::kCross ? b.data() : nullptr;
                const std::size_t dst_size = static_cast<std::size_t>(height) * dst_stride;
                std::vector<float> want(dst_size, 12345.0f), have(dst_size, 12345.0f);
                floatimg::convolve_with(floatimg::reference_convolve_kernels(), filter, a.data(), src2, product, width,
                                        height, src_stride, want.data(), dst_stride);
                floatimg::convolve_with(floatimg::simd_convolve_kernels(), filter, a.data(), src2, product, width,
                                        height, src_stride, have.data(), dst_stride);
                for (std::size_t i = 0; i < dst_size; ++i)
                    ASSERT_EQ(std::bit_cast<uint32_t>(have[i]), std::bit_cast<uint32_t>(want[i]))
                        << "taps " << taps << ", width " << width << ", height " << height << ", sample "
                        << i % dst_stride << " of row " << i / dst_stride << ": " << have[i] << " vs " << want[i];
            }
    }
}

}  // namespace

VMAFX_SIMD_KERNELS(float_image,
                   {"float_convolve_plain", floatimg::simd_target, [] { check_float_convolve(floatimg::Product::kPlain); }},
                   {"float_convolve_square", floatimg::simd_target, [] { check_float_convolve(floatimg::Product::kSquare); }},
                   {"float_convolve_cross", floatimg::simd_target, [] { check_float_convolve(floatimg::Product::kCross); }});

}  // namespace vmafx
