// SIMD kernel rows: VIF (src/feature/vif/vif_simd.cpp against the reference kernels of vif.cpp)
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

#include "feature/vif/vif_kernels.hpp"
#include "feature/vif/vif_math.hpp"
#include "picture/picture.hpp"
#include "simd_kernels.hpp"

namespace vmafx {
namespace {

using namespace simd_test;

bool same(const vif::ScaleSums& a, const vif::ScaleSums& b) {
    return a.num_log == b.num_log && a.den_log == b.den_log && a.num_non_log == b.num_non_log &&
           a.den_non_log == b.den_non_log;
}

/// Every row of the statistics of scale `scale` over a random plane pair with mirrored rows.
/// Samples are uint8_t only at scale 0 of 8-bit video (as the frame driver gives them).
template <typename T>
void check_vif_statistics(int scale) {
    const int taps = vif::kFilters[scale].width;
    const int half = taps / 2;
    for_cases(half + 1, 2 * half + 1, [&](const Case& c) {
        if ((sizeof(T) == 1) != (c.bits == 8 && scale == 0)) return;
        std::mt19937 rng(c.seed);
        const int bits = scale == 0 ? c.bits : 16;  // decimated scales hold 16-bit values
        const TestPlane<T> ref(c.width, c.height, bits, c.content, rng);
        TestPlane<T> dis(c.width, c.height, bits, c.content, rng);
        // Distorted: the reference plus noise, sometimes the reference itself (sigma12 > 0).
        const uint32_t max = (1u << bits) - 1;
        for (int y = 0; y < c.height; ++y)
            for (int x = 0; x < c.width; ++x)
                if (rng() % 4 != 0)
                    dis.row(y)[x] = static_cast<T>(std::min<uint32_t>(max, ref.row(y)[x] + rng() % 5));
        for (const double gain_limit : {100.0, 1.0}) {
            vif::StatisticsRow<T> row{};
            const T* ref_rows[17];
            const T* dis_rows[17];
            row.scale = scale;
            row.ref_rows = ref_rows;
            row.dis_rows = dis_rows;
            row.width = c.width;
            row.mean_shift = vif::vertical_shift(scale, c.bits);
            row.square_shift = vif::vertical_square_shift(scale, c.bits);
            row.gain_limit = gain_limit;
            vif::ScaleSums want, have;
            for (int y = 0; y < c.height; ++y) {
                for (int k = 0; k < taps; ++k) {
                    ref_rows[k] = ref.row(vif::mirror(y - half + k, c.height));
                    dis_rows[k] = dis.row(vif::mirror(y - half + k, c.height));
                }
                vif::ScaleSums want_row, have_row;
                if constexpr (sizeof(T) == 1) {
                    vif::reference_kernels().statistics_u8(row, want_row);
                    vif::simd_kernels().statistics_u8(row, have_row);
                } else {
                    vif::reference_kernels().statistics_u16(row, want_row);
                    vif::simd_kernels().statistics_u16(row, have_row);
                }
                ASSERT_TRUE(same(want_row, have_row))
                    << describe(c) << ", row " << y << ", gain limit " << gain_limit << ": num_log " << have_row.num_log
                    << " vs " << want_row.num_log << ", den_log " << have_row.den_log << " vs " << want_row.den_log
                    << ", num_non_log " << have_row.num_non_log << " vs " << want_row.num_non_log << ", den_non_log "
                    << have_row.den_non_log << " vs " << want_row.den_non_log;
            }
        }
    });
}

/// Every output row of the decimation from scale `scale`, over a random plane pair.
template <typename T>
void check_vif_decimation(int scale) {
    const int taps = vif::kFilters[scale + 1].width;
    const int half = taps / 2;
    for_cases(half + 1, 2 * half + 1, [&](const Case& c) {
        if ((sizeof(T) == 1) != (c.bits == 8 && scale == 0)) return;
        std::mt19937 rng(c.seed);
        const int bits = scale == 0 ? c.bits : 16;
        const TestPlane<T> ref(c.width, c.height, bits, c.content, rng);
        const TestPlane<T> dis(c.width, c.height, bits, c.content, rng);
        vif::DecimationRow<T> row{};
        const T* ref_rows[17];
        const T* dis_rows[17];
        row.scale = scale;
        row.ref_rows = ref_rows;
        row.dis_rows = dis_rows;
        row.width = c.width;
        row.shift = vif::vertical_shift(scale, c.bits);
        const int out_w = c.width / 2;
        // Outputs with the 32 samples of room kernels may write past width / 2.
        std::vector<uint16_t> want_ref(out_w + 32), want_dis(out_w + 32), have_ref(out_w + 32), have_dis(out_w + 32);
        for (int i = 0; i < c.height / 2; ++i) {
            for (int k = 0; k < taps; ++k) {
                ref_rows[k] = ref.row(vif::mirror(2 * i - half + k, c.height));
                dis_rows[k] = dis.row(vif::mirror(2 * i - half + k, c.height));
            }
            row.ref_out = want_ref.data();
            row.dis_out = want_dis.data();
            if constexpr (sizeof(T) == 1) vif::reference_kernels().decimation_u8(row);
            else vif::reference_kernels().decimation_u16(row);
            row.ref_out = have_ref.data();
            row.dis_out = have_dis.data();
            if constexpr (sizeof(T) == 1) vif::simd_kernels().decimation_u8(row);
            else vif::simd_kernels().decimation_u16(row);
            for (int x = 0; x < out_w; ++x) {
                ASSERT_EQ(have_ref[x], want_ref[x]) << describe(c) << ", output row " << i << ", column " << x << " (ref)";
                ASSERT_EQ(have_dis[x], want_dis[x]) << describe(c) << ", output row " << i << ", column " << x << " (dis)";
            }
        }
    });
}

/// The whole frame driver (four scales and the decimations) with either kernel set, on
/// pictures of the smallest accepted size and larger, odd ones.
void check_vif_frames() {
    const std::pair<int, int> sizes[] = {{16, 16}, {17, 19}, {33, 35}, {70, 41}, {129, 67}};
    unsigned seed = 1000;
    for (const int bits : kBitDepths)
        for (const auto& [w, h] : sizes)
            for (const Content content : kContents) {
                std::mt19937 rng(seed++);
                Plane ref(w, h, bits == 8 ? 1 : 2), dis(w, h, bits == 8 ? 1 : 2);
                const TestPlane<uint16_t> r(w, h, bits, content, rng, 0), d(w, h, bits, content, rng, 0);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) {
                        const uint32_t rv = r.row(y)[x];
                        const uint32_t dv = rng() % 3 == 0 ? d.row(y)[x] : rv;
                        if (bits == 8) {
                            ref.row<uint8_t>(y)[x] = static_cast<uint8_t>(rv);
                            dis.row<uint8_t>(y)[x] = static_cast<uint8_t>(dv);
                        } else {
                            ref.row<uint16_t>(y)[x] = static_cast<uint16_t>(rv);
                            dis.row<uint16_t>(y)[x] = static_cast<uint16_t>(dv);
                        }
                    }
                for (const double gain_limit : {100.0, 1.0}) {
                    const vif::Params params{bits, false, gain_limit};
                    const auto want = vif::compute_scales(ref, dis, params, vif::reference_kernels());
                    const auto have = vif::compute_scales(ref, dis, params, vif::simd_kernels());
                    for (int s = 0; s < vif::kScales; ++s) {
                        ASSERT_EQ(std::bit_cast<uint32_t>(have[s].num), std::bit_cast<uint32_t>(want[s].num))
                            << bits << "-bit " << w << "x" << h << " scale " << s;
                        ASSERT_EQ(std::bit_cast<uint32_t>(have[s].den), std::bit_cast<uint32_t>(want[s].den))
                            << bits << "-bit " << w << "x" << h << " scale " << s;
                    }
                }
            }
}

/// The VIF terms of rows of variances drawn around every boundary of the arithmetic: the noise
/// variance 2 * 65536 (logarithms or not), 0 (numerator or not), small and extreme values.
void check_vif_terms() {
    std::mt19937 rng(77);
    const int32_t near[] = {0, 1, 2, 131071, 131072, 131073, 131074, 65536, 1 << 20, 2147483647, 2147352575,
                            -1, -131072, -2147483647 - 1};
    const auto draw = [&](bool non_negative) -> int32_t {
        int32_t v = 0;
        switch (rng() % 4) {
        case 0: v = near[rng() % std::size(near)]; break;
        case 1: v = static_cast<int32_t>(rng() % 400000); break;
        case 2: v = static_cast<int32_t>(rng()); break;
        default: v = static_cast<int32_t>(rng() % (1u << 26)) - (1 << 22); break;
        }
        return non_negative ? (v < 0 ? 0 : v) : v;  // sigma2_sq is clamped at 0
    };
    for (const int width : widths_from(1))
        for (const double gain_limit : {100.0, 1.0, 1.5}) {
            std::vector<int32_t> s1(width), s2(width), s12(width);
            for (int round = 0; round < 4; ++round) {
                for (int j = 0; j < width; ++j) {
                    s1[j] = draw(false);
                    s2[j] = draw(true);
                    s12[j] = round == 3 ? s1[j] : draw(false);  // identical pictures: sigma12 = sigma1_sq
                }
                vif::ScaleSums want, have;
                vif::reference_kernels().add_terms(s1.data(), s2.data(), s12.data(), width, gain_limit, want);
                vif::simd_kernels().add_terms(s1.data(), s2.data(), s12.data(), width, gain_limit, have);
                ASSERT_TRUE(same(want, have)) << "width " << width << ", gain limit " << gain_limit << ", round " << round;
            }
        }
}

}  // namespace

