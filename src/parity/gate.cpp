#include "parity/gate.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <fmt/printf.h>

#include "gpu/scheduler.hpp"
#include "feature/corners.hpp"
#include "feature/registry.hpp"
#include "model/builtin_models.hpp"

namespace vmafx {

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Every built-in model, each under its own name (`version=V:name=V`).
std::vector<ModelSpec> builtin_model_specs() {
    std::vector<ModelSpec> specs;
    for (const BuiltinModel& m : builtin_models())
        specs.push_back(parse_model_spec(fmt::format("version={}:name={}", m.version, m.version)));
    return specs;
}

/// Cases of one twin: its metric with default options, at every option corner, and with the
/// models' option sets (instances with the same non-default values counted once).
void add_twin_cases(const TwinDescriptor& twin, std::vector<ParityCase>& cases) {
    const MetricDescriptor& metric = metric_named(twin.metric);
    std::vector<std::string> seen;
    const auto add = [&](const OptionValues& values, bool corner, const std::string& from, unsigned subsample = 1,
                         bool targeted = false) {
        std::string options;
        try {
            options = metric.parse_options(values).key();
        } catch (const Error&) {
            if (!targeted) throw;
            return;  // a declared corner the options refuse (upstream refuses it too: tools/option_corners.py)
        }
        const std::string key = options + fmt::format("/{}", subsample);
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) return;
        seen.push_back(key);
        ParityCase c;
        c.label = fmt::format("{} {}", metric.name, options.empty() ? "defaults" : options) + from;
        c.twin = &twin;
        c.corner = corner;
        c.targeted = targeted;
        c.config.no_prediction = true;
        c.config.subsample = subsample;
        c.config.features.push_back({metric.name, values});
        cases.push_back(std::move(c));
    };
    add({}, false, "");
    add({}, true, " --subsample 3", 3);  // frames skipped by metrics without history
    for (const ModelSpec& m : builtin_model_specs())
        for (const auto& req : Model(m).required_features())
            if (req.metric == &metric) add(req.options, false, fmt::format(" ({})", m.version));
    for (const OptionSpec& spec : metric.options)
        for (const std::string& v : range_corner_values(spec)) add({{spec.name, v}}, true, "");
    // The corners the descriptor declares (its rows' also_at values, its corner sets): only on
    // the inputs made for this metric (ParityInput::corner_metrics).
    for (const OptionSpec& spec : metric.options)
        for (const std::string& v : corner_values(spec)) add({{spec.name, v}}, true, "", 1, true);
    for (const char* set : metric.corner_sets) {
        OptionValues values;
        std::string rest = set;
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            const std::string pair = rest.substr(0, colon);
            const std::size_t eq = pair.find('=');
            if (eq == std::string::npos || eq == 0)
                throw Error(fmt::format("{}: corner set \"{}\" is not opt=value pairs", metric.name, set));
            values.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
            rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
        }
        add(values, true, "", 1, true);
    }
}

/// Compares every output of `cpu` with `gpu`, appending one row per output name.
void compare(const ParityInput& in, const ParityCase& c, const RunResult& cpu, const RunResult& gpu, double bound,
             std::vector<ParityRow>& rows) {
    const auto row_for = [&](const std::string& metric) {
        ParityRow row;
        row.metric = metric;
        row.input = in.label;
        row.case_label = c.label;
        row.bound = bound;
        return row;
    };
    for (const auto& name : cpu.scores.names()) {
        ParityRow row = row_for(feature_alias(name));
        for (unsigned i = 0; i < cpu.frames; ++i) {
            const auto cv = cpu.scores.get(name, i);
            const auto gv = gpu.scores.get(name, i);
            if (!cv && !gv) continue;
            ++row.frames;
            if (!cv || !gv) {
                row.breach = true;
                row.max_abs_diff = INFINITY;
                continue;
            }
            if (same_bits(*cv, *gv)) {
                ++row.identical;
                continue;
            }
            const double d = std::fabs(*cv - *gv);
            row.max_abs_diff = std::isnan(d) ? INFINITY : std::max(row.max_abs_diff, d);
            if (!(d <= bound) || bound == 0.0) row.breach = true;
        }
        rows.push_back(row);
    }
    for (const auto& name : gpu.scores.names())
        if (!cpu.scores.frames(name)) {
            ParityRow row = row_for(feature_alias(name) + " (GPU only)");
            row.breach = true;
            rows.push_back(row);
        }
}

