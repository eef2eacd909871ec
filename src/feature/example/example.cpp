// CPU reference of the example metric (see example.hpp).
#include "feature/example/example.hpp"

#include <cstdlib>
#include <memory>

namespace vmafx::example {

namespace {

constexpr OptionSpec kOptions[] = {
    option<&Settings::scale>("example_scale", "sc", 1.0, 0.5, 4.0, true, "multiplies the score"),
};

constexpr FeatureName kFeatures[] = {{"example_blur_sad"}};

/// Sum over the rows of |blur(ref) - blur(dist)|, exact in 64 bits.
template <typename Sample>
std::uint64_t blurred_sad(const Plane& ref, const Plane& dis) {
    std::uint64_t sum = 0;
    for (int y = 0; y < ref.height(); ++y) {
        const Sample* r = ref.row<Sample>(y);
        const Sample* d = dis.row<Sample>(y);
        for (int x = 0; x < ref.width(); ++x)
            sum += static_cast<std::uint64_t>(std::abs(blur_at(r, x, ref.width()) - blur_at(d, x, ref.width())));
    }
    return sum;
}

class Extractor final : public FeatureExtractor {
public:
    Extractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        const Plane& ref = in.ref->luma();
        const Plane& dis = in.dist->luma();
        const std::uint64_t sum =
            format_.bit_depth == 8 ? blurred_sad<std::uint8_t>(ref, dis) : blurred_sad<std::uint16_t>(ref, dis);
        out.emplace_back(settings_.name, settings_.score(sum, format_.width, format_.height));
    }

private:
    VideoFormat format_;
    Settings settings_;
};

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    return std::make_unique<Extractor>(options, format);
}

}  // namespace

Settings::Settings(const Options& options) : name(options.feature_name(kFeatures[0].name)) { options.bind(*this); }

double Settings::score(std::uint64_t sum, int width, int height) const {
    return static_cast<double>(sum) / (static_cast<double>(width) * height) * scale;
}

const MetricDescriptor descriptor{
    .name = "example_blur_sad", .upstream_source = "",
    .options = kOptions, .features = kFeatures,
    .limits = {2, 2, 8, 16, "(the mirrored 3-tap blur needs 2 samples)"},
    .create = create};

}  // namespace vmafx::example
