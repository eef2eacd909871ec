// The parity gate as a library: the cases it runs (derived from the registries: every twin with
// default options, at each option's corners as its descriptor declares them, and with the
// option sets of the built-in models; the models' scores), running them on both backends, the
// comparison of every per-frame value against the twin's contract (its bound at the input's
// format), and the report. Inputs (fixtures, generated videos): parity/inputs.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

/// One input of the gate: a reference/distorted pair (raw with `raw_format`, or y4m).
struct ParityInput {
    std::string label;  ///< fixture name, or a description of generated content
    std::string reference_path, distorted_path;
    std::optional<VideoFormat> raw_format;
    /// Also run the option-corner cases on it (generated, small inputs: the corners multiply
    /// the runs).
    bool corners = false;
    /// Also run the option-corner cases of these metrics' twins on it (descriptor names, e.g.
    /// "cambi"): a large input made for a metric's hardest options (cambi's largest window at
    /// 3840x2160), where every metric's corners would cost too much.
    std::vector<std::string> corner_metrics = {};
    /// Score only the first `frames` frame pairs (RunConfig::frame_count) on both backends; 0:
    /// every frame. The gate's fixture run on a device emulated on the CPU takes a few frames of
    /// each fixture (a GPU takes them all).
    unsigned frames = 0;
};

/// One run the gate makes on each input, on both backends.
struct ParityCase {
    std::string label;                    ///< e.g. "adm adm_csf_mode=3", "models vmaf_v0.6.1,vmaf_neg"
    const TwinDescriptor* twin = nullptr;  ///< the twin it checks; nullptr for the models' scores
    bool corner = false;                   ///< an option-corner case (run on inputs with `corners`)
    bool targeted = false;                 ///< a declared corner (OptionSpec::also_at, a corner set):
                                           ///< run only on inputs whose corner_metrics name the metric
    RunConfig config;                      ///< features or models; paths and backend set per run
    std::string backend;                   ///< the GPU backend compared with the CPU (e.g. "cuda")
};

/// The gate's cases: for every registered twin, its metric alone with default options (also at
/// --subsample 3, a corner case); with
/// each option at each corner its range gives (feature/corners.hpp range_corner_values, the
/// derivation `vmafx --list-option-corners` also starts from: bools flipped; ints at min and
/// max; doubles at min, max and 30% of the range; values equal to the default skipped), and at
/// the corners its descriptor declares (also_at values, corner sets: `targeted` cases, run only
/// on the inputs made for the metric); with each option set a built-in model
/// gives it; then, in one run, the scores of every built-in model whose features all have
/// twins. Each for GPU backend `backend` (its twins: twin_registry(backend)). `twin`: only that
/// twin's cases (no model case).
std::vector<ParityCase> parity_cases(const std::string& backend, const TwinDescriptor* twin = nullptr);

/// One row of the gate's table: one output of one case on one input.
struct ParityRow {
    std::string metric;       ///< output name (upstream alias), e.g. "integer_vif_scale0_egl_1"
    std::string input;        ///< ParityInput::label
    std::string case_label;   ///< ParityCase::label
    unsigned identical = 0;   ///< frames whose GPU value has the CPU value's bits
    unsigned frames = 0;      ///< frames compared
    double max_abs_diff = 0.0;
    double bound = 0.0;       ///< the contract's bound at the input's format (0: exact)
    bool breach = false;      ///< a difference above the bound (any difference where exact), a
                              ///< value on one side only, or one backend refusing what the other ran
};

/// Runs every case on every input (corner cases only on inputs with `corners`, or whose
/// `corner_metrics` name the case's metric) on the CPU and
/// on the twins of the case's GPU backend (ParityCase::backend), planting `plant` in the twins that declare it, and compares. A case both
/// backends refuse with an Error (a format or option the metric cannot score) gives one row,
/// not a breach. Throws Error when a backend cannot run at all.
std::vector<ParityRow> run_parity(const std::vector<ParityInput>& inputs, const std::vector<ParityCase>& cases,
                                  PlantedDefect plant = PlantedDefect::kNone);

/// Number of rows with a breach.
unsigned count_breaches(const std::vector<ParityRow>& rows);

/// The table, one line per row, and a summary line "N rows, N breaches".
std::string format_parity_table(const std::vector<ParityRow>& rows);

}  // namespace vmafx
