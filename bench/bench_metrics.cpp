// Per-frame cost of each CPU metric of the registry at common sizes and bit depths (one thread,
// frames in memory), and its rate on every core at 3840x2160 8-bit (BM_ExtractAllCores: one
// extractor per thread, frames in parallel, as the CLI's pipeline scores them). Run:
// build/vmafx_bench [--benchmark_filter=Extract/vif]; figures in docs/performance.md.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include <benchmark/benchmark.h>

#include "bench_support.hpp"
#include "feature/registry.hpp"

namespace vmafx {
namespace {

/// Frame kMaxHistory of `frames` as a metric reads it: every previous reference and distorted
/// picture it may read is given.
FrameInput frame_input(const bench::Frames& frames) {
    FrameInput in;
    in.index = kMaxHistory;
    in.ref = &frames.ref[0];
    in.dist = &frames.dist[0];
    for (unsigned k = 0; k < kMaxHistory; ++k) {
        in.prev_ref[k] = &frames.ref[k + 1];
        in.prev_dist[k] = &frames.dist[k + 1];
    }
    return in;
}

/// One metric with its default options on frame_input(frames), as often as the benchmark asks;
/// the fps counter is this thread's rate.
void extract_frames(benchmark::State& state, const MetricDescriptor& metric, const bench::Frames& frames) {
    const auto extractor = metric.make_extractor(metric.parse_options({}), frames.format);
    const FrameInput in = frame_input(frames);
    FrameScores out;
    for (auto _ : state) {
        out.clear();
        extractor->extract(in, out);
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

/// One metric on one thread (BM_Extract/NAME).
void extract(benchmark::State& state, const MetricDescriptor& metric) {
    const bench::Frames frames(state);
    extract_frames(state, metric, frames);
}

/// The frames of `state`'s arguments, made once and shared by the threads of a benchmark (the
/// generator writes fixed file names, so two threads must not make the same frames at once).
const bench::Frames& shared_frames(const benchmark::State& state) {
    static std::mutex mutex;
    static std::map<std::tuple<long, long, long>, std::unique_ptr<bench::Frames>> made;
    const std::lock_guard<std::mutex> lock(mutex);
    auto& frames = made[{state.range(0), state.range(1), state.range(2)}];
    if (!frames) frames = std::make_unique<bench::Frames>(state);
    return *frames;
}

/// extract() on every core at once: each thread its own extractor over the shared frames; the
/// fps counter is the sum of the threads' rates.
void extract_all_cores(benchmark::State& state, const MetricDescriptor& metric) {
    extract_frames(state, metric, shared_frames(state));
}

/// BM_Extract/NAME for every metric of the registry, and BM_ExtractAllCores/NAME.
const bool registered = [] {
    for (const MetricDescriptor* metric : metric_registry())
        benchmark::RegisterBenchmark(("BM_Extract/" + std::string(metric->name)).c_str(),
                                     [metric](benchmark::State& state) { extract(state, *metric); })
            ->Apply(bench::sizes);
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (const MetricDescriptor* metric : metric_registry())
        benchmark::RegisterBenchmark(("BM_ExtractAllCores/" + std::string(metric->name)).c_str(),
                                     [metric](benchmark::State& state) { extract_all_cores(state, *metric); })
            ->Args({3840, 2160, 8})
            ->ArgNames({"w", "h", "bits"})
            ->Threads(cores)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    return true;
}();

}  // namespace
}  // namespace vmafx

BENCHMARK_MAIN();
