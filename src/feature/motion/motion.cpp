// PLACEHOLDER until the motion implementation lands (being written now).
#include "feature/motion/motion.hpp"

namespace vmafx {

const ExtractorInfo& motion_extractor_info() {
    static const ExtractorInfo info{"motion", {}, {}, [](const Options&, const VideoFormat&) -> std::unique_ptr<FeatureExtractor> {
        throw Error("motion: not built yet");
    }};
    return info;
}

}  // namespace vmafx
