#include "engine/parity.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <fmt/format.h>

namespace vmafx {

namespace {

namespace fs = std::filesystem;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Compares every output of `cpu` with `gpu`, appending one row per output name.
void compare(const ParityInput& in, const RunResult& cpu, const RunResult& gpu, const TwinContract& contract,
             std::vector<ParityRow>& rows) {
    for (const auto& name : cpu.scores.names()) {
        ParityRow row;
        row.metric = feature_alias(name);
        row.input = in.label;
        row.contract = contract;
        for (unsigned i = 0; i < cpu.frames; ++i) {
            const auto c = cpu.scores.get(name, i);
            const auto g = gpu.scores.get(name, i);
            if (!c && !g) continue;
            ++row.frames;
            if (!c || !g) {
                row.breach = true;
                row.max_abs_diff = INFINITY;
                continue;
            }
            if (same_bits(*c, *g)) {
                ++row.identical;
                continue;
            }
            const double d = std::fabs(*c - *g);
            row.max_abs_diff = std::isnan(d) ? INFINITY : std::max(row.max_abs_diff, d);
            if (contract.exact || !(d <= contract.bound)) row.breach = true;
        }
        rows.push_back(row);
    }
    for (const auto& name : gpu.scores.names())
        if (!cpu.scores.frames(name)) {
            ParityRow row;
            row.metric = feature_alias(name) + " (GPU only)";
            row.input = in.label;
            row.contract = contract;
            row.breach = true;
            rows.push_back(row);
        }
}

RunResult run_on(const ParityInput& in, Backend backend, const RunConfig& base) {
    RunConfig c = base;
    c.reference_path = in.reference_path;
    c.distorted_path = in.distorted_path;
    c.raw_format = in.raw_format;
    c.backend = backend;
    return run(c);
}

}  // namespace

std::vector<ParityRow> run_parity(const std::vector<ParityInput>& inputs) {
    // Every twin alone, with default options and with the options the built-in models set.
    struct Case {
        TwinContract contract;
        RunConfig config;
    };
    std::vector<Case> cases;
    std::vector<std::pair<const ExtractorInfo*, std::vector<std::pair<std::string, std::string>>>> seen;
    const auto add = [&](const ExtractorInfo* info, const std::vector<std::pair<std::string, std::string>>& opts) {
        const std::string key = Options(info->name, info->options, opts).key();
        for (const auto& [i, o] : seen)
            if (i == info && Options(i->name, i->options, o).key() == key) return;
        seen.emplace_back(info, opts);
        Case c;
        c.contract = info->gpu_contract;
        c.config.no_prediction = true;
        c.config.features.push_back({info->name, opts});
        cases.push_back(std::move(c));
    };
    for (const auto& info : extractor_registry())
        if (info.create_gpu) add(&info, {});
    // ADM with the DLM weight of the v1.0.16 models: with the default 0.5 both products of
    // adm3's blend are exact, so a contracted blend would go unseen.
    if (const ExtractorInfo* adm = find_extractor("adm"); adm && adm->create_gpu) add(adm, {{"adm_dlm_weight", "0.7"}});
    std::vector<ModelSpec> models;
    for (const char* m : {"version=vmaf_v0.6.1", "version=vmaf_v0.6.1neg:name=vmaf_neg"}) {
        models.push_back(parse_model_spec(m));
        for (const auto& req : Model(models.back()).required_features())
            if (req.extractor->create_gpu) add(req.extractor, req.options);
    }
    // The models' scores, from all their features together.
    bool all_twins = true;
    for (const auto& spec : models)
        for (const auto& req : Model(spec).required_features()) all_twins = all_twins && req.extractor->create_gpu;
    if (all_twins) {
        Case c;
        c.config.models = models;
        cases.push_back(std::move(c));
    }

    std::vector<ParityRow> rows;
    for (const auto& in : inputs)
        for (const auto& c : cases) {
            const RunResult cpu = run_on(in, Backend::kCpu, c.config);
            const RunResult gpu = run_on(in, Backend::kCuda, c.config);
            std::vector<ParityRow> these;
            compare(in, cpu, gpu, c.contract, these);
            if (!c.config.models.empty())  // keep only the model scores of the model run
                std::erase_if(these, [&](const ParityRow& r) {
                    return r.metric.rfind("vmaf", 0) != 0 || r.metric.find("feature") != std::string::npos;
                });
            rows.insert(rows.end(), these.begin(), these.end());
        }
    return rows;
}

std::vector<ParityInput> fixture_inputs(const std::string& dir) {
    std::vector<ParityInput> out;
    if (!fs::is_directory(dir)) throw Error(fmt::format("{}: no such fixtures folder", dir));
    std::vector<fs::path> names;
    for (const auto& e : fs::directory_iterator(dir))
        if (fs::is_regular_file(e.path() / "fixture.ini") && fs::is_regular_file(e.path() / "ref.yuv"))
            names.push_back(e.path());
    std::sort(names.begin(), names.end());
    for (const auto& p : names) {
        std::ifstream ini(p / "fixture.ini");
        std::map<std::string, std::string> kv;
        for (std::string line; std::getline(ini, line);)
            if (auto eq = line.find('='); eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
        VideoFormat f;
        try {
            f.width = std::stoi(kv.at("width"));
            f.height = std::stoi(kv.at("height"));
            const std::string pf = kv.at("pix_fmt");  // ffmpeg's name, e.g. yuv420p10le
            if (pf.size() < 7 || !parse_subsampling(pf.substr(3, 3), f.subsampling)) throw std::invalid_argument(pf);
            const std::string depth = pf.substr(7);
            f.bit_depth = depth.ends_with("le") ? std::stoi(depth.substr(0, depth.size() - 2)) : 8;
        } catch (const std::exception&) {
            throw Error(fmt::format("{}: malformed fixture.ini", (p / "fixture.ini").string()));
        }
        out.push_back({p.filename().string(), (p / "ref.yuv").string(), (p / "dist.yuv").string(), f});
    }
    if (out.empty()) throw Error(fmt::format("{}: no fixtures (folders with fixture.ini and ref.yuv)", dir));
    return out;
}

void write_random_video(const std::string& path, const VideoFormat& f, int frames, unsigned seed, int noise) {
    std::mt19937 rng(seed);
    std::mt19937 base_rng(7);  // the same base content for every seed: ref and dist correlate
    const int max = (1 << f.bit_depth) - 1;
    std::ofstream out(path, std::ios::binary);
    std::vector<unsigned char> row;
    for (int i = 0; i < frames; ++i)
        for (int p = 0; p < 3; ++p)
            for (int y = 0; y < f.plane_height(p); ++y) {
                row.clear();
                for (int x = 0; x < f.plane_width(p); ++x) {
                    const int smooth = ((x * 7 + y * 3 + i * 5) * (max / 255 + 1)) % (max + 1);
                    int v = smooth + static_cast<int>(base_rng() % 9) - 4;
                    if (noise) v += static_cast<int>(rng() % (2 * noise + 1)) - noise;
                    v = std::clamp(v, 0, max);
                    row.push_back(static_cast<unsigned char>(v & 0xff));
                    if (f.bit_depth > 8) row.push_back(static_cast<unsigned char>(v >> 8));
                }
                out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size()));
            }
    if (!out) throw Error(fmt::format("{}: cannot write", path));
}

