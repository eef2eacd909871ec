// Integer ADM extractor "adm": upstream libvmaf 3.2.0 src/feature/integer_adm.c (options[],
// provided_features[], extract()); the computation is in adm_pipeline.cpp.
#include "feature/adm/adm.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "feature/adm/adm_pipeline.hpp"

namespace vmafx {

namespace {

using adm::Settings;

// Upstream's option table (integer_adm.c `options[]`), in its order.
constexpr OptionSpec kAdmOptions[] = {
    option<&Settings::debug>("debug", nullptr, 0, 0, 1, OptionRole::kSetting, "debug mode: enable additional output"),
    option<&Settings::config, &adm::AdmConfig::csf, &adm::CsfConfig::csf_scale>("adm_csf_scale", "scf", 1.0, 0.0, 50.0, OptionRole::kFeatureParameter,
                                 "scale coefficient for the horizontal & vertical direction terms of CSF"),
    option<&Settings::config, &adm::AdmConfig::csf, &adm::CsfConfig::csf_diag_scale>("adm_csf_diag_scale", "scfd", 1.0, 0.0, 50.0, OptionRole::kFeatureParameter,
                                      "scale coefficient for the diagonal direction term of CSF"),
    option<&Settings::dlm_weight>("adm_dlm_weight", "dlmw", 0.5, 0.0, 1.0, OptionRole::kFeatureParameter,
                                  "linear weighting between DLM and AIM; 1 corresponds to DLM-only").also_at("0.7"),
    option<&Settings::config, &adm::AdmConfig::enhn_gain_limit>(
        "adm_enhn_gain_limit", "egl", 100.0, 1.0, 100.0, OptionRole::kFeatureParameter,
        "enhancement gain imposed on adm, must be >= 1.0, where 1.0 means the gain is completely disabled").also_at("1.2"),
    option<&Settings::config, &adm::AdmConfig::csf, &adm::CsfConfig::norm_view_dist>("adm_norm_view_dist", "nvd", 3.0, 0.75, 24.0, OptionRole::kFeatureParameter,
                                      "normalized viewing distance = viewing distance / ref display's physical height").also_at("1.5,6"),
    option<&Settings::config, &adm::AdmConfig::csf, &adm::CsfConfig::ref_display_height>("adm_ref_display_height", "rdh", 1080, 1, 4320, OptionRole::kFeatureParameter,
                                          "reference display height in pixels").also_at("720,2160"),
    option<&Settings::config, &adm::AdmConfig::csf, &adm::CsfConfig::mode>("adm_csf_mode", "csf", 0, 0, 3, OptionRole::kFeatureParameter, "contrast sensitivity function").also_at("1"),
    option<&Settings::config, &adm::AdmConfig::noise_weight>("adm_noise_weight", "nw", 0.03125, 0.0, 1500.0, OptionRole::kFeatureParameter, "noise weight").also_at("0.5"),
    option<&Settings::config, &adm::AdmConfig::skip_aim>("adm_skip_aim", nullptr, 0, 0, 1, OptionRole::kSetting, "skip the calculation of AIM"),
    option<&Settings::config, &adm::AdmConfig::skip_scale0>("adm_skip_scale0", "ssz", 0, 0, 1, OptionRole::kFeatureParameter, "skip the calculation of scale 0"),
    option<&Settings::min_val>("adm_min_val", "min", 0.0, 0.0, 1.0, OptionRole::kFeatureParameter,
                               "minimum value allowed; lower values will be clipped to this value").also_at("0.5"),
};

// Upstream's provided_features[], in its order (also the order extract() writes them), with
// the aliases of alias.c.
constexpr FeatureName kAdmFeatures[] = {
    {"VMAF_integer_feature_adm2_score", "integer_adm2"},
    {"VMAF_integer_feature_aim_score", "integer_aim"},
    {"VMAF_integer_feature_adm3_score", "integer_adm3"},
    {"integer_adm_scale0"}, {"integer_adm_scale1"}, {"integer_adm_scale2"}, {"integer_adm_scale3"},
    {"integer_adm"}, {"integer_adm_num"}, {"integer_adm_den"},
    {"integer_adm_num_scale0"}, {"integer_adm_den_scale0"}, {"integer_adm_num_scale1"},
    {"integer_adm_den_scale1"}, {"integer_adm_num_scale2"}, {"integer_adm_den_scale2"},
    {"integer_adm_num_scale3"}, {"integer_adm_den_scale3"},
};

class AdmExtractor final : public FeatureExtractor {
public:
    AdmExtractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        if (!in.ref || !in.dist) throw Error("adm: frame without reference or distorted picture");
        const Plane& ref = in.ref->luma();
        const Plane& dis = in.dist->luma();
        if (ref.width() != format_.width || ref.height() != format_.height || dis.width() != format_.width ||
            dis.height() != format_.height)
            throw Error(fmt::format("adm: frame {} is not {}x{}", in.index, format_.width, format_.height));
        settings_.write_frame(adm::compute_adm(ref, dis, format_.bit_depth, settings_.config), out);
    }

private:
    VideoFormat format_;
    adm::Settings settings_;
};

std::unique_ptr<FeatureExtractor> create_adm(const Options& options, const VideoFormat& format) {
    return std::make_unique<AdmExtractor>(options, format);
}

/// The descriptor's refuse hook: the viewing conditions the integer ADM cannot represent
/// (Settings::check_options), for every backend alike.
void refuse(const Options& options, const VideoFormat&) { adm::Settings(options).check_options(); }

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "adm_skip_aim=true:adm_skip_scale0=true",
    "adm_norm_view_dist=24:adm_ref_display_height=4320",
    "adm_csf_mode=1:adm_csf_scale=0",
    "adm_csf_mode=1:adm_csf_scale=0.5",
    "adm_csf_mode=1:adm_csf_scale=50",
    "adm_csf_mode=1:adm_csf_diag_scale=50",
    "adm_csf_mode=1:adm_csf_scale=10:adm_csf_diag_scale=10",
    "adm_csf_mode=1:adm_norm_view_dist=24:adm_ref_display_height=4320",
    "adm_csf_mode=1:adm_norm_view_dist=0.75:adm_ref_display_height=4320",
    "adm_csf_mode=2:adm_ref_display_height=1080:adm_norm_view_dist=3",
    "adm_csf_mode=2:adm_ref_display_height=1080:adm_norm_view_dist=5",
    "adm_csf_mode=2:adm_ref_display_height=2160:adm_norm_view_dist=1.5",
    "adm_csf_mode=2:adm_ref_display_height=2160:adm_norm_view_dist=3",
    "adm_csf_mode=2:adm_ref_display_height=2160:adm_norm_view_dist=5",
    "adm_csf_mode=2:adm_ref_display_height=720:adm_norm_view_dist=5",
    "adm_csf_mode=2:adm_ref_display_height=1080:adm_norm_view_dist=6",
    "adm_csf_mode=2:adm_ref_display_height=1080:adm_norm_view_dist=4",
    "adm_csf_mode=2:adm_ref_display_height=4320:adm_norm_view_dist=3",
    "adm_csf_mode=2:adm_ref_display_height=720:adm_norm_view_dist=4.5",
    "adm_csf_mode=3:adm_ref_display_height=1080:adm_norm_view_dist=3",
    "adm_csf_mode=3:adm_ref_display_height=1080:adm_norm_view_dist=5",
    "adm_csf_mode=3:adm_ref_display_height=2160:adm_norm_view_dist=1.5",
    "adm_csf_mode=3:adm_ref_display_height=2160:adm_norm_view_dist=3",
    "adm_csf_mode=3:adm_ref_display_height=2160:adm_norm_view_dist=5",
    "adm_csf_mode=3:adm_ref_display_height=720:adm_norm_view_dist=5",
    "adm_csf_mode=3:adm_ref_display_height=1080:adm_norm_view_dist=6",
    "adm_csf_mode=3:adm_ref_display_height=1080:adm_norm_view_dist=4",
    "adm_csf_mode=3:adm_ref_display_height=4320:adm_norm_view_dist=3",
    "adm_csf_mode=3:adm_ref_display_height=720:adm_norm_view_dist=4.5",
    "adm_csf_mode=2:adm_norm_view_dist=6:adm_skip_scale0=true",
    "adm_csf_mode=3:adm_ref_display_height=720:adm_norm_view_dist=4.5:adm_enhn_gain_limit=1",
};

}  // namespace

