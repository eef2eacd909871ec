// Helpers shared by the tests: where ../shared and the unpacked fixtures are, raw frames of
// a fixture, its golden values, and the skips for absent fixtures or GPU.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "gpu/scheduler.hpp"
#include "picture/picture.hpp"
#include "pictures.hpp"

namespace vmafx::test {

/// ../shared beside the checkout (or $VMAFX_SHARED); empty when absent.
std::filesystem::path shared_dir();
/// The unpacked fixtures ($VMAFX_FIXTURES, else <checkout>/.fixtures); empty when absent.
std::filesystem::path fixtures_dir();
/// Whether VMAFX_TESTS_STRICT=1 (scripts/run_tests.sh, hence CI, sets it when ../shared is
/// present): a missing fixture, golden file or ../shared then fails the test that needs it
/// instead of skipping it (VMAFX_SKIP_IF_MISSING). Read from the environment at each call.
bool strict();
/// "" when ../shared is present; else what is absent and where it was looked for.
std::string missing_shared();
/// "" when the unpacked fixtures' folder is present; else where it was looked for and how to
/// unpack them.
std::string missing_fixtures();
/// "" when ../shared and the unpacked fixtures are present; else what is absent, where it was
/// looked for and how to unpack them.
std::string missing_shared_or_fixtures();
/// "" when fixture `name`'s fixture.ini, ref.yuv and dist.yuv are in fixtures_dir(); else the
/// first absent file with the folder it was looked for in.
std::string missing_fixture(const std::string& name);
/// "" when golden file shared/golden/NAME.json exists; else its path, said to be absent.
std::string missing_golden(const std::string& name);
/// "" when every golden fixture (each shared/golden/*.json) is unpacked; else their names and
/// where they were looked for.
std::string missing_golden_fixtures();
/// Format of fixture `name` (from its fixture.ini). Throws std::runtime_error naming the fixture
/// and the folder when it is not unpacked (missing_fixture).
VideoFormat fixture_format(const std::string& name);
/// Frame `index` of fixture `name`'s "ref" or "dist" raw .yuv file.
Picture fixture_frame(const std::string& name, const std::string& which, unsigned index);
/// Number of frames in fixture `name`.
unsigned fixture_frames(const std::string& name);
/// The first `max_frames` frames (at most) of fixture `name`'s ref and dist .yuv files.
Clip fixture_clip(const std::string& name, unsigned max_frames = ~0u);
/// The golden result of fixture `name` (shared/golden/NAME.json, key "result").
nlohmann::json golden(const std::string& name);
/// The whole golden file of fixture `name` (command, refused, not_compared, result). Throws
/// std::runtime_error naming the file when it is absent (missing_golden).
nlohmann::json golden_file(const std::string& name);
/// Whether upstream refused metric `metric` (its extractor name) on fixture `fixture`.
bool golden_refuses(const std::string& fixture, const std::string& metric);
/// Whether the golden file leaves some outputs of `metric` out ("not_compared", e.g. the chroma
/// outputs on the odd-size 4:2:0 fixture, which upstream cannot read).
bool golden_leaves_out(const std::string& fixture, const std::string& metric);
/// All fixture names that have a golden file, sorted; in sanitized builds (ten to twenty times
/// slower) those up to 1280x720 only, which hold every bit depth and subsampling.
std::vector<std::string> golden_fixtures();
/// Whether these tests are built with the sanitizers (VMAFX_SANITIZED_TESTS: part 2 of the test
/// command, ten to twenty times slower than the Release build of part 1).
#ifdef VMAFX_SANITIZED_TESTS
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
/// The message of the vmafx::Error `fn` throws; a test failure (and "") when it throws none.
std::string error_of(const std::function<void()>& fn);
/// Expects `fn` to throw a vmafx::Error whose message contains every one of `parts`.
void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts);
/// Writes `bytes` to pipe or FIFO `fd` in pieces of at most `piece` bytes, as a test's feeder
/// thread does; returns the bytes written. A reader that left early (the run needed fewer frames,
/// or stopped on an error) ends the writing with EPIPE: the SIGPIPE that write() raises is blocked
/// in the calling thread and taken back, so that it cannot end the test process.
std::size_t write_to_pipe(int fd, std::string_view bytes, std::size_t piece = 65536);
/// Whether GPU backend `backend` must have a usable device here: "vulkan" when it is built and
/// VMAFX_REQUIRE_VULKAN=1 (lavapipe installed: scripts/run_tests.sh).
bool backend_required(const std::string& backend);

