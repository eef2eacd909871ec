// Registry-driven suites: what every metric of metric_registry() must do, checked from its
// descriptor, with no per-metric code. For each metric whose oracle is libvmaf (it has golden
// values): every output of every frame of every fixture equals the golden value bit
// for bit, with its default options and with each option set the built-in models give it; and
// its option table, outputs, planes, history and limits equal the checked-in snapshot
// tests/data/metric_tables.json (VMAFX_UPDATE_SNAPSHOT=1 rewrites it). For every metric: the
// formats just outside its limits are refused with an Error naming it and those at its limits
// accepted, and a run of the engine gives the same bits with 3 threads as with 1.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "feature/registry.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

namespace fs = std::filesystem;
using test::Clip;

std::vector<const MetricDescriptor*> upstream_metrics() {
    std::vector<const MetricDescriptor*> out;
    // Those with outputs: "null" writes none (tests/test_cli.cpp checks that, as upstream's tool).
    for (const MetricDescriptor* m : metric_registry())
        if (m->oracle.has_golden() && !m->features.empty()) out.push_back(m);
    return out;
}

std::string metric_param_name(const testing::TestParamInfo<const MetricDescriptor*>& info) {
    return info.param->name;
}

class UpstreamMetric : public testing::TestWithParam<const MetricDescriptor*> {};

/// The metric's suites that run the engine on files in a temporary folder.
/// (They build their runs with test::TempDirTest::raw_run.)
class EveryMetric : public test::TempDirTest, public testing::WithParamInterface<const MetricDescriptor*> {};

INSTANTIATE_TEST_SUITE_P(Registry, UpstreamMetric, testing::ValuesIn(upstream_metrics()), metric_param_name);
INSTANTIATE_TEST_SUITE_P(Registry, EveryMetric, testing::ValuesIn(metric_registry().begin(), metric_registry().end()),
                         metric_param_name);

// ---------------------------------------------------------------------------------------------
// Golden values.

/// Compares every output of `table` (the metric under one option set on fixture `fixture`) with
/// the golden frames; returns the number of values compared.
std::size_t compare_with_golden(const ScoreTable& table, const nlohmann::json& frames, const std::string& what,
                                bool partial = false) {
    std::size_t compared = 0;
    int mismatches = 0;
    for (const std::string& name : table.names()) {
        // Golden files name outputs by upstream's alias (alias.c): integer_vif_scale0[_egl_1].
        const std::string key = feature_alias(name);
        if (!frames.at(0).at("metrics").contains(key)) {
            if (!partial) ADD_FAILURE() << what << ": the golden file has no " << key;
            continue;
        }
        EXPECT_EQ(table.frames(name), frames.size()) << what << " " << name;
        for (unsigned i = 0; i < frames.size(); ++i) {
            const auto got = table.get(name, i);
            const nlohmann::json& golden_value = frames[i].at("metrics").at(key);
            ++compared;
            if (golden_value.is_null()) {  // upstream writes null for inf and NaN (psnr_hvs of equal planes)
                EXPECT_TRUE(got && !std::isfinite(*got)) << what << " frame " << i << " " << key << ": golden null";
                continue;
            }
            const double want = golden_value.get<double>();
            if (got && std::bit_cast<std::uint64_t>(*got) == std::bit_cast<std::uint64_t>(want)) continue;
            if (++mismatches <= 10)
                ADD_FAILURE() << what << " frame " << i << " " << key << ": "
                              << (got ? fmt::format("{:.17g}", *got) : "(none)") << ", golden "
                              << fmt::format("{:.17g}", want);
        }
    }
    return compared;
}

