// PLACEHOLDER until the vif implementation lands (being written now).
#include "feature/vif/vif.hpp"

namespace vmafx {

const ExtractorInfo& vif_extractor_info() {
    static const ExtractorInfo info{"vif", {}, {}, [](const Options&, const VideoFormat&) -> std::unique_ptr<FeatureExtractor> {
        throw Error("vif: not built yet");
    }};
    return info;
}

}  // namespace vmafx
