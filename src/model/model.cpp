#include "model/model.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "feature/registry.hpp"
#include "base/sha256.hpp"
#include "model/builtin_models.hpp"
#include "model/svm_model.hpp"

namespace vmafx {

using Json = nlohmann::ordered_json;  // keeps the file's key order, as upstream's stream parser sees it
using OptionList = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------------------------------
// The -m option

namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
    std::vector<std::string_view> out;
    for (std::size_t start = 0;;) {
        const std::size_t end = text.find(sep, start);
        out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) return out;
        start = end + 1;
    }
}

}  // namespace

ModelSpec parse_model_spec(const std::string& text) {
    const auto fail = [&](const std::string& why) {
        return UsageError(fmt::format("model option \"{}\": {}", text, why));
    };
    ModelSpec spec;
    std::vector<std::string> seen;
    const auto once = [&](std::string_view key) {
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
            throw fail(fmt::format("\"{}\" is given twice", key));
        seen.emplace_back(key);
    };

    for (std::string_view entry : split(text, ':')) {
        if (entry.empty()) throw fail("empty entry (entries are separated by a single \":\")");
        const std::size_t eq = entry.find('=');
        const std::string key(entry.substr(0, eq));
        const std::optional<std::string> value =
            eq == std::string_view::npos ? std::nullopt : std::optional<std::string>(entry.substr(eq + 1));

        if (key == "version" || key == "path" || key == "name") {
            once(key);
            if (!value || value->empty()) throw fail(fmt::format("\"{}\" needs a value ({}=...)", key, key));
            (key == "version" ? spec.version : key == "path" ? spec.path : spec.name) = *value;
            // The name names outputs: JSON keys, XML attributes, CSV columns, written unescaped
            // as upstream writes them, so only characters all of them take.
            if (key == "name" && value->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                          "0123456789_-.") != std::string::npos)
                throw fail(fmt::format("name \"{}\": only letters, digits, _, - and . (it names the score "
                                       "in JSON, XML and CSV output)",
                                       *value));
        } else if (key == "disable_clip" || key == "enable_transform") {
            once(key);
            if (value && *value != "true" && *value != "false")
                throw fail(fmt::format("\"{}\" takes true or false, not \"{}\"", key, *value));
            (key == "disable_clip" ? spec.disable_clip : spec.enable_transform) = !value || *value == "true";
        } else if (!value) {
            throw fail(fmt::format("unknown entry \"{}\" (expected version=NAME, path=FILE, name=ALIAS, "
                                   "disable_clip, enable_transform or EXTRACTOR.OPTION=VALUE)",
                                   key));
        } else {
            const std::size_t dot = key.find('.');
            if (dot == std::string::npos || dot == 0 || dot + 1 == key.size() ||
                key.find('.', dot + 1) != std::string::npos)
                throw fail(fmt::format("unknown entry \"{}\" (a feature option is written "
                                       "EXTRACTOR.OPTION=VALUE, e.g. vif.vif_enhn_gain_limit=1.0)",
                                       key));
            spec.overloads.push_back({key.substr(0, dot), key.substr(dot + 1), *value});
        }
    }
    if (spec.version.empty() && spec.path.empty()) throw fail("needs version=NAME or path=FILE");
    if (!spec.version.empty() && !spec.path.empty()) throw fail("takes version= or path=, not both");
    for (const FeatureOverload& o : spec.overloads) {
        const MetricDescriptor* x = find_metric(o.extractor);
        if (!x)
            throw fail(fmt::format("no feature extractor \"{}\" (available: {})", o.extractor, metric_names()));
        try {
            x->parse_options({{o.option, normalize_option_value(o.value)}});
        } catch (const Error& e) {
            throw fail(e.what());
        }
    }
    return spec;
}

// ---------------------------------------------------------------------------------------
// Loaded model data

