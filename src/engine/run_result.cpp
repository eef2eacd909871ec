// RunResult's helpers (engine.hpp): the printed names (the one place that asks the metric
// registry for the aliases the writers print), the models' summaries, stitching segments' runs
// into one, and a run as bytes for another process.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "engine/engine.hpp"
#include "engine/pooling.hpp"
#include "feature/registry.hpp"

namespace vmafx {

std::map<std::string, std::string> printed_names_of(const ScoreTable& scores) {
    std::map<std::string, std::string> out;
    for (const std::string& name : scores.names())
        if (std::string alias = feature_alias(name); alias != name) out.emplace(name, std::move(alias));
    return out;
}

ModelSummary summarize_model(const std::string& label, const std::string& name, const RunResult& result) {
    ModelSummary s;
    s.label = label;
    s.name = name;
    const auto pooled = [&](const std::string& n) {
        return pool_score(result.scores, n, PoolMethod::kMean, result.frames, result.subsample).value_or(0.0);
    };
    s.mean = pooled(s.name);
    if (result.scores.frames(s.name + "_bagging")) {
        s.bootstrap = true;
        s.bagging = pooled(s.name + "_bagging");
        s.ci_lo = pooled(s.name + "_ci_p95_lo");
        s.ci_hi = pooled(s.name + "_ci_p95_hi");
        s.stddev = pooled(s.name + "_stddev");
    }
    return s;
}

SegmentRun segment_run(unsigned first, unsigned end, unsigned frames, const TemporalContext& context) {
    SegmentRun r;
    r.start = first > context.before ? first - context.before : 0;
    r.stop = frames - end > context.after ? end + context.after : frames;
    r.keep_first = first - r.start;
    r.keep = end - first;
    return r;
}

RunResult stitch_runs(const std::vector<RunPart>& parts) {
    if (parts.empty()) throw Error("stitching: no part");
    const RunResult& first = *parts.front().result;
    RunResult out;
    out.backend = first.backend;
    out.backends = first.backends;
    out.format = first.format;
    out.printed_names = first.printed_names;
    out.provenance = first.provenance;
    const std::vector<std::string>& names = first.scores.names();
    const std::set<std::string> name_set(names.begin(), names.end());
    double seconds = 0.0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const RunPart& p = parts[k];
        const RunResult& r = *p.result;
        if (r.subsample != 1) throw Error(fmt::format("stitching: part {} is subsampled (every {} frames)", k, r.subsample));
        if (!r.scores.aggregates().empty())
            throw Error(fmt::format("stitching: part {} has run-wide aggregates ({}), which no part can give alone", k,
                                    r.scores.aggregates().front().first));
        if (p.count == 0 || p.first > r.frames || p.count > r.frames - p.first)
            throw Error(fmt::format("stitching: part {} keeps frames {}..{} of a run of {}", k, p.first,
                                    static_cast<std::uint64_t>(p.first) + p.count, r.frames));
        if (!(r.format == first.format) || r.backend != first.backend ||
            std::set<std::string>(r.scores.names().begin(), r.scores.names().end()) != name_set)
            throw Error(fmt::format("stitching: part {} has other outputs, format or backend than part 0", k));
        for (const std::string& name : names)
            for (unsigned i = 0; i < p.count; ++i)
                if (const auto v = r.scores.get(name, p.first + i)) out.scores.set(name, out.frames + i, *v);
        out.frames += p.count;
        if (r.fps > 0) seconds += r.frames / r.fps;
        out.pictures_allocated = std::max(out.pictures_allocated, r.pictures_allocated);
        for (const std::string& w : r.warnings)
            if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end()) out.warnings.push_back(w);
    }
    // The first part's order (a name only frames outside the kept ranges have is left out).
    std::vector<std::string> order;
    for (const std::string& name : names)
        if (out.scores.frames(name)) order.push_back(name);
    out.scores.reorder(order);
    out.fps = seconds > 0 ? out.frames / seconds : 0.0;
    for (const ModelSummary& m : first.models) out.models.push_back(summarize_model(m.label, m.name, out));
    return out;
}

