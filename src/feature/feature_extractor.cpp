#include "feature/feature_extractor.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/printf.h>

#include "feature/adm/adm.hpp"
#include "feature/motion/motion.hpp"
#include "feature/vif/vif.hpp"

namespace vmafx {

namespace {

const OptionSpec* find_spec(std::span<const OptionSpec> specs, const std::string& name) {
    for (const auto& s : specs)
        if (name == s.name) return &s;
    return nullptr;
}

double parse_value(const std::string& extractor, const OptionSpec& spec, const std::string& text) {
    const auto fail = [&](const char* why) {
        return UsageError(fmt::format("feature \"{}\": option {}={}: {}", extractor, spec.name, text, why));
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
    if (v < spec.min || v > spec.max)
        throw fail(fmt::format("out of range [{:g}, {:g}]", spec.min, spec.max).c_str());
    return v;
}

struct AliasEntry {
    const char* name;
    const char* alias;
};

// Upstream's table of short output names (libvmaf src/feature/alias.c), the entries of
// the metrics vmafx implements and of those whose names models refer to.
constexpr AliasEntry kAliases[] = {
    {"VMAF_feature_adm2_score", "adm2"},
    {"VMAF_feature_aim_score", "aim"},
    {"VMAF_feature_adm3_score", "adm3"},
    {"VMAF_feature_adm_scale0_score", "adm_scale0"},
    {"VMAF_feature_adm_scale1_score", "adm_scale1"},
    {"VMAF_feature_adm_scale2_score", "adm_scale2"},
    {"VMAF_feature_adm_scale3_score", "adm_scale3"},
    {"VMAF_feature_motion_score", "motion"},
    {"VMAF_feature_motion2_score", "motion2"},
    {"VMAF_feature_motion3_score", "motion3"},
    {"VMAF_feature_vif_scale0_score", "vif_scale0"},
    {"VMAF_feature_vif_scale1_score", "vif_scale1"},
    {"VMAF_feature_vif_scale2_score", "vif_scale2"},
    {"VMAF_feature_vif_scale3_score", "vif_scale3"},
    {"VMAF_integer_feature_adm2_score", "integer_adm2"},
    {"VMAF_integer_feature_aim_score", "integer_aim"},
    {"VMAF_integer_feature_adm3_score", "integer_adm3"},
    {"VMAF_integer_feature_motion_score", "integer_motion"},
    {"VMAF_integer_feature_motion2_score", "integer_motion2"},
    {"VMAF_integer_feature_motion3_score", "integer_motion3"},
    {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"},
    {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1"},
    {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2"},
    {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3"},
    {"Cambi_feature_cambi_score", "cambi"},
    {"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u"},
    {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v"},
    {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv"},
    {"Speed_temporal_feature_speed_temporal_score", "speed_temporal"},
};

}  // namespace

std::string feature_alias(const std::string& feature) {
    for (const auto& a : kAliases)
        if (feature == a.name) return a.alias;
    return feature;
}

Options::Options(const std::string& extractor, std::span<const OptionSpec> specs,
                 const std::vector<std::pair<std::string, std::string>>& values)
    : specs_(specs) {
    for (const auto& [name, text] : values) {
        const OptionSpec* spec = find_spec(specs, name);
        if (!spec) {
            std::string known;
            for (const auto& s : specs) known += std::string(known.empty() ? "" : ", ") + s.name;
            throw UsageError(fmt::format("feature \"{}\" has no option \"{}\" (its options: {})", extractor,
                                    name, known));
        }
        const double v = parse_value(extractor, *spec, text);
        if (v == spec->default_value) values_.erase(name);
        else values_[name] = v;
    }
}

double Options::get(const std::string& name) const {
    if (auto it = values_.find(name); it != values_.end()) return it->second;
    if (const OptionSpec* spec = find_spec(specs_, name)) return spec->default_value;
    throw Error(fmt::format("internal: no option \"{}\"", name));
}

std::string Options::feature_name(const std::string& feature) const {
    std::string out = values_.empty() ? feature : feature_alias(feature);
    bool any = false;
    for (const auto& [name, v] : values_) {  // std::map: alphabetical by option name
        const OptionSpec* spec = find_spec(specs_, name);
        if (!spec || !spec->feature_param) continue;
        any = true;
        const char* key = spec->alias ? spec->alias : spec->name;
        switch (spec->type) {
        case OptionType::kBool: out += fmt::format("_{}", key); break;
        case OptionType::kInt: out += fmt::format("_{}_{}", key, static_cast<int>(v)); break;
        case OptionType::kDouble: out += fmt::format("_{}_{}", key, fmt::sprintf("%g", v)); break;
        }
    }
    // Upstream names a feature by its full name when no feature parameter differs.
    return any ? out : feature;
}

std::string Options::key() const {
    std::string out;
    for (const auto& [name, v] : values_) out += fmt::format("{}={};", name, fmt::sprintf("%.17g", v));
    return out;
}

void ScoreTable::set(const std::string& name, unsigned index, double value) {
    auto [it, inserted] = scores_.try_emplace(name);
    if (inserted) order_.push_back(name);
    if (it->second.size() <= index) it->second.resize(index + 1);
    it->second[index] = value;
}

std::optional<double> ScoreTable::get(const std::string& name, unsigned index) const {
    auto it = scores_.find(name);
    if (it == scores_.end() || index >= it->second.size()) return std::nullopt;
    return it->second[index];
}

unsigned ScoreTable::frames(const std::string& name) const {
    auto it = scores_.find(name);
    return it == scores_.end() ? 0u : static_cast<unsigned>(it->second.size());
}

unsigned ScoreTable::max_frames() const {
    unsigned n = 0;
    for (const auto& [name, v] : scores_) n = std::max(n, static_cast<unsigned>(v.size()));
    return n;
}

const std::vector<ExtractorInfo>& extractor_registry() {
    static const std::vector<ExtractorInfo> registry = {
        vif_extractor_info(),
        adm_extractor_info(),
        motion_extractor_info(),
    };
    return registry;
}

const ExtractorInfo* find_extractor(const std::string& name) {
    for (const auto& e : extractor_registry())
        if (name == e.name) return &e;
    return nullptr;
}

std::string extractor_names() {
    std::string names;
    for (const auto& e : extractor_registry()) names += std::string(names.empty() ? "" : ", ") + e.name;
    return names;
}

const ExtractorInfo* find_extractor_by_feature(const std::string& feature) {
    for (const auto& e : extractor_registry())
        if (std::find(e.provided_features.begin(), e.provided_features.end(), feature) !=
            e.provided_features.end())
            return &e;
    return nullptr;
}

}  // namespace vmafx
