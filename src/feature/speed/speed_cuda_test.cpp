// The CUDA twins of speed_chroma and speed_temporal (speed_chroma_cuda.cu, speed_temporal_cuda.cu)
// beyond the registry-driven twin suites (test_twins.cpp): every speed_prescale method at
// prescales that shrink and enlarge the picture (the gate's "SpEED at every prescale"), kernel
// scales, the v1.0.16 models' option set, every weight mode, speed_use_ref_diff, and a long
// temporal run with several slots. Skips, saying why, where no CUDA device is usable.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/speed/speed.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

const char* const kMethods[] = {"nearest", "bilinear", "bicubic", "lanczos4"};

TEST(SpeedCuda, ChromaAtEveryPrescaleMethod) {
    VMAFX_REQUIRE_GPU();
    const test::Clip clip = test::synthetic_clip({331, 277, 10, Subsampling::k420}, 3, 17);
    for (const char* method : kMethods)
        for (const char* prescale : {"0.6", "1.5", "2", "0.999", "1.002"})
            EXPECT_TRUE(test::expect_twin_matches_cpu(
                speed_chroma::descriptor, {{"speed_prescale", prescale}, {"speed_prescale_method", method}}, clip, 2))
                << method << " " << prescale;
}

TEST(SpeedCuda, TemporalAtEveryPrescaleMethod) {
    VMAFX_REQUIRE_GPU();
    const test::Clip clip = test::synthetic_clip({203, 181, 8, Subsampling::k444}, 4, 23);
    for (const char* method : kMethods)
        for (const char* prescale : {"0.45", "0.8"})
            EXPECT_TRUE(test::expect_twin_matches_cpu(
                speed_temporal::descriptor, {{"speed_prescale", prescale}, {"speed_prescale_method", method}}, clip,
                3))
                << method << " " << prescale;
}

TEST(SpeedCuda, ChromaOptionsAndWeightModes) {
    VMAFX_REQUIRE_GPU();
    for (const int bits : {8, 12, 16}) {
        const test::Clip clip = test::synthetic_clip({400, 322, bits, Subsampling::k422}, 2, 31u + bits);
        for (const char* mode : {"0", "1", "2", "3", "4", "5", "6"})
            EXPECT_TRUE(test::expect_twin_matches_cpu(
                speed_chroma::descriptor,
                {{"speed_weight_var_mode", mode}, {"speed_nn_floor", "0.1"}, {"speed_sigma_nn", "0.19"},
                 {"speed_max_val", "45"}, {"speed_prescale", "0.6"}, {"speed_prescale_method", "bilinear"}},
                clip, 2))
                << "mode " << mode << " bits " << bits;
        for (const char* ks : {"0.5", "1.5", "3", "2.4"})
            EXPECT_TRUE(test::expect_twin_matches_cpu(speed_chroma::descriptor, {{"speed_kernelscale", ks}}, clip, 1))
                << "kernelscale " << ks;
    }
}

TEST(SpeedCuda, TemporalRefDiffAndLongRun) {
    VMAFX_REQUIRE_GPU();
    const test::Clip clip = test::synthetic_clip({257, 193, 10, Subsampling::k420}, 13, 41);
    for (const unsigned slots : {1u, 4u, 7u})
        for (const char* urd : {"false", "true"})
            EXPECT_TRUE(test::expect_twin_matches_cpu(speed_temporal::descriptor,
                                                      {{"speed_use_ref_diff", urd}, {"speed_kernelscale", "1.5"}},
                                                      clip, slots))
                << "urd " << urd << " slots " << slots;
}

}  // namespace
}  // namespace vmafx
