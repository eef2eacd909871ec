// Pooling and the four writers: values, layouts, number formats; where output files go
// (OutputTarget): regular files replaced atomically, streams and devices written in place,
// descriptors of this process written to directly, clear errors otherwise.
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "engine/pooling.hpp"
#include "output/output_target.hpp"
#include "output/writers.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

ScoreTable table_of(const std::string& name, const std::vector<double>& v) {
    ScoreTable t;
    for (unsigned i = 0; i < v.size(); ++i) t.set(name, i, v[i]);
    return t;
}

TEST(Pooling, MinMaxMeanHarmonic) {
    const ScoreTable t = table_of("s", {1.0, 3.0, 2.0, 6.0});
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMin, 4, 1), 1.0);
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMax, 4, 1), 6.0);
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMean, 4, 1), 3.0);
    // n / sum(1/(s+1)) - 1 with the sum taken in frame order
    const double inv = ((1.0 / 2.0 + 1.0 / 4.0) + 1.0 / 3.0) + 1.0 / 7.0;
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kHarmonicMean, 4, 1), 4 / inv - 1.0);
}

TEST(Pooling, SumIsInFrameOrder) {
    // 1e16 + 1 + 1 - 1e16 depends on the order: a running sum in frame order gives 0.
    const ScoreTable t = table_of("s", {1e16, 1.0, 1.0, -1e16});
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMean, 4, 1), 0.0);
}

TEST(Pooling, SubsampleAndMissing) {
    ScoreTable t = table_of("s", {4.0, 100.0, 8.0});
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMean, 3, 2), 6.0);
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMax, 3, 2), 8.0);
    t.set("gap", 0, 1.0);
    t.set("gap", 2, 1.0);
    EXPECT_FALSE(pool_score(t, "gap", PoolMethod::kMean, 3, 1).has_value());
    EXPECT_TRUE(pool_score(t, "gap", PoolMethod::kMean, 3, 2).has_value());
    EXPECT_FALSE(pool_score(t, "absent", PoolMethod::kMean, 3, 1).has_value());
}

TEST(NumberFormat, LikeUpstreamAndMax) {
    EXPECT_EQ(format_number(93.123456789, {}), "93.123457");
    EXPECT_EQ(format_number(0.0000001234, {}), "0.0000001234000000");  // > 6 leading zeros: 16 decimals
    EXPECT_EQ(format_number(0.000001234, {}), "0.000001");
    EXPECT_EQ(format_number(0.0, {}), "0.000000");
    NumberFormat two;
    two.digits = 2;
    EXPECT_EQ(format_number(1.005, two), "1.00");  // correctly rounded binary value 1.00499..
    NumberFormat max;
    max.max_precision = true;
    const double x = 0.1 + 0.2;
    EXPECT_EQ(std::stod(format_number(x, max)), x);
    EXPECT_EQ(format_number(std::nan(""), max), "null");
}

class WriterTest : public test::TempDirTest {
protected:
    void SetUp() override {
        TempDirTest::SetUp();
        r_.frames = 3;
        r_.format.width = 64;
        r_.format.height = 48;
        for (unsigned i = 0; i < 3; ++i) {
            r_.scores.set("VMAF_integer_feature_adm2_score", i, 0.5 + i);
            r_.scores.set("vmaf", i, 90.0 + i);
        }
        r_.printed_names = printed_names_of(r_.scores);  // as the engine fills it
    }
    RunResult r_;
};

TEST_F(WriterTest, PrintedNamesAreTheAliasesTheMetricsDeclare) {
    const std::map<std::string, std::string> expected{{"VMAF_integer_feature_adm2_score", "integer_adm2"}};
    EXPECT_EQ(printed_names_of(r_.scores), expected);  // "vmaf" has no alias: not listed
}

