// The "null" extractor: upstream's feature extractor that computes nothing (a do-nothing
// extractor clients such as FFmpeg's `feature=name=null` can register, e.g. to time decoding).
// It reads the luma of each frame pair and writes no score.
#pragma once

#include "feature/metric.hpp"

namespace vmafx::null {

/// Descriptor of "null": no options, no features, luma only, every format.
extern const MetricDescriptor descriptor;

}  // namespace vmafx::null
