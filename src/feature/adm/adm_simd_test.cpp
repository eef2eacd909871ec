// SIMD kernel rows: ADM (src/feature/adm/adm_simd.cpp against the reference row kernels of adm_reference.cpp)
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

#include "feature/adm/adm_kernels.hpp"
#include "feature/adm/adm_math.hpp"
#include "picture/picture.hpp"
#include "simd_kernels.hpp"

namespace vmafx {
namespace {

using namespace simd_test;

/// Level 0 vertical DWT of random sample rows (8 to 16 bits), with and without the high pass.
template <typename Sample>
void check_adm_dwt0_vertical() {
    for_cases(1, 1, [&](const Case& c) {
        if ((sizeof(Sample) == 1) != (c.bits == 8)) return;
        std::mt19937 rng(c.seed);
        const TestPlane<Sample> plane(c.width, 4, c.bits, c.content, rng, 0);
        for (const bool lo_only : {false, true}) {
            std::vector<int16_t> want_lo(c.width), want_hi(c.width, 7), have_lo(c.width), have_hi(c.width, 7);
            const auto run = [&](const adm::RowKernels& k, int16_t* lo, int16_t* hi) {
                if constexpr (sizeof(Sample) == 1)
                    k.dwt0_vertical_u8(plane.row(0), plane.row(1), plane.row(2), plane.row(3), c.width, c.bits, lo, hi);
                else
                    k.dwt0_vertical_u16(plane.row(0), plane.row(1), plane.row(2), plane.row(3), c.width, c.bits, lo, hi);
            };
            run(adm::reference_kernels(), want_lo.data(), lo_only ? nullptr : want_hi.data());
            run(adm::simd_kernels(), have_lo.data(), lo_only ? nullptr : have_hi.data());
            ASSERT_EQ(have_lo, want_lo) << describe(c);
            ASSERT_EQ(have_hi, want_hi) << describe(c) << (lo_only ? " (low pass only: high row untouched)" : "");
        }
    });
}

/// Level 0 horizontal DWT at outputs [1, end) of random 16-bit rows; outputs outside the
/// range must stay untouched.
void check_adm_dwt0_horizontal() {
    for_cases(1, 1, [&](const Case& c) {
        if (c.bits != 16) return;  // the input is signed 16-bit whatever the video's depth
        std::mt19937 rng(c.seed);
        const int end = c.width;
        const std::size_t n = 2 * static_cast<std::size_t>(end) + 1;  // inputs 2j-1 .. 2j+2, j < end
        const std::vector<int16_t> lo = random_row<int16_t>(n, c.content, rng);
        const std::vector<int16_t> hi = random_row<int16_t>(n, c.content, rng);
        for (const bool lo_only : {false, true}) {
            std::vector<int16_t> want[4], have[4];
            for (int b = 0; b < 4; ++b) want[b] = have[b] = std::vector<int16_t>(end + 1, static_cast<int16_t>(-7));
            adm::reference_kernels().dwt0_horizontal(lo.data(), hi.data(), end, want[0].data(),
                                                     lo_only ? nullptr : want[1].data(), want[2].data(), want[3].data());
            adm::simd_kernels().dwt0_horizontal(lo.data(), hi.data(), end, have[0].data(),
                                                lo_only ? nullptr : have[1].data(), have[2].data(), have[3].data());
            for (int b = 0; b < 4; ++b) ASSERT_EQ(have[b], want[b]) << describe(c) << ", band " << b;
        }
    });
}

/// The (round, shift) pairs of the levels 1..3 passes (kDwtRoundV/kDwtShiftV, kDwtRoundH/
/// kDwtShiftH) and the limits of the kernels' contract.
constexpr std::pair<std::int64_t, std::uint32_t> kDwtRounding[] = {{0, 0}, {32768, 16}, {16384, 15}, {32768, 16},
                                                                   {1, 1}, {0, 16}};

/// Levels 1..3 vertical DWT of random 16-bit (level 1) or 32-bit rows.
template <typename In>
void check_adm_dwt_vertical() {
    for_cases(1, 1, [&](const Case& c) {
        if (c.bits != 16) return;
        std::mt19937 rng(c.seed);
        std::vector<In> rows[4];
        for (auto& r : rows) r = random_row<In>(c.width, c.content, rng);
        for (const auto& rounding : kDwtRounding) {
            const std::int64_t round = rounding.first;  // not a structured binding: the lambda
            const std::uint32_t shift = rounding.second;  // below captures them (clang 14)
            std::vector<int32_t> want_lo(c.width), want_hi(c.width), have_lo(c.width), have_hi(c.width);
            const auto run = [&](const adm::RowKernels& k, int32_t* lo, int32_t* hi) {
                if constexpr (sizeof(In) == 2)
                    k.dwt_vertical_s16(rows[0].data(), rows[1].data(), rows[2].data(), rows[3].data(), c.width, round,
                                       shift, lo, hi);
                else
                    k.dwt_vertical_s32(rows[0].data(), rows[1].data(), rows[2].data(), rows[3].data(), c.width, round,
                                       shift, lo, hi);
            };
            run(adm::reference_kernels(), want_lo.data(), want_hi.data());
            run(adm::simd_kernels(), have_lo.data(), have_hi.data());
            ASSERT_EQ(have_lo, want_lo) << describe(c) << ", round " << round << ", shift " << shift;
            ASSERT_EQ(have_hi, want_hi) << describe(c) << ", round " << round << ", shift " << shift;
        }
    });
}

/// Levels 1..3 horizontal DWT at outputs [1, end) of random 32-bit rows.
void check_adm_dwt_horizontal() {
    for_cases(1, 1, [&](const Case& c) {
        if (c.bits != 16) return;
        std::mt19937 rng(c.seed);
        const int end = c.width;
        const std::size_t n = 2 * static_cast<std::size_t>(end) + 1;
        const std::vector<int32_t> lo = random_row<int32_t>(n, c.content, rng);
        const std::vector<int32_t> hi = random_row<int32_t>(n, c.content, rng);
        for (const auto& rounding : kDwtRounding) {
            const std::int64_t round = rounding.first;  // not a structured binding: the lambda
            const std::uint32_t shift = rounding.second;  // below captures them (clang 14)
            std::vector<int32_t> want[4], have[4];
            for (int b = 0; b < 4; ++b) want[b] = have[b] = std::vector<int32_t>(end + 1, -7);
            adm::reference_kernels().dwt_horizontal(lo.data(), hi.data(), end, round, shift, want[0].data(),
                                                    want[1].data(), want[2].data(), want[3].data());
            adm::simd_kernels().dwt_horizontal(lo.data(), hi.data(), end, round, shift, have[0].data(), have[1].data(),
                                               have[2].data(), have[3].data());
            for (int b = 0; b < 4; ++b)
                ASSERT_EQ(have[b], want[b]) << describe(c) << ", band " << b << ", round " << round << ", shift " << shift;
        }
    });
}

void check_adm_decouple0_same() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        const auto oh = random_row<int16_t>(width, content, rng), ov = random_row<int16_t>(width, content, rng);
        const auto th = random_row<int16_t>(width, content, rng), tv = random_row<int16_t>(width, content, rng);
        const int begin = static_cast<int>(rng() % 3) % width;
        std::vector<int32_t> want(width, 5), have(width, 5);
        adm::reference_kernels().decouple0_same(oh.data(), ov.data(), th.data(), tv.data(), begin, width, want.data());
        adm::simd_kernels().decouple0_same(oh.data(), ov.data(), th.data(), tv.data(), begin, width, have.data());
        ASSERT_EQ(have, want) << "width " << width;
        // Identical and opposite directions too (the boundary cases of the test).
        adm::reference_kernels().decouple0_same(oh.data(), ov.data(), oh.data(), ov.data(), begin, width, want.data());
        adm::simd_kernels().decouple0_same(oh.data(), ov.data(), oh.data(), ov.data(), begin, width, have.data());
        ASSERT_EQ(have, want) << "width " << width << " (same directions)";
    });
}

