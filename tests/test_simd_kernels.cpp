// Checkasm-style test of every SIMD kernel (docs/design.md, "SIMD convention"): each kernel's
// dispatched entry, run on every Highway target that is compiled in and that this CPU supports
// (hwy::SetSupportedTargetsForTest narrows the dispatch to one target at a time), against its
// scalar reference, bit for bit, on random planes at 8, 10, 12 and 16 bits, every width from the
// kernel's smallest to 70 and some larger ones, odd heights, with the mirrored borders the frame
// drivers give, and edge values (extremes, zeros, the thresholds the arithmetic branches on).
// VIF's kernels may read 32 samples past a row: their rows carry that much random junk. The
// others may read nothing past a row: theirs are allocated to the row's exact length, so
// AddressSanitizer (the sanitizer build of this test) sees any read beyond it.
//
// Adding a kernel: add a row to kKernels below (its name, the probe saying which target its
// file dispatches to, and a check that runs the scalar reference and the dispatched entry on
// the same input and compares every output); plant a defect once to see the row fail.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include "feature/adm/adm_kernels.hpp"
#include "feature/adm/adm_math.hpp"
#include "feature/cambi/cambi_kernels.hpp"
#include "feature/float_adm/float_adm_kernels.hpp"
#include "feature/float_vif/float_image.hpp"
#include "feature/float_vif/float_image_kernels.hpp"
#include "feature/motion/motion_kernels.hpp"
#include "feature/motion/motion_math.hpp"
#include "feature/speed/speed_kernels.hpp"
#include "feature/vif/vif_kernels.hpp"
#include "feature/vif/vif_math.hpp"
#include "picture/picture.hpp"

namespace vmafx {
namespace {

using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint8_t;

constexpr int kBitDepths[] = {8, 10, 12, 16};

/// Widths from `smallest` to 70, then some larger ones (around multiples of every vector
/// length, and an odd large one).
std::vector<int> widths_from(int smallest) {
    std::vector<int> out;
    for (int w = std::max(smallest, 1); w <= 70; ++w) out.push_back(w);
    for (int w : {95, 96, 97, 127, 128, 129, 255, 256, 257, 641}) out.push_back(w);
    return out;
}

/// Content of a random plane: how its samples are drawn.
enum class Content { kUniform, kExtremes, kSmooth, kFlatWithSpikes };
constexpr Content kContents[] = {Content::kUniform, Content::kExtremes, Content::kSmooth, Content::kFlatWithSpikes};

/// A plane of `width` x `height` samples of type T below 2^bits, each row followed by `slack`
/// samples of random junk (what a kernel may read past the row but must ignore); the last row's
/// slack ends the allocation, so AddressSanitizer sees any read beyond it.
template <typename T>
struct TestPlane {
    int width, height, stride;
    std::vector<T> data;

