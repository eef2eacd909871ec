#include "test_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <csignal>
#include <ctime>

#include <pthread.h>
#include <unistd.h>

#include "base/error.hpp"
#include "parity/inputs.hpp"

namespace vmafx::test {

namespace fs = std::filesystem;

std::size_t write_to_pipe(int fd, std::string_view bytes, std::size_t piece) {
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &old);
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, std::min(piece, bytes.size() - done));
        if (n <= 0) break;  // EPIPE: the reader left
        done += static_cast<std::size_t>(n);
    }
    // A SIGPIPE raised by write() is directed at this thread and stays pending while blocked:
    // take it back before the old mask returns.
    const timespec now{};
    while (sigtimedwait(&pipe_signal, nullptr, &now) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return done;
}

bool backend_required(const std::string& backend) {
    const GpuBackendInfo* info = find_gpu_backend(backend);
    const char* env = std::getenv("VMAFX_REQUIRE_VULKAN");
    return backend == "vulkan" && info && info->built && env && std::string(env) == "1";
}

fs::path shared_dir() {
    if (const char* env = std::getenv("VMAFX_SHARED")) return fs::is_directory(env) ? fs::path(env) : fs::path();
    const fs::path p = fs::path(VMAFX_SOURCE_DIR).parent_path() / "shared";
    return fs::is_directory(p / "golden") ? p : fs::path();
}

fs::path fixtures_dir() {
    if (const char* env = std::getenv("VMAFX_FIXTURES")) return fs::is_directory(env) ? fs::path(env) : fs::path();
    const fs::path p = fs::path(VMAFX_SOURCE_DIR) / ".fixtures";
    return fs::is_directory(p) ? p : fs::path();
}

bool strict() {
    const char* env = std::getenv("VMAFX_TESTS_STRICT");
    return env != nullptr && std::string(env) == "1";
}

namespace {

/// Where the fixtures were looked for, for the messages.
std::string fixtures_where() {
    if (const char* env = std::getenv("VMAFX_FIXTURES")) return std::string(env) + " ($VMAFX_FIXTURES)";
    return (fs::path(VMAFX_SOURCE_DIR) / ".fixtures").string();
}

std::string shared_where() {
    if (const char* env = std::getenv("VMAFX_SHARED")) return std::string(env) + " ($VMAFX_SHARED)";
    return (fs::path(VMAFX_SOURCE_DIR).parent_path() / "shared").string() + " (its golden/ folder)";
}

}  // namespace

std::string missing_shared() {
    if (!shared_dir().empty()) return {};
    return "../shared (golden values, fixtures) is absent: looked for " + shared_where();
}

std::string missing_fixtures() {
    if (!fixtures_dir().empty()) return {};
    return "fixtures not unpacked: no folder " + fixtures_where() +
           " (run ../shared/fixtures/prepare.py --out .fixtures --y4m)";
}

std::string missing_shared_or_fixtures() {
    if (std::string m = missing_shared(); !m.empty()) return m;
    return missing_fixtures();
}

std::string missing_fixture(const std::string& name) {
    const fs::path dir = fixtures_dir();
    if (dir.empty()) return "fixture " + name + " absent: no fixtures folder " + fixtures_where();
    for (const char* file : {"fixture.ini", "ref.yuv", "dist.yuv"})
        if (!fs::is_regular_file(dir / name / file))
            return "fixture " + name + " absent: no " + (dir / name / file).string() +
                   " (run ../shared/fixtures/prepare.py --out .fixtures --y4m)";
    return {};
}

std::string missing_golden(const std::string& name) {
    const fs::path dir = shared_dir();
    if (dir.empty()) return "golden file " + name + ".json absent: " + missing_shared();
    const fs::path file = dir / "golden" / (name + ".json");
    return fs::is_regular_file(file) ? std::string() : "golden file " + file.string() + " absent";
}

std::string missing_golden_fixtures() {
    if (std::string m = missing_shared(); !m.empty()) return m;
    std::vector<std::string> absent;
    for (const auto& e : fs::directory_iterator(shared_dir() / "golden"))
        if (e.path().extension() == ".json" && !missing_fixture(e.path().stem().string()).empty())
            absent.push_back(e.path().stem().string());
    if (absent.empty()) return {};
    std::sort(absent.begin(), absent.end());
    std::string names;
    for (const std::string& n : absent) names += (names.empty() ? "" : ", ") + n;
    return "golden fixtures not unpacked in " + fixtures_where() + ": " + names +
           " (run ../shared/fixtures/prepare.py --out .fixtures --y4m)";
}

