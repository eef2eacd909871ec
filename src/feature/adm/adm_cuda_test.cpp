// The CUDA twin of the integer ADM (src/feature/adm/adm_cuda.cu) beyond the registry-driven twin
// suites (test_twins.cpp): the shared arithmetic's constants (no device needed); samples over
// the whole sample word (above the bit depth at 10 and 12 bits: the widest DWT values, wraps);
// and the option combinations its arithmetic treats apart (CSF modes with and without blend
// tables for the viewing conditions, fractional gain limits). Skips, saying why, where no CUDA
// device is usable.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/adm/adm.hpp"
#include "feature/adm/adm_math.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

// The shared arithmetic's constants are the values the CPU reference used to compute.
TEST(AdmCudaMath, ConstantsAreUpstreams) {
    const double c = std::cos(1.0 * 3.14159265358979323846 / 180.0);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(adm::kCos1DegSq), std::bit_cast<std::uint32_t>(static_cast<float>(c * c)));
    // The reciprocal table entries 2^30 / i, as upstream's integer division makes them.
    for (std::int32_t i = 1; i <= 32768; ++i) ASSERT_EQ(adm::recip30(i), 1073741824 / i) << i;
    // The level-0 k in 32-bit pieces equals upstream's (div_lookup[o] * t + 16384) >> 15, clipped.
    std::mt19937 rng(3);
    for (int n = 0; n < 200000; ++n) {
        const std::int32_t o = static_cast<std::int16_t>(rng());
        const std::int32_t t = static_cast<std::int16_t>(rng());
        std::int64_t want = 32768;
        if (o != 0) {
            const std::int64_t entry = o < 0 ? -(1073741824 / -std::int64_t{o}) : 1073741824 / std::int64_t{o};
            want = std::clamp<std::int64_t>((entry * t + 16384) >> 15, 0, 32768);
        }
        ASSERT_EQ(adm::decouple0_k(o, t), want) << o << " " << t;
    }
}

// Random samples over the whole sample word in both pictures, between frames of samples that
// are 0 or the largest in-range value.
TEST(AdmCuda, SamplesOverTheWholeWord) {
    VMAFX_REQUIRE_GPU();
    for (const auto& [w, h] : {std::pair{33, 35}, std::pair{130, 67}, std::pair{853, 481}})
        for (const int bits : {8, 10, 12, 16}) {
            const VideoFormat format{w, h, bits, Subsampling::k420};
            const test::Clip clip = test::whole_word_clip(format);
            for (const OptionValues& values : {OptionValues{}, OptionValues{{"adm_enhn_gain_limit", "1"}}})
                EXPECT_TRUE(test::expect_twin_matches_cpu(adm::descriptor, values, clip, 2));
        }
}

// Combinations beyond the single option corners of test_twins.cpp: each CSF mode (with viewing
// conditions that have blend tables and ones that do not), fractional gain limits (rounded
// differently in upstream's vector and scalar columns), debug outputs with skipped AIM or scale 0.
TEST(AdmCuda, OptionCombinations) {
    VMAFX_REQUIRE_GPU();
    const OptionValues option_sets[] = {
        {{"adm_enhn_gain_limit", "1.5"}},
        {{"adm_enhn_gain_limit", "2.7"}, {"debug", "true"}},
        {{"adm_enhn_gain_limit", "37.25"}},
        {{"adm_csf_mode", "1"}},
        {{"adm_csf_mode", "1"}, {"adm_csf_scale", "1.7"}, {"adm_csf_diag_scale", "0.6"}},
        {{"adm_csf_mode", "2"}},
        {{"adm_csf_mode", "3"}, {"adm_ref_display_height", "2160"}, {"adm_norm_view_dist", "1.5"}},
        {{"adm_csf_mode", "2"}, {"adm_ref_display_height", "720"}, {"adm_norm_view_dist", "5"}},
        {{"adm_csf_mode", "2"}, {"adm_ref_display_height", "1000"}, {"adm_norm_view_dist", "4"}},  // no table
        {{"adm_norm_view_dist", "5"}, {"adm_ref_display_height", "2160"}},
        {{"adm_noise_weight", "1000"}, {"adm_dlm_weight", "0.2"}},
        {{"adm_skip_aim", "true"}, {"debug", "true"}},
        {{"adm_skip_scale0", "true"}, {"debug", "true"}},
        {{"adm_skip_scale0", "true"}, {"adm_skip_aim", "true"}},
        {{"adm_min_val", "0.9"}, {"adm_dlm_weight", "1"}},
    };
    for (const OptionValues& values : option_sets)
        for (const int bits : {8, 10, 16})
            for (const auto& [w, h] : {std::pair{33, 35}, std::pair{130, 67}, std::pair{853, 481}})
                EXPECT_TRUE(test::expect_twin_matches_cpu(adm::descriptor, values,
                                                          test::synthetic_clip({w, h, bits, Subsampling::k420}, 6, 17), 2));
}

}  // namespace
}  // namespace vmafx