TEST_F(WriterTest, WritersPrintTheNamesTheResultCarries) {
    // The writers ask the result, not the metric registry: an output it does not list prints as
    // its own name, one it lists prints as it says.
    r_.printed_names = {{"vmaf", "vmaf_renamed"}};
    const std::string csv = render_output(r_, OutputFormat::kCsv, {});
    EXPECT_EQ(csv.substr(0, csv.find('\n')), "Frame,VMAF_integer_feature_adm2_score,vmaf_renamed,");
}

TEST_F(WriterTest, Json) {
    NumberFormat max;
    max.max_precision = true;
    write_output(r_, (dir_ / "o.json").string(), OutputFormat::kJson, max);
    const auto j = nlohmann::json::parse(slurp(dir_ / "o.json"));
    ASSERT_EQ(j["frames"].size(), 3u);
    EXPECT_EQ(j["frames"][2]["frameNum"], 2);
    EXPECT_EQ(j["frames"][2]["metrics"]["integer_adm2"], 2.5);  // printed by its alias
    EXPECT_EQ(j["frames"][1]["metrics"]["vmaf"], 91.0);
    EXPECT_EQ(j["pooled_metrics"]["vmaf"]["min"], 90.0);
    EXPECT_EQ(j["pooled_metrics"]["vmaf"]["max"], 92.0);
    EXPECT_EQ(j["pooled_metrics"]["vmaf"]["mean"], 91.0);
    EXPECT_TRUE(j["pooled_metrics"]["vmaf"].contains("harmonic_mean"));
    EXPECT_TRUE(j.contains("aggregate_metrics"));
}

TEST_F(WriterTest, Xml) {
    write_output(r_, (dir_ / "o.xml").string(), OutputFormat::kXml, {});
    const std::string x = slurp(dir_ / "o.xml");
    EXPECT_NE(x.find("<params qualityWidth=\"64\" qualityHeight=\"48\" />"), std::string::npos);
    EXPECT_NE(x.find("<frame frameNum=\"1\" integer_adm2=\"1.500000\" vmaf=\"91.000000\" />"), std::string::npos) << x;
    EXPECT_NE(x.find("<metric name=\"vmaf\" min=\"90.000000\" max=\"92.000000\" mean=\"91.000000\" harmonic_mean="),
              std::string::npos) << x;
    EXPECT_NE(x.find("</VMAF>"), std::string::npos);
}

// The aggregates (psnr's apsnr_*) print as every other number does, as upstream's output.c
// prints them: %.6f, %.16f below its small-value threshold, --precision N or max; not finite:
// null in JSON, printf's text in XML.
TEST_F(WriterTest, AggregatesInTheRunsNumberFormat) {
    r_.scores.set_aggregate("apsnr_y", 30.378846123456);
    r_.scores.set_aggregate("apsnr_cb", 0.00000001234);
    r_.scores.set_aggregate("apsnr_cr", -std::numeric_limits<double>::infinity());
    const std::string json = render_output(r_, OutputFormat::kJson, {});
    EXPECT_NE(json.find("\"aggregate_metrics\": {\n    \"apsnr_y\": 30.378846,\n    \"apsnr_cb\": 0.0000000123400000,"
                        "\n    \"apsnr_cr\": null\n  }"),
              std::string::npos)
        << json;
    const std::string xml = render_output(r_, OutputFormat::kXml, {});
    EXPECT_NE(xml.find("<aggregate_metrics apsnr_y=\"30.378846\" apsnr_cb=\"0.0000000123400000\" apsnr_cr=\"-inf\" />"),
              std::string::npos)
        << xml;
    NumberFormat two;
    two.digits = 2;
    EXPECT_NE(render_output(r_, OutputFormat::kJson, two).find("\"apsnr_y\": 30.38,"), std::string::npos);
    EXPECT_NE(render_output(r_, OutputFormat::kXml, two).find("apsnr_y=\"30.38\""), std::string::npos);
    NumberFormat max;
    max.max_precision = true;
    EXPECT_NE(render_output(r_, OutputFormat::kJson, max).find("\"apsnr_y\": 30.378846123456,"), std::string::npos);
}

