// The parity gate (src/parity) on the GPU: clean on random content of odd sizes at 8 to 16 bits
// and on the fixtures; and, judged per twin, each defect a twin declares, planted in it, makes
// the gate breach on that twin's own rows, while the same rows without the defect (the control)
// are clean. Which defects every twin must declare is checked without a device.
#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "parity/gate.hpp"
#include "feature/registry.hpp"
#include "parity/inputs.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

bool declares(const TwinDescriptor& twin, PlantedDefect d) {
    return std::find(twin.defects.begin(), twin.defects.end(), d) != twin.defects.end();
}

// Every twin can be shown to be guarded against a border mirror shifted by one and a rounding or
// summation-order change, and against a contraction into FMA unless it says why none can change
// a value (TwinDescriptor::why_no_contraction; then it plants none). Printed, for the log.
TEST(TwinDefects, EveryTwinDeclaresMirrorRoundingAndContraction) {
    if (twin_registry().empty()) GTEST_SKIP() << "skipped: no GPU backend is built (no twins)";
    for (const TwinDescriptor* twin : twin_registry()) {
        SCOPED_TRACE(std::string(twin->metric) + " (" + backend_of(*twin) + ")");
        std::string planted;
        for (const PlantedDefect d : twin->defects) planted += std::string(planted.empty() ? "" : ", ") + planted_defect_name(d);
        std::cout << "[ " << twin->metric << " (" << backend_of(*twin) << ") ] plants " << planted
                  << (twin->why_no_contraction ? std::string("; no contraction: ") + twin->why_no_contraction : "")
                  << "\n";
        EXPECT_TRUE(declares(*twin, PlantedDefect::kMirrorShift));
        EXPECT_TRUE(declares(*twin, PlantedDefect::kRoundingConstant) || declares(*twin, PlantedDefect::kReductionOrder));
        if (twin->why_no_contraction) {
            EXPECT_NE(std::string(twin->why_no_contraction), "");
            EXPECT_FALSE(declares(*twin, PlantedDefect::kContraction)) << "says why it plants no contraction, yet plants one";
        } else {
            EXPECT_TRUE(declares(*twin, PlantedDefect::kContraction)) << "plants no contraction and does not say why";
        }
    }
}

// The declared corners (OptionSpec::also_at, corner sets) become targeted cases, run only on the
// inputs made for their metric: adm's non-integer gain limit 1.2 is one; no range corner is
// targeted. Needs the CUDA backend built (its twins), not a device.
TEST(ParityGateCases, DeclaredCornersAreTargeted) {
    if (twin_registry("cuda").empty()) GTEST_SKIP() << "skipped: the CUDA backend is not built (no twins)";
    const TwinDescriptor* adm = find_twin("adm", "cuda");
    ASSERT_NE(adm, nullptr);
    const std::vector<ParityCase> cases = parity_cases("cuda", adm);
    // Labels: "adm " and the options' key ("name=%.17g;" per option set).
    const auto find = [&](const std::string& label) {
        return std::find_if(cases.begin(), cases.end(), [&](const ParityCase& c) { return c.label.starts_with(label); });
    };
    const auto limit = find("adm adm_enhn_gain_limit=1.2");
    ASSERT_NE(limit, cases.end());
    EXPECT_TRUE(limit->corner);
    EXPECT_TRUE(limit->targeted);
    const auto range = find("adm adm_enhn_gain_limit=1;");  // the range's minimum
    ASSERT_NE(range, cases.end());
    EXPECT_FALSE(range->targeted);
    EXPECT_FALSE(find("adm defaults")->targeted);
}

/// The parity gate over every twin of one built GPU backend (the parameter), in a temporary
/// folder for the generated inputs; skipped without a usable device of that backend.
class Backend : public test::TempDirTest, public testing::WithParamInterface<std::string> {
protected:
    void SetUp() override {
        VMAFX_REQUIRE_BACKEND(GetParam());
        TempDirTest::SetUp();
    }
};

std::vector<std::string> built_backends() {
    std::vector<std::string> out;
    for (const GpuBackendInfo& b : gpu_backends())
        if (b.built) out.push_back(b.name);
    return out;
}

// Random odd sizes at every bit depth, two of each (one in a sanitized build on a device emulated
// on the CPU: test::DeviceScale).
TEST_P(Backend, RandomOddSizesEveryBitDepth) {
    const unsigned per_depth = test::device_scale(GetParam()) == test::DeviceScale::kEmulatedSanitized ? 1 : 2;
    const auto rows = run_parity(random_inputs(dir_.string(), per_depth, 11), parity_cases(GetParam()));
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(count_breaches(rows), 0u) << format_parity_table(rows);
}

