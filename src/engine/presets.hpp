// The `vmaf` tool's presets --aom_ctc and --nflx_ctc: the models and features of the AOM and
// Netflix common test conditions, as upstream libvmaf 3.2.0's CLI defines them
// (libvmaf/tools/cli_parse.c, aom_ctc_v1_0 .. aom_ctc_v7_0, nflx_ctc_v1_0).
#pragma once

#include <string>
#include <vector>

namespace vmafx {

/// The command line's models and features, in the order they were given: `-m` values
/// (upstream's model syntax, "version=NAME:name=ALIAS") and `--feature` values
/// ("NAME=opt=val:opt=val"). Presets add to both, where they stand on the command line.
struct ModelAndFeatureArgs {
    std::vector<std::string> models;
    std::vector<std::string> features;
};

/// Which preset flag.
enum class Preset { kAomCtc, kNflxCtc };

/// The versions `preset` accepts: --aom_ctc v1.0 .. v7.0, --nflx_ctc v1.0.
std::vector<std::string> preset_versions(Preset preset);

/// Adds `preset` at `version` to `args`, as upstream's CLI does at that point of the command
/// line:
/// - --aom_ctc v1.0 and v2.0: models vmaf_v0.6.1 (named "vmaf") and vmaf_v0.6.1neg ("vmaf_neg");
///   features psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5, ciede,
///   float_ssim=enable_db=true:clip_db=true, float_ms_ssim=enable_db=true:clip_db=true, psnr_hvs;
/// - v3.0, v4.0, v5.0: those and cambi;
/// - v6.0: the same; upstream also lets the two videos' bit depths differ (common_bitdepth),
///   which vmafx does not (it reads the lower-depth video's bytes as the higher depth's: see
///   docs/metrics.md, "Presets"): videos of different bit depths are still refused;
/// - v7.0: v6.0 with the first float_ssim feature given so far replaced by
///   float_ssim=scale=1:enable_db=true:clip_db=true (appended when there is none);
/// - --nflx_ctc v1.0: models vmaf_4k_v0.6.1 ("vmaf") and vmaf_4k_v0.6.1neg ("vmaf_neg");
///   features psnr=enable_chroma=true:enable_apsnr=true, float_ssim=enable_db=true:clip_db=true,
///   cambi.
/// Throws UsageError naming the flag and the versions it takes for any other `version`
/// ("proposed", upstream's deprecated --aom_ctc version, included).
void apply_preset(Preset preset, const std::string& version, ModelAndFeatureArgs& args);

}  // namespace vmafx