TEST_F(WriterTest, BackendsListedOnlyForGpuRuns) {
    // A CPU run keeps upstream's layout: no backends.
    const std::string cpu_json = render_output(r_, OutputFormat::kJson, {});
    EXPECT_FALSE(nlohmann::json::parse(cpu_json).contains("backends"));
    EXPECT_EQ(render_output(r_, OutputFormat::kXml, {}).find("<backends>"), std::string::npos);
    // --backend cuda: each metric instance with the backend that computed it.
    r_.backend = Backend("cuda");
    r_.backends = {{"adm", "adm", Backend("cuda"), {}}, {"ciede", "ciede", Backend(kCpuBackend), "no CUDA twin"}};
    const auto j = nlohmann::json::parse(render_output(r_, OutputFormat::kJson, {}));
    ASSERT_TRUE(j.contains("backends"));
    EXPECT_EQ(j["backends"]["adm"], "cuda");
    EXPECT_EQ(j["backends"]["ciede"], "cpu");
    EXPECT_EQ(j["pooled_metrics"]["vmaf"]["mean"], 91.0);
    const std::string x = render_output(r_, OutputFormat::kXml, {});
    EXPECT_NE(x.find("<backends>\n    <metric name=\"adm\" backend=\"cuda\" />\n    <metric name=\"ciede\" "
                     "backend=\"cpu\" />\n  </backends>"),
              std::string::npos)
        << x;
}

TEST_F(WriterTest, Csv) {
    write_output(r_, (dir_ / "o.csv").string(), OutputFormat::kCsv, {});
    EXPECT_EQ(slurp(dir_ / "o.csv"),
              "Frame,integer_adm2,vmaf,\n0,0.500000,90.000000,\n1,1.500000,91.000000,\n2,2.500000,92.000000,\n");
}

TEST_F(WriterTest, Sub) {
    write_output(r_, (dir_ / "o.sub").string(), OutputFormat::kSub, {});
    const std::string s = slurp(dir_ / "o.sub");
    EXPECT_EQ(s.substr(0, s.find('\n')), "{0}{1}frame: 0|integer_adm2: 0.500000|vmaf: 90.000000|");
}

TEST_F(WriterTest, SubsampledFramesOnly) {
    r_.subsample = 2;
    write_output(r_, (dir_ / "o.csv").string(), OutputFormat::kCsv, {});
    EXPECT_EQ(slurp(dir_ / "o.csv"), "Frame,integer_adm2,vmaf,\n0,0.500000,90.000000,\n2,2.500000,92.000000,\n");
}

TEST_F(WriterTest, UnwritableLeavesNothing) {
    EXPECT_THROW(write_output(r_, (dir_ / "missing" / "o.json").string(), OutputFormat::kJson, {}), Error);
    EXPECT_FALSE(fs::exists(dir_ / "missing"));
}

TEST_F(WriterTest, ReplacesExistingFileWhole) {
    std::ofstream(dir_ / "o.csv") << "old content that is longer than the new one ............................\n";
    write_output(r_, (dir_ / "o.csv").string(), OutputFormat::kCsv, {});
    EXPECT_EQ(slurp(dir_ / "o.csv").substr(0, 6), "Frame,");
    EXPECT_EQ(slurp(dir_ / "o.csv").find("old content"), std::string::npos);
}


// ---------------------------------------------------------------------------------------
// Where output files go (OutputTarget). Every test works in its own temporary folder and
// never names the machine's own device files: descriptors, terminals and FIFOs are made by
// the test and reached through symlinks in the folder.

constexpr const char* kCsv =
    "Frame,integer_adm2,vmaf,\n0,0.500000,90.000000,\n1,1.500000,91.000000,\n2,2.500000,92.000000,\n";

/// The names in `dir`, sorted.
std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

/// Reads `fd` until `size` bytes came, it reports end of file or 30 s passed.
std::string read_until(int fd, std::size_t size) {
    std::string got;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    char buf[4096];
    while (got.size() < size && std::chrono::steady_clock::now() < deadline) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0) continue;
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) got.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || (errno != EINTR && errno != EAGAIN)) break;
    }
    return got;
}