/// Sets environment variable `name` to `value` for one scope, then restores it (unsets it where
/// it was unset). Not thread-safe, as setenv.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (old_)
            ::setenv(name_, old_->c_str(), 1);
        else
            ::unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

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

/// The one way a test stops for a missing fixture, golden file or ../shared. `what` is a
/// std::string: "" when nothing is missing, else what is absent and where it was looked for
/// (the missing_* functions above). The test is then skipped, saying so; under
/// VMAFX_TESTS_STRICT=1 it fails instead, with the same words. (A missing GPU, tool or library
/// is no fixture: those tests skip with GTEST_SKIP in every mode.)
#define VMAFX_SKIP_IF_MISSING(what)                                                              \
    do {                                                                                         \
        const std::string vmafx_missing_ = (what);                                               \
        if (!vmafx_missing_.empty()) {                                                           \
            if (vmafx::test::strict())                                                           \
                GTEST_FAIL() << "missing (VMAFX_TESTS_STRICT=1: no skip): " << vmafx_missing_;   \
            GTEST_SKIP() << "skipped: " << vmafx_missing_;                                       \
        }                                                                                        \
    } while (0)

/// Skips (fails under VMAFX_TESTS_STRICT=1) when ../shared or the unpacked fixtures are absent.
#define VMAFX_REQUIRE_FIXTURES() VMAFX_SKIP_IF_MISSING(vmafx::test::missing_shared_or_fixtures())

/// As VMAFX_REQUIRE_FIXTURES, and when fixture `name`'s raw files are absent.
#define VMAFX_REQUIRE_FIXTURE(name)                                                              \
    do {                                                                                         \
        VMAFX_REQUIRE_FIXTURES();                                                                \
        VMAFX_SKIP_IF_MISSING(vmafx::test::missing_fixture(name));                               \
    } while (0)

/// As VMAFX_REQUIRE_FIXTURES, and when some golden file's fixture is not unpacked (the tests
/// that loop over test::golden_fixtures()).
#define VMAFX_REQUIRE_GOLDEN_FIXTURES()                                                          \
    do {                                                                                         \
        VMAFX_REQUIRE_FIXTURES();                                                                \
        VMAFX_SKIP_IF_MISSING(vmafx::test::missing_golden_fixtures());                           \
    } while (0)

/// Skips the current test, saying why, when no CUDA device can be used (or the CUDA backend
/// is not built).
#define VMAFX_REQUIRE_GPU() VMAFX_REQUIRE_BACKEND("cuda")

/// Skips the current test, saying why, when GPU backend `backend` is not built or has no usable
/// device. For "vulkan" under VMAFX_REQUIRE_VULKAN=1 (scripts/run_tests.sh sets it where
/// lavapipe, a Vulkan device on the CPU, is installed) a built backend without a device fails
/// the test instead.
#define VMAFX_REQUIRE_BACKEND(backend)                                                           \
    do {                                                                                         \
        const std::string why = vmafx::gpu_unavailable_reason(backend);                          \
        if (why.empty()) break;                                                                  \
        if (vmafx::test::backend_required(backend)) FAIL() << "no usable " << (backend) << " device: " << why; \
        GTEST_SKIP() << "skipped: no usable " << vmafx::backend_label(backend) << " device: " << why; \
    } while (0)
