// The CUDA twin's pooling selection (cambi_select.hpp: the parallel rounds its kernels take)
// against the CPU's quick_select (cambi_contrast.cpp, through spatial_pooling, which reorders its
// array as quick_select leaves it): the permuted arrays must be equal element for element, bit
// for bit, and so the pooled means. Exhaustive small arrays over small alphabets, random floats,
// ties, zeros, two values, sorted and reverse sorted arrays, chunks of 1 position up to the
// kernels' own and finish_kernel's shares of each round's range, rounds cut short and ended by
// select_finish (the state they leave is quick_select's), and the CPU's own c values of banded
// pictures at every scale. Runs without a GPU.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "feature/cambi/cambi.hpp"
#include "feature/cambi/cambi_internal.hpp"
#include "feature/cambi/cambi_kernels.hpp"
#include "feature/cambi/cambi_select.hpp"
#include "pictures.hpp"

namespace vmafx {
namespace {

using namespace cambi;

// The CPU's selection of the k largest of v (1 <= k <= n): spatial_pooling with the topk that
// gives k, on one row; returns its mean (arr: reordered).
double cpu_select(std::vector<float>& arr, int k) {
    const int n = static_cast<int>(arr.size());
    return spatial_pooling(arr.data(), (k + 0.5) / n, n, 1);
}

// The twin's rounds (chunks of `chunk`, at most max_rounds, then select_finish), its mean of the
// first k in order as the CPU sums them.
double twin_select(std::vector<float>& arr, int k, int chunk, int max_rounds, int* rounds = nullptr) {
    const int n = static_cast<int>(arr.size());
    SelectState s = select_rounds(arr.data(), n, select_start(n, k), chunk, max_rounds);
    if (rounds) *rounds = s.rounds;
    select_finish(arr.data(), s);
    EXPECT_TRUE(select_done(s));
    double sum = 0;
    for (int i = 0; i < k; ++i) sum += arr[static_cast<std::size_t>(i)];
    return sum / k;
}

// Checks one array at one k with one chunk size and round limit; returns whether equal.
bool same(const std::vector<float>& values, int k, int chunk, int max_rounds, const std::string& what) {
    std::vector<float> cpu = values, twin = values;
    const double want = cpu_select(cpu, k);
    const double got = twin_select(twin, k, chunk, max_rounds);
    const bool equal = std::memcmp(cpu.data(), twin.data(), cpu.size() * sizeof(float)) == 0 &&
                       std::memcmp(&want, &got, sizeof want) == 0;
    if (!equal) {
        std::string text;
        if (values.size() <= 60) {
            for (float v : values) text += std::to_string(v) + " ";
            text += "-> cpu ";
            for (float v : cpu) text += std::to_string(v) + " ";
            text += "twin ";
            for (float v : twin) text += std::to_string(v) + " ";
        }
        ADD_FAILURE() << what << ": n " << values.size() << ", k " << k << ", chunk (or -shares) " << chunk << ", rounds "
                      << max_rounds << ": " << text;
    }
    return equal;
}

constexpr int kAll = 1 << 17;  // rounds: more than any array here needs (each shrinks the range)

TEST(CambiSelect, EveryArrayOfUpToNineValuesOverThreeLevels) {
    const float levels[3] = {0.0f, 0.5f, 2.0f};
    int failures = 0, checked = 0;
    for (int n = 1; n <= 9 && failures < 5; ++n) {
        int total = 1;
        for (int i = 0; i < n; ++i) total *= 3;
        std::vector<float> v(static_cast<std::size_t>(n));
        for (int code = 0; code < total && failures < 5; ++code) {
            for (int i = 0, c = code; i < n; ++i, c /= 3) v[static_cast<std::size_t>(i)] = levels[c % 3];
            for (int k = 1; k <= n; ++k)
                for (int chunk : {1, 2, 3, kSelectChunk, -2}) {
                    failures += !same(v, k, chunk, kAll, "three levels");
                    ++checked;
                }
        }
    }
    EXPECT_EQ(failures, 0);
    EXPECT_GT(checked, 700000);
}

TEST(CambiSelect, RandomSmallArraysEveryK) {
    std::mt19937 rng(25);
    int failures = 0;
    for (int n = 1; n <= 50 && failures < 5; ++n)
        for (int alphabet : {1, 2, 3, 5, 1000}) {
            for (int trial = 0; trial < 40 && failures < 5; ++trial) {
                std::vector<float> v(static_cast<std::size_t>(n));
                for (float& x : v) x = static_cast<float>(rng() % static_cast<unsigned>(alphabet)) * 0.25f;
                for (int k = 1; k <= n; ++k)
                    for (int chunk : {1, 4, 7, kSelectChunk, -3, -1024})
                        for (int rounds : {1, 2, kAll}) failures += !same(v, k, chunk, rounds, "small random");
            }
        }
    EXPECT_EQ(failures, 0);
}

// Large arrays of the given kinds, k at 1, n and the topk fractions.
TEST(CambiSelect, LargeArraysOfEveryKind) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    const int n = 50000;
    std::vector<std::pair<std::string, std::vector<float>>> kinds;
    std::vector<float> v(n);
    for (float& x : v) x = uniform(rng);
    kinds.emplace_back("random", v);
    for (float& x : v) x = static_cast<float>(rng() % 7);
    kinds.emplace_back("ties", v);
    kinds.emplace_back("zeros", std::vector<float>(n, 0.0f));
    for (float& x : v) x = rng() % 2 ? 1.5f : 0.0f;
    kinds.emplace_back("two values", v);
    for (float& x : v) x = rng() % 10 == 0 ? uniform(rng) : 0.0f;
    kinds.emplace_back("mostly zero", v);
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i / 3);
    kinds.emplace_back("sorted", v);
    std::reverse(v.begin(), v.end());
    kinds.emplace_back("reverse sorted", v);
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i < n / 2 ? 9.0f : (i == n / 2 ? 5.0f : 1.0f);
    kinds.emplace_back("high then low", v);
    for (const auto& [name, values] : kinds)
        for (int k : {1, 2, n / 3, static_cast<int>(0.6 * n), n - 1, n})
            for (int chunk : {kSelectChunk, 1000, 13, -1024})
                for (int rounds : {3, kAll}) EXPECT_TRUE(same(values, k, chunk, rounds, name));
}