namespace {

enum class ModelType { kSvmNuSvr, kBootstrapSvmNuSvr, kResidueBootstrapSvmNuSvr };

// Upstream read_json_model.c limits (MAX_FEATURE_COUNT, MAX_KNOT_COUNT).
constexpr std::size_t kMaxFeatures = 64;
constexpr std::size_t kMaxKnots = 10;
// Deepest nesting of JSON arrays and objects a model file may have.
constexpr std::size_t kMaxJsonDepth = 64;

struct Knot {
    double x;
    double y;
};

struct ScoreTransform {
    bool enabled = false;
    std::optional<double> p0, p1, p2;
    std::vector<Knot> knots;  // used when it has 2 or more
    bool out_lte_in = false;
    bool out_gte_in = false;
};

struct ModelFeature {
    std::string name;  // upstream feature name, e.g. "VMAF_integer_feature_adm2_score"
    double slope = 0.0;
    double intercept = 0.0;
    OptionList options;
    const MetricDescriptor* extractor = nullptr;
    std::string key;          // name of its values in the ScoreTable
    std::string options_key;  // the instance's name under its feature parameters (upstream's merging key)
    std::string error;        // why it has no extractor or key
};

// One model_dict: a libsvm regression with its feature scaling and score post-processing
// (upstream model.h VmafModel).
struct Regressor {
    std::string name;  // output name
    ModelType type = ModelType::kSvmNuSvr;
    bool linear_rescale = false;  // norm_type: linear_rescale or none
    double slope = 0.0;
    double intercept = 0.0;
    std::vector<ModelFeature> features;
    bool clip_enabled = false;
    double clip_min = 0.0;
    double clip_max = 0.0;
    ScoreTransform transform;
    std::optional<double> chroma_correction;
    std::unique_ptr<SvmModel> svm;

    /// The denormalized SVM prediction of frame `index`, before transform and clip.
    /// `finite_inputs` becomes false when a feature value read is NaN or infinite.
    double raw_score(const ScoreTable& table, unsigned index, bool& finite_inputs) const;
    /// score_transform, when enabled (upstream predict.c transform()).
    double transformed(double y) const;
    /// score_clip, when enabled (upstream predict.c clip()).
    double clipped(double y) const;
    double final_score(double raw) const { return clipped(transformed(raw)); }
};

}  // namespace

struct Model::Impl {
    std::string name;
    std::string label;
    std::string sha256;  ///< of the model file's bytes
    Regressor main;                  // the model, or member 0 of a collection
    std::vector<Regressor> members;  // members 1..N of a collection
};

namespace {

// A JSON value for a message: a string quoted (its start, when long), a number as written, any
// other value by its type (never dump()ed: that recurses, and a hostile file nests deeply).
std::string describe(const Json& j) {
    if (j.is_string()) {
        const std::string& s = j.get_ref<const std::string&>();
        return s.size() <= 64 ? fmt::format("\"{}\"", s) : fmt::format("\"{}...\"", s.substr(0, 64));
    }
    if (j.is_number()) return j.dump();
    return fmt::format("(a JSON {})", j.type_name());
}

// Reads a model_dict into a Regressor, naming `where` in every error (upstream
// read_json_model.c parse_model_dict).
class DictReader {
public:
    DictReader(std::string where, const ModelSpec& spec) : where_(std::move(where)), spec_(spec) {}

    Error fail(const std::string& what) const { return Error(fmt::format("{}: {}", where_, what)); }

    double number(const Json& j, const std::string& what) const {
        if (!j.is_number()) throw fail(fmt::format("{} is not a number", what));
        const double v = j.get<double>();
        if (!std::isfinite(v)) throw fail(fmt::format("{} is not a finite number", what));
        return v;
    }

    const Json& array(const Json& j, const std::string& what) const {
        if (!j.is_array()) throw fail(fmt::format("{} is not an array", what));
        return j;
    }