void check_adm_decouple0_integer_gain() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        const auto o = random_row<int16_t>(width, content, rng);
        auto t = random_row<int16_t>(width, content, rng);
        for (int j = 0; j < width; ++j)
            if (rng() % 4 == 0) t[j] = static_cast<int16_t>(o[j] / 2 + static_cast<int>(rng() % 5) - 2);  // k in (0, 1)
        std::vector<int32_t> same(width);
        for (int32_t& v : same) v = rng() % 2 ? -1 : 0;
        const int begin = static_cast<int>(rng() % 3) % width;
        for (const int32_t egl : {1, 100, 2, 7}) {
            std::vector<int16_t> want_r(width, 5), want_a(width, 5), have_r(width, 5), have_a(width, 5);
            adm::reference_kernels().decouple0_integer_gain(o.data(), t.data(), same.data(), begin, width, egl,
                                                            want_r.data(), want_a.data());
            adm::simd_kernels().decouple0_integer_gain(o.data(), t.data(), same.data(), begin, width, egl,
                                                       have_r.data(), have_a.data());
            ASSERT_EQ(have_r, want_r) << "width " << width << ", egl " << egl;
            ASSERT_EQ(have_a, want_a) << "width " << width << ", egl " << egl;
        }
    });
}

void check_adm_csf0() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        const auto src = random_row<int16_t>(width, content, rng);
        const int begin = static_cast<int>(rng() % 3) % width;
        for (int theta = 0; theta < 3; ++theta)
            for (const int32_t wt : {static_cast<int32_t>(rng() % 65536), 65535, 1, 0}) {
                const int cut = begin + static_cast<int>(rng() % (width - begin + 1));
                std::vector<int16_t> want_d(width, 5), want_f(width, 5), have_d(width, 5), have_f(width, 5);
                adm::reference_kernels().csf0(src.data(), begin, cut, width, wt, theta, want_d.data(), want_f.data());
                adm::simd_kernels().csf0(src.data(), begin, cut, width, wt, theta, have_d.data(), have_f.data());
                ASSERT_EQ(have_d, want_d) << "width " << width << ", theta " << theta << ", weight " << wt << ", cut " << cut;
                ASSERT_EQ(have_f, want_f) << "width " << width << ", theta " << theta << ", weight " << wt << ", cut " << cut;
            }
    });
}

