// SIMD kernel rows: float_adm's decouple row (src/feature/float_adm/float_adm_simd.cpp against decouple_pixel)
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

#include "feature/float_adm/float_adm_kernels.hpp"
#include "picture/picture.hpp"
#include "simd_kernels.hpp"

namespace vmafx {
namespace {

using namespace simd_test;

/// Detail bands of a random plane at `bits`: the samples minus half the range, times a DWT-like
/// gain, with a random fraction; the distorted bands a function of the reference's chosen per
/// content so that every branch is taken: independent (uniform), scaled copies (ratios below 0,
/// in [0, 1] and above 1, the angle test at its edge: extremes), near copies (the gain limit:
/// smooth) and zeros and special floats (flat with spikes: +-0, subnormals, the rcpss ends,
/// infinities, NaN). Each row is checked on its own: inputs allocated to the row's exact length,
/// outputs between guard samples that must stay untouched. Gain limits: the default 100, 1, 1.5
/// (floats: the lanes) and 1.1 (not a float: the reference a sample at a time). NaN outputs must
/// be NaN in both (their payloads may come from either operand); every other output bit for bit.
void check_float_adm_decouple() {
    const float specials[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-40f, -1e-40f, 3e38f, -3e38f, 1.5e-38f, 2e-38f,
                              std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(), 5.9e-39f, 1.17549435e-38f, 1e38f, -9e37f};
    unsigned seed = 12000;
    for (const int bits : kBitDepths)
        for (const Content content : kContents)
            for (const int width : widths_from(1))
                for (const double gain : {100.0, 1.0, 1.5, 1.1}) {
                    std::mt19937 rng(seed++);
                    const int height = 3;
                    TestPlane<uint16_t> plane(width, height, bits, content, rng, 0);
                    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
                    const float half = static_cast<float>(1 << (bits - 1));
                    for (int y = 0; y < height; ++y) {
                        std::vector<float> o[3], t[3];
                        for (int b = 0; b < 3; ++b) {
                            o[b].resize(static_cast<std::size_t>(width));
                            t[b].resize(static_cast<std::size_t>(width));
                        }
                        for (int x = 0; x < width; ++x)
                            for (int b = 0; b < 3; ++b) {
                                const float ov = (plane.row(y)[x] - half) * 0.73f + unit(rng);
                                float tv = 0.0f;
                                switch (content) {
                                case Content::kUniform: tv = half * unit(rng); break;
                                case Content::kExtremes: {
                                    const float k[] = {0.0f, 0.5f, 1.0f, 1.5f, -1.0f, -0.25f, 1.0001f, 100.0f};
                                    tv = ov * k[rng() % 8];
                                    break;
                                }
                                case Content::kSmooth: tv = ov * (1.0f + 0.001f * unit(rng)) + 0.01f * unit(rng); break;
                                case Content::kFlatWithSpikes:
                                    tv = rng() % 3 == 0 ? specials[rng() % std::size(specials)] : ov * 0.9f;
                                    o[b][x] = rng() % 3 == 0 ? specials[rng() % std::size(specials)] : ov;
                                    t[b][x] = tv;
                                    continue;
                                }
                                o[b][x] = ov;
                                t[b][x] = tv;
                            }
                        constexpr float kGuard = 12345.678f;
                        std::vector<float> want(6 * static_cast<std::size_t>(width + 2), kGuard);
                        std::vector<float> have = want;
                        const auto row_of = [&](std::vector<float>& out) {
                            float* p[6];
                            for (int k = 0; k < 6; ++k) p[k] = out.data() + static_cast<std::size_t>(k) * (width + 2) + 1;
                            return float_adm::DecoupleRow{o[0].data(), o[1].data(), o[2].data(), t[0].data(),
                                                          t[1].data(), t[2].data(), p[0], p[1], p[2], p[3], p[4], p[5]};
                        };
                        float_adm::reference_decouple_row()(row_of(want), width, gain);
                        float_adm::simd_decouple_row()(row_of(have), width, gain);
                        for (std::size_t i = 0; i < want.size(); ++i) {
                            if (std::isnan(want[i]) && std::isnan(have[i])) continue;
                            ASSERT_EQ(std::bit_cast<uint32_t>(have[i]), std::bit_cast<uint32_t>(want[i]))
                                << "output " << i / (width + 2) << ", column " << static_cast<int>(i % (width + 2)) - 1
                                << ", gain " << gain << ", row " << y << ": "
                                << describe({bits, width, height, content, seed - 1}) << ": " << have[i] << " vs "
                                << want[i];
                        }
                    }
                }
}

}  // namespace

VMAFX_SIMD_KERNELS(float_adm,
                   {"float_adm_decouple_row", float_adm::simd_target, check_float_adm_decouple});

}  // namespace vmafx
