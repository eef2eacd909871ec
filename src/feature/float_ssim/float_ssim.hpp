// Float SSIM (upstream libvmaf 3.2.0 feature extractor "float_ssim"): options, outputs, factory.
//
// Per frame, the luma of the reference and of the distorted picture are copied to floats
// (8-bit samples as they are, 10/12/16-bit samples divided by 4/16/256), decimated by the
// scale factor (option `scale`, or max(1, round(min(w, h) / 256)) when it is 0: a box average
// of scale x scale samples at every scale-th sample, iqa::decimate), and scored by the SSIM of
// Wang et al. (IEEE TIP 13(4), 2004) with the 11x11 Gaussian window (iqa::ssim_means): the
// mean over the windows of l c s, as a float. Upstream source: float_ssim.c (init, extract),
// ssim.c (compute_ssim), iqa/ (see feature/common/iqa.hpp).
#pragma once

#include <string>

#include "feature/common/iqa.hpp"
#include "feature/metric.hpp"

namespace vmafx::float_ssim {

/// Descriptor of "float_ssim" (listed in feature/metrics.def).
///
/// Options (none is a feature parameter, so output names never change): enable_lcs (bool:
/// also float_ssim_l, float_ssim_c, float_ssim_s, the means of the luminance, contrast and
/// structure terms), enable_db (bool: float_ssim as -10 log10(1 - ssim)), clip_db (bool: that
/// dB value capped at ceil(10 log10(peak^2 / (0.5 / (w h))))), scale (0: automatic).
/// Limits: 8, 10, 12 and 16 bits (upstream's float copy reads other depths as bytes);
/// luma at least 11 x 11, and at least 11 x 11 after the decimation the scale gives (fewer
/// samples leave no whole Gaussian window: upstream writes 0 or NaN there).
extern const MetricDescriptor descriptor;

/// Options and output names of one instance.
struct Settings {
    /// The option table's defaults (descriptor.parse_options({}) bound): the members bound to
    /// options carry no default of their own, so that each default is written once, in the table.
    Settings();
    /// The options of `descriptor` bound to the members below, and the output names.
    explicit Settings(const Options& options);

    bool enable_lcs;
    bool enable_db;
    bool clip_db;
    int scale;  ///< 0: auto
    std::string ssim_name, l_name, c_name, s_name;

    /// The decimation factor for a width x height luma: `scale` when above 0, else upstream's
    /// max(1, _round(min(width, height) / 256.0f)) (_round: half away from zero, in float).
    int factor(int width, int height) const;

    /// The decimation factor for `format` (factor()), after the CPU extractor's refusals:
    /// throws Error for a luma whose decimation leaves fewer than 11 x 11 samples (the
    /// descriptor's limits refuse bit depths other than 8, 10, 12 and 16). The CUDA twin refuses
    /// through the same function.
    int checked_factor(const VideoFormat& format) const;

    /// The tap of ssim.c's box low-pass filter of the decimation: 1.0f / (factor * factor),
    /// every one of its factor x factor taps.
    static float box_tap(int factor) { return 1.0f / static_cast<float>(factor * factor); }

    /// Appends one frame's outputs from its means (CPU extractor and CUDA twin alike):
    /// float_ssim (as dB, capped at `max_db`, with enable_db), then with enable_lcs the means of
    /// l, c and s.
    void write_frame(const iqa::SsimMeans& means, double max_db, FrameScores& out) const;
};

}  // namespace vmafx::float_ssim