using test::expect_error;

/// Runs `fn` in a child process as an unprivileged user: as itself when the test is not root,
/// else as nobody (uid and gid 65534), so that permission checks apply. Returns the child's
/// exit status (fn's return value), or -1 when it could not run or died by a signal.
int as_unprivileged(const std::function<int()>& fn) {
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
            std::_Exit(100);
        int status = 101;
        try {
            status = fn();
        } catch (...) {
        }
        std::_Exit(status);
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

class OutputTargetTest : public WriterTest {
protected:
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    void write_csv(const std::string& name) { write_output(r_, path(name), OutputFormat::kCsv, {}); }
};

TEST_F(OutputTargetTest, NewFileIsCreatedAsAnyFileWouldBe) {
    EXPECT_EQ(OutputTarget::resolve(path("new.csv")).kind(), OutputTarget::Kind::kFile);
    EXPECT_NO_THROW(OutputTarget::resolve(path("new.csv")).check());
    EXPECT_FALSE(fs::exists(dir_ / "new.csv")) << "check() must not create the file";
    write_csv("new.csv");
    EXPECT_EQ(slurp(dir_ / "new.csv"), kCsv);
    EXPECT_EQ(names_in(dir_), std::vector<std::string>{"new.csv"});
    std::ofstream(dir_ / "plain") << "x";  // the permissions of a file created the ordinary way (umask)
    EXPECT_EQ(fs::status(dir_ / "new.csv").permissions(), fs::status(dir_ / "plain").permissions());
}

TEST_F(OutputTargetTest, ExistingFileKeepsModeAndOwnerAndIsReplacedWhole) {
    const fs::path file = dir_ / "o.csv";
    std::ofstream(file) << std::string(5000, 'x');
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);  // 0640
    const bool root = ::geteuid() == 0;
    if (root) {
        ASSERT_EQ(::chown(file.c_str(), 4242, 4343), 0);  // owner and group another user's
    }
    struct stat before {}, after {};
    ASSERT_EQ(::stat(file.c_str(), &before), 0);
    write_csv("o.csv");
    ASSERT_EQ(::stat(file.c_str(), &after), 0);
    EXPECT_EQ(slurp(file), kCsv);
    EXPECT_EQ(after.st_mode & 07777, 0640u);
    EXPECT_EQ(after.st_uid, before.st_uid);
    EXPECT_EQ(after.st_gid, before.st_gid);
    EXPECT_NE(after.st_ino, before.st_ino) << "replaced by a rename, not rewritten in place";
    EXPECT_EQ(names_in(dir_), std::vector<std::string>{"o.csv"});
}

TEST_F(OutputTargetTest, SymlinkToFileStaysALinkAndItsTargetGetsTheContent) {
    std::ofstream(dir_ / "real.csv") << "old content, longer than the new one ......................................."
                                        "..............................................................";
    fs::create_symlink("real.csv", dir_ / "link.csv");
    EXPECT_EQ(OutputTarget::resolve(path("link.csv")).resolved(), fs::canonical(dir_ / "real.csv"));
    write_csv("link.csv");
    EXPECT_TRUE(fs::is_symlink(dir_ / "link.csv"));
    EXPECT_EQ(fs::read_symlink(dir_ / "link.csv"), "real.csv");
    EXPECT_EQ(slurp(dir_ / "real.csv"), kCsv);
    EXPECT_EQ(names_in(dir_), (std::vector<std::string>{"link.csv", "real.csv"}));
}

