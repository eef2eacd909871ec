// Registry-driven suites of the GPU twins: for every twin of twin_registry(), the CPU extractor
// and the twin (through the GPU pipeline) over the same synthetic clips and fixtures give every
// value within the twin's contract, bit for bit where it is exact: sizes down to the metric's
// smallest (its descriptor's limits) and odd ones, bit depths 8, 10, 12 and 16, every
// subsampling, the option sets of the built-in models, every option at its corners (the parity
// gate's cases), short videos, and several frames in flight, on every backend the build has
// (Registry/Twin.*/METRIC_BACKEND: psnr_cuda, psnr_vulkan, ...). The twin-registry test needs no
// device; the others skip, saying why, where the twin's backend has no usable device (Vulkan
// under VMAFX_REQUIRE_VULKAN=1 fails instead: lavapipe runs them in CI). A metric's own
// *_cuda_test.cpp keeps only what is special to its arithmetic.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/registry.hpp"
#include "gpu/device_api.hpp"
#include "gpu/twin.hpp"
#include "parity/gate.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using test::Clip;
using test::DeviceScale;
using test::device_scale;
using test::max_fixture_samples;
using test::expect_twin_matches_cpu;
using test::synthetic_clip;

constexpr Subsampling kSubsamplings[] = {Subsampling::k420, Subsampling::k422, Subsampling::k444};

/// Whether limits `l` accept a w x h picture at subsampling `s` (sizes only).
bool accepts(const FormatLimits& l, Subsampling s, int w, int h) {
    const auto [min_w, min_h] = l.smallest(s);
    return w >= min_w && h >= min_h && std::max(w, h) >= l.min_longer_side;
}

/// Sizes of a sweep for a metric of limits `l` at subsampling `s`: each smallest size it accepts
/// there (FormatLimits::corners: the chroma minimum and the longer side's included), one more
/// column, one more row, odd ones near it, and odd ones of a few hundred samples (widened to the
/// longer side's minimum where they fall below it): 77x41, 253x131 and 853x481. On a device
/// emulated on the CPU (test::DeviceScale) the largest becomes 301x157, which still spans two
/// 256-wide workgroups; in a sanitized build there, the sweep stops at 77x41.
std::vector<std::pair<int, int>> sweep_sizes(const FormatLimits& l, Subsampling s,
                                             DeviceScale scale = DeviceScale::kFull) {
    std::vector<std::pair<int, int>> sizes;
    for (const auto& [w, h] : l.corners(s))
        for (const auto& [dw, dh] : {std::pair{0, 0}, std::pair{1, 0}, std::pair{0, 1}, std::pair{2, 3}})
            sizes.push_back({w + dw, h + dh});
    const auto [w, h] = l.smallest(s);
    std::vector<std::pair<int, int>> odd = {{77, 41}, {253, 131}, {853, 481}};
    if (scale == DeviceScale::kEmulated) odd.back() = {301, 157};
    if (scale == DeviceScale::kEmulatedSanitized) odd.resize(1);
    for (const auto& [sw, sh] : odd) {
        std::pair<int, int> size{std::max(w, sw), std::max(h, sh)};
        if (!accepts(l, s, size.first, size.second)) size.first = std::max(size.first, l.min_longer_side);
        sizes.push_back(size);
    }
    std::vector<std::pair<int, int>> unique;
    for (const auto& size : sizes)
        if (std::find(unique.begin(), unique.end(), size) == unique.end()) unique.push_back(size);
    return unique;
}

