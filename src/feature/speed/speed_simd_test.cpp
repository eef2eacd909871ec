// SIMD kernel rows: SpEED's covariance sum (src/feature/speed/speed_simd.cpp against covariance_sum_reference)
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

#include "feature/speed/speed_kernels.hpp"
#include "picture/picture.hpp"
#include "simd_kernels.hpp"

namespace vmafx {
namespace {

using namespace simd_test;

/// SpEED's covariance sums (est_params) of random float planes, every width from 1 to 70 and
/// some larger, odd heights, strides longer than the width, means taken or shifted; among the
/// contents large values near their means (cancellation: the fused and the unfused products
/// differ there) and large magnitudes of either sign. The planes end where their last row does.
void check_speed_covariance() {
    unsigned seed = 9000;
    for (const Content content : kContents)
        for (const int width : widths_from(1))
            for (const int height : {1, 3, 7}) {
                std::mt19937 rng(seed++);
                const int stride = width + 1 + static_cast<int>(rng() % 9);
                const std::size_t size = static_cast<std::size_t>(height - 1) * stride + width;
                std::vector<float> x(size), y(size);
                std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
                const float offset = content == Content::kSmooth ? 1.0e5f * unit(rng) : 0.0f;
                for (std::size_t i = 0; i < size; ++i) {
                    switch (content) {
                    case Content::kUniform:
                        x[i] = 255.0f * unit(rng);
                        y[i] = 255.0f * unit(rng);
                        break;
                    case Content::kExtremes:
                        x[i] = 3.0e7f * unit(rng);
                        y[i] = -x[i] + 1.0e3f * unit(rng);
                        break;
                    case Content::kSmooth:  // large values a little off their mean: cancellation
                        x[i] = offset + unit(rng);
                        y[i] = offset + 0.01f * unit(rng);
                        break;
                    case Content::kFlatWithSpikes:
                        x[i] = rng() % 11 == 0 ? 1.0e6f * unit(rng) : 7.25f;
                        y[i] = rng() % 11 == 0 ? 1.0e6f * unit(rng) : -3.5f;
                        break;
                    }
                }
                double mx = 0, my = 0;
                for (int i = 0; i < height; ++i)
                    for (int j = 0; j < width; ++j) {
                        mx += x[static_cast<std::size_t>(i) * stride + j];
                        my += y[static_cast<std::size_t>(i) * stride + j];
                    }
                mx = static_cast<float>(mx / (width * height)) + (rng() % 2 ? 0.0 : 1.0e-3 * unit(rng));
                my = static_cast<float>(my / (width * height));
                const double want = speed::covariance_sum_reference(x.data(), y.data(), stride, height, width, mx, my);
                const double have = speed::covariance_sum_simd(x.data(), y.data(), stride, height, width, mx, my);
                ASSERT_EQ(std::bit_cast<uint64_t>(have), std::bit_cast<uint64_t>(want))
                    << "width " << width << ", height " << height << ": " << have << " vs " << want;
            }
}

}  // namespace

VMAFX_SIMD_KERNELS(speed,
                   {"speed_covariance_sum", speed::simd_target, check_speed_covariance});

}  // namespace vmafx