    Regressor read(const Json& top, std::string name) const {
        if (!top.is_object()) throw fail("is not a JSON object");
        const auto md = top.find("model_dict");
        if (md == top.end()) throw fail("has no \"model_dict\"");
        const Json& d = *md;
        if (!d.is_object()) throw fail("\"model_dict\" is not an object");

        Regressor r;
        r.name = std::move(name);

        if (auto it = d.find("model_type"); it != d.end()) {
            const std::string t = it->is_string() ? it->get<std::string>() : std::string();
            if (t == "LIBSVMNUSVR") r.type = ModelType::kSvmNuSvr;
            else if (t == "BOOTSTRAP_LIBSVMNUSVR") r.type = ModelType::kBootstrapSvmNuSvr;
            else if (t == "RESIDUEBOOTSTRAP_LIBSVMNUSVR") r.type = ModelType::kResidueBootstrapSvmNuSvr;
            else
                throw fail(fmt::format("model_type {} is not LIBSVMNUSVR, BOOTSTRAP_LIBSVMNUSVR or "
                                       "RESIDUEBOOTSTRAP_LIBSVMNUSVR",
                                       describe(*it)));
        }

        const auto norm = d.find("norm_type");
        if (norm == d.end()) throw fail("model_dict has no \"norm_type\"");
        if (*norm == "linear_rescale") r.linear_rescale = true;
        else if (*norm == "none") r.linear_rescale = false;
        else throw fail(fmt::format("norm_type {} is not \"linear_rescale\" or \"none\"", describe(*norm)));

        const auto names = d.find("feature_names");
        if (names == d.end()) throw fail("model_dict has no \"feature_names\"");
        for (const Json& n : array(*names, "feature_names")) {
            if (!n.is_string()) throw fail("feature_names holds a non-string");
            r.features.emplace_back();
            r.features.back().name = n.get<std::string>();
        }
        if (r.features.size() > kMaxFeatures)
            throw fail(fmt::format("more than {} feature_names", kMaxFeatures));

        read_scaling(d, "slopes", r.slope, &ModelFeature::slope, r);
        read_scaling(d, "intercepts", r.intercept, &ModelFeature::intercept, r);

        if (auto it = d.find("feature_opts_dicts"); it != d.end()) read_opts_dicts(*it, r);

        if (auto it = d.find("score_clip"); it != d.end()) {
            const Json& c = array(*it, "score_clip");
            if (c.size() != 2) throw fail("score_clip is not [min, max]");
            const double lo = number(c[0], "score_clip[0]");
            const double hi = number(c[1], "score_clip[1]");
            if (!spec_.disable_clip) {
                r.clip_enabled = true;
                r.clip_min = lo;
                r.clip_max = hi;
            }
        }

        if (auto it = d.find("score_transform"); it != d.end()) {
            r.transform = read_transform(*it);
            if (spec_.enable_transform) r.transform.enabled = true;
        }

        if (auto it = d.find("chroma_correction_parameter"); it != d.end()) {
            r.chroma_correction = number(*it, "chroma_correction_parameter");
            check_chroma_correction(r);
        }

        const auto svm = d.find("model");
        if (svm == d.end()) throw fail("model_dict has no \"model\" (libsvm text)");
        if (!svm->is_string()) throw fail("\"model\" is not a string");
        r.svm = std::make_unique<SvmModel>(svm->get_ref<const std::string&>(), where_);
        return r;
    }

private:
    // slopes/intercepts: entry 0 for the score, entry i+1 for feature i.
    void read_scaling(const Json& d, const char* key, double& model_value, double ModelFeature::*field,
                      Regressor& r) const {
        const auto it = d.find(key);
        if (it == d.end()) {
            if (r.linear_rescale) throw fail(fmt::format("norm_type linear_rescale needs \"{}\"", key));
            return;
        }
        const Json& a = array(*it, key);
        if (a.size() < r.features.size() + 1)
            throw fail(fmt::format("{} has {} entries, needs 1 + {} (one per feature)", key, a.size(),
                                   r.features.size()));
        model_value = number(a[0], fmt::format("{}[0]", key));
        for (std::size_t i = 0; i < r.features.size(); ++i)
            r.features[i].*field = number(a[i + 1], fmt::format("{}[{}]", key, i + 1));
    }

