// "speed_chroma": SpEED of the Cb and Cr planes (see speed.hpp). Upstream: libvmaf 3.2.0
// src/feature/speed.c init_chroma, extract_chroma, extract_channel.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "feature/speed/speed.hpp"
#include "feature/speed/speed_options.hpp"

namespace vmafx::speed_chroma {

namespace {

/// One instance's options and output names.
struct Settings {
    explicit Settings(const Options& options)
        : u_name(options.feature_name("Speed_chroma_feature_speed_chroma_u_score")),
          v_name(options.feature_name("Speed_chroma_feature_speed_chroma_v_score")),
          uv_name(options.feature_name("Speed_chroma_feature_speed_chroma_uv_score")) {
        options.bind(*this);
    }
    double kernelscale;
    double prescale;
    std::string prescale_method;  ///< speed_prescale_method
    double sigma_nn;
    double nn_floor;
    double max_val;
    int weight_var_mode;
    std::string u_name, v_name, uv_name;

    speed::Params params() const {
        return {kernelscale, prescale, speed::parse_scale_method("speed_chroma", prescale_method), sigma_nn,
                nn_floor, weight_var_mode};
    }
};

constexpr OptionSpec kOptions[] = {
    speed::kernelscale_row<Settings>().also_at("0.5,1.5,2,3,0.3"),
    speed::prescale_row<Settings>().also_at("0.5,2,1.0005"),
    speed::prescale_method_row<Settings>().also_at("bilinear,area"),
    speed::sigma_nn_row<Settings>(),
    speed::nn_floor_row<Settings>().also_at("0.5"),
    speed::max_val_row<Settings>().also_at("5"),
    option<&Settings::weight_var_mode>("speed_weight_var_mode", "wvm", 0, 0, 6, OptionRole::kFeatureParameter,
                                       "different approaches to perform variance-absed weighting").also_at("1,2,3,4"),
};

constexpr FeatureName kFeatures[] = {
    {"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u"},
    {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v"},
    {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv"},
};

class Extractor final : public FeatureExtractor {
public:
    Extractor(const Options& options, const VideoFormat& format)
        : format_(format), settings_(options), params_(settings_.params()), config_(config_of(options)),
          geometry_(speed::Geometry::of(format.plane_width(1), format.plane_height(1), params_.prescale)),
          pool_(geometry_.buffer_size(), 4) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        // ref, dis, then the core's scratch. The pictures' buffers are zero outside the plane
        // (a larger speed_prescale) as upstream's: where the plane does not cover them, a reused
        // buffer is cleared first.
        const std::size_t n = geometry_.buffer_size();
        const speed::BufferPool::Lease buffers = pool_.lease();
        float* const ref = buffers[0];
        float* const dis = buffers[1];
        float scores[2];
        bool singular[2];
        for (int c = 0; c < 2; ++c) {
            const Plane& r = in.ref->planes[1 + c];
            const Plane& d = in.dist->planes[1 + c];
            if (geometry_.alloc_width != r.width() || geometry_.alloc_height != r.height() ||
                geometry_.alloc_width != d.width() || geometry_.alloc_height != d.height()) {
                std::fill(ref, ref + n, 0.0f);
                std::fill(dis, dis + n, 0.0f);
            }
            floatimg::to_float(r, format_.bit_depth, ref, geometry_.alloc_width);
            floatimg::to_float(d, format_.bit_depth, dis, geometry_.alloc_width);
            scores[c] = speed::score(geometry_, params_, ref, dis, singular[c], buffers[2], buffers[3]);
        }
        write_scores(config_, scores[0], singular[0], scores[1], singular[1], out);
    }

private:
    VideoFormat format_;
    Settings settings_;
    speed::Params params_;
    Config config_;
    speed::Geometry geometry_;
    speed::BufferPool pool_;  ///< the float pictures and the core's scratch, kept between frames
};

/// The descriptor's refuse hook: the kernel scales and prescales upstream cannot score at this
/// format (speed::check).
void refuse(const Options& options, const VideoFormat& format) {
    const Settings s(options);
    // Upstream sizes the chroma planes as floor(w/2) (4:2:0, 4:2:2) and floor(h/2) (4:2:0)
    // and refuses (crashes) when those are too small; the odd planes themselves are ceil.
    const int w = format.subsampling == Subsampling::k444 ? format.width : format.width / 2;
    const int h = format.subsampling == Subsampling::k420 ? format.height / 2 : format.height;
    speed::check("speed_chroma", "chroma plane", s.params(), w, h);
}

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    return std::make_unique<Extractor>(options, format);
}

// The chroma planes' minimum at `prescale`: each plane, scaled, at least 80x80, i.e. at least
// speed::smallest_plane_side(prescale) unscaled; below prescale 1 the descriptor keeps 80 and the
// factory (speed::check) refuses the planes that scale below 80, saying what they scale to.
FormatLimits limits_at(double prescale) {
    const int side = std::min(speed::smallest_plane_side(1.0), speed::smallest_plane_side(prescale));
    return {.bit_depths = kWholeUnitBitDepths,
            .why = "(each chroma plane, scaled by speed_prescale, must be at least 80x80: SpEED's operating "
                   "picture, 1/16 of it, needs a 5x5 block; upstream halves the luma size rounding down)",
            .min_chroma_width = side,
            .min_chroma_height = side,
            .chroma_rounds_down = true};
}

// Upstream (speed.c speed_init_dimensions) checks the scaled chroma planes: at speed_prescale
// above 1 it scores planes below 80x80 (down to 20x20 at 4).
FormatLimits limits_for(const Options& options) { return limits_at(Settings(options).prescale); }

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "speed_prescale=0.5:speed_kernelscale=2",
    "speed_prescale=0.5:speed_prescale_method=nearest",
    "speed_prescale=1.5:speed_prescale_method=nearest",
    "speed_prescale=0.5:speed_prescale_method=bilinear",
    "speed_prescale=1.5:speed_prescale_method=bilinear",
    "speed_prescale=0.5:speed_prescale_method=bicubic",
    "speed_prescale=1.5:speed_prescale_method=bicubic",
    "speed_prescale=0.5:speed_prescale_method=lanczos4",
    "speed_prescale=1.5:speed_prescale_method=lanczos4",
    "speed_prescale=0.6:speed_prescale_method=bilinear:speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45.0",
};

}  // namespace

Config config_of(const Options& options) {
    const Settings s(options);
    return {s.params(), s.max_val, s.u_name, s.v_name, s.uv_name};
}

void write_scores(const Config& config, float u, bool u_singular, float v, bool v_singular, FrameScores& out) {
    float uv;
    if (u_singular && !v_singular) uv = v;
    else if (v_singular && !u_singular) uv = u;
    else uv = static_cast<float>((u + v) / 2.0);
    const auto clipped = [&](float s) {
        return static_cast<double>(s) < config.max_val ? static_cast<double>(s) : config.max_val;
    };
    out.emplace_back(config.u_name, clipped(u));
    out.emplace_back(config.v_name, clipped(v));
    out.emplace_back(config.uv_name, clipped(uv));
}

const MetricDescriptor descriptor{
    .name = "speed_chroma", .oracle = {kLibvmaf, "libvmaf/src/feature/speed.c"},
    .options = kOptions, .features = kFeatures, .planes = all_planes,
    .limits = limits_at(1.0),
    .limits_for = limits_for,
    .refuse = refuse, .create = create, .corner_sets = kCornerSets};

}  // namespace vmafx::speed_chroma