/// The run of case `c` on `in` with `backend`; nullopt with the message in `refusal` when the
/// run throws Error.
std::optional<RunResult> run_case(const ParityInput& in, const ParityCase& c, Backend backend, PlantedDefect plant,
                                  std::string& refusal) {
    RunConfig config = c.config;
    config.reference_path = in.reference_path;
    config.distorted_path = in.distorted_path;
    config.raw_format = in.raw_format;
    if (in.frames > 0) config.frame_count = in.frames;
    config.backend = backend;
    config.planted_defect = plant;
    try {
        return run(config);
    } catch (const Error& e) {
        refusal = e.what();
        return std::nullopt;
    }
}

}  // namespace

std::vector<ParityCase> parity_cases(const std::string& backend, const TwinDescriptor* only) {
    std::vector<ParityCase> cases;
    for (const TwinDescriptor* twin : twin_registry(backend))
        if (!only || twin == only) add_twin_cases(*twin, cases);
    for (ParityCase& c : cases) c.backend = backend;
    if (only) return cases;
    // The scores of every built-in model whose features all have twins, in one run.
    ParityCase c;
    c.label = "models";
    c.backend = backend;
    for (const ModelSpec& m : builtin_model_specs()) {
        bool all_twins = true;
        try {
            for (const auto& req : Model(m).required_features()) all_twins = all_twins && find_twin(req.metric->name, backend);
        } catch (const Error&) {
            all_twins = false;  // a feature of a metric vmafx does not have yet
        }
        if (!all_twins) continue;
        c.config.models.push_back(m);
        c.label += " " + m.version;
    }
    if (!c.config.models.empty()) cases.push_back(std::move(c));
    return cases;
}

std::vector<ParityRow> run_parity(const std::vector<ParityInput>& inputs, const std::vector<ParityCase>& cases,
                                  PlantedDefect plant) {
    for (const ParityCase& c : cases)
        if (const std::string why = gpu_unavailable_reason(c.backend); !why.empty())
            throw Error(fmt::format("the parity gate needs the {} backend: {}", backend_label(c.backend), why));
    std::vector<ParityRow> rows;
    for (const auto& in : inputs)
        for (const auto& c : cases) {
            const bool for_metric = c.twin && std::find(in.corner_metrics.begin(), in.corner_metrics.end(),
                                                        c.twin->metric) != in.corner_metrics.end();
            if (c.corner && !for_metric && (c.targeted || !in.corners)) continue;
            std::string cpu_refusal, gpu_refusal;
            const auto cpu = run_case(in, c, kCpuBackend, PlantedDefect::kNone, cpu_refusal);
            const auto gpu = run_case(in, c, c.backend, plant, gpu_refusal);
            if (!cpu || !gpu) {
                ParityRow row;
                row.metric = !cpu && !gpu ? "(refused by both)" : (cpu ? "(refused by the GPU only)" : "(refused by the CPU only)");
                row.input = in.label;
                row.case_label = c.label;
                row.breach = static_cast<bool>(cpu) != static_cast<bool>(gpu);
                if (row.breach) row.metric += ": " + (cpu ? gpu_refusal : cpu_refusal);
                rows.push_back(row);
                continue;
            }
            // The models' scores are exact while every twin feeding them is; a bounded twin will
            // need the bound of a model's score derived from its features' bounds.
            const double bound = c.twin ? c.twin->contract.bound(cpu->format) : 0.0;
            std::vector<ParityRow> these;
            compare(in, c, *cpu, *gpu, bound, these);
            if (!c.twin) {  // the model run: keep only the models' own outputs
                std::vector<std::string> outputs;
                for (const ModelSpec& m : c.config.models)
                    for (const std::string& n : Model(m).output_names()) outputs.push_back(n);
                std::erase_if(these, [&](const ParityRow& r) {
                    return std::find(outputs.begin(), outputs.end(), r.metric) == outputs.end();
                });
            }
            rows.insert(rows.end(), these.begin(), these.end());
        }
    return rows;
}

unsigned count_breaches(const std::vector<ParityRow>& rows) {
    unsigned n = 0;
    for (const auto& r : rows) n += r.breach;
    return n;
}

std::string format_parity_table(const std::vector<ParityRow>& rows) {
    std::string out = fmt::format("{:<44} {:<28} {:<40} {:>10} {:>12}  {}\n", "metric", "input", "case", "identical",
                                  "max |diff|", "contract");
    for (const auto& r : rows)
        out += fmt::format("{:<44} {:<28} {:<40} {:>10} {:>12.3g}  {}{}\n", r.metric, r.input, r.case_label,
                           fmt::format("{}/{}", r.identical, r.frames), r.max_abs_diff,
                           r.bound == 0.0 ? "exact" : fmt::format("bound {:.3g}", r.bound), r.breach ? "  BREACH" : "");
    out += fmt::format("{} rows, {} breaches\n", rows.size(), count_breaches(rows));
    return out;
}

}  // namespace vmafx