VMAFX_SIMD_KERNELS(vif,
                   {"vif_statistics_u8_scale0", vif::simd_target, [] { check_vif_statistics<uint8_t>(0); }},
                   {"vif_statistics_u16_scale0", vif::simd_target, [] { check_vif_statistics<uint16_t>(0); }},
                   {"vif_statistics_u16_scale1", vif::simd_target, [] { check_vif_statistics<uint16_t>(1); }},
                   {"vif_statistics_u16_scale2", vif::simd_target, [] { check_vif_statistics<uint16_t>(2); }},
                   {"vif_statistics_u16_scale3", vif::simd_target, [] { check_vif_statistics<uint16_t>(3); }},
                   {"vif_decimation_u8_scale0", vif::simd_target, [] { check_vif_decimation<uint8_t>(0); }},
                   {"vif_decimation_u16_scale0", vif::simd_target, [] { check_vif_decimation<uint16_t>(0); }},
                   {"vif_decimation_u16_scale1", vif::simd_target, [] { check_vif_decimation<uint16_t>(1); }},
                   {"vif_decimation_u16_scale2", vif::simd_target, [] { check_vif_decimation<uint16_t>(2); }},
                   {"vif_terms", vif::simd_target, check_vif_terms},
                   {"vif_frames", vif::simd_target, check_vif_frames});

}  // namespace vmafx