// Every output of every frame of every fixture bit for bit, with the default options (every
// golden file holds them, except where upstream refused the metric: then vmafx must refuse it too)
// and with each option set of the built-in models that the golden files hold (not all: e.g. those of the 2160p and high-frame-rate v1.0.16 models; upstream refused
// the v1.0.16 models at 64x36).
TEST_P(UpstreamMetric, GoldenValuesEveryFixture) {
    VMAFX_REQUIRE_GOLDEN_FIXTURES();
    const MetricDescriptor& metric = *GetParam();
    const std::vector<OptionValues> sets = test::model_option_sets(metric);
    std::vector<unsigned> held(sets.size(), 0);
    const std::vector<std::string> fixtures = test::golden_fixtures();
    ASSERT_FALSE(fixtures.empty());
    std::size_t compared = 0;
    for (const std::string& fixture : fixtures) {
        SCOPED_TRACE(fixture);
        const nlohmann::json golden = test::golden(fixture);
        const nlohmann::json& frames = golden.at("frames");
        if (test::golden_refuses(fixture, metric.name)) {
            // Upstream refused the metric here: vmafx refuses the format before scoring.
            const std::string msg = test::error_of([&] {
                (void)metric.make_extractor(metric.parse_options({}), test::fixture_format(fixture));
            });
            EXPECT_NE(msg.find(metric.name), std::string::npos) << msg;
            ++held[0];
            continue;
        }
        const bool partial = test::golden_leaves_out(fixture, metric.name);
        const Clip clip = test::fixture_clip(fixture);
        ASSERT_EQ(frames.size(), clip.frames());
        for (std::size_t s = 0; s < sets.size(); ++s) {
            const Options options = metric.parse_options(sets[s]);
            bool in_golden = false;
            for (const FeatureName& f : metric.features)
                in_golden = in_golden || frames.at(0).at("metrics").contains(feature_alias(options.feature_name(f.name)));
            if (!in_golden) {
                if (s == 0 && partial) ++held[0];  // all its outputs are left out (e.g. ciede, odd size)
                EXPECT_TRUE(s != 0 || partial) << fixture << ": the golden file lacks the default outputs of "
                                               << metric.name;
                continue;
            }
            ++held[s];
            const std::string what = fmt::format("{} {} {}", fixture, metric.name, test::option_label(sets[s]));
            compared += compare_with_golden(test::run_cpu(metric, options, clip), frames, what, partial);
        }
    }
    for (std::size_t s = 0; s < sets.size(); ++s)
        std::printf("[ %-8s ] %s: golden values of %u of %zu fixtures\n", metric.name,
                    test::option_label(sets[s]).c_str(), held[s], fixtures.size());
    // The models' option sets that no golden file holds (e.g. float_vif's of the float NEG model)
    // are compared with upstream by tools/option_corners.py.
    EXPECT_EQ(held[0], fixtures.size());
    std::printf("[ %-8s ] %zu values compared\n", metric.name, compared);
    EXPECT_GT(compared, 0u);
}

// ---------------------------------------------------------------------------------------------
// The snapshot of the descriptors.

/// JSON that keeps the order of keys as written (the snapshot reads top-down).
using Json = nlohmann::ordered_json;

const char* type_name(OptionType t) {
    switch (t) {
    case OptionType::kBool: return "bool";
    case OptionType::kInt: return "int";
    case OptionType::kDouble: return "double";
    case OptionType::kString: return "string";
    }
    return "?";
}

Json history_json(const History& h) { return {{"refs", h.refs}, {"dists", h.dists}}; }

/// The depths of `set`, in increasing order.
Json bit_depths_json(const BitDepths& set) {
    Json list = Json::array();
    for (int b = 1; b <= 31; ++b)
        if (set.has(b)) list.push_back(b);
    return list;
}

/// What the snapshot holds of `metric`: its upstream source, options (name, output-name alias,
/// type, default, range, whether a feature parameter), provided features and their aliases,
/// planes and previous pictures at the defaults and under each flipped bool option that changes
/// them, and limits.
Json descriptor_json(const MetricDescriptor& metric) {
    Json options = Json::array();
    Json history = {{"defaults", history_json(metric.history_for(metric.parse_options({})))}};
    const auto planes_json = [&](const Options& o) { return metric.planes_for(o) == PlaneSet::kLuma ? "luma" : "all"; };
    Json planes = {{"defaults", planes_json(metric.parse_options({}))}};
    for (const OptionSpec& o : metric.options) {
        options.push_back({{"name", o.name},
                           {"alias", o.alias ? o.alias : ""},
                           {"type", type_name(o.type)},
                           {"default", o.default_value},
                           {"min", o.min},
                           {"max", o.max},
                           {"feature_param", o.is_feature_parameter()}});
        if (o.type == OptionType::kString) {
            if (o.default_text) options.back()["default_text"] = o.default_text;
            else options.back()["default_text"] = nullptr;
        }
        if (o.type != OptionType::kBool) continue;
        const std::string flipped = o.default_value != 0.0 ? "false" : "true";
        const Options with = metric.parse_options({{o.name, flipped}});
        const History h = metric.history_for(with);
        if (history_json(h) != history["defaults"]) history[std::string(o.name) + "=" + flipped] = history_json(h);
        if (planes_json(with) != planes["defaults"]) planes[std::string(o.name) + "=" + flipped] = planes_json(with);
    }
    Json features = Json::array();
    for (const FeatureName& f : metric.features) features.push_back({{"name", f.name}, {"alias", f.alias ? f.alias : ""}});
    const FormatLimits& l = metric.limits;
    return {{"name", metric.name},
            {"oracle", metric.oracle.reference ? metric.oracle.reference : ""},
            {"upstream_source", metric.oracle.source},
            {"options", options},
            {"features", features},
            {"planes", planes},
            {"history", history},
            {"limits",
             {{"min_width", l.min_width},
              {"min_height", l.min_height},
              {"min_chroma_width", l.min_chroma_width},
              {"min_chroma_height", l.min_chroma_height},
              {"chroma_rounds_down", l.chroma_rounds_down},
              {"min_longer_side", l.min_longer_side},
              {"bit_depths", bit_depths_json(l.bit_depths)},
              {"why", l.why}}}};
}

