// Floating-point VIF (visual information fidelity), bit-exact with upstream libvmaf 3.2.0's
// "float_vif" extractor (src/feature/float_vif.c, vif.c compute_vif, vif_tools.c).
//
// Both luma planes become floats minus 128 (picture_copy), are prescaled (vif_prescale by
// vif_prescale_method; the default, nearest, is a copy at vif_prescale 1), and are
// analysed at four scales. At scale s > 0 both pictures are first blurred with scale s's
// Gaussian and decimated by two (even rows and columns). At each scale the Gaussian gives the
// local means mu1, mu2 and the filtered ref^2, dis^2, ref*dis; per sample the variances and
// covariance give an information term of the distorted picture (numerator) and of the
// reference (denominator), base-2 logarithms by upstream's polynomial approximation
// (VIF_OPT_FAST_LOG2), or a linear term where the reference variance is below the noise
// variance. Each scale's sums are float (row sums added to a total). Borders are mirrored
// without repeating the edge sample.
#include "feature/float_vif/float_vif.hpp"
#include "feature/float_vif/float_vif_math.hpp"

#include <fmt/format.h>

namespace vmafx {

namespace float_vif {

namespace {

using floatimg::Image;

// Upstream vif_dec2_s: even rows and columns of the first (width / 2) * 2 x (height / 2) * 2.
Image decimate(const Image& src) {
    Image dst(src.width / 2, src.height / 2);
    for (int i = 0; i < dst.height; ++i)
        for (int j = 0; j < dst.width; ++j) dst.row(i)[j] = src.row(2 * i)[2 * j];
    return dst;
}

// Upstream vif_statistic_s ('matching_matlab' mode): the float sums of the numerator and
// denominator terms over the picture, rows summed first.
void statistic(const Image& mu1, const Image& mu2, const Image& xx, const Image& yy, const Image& xy,
               double gain_limit, double sigma_nsq, float& num, float& den) {
    const float sigma_max_inv = sigma_max_inv_of(sigma_nsq);
    const float limit = static_cast<float>(gain_limit);
    float accum_num = 0.0f;
    float accum_den = 0.0f;
    for (int i = 0; i < mu1.height; ++i) {
        float row_num = 0;
        float row_den = 0;
        for (int j = 0; j < mu1.width; ++j) {
            const SampleTerms t = sample_terms(mu1.row(i)[j], mu2.row(i)[j], xx.row(i)[j], yy.row(i)[j], xy.row(i)[j],
                                               limit, sigma_nsq, sigma_max_inv);
            row_num += t.num;
            row_den += t.den;
        }
        accum_num += row_num;
        accum_den += row_den;
    }
    num = accum_num;
    den = accum_den;
}

constexpr int kScales = 4;

}  // namespace

ScaleSums compute_vif(const Image& ref, const Image& dis, const Settings& settings) {
    using floatimg::Product;
    ScaleSums s{};
    const float ks = static_cast<float>(settings.kernelscale);
    Image cur_ref = ref;
    Image cur_dis = dis;
    for (int scale = settings.skip_scale0 ? 1 : 0; scale < kScales; ++scale) {
        const std::vector<float> f = floatimg::vif_filter(scale, ks);
        if (scale > 0) {
            Image r = decimate(floatimg::convolve(f, cur_ref));
            Image d = decimate(floatimg::convolve(f, cur_dis));
            cur_ref = std::move(r);
            cur_dis = std::move(d);
        }
        const Image mu1 = floatimg::convolve(f, cur_ref);
        const Image mu2 = floatimg::convolve(f, cur_dis);
        const Image xx = floatimg::convolve(f, cur_ref, Product::kSquare);
        const Image yy = floatimg::convolve(f, cur_dis, Product::kSquare);
        const Image xy = floatimg::convolve(f, cur_ref, Product::kCross, &cur_dis);
        float num = 0.0f;
        float den = 0.0f;
        statistic(mu1, mu2, xx, yy, xy, settings.gain_limit, settings.sigma_nsq, num, den);
        s[2 * scale] = num;
        s[2 * scale + 1] = den;
    }
    return s;
}

int Settings::scaled(int side) const { return static_cast<int>(static_cast<unsigned>(side) * prescale + 0.5); }

floatimg::ScaleMethod Settings::scale_method() const {
    using floatimg::ScaleMethod;
    if (prescale_method == "nearest") return ScaleMethod::kNearest;
    if (prescale_method == "bilinear") return ScaleMethod::kBilinear;
    if (prescale_method == "bicubic") return ScaleMethod::kBicubic;
    if (prescale_method == "lanczos4") return ScaleMethod::kLanczos4;
    throw Error(fmt::format("float_vif: invalid vif_prescale_method \"{}\" (nearest, bilinear, bicubic or lanczos4)",
                            prescale_method));
}

void Settings::check(int width, int height) const {
    // Upstream init(): the method first, then the bilinear scaler's widest output.
    if (scale_method() == floatimg::ScaleMethod::kBilinear && scaled(width) > floatimg::kBilinearMaxWidth)
        throw Error(fmt::format("float_vif: vif_prescale_method bilinear scales a {}-wide luma to {}, wider than the "
                                "{} upstream's bilinear scaler allows",
                                width, scaled(width), floatimg::kBilinearMaxWidth));
    const float ks = static_cast<float>(kernelscale);
    if (!floatimg::vif_kernelscale_valid(ks))
        throw Error(fmt::format("float_vif: vif_kernelscale {:g} is not one of the kernel scales upstream accepts "
                                "(e.g. 1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, 4/3, 3)",
                                kernelscale));
    int w = scaled(width);
    int h = scaled(height);
    const auto need = [&](int scale, int radius, int cw, int ch) {
        if (radius > cw - 1 || radius > ch - 1)
            throw Error(fmt::format("float_vif: a {}x{} luma (prescaled to {}x{}) is too small: scale {} is {}x{}, "
                                    "below the {}x{} its {}-tap filter needs",
                                    width, height, scaled(width), scaled(height), scale, cw, ch, radius + 1,
                                    radius + 1, 2 * radius + 1));
    };
    for (int scale = skip_scale0 ? 1 : 0; scale < kScales; ++scale) {
        const int radius = floatimg::vif_filter_size(scale, ks) / 2;
        if (scale > 0) {
            need(scale - 1, radius, w, h);
            w /= 2;
            h /= 2;
        }
        need(scale, radius, w, h);
    }
}

void Settings::write_frame(const ScaleSums& s, FrameScores& out) const {
    std::size_t next = 0;
    const auto put = [&](double value) { out.emplace_back(names[next++], value); };
    // Upstream's MAX(x, y): x > y ? x : y (a NaN quotient gives the minimum).
    const auto at_least = [](double x, double y) { return x > y ? x : y; };
    put(skip_scale0 ? 0.0 : s[0] / s[1]);
    put(at_least(s[2] / s[3], scale1_min));
    put(at_least(s[4] / s[5], scale2_min));
    put(at_least(s[6] / s[7], scale3_min));
    if (!debug) return;
    double num = 0.0;
    double den = 0.0;
    for (int scale = skip_scale0 ? 1 : 0; scale < kScales; ++scale) {
        num += s[2 * scale];
        den += s[2 * scale + 1];
    }
    put(den == 0.0 ? 1.0 : num / den);  // vif
    put(num);
    put(den);
    put(skip_scale0 ? 0.0 : s[0]);
    put(skip_scale0 ? -1.0 : s[1]);
    for (int scale = 1; scale < kScales; ++scale) {
        put(s[2 * scale]);
        put(s[2 * scale + 1]);
    }
}

}  // namespace float_vif

namespace {

using float_vif::Settings;

/// Upstream's option table of "float_vif" (float_vif.c `options`), in its order.
constexpr OptionSpec kOptions[] = {
    option<&Settings::debug>("debug", nullptr, 0, 0, 1, OptionRole::kSetting, "debug mode: enable additional output"),
    option<&Settings::gain_limit>(
        "vif_enhn_gain_limit", "egl", 100.0, 1.0, 100.0, OptionRole::kFeatureParameter,
        "enhancement gain imposed on vif, must be >= 1.0, where 1.0 means the gain is completely disabled").also_at("1.5"),
    option<&Settings::kernelscale>("vif_kernelscale", "ks", 1.0, 0.1, 4.0, OptionRole::kFeatureParameter,
                                   "scaling factor for the gaussian kernel (2.0 means multiplying the standard "
                                   "deviation by 2 and enlarge the kernel size accordingly").also_at("0.5,1.5,3,3.7113402,0.3"),
    option<&Settings::prescale>("vif_prescale", "ps", 1.0, 0.1, 4.0, OptionRole::kFeatureParameter,
                                "scaling factor for the frame (2.0 means making the image twice as large on each "
                                "dimension)").also_at("0.5,1.5"),
    option<&Settings::scale1_min>("vif_scale1_min_val", "s1miv", 0.0, 0.0, 1.0, OptionRole::kFeatureParameter,
                                  "minimum value allowed; smaller values will be set to this value"),
    option<&Settings::scale2_min>("vif_scale2_min_val", "s2miv", 0.0, 0.0, 1.0, OptionRole::kFeatureParameter,
                                  "minimum value allowed; smaller values will be set to this value").also_at("0.5"),
    option<&Settings::scale3_min>("vif_scale3_min_val", "s3miv", 0.0, 0.0, 1.0, OptionRole::kFeatureParameter,
                                  "minimum value allowed; smaller values will be set to this value"),
    option<&Settings::prescale_method>(
        "vif_prescale_method", "pm", "nearest", OptionRole::kFeatureParameter,
        "scaling method for the frame, supported options: [nearest, bilinear, bicubic, lanczos4]").also_at("bilinear,area"),
    option<&Settings::sigma_nsq>("vif_sigma_nsq", "snsq", 2.0, 0.0, 5.0, OptionRole::kFeatureParameter, "neural noise variance"),
    option<&Settings::skip_scale0>("vif_skip_scale0", "ssclz", 0, 0, 1, OptionRole::kFeatureParameter, "when set, skip scale 0 calculations"),
};

/// Upstream's provided_features[] (in the order write_frame() writes them), with the aliases
/// of alias.c.
constexpr FeatureName kFeatures[] = {
    {"VMAF_feature_vif_scale0_score", "vif_scale0"},
    {"VMAF_feature_vif_scale1_score", "vif_scale1"},
    {"VMAF_feature_vif_scale2_score", "vif_scale2"},
    {"VMAF_feature_vif_scale3_score", "vif_scale3"},
    {"vif"}, {"vif_num"}, {"vif_den"},
    {"vif_num_scale0"}, {"vif_den_scale0"}, {"vif_num_scale1"}, {"vif_den_scale1"},
    {"vif_num_scale2"}, {"vif_den_scale2"}, {"vif_num_scale3"}, {"vif_den_scale3"},
};

class FloatVifExtractor final : public FeatureExtractor {
public:
    FloatVifExtractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {
        method_ = settings_.scale_method();
    }

