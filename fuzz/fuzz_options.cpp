// fuzz_options: the option strings of the command line: `-m` (parse_model_spec, and the
// feature overloads it gives applied to a built-in model), `--feature` (parse_feature_spec),
// metric options (each registered metric's parse_options, feature_name, key)
// and normalize_option_value.
//
// The input is split at '\n' into at most 16 strings. The first is a `-m` value: when it
// parses and names a built-in model (path= is not followed: the fuzzer must not read files),
// the model is loaded with its overloads and its required features resolved (bootstrap
// collections excepted, for speed). Every string is
// a `--feature` value: parsed, then its options checked against the metric it names and
// against every metric of the registry, with feature_name() of every provided feature and
// key(). Everything must either succeed or throw vmafx::Error.
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"
#include "base/error.hpp"
#include "feature/registry.hpp"
#include "fuzz_support.hpp"
#include "model/builtin_models.hpp"
#include "model/model.hpp"

using namespace vmafx;

namespace {

void check_options(const MetricDescriptor& m, const OptionValues& values) {
    try {
        const Options options = m.parse_options(values);
        for (const FeatureName& f : m.features) {
            const std::string name = options.feature_name(f.name);
            fuzz::check(!name.empty());
        }
        (void)options.key();
        (void)m.history_for(options);
        // A set value is in range; an unset one is the default, which upstream may put outside
        // the range (cambi's enc_width 0, "not given").
        for (const OptionSpec& s : m.options) {
            if (s.type == OptionType::kString) {
                (void)options.get_text(s.name);
                continue;
            }
            const double v = options.get(s.name);
            fuzz::check((v >= s.min && v <= s.max) || v == s.default_value);
        }
    } catch (const Error&) {
    }
}

bool is_builtin(const std::string& version) {
    for (const BuiltinModel& m : builtin_models())
        if (version == m.version) return true;
    return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> strings;
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    for (std::size_t start = 0; start <= all.size() && strings.size() < 16;) {
        const std::size_t nl = all.find('\n', start);
        strings.emplace_back(all.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
        if (nl == std::string_view::npos) break;
        start = nl + 1;
    }

    try {
        const ModelSpec spec = parse_model_spec(strings[0]);
        fuzz::check(spec.version.empty() != spec.path.empty());
        // Bootstrap collections (_b_) are skipped: 400 KB of JSON per run would slow the
        // fuzzer tenfold, and overloads are applied to their members by the same code.
        if (is_builtin(spec.version) && spec.version.find("_b_") == std::string::npos) {
            const Model model(spec);
            for (const FeatureRequest& r : model.required_features()) check_options(*r.metric, r.options);
        }
    } catch (const Error&) {
    }

    for (const std::string& s : strings) {
        (void)normalize_option_value(s);
        try {
            const FeatureSpec spec = parse_feature_spec(s);
            fuzz::check(!spec.name.empty());
            if (const MetricDescriptor* m = find_metric(spec.name)) check_options(*m, spec.options);
            for (const MetricDescriptor* m : metric_registry()) check_options(*m, spec.options);
        } catch (const Error&) {
        }
    }
    return 0;
}
