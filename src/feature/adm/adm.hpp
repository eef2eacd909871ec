// Integer ADM (upstream libvmaf 3.2.0 feature extractor "adm"): options, outputs, factory.
#pragma once

#include "feature/feature_extractor.hpp"

namespace vmafx {

/// Registry entry of the integer ADM extractor (see adm.cpp for the algorithm and its source).
const ExtractorInfo& adm_extractor_info();

}  // namespace vmafx