void check_adm_den0_row() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        const auto x = random_row<int16_t>(width, content, rng);
        const int begin = static_cast<int>(rng() % 3) % width;
        ASSERT_EQ(adm::simd_kernels().den0_row(x.data(), begin, width),
                  adm::reference_kernels().den0_row(x.data(), begin, width))
            << "width " << width;
    });
}

void check_adm_cm0_threshold() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        std::vector<int16_t> rows[9];
        const int16_t* ptrs[9];
        for (int r = 0; r < 9; ++r) {
            rows[r] = random_row<int16_t>(width, content, rng);
            ptrs[r] = rows[r].data();
        }
        const int begin = static_cast<int>(rng() % 3) % width;
        std::vector<int32_t> want(width, 5), have(width, 5);
        adm::reference_kernels().cm0_colsum(ptrs, begin, width, want.data());
        adm::simd_kernels().cm0_colsum(ptrs, begin, width, have.data());
        ASSERT_EQ(have, want) << "colsum, width " << width;
        if (width < 3) return;
        // The ring over random column sums (any 32-bit values), then the centre terms.
        std::vector<int32_t> colsum(width);
        for (int32_t& v : colsum) v = static_cast<int32_t>(rng());
        std::fill(want.begin(), want.end(), 5);
        std::fill(have.begin(), have.end(), 5);
        adm::reference_kernels().cm0_ring(colsum.data(), ptrs[0], ptrs[1], ptrs[2], 1, width - 1, want.data());
        adm::simd_kernels().cm0_ring(colsum.data(), ptrs[0], ptrs[1], ptrs[2], 1, width - 1, have.data());
        ASSERT_EQ(have, want) << "ring, width " << width;
        const int cut = begin + static_cast<int>(rng() % (width - begin + 1));
        adm::reference_kernels().cm0_centre(ptrs[3], ptrs[4], ptrs[5], begin, cut, width, want.data());
        adm::simd_kernels().cm0_centre(ptrs[3], ptrs[4], ptrs[5], begin, cut, width, have.data());
        ASSERT_EQ(have, want) << "centre, width " << width << ", cut " << cut;
    });
}

