// The skips for missing fixtures, golden files and ../shared (tests/test_support.hpp): each names
// what is missing and where it was looked for, and VMAFX_TESTS_STRICT=1 turns the skip into a
// failure with the same words.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <gtest/gtest-spi.h>

#include "test_support.hpp"

namespace vmafx {
namespace {

using test::ScopedEnv;

constexpr const char* kAbsent = "no_such_fixture_64x36_420p8";

void require_absent_fixture() { VMAFX_SKIP_IF_MISSING(test::missing_fixture(kAbsent)); }

TEST(TestSkips, MissingFixtureNamesItAndWhere) {
    const ScopedEnv fixtures("VMAFX_FIXTURES", "/nonexistent/fixtures");
    const std::string m = test::missing_fixture(kAbsent);
    EXPECT_NE(m.find(kAbsent), std::string::npos) << m;
    EXPECT_NE(m.find("/nonexistent/fixtures"), std::string::npos) << m;
    EXPECT_NE(test::missing_fixtures().find("/nonexistent/fixtures"), std::string::npos);
}

TEST(TestSkips, MissingGoldenNamesTheFile) {
    const ScopedEnv shared("VMAFX_SHARED", "/nonexistent/shared");
    EXPECT_NE(test::missing_shared().find("/nonexistent/shared"), std::string::npos);
    const std::string m = test::missing_golden(kAbsent);
    EXPECT_NE(m.find(std::string(kAbsent) + ".json"), std::string::npos) << m;
    EXPECT_NE(m.find("/nonexistent/shared"), std::string::npos) << m;
}

// The helpers that read a fixture or golden file throw with the same words, never a bare
// "unknown file" exception.
TEST(TestSkips, ReadersOfAnAbsentFixtureSayWhich) {
    try {
        (void)test::fixture_format(kAbsent);
        ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(kAbsent), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("fixture.ini"), std::string::npos) << e.what();
    }
    if (!test::shared_dir().empty()) {
        try {
            (void)test::golden_file(kAbsent);
            ADD_FAILURE() << "no exception";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(std::string(kAbsent) + ".json"), std::string::npos) << e.what();
        }
    }
}

TEST(TestSkips, StrictModeFailsWhereItWouldSkip) {
    const ScopedEnv env("VMAFX_TESTS_STRICT", "1");
    ASSERT_TRUE(test::strict());
    EXPECT_FATAL_FAILURE(require_absent_fixture(), "no_such_fixture_64x36_420p8 absent");
}

TEST(TestSkips, StrictOnlyForOne) {
    {
        const ScopedEnv env("VMAFX_TESTS_STRICT", "0");
        EXPECT_FALSE(test::strict());
    }
    const ScopedEnv env("VMAFX_TESTS_STRICT", "1");
    EXPECT_TRUE(test::strict());
}

}  // namespace
}  // namespace vmafx
