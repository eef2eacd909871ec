// The CUDA twin of float_ansnr (src/feature/float_ansnr/float_ansnr_cuda.cu) beyond the
// registry-driven twin suites (test_twins.cpp): rows wider than one SequentialSum chunk (2048
// terms) with large float sums (16-bit samples, 4K width), identical pictures (noise 0: the
// psnr_max branch) and extreme samples. Skips, saying why, where no CUDA device is usable.
#include <gtest/gtest.h>

#include "feature/float_ansnr/float_ansnr.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

TEST(FloatAnsnrCuda, WideRowsIdenticalAndExtremePictures) {
    VMAFX_REQUIRE_GPU();
    const int sizes[][2] = {{3, 3}, {4097, 5}, {3840, 17}};
    for (const auto& s : sizes)
        for (const int bits : {8, 10, 12, 16}) {
            const VideoFormat format{s[0], s[1], bits, Subsampling::k420};
            test::Clip clip{format, {}, {}};
            clip.ref.push_back(test::random_picture(format, 3));
            clip.dist.push_back(test::distorted_picture(clip.ref.back(), 4));
            clip.ref.push_back(test::smooth_picture(format, 5));
            clip.dist.push_back(clip.ref.back());  // identical: noise 0
            clip.ref.push_back(test::extreme_picture(format, 6));
            clip.dist.push_back(test::extreme_picture(format, 7));
            EXPECT_TRUE(test::expect_twin_matches_cpu(float_ansnr::descriptor, {}, clip, 2))
                << s[0] << "x" << s[1] << " " << bits << " bits";
        }
}

}  // namespace
}  // namespace vmafx
