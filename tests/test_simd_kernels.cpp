// Checkasm-style test of every SIMD kernel (docs/design.md, "SIMD convention"): each kernel's
// dispatched entry, run on every Highway target that is compiled in and that this CPU supports
// (hwy::SetSupportedTargetsForTest narrows the dispatch to one target at a time), against its
// scalar reference, bit for bit, on random planes at 8, 10, 12 and 16 bits, every width from the
// kernel's smallest to 70 and some larger ones, odd heights, with the mirrored borders the frame
// drivers give, and edge values (extremes, zeros, the thresholds the arithmetic branches on).
// VIF's kernels may read 32 samples past a row: their rows carry that much random junk. The
// others may read nothing past a row: theirs are allocated to the row's exact length, so
// AddressSanitizer (the sanitizer build of this test) sees any read beyond it.
//
// Adding a kernel: beside its code, in src/feature/<metric>/<metric>_simd_test.cpp, a check that
// runs the scalar reference and the dispatched entry on the same input and compares every output,
// registered with VMAFX_SIMD_KERNELS (its name, the probe saying which target its file dispatches
// to, the check: tests/simd_kernels.hpp); plant a defect once to see the row fail.
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include "simd_kernels.hpp"

namespace vmafx {

std::vector<simd_test::Kernel>& simd_test::kernels() {
    static std::vector<Kernel> all;
    return all;
}

namespace {

using simd_test::Kernel;
using simd_test::kernels;

// ---------------------------------------------------------------------------------------------
// One test per (target, kernel).

/// Every target compiled in and supported by this CPU (before any narrowing).
const std::vector<int64_t>& targets() {
    static const std::vector<int64_t> all = hwy::SupportedAndGeneratedTargets();
    return all;
}

class SimdKernels : public ::testing::TestWithParam<std::tuple<int64_t, int>> {
protected:
    void SetUp() override {
        targets();  // listed before narrowing
        hwy::SetSupportedTargetsForTest(std::get<0>(GetParam()));
        hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    }
    void TearDown() override {
        hwy::SetSupportedTargetsForTest(0);
        hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    }
};

TEST_P(SimdKernels, MatchesScalarReference) {
    const auto [target, index] = GetParam();
    const Kernel& kernel = kernels()[index];
    // The dispatch must reach the target under test, or the test would compare another one.
    ASSERT_EQ(kernel.target(), target) << "dispatched to " << hwy::TargetName(kernel.target()) << ", not "
                                       << hwy::TargetName(target);
    kernel.check();
}

INSTANTIATE_TEST_SUITE_P(AllTargets, SimdKernels,
                         ::testing::Combine(::testing::ValuesIn(targets()),
                                            ::testing::Range(0, static_cast<int>(kernels().size()))),
                         [](const ::testing::TestParamInfo<SimdKernels::ParamType>& info) {
                             return std::string(hwy::TargetName(std::get<0>(info.param))) + "_" +
                                    kernels()[std::get<1>(info.param)].name;
                         });

// The table covers every target of this build that the CPU runs; a build where only the
// scalar reference would run tests nothing and says so.
TEST(SimdKernelsTargets, SomeTargetRuns) {
    ASSERT_FALSE(targets().empty());
    std::string names;
    for (const int64_t t : targets()) names += std::string(" ") + hwy::TargetName(t);
    RecordProperty("targets", names);
    std::printf("targets compiled in and supported here:%s\n", names.c_str());
}

// Every metric's rows registered (VMAFX_SIMD_KERNELS beside its kernels), each name once.
TEST(SimdKernelsTargets, RowsRegisteredOnce) {
    std::set<std::string> names, groups;
    for (const Kernel& k : kernels()) {
        EXPECT_TRUE(names.insert(k.name).second) << "two rows named " << k.name;
        const std::string name = k.name;
        for (const char* g : {"vif_", "adm_", "motion_", "float_convolve_", "speed_", "float_adm_", "cambi_"})
            if (name.rfind(g, 0) == 0) groups.insert(g);
    }
    EXPECT_EQ(groups.size(), 7u) << "a metric's kernel rows are not linked in";
}

}  // namespace
}  // namespace vmafx
