// Whole-frame throughput of the VMAF v0.6.1 feature set (integer VIF, ADM, motion), and of the
// feature sets of issue 25's target models (kTargetModels) at 3840x2160 8-bit, frames held in memory: the CPU reference with 1 and all threads, and the CUDA twins with frames in
// pinned host memory (uploaded each frame) and already on the device; and the reading of frame
// pairs from files in the page cache. Counters: fps, and for the GPU the bytes uploaded per
// frame and the host-to-device bandwidth they use.
// Run: build/vmafx_bench --benchmark_filter=Pipeline ; figures in docs/performance.md.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <benchmark/benchmark.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/task_arena.h>

#include "bench_support.hpp"
#include "engine/core.hpp"
#include "gpu/scheduler.hpp"
#include "feature/registry.hpp"
#include "io/video_reader.hpp"
#include "model/model.hpp"

#ifdef VMAFX_HAVE_CUDA
#include "cuda/device.hpp"
#endif

namespace vmafx {
namespace {

using bench::Frames;
using bench::kDistinctFrames;

/// The metric instances of built-in model `version` (by default the default model's).
std::vector<FeatureInstance> vmaf_features(const std::string& version = "vmaf_v0.6.1") {
    std::vector<FeatureInstance> out;
    for (const auto& req : Model(parse_model_spec("version=" + version)).required_features())
        out.push_back({req.metric, req.metric->parse_options(req.options)});
    return out;
}

/// The models of issue 25's targets, beside the default one: BM_PipelineCpuAll/MODEL and
/// BM_PipelineGpuHostFrames/MODEL at 3840x2160 8-bit.
constexpr const char* kTargetModels[] = {"vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_hfr_3d0h", "vmaf_float_v0.6.1"};

void cpu(benchmark::State& state, unsigned threads, const std::string& model = "vmaf_v0.6.1") {
    const Frames frames(state);
    std::vector<std::unique_ptr<FeatureExtractor>> ex;
    for (const auto& f : vmaf_features(model)) ex.push_back(f.metric->make_extractor(f.options, frames.format));
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    const int batch = static_cast<int>(2 * threads);
    for (auto _ : state) {
        tbb::parallel_for(0, batch, [&](int i) {
            FrameInput in;
            in.index = kMaxHistory;
            in.ref = &frames.ref[i % kDistinctFrames];
            in.dist = &frames.dist[i % kDistinctFrames];
            for (unsigned k = 0; k < kMaxHistory; ++k) {
                in.prev_ref[k] = &frames.ref[(i + 1 + k) % kDistinctFrames];
                in.prev_dist[k] = &frames.dist[(i + 1 + k) % kDistinctFrames];
            }
            FrameScores out;
            for (const auto& e : ex) e->extract(in, out);
            benchmark::DoNotOptimize(out.data());
        });
    }
    state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()) * batch, benchmark::Counter::kIsRate);
}

void BM_PipelineCpu1(benchmark::State& state) { cpu(state, 1); }
void BM_PipelineCpuAll(benchmark::State& state) { cpu(state, std::max(1u, std::thread::hardware_concurrency())); }
BENCHMARK(BM_PipelineCpu1)->Apply(bench::sizes);
BENCHMARK(BM_PipelineCpuAll)->Apply(bench::sizes);
const bool cpu_models_registered = [] {
    for (const char* model : kTargetModels) {
        const std::string name(model);
        benchmark::RegisterBenchmark(("BM_PipelineCpuAll/" + name).c_str(),
                                     [name](benchmark::State& state) {
                                         cpu(state, std::max(1u, std::thread::hardware_concurrency()), name);
                                     })
            ->Args({3840, 2160, 8})
            ->ArgNames({"w", "h", "bits"})
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    }
    return true;
}();

