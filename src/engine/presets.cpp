#include "engine/presets.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "base/error.hpp"

namespace vmafx {

namespace {

const char* flag_of(Preset preset) { return preset == Preset::kAomCtc ? "--aom_ctc" : "--nflx_ctc"; }

/// The feature's name: the text before its first '='.
std::string feature_name_of(const std::string& feature) { return feature.substr(0, feature.find('=')); }

/// Replaces the first feature of the same name as `feature` (upstream's CHECKED_REPLACE), or
/// appends it.
void replace_feature(std::vector<std::string>& features, const std::string& feature) {
    const std::string name = feature_name_of(feature);
    const auto it = std::find_if(features.begin(), features.end(),
                                 [&](const std::string& f) { return feature_name_of(f) == name; });
    if (it != features.end()) {
        *it = feature;
    } else {
        features.push_back(feature);
    }
}

/// --aom_ctc v1.0 .. v7.0 as a number 1..7; 0 for anything else.
int aom_ctc_level(const std::string& version) {
    for (int level = 1; level <= 7; ++level)
        if (version == fmt::format("v{}.0", level)) return level;
    return 0;
}

}  // namespace

std::vector<std::string> preset_versions(Preset preset) {
    if (preset == Preset::kNflxCtc) return {"v1.0"};
    std::vector<std::string> v;
    for (int level = 1; level <= 7; ++level) v.push_back(fmt::format("v{}.0", level));
    return v;
}

void apply_preset(Preset preset, const std::string& version, ModelAndFeatureArgs& args) {
    const auto versions = preset_versions(preset);
    if (std::find(versions.begin(), versions.end(), version) == versions.end()) {
        const std::string why = preset == Preset::kAomCtc && version == "proposed" ? "is deprecated" : "is unknown";
        throw UsageError(fmt::format("{} {}: the version {} (versions: {})", flag_of(preset), version, why,
                                     fmt::join(versions, ", ")));
    }
    if (preset == Preset::kNflxCtc) {
        args.models.push_back("version=vmaf_4k_v0.6.1:name=vmaf");
        args.models.push_back("version=vmaf_4k_v0.6.1neg:name=vmaf_neg");
        args.features.push_back("psnr=enable_chroma=true:enable_apsnr=true");
        args.features.push_back("float_ssim=enable_db=true:clip_db=true");
        args.features.push_back("cambi");
        return;
    }
    const int level = aom_ctc_level(version);
    args.models.push_back("version=vmaf_v0.6.1:name=vmaf");
    args.models.push_back("version=vmaf_v0.6.1neg:name=vmaf_neg");
    args.features.push_back("psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5");
    args.features.push_back("ciede");
    args.features.push_back("float_ssim=enable_db=true:clip_db=true");
    args.features.push_back("float_ms_ssim=enable_db=true:clip_db=true");
    args.features.push_back("psnr_hvs");
    if (level >= 3) args.features.push_back("cambi");
    if (level >= 7) replace_feature(args.features, "float_ssim=scale=1:enable_db=true:clip_db=true");
}

}  // namespace vmafx