namespace {

using Json = nlohmann::json;

std::uint64_t bits_of(double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

double double_of(const Json& j) {
    const std::uint64_t b = j.get<std::uint64_t>();
    double v;
    std::memcpy(&v, &b, sizeof v);
    return v;
}

constexpr int kSerialVersion = 1;

}  // namespace

std::string serialize_run(const RunResult& r) {
    Json j;
    j["v"] = kSerialVersion;
    j["backend"] = r.backend;
    Json backends = Json::array();
    for (const MetricBackend& b : r.backends)
        backends.push_back({b.metric, b.feature, b.backend, b.note, b.contract});
    j["backends"] = std::move(backends);
    Json scores = Json::array();
    for (const std::string& name : r.scores.names()) {
        Json slots = Json::array();
        for (const auto& s : *r.scores.slots(name)) slots.push_back(s ? Json(bits_of(*s)) : Json(nullptr));
        scores.push_back({name, std::move(slots)});
    }
    j["scores"] = std::move(scores);
    Json aggregates = Json::array();
    for (const auto& [name, v] : r.scores.aggregates()) aggregates.push_back({name, bits_of(v)});
    j["aggregates"] = std::move(aggregates);
    j["frames"] = r.frames;
    j["subsample"] = r.subsample;
    j["format"] = {r.format.width, r.format.height, r.format.bit_depth, subsampling_name(r.format.subsampling)};
    Json models = Json::array();
    for (const ModelSummary& m : r.models)
        models.push_back({m.label, m.name, bits_of(m.mean), m.bootstrap, bits_of(m.bagging), bits_of(m.ci_lo),
                          bits_of(m.ci_hi), bits_of(m.stddev)});
    j["models"] = std::move(models);
    j["fps"] = bits_of(r.fps);
    j["pictures"] = r.pictures_allocated;
    j["warnings"] = r.warnings;
    j["printed"] = r.printed_names;
    const Provenance& p = r.provenance;
    Json sources = Json::array();
    for (const ModelSource& m : p.models) sources.push_back({m.name, m.label, m.sha256});
    j["provenance"] = {p.print, p.version, p.commit, p.libvmaf, std::move(sources)};
    if (p.device)
        j["device"] = {p.device->name, p.device->driver, p.device->compute_capability, p.device->emulated};
    const std::vector<std::uint8_t> cbor = Json::to_cbor(j);
    return std::string(cbor.begin(), cbor.end());
}

RunResult deserialize_run(const std::string& bytes) {
    try {
        const Json j = Json::from_cbor(bytes);
        if (j.at("v").get<int>() != kSerialVersion) throw Error("a serialized run of another version");
        RunResult r;
        r.backend = j.at("backend").get<std::string>();
        for (const Json& b : j.at("backends"))
            r.backends.push_back({b.at(0).get<std::string>(), b.at(1).get<std::string>(), b.at(2).get<std::string>(),
                                  b.at(3).get<std::string>(), b.at(4).get<std::string>()});
        for (const Json& s : j.at("scores")) {
            const std::string name = s.at(0).get<std::string>();
            const Json& slots = s.at(1);
            bool any = false;
            for (std::size_t i = 0; i < slots.size(); ++i)
                if (!slots[i].is_null()) {
                    r.scores.set(name, static_cast<unsigned>(i), double_of(slots[i]));
                    any = true;
                }
            if (!any) throw Error("a serialized run with an output of no value");
        }
        for (const Json& a : j.at("aggregates")) r.scores.set_aggregate(a.at(0).get<std::string>(), double_of(a.at(1)));
        r.frames = j.at("frames").get<unsigned>();
        r.subsample = j.at("subsample").get<unsigned>();
        const Json& f = j.at("format");
        r.format.width = f.at(0).get<int>();
        r.format.height = f.at(1).get<int>();
        r.format.bit_depth = f.at(2).get<int>();
        if (!parse_subsampling(f.at(3).get<std::string>(), r.format.subsampling)) throw Error("a bad pixel format");
        for (const Json& m : j.at("models")) {
            ModelSummary s;
            s.label = m.at(0).get<std::string>();
            s.name = m.at(1).get<std::string>();
            s.mean = double_of(m.at(2));
            s.bootstrap = m.at(3).get<bool>();
            s.bagging = double_of(m.at(4));
            s.ci_lo = double_of(m.at(5));
            s.ci_hi = double_of(m.at(6));
            s.stddev = double_of(m.at(7));
            r.models.push_back(std::move(s));
        }
        r.fps = double_of(j.at("fps"));
        r.pictures_allocated = j.at("pictures").get<unsigned>();
        r.warnings = j.at("warnings").get<std::vector<std::string>>();
        r.printed_names = j.at("printed").get<std::map<std::string, std::string>>();
        const Json& p = j.at("provenance");
        r.provenance.print = p.at(0).get<bool>();
        r.provenance.version = p.at(1).get<std::string>();
        r.provenance.commit = p.at(2).get<std::string>();
        r.provenance.libvmaf = p.at(3).get<std::string>();
        for (const Json& m : p.at(4))
            r.provenance.models.push_back({m.at(0).get<std::string>(), m.at(1).get<std::string>(), m.at(2).get<std::string>()});
        if (j.contains("device")) {
            const Json& d = j.at("device");
            r.provenance.device = DeviceInfo{d.at(0).get<std::string>(), d.at(1).get<std::string>(),
                                             d.at(2).get<std::string>(), d.at(3).get<bool>()};
        }
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("not a serialized vmafx run ({})", e.what()));
    }
}

}  // namespace vmafx