void check_adm_cm0_row() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        const auto x = random_row<int16_t>(width, content, rng);
        std::vector<int32_t> thr(width);
        for (int32_t& v : thr) {
            switch (rng() % 3) {
            case 0: v = static_cast<int32_t>(rng()); break;  // any 32-bit threshold
            case 1: v = static_cast<int32_t>(rng() % 4096); break;
            default: v = 0; break;
            }
        }
        const int begin = static_cast<int>(rng() % 3) % width;
        for (int theta = 0; theta < 3; ++theta)
            for (const int32_t wt : {static_cast<int32_t>(rng() % 65536), 65535, 1}) {
                // A cube term is below 2^62 >> scub: a shift of at least the width's bit count
                // keeps the reference's int64 row sum from overflowing (undefined behaviour).
                const uint32_t scub = static_cast<uint32_t>(std::bit_width(static_cast<unsigned>(width))) + rng() % 8;
                const int64_t rcub = int64_t{1} << (scub - 1);
                ASSERT_EQ(adm::simd_kernels().cm0_row(x.data(), thr.data(), begin, width, wt, theta, rcub, scub),
                          adm::reference_kernels().cm0_row(x.data(), thr.data(), begin, width, wt, theta, rcub, scub))
                    << "width " << width << ", theta " << theta << ", weight " << wt << ", shift " << scub;
            }
    });
}

/// A random row of 32-bit band values (levels 1..3) of at most `bits` significant bits: the
/// random_row values shifted down (arithmetically) by 32 - bits.
std::vector<int32_t> band_row(std::size_t n, Content content, int bits, std::mt19937& rng) {
    std::vector<int32_t> out = random_row<int32_t>(n, content, rng);
    if (bits < 32)
        for (int32_t& v : out) v >>= 32 - bits;
    return out;
}

/// Band magnitudes the level 1..3 kernels see: small, typical, at the SIMD decouple's exact
/// limit (2^26) and full 32-bit.
constexpr int kBandBits[] = {8, 20, 27, 32};

void check_adm_decouple_row() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        for (const int bits : kBandBits) {
            std::vector<int32_t> o[3], t[3];
            for (int theta = 0; theta < 3; ++theta) {
                o[theta] = band_row(width, content, bits, rng);
                t[theta] = band_row(width, content, bits, rng);
            }
            // Some columns where t is a multiple or a part of o in every orientation (same
            // directions, gains above and below 1), or o is 0.
            for (int j = 0; j < width; ++j) {
                const unsigned kind = rng() % 6;
                for (int theta = 0; theta < 3; ++theta) {
                    const int64_t ov = o[theta][j];
                    if (kind == 0) t[theta][j] = static_cast<int32_t>(ov / 2 + static_cast<int>(rng() % 5) - 2);
                    if (kind == 1) t[theta][j] = static_cast<int32_t>(std::clamp<int64_t>(ov * 3, INT32_MIN, INT32_MAX));
                    if (kind == 2) t[theta][j] = o[theta][j];
                    if (kind == 3 && rng() % 2) o[theta][j] = 0;
                }
            }
            const int32_t* op[3] = {o[0].data(), o[1].data(), o[2].data()};
            const int32_t* tp[3] = {t[0].data(), t[1].data(), t[2].data()};
            const int begin = static_cast<int>(rng() % 3) % width;
            for (const int32_t egl : {1, 100, 2, 7}) {
                std::vector<int32_t> want[6], have[6];
                for (int k = 0; k < 6; ++k) {
                    want[k].assign(width, 5);
                    have[k].assign(width, 5);
                }
                int32_t* wr[3] = {want[0].data(), want[1].data(), want[2].data()};
                int32_t* wa[3] = {want[3].data(), want[4].data(), want[5].data()};
                int32_t* hr[3] = {have[0].data(), have[1].data(), have[2].data()};
                int32_t* ha[3] = {have[3].data(), have[4].data(), have[5].data()};
                adm::reference_kernels().decouple_row(op, tp, begin, width, egl, wr, wa);
                adm::simd_kernels().decouple_row(op, tp, begin, width, egl, hr, ha);
                for (int k = 0; k < 6; ++k)
                    ASSERT_EQ(have[k], want[k]) << "width " << width << ", bits " << bits << ", egl " << egl
                                                << ", output " << k;
            }
        }
    });
}