/// sweep_sizes of metric `m` under `options` at `s`, each grown (both sides, one sample at a
/// time) to the first size the metric's check accepts at `bits`: the limits are a floor, and a
/// refusal hook may ask more (speed_chroma below speed_prescale 1 refuses chroma planes that
/// scale below 80 samples). Fails the test where no size up to 2048 more is accepted.
std::vector<std::pair<int, int>> sweep_sizes(const MetricDescriptor& m, const Options& options, Subsampling s,
                                             int bits, DeviceScale scale) {
    std::vector<std::pair<int, int>> out;
    for (auto [w, h] : sweep_sizes(m.limits_under(options), s, scale)) {
        bool accepted = false;
        for (int grown = 0; grown <= 2048 && !accepted; ++grown, ++w, ++h) {
            try {
                m.check(options, {w, h, bits, s});
                accepted = true;
                if (std::find(out.begin(), out.end(), std::pair{w, h}) == out.end()) out.push_back({w, h});
            } catch (const Error&) {
            }
        }
        if (!accepted) ADD_FAILURE() << m.name << ": no size near the sweep's accepted at " << subsampling_name(s);
    }
    return out;
}

/// The bit depths 8, 10, 12 and 16 that `l` accepts.
std::vector<int> sweep_depths(const FormatLimits& l) {
    std::vector<int> out;
    for (const int bits : {8, 10, 12, 16})
        if (l.bit_depths.has(bits)) out.push_back(bits);
    return out;
}

// ---------------------------------------------------------------------------------------------
// The registry, no device needed.

// Every twin twins a registered metric, states its contract (a bound >= 0 at every format of a
// sweep, with its derivation) and plants only real defects, each once; 0 result slots are
// refused before any device work.
TEST(TwinRegistry, EveryTwinStatesItsMetricContractAndDefects) {
    bool built = false;
    for (const GpuBackendInfo& b : gpu_backends()) {
        built = built || b.built;
        EXPECT_EQ(twin_registry(b.name).empty(), !b.built) << b.name;
    }
    if (!built) {
        EXPECT_TRUE(twin_registry().empty()) << "no GPU backend is built, yet a twin is registered";
        GTEST_SKIP() << "skipped: no GPU backend is built (no twins)";
    }
    ASSERT_FALSE(twin_registry().empty());
    for (const TwinDescriptor* twin : twin_registry()) {
        const char* backend = backend_of(*twin);
        ASSERT_NE(backend, nullptr);
        SCOPED_TRACE(std::string(twin->metric) + " (" + backend + ")");
        const MetricDescriptor* metric = find_metric(twin->metric);
        ASSERT_NE(metric, nullptr) << "a twin of no registered metric";
        EXPECT_EQ(find_twin(twin->metric, backend), twin);
        ASSERT_NE(find_gpu_backend(backend), nullptr);
        EXPECT_TRUE(find_gpu_backend(backend)->built);
        EXPECT_EQ(find_twin(twin->metric, kCpuBackend), nullptr);
        EXPECT_NE(std::string(twin->contract.derivation), "");
        for (const Subsampling s : kSubsamplings)
            for (const auto& [w, h] : sweep_sizes(metric->limits, s))
                for (const int bits : sweep_depths(metric->limits)) {
                    const double bound = twin->contract.bound({w, h, bits, s});
                    EXPECT_TRUE(std::isfinite(bound) && bound >= 0.0) << bound;
                }
        std::vector<PlantedDefect> seen;
        for (const PlantedDefect d : twin->defects) {
            EXPECT_NE(d, PlantedDefect::kNone);
            EXPECT_EQ(std::count(seen.begin(), seen.end(), d), 0) << planted_defect_name(d) << " declared twice";
            seen.push_back(d);
        }
        const auto [min_w, min_h] = metric->limits.corners(Subsampling::k420).front();
        const VideoFormat smallest{min_w, min_h, 8, Subsampling::k420};
        EXPECT_THROW(twin->create(metric->parse_options({}), smallest, 0, PlantedDefect::kNone), Error);
    }
}

// ---------------------------------------------------------------------------------------------
// Twin against CPU, on a device.

std::vector<const TwinDescriptor*> twins() { return {twin_registry().begin(), twin_registry().end()}; }

