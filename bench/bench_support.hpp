// What the benchmarks share: frames of random content held in memory, and the sizes they run.
#pragma once

#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "io/video_reader.hpp"
#include "parity/inputs.hpp"

namespace vmafx::bench {

/// Distinct frames a benchmark cycles through.
constexpr int kDistinctFrames = 8;

/// kDistinctFrames reference/distorted frames of random content (the parity gate's generator:
/// a smooth pattern with noise; the distorted frames with more noise), written to raw files in
/// the temporary folder and read back, every plane, as the engine reads them.
struct Frames {
    VideoFormat format;
    std::vector<Picture> ref, dist;
    Frames(int w, int h, int bits) {
        format.width = w;
        format.height = h;
        format.bit_depth = bits;
        const std::string base = "/tmp/vmafx_bench_" + std::to_string(w) + "x" + std::to_string(h) + "_" +
                                 std::to_string(bits);
        write_random_video(base + "_ref.yuv", format, kDistinctFrames, 1, 0);
        write_random_video(base + "_dist.yuv", format, kDistinctFrames, 2, 3 << (bits - 8));
        auto r = open_video(base + "_ref.yuv", format), d = open_video(base + "_dist.yuv", format);
        for (int i = 0; i < kDistinctFrames; ++i) {
            ref.emplace_back(format);
            dist.emplace_back(format);
            r->read(ref.back());
            d->read(dist.back());
        }
    }
    /// Frames given as state.range(0..2): width, height, bit depth.
    explicit Frames(const benchmark::State& state)
        : Frames(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), static_cast<int>(state.range(2))) {}
};

/// 576x324, 1920x1080 and 3840x2160 at 8 and 10 bits (args w, h, bits), real time in ms.
inline void sizes(benchmark::internal::Benchmark* b) {
    for (int bits : {8, 10}) {
        b->Args({576, 324, bits});
        b->Args({1920, 1080, bits});
        b->Args({3840, 2160, bits});
    }
    b->ArgNames({"w", "h", "bits"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace vmafx::bench
