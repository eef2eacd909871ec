// The CUDA twin of float_adm (float_adm_cuda.cu) beyond the registry-driven twin suites
// (test_twins.cpp): the option combinations its arithmetic treats apart (non-integer gain limits,
// whose double products the twin forms as the CPU's scalar path does; p-norms other than 3,
// through the CPU's own powf, libm::powf_with, on the device; bypassed masking; skipped scales; each CSF mode), on synthetic clips of
// several sizes and bit depths, and samples over the whole word. Skips, saying why, where no
// CUDA device is usable.
#include <cstdint>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "feature/float_adm/float_adm.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

TEST(FloatAdmCuda, OptionCombinations) {
    VMAFX_REQUIRE_GPU();
    const OptionValues option_sets[] = {
        {{"adm_enhn_gain_limit", "1.2"}},
        {{"adm_enhn_gain_limit", "1.37"}, {"debug", "true"}},
        {{"adm_enhn_gain_limit", "1"}},
        {{"adm_enhn_gain_limit", "37.25"}, {"adm_noise_weight", "0.5"}},
        {{"adm_p_norm", "2.5"}},
        {{"adm_p_norm", "1"}, {"adm_enhn_gain_limit", "1.2"}},
        {{"adm_p_norm", "20"}, {"debug", "true"}},
        {{"adm_p_norm", "1.75"}, {"adm_bypass_cm", "1"}},
        {{"adm_bypass_cm", "1"}},
        {{"adm_csf_mode", "1"}, {"adm_csf_scale", "1.7"}, {"adm_csf_diag_scale", "0.6"}},
        {{"adm_csf_mode", "2"}, {"adm_ref_display_height", "720"}, {"adm_norm_view_dist", "5"}},
        {{"adm_skip_scale0", "true"}, {"adm_skip_aim_scale", "0"}, {"debug", "true"}},
        {{"adm_skip_aim_scale", "2"}, {"adm_adm3_apply_hm", "true"}},
        {{"adm_f1s0", "0"}, {"adm_f2s1", "10"}, {"adm_min_val", "0.9"}},
    };
    for (const OptionValues& values : option_sets)
        for (const int bits : {8, 10, 16})
            for (const auto& [w, h] : {std::pair{17, 17}, std::pair{130, 67}, std::pair{853, 481}})
                EXPECT_TRUE(test::expect_twin_matches_cpu(float_adm::descriptor, values,
                                                          test::synthetic_clip({w, h, bits, Subsampling::k420}, 4, 17), 2));
}

// Random samples over the whole sample word (the byte-wise depths included), between frames of
// samples that are 0 or the largest in-range value.
TEST(FloatAdmCuda, SamplesOverTheWholeWord) {
    VMAFX_REQUIRE_GPU();
    for (const auto& [w, h] : {std::pair{33, 35}, std::pair{431, 271}})
        for (const int bits : {8, 9, 10, 12, 14, 16}) {
            const VideoFormat format{w, h, bits, Subsampling::k420};
            const test::Clip clip = test::whole_word_clip(format);
            for (const OptionValues& values : {OptionValues{}, OptionValues{{"adm_enhn_gain_limit", "1.2"}}})
                EXPECT_TRUE(test::expect_twin_matches_cpu(float_adm::descriptor, values, clip, 3));
        }
}

}  // namespace
}  // namespace vmafx
