// Helpers shared by the tests: where ../shared and the unpacked fixtures are, raw frames of
// a fixture, and its golden values.
#pragma once

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cuda/gpu_scorer.hpp"
#include "picture/picture.hpp"

namespace vmafx::test {

/// ../shared beside the checkout (or $VMAFX_SHARED); empty when absent.
std::filesystem::path shared_dir();
/// The unpacked fixtures ($VMAFX_FIXTURES, else <checkout>/.fixtures); empty when absent.
std::filesystem::path fixtures_dir();
/// Format of fixture `name` (from its fixture.ini).
VideoFormat fixture_format(const std::string& name);
/// Frame `index` of fixture `name`'s "ref" or "dist" raw .yuv file.
Picture fixture_frame(const std::string& name, const std::string& which, unsigned index);
/// Number of frames in fixture `name`.
unsigned fixture_frames(const std::string& name);
/// The golden result of fixture `name` (shared/golden/NAME.json, key "result").
nlohmann::json golden(const std::string& name);
/// All fixture names that have a golden file.
std::vector<std::string> golden_fixtures();

}  // namespace vmafx::test

/// Skips the current test, saying why, when ../shared or the unpacked fixtures are absent.
#define VMAFX_REQUIRE_FIXTURES()                                                                 \
    do {                                                                                         \
        if (vmafx::test::shared_dir().empty())                                                   \
            GTEST_SKIP() << "skipped: ../shared (golden values, fixtures) is absent";            \
        if (vmafx::test::fixtures_dir().empty())                                                 \
            GTEST_SKIP() << "skipped: fixtures not unpacked (run ../shared/fixtures/prepare.py " \
                            "--out .fixtures --y4m)";                                            \
    } while (0)

/// Skips the current test, saying why, when no CUDA device can be used (or the CUDA backend
/// is not built).
#define VMAFX_REQUIRE_GPU()                                                                      \
    do {                                                                                         \
        const std::string why = vmafx::gpu_unavailable_reason();                                \
        if (!why.empty()) GTEST_SKIP() << "skipped: no usable CUDA device: " << why;             \
    } while (0)
