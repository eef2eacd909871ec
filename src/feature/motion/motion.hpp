// Integer MOTION (upstream libvmaf 3.2.0 feature extractor "motion"): options, outputs, factory.
//
// Per frame i >= 1 (i >= 2 with the five-frame window), the luma of reference frame i and of
// reference frame i-1 (i-2) are subtracted, the difference is blurred by a separable 5-tap
// integer filter and the mean absolute value of the blurred difference is the frame's
// "sad" score (VMAF_integer_feature_motion_sad_score). After the last frame, flush() turns
// the sad scores into motion2 (the smaller of two neighbouring sad scores) and motion3
// (motion2 blended, clipped, optionally averaged), the features VMAF models read.
// Upstream source: libvmaf/src/feature/integer_motion.c (extract, flush),
// integer_motion.h (filter), motion_blend_tools.h (motion_blend), x86/motion_avx512.c.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "feature/metric.hpp"

namespace vmafx {

namespace motion {

/// Descriptor of the integer MOTION extractor "motion" (listed in feature/metrics.def).
///
/// Options (upstream's table in motion.cpp, which alone holds their ranges and defaults;
/// docs/metrics.md's generated tables show them): motion_force_zero, motion_blend_factor,
/// motion_blend_offset, motion_fps_weight, motion_max_val, motion_five_frame_window,
/// motion_moving_average, and debug (not part of output names: also writes
/// VMAF_integer_feature_motion_score).
///
/// Provided features: VMAF_integer_feature_motion_sad_score, VMAF_integer_feature_motion_score
/// (debug only), VMAF_integer_feature_motion2_score, VMAF_integer_feature_motion3_score.
/// extract() writes the sad (and debug) score of its frame from the reference luma of the
/// frame and of the previous one (history: 1 previous reference, 2 with the five-frame window);
/// flush() writes motion2 and motion3 of every frame 0..n-1, where n is the number of
/// consecutive frames from 0 that have a sad score in the table.
///
/// Its limits: bit depths 8..16 and luma at least 3 x 3 samples (the 5-tap mirrored filter
/// needs 3; upstream reads outside the picture below and its result is undefined).
extern const MetricDescriptor descriptor;

/// Options and output names of one "motion" instance, and the host-side arithmetic of the
/// metric: the sad score of a frame from its integer sum, and flush()'s motion2/motion3.
/// Shared by the CPU extractor (motion.cpp) and its CUDA twin (motion_cuda.cu), so that both
/// form every double the same way. Upstream: integer_motion.c extract() (score), flush().
struct Settings {
    /// The option table's defaults (descriptor.parse_options({}) bound): the members bound to
    /// options carry no default of their own, so that each default is written once, in the table.
    Settings();
    /// The options of `descriptor` bound to the members below, and the output names.
    explicit Settings(const Options& options);

    bool force_zero;
    double blend_factor;
    double blend_offset;
    double fps_weight;
    double max_val;
    bool five_frame_window;
    bool moving_average;
    bool debug;
    std::string sad_name;      ///< output name of VMAF_integer_feature_motion_sad_score
    std::string motion_name;   ///< of VMAF_integer_feature_motion_score (debug only)
    std::string motion2_name;  ///< of VMAF_integer_feature_motion2_score
    std::string motion3_name;  ///< of VMAF_integer_feature_motion3_score

    /// First frame compared with an earlier reference (upstream's min_idx): 1, or 2 with the
    /// five-frame window, which compares frame i with frame i-2. Also the number of previous
    /// reference pictures a frame needs (the descriptor's history).
    unsigned first_scored_index() const { return five_frame_window ? 2 : 1; }
    /// Whether frame `index` is scored from pictures; when not, its sad score is 0.
    bool scores_frame(unsigned index) const { return !force_zero && index >= first_scored_index(); }
    /// The sad score of a scored frame of a width x height luma plane from `sad`, the sum over
    /// the rows of each row's uint32 (wrapping) sum of |blurred difference|, taken in 64 bits:
    /// min(sad / 256 / (width * height) * motion_fps_weight, motion_max_val).
    double sad_score(std::uint64_t sad, int width, int height) const;
    /// Appends a frame's extract() outputs to `out`: (sad_name, score), then with debug
    /// (motion_name, score).
    void write_frame(double score, FrameScores& out) const;
    /// A GPU twin's frame: write_frame of sad_score(sad, width, height) where the frame was
    /// `scored` from pictures (scores_frame), else of 0.
    void write_device_frame(bool scored, std::uint64_t sad, int width, int height, FrameScores& out) const {
        write_frame(scored ? sad_score(sad, width, height) : 0.0, out);
    }
    /// integer_motion.c flush(): writes motion2 and motion3 of every frame 0..n-1, where n is the
    /// number of consecutive frames from 0 with a sad score in `table`.
    void flush(ScoreTable& table) const;
};

}  // namespace motion

}  // namespace vmafx
