// Tests of ciede's CUDA twin beyond the registry-driven sweeps (tests/test_twins.cpp): the
// saturated colours and odd 4:2:2 reads where the formula's library calls and branches are
// hardest, long runs of frames, and the host path (ciede_cuda.cu: the pixels whose float the
// device's intervals cannot decide), driven on every pixel by widening the intervals.
// Skipped without a GPU; the tests that drive the twin directly are compiled only with CUDA.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/libm.hpp"
#include "feature/ciede/ciede.hpp"
#ifdef VMAFX_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/device.hpp"
#include "feature/ciede/ciede_twin.hpp"
#endif
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

#ifdef VMAFX_HAVE_CUDA  // the tests that drive the twin itself
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

/// ULPs between a and b (finite doubles of one sign; 0 for equal values).
double ulps_apart(double a, double b) {
    if (a == b) return 0;
    const double ulp = std::nextafter(std::fabs(a), INFINITY) - std::fabs(a);
    return std::fabs(a - b) / ulp;
}

// DeviceMath takes the device's pow, atan2, sin, cos and exp within 2 ULP of the exact value and
// the CPU's within 1 (the vendors' documented maxima, found by their tests, not proofs), and
// widens by 8. Measured here over the argument ranges ciede_formula.hpp gives them (random
// arguments, the CPU's own libm on this host): the widening's assumption, checked.
TEST(CiedeCuda, DeviceLibraryWithinTheWideningOfTheCpus) {
    VMAFX_REQUIRE_GPU();
    constexpr std::size_t n = 1 << 20;
    std::uint64_t state = 12345;
    const auto uniform = [&](double lo, double hi) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return lo + (hi - lo) * static_cast<double>(state >> 11) * 0x1p-53;
    };
    struct Case {
        const char* name;
        int function;
        double x0, x1, y0, y1;  ///< x uniform in [x0, x1], y in [y0, y1]
        bool float_x;           ///< x rounded to float (the formula's argument is a float's double)
    };
    const Case cases[] = {
        {"pow(x, 2.4)", 0, 10. / 255. * 0.95, 2.5, 2.4, 2.4, false},
        {"pow(x, 1/3)", 0, 216. / 24389., 2.5, 1. / 3., 1. / 3., false},
        {"pow(c, 7)", 0, 0.0, 300.0, 7.0, 7.0, true},
        {"atan2", 1, -300.0, 300.0, -300.0, 300.0, true},
        {"sin(dh/2)", 2, -3.5, 3.5, 0, 0, false},
        {"sin(angle)", 2, 0.0, 1.1, 0, 0, true},
        {"cos", 3, -1.0, 26.0, 0, 0, false},
        {"exp", 4, -400.0, 0.0, 0, 0, true}};
    std::vector<double> x(n), y(n), device(n);
    for (const Case& c : cases) {
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = uniform(c.x0, c.x1);
            y[i] = c.y0 == c.y1 ? c.y0 : uniform(c.y0, c.y1);
            if (c.float_x) x[i] = static_cast<float>(x[i]);
            if (c.float_x && c.function == 1) y[i] = static_cast<float>(y[i]);
        }
        ciede::device_library_values(c.function, x.data(), y.data(), device.data(), n);
        double worst = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double host = 0;
            switch (c.function) {
                case 0: host = std::pow(x[i], y[i]); break;
                case 1: host = std::atan2(x[i], y[i]); break;
                case 2: host = std::sin(x[i]); break;
                case 3: host = std::cos(x[i]); break;
                default: host = libm::exp(x[i]); break;
            }
            worst = std::max(worst, ulps_apart(host, device[i]));
        }
        std::printf("%s: worst distance %.3g ULP over %zu arguments\n", c.name, worst, n);
        EXPECT_LE(worst, 3.0) << c.name;
    }
}

#endif

// Identical pictures: every term 0, the score +inf, as the CPU's.
TEST(CiedeCuda, IdenticalPicturesGiveInfinity) {
    VMAFX_REQUIRE_GPU();
    const VideoFormat f{45, 23, 10, Subsampling::k420};
    test::Clip clip{f, {saturated_picture(f, 5)}, {saturated_picture(f, 5)}};
    EXPECT_TRUE(test::expect_twin_matches_cpu(descriptor, {}, clip, 1));
}

}  // namespace
}  // namespace vmafx
