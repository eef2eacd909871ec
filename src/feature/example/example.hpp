// The tests' example metric "example_blur_sad" (not an upstream metric; compiled into the test
// program only): the walk-through of docs/design.md, "Adding a metric", in real code.
//
// Per frame, the luma of the reference and of the distorted picture are each blurred
// horizontally by the 3-tap filter (x[j-1] + 2 x[j] + x[j+1] + 2) >> 2 with mirrored borders
// (x[-1] = x[1], x[w] = x[w-2]); the score is the mean absolute difference of the two blurred
// planes, times the option `example_scale`:
//   score = sum |blur(ref) - blur(dist)| / (width * height) * example_scale.
// The sum is an exact 64-bit integer; the double is formed on the host by Settings::score,
// which the CPU extractor and its CUDA twin share.
#pragma once

#include <cstdint>
#include <string>

#include "base/host_device.hpp"
#include "feature/metric.hpp"

namespace vmafx::example {

/// Descriptor of "example_blur_sad" (listed in feature/metrics.def under VMAFX_EXAMPLE_METRIC).
/// Options: example_scale (alias "sc", [0.5, 4], 1, a feature parameter). Output:
/// "example_blur_sad" (with a non-default scale: "example_blur_sad_sc_<value>"). Luma only,
/// no previous pictures; luma at least 2 x 2 (the mirrored 3-tap filter needs 2 samples),
/// 8 to 16 bits.
extern const MetricDescriptor descriptor;

/// One instance's options and its host arithmetic, shared by the CPU extractor and the twin.
struct Settings {
    Settings() = default;
    /// The options of `descriptor` bound to the members below, and the output name.
    explicit Settings(const Options& options);

    double scale = 1.0;  ///< example_scale
    std::string name;    ///< the output name

    /// The frame's score from the exact sum of |blur(ref) - blur(dist)| over a width x height
    /// plane.
    double score(std::uint64_t sum, int width, int height) const;
};

/// The blurred sample at column j of a row of `width` samples (width >= 2), mirrored borders;
/// `round` is the rounding constant (2; the twin's planted defect changes it).
template <typename Sample>
VMAFX_HOST_DEVICE inline std::int32_t blur_at(const Sample* row, int j, int width, std::int32_t round = 2) {
    const int left = j == 0 ? 1 : j - 1;
    const int right = j == width - 1 ? width - 2 : j + 1;
    return (static_cast<std::int32_t>(row[left]) + 2 * static_cast<std::int32_t>(row[j]) +
            static_cast<std::int32_t>(row[right]) + round) >> 2;
}

}  // namespace vmafx::example
