// Floating-point MOTION (upstream libvmaf 3.2.0 feature extractor "float_motion"): options,
// outputs, factory.
//
// Each reference frame's luma, as floats minus 128, is blurred by a separable 5-tap Gaussian
// (float taps, mirrored edges); the motion score of frame i >= 1 is the mean absolute
// difference of the blurred frames i and i-1 (float sums, rows first). motion2 of frame i is
// the smaller of the scores of frames i and i+1 (frame 0: 0, the last frame: its own score),
// motion3 that value blended above an offset (motion_blend) and clipped.
// Upstream source: libvmaf/src/feature/float_motion.c (extract, flush), motion.c
// (vmaf_image_sad_c), motion_tools.h (filters), motion_blend_tools.h.
#pragma once

#include <span>
#include <string>

#include "feature/metric.hpp"

namespace vmafx::float_motion {

/// Descriptor of the floating-point MOTION extractor "float_motion" (feature/metrics.def).
///
/// Options (upstream's table in float_motion.cpp, which alone holds their ranges and defaults;
/// docs/metrics.md's generated tables show them): debug (not a feature parameter: also writes
/// VMAF_feature_motion_score), motion_force_zero, motion_fps_weight, motion_blend_factor,
/// motion_blend_offset, motion_add_scale1 (adds the score of the blurred frames scaled to half
/// size, bilinear), motion_filter_size (1 is a 5-tap identity, 3 a 3-tap Gaussian, any other
/// value the 5-tap Gaussian), motion_add_uv (adds the scores of both chroma planes),
/// motion_max_val.
///
/// Provided features: VMAF_feature_motion_score (debug), VMAF_feature_motion2_score,
/// VMAF_feature_motion3_score (aliases motion, motion2, motion3). extract() writes frame i's
/// raw score (unweighted, unclipped) as its motion2 placeholder and, with debug, the weighted
/// and clipped score; flush() replaces the placeholders with motion2 and writes motion3 (with
/// motion_force_zero, extract() writes zeros and flush() nothing, as upstream).
///
/// Limits: bit depths 8..16, luma at least 3 x 3 (the mirrored 5-tap filter; upstream reads
/// outside the picture below); with motion_add_uv the chroma planes must be at least 3 x 3
/// too (2 x 2 with motion_filter_size 3), and motion_add_uv with motion_add_scale1 is
/// refused (upstream then reads the chroma buffers with the wrong stride, i.e. uninitialised
/// memory).
extern const MetricDescriptor descriptor;

/// Options and output names of one "float_motion" instance, and its host-side arithmetic.
struct Settings {
    /// The option table's defaults (descriptor.parse_options({}) bound): the members bound to
    /// options carry no default of their own, so that each default is written once, in the table.
    Settings();
    /// The options of `descriptor` bound to the members below, and the output names.
    explicit Settings(const Options& options);

    bool debug;
    bool force_zero;
    double fps_weight;
    double blend_factor;
    double blend_offset;
    bool add_scale1;
    int filter_size;
    bool add_uv;
    double max_val;
    std::string motion_name;   ///< output name of VMAF_feature_motion_score
    std::string motion2_name;  ///< of VMAF_feature_motion2_score
    std::string motion3_name;  ///< of VMAF_feature_motion3_score

    /// Whether extract() scores frame `index` from pictures (not with motion_force_zero, not
    /// frame 0); the others get write_frame's zeros.
    bool scores_frame(unsigned index) const;
    /// A frame's raw score from its planes' SADs (as doubles): y, plus u then v with
    /// motion_add_uv (u and v ignored otherwise).
    double frame_score(double y, double u, double v) const;
    /// extract()'s outputs of frame `index` with raw score `score` (ignored where the frame is
    /// not scored: zeros, as upstream): the motion2 placeholder, motion3's zero with
    /// motion_force_zero, and with debug the weighted, clipped score.
    void write_frame(unsigned index, double score, FrameScores& out) const;
    /// min(score * motion_fps_weight, motion_max_val).
    double weighted(double score) const;
    /// min(motion_blend(score * motion_fps_weight), motion_max_val).
    double blended(double score) const;
    /// float_motion.c flush() and the scores extract() writes late: motion2 and motion3 of
    /// every frame 0..n-1 from the raw scores in the motion2 slots (n: frames with a slot
    /// written, from 0).
    void flush(ScoreTable& table) const;
};

/// vmaf_image_sad_c's mean of one image pair from its rows' float sums of |a - b| (`rows`, in
/// row order): their float sum from 0 in row order over the float of width * height, as float.
float mean_of_rows(std::span<const float> rows, int width, int height);
/// The SAD of a pair with motion_add_scale1: the float sum of the full-size and the half-size means.
float add_scales(float scale0, float scale1);
/// A side's length at motion_add_scale1's half size: int(side * 0.5 + 0.5) (in double).
int scale1_size(int side);

}  // namespace vmafx::float_motion