// The descriptors of the upstream metrics are upstream's tables (checked by eye when the
// snapshot was written); any change to them must be made on purpose, with the snapshot.
TEST(MetricTables, EqualTheSnapshot) {
    Json now = Json::array();
    for (const MetricDescriptor* m : upstream_metrics()) now.push_back(descriptor_json(*m));
    const fs::path path = fs::path(VMAFX_SOURCE_DIR) / "tests" / "data" / "metric_tables.json";
    if (const char* update = std::getenv("VMAFX_UPDATE_SNAPSHOT"); update && std::string(update) == "1") {
        std::ofstream(path) << now.dump(2) << "\n";
        GTEST_SKIP() << "skipped: wrote " << path << " (VMAFX_UPDATE_SNAPSHOT=1); check it by eye";
    }
    std::ifstream in(path);
    ASSERT_TRUE(in) << path << " is missing (VMAFX_UPDATE_SNAPSHOT=1 writes it)";
    const Json snapshot = Json::parse(in);
    EXPECT_TRUE(now == snapshot) << "the descriptors differ from " << path << " (JSON patch from it):\n"
                                 << Json::diff(snapshot, now).dump(2);
}

// ---------------------------------------------------------------------------------------------
// Refusals.

/// The picture `w` x `h` of the format `at` with another size.
VideoFormat resized(VideoFormat at, int w, int h) {
    at.width = w;
    at.height = h;
    return at;
}

/// The format at `at` with bit depth `bits`.
VideoFormat with_depth(VideoFormat at, int bits) {
    at.bit_depth = bits;
    return at;
}

/// "4:2:0", "4:2:2" or "4:4:4".
std::string ratio(Subsampling s) {
    const std::string n = subsampling_name(s);
    return fmt::format("{}:{}:{}", n[0], n[1], n[2]);
}

/// The message check gives for `f`, which `l` refuses for its size, worked out here
/// from the limits: the luma rule first, then the chroma planes' (ceil or, with
/// chroma_rounds_down, floor of the halved luma size).
std::string size_refusal(const char* name, const FormatLimits& l, const VideoFormat& f) {
    if (f.width < l.min_width || f.height < l.min_height)
        return fmt::format("{}: picture {}x{} is too small: its luma plane must be at least {}x{}", name, f.width,
                           f.height, l.min_width, l.min_height);
    if (std::max(f.width, f.height) < l.min_longer_side)
        return fmt::format("{}: picture {}x{} is too small: its luma plane must be at least {} wide or {} high", name,
                           f.width, f.height, l.min_longer_side, l.min_longer_side);
    const int round = l.chroma_rounds_down ? 0 : 1;
    const int cw = f.subsampling == Subsampling::k444 ? f.width : (f.width + round) / 2;
    const int ch = f.subsampling == Subsampling::k420 ? (f.height + round) / 2 : f.height;
    return fmt::format("{}: picture {}x{} in {} is too small: its chroma planes are {}x{}{} and must be at least {}x{}",
                       name, f.width, f.height, ratio(f.subsampling), cw, ch,
                       l.chroma_rounds_down ? " (rounded down, as upstream sizes them)" : "", l.min_chroma_width,
                       l.min_chroma_height);
}

