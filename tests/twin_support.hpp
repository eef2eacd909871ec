// The harness the CUDA twin tests share: a clip of reference/distorted pictures, the CPU
// extractor and its twin run over it, and a bit-for-bit comparison of their score tables.
// Each metric's test keeps its own clip content (make_clip), chosen for its arithmetic.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "feature/feature_extractor.hpp"
#include "picture/picture.hpp"

namespace vmafx::test {

/// Option values of an extractor, as a test gives them ({name, value} pairs).
using OptionValues = std::vector<std::pair<std::string, std::string>>;

/// Checks extractor `info`'s registry entry, needing no GPU: with the CUDA backend built, a
/// twin declared exact (bound 0, with a derivation) that refuses every format in `refused`
/// as the CPU extractor does, and 0 result slots for the format `accepted`, before any device
/// work; without the backend, no twin registered.
void expect_exact_twin_entry(const ExtractorInfo& info, const Options& options, const std::vector<VideoFormat>& refused,
                             const VideoFormat& accepted);

/// Reference and distorted pictures of a synthetic or fixture video, all of `format`.
struct Clip {
    VideoFormat format;
    std::vector<Picture> ref, dist;
};

/// Sets luma sample (x, y) of `pic` to `v` (which must fit the sample word).
void set_sample(Picture& pic, int x, int y, std::uint32_t v);

/// The first `max_frames` frames (at most) of fixture `name`'s ref and dist .yuv files.
Clip fixture_clip(const std::string& name, unsigned max_frames);

/// The CPU extractor `info` with `options` over the clip, frames in order (each given its
/// previous references when the extractor keeps history), then flush().
ScoreTable run_cpu(const ExtractorInfo& info, const Options& options, const Clip& clip);

/// The CUDA twin of `info` over the clip through a GpuScorer with `slots` frames in flight,
/// then drain(). Throws Error as GpuScorer does (no usable device, no twin).
ScoreTable run_gpu(const ExtractorInfo& info, const Options& options, const Clip& clip, unsigned slots);

/// Compares every output of every frame of two tables bit for bit; returns the number of
/// differing values (an output only one table has counts once). When `report`, the first
/// eight differences (and differing output names) are test failures naming `what`.
int count_differences(const ScoreTable& cpu, const ScoreTable& gpu, const std::string& what, bool report = true);

}  // namespace vmafx::test
