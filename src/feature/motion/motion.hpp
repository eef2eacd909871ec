// Integer MOTION (upstream libvmaf 3.2.0 feature extractor "motion"): options, outputs, factory.
#pragma once

#include "feature/feature_extractor.hpp"

namespace vmafx {

/// Registry entry of the integer MOTION extractor (see motion.cpp for the algorithm and its source).
const ExtractorInfo& motion_extractor_info();

}  // namespace vmafx