// Per subsampling, the smallest luma sizes follow from the luma and the chroma minimums (and
// the longer side's minimum, which gives two corners, e.g. cambi's 216x2 and 1x216): there
// accepted, at both bit depths; one column less, one row less, or both: an Error naming the
// metric, the plane and the limit, from the descriptor and from a run of the engine. Outside
// the bit depths: refused.
TEST_P(EveryMetric, RefusesFormatsOutsideItsLimits) {
    const MetricDescriptor& metric = *GetParam();
    const FormatLimits& l = metric.limits;
    const Options defaults = metric.parse_options({});
    std::vector<VideoFormat> small;
    for (const Subsampling s : {Subsampling::k420, Subsampling::k422, Subsampling::k444}) {
        // The smallest size is the luma minimum where no chroma minimum is set.
        if (l.min_chroma_width == 1 && l.min_chroma_height == 1 && !l.chroma_rounds_down) {
            EXPECT_EQ(l.smallest(s), (std::pair{l.min_width, l.min_height}));
        }
        for (const auto& [w, h] : l.corners(s)) {
            for (const int bits : {l.bit_depths.lowest(), l.bit_depths.highest()}) {
                const VideoFormat at{w, h, bits, s};
                EXPECT_NO_THROW(metric.make_extractor(defaults, at)) << test::format_label(at);
            }
            const VideoFormat at{w, h, l.bit_depths.lowest(), s};
            if (w > 1) small.push_back(resized(at, w - 1, h));
            if (h > 1) small.push_back(resized(at, w, h - 1));
            if (w > 1 && h > 1) small.push_back(resized(at, w - 1, h - 1));
        }
    }
    for (const VideoFormat& f : small) {
        const std::string want = size_refusal(metric.name, l, f);
        const std::string got = test::error_of([&] { metric.make_extractor(defaults, f); });
        EXPECT_EQ(got.rfind(want, 0), 0u) << "\"" << got << "\" does not start with \"" << want << "\"";
    }
    // Every depth from 1 to 20 at the first corner of 4:4:4: accepted where the set has it, else
    // refused with the one message naming the set.
    const auto [w444, h444] = l.corners(Subsampling::k444).front();
    const VideoFormat at{w444, h444, l.bit_depths.lowest(), Subsampling::k444};
    for (int bits = 1; bits <= 20; ++bits) {
        const VideoFormat f = with_depth(at, bits);
        if (l.bit_depths.has(bits)) {
            EXPECT_NO_THROW(metric.make_extractor(defaults, f)) << test::format_label(f);
            continue;
        }
        const std::string want = fmt::format("{}: bit depth {} is not supported ({})", metric.name, bits,
                                             l.bit_depths.text());
        EXPECT_EQ(test::error_of([&] { metric.make_extractor(defaults, f); }), want);
    }

    // A run of the engine on a file of the first size refused says the same.
    if (small.empty()) return;
    RunConfig config = raw_run(test::synthetic_clip(small[0], 2, 1));
    config.features = {{metric.name, {}}};
    const std::string message = test::error_of([&] { (void)run(config); });
    EXPECT_NE(message.find(size_refusal(metric.name, l, small[0])), std::string::npos) << message;
}

// Option values outside their ranges, of the wrong type or of options the metric does not have:
// a UsageError naming the metric and the option; the range's ends accepted.
TEST_P(EveryMetric, RefusesOptionValuesOutsideTheirRanges) {
    const MetricDescriptor& metric = *GetParam();
    const auto refused = [&](const std::string& name, const std::string& text, const std::string& why) {
        try {
            (void)metric.parse_options({{name, text}});
            ADD_FAILURE() << metric.name << " accepted " << name << "=" << text;
        } catch (const UsageError& e) {
            EXPECT_EQ(std::string(e.what()),
                      fmt::format("feature \"{}\": option {}={}: {}", metric.name, name, text, why));
        }
    };
    for (const OptionSpec& o : metric.options) {
        SCOPED_TRACE(o.name);
        if (o.type == OptionType::kBool) {
            refused(o.name, "maybe", "expected true or false");
            EXPECT_NO_THROW((void)metric.parse_options({{o.name, "true"}, {o.name, "false"}}));
            continue;
        }
        if (o.type == OptionType::kString) {  // any text parses; the metric checks what it reads
            EXPECT_NO_THROW((void)metric.parse_options({{o.name, "text"}}));
            continue;
        }
        const auto text = [&](double v) {
            return o.type == OptionType::kInt ? fmt::format("{}", static_cast<long>(v)) : fmt::format("{:.17g}", v);
        };
        const std::string range = fmt::format("out of range [{:g}, {:g}]", o.min, o.max);
        refused(o.name, text(o.min - 1), range);
        // A maximum of DBL_MAX (psnr's min_sse) has no finite value above it.
        if (o.max + 1 > o.max) refused(o.name, text(o.max + 1), range);
        refused(o.name, "", "expected a number");
        // Negative zero, as normalize_option_value leaves "-0.0" and "-1e-50": upstream's
        // parser refuses it (opt.c takes a zero only when the text starts with '0').
        refused(o.name, normalize_option_value("-0.0"), "a zero must be written 0 (upstream refuses -0)");
        refused(o.name, normalize_option_value("-1e-50"), "a zero must be written 0 (upstream refuses -0)");
        EXPECT_NO_THROW((void)metric.parse_options({{o.name, text(o.min)}}));
        EXPECT_NO_THROW((void)metric.parse_options({{o.name, text(o.max)}}));
    }
    try {
        (void)metric.parse_options({{"no_such_option", "1"}});
        ADD_FAILURE() << metric.name << " accepted an option it does not have";
    } catch (const UsageError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(fmt::format("feature \"{}\" has no option \"no_such_option\"", metric.name), 0),
                  0u)
            << e.what();
    }
}