class Twin : public testing::TestWithParam<const TwinDescriptor*> {
protected:
    void SetUp() override { VMAFX_REQUIRE_BACKEND(backend()); }
    const MetricDescriptor& metric() const { return metric_named(GetParam()->metric); }
    std::string backend() const { return backend_of(*GetParam()); }
    bool matches(const OptionValues& values, const Clip& clip, unsigned slots) const {
        return expect_twin_matches_cpu(metric(), values, clip, slots, backend());
    }
    /// How much picture the backend's device gets (test::DeviceScale: smaller on a device
    /// emulated on the CPU, smaller still there in a sanitized build).
    DeviceScale scale() const { return device_scale(backend()); }
};

INSTANTIATE_TEST_SUITE_P(Registry, Twin, testing::ValuesIn(twins()), test::twin_param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Twin);

// Every size of the sweep (down to the metric's smallest, odd ones), bit depth and subsampling,
// with the default options and the models' option sets, 1 to 3 frames in flight.
TEST_P(Twin, SizesBitDepthsAndSubsamplings) {
    const MetricDescriptor& m = metric();
    unsigned compared = 0, run = 0;
    for (const OptionValues& values : test::model_option_sets(m)) {
        const Options options = m.parse_options(values);  // e.g. speed_chroma's prescale
        for (const Subsampling s : kSubsamplings)
            for (const int bits : sweep_depths(m.limits_under(options)))
                for (const auto& [w, h] : sweep_sizes(m, options, s, bits, scale())) {
                    const Clip clip = synthetic_clip({w, h, bits, s}, 6, 1);
                    compared += matches(values, clip, 1 + run++ % 3);
                }
    }
    EXPECT_EQ(compared, run) << "the CPU refused some of the sweep's runs";
}

// Every option at its corners and the models' option sets, as the parity gate derives them from
// the descriptor (parity_cases), at three formats; option values the CPU refuses, the twin
// refuses too. In a sanitized build on a device emulated on the CPU each case runs at one of the
// formats, in turn (every case once, a third of the runs: the Release build's tests have run
// every case at every format).
TEST_P(Twin, EveryOptionCorner) {
    const MetricDescriptor& m = metric();
    const FormatLimits& l = m.limits;
    const auto [w420, h420] = l.corners(Subsampling::k420).front();
    const auto [w422, h422] = l.corners(Subsampling::k422).front();
    const auto [w444, h444] = l.corners(Subsampling::k444).front();
    const VideoFormat formats[] = {{w420 + 2, h420 + 1, 8, Subsampling::k420},
                                   {std::max(w422, 131), std::max(h422, 67), 10, Subsampling::k422},
                                   {std::max(w444, 97), std::max(h444, 45), 16, Subsampling::k444}};
    const std::vector<ParityCase> cases = parity_cases(backend(), GetParam());
    ASSERT_FALSE(cases.empty());
    const bool in_turn = scale() == DeviceScale::kEmulatedSanitized;
    unsigned compared = 0;
    for (std::size_t f = 0; f < std::size(formats); ++f) {
        const Clip clip = synthetic_clip(formats[f], 6, 2);
        for (std::size_t i = 0; i < cases.size(); ++i) {
            if (in_turn && i % std::size(formats) != f) continue;
            ASSERT_EQ(cases[i].config.features.size(), 1u) << cases[i].label;
            compared += matches(cases[i].config.features[0].options, clip, 2);
        }
    }
    EXPECT_GT(compared, 0u);
}

