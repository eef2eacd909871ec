// PLACEHOLDER until the adm implementation lands (being written now).
#include "feature/adm/adm.hpp"

namespace vmafx {

const ExtractorInfo& adm_extractor_info() {
    static const ExtractorInfo info{"adm", {}, {}, [](const Options&, const VideoFormat&) -> std::unique_ptr<FeatureExtractor> {
        throw Error("adm: not built yet");
    }};
    return info;
}

}  // namespace vmafx
