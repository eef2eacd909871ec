// docs/metrics.md against the descriptors: its "Option tables" section is generated from every
// metric's option table (name, output-name alias, type, default, range, role, help) and must
// equal what the descriptors give now, so a changed option without its documentation fails.
// VMAFX_UPDATE_SNAPSHOT=1 rewrites the section (as it rewrites tests/data/metric_tables.json).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/registry.hpp"

namespace vmafx {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBegin = "<!-- option tables: generated from the descriptors (tests/test_docs.cpp) -->";
constexpr const char* kEnd = "<!-- end of the option tables -->";

const char* type_name(OptionType t) {
    switch (t) {
    case OptionType::kBool: return "bool";
    case OptionType::kInt: return "int";
    case OptionType::kDouble: return "double";
    case OptionType::kString: return "string";
    }
    return "?";
}

/// `v` as the tables print it: bools true/false, ints exactly, doubles as %g.
std::string value_text(OptionType t, double v) {
    if (t == OptionType::kBool) return v != 0.0 ? "true" : "false";
    if (t == OptionType::kInt) return fmt::format("{}", static_cast<long long>(v));
    return fmt::format("{:g}", v);
}

/// A table cell: `|` escaped.
std::string cell(std::string text) {
    for (std::size_t i = text.find('|'); i != std::string::npos; i = text.find('|', i + 2)) text.replace(i, 1, "\\|");
    return text;
}

/// The generated section: for each metric with an oracle (the tests' example has none), in
/// registry order, a heading and its options' table, or "none".
std::string option_tables() {
    std::ostringstream out;
    out << kBegin << "\n";
    for (const MetricDescriptor* m : metric_registry()) {
        if (!m->oracle.reference) continue;
        out << "\n### `" << m->name << "` (" << m->oracle.reference << ")\n\n";
        if (m->options.empty()) {
            out << "No options.\n";
            continue;
        }
        out << "| option | alias | type | default | range | feature parameter | help |\n";
        out << "| --- | --- | --- | --- | --- | --- | --- |\n";
        for (const OptionSpec& o : m->options) {
            std::string def, range;
            if (o.type == OptionType::kString) {
                def = o.default_text ? fmt::format("\"{}\"", o.default_text) : "unset";
                range = "any text";
            } else {
                def = value_text(o.type, o.default_value);
                range = fmt::format("[{}, {}]", value_text(o.type, o.min), value_text(o.type, o.max));
            }
            out << fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", o.name, o.alias ? o.alias : "", type_name(o.type),
                               def, range, o.is_feature_parameter() ? "yes" : "no", cell(o.help ? o.help : ""));
        }
    }
    out << "\n" << kEnd << "\n";
    return out.str();
}

// The section of docs/metrics.md between the markers equals the tables generated now.
TEST(MetricDocs, OptionTablesEqualTheDescriptors) {
    const fs::path path = fs::path(VMAFX_SOURCE_DIR) / "docs" / "metrics.md";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string doc = buffer.str();
    const std::size_t begin = doc.find(kBegin);
    const std::size_t end = doc.find(kEnd);
    ASSERT_NE(begin, std::string::npos) << path << " has no line \"" << kBegin << "\"";
    ASSERT_NE(end, std::string::npos) << path << " has no line \"" << kEnd << "\"";
    ASSERT_LT(begin, end);
    const std::size_t stop = end + std::string(kEnd).size() + 1;
    const std::string now = option_tables();
    if (const char* update = std::getenv("VMAFX_UPDATE_SNAPSHOT"); update && std::string(update) == "1") {
        doc.replace(begin, stop - begin, now);
        std::ofstream(path) << doc;
        GTEST_SKIP() << "skipped: rewrote the option tables of " << path << " (VMAFX_UPDATE_SNAPSHOT=1)";
    }
    EXPECT_EQ(doc.substr(begin, stop - begin), now)
        << path << "'s option tables differ from the descriptors: VMAFX_UPDATE_SNAPSHOT=1 "
        << "build/vmafx_tests --gtest_filter=MetricDocs.* rewrites them";
}

// The generator sees what it prints: every option of every metric with an oracle appears in its
// table, with its role (a check that the test above compares something).
TEST(MetricDocs, TablesNameEveryOption) {
    const std::string tables = option_tables();
    int rows = 0;
    for (const MetricDescriptor* m : metric_registry()) {
        if (!m->oracle.reference) continue;
        EXPECT_NE(tables.find(fmt::format("### `{}`", m->name)), std::string::npos) << m->name;
        for (const OptionSpec& o : m->options) {
            EXPECT_NE(tables.find(fmt::format("| `{}` | {} |", o.name, o.alias ? o.alias : "")), std::string::npos)
                << m->name << " " << o.name;
            ++rows;
        }
    }
    EXPECT_GT(rows, 80);
}

}  // namespace
}  // namespace vmafx
