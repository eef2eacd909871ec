// Tests of ciede's CUDA twin beyond the registry-driven sweeps (tests/test_twins.cpp): the
// saturated colours and odd 4:2:2 reads where the formula's library calls and branches are
// hardest, long runs of frames, and the host path (ciede_cuda.cu: the pixels whose float the
// device's intervals cannot decide), driven on every pixel by widening the intervals.
// Compiled only with CUDA; skipped without a GPU.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cuda/device.hpp"
#include "feature/ciede/ciede.hpp"
#include "feature/ciede/ciede_twin.hpp"
#include "pictures.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using ciede::descriptor;

/// Colours at the corners of the Y'CbCr cube (saturated primaries, black and white, chroma at
/// its extremes) mixed with random samples: the lab_f branch's both sides, atan2's quadrants,
/// hue wrap-arounds.
Picture saturated_picture(const VideoFormat& f, std::uint32_t seed) {
    Picture pic = test::random_picture(f, seed);
    const std::uint32_t top = test::max_sample(f);
    const std::uint32_t corners[] = {0u, top, top / 2, top / 4, top - top / 8};
    for (int p = 0; p < 3; ++p) {
        Plane& plane = pic.planes[p];
        for (int y = 0; y < plane.height(); ++y)
            for (int x = 0; x < plane.width(); ++x) {
                const std::uint32_t h = (static_cast<std::uint32_t>(x) * 2654435761u) ^
                                        (static_cast<std::uint32_t>(y + 7 * p) * 40503u) ^ seed;
                if (h % 3 != 0) test::set_sample(plane, x, y, corners[(h >> 8) % 5]);
            }
    }
    return pic;
}

test::Clip saturated_clip(const VideoFormat& f, unsigned frames) {
    test::Clip clip{f, {}, {}};
    for (unsigned i = 0; i < frames; ++i) {
        clip.ref.push_back(saturated_picture(f, 11 + i));
        clip.dist.push_back(saturated_picture(f, 1011 + i));
    }
    return clip;
}

TEST(CiedeCuda, SaturatedColoursAtEverySubsamplingAndDepth) {
    VMAFX_REQUIRE_GPU();
    for (const Subsampling s : {Subsampling::k420, Subsampling::k422, Subsampling::k444})
        for (const int bits : {8, 10, 12, 16}) {
            const VideoFormat f{97, 35, bits, s};
            SCOPED_TRACE(test::format_label(f));
            EXPECT_TRUE(test::expect_twin_matches_cpu(descriptor, {}, saturated_clip(f, 2), 2));
        }
}

// 4:2:2 sizes whose chroma reads run on into the row padding and the next row (chroma_at), and
// one-row pictures up to the widest upstream reads.
TEST(CiedeCuda, Upstreams422ReadsAndOddSizes) {
    VMAFX_REQUIRE_GPU();
    const VideoFormat formats[] = {{66, 5, 10, Subsampling::k422}, {32, 1, 8, Subsampling::k422},
                                   {2, 1, 8, Subsampling::k422},   {853, 3, 8, Subsampling::k420},
                                   {1, 1, 8, Subsampling::k444},   {129, 7, 16, Subsampling::k422}};
    for (const VideoFormat& f : formats) {
        SCOPED_TRACE(test::format_label(f));
        EXPECT_TRUE(test::expect_twin_matches_cpu(descriptor, {}, saturated_clip(f, 3), 3));
    }
}

/// The frames of `clip` through `twin` (one slot, one stream), as the GPU pipeline would give
/// them: every plane uploaded, enqueue, wait, finish.
ScoreTable run_direct(GpuTwin& twin, const test::Clip& clip) {
    const VideoFormat& f = clip.format;
    cuda::Stream stream;
    ScoreTable table;
    FrameScores scores;
    for (unsigned i = 0; i < clip.frames(); ++i) {
        std::vector<cuda::DeviceBuffer<unsigned char>> buffers;
        GpuFrame frame;
        frame.index = i;
        for (int side = 0; side < 2; ++side) {
            const Picture& pic = side == 0 ? clip.ref[i] : clip.dist[i];
            DevicePicture& out = side == 0 ? frame.ref : frame.dist;
            for (int p = 0; p < 3; ++p) {
                const Plane& plane = pic.planes[p];
                const std::size_t row = static_cast<std::size_t>(plane.width()) * f.bytes_per_sample();
                buffers.emplace_back(row * static_cast<std::size_t>(plane.height()));
                cuda::check(cudaMemcpy2D(buffers.back().get(), row, plane.data(), static_cast<std::size_t>(plane.stride()),
                                         row, static_cast<std::size_t>(plane.height()), cudaMemcpyHostToDevice),
                            "upload");
                out.planes[static_cast<std::size_t>(p)] = {buffers.back().get(), static_cast<std::ptrdiff_t>(row)};
            }
        }
        twin.enqueue(frame, 0, cuda::queue_of(stream.get()));
        cuda::check(cudaStreamSynchronize(stream.get()), "sync");
        scores.clear();
        twin.finish(0, i, scores);
        for (const auto& [name, value] : scores) table.set(name, i, value);
    }
    return table;
}

// With the intervals widened 2^29 times (relative 2^-20), nearly every pixel's float is
// undecided and goes to the host: the frame's sum is then the host terms scattered into the
// device's and summed again. The values must not move.
TEST(CiedeCuda, HostPathGivesTheCpusValues) {
    VMAFX_REQUIRE_GPU();
    for (const VideoFormat f : {VideoFormat{61, 19, 8, Subsampling::k420}, VideoFormat{40, 9, 10, Subsampling::k422},
                                VideoFormat{33, 17, 12, Subsampling::k444}}) {
        SCOPED_TRACE(test::format_label(f));
        const test::Clip clip = saturated_clip(f, 2);
        const ScoreTable want = test::run_cpu(descriptor, descriptor.parse_options({}), clip);
        for (const double slack : {0x1p-49, 0x1p-30, 0x1p-20, 0.5}) {
            SCOPED_TRACE(slack);
            const std::unique_ptr<GpuTwin> twin = ciede::make_twin_with_slack(f, 1, slack);
            EXPECT_EQ(test::count_differences(want, run_direct(*twin, clip), "host path"), 0);
        }
    }
}

// Identical pictures: every term 0, the score +inf, as the CPU's.
TEST(CiedeCuda, IdenticalPicturesGiveInfinity) {
    VMAFX_REQUIRE_GPU();
    const VideoFormat f{45, 23, 10, Subsampling::k420};
    test::Clip clip{f, {saturated_picture(f, 5)}, {saturated_picture(f, 5)}};
    EXPECT_TRUE(test::expect_twin_matches_cpu(descriptor, {}, clip, 1));
}

}  // namespace
}  // namespace vmafx