    // feature_opts_dicts: extractor options per feature, as upstream stores them in its
    // dictionaries (numbers normalized, booleans "true"/"false", strings as they are).
    void read_opts_dicts(const Json& j, Regressor& r) const {
        const Json& a = array(j, "feature_opts_dicts");
        if (a.size() > r.features.size())
            throw fail(fmt::format("feature_opts_dicts has {} entries for {} features", a.size(),
                                   r.features.size()));
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!a[i].is_object()) throw fail(fmt::format("feature_opts_dicts[{}] is not an object", i));
            for (const auto& [k, v] : a[i].items()) {
                std::string text;
                if (v.is_number()) text = normalize_option_value(v.dump());
                else if (v.is_boolean()) text = v.get<bool>() ? "true" : "false";
                else if (v.is_string()) text = v.get<std::string>();
                else throw fail(fmt::format("feature_opts_dicts[{}].{} is not a number, boolean or string", i, k));
                r.features[i].options.emplace_back(k, std::move(text));
            }
        }
    }

    ScoreTransform read_transform(const Json& j) const {
        if (!j.is_object()) throw fail("score_transform is not an object");
        ScoreTransform t;
        for (const auto& [k, v] : j.items()) {
            if (k == "enabled") {
                if (!v.is_boolean()) throw fail("score_transform.enabled is not true or false");
                t.enabled = v.get<bool>();
            } else if (k == "p0" || k == "p1" || k == "p2") {
                std::optional<double>& p = k == "p0" ? t.p0 : k == "p1" ? t.p1 : t.p2;
                p = v.is_null() ? std::nullopt : std::optional<double>(number(v, "score_transform." + k));
            } else if (k == "knots") {
                t.knots.clear();
                if (v.is_null()) continue;
                for (const Json& knot : array(v, "score_transform.knots")) {
                    if (!knot.is_array() || knot.size() != 2)
                        throw fail("score_transform.knots holds an entry that is not [x, y]");
                    t.knots.push_back({number(knot[0], "knot x"), number(knot[1], "knot y")});
                }
                if (t.knots.size() > kMaxKnots) throw fail(fmt::format("more than {} knots", kMaxKnots));
                for (std::size_t i = 0; t.knots.size() >= 2 && i + 1 < t.knots.size(); ++i)
                    if (!(t.knots[i].x < t.knots[i + 1].x && t.knots[i].y <= t.knots[i + 1].y))
                        throw fail("score_transform.knots must have increasing x and non-decreasing y");
            } else if (k == "out_lte_in" || k == "out_gte_in") {
                if (!v.is_string()) throw fail(fmt::format("score_transform.{} is not a string", k));
                if (v == "true") (k == "out_lte_in" ? t.out_lte_in : t.out_gte_in) = true;
            }
        }
        return t;
    }

    // The chroma correction replaces the "speed_chroma" feature by one derived from the
    // "adm3" feature; it needs exactly one feature of each (upstream predict.c
    // post_process_feature_from_another).
    void check_chroma_correction(const Regressor& r) const {
        if (*r.chroma_correction == 0.0) throw fail("chroma_correction_parameter is 0");
        for (const char* part : {"adm3", "speed_chroma"}) {
            const auto n = std::count_if(r.features.begin(), r.features.end(), [&](const ModelFeature& f) {
                return f.name.find(part) != std::string::npos;
            });
            if (n != 1)
                throw fail(fmt::format("chroma_correction_parameter needs exactly one feature named "
                                       "*{}*, the model has {}",
                                       part, n));
        }
    }

    std::string where_;
    const ModelSpec& spec_;
};

// Sets option `key` to `value`: in place when present, else appended (upstream
// vmaf_dictionary_merge of a model feature's options with an overload).
void set_option(OptionList& options, const std::string& key, const std::string& value) {
    for (auto& [k, v] : options)
        if (k == key) {
            v = value;
            return;
        }
    options.emplace_back(key, value);
}

