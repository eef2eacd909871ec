// Helpers shared by the tests: where ../shared and the unpacked fixtures are, raw frames of
// a fixture, its golden values, and the skips for absent fixtures or GPU.
#pragma once

#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "engine/gpu_scorer.hpp"
#include "picture/picture.hpp"
#include "pictures.hpp"

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
/// The first `max_frames` frames (at most) of fixture `name`'s ref and dist .yuv files.
Clip fixture_clip(const std::string& name, unsigned max_frames = ~0u);
/// The golden result of fixture `name` (shared/golden/NAME.json, key "result").
nlohmann::json golden(const std::string& name);
/// The whole golden file of fixture `name` (command, refused, not_compared, result).
nlohmann::json golden_file(const std::string& name);
/// Whether upstream refused metric `metric` (its extractor name) on fixture `fixture`.
bool golden_refuses(const std::string& fixture, const std::string& metric);
/// Whether the golden file leaves some outputs of `metric` out ("not_compared", e.g. the chroma
/// outputs on the odd-size 4:2:0 fixture, which upstream cannot read).
bool golden_leaves_out(const std::string& fixture, const std::string& metric);
/// All fixture names that have a golden file, sorted; in sanitized builds (ten to twenty times
/// slower) those up to 1280x720 only, which hold every bit depth and subsampling.
std::vector<std::string> golden_fixtures();
/// The message of the vmafx::Error `fn` throws; a test failure (and "") when it throws none.
std::string error_of(const std::function<void()>& fn);
/// Expects `fn` to throw a vmafx::Error whose message contains every one of `parts`.
void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts);

/// Base of the tests that write files: a fresh temporary folder per test, named after the
/// process and the test, removed after it.
class TempDirTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;
    /// `name` in the folder.
    std::filesystem::path path(const std::string& name) const { return dir_ / name; }
    /// Writes `bytes` to file `name` in the folder; returns its path.
    std::string write(const std::string& name, const std::string& bytes) const;
    /// A run of the engine without models over `clip`, written as raw files ref.yuv and
    /// dist.yuv in the folder (no features yet).
    RunConfig raw_run(const Clip& clip) const;

    std::filesystem::path dir_;
};

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