// The CPU's c values of banded pictures, every scale: the twin's selection at the option's topk.
TEST(CambiSelect, TheCpusContrastValuesAtEveryScale) {
    struct Case {
        VideoFormat format;
        OptionValues values;
        int band;
    } cases[] = {
        {{481, 271, 10, Subsampling::k420}, {}, 3},
        {{640, 360, 8, Subsampling::k420}, {{"topk", "0.1"}}, 2},
        {{433, 241, 12, Subsampling::k420}, {{"max_log_contrast", "0"}, {"topk", "1"}}, 4},
        {{1280, 720, 10, Subsampling::k420}, {{"topk", "0.0001"}}, 5},
    };
    for (const Case& c : cases) {
        const Settings s(descriptor.parse_options(c.values));
        const Plan p = make_plan(s, c.format);
        ASSERT_EQ(p.band, Band::kLevels);
        Picture pic(c.format);
        test::fill(pic, [&](int plane, int x, int y) -> std::uint32_t {
            const int bits = c.format.bit_depth;
            if (plane != 0) return 128u << (bits - 8);
            const int level = 64 + x / c.band + y / c.band + ((x * 5 + y * 11) % 23 == 0);
            return bits >= 10 ? static_cast<std::uint32_t>(level) << (bits - 10)
                              : static_cast<std::uint32_t>(level) >> (10 - bits);
        });
        Buffers b;
        b.prepare(p, p.enc_w, p.enc_h);
        preprocess(pic.luma(), c.format.bit_depth, p, b, p.enc_w, p.enc_h);
        spatial_mask(b, p.enc_w, p.enc_h);
        int sw = p.enc_w, sh = p.enc_h, nonzero = 0;
        for (int scale = 0; scale < kScales; ++scale) {
            if (scale > 0 || p.speedup) {
                sw = (sw + 1) >> 1;
                sh = (sh + 1) >> 1;
                simd_decimate()(b.image.data(), b.stride, sw, sh);
                simd_decimate()(b.mask.data(), b.stride, sw, sh);
            }
            simd_mode_filter()(b.image.data(), b.stride, sw, sh, b.mode_rows.data());
            contrast_values(p, b, sw, sh, p.window >> 1);
            const std::vector<float> values(b.c_values.begin(), b.c_values.begin() + sw * sh);
            for (float x : values) nonzero += x > 0;
            const int n = sw * sh, want = static_cast<int>(p.topk * n);
            const int k = want < 1 ? 1 : (want > n ? n : want);
            for (int chunk : {kSelectChunk, 97, -1024})
                EXPECT_TRUE(same(values, k, chunk, kAll, test::format_label(c.format) + " scale " + std::to_string(scale)));
        }
        EXPECT_GT(nonzero, 100) << test::format_label(c.format) << ": too few contrast values above 0";
    }
}

}  // namespace
}  // namespace vmafx
