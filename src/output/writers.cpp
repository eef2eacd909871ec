#include "output/writers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <fmt/printf.h>
#include <nlohmann/json.hpp>

#include "engine/pooling.hpp"
#include "output/output_target.hpp"

namespace vmafx {

namespace {

// Upstream's count_leading_zeros_d (output.c): zeros between the decimal point and the first
// significant digit of |x|'s fractional part; it picks between 6 and 16 printed decimals.
int leading_zeros(double x) {
    x = std::fabs(x);
    if (!(x < 2147483648.0)) return 0;  // upstream's (int) cast is undefined there; no zeros
    double fraction = x - static_cast<int>(x);
    int zeros = 0;
    while (fraction < 1.0 && fraction != 0) {
        fraction *= 10;
        ++zeros;
    }
    return zeros;
}

constexpr PoolMethod kPools[] = {PoolMethod::kMin, PoolMethod::kMax, PoolMethod::kMean,
                                 PoolMethod::kHarmonicMean};

/// One output of the run as the writers list it: its name in the output (RunResult::printed_names)
/// and its frame slots, both looked up once per run instead of once per value.
struct Column {
    std::string name;   ///< the ScoreTable's name
    std::string alias;  ///< upstream's output name
    const std::vector<std::optional<double>>* slots;
    std::optional<double> at(unsigned i) const { return i < slots->size() ? (*slots)[i] : std::nullopt; }
};

/// The run's outputs in the order of ScoreTable::names().
std::vector<Column> columns_of(const RunResult& r) {
    std::vector<Column> out;
    for (const std::string& name : r.scores.names()) {
        const auto printed = r.printed_names.find(name);
        out.push_back({name, printed != r.printed_names.end() ? printed->second : name, r.scores.slots(name)});
    }
    return out;
}

/// The frames that appear in the output: every subsample-th frame with at least one score.
std::vector<unsigned> output_frames(const RunResult& r, const std::vector<Column>& columns) {
    std::vector<unsigned> out;
    const unsigned step = std::max(1u, r.subsample);
    // A 64-bit count: next + step cannot wrap around to below r.frames (--subsample 4294967295).
    for (std::uint64_t next = 0; next < r.frames; next += step) {
        const auto i = static_cast<unsigned>(next);
        for (const Column& c : columns)
            if (c.at(i)) {
                out.push_back(i);
                break;
            }
    }
    return out;
}

/// A score in the XML, CSV and SUB layouts. Upstream prints every score of these with printf,
/// whatever its value, so NaN and the infinities read as glibc writes them ("nan", "-nan",
/// "inf", "-inf", the same for each of its formats); only its JSON writer tests for them and
/// writes null (format_number).
std::string format_printf(double v, const NumberFormat& nf) {
    if (std::isfinite(v)) return format_number(v, nf);
    char text[16];
    std::snprintf(text, sizeof text, "%f", v);
    return text;
}

std::string version_string() { return fmt::format("vmafx {}", VMAFX_VERSION); }

/// Whether the output names the backend of each metric: runs asked to use the GPU only (a CPU
/// run's file keeps upstream's layout exactly).
bool lists_backends(const RunResult& r) { return r.backend != kCpuBackend; }

namespace {

/// `text` as a JSON string literal, quoted and escaped.
std::string json_string(const std::string& text) { return nlohmann::json(text).dump(); }

/// `text` as an XML attribute value (without the quotes).
std::string xml_attribute(const std::string& text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

void write_xml_provenance(std::ostream& o, const RunResult& r) {
    const Provenance& p = r.provenance;
    o << fmt::format("  <provenance vmafx=\"{}\" commit=\"{}\" libvmaf=\"{}\">\n", xml_attribute(p.version),
                     xml_attribute(p.commit), xml_attribute(p.libvmaf));
    if (p.device)
        o << fmt::format("    <device name=\"{}\" driver=\"{}\" compute_capability=\"{}\" />\n",
                         xml_attribute(p.device->name), xml_attribute(p.device->driver),
                         xml_attribute(p.device->compute_capability));
    for (const ModelSource& m : p.models)
        o << fmt::format("    <model name=\"{}\" source=\"{}\" sha256=\"{}\" />\n", xml_attribute(m.name),
                         xml_attribute(m.label), m.sha256);
    for (const MetricBackend& b : r.backends)
        o << fmt::format("    <metric name=\"{}\" backend=\"{}\" contract=\"{}\" />\n", b.feature, b.backend,
                         b.contract);
    for (const InputDecoding& d : r.decoding)
        o << fmt::format("    <decoding video=\"{}\" decoder=\"{}\" note=\"{}\"{} />\n", d.video,
                         xml_attribute(d.decoder), xml_attribute(d.note),
                         d.sessions > 1 ? fmt::format(" sessions=\"{}\" segments=\"{}\"", d.sessions, d.segments) : "");
    o << "  </provenance>\n";
}

void write_json_provenance(std::ostream& o, const RunResult& r) {
    const Provenance& p = r.provenance;
    o << fmt::format("  \"provenance\": {{\n    \"vmafx\": {},\n    \"commit\": {},\n    \"libvmaf\": {},\n",
                     json_string(p.version), json_string(p.commit), json_string(p.libvmaf));
    if (p.device)
        o << fmt::format("    \"device\": {{\"name\": {}, \"driver\": {}, \"compute_capability\": {}}},\n",
                         json_string(p.device->name), json_string(p.device->driver),
                         json_string(p.device->compute_capability));
    o << "    \"models\": [";
    for (std::size_t i = 0; i < p.models.size(); ++i)
        o << fmt::format("{}\n      {{\"name\": {}, \"source\": {}, \"sha256\": \"{}\"}}", i ? "," : "",
                         json_string(p.models[i].name), json_string(p.models[i].label), p.models[i].sha256);
    o << (p.models.empty() ? "],\n" : "\n    ],\n");
    if (!r.decoding.empty()) {
        o << "    \"decoding\": {";
        for (std::size_t i = 0; i < r.decoding.size(); ++i)
            o << fmt::format("{}\n      \"{}\": {{\"decoder\": {}, \"note\": {}{}}}", i ? "," : "", r.decoding[i].video,
                             json_string(r.decoding[i].decoder), json_string(r.decoding[i].note),
                             r.decoding[i].sessions > 1 ? fmt::format(", \"sessions\": {}, \"segments\": {}",
                                                                      r.decoding[i].sessions, r.decoding[i].segments)
                                                        : "");
        o << "\n    },\n";
    }
    o << "    \"metrics\": {";
    for (std::size_t i = 0; i < r.backends.size(); ++i)
        o << fmt::format("{}\n      \"{}\": {{\"backend\": \"{}\", \"contract\": \"{}\"}}", i ? "," : "",
                         r.backends[i].feature, r.backends[i].backend, r.backends[i].contract);
    o << (r.backends.empty() ? "}\n  },\n" : "\n    }\n  },\n");
}

}  // namespace

void write_xml(std::ostream& o, const RunResult& r, const NumberFormat& nf) {
    o << fmt::format("<VMAF version=\"{}\">\n", version_string());
    o << fmt::format("  <params qualityWidth=\"{}\" qualityHeight=\"{}\" />\n", r.format.width, r.format.height);
    o << fmt::format("  <fyi fps=\"{:.2f}\" />\n", r.fps);
    if (lists_backends(r)) {
        o << "  <backends>\n";
        for (const MetricBackend& b : r.backends)
            o << fmt::format("    <metric name=\"{}\" backend=\"{}\" />\n", b.feature, b.backend);
        o << "  </backends>\n";
    }
    if (r.provenance.print) write_xml_provenance(o, r);
    o << "  <frames>\n";
    const std::vector<Column> columns = columns_of(r);
    for (unsigned i : output_frames(r, columns)) {
        o << fmt::format("    <frame frameNum=\"{}\" ", i);
        for (const Column& c : columns)
            if (auto v = c.at(i)) o << fmt::format("{}=\"{}\" ", c.alias, format_printf(*v, nf));
        o << "/>\n";
    }
    o << "  </frames>\n  <pooled_metrics>\n";
    for (const Column& c : columns) {
        o << fmt::format("    <metric name=\"{}\" ", c.alias);
        for (PoolMethod m : kPools)
            if (auto v = pool_score(r.scores, c.name, m, r.frames, r.subsample))
                o << fmt::format("{}=\"{}\" ", pool_method_name(m), format_printf(*v, nf));
        o << "/>\n";
    }
    o << "  </pooled_metrics>\n  <aggregate_metrics ";
    for (const auto& [name, v] : r.scores.aggregates()) o << fmt::format("{}=\"{}\" ", name, format_printf(v, nf));
    o << "/>\n</VMAF>\n";
}

void write_json(std::ostream& o, const RunResult& r, const NumberFormat& nf) {
    o << "{\n";
    o << fmt::format("  \"version\": \"{}\",\n", version_string());
    o << fmt::format("  \"fps\": {:.2f},\n", r.fps);
    if (lists_backends(r)) {
        o << "  \"backends\": {";
        for (std::size_t i = 0; i < r.backends.size(); ++i)
            o << fmt::format("{}\n    \"{}\": \"{}\"", i ? "," : "", r.backends[i].feature,
                             r.backends[i].backend);
        o << "\n  },\n";
    }
    if (r.provenance.print) write_json_provenance(o, r);
    o << "  \"frames\": [";
    bool first_frame = true;
    const std::vector<Column> columns = columns_of(r);
    for (unsigned i : output_frames(r, columns)) {
        o << (first_frame ? "\n" : ",\n");
        first_frame = false;
        o << fmt::format("    {{\n      \"frameNum\": {},\n      \"metrics\": {{", i);
        bool first = true;
        for (const Column& c : columns)
            if (auto v = c.at(i)) {
                o << (first ? "\n" : ",\n");
                first = false;
                o << fmt::format("        \"{}\": {}", c.alias, format_number(*v, nf));
            }
        o << "\n      }\n    }";
    }
    o << "\n  ],\n  \"pooled_metrics\": {";
    bool first_metric = true;
    for (const Column& c : columns) {
        o << (first_metric ? "\n" : ",\n");
        first_metric = false;
        o << fmt::format("    \"{}\": {{", c.alias);
        bool first = true;
        for (PoolMethod m : kPools)
            if (auto v = pool_score(r.scores, c.name, m, r.frames, r.subsample)) {
                o << (first ? "\n" : ",\n");
                first = false;
                o << fmt::format("      \"{}\": {}", pool_method_name(m), format_number(*v, nf));
            }
        o << "\n    }";
    }
    o << "\n  },\n  \"aggregate_metrics\": {";
    bool first_aggregate = true;
    for (const auto& [name, v] : r.scores.aggregates()) {
        o << (first_aggregate ? "\n" : ",\n");
        first_aggregate = false;
        o << fmt::format("    \"{}\": {}", name, format_number(v, nf));
    }
    o << "\n  }\n}\n";
}

void write_csv(std::ostream& o, const RunResult& r, const NumberFormat& nf) {
    o << "Frame,";
    const std::vector<Column> columns = columns_of(r);
    for (const Column& c : columns) o << c.alias << ",";
    o << "\n";
    for (unsigned i : output_frames(r, columns)) {
        o << i << ",";
        for (const Column& c : columns)
            if (auto v = c.at(i)) o << format_printf(*v, nf) << ",";
        o << "\n";
    }
}

void write_sub(std::ostream& o, const RunResult& r, const NumberFormat& nf) {
    const std::vector<Column> columns = columns_of(r);
    for (unsigned i : output_frames(r, columns)) {
        o << fmt::format("{{{}}}{{{}}}frame: {}|", i, i + 1, i);
        for (const Column& c : columns)
            if (auto v = c.at(i)) o << fmt::format("{}: {}|", c.alias, format_printf(*v, nf));
        o << "\n";
    }
}

}  // namespace

std::string format_number(double v, const NumberFormat& nf) {
    if (!std::isfinite(v)) return "null";
    if (nf.max_precision) return fmt::sprintf("%.17g", v);
    if (nf.digits >= 0) return fmt::sprintf("%.*f", nf.digits, v);
    return fmt::sprintf(leading_zeros(v) <= 6 ? "%.6f" : "%.16f", v);
}

std::string render_output(const RunResult& result, OutputFormat format, const NumberFormat& nf) {
    std::ostringstream out;
    switch (format) {
    case OutputFormat::kXml: write_xml(out, result, nf); break;
    case OutputFormat::kJson: write_json(out, result, nf); break;
    case OutputFormat::kCsv: write_csv(out, result, nf); break;
    case OutputFormat::kSub: write_sub(out, result, nf); break;
    }
    return std::move(out).str();
}

void write_output(const RunResult& result, const std::string& path, OutputFormat format,
                  const NumberFormat& nf) {
    OutputTarget::resolve(path).write(render_output(result, format, nf));
}

}  // namespace vmafx