// Finds each feature's extractor and the name its values have in the ScoreTable.
void resolve(ModelFeature& f, const std::string& label) {
    f.extractor = find_metric_by_feature(f.name);
    if (!f.extractor) {
        f.error = fmt::format("model {}: no feature extractor provides feature \"{}\"", label, f.name);
        return;
    }
    try {
        const Options opts = f.extractor->parse_options(f.options);
        f.key = opts.feature_name(f.name);
        f.options_key = opts.feature_name(f.extractor->name);
    } catch (const Error& e) {
        f.error = fmt::format("model {}: {}", label, e.what());
    }
}

/// Largest model file read, in bytes: the largest of upstream's (a bootstrap collection) is
/// under 1 MiB; anything far larger is not a model.
constexpr std::uint64_t kMaxModelFileBytes = 64ull << 20;

/// The bytes of model file `path`: a regular file, or a stream (a FIFO, a shell's `<(...)`),
/// read to its end, at most kMaxModelFileBytes. Throws Error naming the file and the cause.
std::string read_file(const std::string& path) {
    const auto fail = [&](const std::string& why) { return Error(fmt::format("model file \"{}\": {}", path, why)); };
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) throw Error(fmt::format("model file \"{}\" not found", path));
        throw fail(std::string("cannot open: ") + std::strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) throw fail("is a directory, not a model file");
    if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > kMaxModelFileBytes)
        throw fail(fmt::format("{} bytes, larger than any model file (at most {} MiB)", st.st_size,
                               kMaxModelFileBytes >> 20));
    int fd = -1;
    do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) throw fail(std::string("cannot open: ") + std::strerror(errno));
    std::string text;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw fail(std::string("read error: ") + std::strerror(err));
        }
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
        if (text.size() > kMaxModelFileBytes) {
            ::close(fd);
            throw fail(fmt::format("larger than any model file (at most {} MiB)", kMaxModelFileBytes >> 20));
        }
    }
    ::close(fd);
    return text;
}

// Deepest nesting of arrays and objects the JSON text `text` reaches, counting brackets
// outside strings (the parser's own checks come later; this one only bounds its recursion).
std::size_t json_depth(std::string_view text) {
    std::size_t depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

std::string known_versions() {
    std::string out;
    for (const auto& m : builtin_models()) out += fmt::format("{}{}", out.empty() ? "" : ", ", m.version);
    return out;
}

// Upstream predict.c piecewise_linear_mapping() for valid knots (checked at load): each
// segment, in order, maps x when x lies on it; the first and last ones extend outward.
double piecewise_linear(double x, const std::vector<Knot>& knots) {
    double y = 0.0;
    const std::size_t n_seg = knots.size() - 1;
    for (std::size_t i = 0; i < n_seg; ++i) {
        const Knot& a = knots[i];
        const Knot& b = knots[i + 1];
        const bool on_segment = a.x <= x && x <= b.x;
        const bool below = i == 0 && x < a.x;
        const bool above = i == n_seg - 1 && x > b.x;
        if (a.y == b.y) {
            if (on_segment || below || above) y = a.y;
        } else {
            // The line through a and b (upstream find_linear_function_parameters).
            double slope, offset;
            if (a.x == 0.0) {
                offset = a.y;
                slope = (b.y - offset) / b.x;
            } else {
                slope = (b.y - a.y) / (b.x - a.x);
                offset = a.y - (a.x * slope);
            }
            if (on_segment || below || above) y = slope * x + offset;
        }
    }
    return y;
}

// Upstream predict.c percentile() of sorted scores.
double percentile(const std::vector<double>& sorted, double perc) {
    const double p = perc * static_cast<double>(sorted.size() - 1) / 100.;
    const int lo = static_cast<int>(std::floor(p));
    const int hi = static_cast<int>(std::ceil(p));
    if (lo == hi) return sorted[static_cast<std::size_t>(lo)];
    return sorted[static_cast<std::size_t>(lo)] * (hi - p) + sorted[static_cast<std::size_t>(hi)] * (p - lo);
}

}  // namespace