TEST_F(OutputTargetTest, ChainOfTwoSymlinks) {
    // first -> d/hop -> real.csv (relative to d): the temporary file goes beside d/real.csv.
    fs::create_directory(dir_ / "d");
    std::ofstream(dir_ / "d" / "real.csv") << "old";
    fs::create_symlink("real.csv", dir_ / "d" / "hop");
    fs::create_symlink("d/hop", dir_ / "first");
    EXPECT_EQ(OutputTarget::resolve(path("first")).resolved(), fs::canonical(dir_ / "d" / "real.csv"));
    write_csv("first");
    EXPECT_EQ(slurp(dir_ / "d" / "real.csv"), kCsv);
    EXPECT_EQ(fs::read_symlink(dir_ / "first"), "d/hop");
    EXPECT_EQ(fs::read_symlink(dir_ / "d" / "hop"), "real.csv");
    EXPECT_EQ(names_in(dir_), (std::vector<std::string>{"d", "first"}));
    EXPECT_EQ(names_in(dir_ / "d"), (std::vector<std::string>{"hop", "real.csv"}));
}

TEST_F(OutputTargetTest, DanglingSymlinkCreatesItsTarget) {
    // As a shell's "> link" does: the file the link names is created, the link kept.
    fs::create_directory(dir_ / "sub");
    fs::create_symlink("sub/made.csv", dir_ / "link");
    write_csv("link");
    EXPECT_TRUE(fs::is_symlink(dir_ / "link"));
    EXPECT_EQ(slurp(dir_ / "sub" / "made.csv"), kCsv);
    EXPECT_EQ(names_in(dir_ / "sub"), std::vector<std::string>{"made.csv"});
    // A dangling link into a directory that does not exist: the missing directory is named.
    fs::create_symlink("nowhere/made.csv", dir_ / "lost");
    expect_error([&] { write_csv("lost"); }, {"lost", "nowhere", "No such file or directory"});
    EXPECT_FALSE(fs::exists(dir_ / "nowhere"));
}

TEST_F(OutputTargetTest, DescriptorThroughSymlinkIsWrittenDirectly) {
    int p[2];
    ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
    fs::create_symlink("/proc/self/fd/" + std::to_string(p[1]), dir_ / "out");
    const OutputTarget t = OutputTarget::resolve(path("out"));
    EXPECT_EQ(t.kind(), OutputTarget::Kind::kDescriptor);
    EXPECT_EQ(t.descriptor(), p[1]);
    EXPECT_FALSE(t.writes_to_standard_output());
    EXPECT_NO_THROW(t.check());
    write_csv("out");
    ::close(p[1]);
    EXPECT_EQ(read_until(p[0], 1 << 20), kCsv);  // all of it, then end of file
    ::close(p[0]);
    EXPECT_TRUE(fs::is_symlink(dir_ / "out"));
    EXPECT_EQ(names_in(dir_), std::vector<std::string>{"out"});
}

TEST_F(OutputTargetTest, DescriptorTableThroughSymlinkedDirectory) {
    int p[2];
    ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
    fs::create_symlink("/proc/self/fd", dir_ / "fds");
    fs::create_symlink("/proc/thread-self/fd", dir_ / "tfds");
    for (const char* table : {"fds", "tfds"}) {
        const std::string name = std::string(table) + "/" + std::to_string(p[1]);
        EXPECT_EQ(OutputTarget::resolve(path(name)).descriptor(), p[1]) << name;
        write_csv(name);
        EXPECT_EQ(read_until(p[0], std::string(kCsv).size()), kCsv) << name;
    }
    ::close(p[0]);
    ::close(p[1]);
    EXPECT_EQ(names_in(dir_), (std::vector<std::string>{"fds", "tfds"}));
}

TEST_F(OutputTargetTest, SocketDescriptorIsWrittenDirectly) {
    // A socket cannot be reopened through /proc/self/fd/N: only writing the descriptor works.
    int s[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s), 0);
    fs::create_symlink("/proc/self/fd/" + std::to_string(s[0]), dir_ / "sock");
    write_csv("sock");
    ::close(s[0]);
    EXPECT_EQ(read_until(s[1], 1 << 20), kCsv);
    ::close(s[1]);
    EXPECT_EQ(names_in(dir_), std::vector<std::string>{"sock"});
}