// Every fixture, every frame (on a device emulated on the CPU, the fixtures up to
// test::max_fixture_samples and their first kEmulatedFrames frames: lavapipe takes seconds a frame
// at 1080p, and path_576x324's 32 frames were half the run; a real GPU runs them all).
TEST_P(Backend, Fixtures) {
    VMAFX_REQUIRE_FIXTURES();
    constexpr unsigned kEmulatedFrames = 4;
    std::vector<ParityInput> inputs = fixture_inputs(test::fixtures_dir().string());
    if (const long most = test::max_fixture_samples(test::device_scale(GetParam())); most > 0) {
        std::erase_if(inputs, [most](const ParityInput& in) {
            return static_cast<long>(in.raw_format->width) * in.raw_format->height > most;
        });
        for (ParityInput& in : inputs) in.frames = kEmulatedFrames;
    }
    ASSERT_GE(inputs.size(), 3u);
    const auto rows = run_parity(inputs, parity_cases(GetParam()));
    std::cout << format_parity_table(rows);
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(count_breaches(rows), 0u);
}

INSTANTIATE_TEST_SUITE_P(ParityGate, Backend, testing::ValuesIn(built_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Backend);

std::vector<const TwinDescriptor*> twins() { return {twin_registry().begin(), twin_registry().end()}; }

class PlantedDefects : public test::TempDirTest, public testing::WithParamInterface<const TwinDescriptor*> {
protected:
    void SetUp() override {
        VMAFX_REQUIRE_BACKEND(backend_of(*GetParam()));
        TempDirTest::SetUp();
    }
};

// Each defect the twin declares, planted in it, breaches the gate on the twin's own cases
// (parity_cases(twin)) over small random inputs; the same inputs and cases without a defect give
// the same rows, none breached.
// In a sanitized build on a device emulated on the CPU (test::DeviceScale) it is skipped: a plant
// changes only shader code, which the Release build's run of this test has checked on the same
// device, and the gate's host code is checked there by ParityGate/Backend.*. On an emulated
// device (lavapipe runs adm about 100 times slower than the CPU) the random inputs are at most
// 97x97 and the banded ones are cambi's only: each plant acts on every size (an edge row, a
// rounding, an order of sums), so small inputs still show it.
TEST_P(PlantedDefects, EachDefectBreachesWhereTheControlIsClean) {
    const TwinDescriptor& twin = *GetParam();
    if (test::device_scale(backend_of(twin)) == test::DeviceScale::kEmulatedSanitized)
        GTEST_SKIP() << "skipped in a sanitized build on a device emulated on the CPU: the plants change only "
                        "shader code, which the Release build's tests run on the same device";
    ASSERT_FALSE(twin.defects.empty());
    // The small random inputs, each widened and heightened, where the metric's limits refuse its
    // size (cambi: 216 samples on the longer side), to the smallest size they accept; and the
    // small banded inputs, where cambi's values are not 0.
    const bool emulated = test::device_scale(backend_of(twin)) != test::DeviceScale::kFull;
    std::vector<ParityInput> inputs = random_inputs(dir_.string(), 1, 5, emulated ? 97 : 431);
    const FormatLimits& limits = metric_named(twin.metric).limits;
    for (ParityInput& in : inputs) {
        VideoFormat f = *in.raw_format;
        const auto [min_w, min_h] = limits.corners(f.subsampling).front();
        if (f.width >= min_w && f.height >= min_h && std::max(f.width, f.height) >= limits.min_longer_side) continue;
        f.width = std::max(f.width, min_w);
        f.height = std::max(f.height, min_h);
        const std::string base = (dir_ / fmt::format("widened_{}x{}_{}bit", f.width, f.height, f.bit_depth)).string();
        write_random_video(base + "_ref.yuv", f, 4, 5, 0);
        write_random_video(base + "_dist.yuv", f, 4, 1005, 3 << (f.bit_depth - 8));
        in = {fmt::format("random {}x{} {}-bit (widened for {})", f.width, f.height, f.bit_depth, twin.metric),
              base + "_ref.yuv", base + "_dist.yuv", f, true};
    }
    if (!emulated || std::string_view(twin.metric) == "cambi")
        for (ParityInput& in : banded_inputs(dir_.string())) inputs.push_back(std::move(in));
    const std::vector<ParityCase> cases = parity_cases(backend_of(twin), &twin);
    const std::vector<ParityRow> control = run_parity(inputs, cases, PlantedDefect::kNone);
    ASSERT_FALSE(control.empty());
    EXPECT_EQ(count_breaches(control), 0u) << "the control breaches:\n" << format_parity_table(control);
    for (const PlantedDefect defect : twin.defects) {
        SCOPED_TRACE(planted_defect_name(defect));
        const std::vector<ParityRow> planted = run_parity(inputs, cases, defect);
        EXPECT_GT(count_breaches(planted), 0u) << "the gate did not catch the planted "
                                               << planted_defect_name(defect) << ":\n"
                                               << format_parity_table(planted);
        ASSERT_EQ(planted.size(), control.size()) << "the planted run has other rows than the control";
        for (std::size_t i = 0; i < planted.size(); ++i) {
            EXPECT_EQ(planted[i].metric, control[i].metric) << "row " << i;
            EXPECT_EQ(planted[i].input, control[i].input) << "row " << i;
            EXPECT_EQ(planted[i].case_label, control[i].case_label) << "row " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, PlantedDefects, testing::ValuesIn(twins()), test::twin_param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PlantedDefects);

}  // namespace
}  // namespace vmafx