double Regressor::raw_score(const ScoreTable& table, unsigned index, bool& finite_inputs) const {
    std::vector<svm_node> x(features.size() + 1);
    for (std::size_t i = 0; i < features.size(); ++i) {
        const ModelFeature& f = features[i];
        if (!f.error.empty()) throw Error(f.error);
        const std::optional<double> v = table.get(f.key, index);
        if (!v) throw Error(fmt::format("model \"{}\": no value of feature \"{}\" at frame {}", name, f.key, index));
        if (!std::isfinite(*v)) finite_inputs = false;
        x[i].index = static_cast<int>(i + 1);
        x[i].value = linear_rescale ? f.slope * *v + f.intercept : *v;
    }
    if (chroma_correction) {
        // Upstream post_process_feature_from_another(): when the (denormalized) chroma
        // feature is 0, it becomes c - c * adm3 (denormalized), normalized again.
        const double c = *chroma_correction;
        const auto denormalized = [&](std::size_t i) {
            return linear_rescale ? (x[i].value - features[i].intercept) / features[i].slope : x[i].value;
        };
        std::optional<double> guiding;
        std::optional<std::size_t> guided;
        bool correct = true;
        for (std::size_t i = 0; i < features.size(); ++i) {
            if (features[i].name.find("adm3") != std::string::npos) guiding = denormalized(i);
            if (features[i].name.find("speed_chroma") != std::string::npos) {
                if (denormalized(i) == 0.0) guided = i;
                else correct = false;
            }
        }
        if (correct && guiding && guided) {
            const ModelFeature& g = features[*guided];
            const double corrected = -c * *guiding + c;
            x[*guided].value = linear_rescale ? g.slope * corrected + g.intercept : corrected;
        }
    }
    x[features.size()] = svm_node{-1, 0.0};

    const double y = svm->predict(x);
    return linear_rescale ? (y - intercept) / slope : y;
}

double Regressor::transformed(double y_in) const {
    if (!transform.enabled) return y_in;
    const ScoreTransform& t = transform;
    double y = y_in;
    if (t.p0 || t.p1 || t.p2) {
        double out = 0.;
        if (t.p0) out += *t.p0;
        if (t.p1) out += *t.p1 * y_in;
        if (t.p2) out += *t.p2 * y_in * y_in;
        y = out;
    }
    if (t.knots.size() >= 2) y = piecewise_linear(y, t.knots);
    if (t.out_lte_in && y > y_in) y = y_in;
    if (t.out_gte_in && y < y_in) y = y_in;
    return y;
}

double Regressor::clipped(double y) const {
    if (!clip_enabled) return y;
    y = y < clip_min ? clip_min : y;
    y = y > clip_max ? clip_max : y;
    return y;
}

// ---------------------------------------------------------------------------------------
// Model