TEST_F(OutputTargetTest, FifoStaysAFifoAndItsReaderGetsEverything) {
    // Larger than a pipe's buffer (64 KiB): the writer must wait for the reader.
    for (unsigned i = 0; i < 20000; ++i) {
        r_.scores.set("VMAF_integer_feature_adm2_score", i, 0.25 * i);
        r_.scores.set("vmaf", i, 90.0);
    }
    r_.frames = 20000;
    fs::create_directory(dir_ / "expected");
    write_output(r_, (dir_ / "expected" / "e.csv").string(), OutputFormat::kCsv, {});
    const std::string expected = slurp(dir_ / "expected" / "e.csv");
    ASSERT_GT(expected.size(), 256u * 1024);
    fs::remove_all(dir_ / "expected");

    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    EXPECT_EQ(OutputTarget::resolve(path("fifo")).kind(), OutputTarget::Kind::kStream);
    EXPECT_NO_THROW(OutputTarget::resolve(path("fifo")).check());  // must not open it (no reader yet)
    // The reader opens first (without waiting for a writer), so that a writer that wrongly
    // replaced the FIFO fails the test instead of hanging it.
    const int in = ::open(path("fifo").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    ASSERT_GE(in, 0);
    std::atomic<bool> written{false};
    std::string got;
    std::thread reader([&] {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        char buf[65536];
        while (std::chrono::steady_clock::now() < deadline) {
            pollfd p{in, POLLIN, 0};
            ::poll(&p, 1, 100);
            const ssize_t n = ::read(in, buf, sizeof buf);
            if (n > 0) got.append(buf, static_cast<std::size_t>(n));
            else if (n == 0 && written) break;  // no writer left and everything read
        }
    });
    write_csv("fifo");
    written = true;
    reader.join();
    ::close(in);
    EXPECT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected);
    EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
    EXPECT_EQ(names_in(dir_), std::vector<std::string>{"fifo"});
}

TEST_F(OutputTargetTest, TerminalStaysACharacterDevice) {
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) GTEST_SKIP() << "skipped: no pseudo-terminal to write to: " << std::strerror(errno);
    ASSERT_EQ(::grantpt(master), 0);
    ASSERT_EQ(::unlockpt(master), 0);
    const std::string slave_name = ::ptsname(master);
    // Held open by the test, so that the terminal outlives the writer's close; raw, so that
    // "\n" is not turned into "\r\n".
    const int slave = ::open(slave_name.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC);
    ASSERT_GE(slave, 0);
    termios mode{};
    ASSERT_EQ(::tcgetattr(slave, &mode), 0);
    ::cfmakeraw(&mode);
    ASSERT_EQ(::tcsetattr(slave, TCSANOW, &mode), 0);
    fs::create_symlink(slave_name, dir_ / "tty");
    EXPECT_EQ(OutputTarget::resolve(path("tty")).kind(), OutputTarget::Kind::kStream);
    write_csv("tty");
    EXPECT_EQ(read_until(master, std::string(kCsv).size()), kCsv);
    EXPECT_TRUE(fs::is_character_file(slave_name));
    EXPECT_TRUE(fs::is_symlink(dir_ / "tty"));
    EXPECT_EQ(names_in(dir_), std::vector<std::string>{"tty"});
    ::close(slave);
    ::close(master);
}

TEST_F(OutputTargetTest, DirectoryIsRefused) {
    fs::create_directory(dir_ / "sub");
    expect_error([&] { write_csv("sub"); }, {"sub", "Is a directory"});
    expect_error([&] { (void)OutputTarget::resolve(path("sub")); }, {"Is a directory"});
    expect_error([&] { write_csv("new/"); }, {"new/", "Is a directory"});  // a trailing "/" names a directory
    EXPECT_EQ(names_in(dir_), std::vector<std::string>{"sub"});
    EXPECT_TRUE(fs::is_empty(dir_ / "sub"));
}

