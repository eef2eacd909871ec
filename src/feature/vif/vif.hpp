// Integer VIF (upstream libvmaf 3.2.0 feature extractor "vif"): options, outputs, factory.
#pragma once

#include <memory>

#include "feature/feature_extractor.hpp"

namespace vmafx {

/// Registry entry of the integer VIF extractor (see vif.cpp for the algorithm and its source).
const ExtractorInfo& vif_extractor_info();

/// The CUDA twin of the integer VIF extractor (vif_cuda.cu; built with the CUDA backend only):
/// the same outputs for luma of `format`, with device memory for `slots` frames in flight.
/// Throws Error on a format the CPU extractor refuses or when slots is 0.
std::unique_ptr<GpuExtractor> make_vif_gpu(const Options& options, const VideoFormat& format, unsigned slots);

}  // namespace vmafx