Model::Model(const ModelSpec& spec) {
    auto impl = std::make_shared<Impl>();
    impl->name = spec.name;
    impl->label = spec.label();

    std::string text;
    std::string where;
    if (!spec.version.empty()) {
        const auto& all = builtin_models();
        const auto it = std::find_if(all.begin(), all.end(),
                                     [&](const BuiltinModel& m) { return spec.version == m.version; });
        if (it == all.end())
            throw UsageError(fmt::format("no built-in model \"{}\" (known: {})", spec.version, known_versions()));
        text = it->text();
        where = fmt::format("built-in model {}", spec.version);
    } else {
        text = read_file(spec.path);
        where = fmt::format("model file \"{}\"", spec.path);
    }
    impl->sha256 = sha256_hex(text);

    // nlohmann's parser copies nested values recursively: a file of a few hundred kilobytes of
    // "[[[[..." would overflow the stack. VMAF model files nest 5 levels deep.
    if (const std::size_t depth = json_depth(text); depth > kMaxJsonDepth)
        throw Error(fmt::format("{}: not a model file: JSON nested {} levels deep (at most {})", where, depth,
                                kMaxJsonDepth));
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const Json::exception& e) {
        const bool pkl = spec.path.size() >= 4 && spec.path.ends_with(".pkl");
        throw Error(fmt::format("{}: not valid JSON ({}){}", where, e.what(),
                                pkl ? "; .pkl model files are not supported, use .json" : ""));
    }
    if (!doc.is_object()) throw Error(fmt::format("{}: is not a JSON object", where));

    // Every value read is type-checked (DictReader); this catch is the backstop that keeps any
    // nlohmann exception a vmafx::Error naming the file.
    try {
        if (doc.contains("model_dict")) {
            impl->main = DictReader(where, spec).read(doc, spec.name);
        } else if (doc.contains("0")) {
            // A collection: members "0", "1", ... (upstream model_collection_parse).
            impl->main = DictReader(where + ", member 0", spec).read(doc.at("0"), spec.name);
            for (unsigned i = 1; doc.contains(std::to_string(i)); ++i) {
                const DictReader reader(fmt::format("{}, member {}", where, i), spec);
                impl->members.push_back(reader.read(doc.at(std::to_string(i)), fmt::format("{}_{:04d}", spec.name, i)));
                const Regressor& m = impl->members.back();
                if (m.type == ModelType::kSvmNuSvr)
                    throw reader.fail("a collection member needs model_type BOOTSTRAP_LIBSVMNUSVR or "
                                      "RESIDUEBOOTSTRAP_LIBSVMNUSVR");
                if (m.type != impl->members.front().type)
                    throw reader.fail("model_type differs from member 1's");
            }
            if (impl->members.empty()) throw Error(fmt::format("{}: a model collection needs members \"0\" and \"1\"...", where));
        } else {
            throw Error(fmt::format("{}: has no \"model_dict\" (nor collection members \"0\", \"1\", ...)", where));
        }
    } catch (const Json::exception& e) {
        throw Error(fmt::format("{}: malformed model ({})", where, e.what()));
    }

    // Feature overloads apply to every member alike (upstream
    // vmaf_model_collection_feature_overload).
    for (const FeatureOverload& o : spec.overloads) {
        if (!find_metric(o.extractor))
            throw Error(fmt::format("model {}: {}.{}={}: no feature extractor \"{}\"", impl->label, o.extractor,
                                    o.option, o.value, o.extractor));
        const std::string value = normalize_option_value(o.value);
        const auto apply = [&](Regressor& r) {
            for (ModelFeature& f : r.features) {
                const MetricDescriptor* x = find_metric_by_feature(f.name);
                if (x && o.extractor == x->name) set_option(f.options, o.option, value);
            }
        };
        apply(impl->main);
        for (Regressor& m : impl->members) apply(m);
    }

    for (ModelFeature& f : impl->main.features) resolve(f, impl->label);
    for (Regressor& m : impl->members)
        for (ModelFeature& f : m.features) resolve(f, impl->label);

    impl_ = std::move(impl);
}

const std::string& Model::name() const { return impl_->name; }
const std::string& Model::label() const { return impl_->label; }
const std::string& Model::sha256() const { return impl_->sha256; }
bool Model::is_collection() const { return !impl_->members.empty(); }

std::vector<FeatureRequest> Model::required_features() const {
    std::vector<FeatureRequest> out;
    std::vector<std::pair<const MetricDescriptor*, std::string>> seen;
    const auto add = [&](const Regressor& r) {
        for (const ModelFeature& f : r.features) {
            if (!f.error.empty()) throw Error(f.error);
            const std::pair<const MetricDescriptor*, std::string> id{f.extractor, f.options_key};
            if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
            seen.push_back(id);
            out.push_back({f.extractor, f.options});
        }
    };
    add(impl_->main);
    for (const Regressor& m : impl_->members) add(m);
    return out;
}

std::vector<std::string> Model::output_names() const {
    std::vector<std::string> out{impl_->name};
    if (!is_collection()) return out;
    for (const Regressor& m : impl_->members) out.push_back(m.name);
    for (const char* suffix : {"_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi"}) out.push_back(impl_->name + suffix);
    return out;
}

void Model::predict(ScoreTable& table, unsigned index) const {
    predict_score(table, index);
    predict_collection(table, index);
}