TEST_F(OutputTargetTest, MissingParentDirectory) {
    expect_error([&] { write_csv("missing/deeper/o.csv"); }, {"missing/deeper/o.csv", "No such file or directory"});
    EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(OutputTargetTest, ParentIsARegularFile) {
    std::ofstream(dir_ / "plain") << "keep";
    expect_error([&] { write_csv("plain/o.csv"); }, {"plain/o.csv", "plain: Not a directory"});
    EXPECT_EQ(slurp(dir_ / "plain"), "keep");
    EXPECT_EQ(names_in(dir_), std::vector<std::string>{"plain"});
    std::ofstream(dir_ / "x.csv") << "keep";  // a trailing "/" after a file
    expect_error([&] { write_csv("x.csv/"); }, {"Not a directory"});
    EXPECT_EQ(slurp(dir_ / "x.csv"), "keep");
}

TEST_F(OutputTargetTest, SymlinkLoopAndEmptyPath) {
    fs::create_symlink("b", dir_ / "a");
    fs::create_symlink("a", dir_ / "b");
    expect_error([&] { write_csv("a"); }, {"Too many levels of symbolic links"});
    expect_error([&] { (void)OutputTarget::resolve(""); }, {"empty"});
}

TEST_F(OutputTargetTest, UnwritableDirectory) {
    // As an unprivileged user (root writes anywhere): refused before the run, by check(), and
    // by the write itself, naming the place and the cause; nothing left in the directory.
    fs::create_directory(dir_ / "ro");
    fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                                     fs::perms::others_exec | fs::perms::group_read | fs::perms::group_exec);
    fs::permissions(dir_, fs::perms::others_exec | fs::perms::others_read, fs::perm_options::add);
    const std::string target = path("ro/o.csv");
    const int status = as_unprivileged([&] {
        int failures = 0;
        try {
            OutputTarget::resolve(target).check();
            ++failures;
        } catch (const Error& e) {
            if (std::string(e.what()).find("Permission denied") == std::string::npos) ++failures;
        }
        try {
            write_output(r_, target, OutputFormat::kCsv, {});
            ++failures;
        } catch (const Error& e) {
            if (std::string(e.what()).find("Permission denied") == std::string::npos) ++failures;
        }
        return failures;
    });
    EXPECT_EQ(status, 0) << "both must be refused with Permission denied (100: could not become nobody)";
    fs::permissions(dir_ / "ro", fs::perms::owner_all);
    EXPECT_TRUE(fs::is_empty(dir_ / "ro"));
}

// A file the user may write in a directory where it may not create files (a shared folder, a
// container's read-only directory with one writable file): written in place, as a shell
// redirection would, rather than refused.
TEST_F(OutputTargetTest, WritableFileInUnwritableDirectoryIsWrittenInPlace) {
    fs::create_directory(dir_ / "ro");
    std::ofstream(dir_ / "ro" / "o.csv") << "old content, longer than what replaces it ................................\n";
    if (::geteuid() == 0) {
        ASSERT_EQ(::chown((dir_ / "ro" / "o.csv").c_str(), 65534, 65534), 0);
        fs::permissions(dir_, fs::perms::others_exec | fs::perms::others_read, fs::perm_options::add);
    }
    fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                                     fs::perms::others_exec | fs::perms::group_read | fs::perms::group_exec);
    struct stat before {};
    ASSERT_EQ(::stat((dir_ / "ro" / "o.csv").c_str(), &before), 0);
    const std::string target = path("ro/o.csv");
    const int status = as_unprivileged([&] {
        OutputTarget::resolve(target).check();
        write_output(r_, target, OutputFormat::kCsv, {});
        return 0;
    });
    EXPECT_EQ(status, 0);
    fs::permissions(dir_ / "ro", fs::perms::owner_all);
    EXPECT_EQ(slurp(dir_ / "ro" / "o.csv"), kCsv);
    struct stat after {};
    ASSERT_EQ(::stat((dir_ / "ro" / "o.csv").c_str(), &after), 0);
    EXPECT_EQ(after.st_ino, before.st_ino) << "written in place, not replaced";
    EXPECT_EQ(names_in(dir_ / "ro"), std::vector<std::string>{"o.csv"});
}

