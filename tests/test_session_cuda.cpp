// A Session on the GPU (Session::use_gpu, the C API's vmaf_cuda_import_state): the metrics with a
// CUDA twin on a GpuScorer, the others on the CPU, from host pictures (push) and from device
// pictures (push_device, which downloads them for the CPU metrics). Every value, the model's
// included, must equal the CPU session's bit for bit (the twins are exact, docs/parity.md).
// Skips, saying why, where no CUDA device is usable.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#ifdef VMAFX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "engine/session.hpp"
#include "feature/registry.hpp"
#include "model/model.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

enum class Feed { kCpu, kHost, kDevice };

#ifdef VMAFX_HAVE_CUDA
/// A device copy of `pic` (pitched planes), freed when the last holder lets go.
std::shared_ptr<DevicePicture> to_device(const Picture& pic) {
    auto planes = std::make_shared<std::vector<void*>>();
    std::shared_ptr<DevicePicture> dev(new DevicePicture, [planes](DevicePicture* d) {
        for (void* p : *planes) cudaFree(p);
        delete d;
    });
    for (int p = 0; p < 3; ++p) {
        const Plane& plane = pic.planes[p];
        const std::size_t row = static_cast<std::size_t>(plane.width()) * pic.format.bytes_per_sample();
        void* data = nullptr;
        std::size_t pitch = 0;
        EXPECT_EQ(cudaMallocPitch(&data, &pitch, row, static_cast<std::size_t>(plane.height())), cudaSuccess);
        planes->push_back(data);
        EXPECT_EQ(cudaMemcpy2D(data, pitch, plane.data(), static_cast<std::size_t>(plane.stride()), row,
                               static_cast<std::size_t>(plane.height()), cudaMemcpyHostToDevice),
                  cudaSuccess);
        dev->planes[p] = {data, static_cast<std::ptrdiff_t>(pitch)};
    }
    return dev;
}
#endif

/// The scores of `clip` through a Session with vmaf_v0.6.1 (twins), ciede (a twin reading all
/// three planes), float_ssim (a twin) and null (no twin: the CPU half), fed as `feed` says.
ScoreTable score(const test::Clip& clip, Feed feed, unsigned threads) {
    SessionConfig config;
    config.threads = threads;
    Session s(config);
    ModelSpec spec;
    spec.version = "vmaf_v0.6.1";
    s.add_model(Model(spec));
    s.add_feature(metric_named("ciede"), {});
    s.add_feature(metric_named("float_ssim"), {});
    s.add_feature(metric_named("null"), {});
    if (feed != Feed::kCpu) s.use_gpu("cuda");
    for (unsigned i = 0; i < clip.frames(); ++i) {
        if (feed == Feed::kDevice) {
#ifdef VMAFX_HAVE_CUDA
            auto ref = to_device(clip.ref[i]), dist = to_device(clip.dist[i]);
            auto keep = std::make_shared<std::pair<std::shared_ptr<DevicePicture>, std::shared_ptr<DevicePicture>>>(
                ref, dist);
            s.push_device(i, clip.format, *ref, *dist, keep);
#endif
        } else {
            s.push(i, std::make_shared<Picture>(clip.ref[i]), std::make_shared<Picture>(clip.dist[i]));
        }
    }
    s.flush();
    return s.scores();
}

TEST(SessionCuda, HostAndDevicePicturesEqualTheCpuSession) {
    VMAFX_REQUIRE_GPU();
    for (const int bits : {8, 10}) {
        VideoFormat format;
        format.width = 176;
        format.height = 144;
        format.bit_depth = bits;
        format.subsampling = Subsampling::k420;
        const test::Clip clip = test::synthetic_clip(format, 9, 77u + static_cast<unsigned>(bits));
        for (const unsigned threads : {0u, 2u}) {
            const ScoreTable cpu = score(clip, Feed::kCpu, threads);
            ASSERT_TRUE(cpu.frames("vmaf") == clip.frames());
            ASSERT_TRUE(cpu.frames("ciede2000") == clip.frames());
            const std::string what = std::to_string(bits) + "-bit, threads " + std::to_string(threads);
            EXPECT_EQ(test::count_differences(cpu, score(clip, Feed::kHost, threads), what + ", host pictures"), 0);
            EXPECT_EQ(test::count_differences(cpu, score(clip, Feed::kDevice, threads), what + ", device pictures"), 0);
        }
    }
}

TEST(SessionCuda, FramesOutOfOrderAreRefused) {
    VMAFX_REQUIRE_GPU();
    VideoFormat format;
    format.width = 64;
    format.height = 48;
    const test::Clip clip = test::synthetic_clip(format, 2, 5u);
    Session s(SessionConfig{});
    s.add_feature(metric_named("psnr"), {});
    s.use_gpu("cuda");
    EXPECT_THROW(s.push(1, std::make_shared<Picture>(clip.ref[1]), std::make_shared<Picture>(clip.dist[1])),
                 UsageError);
    s.push(0, std::make_shared<Picture>(clip.ref[0]), std::make_shared<Picture>(clip.dist[0]));
    EXPECT_THROW(s.use_gpu("cuda"), UsageError);
    s.push(1, std::make_shared<Picture>(clip.ref[1]), std::make_shared<Picture>(clip.dist[1]));
    s.flush();
    EXPECT_EQ(s.scores().frames("psnr_y"), 2u);
}

TEST(SessionCuda, DevicePicturesNeedTheGpu) {
    Session s(SessionConfig{});
    EXPECT_THROW(s.push_device(0, VideoFormat{}, DevicePicture{}, DevicePicture{}, nullptr), UsageError);
}

}  // namespace
}  // namespace vmafx