/// Reading frame pairs from raw files in the page cache, as the engine does (both files at
/// once, planes in parallel pieces): luma only (arg planes=1, what the VMAF features read) and
/// all three planes (planes=3). Each file holds at least 1 GiB (kDistinctFrames frames of
/// random content, repeated), more than the CPU's caches, and the frames land in a ring of
/// ScoringCore::kGpuSlots + 4 picture pairs, as the GPU pipeline's read stage reads them: the
/// ceiling of the CLI's throughput from the page cache. Arg threads: the readers' threads (0:
/// every core; -1: every core but one, as in the GPU pipeline, whose submit stage holds one).
/// Counters: fps, GB/s read.
void BM_ReadPair(benchmark::State& state) {
    VideoFormat format;
    format.width = static_cast<int>(state.range(0));
    format.height = static_cast<int>(state.range(1));
    const PlaneSet which = state.range(2) == 1 ? PlaneSet::kLuma : PlaneSet::kAll;
    const std::string base = "/tmp/vmafx_bench_read_" + std::to_string(format.width) + "x" + std::to_string(format.height);
    constexpr std::size_t kFileBytes = std::size_t{1} << 30;
    const std::size_t copies = (kFileBytes + kDistinctFrames * format.frame_bytes() - 1) / (kDistinctFrames * format.frame_bytes());
    for (const auto& [name, seed, offset] : {std::tuple{base + "_ref.yuv", 1, 0}, std::tuple{base + "_dist.yuv", 2, 3}}) {
        write_random_video(name, format, kDistinctFrames, static_cast<unsigned>(seed), offset);
        std::ifstream in(name, std::ios::binary);
        const std::string frames_bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        in.close();
        std::ofstream out(name, std::ios::binary | std::ios::app);
        for (std::size_t c = 1; c < copies; ++c) out.write(frames_bytes.data(), static_cast<std::streamsize>(frames_bytes.size()));
        if (!out) {
            state.SkipWithError(("cannot write " + name).c_str());
            std::remove((base + "_ref.yuv").c_str());
            std::remove((base + "_dist.yuv").c_str());
            return;
        }
    }
    const int total = static_cast<int>(copies) * kDistinctFrames;
    std::vector<Picture> refs, dists;
    for (unsigned k = 0; k < ScoringCore::kGpuSlots + 4; ++k) {
        refs.emplace_back(format);
        dists.emplace_back(format);
    }
    std::unique_ptr<VideoReader> r, d;
    std::size_t frames = 0;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = state.range(3) > 0 ? static_cast<int>(state.range(3)) : std::max(1, cores + static_cast<int>(state.range(3)));
    tbb::task_arena arena(threads);
    for (auto _ : state) {
        if (frames % static_cast<std::size_t>(total) == 0) {
            r = open_video(base + "_ref.yuv", format);
            d = open_video(base + "_dist.yuv", format);
        }
        Picture& ref = refs[frames % refs.size()];
        Picture& dist = dists[frames % dists.size()];
        arena.execute([&] { tbb::parallel_invoke([&] { r->read(ref, which); }, [&] { d->read(dist, which); }); });
        ++frames;
    }
    const double bytes = 2.0 * static_cast<double>(which == PlaneSet::kLuma
                                                        ? static_cast<std::size_t>(format.width) * format.height
                                                        : format.frame_bytes());
    state.counters["fps"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
    state.counters["read_GBps"] = benchmark::Counter(static_cast<double>(frames) * bytes / 1e9, benchmark::Counter::kIsRate);
    std::remove((base + "_ref.yuv").c_str());
    std::remove((base + "_dist.yuv").c_str());
}
BENCHMARK(BM_ReadPair)
    ->Args({1920, 1080, 1, 0})
    ->Args({1920, 1080, 1, -1})
    ->Args({1920, 1080, 3, 0})
    ->Args({3840, 2160, 1, 0})
    ->Args({3840, 2160, 1, -1})
    ->Args({3840, 2160, 3, 0})
    ->Args({3840, 2160, 3, -1})
    ->ArgNames({"w", "h", "planes", "threads"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

#ifdef VMAFX_HAVE_CUDA
constexpr int kBatch = 64;  // frames per timed iteration

bool gpu_ready(benchmark::State& state) {
    if (const auto why = gpu_unavailable_reason("cuda"); !why.empty()) {
        state.SkipWithError(("no usable GPU: " + why).c_str());
        return false;
    }
    return true;
}

void gpu_host_frames(benchmark::State& state, const std::string& model) {
    if (!gpu_ready(state)) return;
    const Frames frames(state);
    // As many frames in flight as the engine keeps (what a CLI run does).
    GpuScorer scorer(vmaf_features(model), frames.format, "cuda", ScoringCore::kGpuSlots);
    for (int i = 0; i < kDistinctFrames; ++i) {
        scorer.pin(frames.ref[i]);
        scorer.pin(frames.dist[i]);
    }
    unsigned index = 0;
    for (auto _ : state) {
        for (int k = 0; k < kBatch; ++k, ++index)
            scorer.submit(index, frames.ref[index % kDistinctFrames], frames.dist[index % kDistinctFrames]);
        scorer.wait_all();
    }
    const double bytes = 2.0 * static_cast<double>(scorer.planes() == PlaneSet::kAll
                                                        ? frames.format.frame_bytes()
                                                        : static_cast<std::size_t>(frames.format.width) *
                                                              frames.format.height * frames.format.bytes_per_sample());
    state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()) * kBatch, benchmark::Counter::kIsRate);
    state.counters["upload_B_per_frame"] = bytes;
    state.counters["upload_GBps"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * kBatch * bytes / 1e9, benchmark::Counter::kIsRate);
}

void BM_PipelineGpuHostFrames(benchmark::State& state) { gpu_host_frames(state, "vmaf_v0.6.1"); }

/// The VMAF features on frames already on the device, `slots` frames in flight.
void gpu_device_frames(benchmark::State& state, unsigned slots) {
    if (!gpu_ready(state)) return;
    const Frames frames(state);
    GpuScorer scorer(vmaf_features(), frames.format, "cuda", slots);
    const std::size_t row = static_cast<std::size_t>(frames.format.width) * frames.format.bytes_per_sample();
    std::vector<cuda::DeviceBuffer<std::uint8_t>> ref, dist;
    for (int i = 0; i < kDistinctFrames; ++i) {
        ref.emplace_back(row * frames.format.height);
        dist.emplace_back(row * frames.format.height);
        cuda::check(cudaMemcpy2D(ref.back().get(), row, frames.ref[i].luma().data(), frames.ref[i].luma().stride(), row,
                                 frames.format.height, cudaMemcpyHostToDevice), "bench upload");
        cuda::check(cudaMemcpy2D(dist.back().get(), row, frames.dist[i].luma().data(), frames.dist[i].luma().stride(),
                                 row, frames.format.height, cudaMemcpyHostToDevice), "bench upload");
    }
    unsigned index = 0;
    for (auto _ : state) {
        for (int k = 0; k < kBatch; ++k, ++index) {
            const int i = static_cast<int>(index % kDistinctFrames);
            DevicePicture r, d;  // luma only: what the VMAF features read
            r.planes[0] = {ref[i].get(), static_cast<std::ptrdiff_t>(row)};
            d.planes[0] = {dist[i].get(), static_cast<std::ptrdiff_t>(row)};
            scorer.submit_device(index, r, d);
        }
        scorer.wait_all();
    }
    state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()) * kBatch, benchmark::Counter::kIsRate);
}