std::vector<ParityInput> random_inputs(const std::string& dir, unsigned count, unsigned seed) {
    fs::create_directories(dir);
    std::mt19937 rng(seed);
    std::vector<ParityInput> out;
    for (int depth : {8, 10, 12, 16})
        for (unsigned k = 0; k < count; ++k) {
            VideoFormat f;
            f.width = 33 + 2 * static_cast<int>(rng() % 200);   // odd, 33..431
            f.height = 33 + 2 * static_cast<int>(rng() % 120);  // odd, 33..271
            f.bit_depth = depth;
            f.subsampling = Subsampling::k420;
            const std::string base = fmt::format("{}/random_{}x{}_{}bit_{}", dir, f.width, f.height, depth, k);
            write_random_video(base + "_ref.yuv", f, 4, seed + k, 0);
            write_random_video(base + "_dist.yuv", f, 4, seed + k + 1000, 3 << (depth - 8));
            out.push_back({fmt::format("random {}x{} {}-bit", f.width, f.height, depth), base + "_ref.yuv",
                           base + "_dist.yuv", f});
        }
    return out;
}

std::string format_parity_table(const std::vector<ParityRow>& rows) {
    std::string out = fmt::format("{:<44} {:<28} {:>10} {:>12}  {}\n", "metric", "input", "identical",
                                  "max |diff|", "contract");
    unsigned breaches = 0;
    for (const auto& r : rows) {
        breaches += r.breach;
        out += fmt::format("{:<44} {:<28} {:>10} {:>12.3g}  {}{}\n", r.metric, r.input,
                           fmt::format("{}/{}", r.identical, r.frames), r.max_abs_diff,
                           r.contract.exact ? "exact" : fmt::format("bound {:.3g}", r.contract.bound),
                           r.breach ? "  BREACH" : "");
    }
    out += fmt::format("{} rows, {} breaches\n", rows.size(), breaches);
    return out;
}

}  // namespace vmafx
