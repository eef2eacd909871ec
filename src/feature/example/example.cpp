// CPU reference of the example metric (see example.hpp).
#include "feature/example/example.hpp"

#include <cstdlib>
#include <memory>

namespace vmafx::example {

namespace {

constexpr OptionSpec kOptions[] = {
    option<&Settings::scale>("example_scale", "sc", 1.0, 0.5, 4.0, OptionRole::kFeatureParameter, "multiplies the score"),
    option<&Settings::chroma>("example_chroma", "ch", 0, 0, 1, OptionRole::kFeatureParameter, "also the chroma planes"),
    option<&Settings::history>("example_history", "hist", 0, 0, 2, OptionRole::kFeatureParameter,
                               "also the previous distorted pictures (and the previous reference)"),
};

constexpr FeatureName kFeatures[] = {{"example_blur_sad"}};

/// Sum over the rows of |blur(ref) - blur(dis)|, exact in 64 bits (planes of one size).
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
        const Picture* pictures[] = {in.ref, in.dist, in.prev_dist[0], in.prev_dist[1], in.prev_ref[0]};
        std::uint64_t sum = 0;
        for (const Settings::Pair& p : settings_.pairs()) {
            if (!pictures[p.a] || !pictures[p.b]) continue;  // before the start
            const Plane& a = pictures[p.a]->planes[p.plane];
            const Plane& b = pictures[p.b]->planes[p.plane];
            sum += format_.bit_depth == 8 ? blurred_sad<std::uint8_t>(a, b) : blurred_sad<std::uint16_t>(a, b);
        }
        out.emplace_back(settings_.name, settings_.score(sum, format_.width, format_.height));
    }

private:
    VideoFormat format_;
    Settings settings_;
};

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    return std::make_unique<Extractor>(options, format);
}

History history_of(const Options& options) {
    const Settings s(options);
    return {s.history > 0 ? 1u : 0u, static_cast<unsigned>(s.history)};
}

// The chroma planes with example_chroma, else the luma.
PlaneSet planes_of(const Options& options) { return Settings(options).chroma ? PlaneSet::kAll : PlaneSet::kLuma; }

}  // namespace

Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options) : name(options.feature_name(kFeatures[0].name)) { options.bind(*this); }

std::vector<Settings::Pair> Settings::pairs() const {
    std::vector<Pair> out = {{0, 1, 0}};
    if (chroma) out.insert(out.end(), {{0, 1, 1}, {0, 1, 2}});
    for (int k = 0; k < history; ++k) out.push_back({2 + k, 1, 0});
    if (history > 0) out.push_back({4, 0, 0});
    return out;
}

double Settings::score(std::uint64_t sum, int width, int height) const {
    return static_cast<double>(sum) / (static_cast<double>(width) * height) * scale;
}

const MetricDescriptor descriptor{
    .name = "example_blur_sad", .oracle = {},
    .options = kOptions, .features = kFeatures, .planes = planes_of, .history = history_of,
    .limits = {4, 4, kEveryBitDepth, "(every plane must be 2 wide: the mirrored 3-tap blur needs 2 samples)"},
    .create = create};

}  // namespace vmafx::example
