// Per-frame cost of each CPU metric of the registry at common sizes and bit depths (one thread,
// frames in memory). Run: build/vmafx_bench [--benchmark_filter=Extract/vif]; figures in
// docs/performance.md.
#include <string>

#include <benchmark/benchmark.h>

#include "bench_support.hpp"
#include "feature/registry.hpp"

namespace vmafx {
namespace {

/// One metric with its default options on frame 2 of a video: every previous reference and
/// distorted picture it may read is given.
void extract(benchmark::State& state, const MetricDescriptor& metric) {
    const bench::Frames frames(state);
    const auto extractor = metric.make_extractor(metric.parse_options({}), frames.format);
    FrameInput in;
    in.index = kMaxHistory;
    in.ref = &frames.ref[0];
    in.dist = &frames.dist[0];
    for (unsigned k = 0; k < kMaxHistory; ++k) {
        in.prev_ref[k] = &frames.ref[k + 1];
        in.prev_dist[k] = &frames.dist[k + 1];
    }
    FrameScores out;
    for (auto _ : state) {
        out.clear();
        extractor->extract(in, out);
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

/// BM_Extract/NAME for every metric of the registry.
const bool registered = [] {
    for (const MetricDescriptor* metric : metric_registry())
        benchmark::RegisterBenchmark(("BM_Extract/" + std::string(metric->name)).c_str(),
                                     [metric](benchmark::State& state) { extract(state, *metric); })
            ->Apply(bench::sizes);
    return true;
}();

}  // namespace
}  // namespace vmafx

BENCHMARK_MAIN();