VideoFormat fixture_format(const std::string& name) {
    if (std::string m = missing_fixture(name); !m.empty()) throw std::runtime_error(m);
    for (const ParityInput& in : fixture_inputs(fixtures_dir().string()))
        if (in.label == name && in.raw_format) return *in.raw_format;
    throw std::runtime_error("fixture " + name + " absent from " + fixtures_dir().string());
}

unsigned fixture_frames(const std::string& name) {
    const VideoFormat f = fixture_format(name);
    return static_cast<unsigned>(fs::file_size(fixtures_dir() / name / "ref.yuv") / f.frame_bytes());
}

Picture fixture_frame(const std::string& name, const std::string& which, unsigned index) {
    const VideoFormat f = fixture_format(name);
    Picture pic(f);
    std::ifstream in(fixtures_dir() / name / (which + ".yuv"), std::ios::binary);
    in.seekg(static_cast<std::streamoff>(f.frame_bytes() * index));
    for (int p = 0; p < 3; ++p) {
        Plane& pl = pic.planes[p];
        for (int y = 0; y < pl.height(); ++y)
            in.read(reinterpret_cast<char*>(pl.row<std::uint8_t>(y)),
                    static_cast<std::streamsize>(pl.width()) * pl.bytes_per_sample());
    }
    if (!in) throw std::runtime_error("short read of " + name + "/" + which + ".yuv");
    return pic;
}

Clip fixture_clip(const std::string& name, unsigned max_frames) {
    Clip clip{fixture_format(name), {}, {}};
    const unsigned frames = std::min(fixture_frames(name), max_frames);
    for (unsigned i = 0; i < frames; ++i) {
        clip.ref.push_back(fixture_frame(name, "ref", i));
        clip.dist.push_back(fixture_frame(name, "dist", i));
    }
    return clip;
}

nlohmann::json golden_file(const std::string& name) {
    if (std::string m = missing_golden(name); !m.empty()) throw std::runtime_error(m);
    std::ifstream in(shared_dir() / "golden" / (name + ".json"));
    return nlohmann::json::parse(in);
}

nlohmann::json golden(const std::string& name) { return golden_file(name).at("result"); }

bool golden_refuses(const std::string& fixture, const std::string& metric) {
    for (const auto& r : golden_file(fixture).value("refused", nlohmann::json::array()))
        if (r.at("kind") == "feature" && r.at("name") == metric) return true;
    return false;
}

bool golden_leaves_out(const std::string& fixture, const std::string& metric) {
    for (const auto& r : golden_file(fixture).value("not_compared", nlohmann::json::array())) {
        const std::string name = r.at("name");
        if (r.at("kind") == "feature" && name.substr(0, name.find(' ')) == metric) return true;
    }
    return false;
}

std::vector<std::string> golden_fixtures() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(shared_dir() / "golden")) {
        if (e.path().extension() != ".json") continue;
#ifdef VMAFX_SANITIZED_TESTS
        const VideoFormat f = fixture_format(e.path().stem().string());
        if (static_cast<long>(f.width) * f.height > 1280L * 720) continue;
#endif
        out.push_back(e.path().stem().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

void TempDirTest::SetUp() {
    const testing::TestInfo* info = testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = fs::temp_directory_path() / ("vmafx_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
}

void TempDirTest::TearDown() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
}

RunConfig TempDirTest::raw_run(const Clip& clip) const {
    RunConfig config;
    config.reference_path = path("ref.yuv").string();
    config.distorted_path = path("dist.yuv").string();
    write_raw(config.reference_path, clip.ref);
    write_raw(config.distorted_path, clip.dist);
    config.raw_format = clip.format;
    config.no_prediction = true;
    return config;
}

std::string TempDirTest::write(const std::string& name, const std::string& bytes) const {
    const fs::path p = dir_ / name;
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EXPECT_TRUE(out.good()) << p;
    return p.string();
}

std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "no vmafx::Error thrown";
    return {};
}

void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
    const std::string message = error_of(fn);
    for (const std::string& part : parts)
        EXPECT_NE(message.find(part), std::string::npos) << "message \"" << message << "\" lacks \"" << part << "\"";
}

}  // namespace vmafx::test