// ---------------------------------------------------------------------------------------------
// Threads.

bool same_bits(const RunResult& a, const RunResult& b, const std::string& what) {
    EXPECT_EQ(a.scores.names(), b.scores.names()) << what;
    EXPECT_EQ(a.frames, b.frames) << what;
    int differences = 0;
    for (const auto& name : a.scores.names())
        for (unsigned i = 0; i < a.frames; ++i) {
            const auto x = a.scores.get(name, i), y = b.scores.get(name, i);
            const bool same = x.has_value() == y.has_value() &&
                              (!x || std::bit_cast<std::uint64_t>(*x) == std::bit_cast<std::uint64_t>(*y));
            if (!same && ++differences <= 5) ADD_FAILURE() << what << " frame " << i << " " << name;
        }
    return differences == 0 && a.scores.names() == b.scores.names();
}

// `--threads 3` gives every output of every frame with the bits of `--threads 1`, with the
// default options and every option set of the built-in models, at two formats.
TEST_P(EveryMetric, ThreeThreadsGiveTheBitsOfOne) {
    const MetricDescriptor& metric = *GetParam();
    const FormatLimits& l = metric.limits;
    const std::vector<OptionValues> sets = test::model_option_sets(metric);
    const int min_width = std::max(l.min_width, l.min_longer_side);  // (cambi: at least 216 wide or high)
    const VideoFormat formats[] = {{std::max(67, min_width + 2), std::max(45, l.min_height + 3), 10, Subsampling::k420},
                                   {std::max(40, min_width), std::max(37, l.min_height), 8, Subsampling::k444}};
    for (const VideoFormat& base : formats) {
        for (const OptionValues& values : sets) {
            // Some models' option sets need more than the descriptor's limits (e.g. the
            // v1.0.16 2160p models' speed_prescale 0.5): the picture doubles until accepted.
            VideoFormat format = base;
            const Options options = metric.parse_options(values);
            for (int grow = 0;; ++grow) {
                try {
                    (void)metric.make_extractor(options, format);
                    break;
                } catch (const Error& e) {
                    ASSERT_LT(grow, 3) << metric.name << " " << test::option_label(values) << ": " << e.what();
                    format.width *= 2;
                    format.height *= 2;
                }
            }
            const Clip clip = test::synthetic_clip(format, 9, 4);
            RunConfig config = raw_run(clip);
            const std::string what = fmt::format("{} {} {}", metric.name, test::option_label(values),
                                                 test::format_label(format));
            config.features = {{metric.name, values}};
            config.threads = 1;
            const RunResult one = run(config);
            ASSERT_EQ(one.frames, clip.frames()) << what;
            // Scores exactly when the metric has outputs ("null" has none and writes none).
            ASSERT_EQ(one.scores.names().empty(), metric.features.empty()) << what;
            for (const auto& name : one.scores.names()) EXPECT_EQ(one.scores.frames(name), clip.frames()) << what;
            config.threads = 3;
            EXPECT_TRUE(same_bits(one, run(config), what + ", 3 threads"));
        }
    }
}

}  // namespace
}  // namespace vmafx
