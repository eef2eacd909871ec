// CAMBI, the contrast-aware multiscale banding index (upstream libvmaf 3.2.0 feature extractor
// "cambi"): options, outputs, factory.
//
// Per frame, the distorted luma is brought to 10 bits at the encoding resolution (nearest
// neighbour, an anti-dithering 2x2 average when the encode had fewer than 10 bits), a spatial
// mask keeps the pixels whose 7x7 neighbourhood is flat enough, and at five scales (each the
// previous one decimated by 2, after a 3x3 mode filter) every masked pixel gets a contrast value
// from the histograms of its window_size x window_size window: for each luma step d that is
// visible at its level (the threshold-versus-intensity test of the EOTF), the largest of
// weight(d) p0 p(+-d) / (p0 + p(+-d)). The mean of the largest topk fraction of the values of
// each scale, weighted 16, 8, 4, 2, 1 and divided by the window area, is the score, clipped to
// cambi_max_val. With full_ref the reference gets the same at the source resolution, and
// max(0, dist - src) is the full-reference score.
// Source: P. Tandon, M. Afonso, J. Sole, L. Krasula, "CAMBI: Contrast-aware Multiscale Banding
// Index", PCS 2021. Upstream: libvmaf/src/feature/cambi.c (with cambi.h, luminance_tools.c) and
// x86/cambi_avx2.c, which its dispatch picks on x86 (same bits as the C code for these inputs).
#pragma once

#include <string>

#include "feature/metric.hpp"

namespace vmafx::cambi {

/// Descriptor of "cambi" (listed in feature/metrics.def).
///
/// Options (upstream's table in cambi.cpp, which alone holds their ranges and defaults; the
/// generated tables of docs/metrics.md show them; all but heatmaps_path and full_ref are
/// feature parameters): cambi_max_val, enc_width, enc_height (at their default, the
/// picture's), enc_bitdepth (at its default, the input's), src_width, src_height, window_size
/// (at 4K), topk, cambi_topk (topk wins when it is not at its default), tvi_threshold,
/// cambi_vis_lum_threshold, max_log_contrast, heatmaps_path (string: a folder, made if missing,
/// where each scale's contrast values of the distorted pictures are written as upstream writes
/// them: cambi_heatmap_scale_S_WxH_16b.gray, W x H the encode's size halved S times, frame i's
/// rows at i * rows, values scaled to 65535 / the largest possible), full_ref (bool), eotf and
/// cambi_eotf (strings "bt1886" or "pq"; cambi_eotf wins when it is not at its default),
/// cambi_high_res_speedup (1080, 1440 or 2160 decimate once more after the mask at encodes of
/// at least that many pixels).
///
/// Output: Cambi_feature_cambi_score (alias "cambi"); with full_ref also "cambi_source" and
/// "cambi_full_reference", whose names upstream never suffixes. Reads the luma of the
/// distorted picture (and of the reference with full_ref); no previous pictures.
///
/// Limits: 8 to 16 bits; at least 216 wide or 216 high, at least 1 x 2 (216 x 2 and 1 x 216 are
/// scored). The factory also refuses what upstream refuses at initialisation (encode and source
/// both below 216 in both dimensions, source and encode scaled in opposite directions, a window
/// too large for the reciprocal table, an unknown EOTF, a heatmaps_path it cannot write to) and
/// what upstream reads outside its buffers for (a window higher than a scale of the picture,
/// full_ref with a source wider than a 10-bit picture), always with an Error naming cambi; and
/// extract() refuses samples above the bit depth, as upstream does, and pictures for which
/// upstream reads or writes outside its histograms when cambi_vis_lum_threshold puts the band of
/// levels above the tvi_threshold's limits (cambi_internal.hpp: Band; cambi_contrast.cpp:
/// band_reach_error).
extern const MetricDescriptor descriptor;

/// The options of one "cambi" instance, bound to the descriptor's table.
struct Settings {
    /// The option table's defaults (descriptor.parse_options({}) bound): the members bound to
    /// options carry no default of their own, so that each default is written once, in the table.
    Settings();
    /// The options of `descriptor` bound to the members below, and the output name.
    explicit Settings(const Options& options);

    double max_val;  ///< cambi_max_val
    int enc_width;  ///< enc_width (0: the picture's)
    int enc_height;  ///< enc_height (0: the picture's)
    int enc_bitdepth;  ///< enc_bitdepth (0: the input's)
    int src_width;  ///< src_width (0: the picture's)
    int src_height;  ///< src_height (0: the picture's)
    int window_size;  ///< window_size, at 4K; scaled to the picture
    double topk;  ///< topk
    double cambi_topk;  ///< cambi_topk
    double tvi_threshold;  ///< tvi_threshold
    double vis_lum_threshold;  ///< cambi_vis_lum_threshold, cd/m^2
    int max_log_contrast;  ///< max_log_contrast
    std::string heatmaps_path;       ///< heatmaps_path ("": no heatmaps)
    bool full_ref;  ///< full_ref
    std::string eotf;  ///< eotf
    std::string cambi_eotf;  ///< cambi_eotf
    int high_res_speedup;  ///< cambi_high_res_speedup
    std::string score_name;          ///< output name of Cambi_feature_cambi_score
};

}  // namespace vmafx::cambi