// Videos of 1, 2 and 3 frames (the edges of the previous pictures a metric keeps), with the
// defaults and each bool option whose flip changes the previous pictures the metric reads.
TEST_P(Twin, ShortVideos) {
    const MetricDescriptor& m = metric();
    std::vector<OptionValues> sets = {{}};
    for (const OptionSpec& o : m.options) {
        if (o.type != OptionType::kBool) continue;
        const OptionValues flipped = {{o.name, o.default_value != 0.0 ? "false" : "true"}};
        const History h = m.history_for(m.parse_options(flipped)), d = m.history_for(m.parse_options({}));
        if (h.refs != d.refs || h.dists != d.dists) sets.push_back(flipped);
    }
    const auto [min_w, min_h] = m.limits.corners(Subsampling::k420).front();
    const std::pair<int, int> large = scale() == DeviceScale::kFull ? std::pair{853, 481} : std::pair{301, 157};
    for (const auto& [w, h] : {std::pair{min_w, min_h}, large})
        for (const int bits : {m.limits.bit_depths.lowest(), m.limits.bit_depths.highest()})
            for (unsigned frames = 1; frames <= 3; ++frames) {
                const Clip clip = synthetic_clip({std::max(w, min_w), std::max(h, min_h), bits, Subsampling::k420},
                                                 frames, 3);
                for (const OptionValues& values : sets) EXPECT_TRUE(matches(values, clip, 2));
            }
}

// Real video: the first frames of every fixture, with the defaults and the models' option sets
// (on a device emulated on the CPU, the fixtures up to 960x540: 8-bit 4:2:0, the odd size and
// 12-bit 4:4:4, up to 853x481 in a sanitized build; the sweep covers the other formats there).
TEST_P(Twin, Fixtures) {
    VMAFX_REQUIRE_GOLDEN_FIXTURES();
    const MetricDescriptor& m = metric();
    unsigned compared = 0;
    for (const std::string& fixture : test::golden_fixtures()) {
        const Clip clip = test::fixture_clip(fixture, 4);
        const long most = max_fixture_samples(scale());
        if (most > 0 && static_cast<long>(clip.format.width) * clip.format.height > most) continue;
        for (const OptionValues& values : test::model_option_sets(m)) matches(values, clip, 3);
        ++compared;
    }
    EXPECT_GE(compared, 3u);
}

// A large odd picture (577x323 on a device emulated on the CPU, 211x119 there in a sanitized
// build, each side grown to the metric's smallest: float_ms_ssim's five scales need 176),
// several frames in flight: the same values on every run, whatever the number of result slots.
TEST_P(Twin, RepeatedRunsEverySlotCount) {
    VideoFormat format = scale() == DeviceScale::kFull       ? VideoFormat{1921, 1079, 10, Subsampling::k420}
                         : scale() == DeviceScale::kEmulated ? VideoFormat{577, 323, 10, Subsampling::k420}
                                                             : VideoFormat{211, 119, 10, Subsampling::k420};
    const auto [min_w, min_h] = metric().limits.smallest(format.subsampling);
    format.width = std::max(format.width, min_w);
    format.height = std::max(format.height, min_h);
    format.width = std::max(format.width, metric().limits.min_longer_side);
    const Clip clip = synthetic_clip(format, 12, 21);
    for (int run = 0; run < 2; ++run)
        for (const unsigned slots : {1u, 2u, 4u, 7u}) EXPECT_TRUE(matches({}, clip, slots));
}

// The twin's work recorded into one graph a frame (VMAFX_GPU_GRAPHS=1), not enqueued directly as
// the other suites run it: the CPU's values too, a large odd picture and a small one, several
// frames in flight. Skipped on a backend that records no graphs (Vulkan).
TEST_P(Twin, RecordedAsGraphs) {
    const DeviceApi* api = device_api(backend());
    if (!api || !api->create_graph) GTEST_SKIP() << "the " << backend() << " backend records no graphs";
    const test::ScopedEnv recorded("VMAFX_GPU_GRAPHS", "1");
    const MetricDescriptor& m = metric();
    const auto [min_w, min_h] = m.limits.corners(Subsampling::k420).front();
    const std::pair<int, int> large = scale() == DeviceScale::kFull ? std::pair{853, 481} : std::pair{301, 157};
    for (const auto& [w, h] : {std::pair{min_w + 1, min_h + 1}, large}) {
        const int width = std::max({w, min_w, m.limits.min_longer_side}), height = std::max(h, min_h);
        EXPECT_TRUE(matches({}, synthetic_clip({width, height, 8, Subsampling::k420}, 7, 5), 3));
    }
}

}  // namespace
}  // namespace vmafx