namespace {

// A score computed from finite feature values must be finite: only a model file whose numbers
// overflow double (huge slopes, a negative RBF gamma, a polynomial of high degree...) can make
// it NaN or infinite, and vmafx refuses to print such a score (upstream prints "nan"/"inf").
void check_finite(double score, bool finite_inputs, const std::string& label, const std::string& name,
                  unsigned index) {
    if (finite_inputs && !std::isfinite(score))
        throw Error(fmt::format("model {}: frame {}: score \"{}\" is {} although every feature value is finite "
                                "(the model file's numbers overflow)",
                                label, index, name, score));
}

}  // namespace

bool Model::has_inputs(const ScoreTable& table, unsigned index) const {
    const auto reads = [&](const Regressor& r) {
        for (const ModelFeature& f : r.features)
            if (!f.error.empty() || !table.get(f.key, index)) return false;
        return true;
    };
    if (!reads(impl_->main)) return false;
    for (const Regressor& member : impl_->members)
        if (!reads(member)) return false;
    return true;
}

double Model::score_at(const ScoreTable& features, unsigned index) const {
    const Regressor& r = impl_->main;
    bool finite_inputs = true;
    const double score = r.final_score(r.raw_score(features, index, finite_inputs));
    check_finite(score, finite_inputs, impl_->label, impl_->name, index);
    return score;
}

double Model::predict_score(ScoreTable& table, unsigned index) const {
    const double score = score_at(table, index);
    table.set(impl_->name, index, score);
    return score;
}

std::vector<double> Model::collection_at(const ScoreTable& features, unsigned index) const {
    const std::vector<Regressor>& members = impl_->members;
    if (members.empty()) return {};
    const std::size_t n = members.size();

    // Statistics are taken over the untransformed, unclipped member scores; each member's
    // own score is written transformed and clipped.
    std::vector<double> out;
    out.reserve(n + 4);
    std::vector<double> raw(n);
    bool finite_inputs = true;
    for (std::size_t i = 0; i < n; ++i) {
        raw[i] = members[i].raw_score(features, index, finite_inputs);
        const double score = members[i].final_score(raw[i]);
        check_finite(score, finite_inputs, impl_->label, members[i].name, index);
        out.push_back(score);
    }

    double sum = 0.;
    for (double s : raw) sum += s;
    const double mean = sum / static_cast<double>(n);

    double ssd = 0.;
    for (double s : raw) {
        const double d = s - mean;
        ssd += d * d;  // upstream pow(d, 2), which compilers evaluate as d * d
    }
    double stddev = std::sqrt(ssd / static_cast<double>(n));

    // In increasing order as upstream's qsort; NaN (from NaN feature values) goes last, where
    // std::sort with a plain < on NaN would be undefined behaviour (and can read out of range).
    std::sort(raw.begin(), raw.end(), [](double a, double b) { return a < b || (!std::isnan(a) && std::isnan(b)); });
    const double lo = percentile(raw, 2.5);
    const double hi = percentile(raw, 97.5);

    // The mean, bounds and the slope of the score mapping around the mean follow member 1.
    const Regressor& first = members.front();
    const double delta = 0.01;
    const double plus = first.final_score(mean + delta);
    const double minus = first.final_score(mean - delta);
    stddev *= (plus - minus) / (2.0 * delta);

    const std::pair<const char*, double> stats[] = {{"_bagging", first.final_score(mean)},
                                                    {"_stddev", stddev},
                                                    {"_ci_p95_lo", first.final_score(lo)},
                                                    {"_ci_p95_hi", first.final_score(hi)}};
    for (const auto& [suffix, value] : stats) check_finite(value, finite_inputs, impl_->label, impl_->name + suffix, index);
    for (const auto& [suffix, value] : stats) out.push_back(value);
    return out;
}

void Model::predict_collection(ScoreTable& table, unsigned index) const {
    const std::vector<double> values = collection_at(table, index);
    if (values.empty()) return;
    const std::vector<std::string> names = output_names();  // name(), then the collection's, in order
    for (std::size_t k = 0; k < values.size(); ++k) table.set(names[k + 1], index, values[k]);
}

}  // namespace vmafx
