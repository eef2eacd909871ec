// "speed_temporal": SpEED of the luma differences of consecutive frames (see speed.hpp).
// Upstream: libvmaf 3.2.0 src/feature/speed.c init, extract (VMAF_FEATURE_EXTRACTOR_TEMPORAL).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "feature/speed/speed.hpp"
#include "feature/speed/speed_math.hpp"
#include "feature/speed/speed_options.hpp"

namespace vmafx::speed_temporal {

namespace {

/// One instance's options and output name.
struct Settings {
    explicit Settings(const Options& options)
        : name(options.feature_name("Speed_temporal_feature_speed_temporal_score")) {
        options.bind(*this);
    }
    double kernelscale;
    double prescale;
    std::string prescale_method;  ///< speed_prescale_method
    double sigma_nn;
    double nn_floor;
    double max_val;  ///< declared by upstream, never applied
    bool use_ref_diff;
    std::string name;

    /// speed_weight_var_mode is not an option of speed_temporal: upstream leaves it 0.
    speed::Params params() const {
        return {kernelscale, prescale, speed::parse_scale_method("speed_temporal", prescale_method), sigma_nn,
                nn_floor, 0};
    }
};

constexpr OptionSpec kOptions[] = {
    speed::kernelscale_row<Settings>().also_at("0.5,3,0.3"),
    speed::prescale_row<Settings>().also_at("0.5,2"),
    speed::prescale_method_row<Settings>(),
    speed::sigma_nn_row<Settings>(),
    speed::nn_floor_row<Settings>(),
    speed::max_val_row<Settings>(),
    option<&Settings::use_ref_diff>("speed_use_ref_diff", "urd", 0, 0, 1, OptionRole::kFeatureParameter, "debug mode: enable additional output"),
};

constexpr FeatureName kFeatures[] = {{"Speed_temporal_feature_speed_temporal_score", "speed_temporal"}};

class Extractor final : public FeatureExtractor {
public:
    Extractor(const Options& options, const VideoFormat& format)
        : format_(format), settings_(options), params_(settings_.params()),
          geometry_(speed::Geometry::of(format.width, format.height, params_.prescale)),
          pool_(geometry_.buffer_size(), 6) {}

    // Frame 0 scores 0; frame i scores SpEED of (luma i-1 - luma i) of both videos.
    void extract(const FrameInput& in, FrameScores& out) const override {
        if (in.index == 0) {
            out.emplace_back(settings_.name, 0.0);
            return;
        }
        if (!in.prev_ref[0] || !in.prev_dist[0])
            throw Error(fmt::format("speed_temporal: frame {} needs the pictures of frame {}", in.index, in.index - 1));
        const std::size_t n = geometry_.buffer_size();
        const int stride = geometry_.alloc_width;
        // ref, dis, cur_ref, cur, then the core's scratch. The pictures' buffers are zero outside
        // the luma (a larger speed_prescale) as upstream's: where the luma does not cover them,
        // a reused buffer is cleared first.
        const speed::BufferPool::Lease buffers = pool_.lease();
        float* const ref = buffers[0];
        float* const dis = buffers[1];
        float* const cur_ref = buffers[2];
        float* const cur = buffers[3];
        if (geometry_.alloc_width != format_.width || geometry_.alloc_height != format_.height)
            for (int b = 0; b < 4; ++b) std::fill(buffers[b], buffers[b] + n, 0.0f);
        const int bits = format_.bit_depth;
        floatimg::to_float(in.prev_ref[0]->luma(), bits, ref, stride);
        floatimg::to_float(in.prev_dist[0]->luma(), bits, dis, stride);
        floatimg::to_float(in.ref->luma(), bits, cur_ref, stride);
        if (!settings_.use_ref_diff) floatimg::to_float(in.dist->luma(), bits, cur, stride);
        const float* const dis_minus = settings_.use_ref_diff ? cur_ref : cur;
        for (int i = 0; i < format_.height; ++i)
            for (int j = 0; j < format_.width; ++j) {
                const std::size_t k = static_cast<std::size_t>(i) * stride + j;
                ref[k] = speed::temporal_difference(ref[k], cur_ref[k]);
                dis[k] = speed::temporal_difference(dis[k], dis_minus[k]);
            }
        bool singular = false;
        const float s = speed::score(geometry_, params_, ref, dis, singular, buffers[4], buffers[5]);
        out.emplace_back(settings_.name, static_cast<double>(s));
    }

private:
    VideoFormat format_;
    Settings settings_;
    speed::Params params_;
    speed::Geometry geometry_;
    speed::BufferPool pool_;  ///< the float pictures and the core's scratch, kept between frames
};

/// The descriptor's refuse hook: the kernel scales and prescales upstream cannot score at this
/// format (speed::check).
void refuse(const Options& options, const VideoFormat& format) {
    speed::check("speed_temporal", "luma", Settings(options).params(), format.width, format.height, true);
}

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    return std::make_unique<Extractor>(options, format);
}

History history_of(const Options&) { return {1, 1}; }

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "speed_use_ref_diff=true:speed_nn_floor=0.1:speed_sigma_nn=0.19",
    "speed_prescale=0.6:speed_prescale_method=nearest",
    "speed_prescale=0.6:speed_prescale_method=bilinear",
    "speed_prescale=0.6:speed_prescale_method=bicubic",
    "speed_prescale=0.6:speed_prescale_method=lanczos4",
};

}  // namespace

Config config_of(const Options& options) {
    const Settings s(options);
    return {s.params(), s.use_ref_diff, s.name};
}

const MetricDescriptor descriptor{
    .name = "speed_temporal", .oracle = {kLibvmaf, "libvmaf/src/feature/speed.c"},
    .options = kOptions, .features = kFeatures, .history = history_of,
    .limits = {80, 80, kWholeUnitBitDepths,
               "(the luma, scaled by speed_prescale, must be at least 80x80: SpEED's operating picture, 1/16 "
               "of it, needs a 5x5 block)"},
    .refuse = refuse, .create = create, .corner_sets = kCornerSets};

}  // namespace vmafx::speed_temporal
