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

#include "feature/feature_extractor.hpp"

namespace vmafx {

/// Registry entry of the integer MOTION extractor "motion".
///
/// Options (upstream's table, aliases in output names): motion_force_zero (force_0, bool),
/// motion_blend_factor (mbf, [0, 1], 1), motion_blend_offset (mbo, [0, 1000], 40),
/// motion_fps_weight (mfw, [0, 5], 1), motion_max_val (mmxv, [0, 10000], 10000),
/// motion_five_frame_window (mffw, bool), motion_moving_average (mma, bool), and debug
/// (bool, not part of output names: also writes VMAF_integer_feature_motion_score).
///
/// Provided features: VMAF_integer_feature_motion_sad_score, VMAF_integer_feature_motion_score
/// (debug only), VMAF_integer_feature_motion2_score, VMAF_integer_feature_motion3_score.
/// extract() writes the sad (and debug) score of its frame from the reference luma of the
/// frame and of the previous one (previous_refs() = 1, or 2 with the five-frame window);
/// flush() writes motion2 and motion3 of every frame 0..n-1, where n is the number of
/// consecutive frames from 0 that have a sad score in the table.
///
/// The factory throws Error for bit depths outside 8..16 and for a luma plane narrower or
/// lower than 3 samples (the 5-tap mirrored filter needs 3; upstream reads outside the
/// picture there and its result is undefined).
const ExtractorInfo& motion_extractor_info();

}  // namespace vmafx
