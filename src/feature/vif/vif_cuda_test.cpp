// The CUDA twin of the integer VIF metric (src/feature/vif/vif_cuda.cu) beyond the
// registry-driven twin suites (test_twins.cpp): samples above the bit depth are refused by the
// twin as by the CPU (upstream's C, AVX2 and AVX-512 paths disagree on them). Skips, saying why,
// where no CUDA device is usable.
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/vif/vif.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

TEST(VifCuda, SamplesAboveTheBitDepthAreRefused) {
    VMAFX_REQUIRE_GPU();
    const Options defaults = vif::descriptor.parse_options({});
    for (const int bits : {9, 10, 12, 15}) {
        const VideoFormat format{40, 24, bits, Subsampling::k420};
        for (const bool in_ref : {true, false}) {
            SCOPED_TRACE(fmt::format("{}-bit, in the {}", bits, in_ref ? "reference" : "distorted picture"));
            test::Clip clip = test::synthetic_clip(format, 2, 9);
            EXPECT_NO_THROW(test::run_gpu(vif::descriptor, defaults, clip, 2));
            test::set_sample((in_ref ? clip.ref : clip.dist)[1].luma(), 39, 23, 1u << bits);
            EXPECT_THROW(test::run_cpu(vif::descriptor, defaults, clip), Error);
            EXPECT_THROW(test::run_gpu(vif::descriptor, defaults, clip, 2), Error);
        }
    }
}

}  // namespace
}  // namespace vmafx