void BM_PipelineGpuDeviceFrames(benchmark::State& state) { gpu_device_frames(state, 4); }

/// As BM_PipelineGpuDeviceFrames at 3840x2160 8-bit with 2 to 16 frames in flight: how much
/// more frames in flight overlap the small kernels of the lower scales and levels.
void BM_PipelineGpuSlots(benchmark::State& state) { gpu_device_frames(state, static_cast<unsigned>(state.range(3))); }
BENCHMARK(BM_PipelineGpuSlots)
    ->Args({3840, 2160, 8, 2})
    ->Args({3840, 2160, 8, 4})
    ->Args({3840, 2160, 8, 8})
    ->Args({3840, 2160, 8, 16})
    ->ArgNames({"w", "h", "bits", "slots"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

/// Host-to-device copy bandwidth from pinned memory: the ceiling of the host-frames case.
void BM_CopyHostToDevice(benchmark::State& state) {
    if (!gpu_ready(state)) return;
    const std::size_t bytes = 256u << 20;
    cuda::PinnedBuffer<std::uint8_t> host(bytes);
    cuda::DeviceBuffer<std::uint8_t> dev(bytes);
    std::fill(host.get(), host.get() + bytes, 1);
    for (auto _ : state) {
        cuda::check(cudaMemcpy(dev.get(), host.get(), bytes, cudaMemcpyHostToDevice), "copy");
    }
    state.counters["GBps"] = benchmark::Counter(static_cast<double>(state.iterations()) * bytes / 1e9, benchmark::Counter::kIsRate);
}

/// Metric instances `features` on frames already on the device, every plane they read, `slots`
/// frames in flight: the cost of their kernels and sums per frame.
void features_device_frames(benchmark::State& state, const std::vector<FeatureInstance>& features,
                            unsigned slots = 4) {
    if (!gpu_ready(state)) return;
    const Frames frames(state);
    GpuScorer scorer(features, frames.format, "cuda", slots);
    const int planes = scorer.planes() == PlaneSet::kAll ? 3 : 1;
    // Per distinct frame and plane: device copies of the reference and distorted planes.
    std::vector<cuda::DeviceBuffer<std::uint8_t>> buffers;
    std::vector<DevicePicture> ref(kDistinctFrames), dist(kDistinctFrames);
    for (int i = 0; i < kDistinctFrames; ++i)
        for (int p = 0; p < planes; ++p)
            for (int side = 0; side < 2; ++side) {
                const Plane& plane = (side ? frames.dist[i] : frames.ref[i]).planes[p];
                const std::size_t row = static_cast<std::size_t>(plane.width()) * frames.format.bytes_per_sample();
                buffers.emplace_back(row * plane.height());
                cuda::check(cudaMemcpy2D(buffers.back().get(), row, plane.data(), plane.stride(), row, plane.height(),
                                         cudaMemcpyHostToDevice), "bench upload");
                (side ? dist : ref)[i].planes[p] = {buffers.back().get(), static_cast<std::ptrdiff_t>(row)};
            }
    unsigned index = 0;
    for (auto _ : state) {
        for (int k = 0; k < kBatch; ++k, ++index)
            scorer.submit_device(index, ref[index % kDistinctFrames], dist[index % kDistinctFrames]);
        scorer.wait_all();
    }
    state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()) * kBatch, benchmark::Counter::kIsRate);
}

