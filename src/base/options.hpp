// Typed options of a metric: each option is bound to a member of the metric's Settings struct
// (as FFmpeg binds AVOptions to struct fields, or libvmaf's VmafOption tables to context
// fields), parsed from text with its type and range checked, and named in output names by
// upstream's rule. The ground floor: includes nothing above it.
#pragma once

#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace vmafx {

/// Type of an option, as upstream's VmafOption types (bool, int, double, string).
enum class OptionType { kBool, kInt, kDouble, kString };

/// What an option is to upstream's output names (upstream's VmafOption flag
/// VMAF_OPT_FLAG_FEATURE_PARAM).
enum class OptionRole {
    kSetting,           ///< changes the computation or the outputs written, never the output names
    kFeatureParameter,  ///< a non-default value adds "_<alias>_<value>" to the output names
};

/// A provided feature: its upstream name and the short name upstream writes in output names
/// when a feature parameter differs from its default (libvmaf src/feature/alias.c), e.g.
/// {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"}. alias == nullptr: the
/// name itself.
struct FeatureName {
    const char* name;
    const char* alias = nullptr;
};

namespace detail {
template <typename Member>
struct MemberTraits;
template <typename Class, typename Value>
struct MemberTraits<Value Class::*> {
    using Settings = Class;
    using Type = Value;
};
/// The member a path of member pointers (&A::b, &B::c, ...) ends at, and the struct it starts in.
template <auto First, auto... Rest>
struct MemberPath {
    using Settings = typename MemberTraits<decltype(First)>::Settings;
    using Type = typename MemberPath<Rest...>::Type;
};
template <auto Last>
struct MemberPath<Last> {
    using Settings = typename MemberTraits<decltype(Last)>::Settings;
    using Type = typename MemberTraits<decltype(Last)>::Type;
};
/// One address per Settings type, so that an option is only ever written into the struct it
/// was declared for.
template <typename Settings>
inline constexpr char kSettingsTag = 0;
}  // namespace detail

/// One option of a metric (upstream: one row of the extractor's VmafOption table), bound to a
/// member of the metric's Settings struct. Declare rows with option<&Settings::member>(...).
/// `alias` abbreviates the option in output names (e.g. "egl" for "vif_enhn_gain_limit");
/// only options whose role is OptionRole::kFeatureParameter change the output names.
struct OptionSpec {
    const char* name;   ///< upstream's option name, e.g. "vif_enhn_gain_limit"
    const char* alias;  ///< nullptr: the name itself is used in output names
    OptionType type;
    double default_value;  ///< bools as 0 or 1, ints exactly
    double min;            ///< smallest accepted value (inclusive)
    double max;            ///< largest accepted value (inclusive)
    OptionRole role;       ///< whether a non-default value changes the output names
    const char* help;      ///< upstream's help text
    const void* settings_type;                    ///< detail::kSettingsTag of the bound struct
    void (*assign)(void* settings, double value);  ///< writes the value into the bound member (not strings)
    /// kString only: the default text (upstream's default_val.s; nullptr: upstream's NULL, read
    /// as "") and the writer of the text into the bound std::string member. Strings have no
    /// range: default_value, min and max are 0.
    const char* default_text = nullptr;
    void (*assign_text)(void* settings, const std::string& text) = nullptr;
    /// Option corners declared beyond those its type and range give (feature/corners.hpp): values
    /// of special interest, e.g. where the computation takes another path or a value just
    /// outside the range, as comma-separated option text ("0.7,1.2"; strings: the texts);
    /// nullptr: none. Set with also_at().
    const char* extra_corners = nullptr;

    /// This row with `values` as its declared extra corners (extra_corners), e.g.
    /// option<&S::gain>(...).also_at("1.2").
    constexpr OptionSpec also_at(const char* values) const {
        OptionSpec with = *this;
        with.extra_corners = values;
        return with;
    }

    /// Whether a non-default value changes the output names (role kFeatureParameter).
    constexpr bool is_feature_parameter() const { return role == OptionRole::kFeatureParameter; }
};

/// Option row bound to `Member` (a bool, int, int-based enum or double member of a Settings
/// struct), or to a member of a struct member of it (`Path`: option<&Settings::config,
/// &Config::gain>(...) writes settings.config.gain); enums are ints in the table; bools have
/// range [0, 1]. E.g. option<&vif::Settings::gain_limit>("vif_enhn_gain_limit", "egl", 100.0,
/// 1.0, 100.0, OptionRole::kFeatureParameter, "...").
template <auto Member, auto... Path>
constexpr OptionSpec option(const char* name, const char* alias, double default_value, double min, double max,
                            OptionRole role, const char* help) {
    using Traits = detail::MemberPath<Member, Path...>;
    using Settings = typename Traits::Settings;
    using T = typename Traits::Type;
    constexpr bool is_int_enum = [] {
        if constexpr (std::is_enum_v<T>) return std::is_same_v<std::underlying_type_t<T>, int>;
        else return false;
    }();
    static_assert(std::is_same_v<T, bool> || std::is_same_v<T, int> || std::is_same_v<T, double> || is_int_enum,
                  "options bind bool, int, int-based enum or double members");
    constexpr OptionType type =
        std::is_same_v<T, bool> ? OptionType::kBool
                                : (std::is_same_v<T, int> || is_int_enum ? OptionType::kInt : OptionType::kDouble);
    return {name,
            alias,
            type,
            default_value,
            min,
            max,
            role,
            help,
            &detail::kSettingsTag<Settings>,
            [](void* settings, double value) {
                T& member = ((static_cast<Settings*>(settings)->*Member).*....*Path);
                if constexpr (is_int_enum) member = static_cast<T>(static_cast<int>(value));
                else member = static_cast<T>(value);
            }};
}

