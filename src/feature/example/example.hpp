// The tests' example metric "example_blur_sad" (not an upstream metric; compiled into the test
// program only): the walk-through of docs/design.md, "Adding a metric", in real code.
//
// Per frame, the luma of the reference and of the distorted picture are each blurred
// horizontally by the 3-tap filter (x[j-1] + 2 x[j] + x[j+1] + 2) >> 2 with mirrored borders
// (x[-1] = x[1], x[w] = x[w-2]); the score is the sum of absolute differences of the two blurred
// planes over the luma area, times the option `example_scale`:
//   score = sum |blur(a) - blur(b)| / (width * height) * example_scale,
// the sum running over the pairs (a, b) of planes Settings::pairs() names: (ref, dist) luma;
// with example_chroma also their Cb and Cr planes; with example_history = n also the luma of
// (previous distorted k, dist) for k < n and (previous reference, ref). So the example uses
// everything a frame can carry (chroma, previous reference and distorted pictures), and the
// tests exercise those paths of the CPU and GPU pipelines through it.
// The sum is an exact 64-bit integer; the double is formed on the host by Settings::score,
// which the CPU extractor and its CUDA twin share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/host_device.hpp"
#include "feature/metric.hpp"

namespace vmafx::example {

/// Descriptor of "example_blur_sad" (listed in feature/metrics.def under VMAFX_EXAMPLE_METRIC).
/// Options (feature parameters; ranges and defaults in example.cpp's table): example_scale
/// (alias "sc"), example_chroma ("ch"), example_history ("hist"). Output: "example_blur_sad" (with
/// non-default options e.g. "example_blur_sad_hist_2_sc_2"). Reads every plane; previous
/// pictures: example_history distorted ones and, when that is above 0, one reference. Luma at
/// least 4 x 4 (every plane at least 2 wide: the mirrored 3-tap filter needs 2 samples), 8 to
/// 16 bits.
extern const MetricDescriptor descriptor;

/// One instance's options and its host arithmetic, shared by the CPU extractor and the twin.
struct Settings {
    /// The option table's defaults (descriptor.parse_options({}) bound): the members bound to
    /// options carry no default of their own, so that each default is written once, in the table.
    Settings();
    /// The options of `descriptor` bound to the members below, and the output name.
    explicit Settings(const Options& options);

    double scale;  ///< example_scale
    bool chroma;  ///< example_chroma
    int history;  ///< example_history
    std::string name;      ///< the output name

    /// One pair of planes whose blurred difference the score sums: plane `plane` of picture
    /// `a` and of picture `b`, each named as 0 = reference, 1 = distorted, 2 + k = previous
    /// distorted k, 4 = previous reference.
    struct Pair {
        int a, b, plane;
    };
    /// The pairs, in the order the sum takes them (see the file's head). A pair whose previous
    /// picture does not exist yet (the first frames) is skipped by both extractors.
    std::vector<Pair> pairs() const;

    /// The frame's score from the exact sum of |blur(ref) - blur(dist)| over a width x height
    /// plane.
    double score(std::uint64_t sum, int width, int height) const;
};

/// The blur's taps at column j of a row of `width` samples (width >= 2), mirrored borders, before
/// the rounding: row[j - 1] + 2 row[j] + row[j + 1].
template <typename Sample>
VMAFX_HOST_DEVICE inline std::int32_t blur_taps_at(const Sample* row, int j, int width) {
    const int left = j == 0 ? 1 : j - 1;
    const int right = j == width - 1 ? width - 2 : j + 1;
    return static_cast<std::int32_t>(row[left]) + 2 * static_cast<std::int32_t>(row[j]) +
           static_cast<std::int32_t>(row[right]);
}

/// The blurred sample at column j: the taps rounded, (blur_taps_at + 2) >> 2. (The twin's planted
/// kRoundingConstant is its own variant on blur_taps_at, example_cuda.cu: the CPU's arithmetic
/// has no test-only parameter.)
template <typename Sample>
VMAFX_HOST_DEVICE inline std::int32_t blur_at(const Sample* row, int j, int width) {
    return (blur_taps_at(row, j, width) + 2) >> 2;
}

}  // namespace vmafx::example
