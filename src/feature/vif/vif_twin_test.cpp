// The GPU twins of the integer VIF metric (vif_cuda.cu, vif_vulkan.cpp) beyond the
// registry-driven twin suites (test_twins.cpp): samples above the bit depth are refused by each
// twin as by the CPU (upstream's C, AVX2 and AVX-512 paths disagree on them), with
// vif_skip_scale0 too. Each test skips, saying why, where its backend has no usable device.
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/vif/vif.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

void expect_samples_above_the_bit_depth_refused(const std::string& backend) {
    for (const char* skip : {"false", "true"}) {
        const Options options = vif::descriptor.parse_options({{"vif_skip_scale0", skip}});
        for (const int bits : {9, 10, 12, 15}) {
            const VideoFormat format{40, 24, bits, Subsampling::k420};
            for (const bool in_ref : {true, false}) {
                SCOPED_TRACE(fmt::format("{}: {}-bit, in the {}, vif_skip_scale0={}", backend, bits,
                                         in_ref ? "reference" : "distorted picture", skip));
                test::Clip clip = test::synthetic_clip(format, 2, 9);
                EXPECT_NO_THROW(test::run_gpu(vif::descriptor, options, clip, 2, PlantedDefect::kNone, backend));
                test::set_sample((in_ref ? clip.ref : clip.dist)[1].luma(), 39, 23, 1u << bits);
                EXPECT_THROW(test::run_cpu(vif::descriptor, options, clip), Error);
                EXPECT_THROW(test::run_gpu(vif::descriptor, options, clip, 2, PlantedDefect::kNone, backend), Error);
            }
        }
    }
}

TEST(VifCuda, SamplesAboveTheBitDepthAreRefused) {
    VMAFX_REQUIRE_GPU();
    expect_samples_above_the_bit_depth_refused("cuda");
}

TEST(VifVulkan, SamplesAboveTheBitDepthAreRefused) {
    VMAFX_REQUIRE_BACKEND("vulkan");
    expect_samples_above_the_bit_depth_refused("vulkan");
}

}  // namespace
}  // namespace vmafx
