// Integer ADM extractor "adm": upstream libvmaf 3.2.0 src/feature/integer_adm.c (options[],
// provided_features[], extract()); the computation is in adm_pipeline.cpp.
#include "feature/adm/adm.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "feature/adm/adm_pipeline.hpp"

namespace vmafx {

namespace {

// Upstream's option table (integer_adm.c `options[]`), in its order.
constexpr OptionSpec kAdmOptions[] = {
    {"debug", nullptr, OptionType::kBool, 0.0, 0.0, 1.0, false, "debug mode: enable additional output"},
    {"adm_csf_scale", "scf", OptionType::kDouble, 1.0, 0.0, 50.0, true,
     "scale coefficient for the horizontal & vertical direction terms of CSF"},
    {"adm_csf_diag_scale", "scfd", OptionType::kDouble, 1.0, 0.0, 50.0, true,
     "scale coefficient for the diagonal direction term of CSF"},
    {"adm_dlm_weight", "dlmw", OptionType::kDouble, 0.5, 0.0, 1.0, true,
     "linear weighting between DLM and AIM; 1 corresponds to DLM-only"},
    {"adm_enhn_gain_limit", "egl", OptionType::kDouble, 100.0, 1.0, 100.0, true,
     "enhancement gain imposed on adm, must be >= 1.0, where 1.0 means the gain is completely disabled"},
    {"adm_norm_view_dist", "nvd", OptionType::kDouble, 3.0, 0.75, 24.0, true,
     "normalized viewing distance = viewing distance / ref display's physical height"},
    {"adm_ref_display_height", "rdh", OptionType::kInt, 1080, 1, 4320, true, "reference display height in pixels"},
    {"adm_csf_mode", "csf", OptionType::kInt, 0, 0, 3, true, "contrast sensitivity function"},
    {"adm_noise_weight", "nw", OptionType::kDouble, 0.03125, 0.0, 1500.0, true, "noise weight"},
    {"adm_skip_aim", nullptr, OptionType::kBool, 0.0, 0.0, 1.0, false, "skip the calculation of AIM"},
    {"adm_skip_scale0", "ssz", OptionType::kBool, 0.0, 0.0, 1.0, true, "skip the calculation of scale 0"},
    {"adm_min_val", "min", OptionType::kDouble, 0.0, 0.0, 1.0, true,
     "minimum value allowed; lower values will be clipped to this value"},
};

// Upstream's provided_features[], in its order (also the order extract() writes them).
const std::vector<std::string> kAdmFeatures = {
    "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score", "VMAF_integer_feature_adm3_score",
    "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3",
    "integer_adm", "integer_adm_num", "integer_adm_den",
    "integer_adm_num_scale0", "integer_adm_den_scale0", "integer_adm_num_scale1",
    "integer_adm_den_scale1", "integer_adm_num_scale2", "integer_adm_den_scale2",
    "integer_adm_num_scale3", "integer_adm_den_scale3",
};

class AdmExtractor final : public FeatureExtractor {
public:
    AdmExtractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {
        settings_.check(format);
    }

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

}  // namespace

const ExtractorInfo& adm_extractor_info() {
    static const ExtractorInfo info{
        "adm", kAdmOptions, kAdmFeatures, PlaneSet::kLuma,
        [](const Options& options, const VideoFormat& format) -> std::unique_ptr<FeatureExtractor> {
            return std::make_unique<AdmExtractor>(options, format);
        },
#ifdef VMAFX_HAVE_CUDA
        make_adm_gpu,
        TwinContract{true, 0.0,
                     "every device sum is an integer: per-sample steps are the CPU's own functions (adm_math.hpp); "
                     "each row's sum of cubes is added with 64-bit integer atomics (exact, order-free), then shifted "
                     "and summed over rows as the CPU does (integer, order-free); the floats (cube roots, ratios, "
                     "adm3) are formed on the host by the CPU's own code (adm_scores, Settings::write_frame)"},
#endif
    };
    return info;
}

namespace adm {

Settings::Settings(const Options& options)
    : debug(options.get_bool("debug")),
      dlm_weight(options.get("adm_dlm_weight")),
      min_val(options.get("adm_min_val")) {
    config.csf.mode = static_cast<CsfMode>(options.get_int("adm_csf_mode"));
    config.csf.norm_view_dist = options.get("adm_norm_view_dist");
    config.csf.ref_display_height = options.get_int("adm_ref_display_height");
    config.csf.csf_scale = options.get("adm_csf_scale");
    config.csf.csf_diag_scale = options.get("adm_csf_diag_scale");
    config.enhn_gain_limit = options.get("adm_enhn_gain_limit");
    config.noise_weight = options.get("adm_noise_weight");
    config.skip_aim = options.get_bool("adm_skip_aim");
    config.skip_scale0 = options.get_bool("adm_skip_scale0");
    for (const auto& f : kAdmFeatures) names.push_back(options.feature_name(f));
}

void Settings::check(const VideoFormat& format) const {
    // Upstream's extract() fails (-EINVAL) for every frame in this case: its 16-bit
    // pipeline cannot represent an angular frequency below that of 1080 lines at 3H.
    if (config.csf.norm_view_dist * config.csf.ref_display_height < 3.0 * 1080)
        throw Error(fmt::format(
            "adm: adm_norm_view_dist * adm_ref_display_height = {:g} is below the limit 3240 (3.0 * 1080) "
            "that the integer ADM supports",
            config.csf.norm_view_dist * config.csf.ref_display_height));
    if (format.bit_depth < 8 || format.bit_depth > 16)
        throw Error(fmt::format("adm: bit depth {} is not supported (8 to 16)", format.bit_depth));
    if (format.width < kMinSize || format.height < kMinSize)
        throw Error(fmt::format(
            "adm: picture {}x{} is too small: width and height must be at least {} (upstream crashes below 17 "
            "and reads outside its buffers below {})",
            format.width, format.height, kMinSize, kMinSize));
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
