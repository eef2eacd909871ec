// The "null" extractor (see null.hpp): extracts nothing.
#include "feature/null/null.hpp"

#include <memory>

namespace vmafx::null {

namespace {

class Extractor final : public FeatureExtractor {
public:
    void extract(const FrameInput&, FrameScores&) const override {}
};

std::unique_ptr<FeatureExtractor> create(const Options&, const VideoFormat&) { return std::make_unique<Extractor>(); }

}  // namespace

const MetricDescriptor descriptor{
    .name = "null", .oracle = {kLibvmaf, "libvmaf/src/feature/null.c"},
    .options = {}, .features = {}, .planes = nullptr,
    .limits = {1, 1, kEveryBitDepth, ""},
    .create = create};

}  // namespace vmafx::null