    void extract(const FrameInput& in, FrameScores& out) const override {
        if (!in.ref || !in.dist) throw Error("float_vif: frame without reference or distorted picture");
        const Plane& ref = in.ref->luma();
        const Plane& dis = in.dist->luma();
        if (ref.width() != format_.width || ref.height() != format_.height || dis.width() != format_.width ||
            dis.height() != format_.height || ref.bytes_per_sample() != format_.bytes_per_sample() ||
            dis.bytes_per_sample() != format_.bytes_per_sample())
            throw Error(fmt::format("float_vif: frame {} is not {}x{} with {}-byte samples", in.index, format_.width,
                                    format_.height, format_.bytes_per_sample()));
        const int w = settings_.scaled(format_.width);
        const int h = settings_.scaled(format_.height);
        const floatimg::Image r = floatimg::scale(method_, floatimg::to_float(ref, format_.bit_depth), w, h);
        const floatimg::Image d = floatimg::scale(method_, floatimg::to_float(dis, format_.bit_depth), w, h);
        settings_.write_frame(float_vif::compute_vif(r, d, settings_), out);
    }

private:
    VideoFormat format_;
    Settings settings_;
    floatimg::ScaleMethod method_ = floatimg::ScaleMethod::kNearest;
};

std::unique_ptr<FeatureExtractor> create_float_vif(const Options& options, const VideoFormat& format) {
    return std::make_unique<FloatVifExtractor>(options, format);
}

/// The descriptor's refuse hook: the kernel scales, prescale methods and sizes these options
/// cannot score (Settings::check).
void refuse(const Options& options, const VideoFormat& format) {
    Settings(options).check(format.width, format.height);
}

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "vif_sigma_nsq=0.5:vif_enhn_gain_limit=1",
    "vif_skip_scale0=true:vif_kernelscale=2:vif_prescale=0.5",
    "vif_prescale=0.5:vif_prescale_method=nearest",
    "vif_prescale=1.5:vif_prescale_method=nearest",
    "vif_prescale=0.5:vif_prescale_method=bilinear",
    "vif_prescale=1.5:vif_prescale_method=bilinear",
    "vif_prescale=0.5:vif_prescale_method=bicubic",
    "vif_prescale=1.5:vif_prescale_method=bicubic",
    "vif_prescale=0.5:vif_prescale_method=lanczos4",
    "vif_prescale=1.5:vif_prescale_method=lanczos4",
};

}  // namespace

namespace float_vif {

const MetricDescriptor descriptor{
    .name = "float_vif", .oracle = {kLibvmaf, "libvmaf/src/feature/float_vif.c"},
    .options = kOptions, .features = kFeatures,
    .limits = {16, 16, kEveryBitDepth,
               "(scale 3, a 1/8 decimation, must fit its 3-tap mirrored filter; upstream reads outside its "
               "buffers below)"},
    .refuse = refuse, .create = create_float_vif, .corner_base = "debug=true", .corner_sets = kCornerSets};

Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options) {
    options.bind(*this);
    for (const FeatureName& f : kFeatures) names.push_back(options.feature_name(f.name));
}

}  // namespace float_vif

}  // namespace vmafx