void check_adm_csf_row() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        for (const int bits : kBandBits) {
            const auto src = band_row(width, content, bits, rng);
            const int begin = static_cast<int>(rng() % 3) % width;
            for (const uint32_t wt : {static_cast<uint32_t>(rng()), 0x80000000u, 0xFFFFFFFFu, 0x10000000u, 1u, 0u}) {
                const int cut = begin + static_cast<int>(rng() % (width - begin + 1));
                std::vector<int32_t> want_d(width, 5), want_f(width, 5), have_d(width, 5), have_f(width, 5);
                adm::reference_kernels().csf_row(src.data(), begin, cut, width, wt, want_d.data(), want_f.data());
                adm::simd_kernels().csf_row(src.data(), begin, cut, width, wt, have_d.data(), have_f.data());
                ASSERT_EQ(have_d, want_d) << "width " << width << ", bits " << bits << ", weight " << wt << ", cut " << cut;
                ASSERT_EQ(have_f, want_f) << "width " << width << ", bits " << bits << ", weight " << wt << ", cut " << cut;
            }
        }
    });
}

void check_adm_den_row() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        for (const int bits : kBandBits) {
            const auto x = band_row(width, content, bits, rng);
            const int begin = static_cast<int>(rng() % 3) % width;
            for (const int shift_sq : {31, 30, static_cast<int>(rng() % 32)}) {
                const uint64_t round_sq = rng() % 2 ? uint64_t{1} << shift_sq : (uint64_t{rng()} << 32 | rng());
                const uint32_t cub_shift = 1 + rng() % 20;
                const uint64_t cub_round = uint64_t{1} << (cub_shift - 1);
                ASSERT_EQ(adm::simd_kernels().den_row(x.data(), begin, width, round_sq, shift_sq, cub_round, cub_shift),
                          adm::reference_kernels().den_row(x.data(), begin, width, round_sq, shift_sq, cub_round,
                                                           cub_shift))
                    << "width " << width << ", bits " << bits << ", shifts " << shift_sq << ", " << cub_shift;
            }
        }
    });
}

void check_adm_cm_threshold() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        for (const int bits : kBandBits) {
            std::vector<int32_t> rows[9];
            const int32_t* ptrs[9];
            for (int r = 0; r < 9; ++r) {
                rows[r] = band_row(width, content, bits, rng);
                ptrs[r] = rows[r].data();
            }
            const int begin = static_cast<int>(rng() % 3) % width;
            std::vector<int64_t> want(width, 5), have(width, 5);
            adm::reference_kernels().cm_colsum(ptrs, begin, width, want.data());
            adm::simd_kernels().cm_colsum(ptrs, begin, width, have.data());
            ASSERT_EQ(have, want) << "colsum, width " << width << ", bits " << bits;
            if (width < 3) return;
            // Column sums of 9 values below 2^31 each, then the ring and the centre terms.
            std::vector<int64_t> colsum(width);
            for (int64_t& v : colsum) v = static_cast<int64_t>(static_cast<int32_t>(rng())) * 9;
            std::fill(want.begin(), want.end(), 5);
            std::fill(have.begin(), have.end(), 5);
            const int32_t* f[3] = {ptrs[0], ptrs[1], ptrs[2]};
            const int32_t* c[3] = {ptrs[3], ptrs[4], ptrs[5]};
            adm::reference_kernels().cm_threshold(colsum.data(), f, c, 1, width - 1, want.data());
            adm::simd_kernels().cm_threshold(colsum.data(), f, c, 1, width - 1, have.data());
            ASSERT_EQ(have, want) << "threshold, width " << width << ", bits " << bits;
        }
    });
}

