// Per-frame cost of each CPU metric at common sizes and bit depths (one thread, frames in
// memory). Run: build/vmafx_bench [--benchmark_filter=...]; figures in docs/performance.md.
#include <random>
#include <string>

#include <benchmark/benchmark.h>

#include "feature/feature_extractor.hpp"

namespace vmafx {
namespace {

/// A pair of synthetic frames: a smooth gradient with texture (reference) and a noisy copy.
struct FramePair {
    Picture ref, dist, prev_ref;
    explicit FramePair(const VideoFormat& f) : ref(f), dist(f), prev_ref(f) {
        std::mt19937 rng(42);
        const int max = (1 << f.bit_depth) - 1;
        for (int p = 0; p < 3; ++p)
            for (int y = 0; y < f.plane_height(p); ++y)
                for (int x = 0; x < f.plane_width(p); ++x) {
                    const int base = ((x * 3 + y * 2) % 256) << (f.bit_depth - 8);
                    const int r = std::clamp(base + static_cast<int>(rng() % 17) - 8, 0, max);
                    const int d = std::clamp(r + static_cast<int>(rng() % 9) - 4, 0, max);
                    const int q = std::clamp(r + 2, 0, max);
                    if (f.bit_depth > 8) {
                        ref.planes[p].row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(r);
                        dist.planes[p].row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(d);
                        prev_ref.planes[p].row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(q);
                    } else {
                        ref.planes[p].row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(r);
                        dist.planes[p].row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(d);
                        prev_ref.planes[p].row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(q);
                    }
                }
    }
};

void BM_Extract(benchmark::State& state, const char* metric) {
    VideoFormat f;
    f.width = static_cast<int>(state.range(0));
    f.height = static_cast<int>(state.range(1));
    f.bit_depth = static_cast<int>(state.range(2));
    const ExtractorInfo* info = find_extractor(metric);
    auto extractor = info->create(Options(metric, info->options, {}), f);
    FramePair frames(f);
    FrameInput in;
    in.index = 1;
    in.ref = &frames.ref;
    in.dist = &frames.dist;
    in.prev_ref = &frames.prev_ref;
    in.prev_prev_ref = &frames.prev_ref;
    FrameScores out;
    for (auto _ : state) {
        out.clear();
        extractor->extract(in, out);
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void sizes(benchmark::internal::Benchmark* b) {
    for (int depth : {8, 10}) {
        b->Args({576, 324, depth});
        b->Args({1920, 1080, depth});
        b->Args({3840, 2160, depth});
    }
    b->ArgNames({"w", "h", "bits"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK_CAPTURE(BM_Extract, vif, "vif")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Extract, adm, "adm")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Extract, motion, "motion")->Apply(sizes);

}  // namespace
}  // namespace vmafx

BENCHMARK_MAIN();