/// String option row bound to `Member` (a std::string member of a Settings struct): any text is
/// accepted as given (upstream's VMAF_OPT_TYPE_STRING); the metric checks the text it reads
/// (e.g. cambi's eotf). `default_text` nullptr stands for upstream's NULL default. In output
/// names a non-default value of a feature parameter is written "_<alias>_<text>".
template <auto Member>
constexpr OptionSpec option(const char* name, const char* alias, const char* default_text, OptionRole role,
                            const char* help) {
    using Traits = detail::MemberTraits<decltype(Member)>;
    using Settings = typename Traits::Settings;
    static_assert(std::is_same_v<typename Traits::Type, std::string>, "text options bind std::string members");
    return {name,
            alias,
            OptionType::kString,
            0.0,
            0.0,
            0.0,
            role,
            help,
            &detail::kSettingsTag<Settings>,
            nullptr,
            default_text,
            [](void* settings, const std::string& text) { static_cast<Settings*>(settings)->*Member = text; }};
}

/// Option values as text, {name, value} pairs (upstream's `--feature NAME=opt=val:opt=val`,
/// a model's feature options).
using OptionValues = std::vector<std::pair<std::string, std::string>>;

/// Option values of one metric instance, validated against its OptionSpec table. Values are
/// held as doubles (bools as 0/1, ints exactly), string options as their text; only values
/// other than the default are kept.
class Options {
public:
    Options() = default;
    /// Parses `text` ("true"/"false" for bools, the text itself for strings, decimal numbers
    /// otherwise) for each entry of
    /// `values`, checking names, types and ranges against `specs`; `features` are the metric's
    /// provided features (for their aliases in output names). Throws UsageError naming
    /// `metric` and the bad option (callers that read the values from a file report it as an
    /// error of that file).
    Options(const std::string& metric, std::span<const OptionSpec> specs, std::span<const FeatureName> features,
            const OptionValues& values);

    /// The value of option `name`, or its default when unset; throws Error for an option the
    /// table does not have or a string option.
    double get(const std::string& name) const;
    /// The text of string option `name`, or its default ("" for a NULL default) when unset;
    /// throws Error for an option the table does not have or one that is not a string.
    std::string get_text(const std::string& name) const;

    /// Writes every option's value (set or default) into `settings`, through the members the
    /// table binds. Throws Error when the table was declared for another Settings type.
    template <typename Settings>
    void bind(Settings& settings) const {
        for (const OptionSpec& spec : specs_) {
            check_settings_type(spec, &detail::kSettingsTag<Settings>);
            if (spec.type == OptionType::kString) spec.assign_text(&settings, text_of(spec));
            else spec.assign(&settings, value_of(spec));
        }
    }

    /// Output name of provided feature `feature` (e.g. "VMAF_integer_feature_vif_scale0_score")
    /// under these options, as upstream's vmaf_feature_name_from_options: the alias of the
    /// name (alias.c: "integer_vif_scale0") followed by "_<alias>_<value>" for each
    /// non-default feature parameter, in alphabetical order of option names; values print
    /// as %g (doubles), %d (ints), strings as their text, and bools as "_<alias>" alone. The name itself when no
    /// feature parameter differs from its default.
    std::string feature_name(const std::string& feature) const;

    /// Canonical text of the non-default values (for telling two instances apart).
    std::string key() const;

private:
    double value_of(const OptionSpec& spec) const;
    std::string text_of(const OptionSpec& spec) const;
    static void check_settings_type(const OptionSpec& spec, const void* tag);

    std::span<const OptionSpec> specs_;
    std::span<const FeatureName> features_;
    std::map<std::string, double> values_;       // only explicitly set, non-default ones
    std::map<std::string, std::string> texts_;  // the same, of string options
};

/// The text an option value has once upstream stores it in an options dictionary
/// (libvmaf src/dict.c vmaf_feature_dictionary_set with VMAF_DICT_NORMALIZE_NUMERICAL_VALUES):
/// a number (as sscanf "%f" reads it, nothing but whitespace after) becomes float-rounded
/// and printed as "%g" ("1.0" -> "1", "0.123456789" -> "0.123457"); other text is unchanged.
/// Applies to `-m` overload values and `--feature NAME=OPT=VALUE` option values alike.
std::string normalize_option_value(const std::string& text);

}  // namespace vmafx
