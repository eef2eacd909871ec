// The one library-math dependency left on the default models' paths (docs/metrics.md, "Library
// math calls"): the Watson CSF weights, computed when a run starts with the host's log10 and
// pow(10, e). Not pinned by vmafx's own code yet; this test holds them to the golden machine's
// values (Debian 12, glibc 2.36) at the default viewing conditions, so a C library that rounds
// them differently fails here, by name, rather than as a distant golden-value difference.
#include <array>
#include <bit>
#include <cstdint>

#include <gtest/gtest.h>

#include "feature/common/adm_csf.hpp"

namespace vmafx::adm {
namespace {

TEST(AdmCsf, DefaultWatsonWeightsAreTheGoldenMachines) {
    // adm_csf_mode 0, adm_norm_view_dist 3, adm_ref_display_height 1080 (adm's and float_adm's
    // defaults): the float weights of levels 0..3 (h, v, d) as glibc 2.36 gives them.
    constexpr std::array<std::array<uint32_t, 3>, 4> kGolden{{
        {0x3c8e63ba, 0x3c8e63ba, 0x3bc106aa},  // 0.0173815377 0.0173815377 0.005890687
        {0x3d030286, 0x3d030286, 0x3c6a46a3},  // 0.0319848284 0.0319848284 0.0142990677
        {0x3d31a788, 0x3d31a788, 0x3cc7dc06},  // 0.0433726609 0.0433726609 0.0243969075
        {0x3d3b140b, 0x3d3b140b, 0x3d0041c9},  // 0.0456734113 0.0456734113 0.0313127376
    }};
    const CsfConfig watson{CsfMode::kWatson97, 3.0, 1080, 1.0, 1.0};
    for (int scale = 0; scale < 4; ++scale) {
        const std::array<float, 3> w = csf_weights(watson, scale);
        for (int band = 0; band < 3; ++band)
            EXPECT_EQ(std::bit_cast<uint32_t>(w[band]), kGolden[scale][band])
                << "level " << scale << " band " << band << ": this C library's log10 or pow(10, e) differs from glibc 2.36's";
    }
    // The fixed-point weights of scale 0 that docs/metrics.md and adm_csf.hpp quote.
    const std::array<uint16_t, 3> q = csf_weights_q_scale0(watson);
    EXPECT_EQ(q[0], 36453);
    EXPECT_EQ(q[1], 36453);
    EXPECT_EQ(q[2], 49417);
}

}  // namespace
}  // namespace vmafx::adm
