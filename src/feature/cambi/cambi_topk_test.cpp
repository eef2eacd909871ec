// CAMBI's pooling as an exact sum (cambi_topk.hpp, the CUDA twin's arithmetic) against the CPU's
// spatial_pooling (quick_select, then the double sum in its order, over k): wherever the sum is
// proven it must be the CPU's mean bit for bit; where the order could matter it must not be
// proven. The CPU's own c values of banded pictures at every scale (all proven), random arrays
// of every kind (ties, zeros, two values, wide and narrow ranges, denormals), and the values the
// sum must refuse (negative, infinite, NaN, -0). Runs without a GPU; cambi_cuda_test.cpp checks
// the kernels against the same host model.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "feature/cambi/cambi.hpp"
#include "feature/cambi/cambi_internal.hpp"
#include "feature/cambi/cambi_kernels.hpp"
#include "feature/cambi/cambi_topk.hpp"
#include "cambi_scales.hpp"
#include "pictures.hpp"

namespace vmafx {
namespace {

using namespace cambi;

/// k for spatial_pooling's topk: the k of (k + 0.5) / n.
double topk_for(int k, int n) { return (k + 0.5) / n; }

/// Checks one array at one k: where exact_topk_sum proves a sum, its mean is the CPU's bit for
/// bit. Returns whether it was proven (nullopt: a mismatch was reported).
std::optional<bool> check(const std::vector<float>& values, int k, const std::string& what) {
    const int n = static_cast<int>(values.size());
    std::vector<float> cpu = values;
    const double want = spatial_pooling(cpu.data(), topk_for(k, n), n, 1);
    const std::optional<double> sum = exact_topk_sum(values.data(), n, k);
    if (!sum) return false;
    const double got = *sum / k;
    if (std::memcmp(&want, &got, sizeof want) != 0) {
        ADD_FAILURE() << what << ": n " << n << ", k " << k << ": the CPU's mean " << want << ", the exact sum's "
                      << got;
        return std::nullopt;
    }
    return true;
}

TEST(CambiTopk, TheCpusContrastValuesAtEveryScaleAreProvenAndEqual) {
    const scales::BandedCase cases[] = {
        {{481, 271, 10, Subsampling::k420}, {}, 3},
        {{640, 360, 8, Subsampling::k420}, {{"topk", "0.1"}}, 2},
        {{433, 241, 12, Subsampling::k420}, {{"max_log_contrast", "0"}, {"topk", "1"}}, 4},
        {{1280, 720, 10, Subsampling::k420}, {{"topk", "0.0001"}}, 5},
        {{1920, 1080, 10, Subsampling::k420}, {{"cambi_high_res_speedup", "1080"}}, 7},
    };
    for (const scales::BandedCase& c : cases) {
        const Settings s(descriptor.parse_options(c.values));
        const Plan p = make_plan(s, c.format);
        ASSERT_EQ(p.band, Band::kLevels);
        const Picture pic = scales::banded(c.format, c.band, 0);
        Buffers b;
        int nonzero = 0;
        scales::each_scale(p, pic, c.format.bit_depth, b, [&](int scale, int sw, int sh) {
            const std::vector<float> values(b.c_values.begin(), b.c_values.begin() + sw * sh);
            for (float x : values) nonzero += x > 0;
            const int n = sw * sh, want = static_cast<int>(p.topk * n);
            const int k = want < 1 ? 1 : (want > n ? n : want);
            EXPECT_EQ(check(values, k, test::format_label(c.format) + " scale " + std::to_string(scale)), true);
        });
        EXPECT_GT(nonzero, 100) << test::format_label(c.format) << ": too few contrast values above 0";
    }
}

// Random arrays of every kind at k = 1, 2, n/3, 0.6 n, n - 1, n: every proven sum the CPU's;
// both outcomes occur.
TEST(CambiTopk, RandomArraysOfEveryKind) {
    std::mt19937 rng(29);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    const int n = 20000;
    std::vector<std::pair<std::string, std::vector<float>>> kinds;
    std::vector<float> v(n);
    for (float& x : v) x = uniform(rng);
    kinds.emplace_back("uniform [0, 1)", v);
    for (float& x : v) x = static_cast<float>(rng() % 4226) * (1.0f / 3.0f);
    kinds.emplace_back("thirds", v);
    for (float& x : v) x = static_cast<float>(rng() % 7);
    kinds.emplace_back("ties", v);
    kinds.emplace_back("zeros", std::vector<float>(n, 0.0f));
    for (float& x : v) x = rng() % 2 ? 1.5f : 0.0f;
    kinds.emplace_back("two values", v);
    for (float& x : v) x = rng() % 10 == 0 ? 1.0f + uniform(rng) : 0.0f;
    kinds.emplace_back("mostly zero", v);
    for (float& x : v) x = std::ldexp(1.0f + uniform(rng), static_cast<int>(rng() % 40) - 20);
    kinds.emplace_back("2^-20 to 2^20", v);
    for (float& x : v) x = std::numeric_limits<float>::denorm_min() * static_cast<float>(rng() % 1000);
    kinds.emplace_back("denormals", v);
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i / 3) * 0.25f;
    kinds.emplace_back("sorted", v);
    int proven = 0, refused = 0;
    for (const auto& [name, values] : kinds)
        for (int k : {1, 2, n / 3, static_cast<int>(0.6 * n), n - 1, n}) {
            const std::optional<bool> r = check(values, k, name);
            ASSERT_TRUE(r.has_value());
            (*r ? proven : refused) += 1;
        }
    EXPECT_GT(proven, 40);
    EXPECT_GT(refused, 0);  // uniform [0, 1) and the wide range: values too small for the largest
}

// Where the sum's order could change the CPU's double, the exact sum must not claim it.
TEST(CambiTopk, SumsWhoseOrderCouldMatterAreNotProven) {
    const float big = std::ldexp(1.0f, 60);
    EXPECT_FALSE(exact_topk_sum(std::vector<float>{big, 1.0f, 1.0f}.data(), 3, 3));
    EXPECT_TRUE(exact_topk_sum(std::vector<float>{big, 1.0f, 1.0f}.data(), 3, 1));  // only 2^60: one value
    // In units of 1's ulp (2^-23), 2^29 is 2^52: two of them and 1 reach 2^53 units (refused),
    // one and 1 do not (proven).
    const float half_limit = std::ldexp(1.0f, 29);
    EXPECT_FALSE(exact_topk_sum(std::vector<float>{half_limit, half_limit, 1.0f}.data(), 3, 3));
    const std::optional<double> below = exact_topk_sum(std::vector<float>{half_limit, 1.0f}.data(), 2, 2);
    ASSERT_TRUE(below);
    EXPECT_EQ(*below, std::ldexp(1.0, 29) + 1.0);
    // One value alone at 2^53 units: 2^30 in units of 1's ulp.
    EXPECT_FALSE(exact_topk_sum(std::vector<float>{std::ldexp(1.0f, 30), 1.0f}.data(), 2, 2));
    for (const float bad : {-1.0f, -0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
        const std::vector<float> values = {1.0f, bad, 2.0f};
        EXPECT_FALSE(exact_topk_sum(values.data(), 3, 1)) << bad;
    }
    const std::vector<float> zeros(5, 0.0f);
    ASSERT_TRUE(exact_topk_sum(zeros.data(), 5, 3));
    EXPECT_EQ(*exact_topk_sum(zeros.data(), 5, 3), 0.0);
}

}  // namespace
}  // namespace vmafx
