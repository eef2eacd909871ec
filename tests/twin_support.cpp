#include "twin_support.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cuda/gpu_scorer.hpp"
#include "test_support.hpp"

namespace vmafx::test {

void expect_exact_twin_entry(const ExtractorInfo& info, const Options& options, const std::vector<VideoFormat>& refused,
                             const VideoFormat& accepted) {
#ifdef VMAFX_HAVE_CUDA
    ASSERT_TRUE(static_cast<bool>(info.create_gpu)) << info.name << " has no CUDA twin registered";
    EXPECT_TRUE(info.gpu_contract.exact);
    EXPECT_EQ(info.gpu_contract.bound, 0.0);
    EXPECT_NE(std::string(info.gpu_contract.derivation), "");
    for (const VideoFormat& bad : refused) {
        SCOPED_TRACE(fmt::format("{} {}x{} {}-bit", info.name, bad.width, bad.height, bad.bit_depth));
        EXPECT_THROW(info.create(options, bad), Error);
        EXPECT_THROW(info.create_gpu(options, bad, 4), Error);
    }
    EXPECT_NO_THROW(info.create(options, accepted));
    EXPECT_THROW(info.create_gpu(options, accepted, 0), Error);
#else
    (void)options, (void)refused, (void)accepted;
    EXPECT_FALSE(static_cast<bool>(info.create_gpu)) << "CUDA backend not built, yet a twin is registered";
#endif
}

void set_sample(Picture& pic, int x, int y, std::uint32_t v) {
    Plane& luma = pic.luma();
    if (luma.bytes_per_sample() == 1) luma.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
    else luma.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
}

Clip fixture_clip(const std::string& name, unsigned max_frames) {
    Clip clip{fixture_format(name), {}, {}};
    const unsigned frames = std::min(fixture_frames(name), max_frames);
    for (unsigned i = 0; i < frames; ++i) {
        clip.ref.push_back(fixture_frame(name, "ref", i));
        clip.dist.push_back(fixture_frame(name, "dist", i));
    }
    return clip;
}

ScoreTable run_cpu(const ExtractorInfo& info, const Options& options, const Clip& clip) {
    const auto fex = info.create(options, clip.format);
    ScoreTable table;
    for (unsigned i = 0; i < clip.ref.size(); ++i) {
        FrameInput in;
        in.index = i;
        in.ref = &clip.ref[i];
        in.dist = &clip.dist[i];
        if (fex->previous_refs() >= 1 && i >= 1) in.prev_ref = &clip.ref[i - 1];
        if (fex->previous_refs() >= 2 && i >= 2) in.prev_prev_ref = &clip.ref[i - 2];
        FrameScores scores;
        fex->extract(in, scores);
        for (const auto& [name, value] : scores) table.set(name, i, value);
    }
    fex->flush(table);
    return table;
}

ScoreTable run_gpu(const ExtractorInfo& info, const Options& options, const Clip& clip, unsigned slots) {
#ifdef VMAFX_HAVE_CUDA
    GpuScorer scorer({FeatureInstance{&info, options}}, clip.format, slots);
    for (unsigned i = 0; i < clip.ref.size(); ++i) scorer.submit(i, clip.ref[i].luma(), clip.dist[i].luma());
    return scorer.drain();
#else
    (void)info, (void)options, (void)clip, (void)slots;
    throw Error("the CUDA backend is not built");
#endif
}

int count_differences(const ScoreTable& cpu, const ScoreTable& gpu, const std::string& what, bool report) {
    auto cpu_names = cpu.names(), gpu_names = gpu.names();
    std::sort(cpu_names.begin(), cpu_names.end());
    std::sort(gpu_names.begin(), gpu_names.end());
    if (report) {
        EXPECT_EQ(cpu_names, gpu_names) << what << ": the twin writes other outputs than the CPU";
    }
    int differences = cpu_names == gpu_names ? 0 : 1;
    for (const auto& name : cpu_names) {
        const unsigned frames = std::max(cpu.frames(name), gpu.frames(name));
        for (unsigned i = 0; i < frames; ++i) {
            const auto want = cpu.get(name, i), got = gpu.get(name, i);
            const bool same = want.has_value() == got.has_value() &&
                              (!want || std::bit_cast<std::uint64_t>(*want) == std::bit_cast<std::uint64_t>(*got));
            if (!same && ++differences <= 8 && report)
                ADD_FAILURE() << what << " frame " << i << " " << name << ": cuda "
                              << (got ? fmt::format("{:.17g}", *got) : "(none)") << ", cpu "
                              << (want ? fmt::format("{:.17g}", *want) : "(none)");
        }
    }
    return differences;
}

}  // namespace vmafx::test
