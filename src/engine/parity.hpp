// The parity gate: runs every GPU twin and the CPU reference on the same videos and compares
// every per-frame value against the twin's contract (src/feature/*: ExtractorInfo::gpu_contract).
#pragma once

#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace vmafx {

/// One input of the gate: a reference/distorted pair (raw with `raw_format`, or y4m).
struct ParityInput {
    std::string label;  ///< fixture name, or a description of generated content
    std::string reference_path, distorted_path;
    std::optional<VideoFormat> raw_format;
};

/// One row of the gate's table: one output of one twin on one input.
struct ParityRow {
    std::string metric;   ///< output name (upstream alias), e.g. "integer_vif_scale0_egl_1"
    std::string input;    ///< ParityInput::label
    unsigned identical = 0;  ///< frames whose GPU value has the CPU value's bits
    unsigned frames = 0;     ///< frames compared
    double max_abs_diff = 0.0;
    TwinContract contract;
    bool breach = false;  ///< exact twin with a differing frame, or a difference above the bound,
                          ///< or a value missing on one side
};

/// What the gate runs on each input: every extractor that has a GPU twin, with default options,
/// and with the options of the built-in models vmaf_v0.6.1 and vmaf_v0.6.1neg (enhancement gain
/// limits), ADM also with the v1.0.16 models' DLM weight 0.7; and those models' scores. Each extractor instance is run alone on both backends.
/// Throws Error when a backend cannot run.
std::vector<ParityRow> run_parity(const std::vector<ParityInput>& inputs);

/// Fixtures of `dir` (each subfolder with fixture.ini, ref.yuv and dist.yuv, as
/// shared/fixtures/prepare.py writes them).
std::vector<ParityInput> fixture_inputs(const std::string& dir);

/// Writes `frames` frames of random content of `format` to the raw file `path`: a smooth
/// pattern plus small noise common to every seed, plus noise of +-`noise` from `seed` (so a
/// video with noise 0 and one with noise > 0 make a reference/distorted pair). Samples stay
/// within the bit depth; little-endian words above 8 bits. Throws Error when it cannot write.
void write_random_video(const std::string& path, const VideoFormat& format, int frames, unsigned seed, int noise);

/// Generated random-content inputs of odd sizes at 8, 10, 12 and 16 bits in `dir` (written
/// there): `count` sizes per bit depth, 4 frames each, seeded, so runs are repeatable.
std::vector<ParityInput> random_inputs(const std::string& dir, unsigned count, unsigned seed);

/// The table, one line per row, and a summary line "N rows, N breaches".
std::string format_parity_table(const std::vector<ParityRow>& rows);

}  // namespace vmafx