/// One twin alone (default options): BM_Twin/NAME, for every registered twin.
void twin_device_frames(benchmark::State& state, const TwinDescriptor& twin) {
    const MetricDescriptor& metric = metric_named(twin.metric);
    features_device_frames(state, {FeatureInstance{&metric, metric.parse_options({})}});
}

const bool twins_registered = [] {
    for (const TwinDescriptor* twin : twin_registry())
        benchmark::RegisterBenchmark(("BM_Twin/" + std::string(twin->metric)).c_str(),
                                     [twin](benchmark::State& state) { twin_device_frames(state, *twin); })
            ->Apply(bench::sizes);
    return true;
}();

/// Where a target model's GPU time goes, frames on the device at 3840x2160 8-bit:
/// BM_ModelTwin/MODEL/METRIC, each of the model's metric instances alone with the model's
/// options; BM_ModelDeviceFrames/MODEL/slots:N, all of them together, N frames in flight.
const bool model_twins_registered = [] {
    for (const char* model : kTargetModels) {
        const std::string name(model);
        const std::vector<FeatureInstance> all = vmaf_features(name);
        for (const FeatureInstance& f : all)
            benchmark::RegisterBenchmark(("BM_ModelTwin/" + name + "/" + f.metric->name).c_str(),
                                         [f](benchmark::State& state) { features_device_frames(state, {f}); })
                ->Args({3840, 2160, 8})
                ->ArgNames({"w", "h", "bits"})
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("BM_ModelDeviceFrames/" + name).c_str(),
                                     [all](benchmark::State& state) {
                                         features_device_frames(state, all, static_cast<unsigned>(state.range(3)));
                                     })
            ->Args({3840, 2160, 8, 4})
            ->Args({3840, 2160, 8, 8})
            ->Args({3840, 2160, 8, 16})
            ->ArgNames({"w", "h", "bits", "slots"})
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    }
    return true;
}();

BENCHMARK(BM_PipelineGpuHostFrames)->Apply(bench::sizes);
const bool models_registered = [] {
    for (const char* model : kTargetModels) {
        const std::string name(model);
        benchmark::RegisterBenchmark(("BM_PipelineGpuHostFrames/" + name).c_str(),
                                     [name](benchmark::State& state) { gpu_host_frames(state, name); })
            ->Args({3840, 2160, 8})
            ->ArgNames({"w", "h", "bits"})
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    }
    return true;
}();
BENCHMARK(BM_PipelineGpuDeviceFrames)->Apply(bench::sizes);
BENCHMARK(BM_CopyHostToDevice)->UseRealTime()->Unit(benchmark::kMillisecond);
#endif

}  // namespace
}  // namespace vmafx
