// SIMD kernel rows: CAMBI (src/feature/cambi/cambi_simd.cpp against the reference kernels of cambi_reference.cpp)
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

#include "feature/cambi/cambi_kernels.hpp"
#include "picture/picture.hpp"
#include "simd_kernels.hpp"

namespace vmafx {
namespace {

using namespace simd_test;

/// The histogram row: random counts (wrapping near 0 and 65535 included), a leaving row and an
/// entering one (a copy of the leaving row with a third of its samples and mask bits redrawn, so
/// that equal levels meet), either of them absent, masks of 0 and 1, the band covering part of
/// the samples' range (or most samples in the band), pads from 1 to past the width (the columns
/// upstream visits past the width). Rows of exactly max(pad, width) samples; the histograms' slack must stay unchanged.
void check_cambi_histogram_row() {
    unsigned seed = 13000;
    for (const int bits : kBitDepths)
        for (const Content content : kContents)
            for (const int width : widths_from(1))
                for (const int pad_choice : {1, 2, 7, 16, 33, -1, -2}) {
                    const int pad = pad_choice == -1 ? width : (pad_choice == -2 ? width + 5 : pad_choice);
                    for (int mode = 0; mode < 3; ++mode) {  // both rows, leaving only, entering only
                        std::mt19937 rng(seed++);
                        const int columns = std::max(pad, width);
                        TestPlane<uint16_t> leave(columns, 1, bits, content, rng, 0);
                        TestPlane<uint16_t> enter = leave;
                        std::vector<uint16_t> leave_mask(static_cast<std::size_t>(columns));
                        std::vector<uint16_t> enter_mask(static_cast<std::size_t>(columns));
                        const uint32_t max = (1u << bits) - 1;
                        for (int j = 0; j < columns; ++j) {
                            leave_mask[j] = static_cast<uint16_t>(rng() % 4 != 0);
                            enter_mask[j] = leave_mask[j];
                            if (rng() % 3 == 0) enter.row(0)[j] = static_cast<uint16_t>(rng() % (max + 1));
                            if (rng() % 3 == 0) enter_mask[j] = static_cast<uint16_t>(rng() % 2);
                        }
                        // a band of up to 40 levels; in half the cases the samples mostly inside it
                        const int band_base = static_cast<int>(rng() % (max / 2 + 1));
                        const int band_size = 1 + static_cast<int>(rng() % std::min<uint32_t>(max + 1, 40));
                        if (rng() % 2)
                            for (TestPlane<uint16_t>* plane : {&leave, &enter})
                                for (int j = 0; j < columns; ++j)
                                    plane->row(0)[j] = static_cast<uint16_t>(
                                        std::max(0, band_base - 2 + static_cast<int>(plane->row(0)[j] % (band_size + 4))));
                        std::vector<uint16_t> want(static_cast<std::size_t>(band_size) * width +
                                                   cambi::kHistogramSlack);
                        for (auto& h : want)
                            h = static_cast<uint16_t>(rng() % 5 == 0 ? (rng() % 2 ? 65535 - rng() % 40 : rng() % 40)
                                                                     : rng());
                        std::vector<uint16_t> have = want;
                        const auto row = [&](std::vector<uint16_t>& h) {
                            cambi::HistogramRow r{h.data(), width, pad, band_base, band_size, nullptr, nullptr,
                                                  nullptr, nullptr};
                            if (mode != 2) r.leave_image = leave.row(0), r.leave_mask = leave_mask.data();
                            if (mode != 1) r.enter_image = enter.row(0), r.enter_mask = enter_mask.data();
                            return r;
                        };
                        cambi::reference_histogram_row()(row(want));
                        cambi::simd_histogram_row()(row(have));
                        for (std::size_t i = 0; i < want.size(); ++i)
                            ASSERT_EQ(have[i], want[i])
                                << "level row " << i / width << ", column " << i % width << ", pad " << pad
                                << ", mode " << mode << ": " << describe({bits, width, 1, content, seed - 1});
                    }
                }
}

/// Decimation in place: a plane of 2 * height - 1 rows of 2 * width - 1 samples (strides a
/// little wider), ending where its last sample does.
void check_cambi_decimate() {
    unsigned seed = 14000;
    for (const int bits : kBitDepths)
        for (const Content content : kContents)
            for (const int width : widths_from(1))
                for (const int height : {1, 2, 3, 5}) {
                    std::mt19937 rng(seed++);
                    const int stride = 2 * width - 1 + static_cast<int>(rng() % 4);
                    TestPlane<uint16_t> plane(stride, 2 * height - 1, bits, content, rng, 0);
                    std::vector<uint16_t> want(plane.data.begin(),
                                               plane.data.end() - (stride - (2 * width - 1)));
                    std::vector<uint16_t> have = want;
                    cambi::reference_decimate()(want.data(), stride, width, height);
                    cambi::simd_decimate()(have.data(), stride, width, height);
                    ASSERT_EQ(have, want) << describe({bits, width, height, content, seed - 1});
                }
}

/// The mode filter in place on planes of odd and even heights (strides a little wider), the
/// ring of rows compared too.
void check_cambi_mode_filter() {
    unsigned seed = 15000;
    for (const int bits : kBitDepths)
        for (const Content content : kContents)
            for (const int width : widths_from(2))
                for (const int height : {1, 2, 3, 4, 7}) {
                    std::mt19937 rng(seed++);
                    const int slack = static_cast<int>(rng() % 4);
                    TestPlane<uint16_t> plane(width, height, bits, content, rng, slack);
                    // few distinct levels as well, so that every branch of the mode is taken
                    if (rng() % 2)
                        for (auto& v : plane.data) v = static_cast<uint16_t>(v % 3);
                    std::vector<uint16_t> want = plane.data, have = plane.data;
                    std::vector<uint16_t> want_rows(3 * static_cast<std::size_t>(width)), have_rows(want_rows.size());
                    cambi::reference_mode_filter()(want.data(), plane.stride, width, height, want_rows.data());
                    cambi::simd_mode_filter()(have.data(), plane.stride, width, height, have_rows.data());
                    ASSERT_EQ(have, want) << describe({bits, width, height, content, seed - 1});
                    ASSERT_EQ(have_rows, want_rows) << describe({bits, width, height, content, seed - 1});
                }
}

}  // namespace

VMAFX_SIMD_KERNELS(cambi,
                   {"cambi_histogram_row", cambi::simd_target, check_cambi_histogram_row},
                   {"cambi_decimate", cambi::simd_target, check_cambi_decimate},
                   {"cambi_mode_filter", cambi::simd_target, check_cambi_mode_filter});

}  // namespace vmafx