// A fatal signal while the temporary file is being written (here SIGXFSZ, from a file size
// limit, which ends the process by default): with remove_temporary_file_on_signals() the
// temporary file goes with the process, and the old file stays whole.
TEST_F(OutputTargetTest, FatalSignalDuringWriteRemovesTheTemporaryFile) {
    std::ofstream(dir_ / "o.csv") << "old\n";
    const std::string target = path("o.csv");
    const std::string big(1 << 20, 'x');
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        OutputTarget::remove_temporary_file_on_signals();
        rlimit small{};
        ::getrlimit(RLIMIT_FSIZE, &small);
        small.rlim_cur = 4096;
        ::setrlimit(RLIMIT_FSIZE, &small);
        try {
            OutputTarget::resolve(target).write(big);
        } catch (...) {
        }
        std::_Exit(0);  // not reached: SIGXFSZ ends the child
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child exited with " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), SIGXFSZ);
    EXPECT_EQ(slurp(dir_ / "o.csv"), "old\n");
    EXPECT_EQ(names_in(dir_), std::vector<std::string>{"o.csv"}) << "the temporary file was left";
}

TEST_F(OutputTargetTest, DescriptorNotOpenForWriting) {
    std::ofstream(dir_ / "in") << "x";
    const int ro = ::open(path("in").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(ro, 0);
    fs::create_symlink("/proc/self/fd/" + std::to_string(ro), dir_ / "ro");
    expect_error([&] { OutputTarget::resolve(path("ro")).check(); }, {"ro", "descriptor", "reading only"});
    ::close(ro);
    fs::create_symlink("/proc/self/fd/987654", dir_ / "closed");
    expect_error([&] { OutputTarget::resolve(path("closed")).check(); }, {"descriptor 987654", "Bad file descriptor"});
    expect_error([&] { write_csv("closed"); }, {"Bad file descriptor"});
    EXPECT_EQ(slurp(dir_ / "in"), "x");
}

TEST_F(OutputTargetTest, ReaderGoneIsBrokenPipe) {
    const auto old_handler = std::signal(SIGPIPE, SIG_IGN);  // as the CLI: an error, not a signal
    int p[2];
    ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
    ::close(p[0]);
    fs::create_symlink("/proc/self/fd/" + std::to_string(p[1]), dir_ / "out");
    expect_error([&] { write_csv("out"); }, {"out", "Broken pipe"});
    ::close(p[1]);
    std::signal(SIGPIPE, old_handler);
}

TEST_F(OutputTargetTest, FailedWriteLeavesTheOldFileWhole) {
    // The file size limit makes the write fail halfway (EFBIG): the old file must stay as it
    // was and the temporary file must go.
    std::ofstream(dir_ / "o.csv") << "old\n";
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit old_limit{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
    rlimit small = old_limit;
    small.rlim_cur = 16;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    try {
        write_csv("o.csv");
        ADD_FAILURE() << "no Error thrown";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("File too large"), std::string::npos) << e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    EXPECT_EQ(slurp(dir_ / "o.csv"), "old\n");
    EXPECT_EQ(names_in(dir_), std::vector<std::string>{"o.csv"});
}

TEST_F(OutputTargetTest, StandardOutput) {
    const OutputTarget dash = OutputTarget::resolve("-");
    EXPECT_EQ(dash.kind(), OutputTarget::Kind::kDescriptor);
    EXPECT_EQ(dash.descriptor(), 1);
    EXPECT_TRUE(dash.writes_to_standard_output());
    fs::create_symlink("/proc/self/fd/1", dir_ / "stdout");
    EXPECT_TRUE(OutputTarget::resolve(path("stdout")).writes_to_standard_output());
    fs::create_symlink("stdout", dir_ / "hop");
    EXPECT_TRUE(OutputTarget::resolve(path("hop")).writes_to_standard_output());
}

}  // namespace
}  // namespace vmafx
