// The parity gate on the GPU: every twin passes on random content of odd sizes at 8 to 16 bits
// and on the fixtures, and each planted regression makes the gate fail. Needs a GPU.
#include <filesystem>

#include <gtest/gtest.h>

#include "engine/parity.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

namespace fs = std::filesystem;

class ParityGate : public ::testing::Test {
protected:
    void SetUp() override {
        if (const auto why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "skipped: no usable GPU: " << why;
        dir_ = fs::temp_directory_path() / ("vmafx_parity_" + std::to_string(::getpid()));
    }
    void TearDown() override {
        set_planted_defect(PlantedDefect::kNone);
        if (!dir_.empty()) fs::remove_all(dir_);
    }
    static unsigned breaches(const std::vector<ParityRow>& rows) {
        unsigned n = 0;
        for (const auto& r : rows) n += r.breach;
        return n;
    }
    fs::path dir_;
};

TEST_F(ParityGate, RandomOddSizesEveryBitDepth) {
    const auto rows = run_parity(random_inputs(dir_.string(), 2, 11));
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(breaches(rows), 0u) << format_parity_table(rows);
}

TEST_F(ParityGate, Fixtures) {
    if (test::fixtures_dir().empty()) GTEST_SKIP() << "skipped: fixtures not unpacked";
    const auto rows = run_parity(fixture_inputs(test::fixtures_dir().string()));
    std::cout << format_parity_table(rows);
    EXPECT_EQ(breaches(rows), 0u);
}

class PlantedRegression : public ParityGate, public ::testing::WithParamInterface<PlantedDefect> {};

TEST_P(PlantedRegression, GateFails) {
    const auto inputs = random_inputs(dir_.string(), 1, 5);
    set_planted_defect(GetParam());
    const auto rows = run_parity(inputs);
    set_planted_defect(PlantedDefect::kNone);
    EXPECT_GT(breaches(rows), 0u) << "the gate did not catch the planted defect:\n" << format_parity_table(rows);
}

INSTANTIATE_TEST_SUITE_P(Defects, PlantedRegression,
                         ::testing::Values(PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant,
                                           PlantedDefect::kReductionOrder, PlantedDefect::kContraction),
                         [](const auto& info) {
                             switch (info.param) {
                             case PlantedDefect::kMirrorShift: return std::string("MirrorShift");
                             case PlantedDefect::kRoundingConstant: return std::string("RoundingConstant");
                             case PlantedDefect::kReductionOrder: return std::string("ReductionOrder");
                             case PlantedDefect::kContraction: return std::string("Contraction");
                             default: return std::string("None");
                             }
                         });

}  // namespace
}  // namespace vmafx
