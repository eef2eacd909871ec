#include "feature/corners.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/printf.h>

#include "base/error.hpp"

namespace vmafx {

namespace {

void add_once(std::vector<std::string>& list, const std::string& text) {
    if (std::find(list.begin(), list.end(), text) == list.end()) list.push_back(text);
}

/// `text` split at `sep`, empty pieces dropped.
std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(sep, start), text.size());
        if (end > start) out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

/// The option names set by "opt=v:opt=v" (`where` names it in the error).
std::vector<std::string> names_set(const std::string& options, const std::string& where) {
    std::vector<std::string> names;
    for (const std::string& pair : split(options, ':')) {
        const std::size_t eq = pair.find('=');
        if (eq == std::string::npos || eq == 0)
            throw Error(fmt::format("{}: option corner \"{}\" is not opt=value pairs", where, options));
        names.push_back(pair.substr(0, eq));
    }
    return names;
}

}  // namespace

std::vector<std::string> range_corner_values(const OptionSpec& spec) {
    std::vector<double> values;
    const double top = std::min(spec.max, std::max(spec.min, kLargestRangeCorner));
    switch (spec.type) {
    case OptionType::kBool: values = {spec.default_value != 0.0 ? 0.0 : 1.0}; break;
    case OptionType::kInt: values = {spec.min, spec.max}; break;
    case OptionType::kDouble: values = {spec.min, top, spec.min + (top - spec.min) * 0.3}; break;
    case OptionType::kString: return {};  // no range to take corners of
    }
    std::vector<std::string> out;
    for (double v : values) {
        if (v == spec.default_value) continue;
        add_once(out, spec.type == OptionType::kBool  ? (v != 0.0 ? "true" : "false")
                      : spec.type == OptionType::kInt ? fmt::format("{}", static_cast<long>(v))
                                                      : normalize_option_value(fmt::sprintf("%.9g", v)));
    }
    return out;
}

std::vector<std::string> corner_values(const OptionSpec& spec) {
    std::vector<std::string> out = range_corner_values(spec);
    if (spec.extra_corners)
        for (const std::string& v : split(spec.extra_corners, ',')) add_once(out, v);
    return out;
}

std::vector<std::string> option_corners(const MetricDescriptor& metric) {
    const std::string base = metric.corner_base ? metric.corner_base : "";
    const std::vector<std::string> base_pairs = split(base, ':');
    const std::vector<std::string> base_names = names_set(base, metric.name);
    // "name=options" with the base options the corner does not set itself.
    const auto feature = [&](const std::string& options) {
        const std::vector<std::string> set = names_set(options, metric.name);
        std::string text = options;
        for (std::size_t i = 0; i < base_pairs.size(); ++i)
            if (std::find(set.begin(), set.end(), base_names[i]) == set.end())
                text += (text.empty() ? "" : ":") + base_pairs[i];
        return text.empty() ? std::string(metric.name) : fmt::format("{}={}", metric.name, text);
    };
    std::vector<std::string> out{feature("")};
    for (const OptionSpec& spec : metric.options)
        for (const std::string& v : corner_values(spec)) add_once(out, feature(fmt::format("{}={}", spec.name, v)));
    for (const char* set : metric.corner_sets) add_once(out, feature(set));
    return out;
}

}  // namespace vmafx