namespace adm {

const MetricDescriptor descriptor{
    .name = "adm", .oracle = {kLibvmaf, "libvmaf/src/feature/integer_adm.c"},
    .options = kAdmOptions, .features = kAdmFeatures,
    .limits = {kMinSize, kMinSize, kEveryBitDepth,
               "(upstream crashes below 17 and reads outside its buffers below 33)"},
    .refuse = refuse, .create = create_adm, .corner_base = "debug=true", .corner_sets = kCornerSets};


Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options) {
    options.bind(*this);
    for (const FeatureName& f : kAdmFeatures) names.push_back(options.feature_name(f.name));
}

void Settings::check_options() const {
    // Upstream's extract() fails (-EINVAL) for every frame in this case: its 16-bit
    // pipeline cannot represent an angular frequency below that of 1080 lines at 3H.
    const double norm_view_dist = config.csf.norm_view_dist;
    const int ref_display_height = config.csf.ref_display_height;
    if (norm_view_dist * ref_display_height < 3.0 * 1080)
        throw Error(fmt::format(
            "adm: adm_norm_view_dist * adm_ref_display_height = {:g} is below the limit 3240 (3.0 * 1080) "
            "that the integer ADM supports",
            norm_view_dist * ref_display_height));
}

double Settings::adm3(const AdmScores& s) const {
    // Upstream's MAX(x, y): x > y ? x : y.
    const double blend = s.score * dlm_weight + (1 - s.score_aim) * (1 - dlm_weight);
    return blend > min_val ? blend : min_val;
}

void Settings::write_frame(const AdmScores& s, FrameScores& out) const {
    out.emplace_back(names[0], s.score);
    out.emplace_back(names[1], s.score_aim);
    out.emplace_back(names[2], adm3(s));
    for (int k = 0; k < 4; ++k) out.emplace_back(names[3 + k], s.scale_num[k] / s.scale_den[k]);
    if (!debug) return;
    out.emplace_back(names[7], s.score);
    out.emplace_back(names[8], s.num);
    out.emplace_back(names[9], s.den);
    for (int k = 0; k < 4; ++k) {
        out.emplace_back(names[10 + 2 * k], s.scale_num[k]);
        out.emplace_back(names[11 + 2 * k], s.scale_den[k]);
    }
}

}  // namespace adm

}  // namespace vmafx
