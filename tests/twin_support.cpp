#include "twin_support.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tbb/parallel_for.h>

#include "gpu/device_api.hpp"
#include "gpu/scheduler.hpp"
#include "model/builtin_models.hpp"
#include "model/model.hpp"
#include "feature/registry.hpp"
#include "test_support.hpp"

namespace vmafx::test {

ScoreTable run_cpu(const MetricDescriptor& metric, const Options& options, const Clip& clip) {
    const auto extractor = metric.make_extractor(options, clip.format);
    const History history = metric.history_for(options);
    std::vector<FrameScores> scores(clip.frames());
    tbb::parallel_for(0u, clip.frames(), [&](unsigned i) {
        FrameInput in;
        in.index = i;
        in.ref = &clip.ref[i];
        in.dist = &clip.dist[i];
        for (unsigned k = 0; k < history.refs && k < i; ++k) in.prev_ref[k] = &clip.ref[i - 1 - k];
        for (unsigned k = 0; k < history.dists && k < i; ++k) in.prev_dist[k] = &clip.dist[i - 1 - k];
        extractor->extract(in, scores[i]);
    });
    ScoreTable table;
    for (unsigned i = 0; i < clip.frames(); ++i)
        for (const auto& [name, value] : scores[i]) table.set(name, i, value);
    extractor->flush(table);
    return table;
}

ScoreTable run_constant(const MetricDescriptor& metric, const Options& options,
                        const std::vector<std::uint32_t>& values, VideoFormat format) {
    Clip clip{format, {}, {}};
    for (const std::uint32_t v : values) clip.ref.push_back(constant_picture(format, v));
    clip.dist = clip.ref;
    return run_cpu(metric, options, clip);
}

std::vector<double> column(const ScoreTable& table, const std::string& name, unsigned count) {
    std::vector<double> out;
    for (unsigned i = 0; i < count; ++i) out.push_back(value(table, name, i));
    return out;
}

double value(const ScoreTable& table, const std::string& name, unsigned frame) {
    const auto v = table.get(name, frame);
    EXPECT_TRUE(v.has_value()) << name << " missing at frame " << frame;
    return v.value_or(-1.0);
}

ScoreTable run_gpu(const MetricDescriptor& metric, const Options& options, const Clip& clip, unsigned slots,
                   PlantedDefect plant, const std::string& backend) {
    GpuScorer scorer({FeatureInstance{&metric, options}}, clip.format, backend, slots, 1, plant);
    for (unsigned i = 0; i < clip.frames(); ++i) scorer.submit(i, clip.ref[i], clip.dist[i]);
    return scorer.drain();
}

int count_differences(const ScoreTable& want, const ScoreTable& got, const std::string& what, double bound,
                      bool report) {
    auto want_names = want.names(), got_names = got.names();
    std::sort(want_names.begin(), want_names.end());
    std::sort(got_names.begin(), got_names.end());
    if (report) {
        EXPECT_EQ(want_names, got_names) << what << ": other outputs than the CPU's";
    }
    int differences = want_names == got_names ? 0 : 1;
    for (const auto& name : want_names) {
        const unsigned frames = std::max(want.frames(name), got.frames(name));
        for (unsigned i = 0; i < frames; ++i) {
            const auto w = want.get(name, i), g = got.get(name, i);
            bool same = w.has_value() == g.has_value();
            if (same && w) {
                same = bound == 0.0 ? std::bit_cast<std::uint64_t>(*w) == std::bit_cast<std::uint64_t>(*g)
                                    : std::fabs(*w - *g) <= bound;
            }
            if (!same && ++differences <= 8 && report)
                ADD_FAILURE() << what << " frame " << i << " " << name << ": "
                              << (g ? fmt::format("{:.17g}", *g) : "(none)") << ", CPU "
                              << (w ? fmt::format("{:.17g}", *w) : "(none)")
                              << (bound == 0.0 ? std::string(" (exact)") : fmt::format(" (bound {:.3g})", bound));
        }
    }
    return differences;
}

DeviceScale device_scale(const std::string& backend) {
    if (!device_api(backend)->device_info().emulated) return DeviceScale::kFull;
    return kSanitized ? DeviceScale::kEmulatedSanitized : DeviceScale::kEmulated;
}

long max_fixture_samples(DeviceScale scale) {
    switch (scale) {
        case DeviceScale::kFull: return 0;
        case DeviceScale::kEmulated: return 960L * 540;
        case DeviceScale::kEmulatedSanitized: return 853L * 481;
    }
    return 0;
}

std::string twin_param_name(const testing::TestParamInfo<const TwinDescriptor*>& info) {
    return std::string(info.param->metric) + "_" + backend_of(*info.param);
}

bool expect_twin_matches_cpu(const MetricDescriptor& metric, const OptionValues& values, const Clip& clip,
                             unsigned slots, const std::string& backend) {
    const TwinDescriptor* twin = find_twin(metric.name, backend);
    const std::string what = fmt::format("{} ({}) {} {}, {} frames, {} slots", metric.name, backend_label(backend),
                                         option_label(values), format_label(clip.format), clip.frames(), slots);
    if (!twin) {
        ADD_FAILURE() << what << ": no twin";
        return false;
    }
    const Options options = metric.parse_options(values);
    ScoreTable cpu;
    try {
        cpu = run_cpu(metric, options, clip);
    } catch (const Error& e) {
        EXPECT_THROW(run_gpu(metric, options, clip, slots, PlantedDefect::kNone, backend), Error)
            << what << ": the CPU refuses (" << e.what() << "), the twin does not";
        return false;
    }
    const ScoreTable gpu = run_gpu(metric, options, clip, slots, PlantedDefect::kNone, backend);
    EXPECT_FALSE(cpu.names().empty()) << what;
    for (const auto& name : cpu.names()) EXPECT_EQ(cpu.frames(name), clip.frames()) << what << " " << name;
    EXPECT_EQ(count_differences(cpu, gpu, what, twin->contract.bound(clip.format)), 0) << what;
    return true;
}

namespace {

/// The (metric, options) requests of a built-in model (Model::required_features()).
std::vector<FeatureRequest> requests_of(const BuiltinModel& builtin) {
    return Model(parse_model_spec(std::string("version=") + builtin.version)).required_features();
}

}  // namespace

std::vector<OptionValues> model_option_sets(const MetricDescriptor& metric) {
    std::vector<OptionValues> sets = {{}};
    std::vector<std::string> keys = {""};  // the defaults
    for (const BuiltinModel& builtin : builtin_models())
        for (const FeatureRequest& r : requests_of(builtin)) {
            if (r.metric != &metric) continue;
            const std::string key = metric.parse_options(r.options).key();
            if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
            keys.push_back(key);
            sets.push_back(r.options);
        }
    return sets;
}

std::string option_label(const OptionValues& values) {
    std::string label;
    for (const auto& [name, value] : values) label += (label.empty() ? "" : ":") + name + "=" + value;
    return label.empty() ? "defaults" : label;
}

}  // namespace vmafx::test
