#include "base/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/printf.h>

#include "base/error.hpp"

namespace vmafx {

namespace {

const OptionSpec* find_spec(std::span<const OptionSpec> specs, const std::string& name) {
    for (const auto& s : specs)
        if (name == s.name) return &s;
    return nullptr;
}

double parse_value(const std::string& metric, const OptionSpec& spec, const std::string& text) {
    const auto fail = [&](const std::string& why) {
        return UsageError(fmt::format("feature \"{}\": option {}={}: {}", metric, spec.name, text, why));
    };
    if (spec.type == OptionType::kBool) {
        if (text == "true") return 1.0;
        if (text == "false") return 0.0;
        throw fail("expected true or false");
    }
    if (text.empty()) throw fail("expected a number");
    errno = 0;
    char* end = nullptr;
    double v = 0.0;
    // The whole text must be the number: `end` at its end, not at an embedded NUL.
    const char* const text_end = text.c_str() + text.size();
    if (spec.type == OptionType::kInt) {
        const long n = std::strtol(text.c_str(), &end, 10);
        if (end != text_end || errno) throw fail("expected an integer");
        v = static_cast<double>(n);
    } else {
        v = std::strtod(text.c_str(), &end);
        if (end != text_end || errno || !std::isfinite(v)) throw fail("expected a finite number");
    }
    // Upstream's set_option_int/_double (opt.c) take a zero only when the stored text starts
    // with '0': it refuses "-0", which is what a negative zero ("-0.0", or "-1e-50", which
    // rounds to -0 as a float) becomes once normalized with %g. Refused here too, so that no
    // output name upstream cannot produce ("_mbf_-0") is ever written.
    if (v == 0 && text[0] != '0')
        throw fail("a zero must be written 0 (upstream refuses -0)");
    if (v < spec.min || v > spec.max) throw fail(fmt::format("out of range [{:g}, {:g}]", spec.min, spec.max));
    return v;
}

}  // namespace

Options::Options(const std::string& metric, std::span<const OptionSpec> specs, std::span<const FeatureName> features,
                 const OptionValues& values)
    : specs_(specs), features_(features) {
    for (const auto& [name, text] : values) {
        const OptionSpec* spec = find_spec(specs, name);
        if (!spec) {
            std::string known;
            for (const auto& s : specs) known += std::string(known.empty() ? "" : ", ") + s.name;
            throw UsageError(
                fmt::format("feature \"{}\" has no option \"{}\" (its options: {})", metric, name, known));
        }
        if (spec->type == OptionType::kString) {
            // Upstream keeps the text as given; it is the default when it equals it (strcmp).
            if (text == (spec->default_text ? spec->default_text : "")) texts_.erase(name);
            else texts_[name] = text;
            continue;
        }
        const double v = parse_value(metric, *spec, text);
        if (v == spec->default_value) values_.erase(name);
        else values_[name] = v;
    }
}

double Options::value_of(const OptionSpec& spec) const {
    if (auto it = values_.find(spec.name); it != values_.end()) return it->second;
    return spec.default_value;
}

std::string Options::text_of(const OptionSpec& spec) const {
    if (auto it = texts_.find(spec.name); it != texts_.end()) return it->second;
    return spec.default_text ? spec.default_text : "";
}

double Options::get(const std::string& name) const {
    if (const OptionSpec* spec = find_spec(specs_, name); spec && spec->type != OptionType::kString)
        return value_of(*spec);
    throw Error(fmt::format("internal: no numeric option \"{}\"", name));
}

std::string Options::get_text(const std::string& name) const {
    if (const OptionSpec* spec = find_spec(specs_, name); spec && spec->type == OptionType::kString)
        return text_of(*spec);
    throw Error(fmt::format("internal: no string option \"{}\"", name));
}

void Options::check_settings_type(const OptionSpec& spec, const void* tag) {
    if (spec.settings_type != tag)
        throw Error(fmt::format("internal: option \"{}\" is bound to another Settings type", spec.name));
}

std::string Options::feature_name(const std::string& feature) const {
    std::string out = feature;
    for (const FeatureName& f : features_)
        if (feature == f.name && f.alias) out = f.alias;
    // Upstream sorts the non-default feature parameters alphabetically by option name
    // (strcmp order, as std::map's), numbers and strings alike.
    std::map<std::string, std::string> parts;
    for (const auto& [name, v] : values_) {
        const OptionSpec* spec = find_spec(specs_, name);
        if (!spec || !spec->is_feature_parameter()) continue;
        const char* key = spec->alias ? spec->alias : spec->name;
        switch (spec->type) {
        case OptionType::kBool: parts[name] = fmt::format("_{}", key); break;
        case OptionType::kInt: parts[name] = fmt::format("_{}_{}", key, static_cast<int>(v)); break;
        case OptionType::kDouble: parts[name] = fmt::format("_{}_{}", key, fmt::sprintf("%g", v)); break;
        case OptionType::kString: break;
        }
    }
    for (const auto& [name, text] : texts_) {
        const OptionSpec* spec = find_spec(specs_, name);
        if (!spec || !spec->is_feature_parameter()) continue;
        parts[name] = fmt::format("_{}_{}", spec->alias ? spec->alias : spec->name, text);
    }
    const bool any = !parts.empty();
    for (const auto& [name, part] : parts) out += part;
    // Upstream names a feature by its full name when no feature parameter differs.
    return any ? out : feature;
}

std::string Options::key() const {
    std::string out;
    for (const auto& [name, v] : values_) out += fmt::format("{}={};", name, fmt::sprintf("%.17g", v));
    for (const auto& [name, text] : texts_) out += fmt::format("{}=\"{}\";", name, text);
    return out;
}

std::string normalize_option_value(const std::string& text) {
    // Upstream dict.c isnumeric(): one float and nothing but whitespace after it.
    float ignored = 0.0f;
    char trailing = 0;
    if (std::sscanf(text.c_str(), "%f %c", &ignored, &trailing) != 1) return text;
    char* end = nullptr;
    const double v = std::strtof(text.c_str(), &end);
    if (v == 0 && end == text.c_str()) return text;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace vmafx