void check_adm_cm_row() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        for (const int bits : kBandBits) {
            const auto x = band_row(width, content, bits, rng);
            std::vector<int64_t> thr(width);
            for (int64_t& v : thr) {
                switch (rng() % 4) {
                case 0: v = static_cast<int64_t>(static_cast<int32_t>(rng())) * 27; break;  // any threshold
                case 1: v = static_cast<int64_t>(rng() % 4096); break;
                case 2: v = static_cast<int64_t>(rng() % (uint32_t{1} << (bits - 1))); break;
                default: v = 0; break;
                }
            }
            const int begin = static_cast<int>(rng() % 3) % width;
            for (const uint32_t wt : {static_cast<uint32_t>(rng()), 0x80000000u, 0xFFFFFFFFu, 0x10000000u, 1u}) {
                const int cut = begin + static_cast<int>(rng() % (width - begin + 1));
                // A cube term is below 2^62 >> scub: a shift of at least the width's bit count
                // keeps the reference's int64 row sum from overflowing (undefined behaviour).
                const uint32_t scub = static_cast<uint32_t>(std::bit_width(static_cast<unsigned>(width))) + rng() % 8;
                const int64_t rcub = int64_t{1} << (scub - 1);
                ASSERT_EQ(adm::simd_kernels().cm_row(x.data(), thr.data(), begin, cut, width, wt, rcub, scub),
                          adm::reference_kernels().cm_row(x.data(), thr.data(), begin, cut, width, wt, rcub, scub))
                    << "width " << width << ", bits " << bits << ", weight " << wt << ", cut " << cut << ", shift "
                    << scub;
            }
        }
    });
}

}  // namespace

VMAFX_SIMD_KERNELS(adm,
                   {"adm_dwt0_vertical_u8", adm::simd_target, check_adm_dwt0_vertical<uint8_t>},
                   {"adm_dwt0_vertical_u16", adm::simd_target, check_adm_dwt0_vertical<uint16_t>},
                   {"adm_dwt0_horizontal", adm::simd_target, check_adm_dwt0_horizontal},
                   {"adm_dwt_vertical_s16", adm::simd_target, check_adm_dwt_vertical<int16_t>},
                   {"adm_dwt_vertical_s32", adm::simd_target, check_adm_dwt_vertical<int32_t>},
                   {"adm_dwt_horizontal", adm::simd_target, check_adm_dwt_horizontal},
                   {"adm_decouple0_same", adm::simd_target, check_adm_decouple0_same},
                   {"adm_decouple0_integer_gain", adm::simd_target, check_adm_decouple0_integer_gain},
                   {"adm_csf0", adm::simd_target, check_adm_csf0},
                   {"adm_den0_row", adm::simd_target, check_adm_den0_row},
                   {"adm_cm0_colsum_ring_centre", adm::simd_target, check_adm_cm0_threshold},
                   {"adm_cm0_row", adm::simd_target, check_adm_cm0_row},
                   {"adm_decouple_row", adm::simd_target, check_adm_decouple_row},
                   {"adm_csf_row", adm::simd_target, check_adm_csf_row},
                   {"adm_den_row", adm::simd_target, check_adm_den_row},
                   {"adm_cm_colsum_threshold", adm::simd_target, check_adm_cm_threshold},
                   {"adm_cm_row", adm::simd_target, check_adm_cm_row});

}  // namespace vmafx
