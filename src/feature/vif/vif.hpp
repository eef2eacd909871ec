// Integer VIF (upstream libvmaf 3.2.0 feature extractor "vif"): options, outputs, factory.
#pragma once

#include "feature/feature_extractor.hpp"

namespace vmafx {

/// Registry entry of the integer VIF extractor (see vif.cpp for the algorithm and its source).
const ExtractorInfo& vif_extractor_info();

}  // namespace vmafx