    TestPlane(int w, int h, int bits, Content content, std::mt19937& rng, int slack = 32)
        : width(w), height(h), stride(w + slack), data(static_cast<std::size_t>(stride) * h) {
        const uint32_t max = (1u << bits) - 1;
        std::uniform_int_distribution<uint32_t> any(0, max);
        std::uniform_int_distribution<uint32_t> junk(0, sizeof(T) == 1 ? 255 : 65535);
        const uint32_t base = any(rng);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < stride; ++x) {
                uint32_t v = 0;
                if (x >= w) {
                    v = junk(rng);
                } else {
                    switch (content) {
                    case Content::kUniform: v = any(rng); break;
                    case Content::kExtremes: v = rng() % 2 ? max : 0; break;
                    case Content::kSmooth: v = std::min<uint32_t>(max, (base + x * 3 + y * 5) % (max + 1) + rng() % 3); break;
                    case Content::kFlatWithSpikes: v = rng() % 13 == 0 ? any(rng) : base; break;
                    }
                }
                data[static_cast<std::size_t>(y) * stride + x] = static_cast<T>(v);
            }
    }
    const T* row(int y) const { return data.data() + static_cast<std::size_t>(y) * stride; }
    T* row(int y) { return data.data() + static_cast<std::size_t>(y) * stride; }
};

/// The seed of one case, so that a failure names what to replay.
struct Case {
    int bits;
    int width;
    int height;
    Content content;
    unsigned seed;
};

std::string describe(const Case& c) {
    return "bits " + std::to_string(c.bits) + ", " + std::to_string(c.width) + "x" + std::to_string(c.height) +
           ", content " + std::to_string(static_cast<int>(c.content)) + ", seed " + std::to_string(c.seed);
}

// ---------------------------------------------------------------------------------------------
// VIF (src/feature/vif/vif_simd.cpp against the reference kernels of vif.cpp)

/// Runs `body(case)` over bit depths, contents and the widths from `smallest`, with one odd
/// height per case.
void for_cases(int smallest, int min_height, const std::function<void(const Case&)>& body) {
    unsigned seed = 1;
    for (const int bits : kBitDepths)
        for (const Content content : kContents)
            for (const int width : widths_from(smallest)) {
                const int height = min_height + 2 * static_cast<int>(seed % 3);  // odd when min_height is
                body({bits, width, height, content, seed++});
                if (::testing::Test::HasFailure()) return;  // one failing case is enough to read
            }
}

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

// ---------------------------------------------------------------------------------------------
// ADM (src/feature/adm/adm_simd.cpp against the reference row kernels of adm_pipeline.cpp)

/// Random values of type T: uniform over the type, extremes, small, or around one value.
template <typename T>
std::vector<T> random_row(std::size_t n, Content content, std::mt19937& rng) {
    using Limits = std::numeric_limits<T>;
    std::vector<T> out(n);
    const T base = static_cast<T>(rng());
    for (T& v : out) {
        switch (content) {
        case Content::kUniform: v = static_cast<T>(rng()); break;
        case Content::kExtremes: v = rng() % 3 == 0 ? Limits::min() : (rng() % 2 ? Limits::max() : T{0}); break;
        case Content::kSmooth: v = static_cast<T>(static_cast<int>(rng() % 64) - 32); break;
        case Content::kFlatWithSpikes: v = rng() % 13 == 0 ? static_cast<T>(rng()) : base; break;
        }
    }
    return out;
}

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

/// Runs body(width, rng, content) over every width from 1 to 70 and the larger ones, for each
/// content (the level 0 kernels of decouple, CSF, denominator and masking take 16-bit inputs
/// whatever the video's bit depth).
void for_rows(const std::function<void(int, std::mt19937&, Content)>& body) {
    unsigned seed = 5000;
    for (const Content content : kContents)
        for (const int width : widths_from(1)) {
            std::mt19937 rng(seed++);
            body(width, rng, content);
            if (::testing::Test::HasFailure()) return;
        }
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

// ---------------------------------------------------------------------------------------------
// Motion (src/feature/motion/motion_simd.cpp against the reference row kernels of motion.cpp)

/// Every row of the vertical blur of the difference of two random planes, rows mirrored as
/// the frame driver does.
template <typename Sample>
void check_motion_vertical() {
    for_cases(1, motion::kRadius + 1, [&](const Case& c) {
        if ((sizeof(Sample) == 1) != (c.bits == 8)) return;
        std::mt19937 rng(c.seed);
        const TestPlane<Sample> prev(c.width, c.height, c.bits, c.content, rng, 0);
        TestPlane<Sample> cur(c.width, c.height, c.bits, c.content, rng, 0);
        for (int y = 0; y < c.height; ++y)  // sometimes equal rows (an all-zero blur)
            if (rng() % 3 == 0) std::copy(prev.row(y), prev.row(y) + c.width, cur.row(y));
        std::vector<int32_t> want(c.width, 5), have(c.width, 5);
        for (int i = 0; i < c.height; ++i) {
            const Sample* p[5];
            const Sample* q[5];
            for (int k = 0; k < 5; ++k) {
                const int r = motion::mirror(i - motion::kRadius + k, c.height);
                p[k] = prev.row(r);
                q[k] = cur.row(r);
            }
            int32_t want_any = 0, have_any = 0;
            if constexpr (sizeof(Sample) == 1) {
                want_any = motion::reference_kernels().vertical_u8(p, q, c.width, c.bits, want.data());
                have_any = motion::simd_kernels().vertical_u8(p, q, c.width, c.bits, have.data());
            } else {
                want_any = motion::reference_kernels().vertical_u16(p, q, c.width, c.bits, want.data());
                have_any = motion::simd_kernels().vertical_u16(p, q, c.width, c.bits, have.data());
            }
            ASSERT_EQ(have, want) << describe(c) << ", row " << i;
            ASSERT_EQ(have_any == 0, want_any == 0) << describe(c) << ", row " << i;
        }
    });
}

/// The row sums of |horizontal blur| of random vertically blurred rows (any 32-bit values:
/// the lane columns' products wrap as upstream's).
void check_motion_row_sad() {
    for_rows([](int width, std::mt19937& rng, Content content) {
        if (width < motion::kRadius + 1) return;
        std::vector<int32_t> y(width);
        const int32_t base = static_cast<int32_t>(rng());
        for (int32_t& v : y) {
            switch (content) {
            case Content::kUniform: v = static_cast<int32_t>(rng()); break;
            case Content::kExtremes: v = rng() % 2 ? 2147483647 : -2147483647 - 1; break;
            case Content::kSmooth: v = static_cast<int32_t>(rng() % 2001) - 1000; break;  // in-range samples
            case Content::kFlatWithSpikes: v = rng() % 13 == 0 ? static_cast<int32_t>(rng()) : base; break;
            }
        }
        ASSERT_EQ(motion::simd_kernels().row_sad(y.data(), width), motion::reference_kernels().row_sad(y.data(), width))
            << "width " << width;
    });
}

// ---------------------------------------------------------------------------------------------
// The float convolution (float_vif, float_motion, speed_chroma / speed_temporal, ...).

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

// ---------------------------------------------------------------------------------------------
// CAMBI (src/feature/cambi/cambi_simd.cpp against the reference kernels of cambi.cpp)

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

// ---------------------------------------------------------------------------------------------
// float_adm's decouple row (src/feature/float_adm/float_adm_simd.cpp against decouple_pixel)

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

// ---------------------------------------------------------------------------------------------
// The table of kernels.

struct Kernel {
    const char* name;
    /// The Highway target the kernel's file dispatches to now.
    int64_t (*target)();
    /// Runs the scalar reference and the dispatched entry on the same inputs; fails on any
    /// differing output.
    void (*check)();
};

const Kernel kKernels[] = {
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
    {"vif_frames", vif::simd_target, check_vif_frames},
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
    {"adm_cm_row", adm::simd_target, check_adm_cm_row},
    {"motion_vertical_u8", motion::simd_target, check_motion_vertical<uint8_t>},
    {"motion_vertical_u16", motion::simd_target, check_motion_vertical<uint16_t>},
    {"motion_row_sad", motion::simd_target, check_motion_row_sad},
    {"float_convolve_plain", floatimg::simd_target, [] { check_float_convolve(floatimg::Product::kPlain); }},
    {"float_convolve_square", floatimg::simd_target, [] { check_float_convolve(floatimg::Product::kSquare); }},
    {"float_convolve_cross", floatimg::simd_target, [] { check_float_convolve(floatimg::Product::kCross); }},
    {"speed_covariance_sum", speed::simd_target, check_speed_covariance},
    {"float_adm_decouple_row", float_adm::simd_target, check_float_adm_decouple},
    {"cambi_histogram_row", cambi::simd_target, check_cambi_histogram_row},
    {"cambi_decimate", cambi::simd_target, check_cambi_decimate},
    {"cambi_mode_filter", cambi::simd_target, check_cambi_mode_filter},
};

// ---------------------------------------------------------------------------------------------
// One test per (target, kernel).

/// Every target compiled in and supported by this CPU (before any narrowing).
const std::vector<int64_t>& targets() {
    static const std::vector<int64_t> all = hwy::SupportedAndGeneratedTargets();
    return all;
}

class SimdKernels : public ::testing::TestWithParam<std::tuple<int64_t, int>> {
protected:
    void SetUp() override {
        targets();  // listed before narrowing
        hwy::SetSupportedTargetsForTest(std::get<0>(GetParam()));
        hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    }
    void TearDown() override {
        hwy::SetSupportedTargetsForTest(0);
        hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    }
};

TEST_P(SimdKernels, MatchesScalarReference) {
    const auto [target, index] = GetParam();
    const Kernel& kernel = kKernels[index];
    // The dispatch must reach the target under test, or the test would compare another one.
    ASSERT_EQ(kernel.target(), target) << "dispatched to " << hwy::TargetName(kernel.target()) << ", not "
                                       << hwy::TargetName(target);
    kernel.check();
}

INSTANTIATE_TEST_SUITE_P(AllTargets, SimdKernels,
                         ::testing::Combine(::testing::ValuesIn(targets()),
                                            ::testing::Range(0, static_cast<int>(std::size(kKernels)))),
                         [](const ::testing::TestParamInfo<SimdKernels::ParamType>& info) {
                             return std::string(hwy::TargetName(std::get<0>(info.param))) + "_" +
                                    kKernels[std::get<1>(info.param)].name;
                         });

// The table covers every target of this build that the CPU runs; a build where only the
// scalar reference would run tests nothing and says so.
TEST(SimdKernelsTargets, SomeTargetRuns) {
    ASSERT_FALSE(targets().empty());
    std::string names;
    for (const int64_t t : targets()) names += std::string(" ") + hwy::TargetName(t);
    RecordProperty("targets", names);
    std::printf("targets compiled in and supported here:%s\n", names.c_str());
}

}  // namespace
}  // namespace vmafx
