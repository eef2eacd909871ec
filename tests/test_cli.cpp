// The vmafx CLI end to end: bad input gets one clear message naming the file and the problem,
// exit status 2 for a usage error or 1 for any other, and no output file; good input gets
// scores, frame counts are honoured, and -o writes where it is told (files, standard output,
// descriptors, FIFOs) and fails before the run when it cannot.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

/// The vmafx program under test: $VMAFX_CLI_BIN where set (the bundle's copy on the GPU machine,
/// scripts/device_check.sh), else the one this build made.
std::string cli() {
    const char* bin = std::getenv("VMAFX_CLI_BIN");
    return bin && *bin ? std::string(bin) : std::string(VMAFX_CLI);
}

struct CliResult {
    int exit_code = -1;
    bool signaled = false;
    std::string out, err;
};

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

class CliTest : public vmafx::test::TempDirTest {
protected:
    /// Writes `frames` frames of random 8-bit 4:2:0 w x h video (seeded) to `name`, then `extra`
    /// bytes of a frame cut short.
    fs::path write_yuv(const std::string& name, int w, int h, int frames, unsigned seed, std::size_t extra = 0) {
        const vmafx::VideoFormat format{w, h, 8, vmafx::Subsampling::k420};
        std::string data;
        for (const vmafx::Picture& pic : vmafx::test::random_pictures(format, static_cast<unsigned>(frames) + 1, seed))
            data += vmafx::test::raw_bytes(pic);
        data.resize(format.frame_bytes() * static_cast<std::size_t>(frames) + extra);
        std::ofstream(path(name), std::ios::binary) << data;
        return path(name);
    }

    /// Runs the CLI with `args` (after `prefix`, e.g. "timeout 60"), standard output and
    /// standard error into files.
    CliResult run(const std::string& args, const std::string& prefix = "") const {
        const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
        const std::string cmd =
            prefix + " " + cli() + " " + args + " >" + out.string() + " 2>" + err.string();
        const int status = std::system(cmd.c_str());
        CliResult r;
        r.signaled = WIFSIGNALED(status);
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.out = read_file(out);
        r.err = read_file(err);
        return r;
    }

    /// Runs the shell command `inner` on a pseudo-terminal (util-linux's `script`, its log in the
    /// temporary folder); returns what the terminal showed (standard output and error) as `out`.
    CliResult run_on_terminal(const std::string& inner) const {
        const fs::path shown = dir_ / "terminal.txt", log = dir_ / "script.log";
        const std::string cmd = "script -q -e -c '" + inner + "' " + log.string() + " <" + (dir_ / "which.txt").string() +
                                " >" + shown.string() + " 2>&1";
        const int status = std::system(cmd.c_str());
        CliResult r;
        r.signaled = WIFSIGNALED(status);
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.out = read_file(shown);
        return r;
    }

    /// Runs `args` with standard output on descriptor `out` (standard error into a file);
    /// returns the exit status and standard error.
    CliResult run_with_stdout(const std::string& args, int out) const {
        const fs::path err = dir_ / "stderr.txt";
        const std::string cmd = "exec " + cli() + " " + args + " 2>" + err.string();
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
        const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
        pid_t pid = -1;
        CliResult r;
        if (posix_spawn(&pid, "/bin/sh", &actions, nullptr, const_cast<char**>(argv), environ) == 0) {
            int status = 0;
            waitpid(pid, &status, 0);
            r.signaled = WIFSIGNALED(status);
            r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        posix_spawn_file_actions_destroy(&actions);
        r.err = read_file(err);
        return r;
    }

    /// Runs `args` expecting a clean failure with exit status `status` whose message contains
    /// every one of `words`, and no output file.
    void expect_failure(const std::string& args, const std::vector<std::string>& words, int status) {
        const fs::path output = path("out.json");
        const CliResult r = run(args + " --json -o " + output.string());
        EXPECT_FALSE(r.signaled) << args;
        EXPECT_EQ(r.exit_code, status) << args << ": " << r.err;
        for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "message lacks \"" << w << "\": " << r.err;
        EXPECT_FALSE(fs::exists(output)) << "a failed run left " << output;
        expect_no_temporary_file();
    }

    void expect_no_temporary_file() const {
        for (const auto& e : fs::directory_iterator(dir_))
            EXPECT_EQ(e.path().string().find(".vmafx-tmp"), std::string::npos) << "temporary file left: " << e.path();
    }

    /// A random pair ref.yuv, dist.yuv of 3 frames of 64x48 and the flags that read it.
    std::string pair_args() {
        const auto ref = write_yuv("ref.yuv", 64, 48, 3, 1), dist = write_yuv("dist.yuv", 64, 48, 3, 2);
        return "-r " + ref.string() + " -d " + dist.string() + " -w 64 -h 48 -p 420 -b 8";
    }

};

const char* kRaw = " -w 64 -h 48 -p 420 -b 8";

TEST_F(CliTest, ScoresRandomPairAndWritesJson) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 3, 1), dist = write_yuv("dist.yuv", 64, 48, 3, 2);
    const CliResult r = run("-r " + ref.string() + " -d " + dist.string() + kRaw + " --json -o " +
                            path("out.json").string() + " -q --precision max");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(read_file(path("out.json")));
    ASSERT_EQ(j.at("frames").size(), 3u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(j["frames"][i]["frameNum"], i);
        const double v = j["frames"][i]["metrics"].at("vmaf");
        EXPECT_GE(v, 0.0);
        EXPECT_LE(v, 100.0);
    }
    EXPECT_TRUE(j["pooled_metrics"].contains("vmaf"));
    EXPECT_TRUE(j["pooled_metrics"]["vmaf"].contains("harmonic_mean"));
}

// The "null" extractor computes nothing: upstream's CLI writes no frame and no pooled metric
// for it, alone or beside psnr. Measured with upstream's tool (master f85a8536):
//   vmaf -r ref.y4m -d dist.y4m --no_prediction --feature null --json -o null.json -q
// (tiny_64x36_420p8; also --xml, --csv, --sub, and with --feature psnr): JSON "frames": [ ],
// "pooled_metrics": { }; CSV the single line "Frame,"; SUB empty; with psnr, only psnr's columns.
// (Its "fps" is null there, its timer never having started; vmafx writes its own fps.)
TEST_F(CliTest, NullFeatureWritesNothing) {
    const std::string args = pair_args() + " --no_prediction --feature null -q";
    ASSERT_EQ(run(args + " --json -o " + path("n.json").string()).exit_code, 0);
    const auto j = nlohmann::json::parse(read_file(path("n.json")));
    EXPECT_TRUE(j.at("frames").empty());
    EXPECT_TRUE(j.at("pooled_metrics").empty());
    ASSERT_EQ(run(args + " --csv -o " + path("n.csv").string()).exit_code, 0);
    EXPECT_EQ(read_file(path("n.csv")), "Frame,\n");
    ASSERT_EQ(run(args + " --sub -o " + path("n.sub").string()).exit_code, 0);
    EXPECT_EQ(read_file(path("n.sub")), "");
    ASSERT_EQ(run(args + " --feature psnr --csv -o " + path("p.csv").string()).exit_code, 0);
    const std::string csv = read_file(path("p.csv"));
    EXPECT_EQ(csv.substr(0, csv.find('\n')), "Frame,psnr_y,psnr_cb,psnr_cr,");
}

TEST_F(CliTest, MissingFile) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 2, 1);
    expect_failure("-r " + ref.string() + " -d " + path("nope.yuv").string() + kRaw, {"nope.yuv"}, 1);
}

TEST_F(CliTest, SizeNotWholeFrames) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 2, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2, 100);
    expect_failure("-r " + ref.string() + " -d " + dist.string() + kRaw, {"dist.yuv"}, 1);
}

TEST_F(CliTest, UnknownPixelFormat) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 2, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2);
    expect_failure("-r " + ref.string() + " -d " + dist.string() + " -w 64 -h 48 -p 411 -b 8", {"411"}, 2);
}

TEST_F(CliTest, UnsupportedBitDepth) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 2, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2);
    expect_failure("-r " + ref.string() + " -d " + dist.string() + " -w 64 -h 48 -p 420 -b 7", {"--bitdepth", "8..16"}, 2);
}

TEST_F(CliTest, MismatchedGeometry) {
    // A y4m reference of another size against a raw distorted video of 64x48.
    std::ofstream y4m(path("ref.y4m"), std::ios::binary);
    y4m << "YUV4MPEG2 W32 H32 F25:1 C420jpeg\n";
    for (int f = 0; f < 2; ++f) y4m << "FRAME\n" << std::string(32 * 32 * 3 / 2, '\x40');
    y4m.close();
    std::ofstream d(path("dist.y4m"), std::ios::binary);
    d << "YUV4MPEG2 W64 H48 F25:1 C420jpeg\n";
    for (int f = 0; f < 2; ++f) d << "FRAME\n" << std::string(64 * 48 * 3 / 2, '\x40');
    d.close();
    expect_failure("-r " + path("ref.y4m").string() + " -d " + path("dist.y4m").string(), {"ref.y4m", "dist.y4m", "32x32", "64x48"}, 1);
}

TEST_F(CliTest, ZeroFrames) {
    std::ofstream(path("empty.yuv")).close();
    const auto ref = write_yuv("ref.yuv", 64, 48, 2, 1);
    expect_failure("-r " + ref.string() + " -d " + path("empty.yuv").string() + kRaw, {"empty.yuv"}, 1);
}

TEST_F(CliTest, UnknownModel) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 2, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2);
    expect_failure("-r " + ref.string() + " -d " + dist.string() + kRaw + " -m version=vmaf_v9", {"vmaf_v9"}, 2);
}

TEST_F(CliTest, ModelFileMissing) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 2, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2);
    expect_failure("-r " + ref.string() + " -d " + dist.string() + kRaw + " -m path=" + path("m.json").string(), {"m.json"}, 1);
}

TEST_F(CliTest, UnknownFeature) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 2, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2);
    expect_failure("-r " + ref.string() + " -d " + dist.string() + kRaw + " --feature nosuch", {"nosuch"}, 2);
}

TEST_F(CliTest, BadFeatureOption) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 2, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2);
    expect_failure("-r " + ref.string() + " -d " + dist.string() + kRaw + " --feature vif=nosuch=1", {"vif", "nosuch"}, 2);
    expect_failure("-r " + ref.string() + " -d " + dist.string() + kRaw + " --feature vif=vif_enhn_gain_limit=0.5",
                   {"vif_enhn_gain_limit"}, 2);
}

TEST_F(CliTest, MalformedY4mHeader) {
    std::ofstream(path("bad.y4m"), std::ios::binary) << "YUV4MPEG2 W64 Hx F25:1\nFRAME\n";
    expect_failure("-r " + path("bad.y4m").string() + " -d " + path("bad.y4m").string(), {"bad.y4m"}, 1);
}

TEST_F(CliTest, DifferentFrameCountsNameBothCounts) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 3, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2);
    expect_failure("-r " + ref.string() + " -d " + dist.string() + kRaw, {"ref.yuv", "dist.yuv", "3", "2", "--frame_cnt"}, 1);
}

TEST_F(CliTest, FrameCountScoresCommonPrefix) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 3, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2);
    const CliResult r = run("-r " + ref.string() + " -d " + dist.string() + kRaw + " --frame_cnt 5 --json -o " +
                            path("out.json").string() + " -q");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(read_file(path("out.json"))).at("frames").size(), 2u);
}

TEST_F(CliTest, FrameSkipsAndSubsample) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 5, 1), dist = write_yuv("dist.yuv", 64, 48, 4, 2);
    const CliResult r = run("-r " + ref.string() + " -d " + dist.string() + kRaw +
                            " --frame_skip_ref 1 --subsample 2 --json -o " + path("out.json").string() + " -q");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(read_file(path("out.json")));
    ASSERT_EQ(j.at("frames").size(), 2u);
    EXPECT_EQ(j["frames"][0]["frameNum"], 0);
    EXPECT_EQ(j["frames"][1]["frameNum"], 2);
}

// Input from a pipe on standard input ("-") and from a named pipe (a FIFO fed by a shell
// writer): the same bytes as from the files give the same output file, byte for byte.
TEST_F(CliTest, StreamsOnStandardInputAndFifosScoreAsFiles) {
    const auto ref = write_yuv("ref.yuv", 66, 38, 4, 1), dist = write_yuv("dist.yuv", 66, 38, 4, 2);
    const std::string raw = " -w 66 -h 38 -p 420 -b 8 -q --precision max --json -o ";
    ASSERT_EQ(run("-r " + ref.string() + " -d " + dist.string() + raw + path("files.json").string()).exit_code, 0);
    const CliResult piped =
        run("-r " + ref.string() + " -d -" + raw + path("stdin.json").string(), "cat " + dist.string() + " |");
    ASSERT_EQ(piped.exit_code, 0) << piped.err;
    ASSERT_EQ(::mkfifo(path("ref.fifo").c_str(), 0600), 0);
    ASSERT_EQ(::mkfifo(path("dist.fifo").c_str(), 0600), 0);
    const CliResult fifos = run("-r " + path("ref.fifo").string() + " -d " + path("dist.fifo").string() + raw +
                                    path("fifos.json").string(),
                                "cat " + ref.string() + " >" + path("ref.fifo").string() + " & cat " + dist.string() +
                                    " >" + path("dist.fifo").string() + " & timeout 60");
    ASSERT_EQ(fifos.exit_code, 0) << fifos.err;
    // The "fps" line differs between runs; everything else must be the same bytes.
    const auto without_fps = [](std::string text) {
        const auto at = text.find("\"fps\"");
        return at == std::string::npos ? text : text.erase(at, text.find('\n', at) - at);
    };
    const std::string files = without_fps(read_file(path("files.json")));
    ASSERT_NE(files.find("\"vmaf\""), std::string::npos);
    EXPECT_EQ(without_fps(read_file(path("stdin.json"))), files);
    EXPECT_EQ(without_fps(read_file(path("fifos.json"))), files);

    // A stream shorter than the file: both counts, exit 1, no output file.
    const CliResult short_pipe = run("-r " + ref.string() + " -d -" + raw + path("short.json").string(),
                                     "head -c 3762 " + dist.string() + " |");  // one 66x38 4:2:0 frame
    EXPECT_EQ(short_pipe.exit_code, 1);
    EXPECT_NE(short_pipe.err.find("has 4 frames but distorted \"standard input\" has 1"), std::string::npos)
        << short_pipe.err;
    EXPECT_FALSE(fs::exists(path("short.json")));
    // Both on standard input: a usage error.
    EXPECT_EQ(run("-r - -d -" + raw + path("both.json").string(), "cat " + dist.string() + " |").exit_code, 2);
}

// Closed standard descriptors: "-" with standard input closed says so (a file opened for the
// reference must not be taken for it); with standard output closed, the output file is still
// whole (nothing printed into it).
TEST_F(CliTest, ClosedStandardDescriptors) {
    const std::string args = pair_args();
    const CliResult closed_in = run("-r " + path("ref.yuv").string() + " -d -" + kRaw + " -q <&-");
    EXPECT_EQ(closed_in.exit_code, 1) << closed_in.err;
    EXPECT_NE(closed_in.err.find("standard input: cannot read: Bad file descriptor"), std::string::npos)
        << closed_in.err;
    const std::string out = path("closed_out.json").string();
    const std::string cmd = cli() + " " + args + " --json -o " + out + " >&- 2>&-";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_FALSE(nlohmann::json::parse(read_file(out)).empty());
}

// A file's error comes at once, without waiting for the writer of the other video's FIFO.
TEST_F(CliTest, FileErrorDoesNotWaitForAFifosWriter) {
    ASSERT_EQ(::mkfifo(path("dist.fifo").c_str(), 0600), 0);
    const CliResult r = run("-r " + path("missing.y4m").string() + " -d " + path("dist.fifo").string(), "timeout 20");
    EXPECT_EQ(r.exit_code, 1) << "124 is timeout's: vmafx waited for the FIFO's writer";
    EXPECT_NE(r.err.find("missing.y4m: cannot open"), std::string::npos) << r.err;
}

// A single file bind-mounted as the output (docker run -v out.json:/out.json): it cannot be
// renamed over, so it is written in place, and the results reach the file the mount shows.
// Needs root and a mount namespace (unshare -m); skipped, saying why, elsewhere.
TEST_F(CliTest, OutputIsABindMountedFile) {
    if (::geteuid() != 0) GTEST_SKIP() << "skipped: bind mounts need root";
    if (std::system("unshare -m true >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "skipped: no mount namespace here (unshare -m failed)";
    std::ofstream(path("host.json")) << "old";
    std::ofstream(path("mnt.json")) << "";
    const CliResult r = run(pair_args() + " -q --json -o " + path("mnt.json").string(),
                            "unshare -m sh -c 'mount --bind " + path("host.json").string() + " " +
                                path("mnt.json").string() + " && exec \"$0\" \"$@\"'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(read_file(path("host.json")));
    EXPECT_EQ(j.at("frames").size(), 3u);
    expect_no_temporary_file();
}

// A damaged tail that is not scored is a warning naming the file and the frame (exit 0); one
// that is scored is an error naming both (exit 1).
TEST_F(CliTest, DamagedTailWarnsUnlessScored) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 3, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2, 1000);
    const std::string args = "-r " + ref.string() + " -d " + dist.string() + kRaw + " -q --json -o " +
                             path("out.json").string();
    const CliResult warned = run(args + " --frame_cnt 2");
    ASSERT_EQ(warned.exit_code, 0) << warned.err;
    EXPECT_NE(warned.err.find("warning: " + dist.string() + ": frame 2 is truncated"), std::string::npos) << warned.err;
    EXPECT_EQ(nlohmann::json::parse(read_file(path("out.json"))).at("frames").size(), 2u);
    fs::remove(path("out.json"));
    expect_failure(args.substr(0, args.find(" -q")) + " --frame_cnt 3", {dist.string(), "frame 2 is truncated"}, 1);
}

TEST_F(CliTest, UnwritableOutputFails) {
    const auto ref = write_yuv("ref.yuv", 64, 48, 2, 1), dist = write_yuv("dist.yuv", 64, 48, 2, 2);
    const CliResult r = run("-r " + ref.string() + " -d " + dist.string() + kRaw + " -o " +
                            (dir_ / "no_such_dir" / "out.xml").string() + " -q");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("out.xml"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
}

// On a terminal (a pseudo-terminal from util-linux's `script`), a run draws a progress bar:
// frames done of the frames expected (from the file sizes, after --frame_skip_*/--frame_cnt),
// rate and time; -q, or standard error not a terminal, draws none.
TEST_F(CliTest, ProgressBarOnATerminalOnly) {
    if (std::system(("command -v script >" + (dir_ / "which.txt").string() + " 2>&1").c_str()) != 0)
        GTEST_SKIP() << "util-linux's script (a pseudo-terminal) is not installed";
    const auto ref = write_yuv("ref.yuv", 64, 48, 7, 1), dist = write_yuv("dist.yuv", 64, 48, 9, 2);
    const std::string args = "-r " + ref.string() + " -d " + dist.string() + kRaw + " --frame_skip_dist 2";
    const auto on_terminal = [&](const std::string& extra) {
        const std::string inner = cli() + " " + args + extra;
        return run_on_terminal(inner);
    };
    const CliResult shown = on_terminal("");
    EXPECT_EQ(shown.exit_code, 0) << shown.out;
    // Every line drawn starts with a carriage return; the last shows all 7 of 7.
    EXPECT_NE(shown.out.find("\r["), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("]  7/7 frames  100%"), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("vmaf_v0.6.1: "), std::string::npos) << shown.out;
    const CliResult limited = on_terminal(" --frame_cnt 4");
    EXPECT_NE(limited.out.find("]  4/4 frames  100%"), std::string::npos) << limited.out;
    EXPECT_EQ(limited.out.find("/7 frames"), std::string::npos) << limited.out;
    const CliResult quiet = on_terminal(" -q");
    EXPECT_EQ(quiet.exit_code, 0) << quiet.out;
    EXPECT_EQ(quiet.out.find("frames"), std::string::npos) << quiet.out;
    const CliResult piped = run(args);
    EXPECT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_EQ(piped.err, "");
}

TEST_F(CliTest, VersionAndHelp) {
    CliResult r = run("--version");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("vmafx"), std::string::npos);
    r = run("--help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("--frame_cnt"), std::string::npos);
}

// VMAFX_TIMINGS=1 on a GPU backend: the GPU scorer's line of host time spent enqueuing a frame
// names the uploads, the history's waits and each twin, each a number of microseconds (the
// figures docs/performance.md reads to tell which submissions bound the CLI's rate).
TEST_F(CliTest, TimingsGiveEachTwinsEnqueueTime) {
    VMAFX_REQUIRE_BACKEND("vulkan");
    const std::string out = path("t.json").string();
    const CliResult r = run(pair_args() + " --backend vulkan --feature psnr --feature motion --no_prediction --json -o " + out,
                            "VMAFX_TIMINGS=1");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, std::regex("host time enqueuing a frame \\(us\\): uploads ([0-9]+\\.[0-9]), "
                                                       "history ([0-9]+\\.[0-9])(, [a-z_0-9]+ [0-9]+\\.[0-9])+"
                                                       "(, no graphs|, graphs [0-9]+\\.[0-9])\n")))
        << r.err;
    const std::string line = m[0];
    EXPECT_TRUE(line.ends_with(", no graphs\n")) << "the Vulkan backend records no graphs: " << line;
    EXPECT_TRUE(std::regex_search(line, std::regex(", psnr [0-9]+\\.[0-9]"))) << line;
    EXPECT_TRUE(std::regex_search(line, std::regex(", motion [0-9]+\\.[0-9]"))) << line;
}

// VMAFX_TIMINGS=1 with --backend cuda: VMAFX_GPU_GRAPHS=1 records the twins' work into graphs
// (the line's "graphs" time); VMAFX_GPU_GRAPHS=0 enqueues it directly ("no graphs"), with the
// same scores. Both runs name their setting, so that the test holds whatever the environment
// it runs in sets (a device call that ran every test with VMAFX_GPU_GRAPHS=1 failed it).
TEST_F(CliTest, CudaTimingsNameTheGraphs) {
    VMAFX_REQUIRE_BACKEND("cuda");
    const std::string base = pair_args() + " --backend cuda --feature psnr --feature motion --feature adm --json -o ";
    const std::string with = path("with.json").string(), without = path("without.json").string();
    const CliResult a = run(base + with, "VMAFX_TIMINGS=1 VMAFX_GPU_GRAPHS=1");
    const CliResult b = run(base + without, "VMAFX_TIMINGS=1 VMAFX_GPU_GRAPHS=0");
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_TRUE(std::regex_search(a.err, std::regex("host time enqueuing a frame .*, graphs [0-9]+\\.[0-9]\n"))) << a.err;
    EXPECT_TRUE(std::regex_search(b.err, std::regex("host time enqueuing a frame .*, no graphs\n"))) << b.err;
    const nlohmann::json ja = nlohmann::json::parse(read_file(with)), jb = nlohmann::json::parse(read_file(without));
    ASSERT_FALSE(ja["frames"].empty());
    EXPECT_EQ(ja["frames"], jb["frames"]);
}

// --backend vulkan: --version lists the devices; a bad VMAFX_VULKAN_DEVICE is an error naming it,
// exit 1 and no output file; the first device scores psnr as the CPU (bit for bit at %.17g).
TEST_F(CliTest, VulkanDeviceChoice) {
#ifndef VMAFX_HAVE_VULKAN
    GTEST_SKIP() << "skipped: the Vulkan backend is not built";
#else
    const CliResult version = run("--version");
    EXPECT_NE(version.out.find("Vulkan twins (--backend vulkan"), std::string::npos) << version.out;
    EXPECT_NE(version.out.find("Vulkan devices:"), std::string::npos) << version.out;
    const std::string pair = pair_args();
    const std::string out = path("v.json").string();
    for (const char* bad : {"abc", "\" 0\"", "00", "99"}) {
        const CliResult r = run(pair + " --backend vulkan --feature psnr --no_prediction --json -o " + out,
                                std::string("VMAFX_VULKAN_DEVICE=") + bad);
        EXPECT_EQ(r.exit_code, 1) << bad << ": " << r.err;
        EXPECT_NE(r.err.find("VMAFX_VULKAN_DEVICE="), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(out)) << bad;
    }
    // --gpu N: an index without a device fails naming it, and the option needs a GPU backend.
    const CliResult on_cpu = run(pair + " --gpu 0 --feature psnr --no_prediction --json -o " + out);
    EXPECT_EQ(on_cpu.exit_code, 2) << on_cpu.err;
    EXPECT_NE(on_cpu.err.find("--gpu N needs a GPU backend"), std::string::npos) << on_cpu.err;
    EXPECT_FALSE(fs::exists(out));
    VMAFX_REQUIRE_BACKEND("vulkan");
    const CliResult missing = run(pair + " --backend vulkan --gpu 4000 --feature psnr --no_prediction --json -o " + out);
    EXPECT_EQ(missing.exit_code, 1) << missing.err;
    EXPECT_NE(missing.err.find("GPU index 4000 (--gpu) names no Vulkan device"), std::string::npos) << missing.err;
    EXPECT_FALSE(fs::exists(out));
    const CliResult cpu = run(pair + " --feature psnr --no_prediction --precision max --json -o " + path("c.json").string());
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    const auto frames = [](const std::string& file) {
        return nlohmann::json::parse(std::ifstream(file))["frames"].dump();
    };
    // The first device by VMAFX_VULKAN_DEVICE and by --gpu (which wins over the variable).
    for (const auto& [args, env] : {std::pair<std::string, std::string>{"", "VMAFX_VULKAN_DEVICE=0"},
                                    std::pair<std::string, std::string>{" --gpu 0", "VMAFX_VULKAN_DEVICE=99"}}) {
        const CliResult gpu = run(pair + " --backend vulkan" + args +
                                      " --feature psnr --no_prediction --precision max --json -o " + out,
                                  env);
        ASSERT_EQ(gpu.exit_code, 0) << args << " " << env << ": " << gpu.err;
        EXPECT_EQ(frames(out), frames(path("c.json").string())) << args << " " << env;
        fs::remove(out);
    }
#endif
}

// --gpu with several GPUs (issue 29), run on lavapipe's one device as two (--gpu 0,0: two
// processes share it): the default model's frames and pooled scores equal the one-GPU run's bit
// for bit (motion2 needs the frame after each part and the one before: the parts read them); a
// run that cannot be split (--subsample) runs on the first GPU with a note; a failed part fails
// the run naming the part, with no output file; malformed lists are usage errors.
TEST_F(CliTest, SeveralGpusGiveTheOneGpuRun) {
    const std::string out = path("g.json").string();
    const CliResult bad = run(pair_args() + " --backend vulkan --gpu 0,x --json -o " + out);
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_NE(bad.err.find("--gpu \"0,x\": expected all, a device index"), std::string::npos) << bad.err;
    const CliResult on_cpu = run(pair_args() + " --gpu 0,1 --json -o " + out);
    EXPECT_EQ(on_cpu.exit_code, 2) << on_cpu.err;
    EXPECT_FALSE(fs::exists(out));
#ifndef VMAFX_HAVE_VULKAN
    GTEST_SKIP() << "skipped: the Vulkan backend is not built";
#else
    VMAFX_REQUIRE_BACKEND("vulkan");
    const auto ref = write_yuv("ref7.yuv", 64, 48, 7, 3), dist = write_yuv("dist7.yuv", 64, 48, 7, 4);
    const std::string pair = "-r " + ref.string() + " -d " + dist.string() + kRaw + " --backend vulkan --precision max";
    const auto body = [](const std::string& file) {
        nlohmann::json j = nlohmann::json::parse(std::ifstream(file));
        j.erase("fps");
        return j.dump();
    };
    const CliResult one = run(pair + " --json -o " + path("one.json").string());
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const CliResult two = run(pair + " --gpu 0,0 --json -o " + out);
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_NE(two.err.find("--gpu 0,0: frames 0 to 2 on GPU 0 and frames 3 to 6 on GPU 0 (each part reads 1 frame "
                           "before and 1 after it"),
              std::string::npos)
        << two.err;
    EXPECT_EQ(body(out), body(path("one.json").string()));
    const CliResult three = run(pair + " --gpu 0,0,0 --frame_skip_ref 1 --frame_skip_dist 1 --frame_cnt 5 --json -o " +
                                path("three.json").string());
    ASSERT_EQ(three.exit_code, 0) << three.err;
    const CliResult one_cut = run(pair + " --frame_skip_ref 1 --frame_skip_dist 1 --frame_cnt 5 --json -o " +
                                  path("one_cut.json").string());
    ASSERT_EQ(one_cut.exit_code, 0) << one_cut.err;
    EXPECT_EQ(body(path("three.json").string()), body(path("one_cut.json").string()));
    EXPECT_EQ(nlohmann::json::parse(std::ifstream(path("three.json")))["frames"].size(), 5u);
    fs::remove(out);
    const CliResult sub = run(pair + " --gpu 0,0 --subsample 2 --json -o " + out);
    ASSERT_EQ(sub.exit_code, 0) << sub.err;
    EXPECT_NE(sub.err.find("--gpu 0,0: the run cannot be split into parts (--subsample"), std::string::npos) << sub.err;
    fs::remove(out);
    // A device index beyond the devices fails before any part starts; a part that fails (here
    // both: speed_temporal refuses a 64x48 picture) fails the run naming it.
    const CliResult missing = run(pair + " --gpu 0,4000 --json -o " + out);
    EXPECT_EQ(missing.exit_code, 1) << missing.err;
    EXPECT_NE(missing.err.find("--gpu 0,4000: GPU index 4000 names no vulkan device"), std::string::npos)
        << missing.err;
    // The part's own message, once for the run, though both parts fail the same way.
    const CliResult failed = run(pair + " --gpu 0,0 -n --feature speed_temporal --json -o " + out);
    EXPECT_EQ(failed.exit_code, 1) << failed.err;
    EXPECT_NE(failed.err.find("on GPU 0 failed: speed_temporal: picture 64x48 is too small"), std::string::npos)
        << failed.err;
    const std::size_t first = failed.err.find("is too small");
    EXPECT_EQ(failed.err.find("is too small", first + 1), std::string::npos) << failed.err;
    EXPECT_FALSE(fs::exists(out));
    // On a terminal the parts' frames make one bar: the run's 7 frames, their context not counted.
    if (std::system(("command -v script >" + path("which.txt").string() + " 2>&1").c_str()) == 0) {
        const CliResult bar = run_on_terminal(cli() + " " + pair + " --gpu 0,0 --json -o " + out);
        EXPECT_EQ(bar.exit_code, 0) << bar.out;
        EXPECT_NE(bar.out.find("]  7/7 frames  100%"), std::string::npos) << bar.out;
        EXPECT_EQ(bar.out.find("/9 frames"), std::string::npos) << bar.out;
    }
#endif
}

// --gpu N with --backend cuda: the device of that index (CUDA_VISIBLE_DEVICES narrowed to it
// before the runtime starts) scores psnr as the CPU; an index without a device fails naming it.
TEST_F(CliTest, CudaDeviceChoice) {
    VMAFX_REQUIRE_BACKEND("cuda");
    const std::string pair = pair_args();
    const std::string out = path("g.json").string();
    const CliResult missing = run(pair + " --backend cuda --gpu 4000 --feature psnr --no_prediction --json -o " + out);
    EXPECT_EQ(missing.exit_code, 1) << missing.err;
    EXPECT_NE(missing.err.find("GPU index 4000 (--gpu) names no"), std::string::npos) << missing.err;
    EXPECT_FALSE(fs::exists(out));
    const CliResult gpu = run(pair + " --backend cuda --gpu 0 --feature psnr --no_prediction --precision max --json -o " + out);
    ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
    const CliResult cpu = run(pair + " --feature psnr --no_prediction --precision max --json -o " + path("c.json").string());
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_EQ(nlohmann::json::parse(std::ifstream(out))["frames"].dump(),
              nlohmann::json::parse(std::ifstream(path("c.json").string()))["frames"].dump());
}

// --gpu with several CUDA GPUs (issue 29): --gpu 0,0 (one GPU as two: two processes share it)
// and, where there are two usable GPUs or more, --gpu all give the one-GPU run's frames and
// pooled scores bit for bit; with fewer the second half says it was skipped.
TEST_F(CliTest, SeveralCudaGpusGiveTheOneGpuRun) {
    VMAFX_REQUIRE_BACKEND("cuda");
    const auto ref = write_yuv("ref7.yuv", 64, 48, 7, 3), dist = write_yuv("dist7.yuv", 64, 48, 7, 4);
    const std::string pair = "-r " + ref.string() + " -d " + dist.string() + kRaw + " --backend cuda --precision max --json";
    const auto body = [](const fs::path& file) {
        nlohmann::json j = nlohmann::json::parse(std::ifstream(file));
        return j["frames"].dump() + j["pooled_metrics"].dump();
    };
    const CliResult one = run(pair + " -o " + path("one.json").string());
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const CliResult shared = run(pair + " --gpu 0,0 -o " + path("shared.json").string());
    ASSERT_EQ(shared.exit_code, 0) << shared.err;
    EXPECT_NE(shared.err.find("on GPU 0 and frames 3 to 6 on GPU 0"), std::string::npos) << shared.err;
    EXPECT_EQ(body(path("shared.json")), body(path("one.json")));
    const CliResult version = run("--version");
    std::istringstream lines(version.out.substr(std::min(version.out.size(), version.out.find("CUDA devices:"))));
    unsigned usable = 0;
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("  ", 0) == 0 && line.find("(unusable") == std::string::npos) ++usable;
    if (usable < 2)
        GTEST_SKIP() << "skipped: --gpu all needs two usable CUDA GPUs, this machine has " << usable
                     << " (--gpu 0,0 was checked)";
    const CliResult all = run(pair + " --gpu all -o " + path("all.json").string());
    ASSERT_EQ(all.exit_code, 0) << all.err;
    EXPECT_NE(all.err.find("on GPU 1"), std::string::npos) << all.err;
    EXPECT_EQ(body(path("all.json")), body(path("one.json")));
}

// --decode with a GPU backend: where the backend decodes (CUDA with NVDEC on a GPU) the JSON's
// provenance names it and the scores are the CPU-decoded run's; where it cannot (Vulkan decodes
// no video; CUDA without a device or NVDEC) the video decodes on the CPU, --decode gpu warning
// once per video and --decode auto silently, the record naming the CPU and why.
TEST_F(CliTest, DecodeOnTheGpuOrNote) {
    const fs::path ref = path("ref.mp4"), dist = path("dist.mp4");
    for (const auto& [file, crf] : {std::pair{ref, 10}, std::pair{dist, 35}}) {
        const std::string cmd = "ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i testsrc=size=64x48:rate=25 "
                                "-frames:v 4 -c:v libx264 -preset ultrafast -pix_fmt yuv420p -crf " +
                                std::to_string(crf) + " " + file.string();
        if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "skipped: no ffmpeg command with libx264";
    }
    const std::string pair = "-r " + ref.string() + " -d " + dist.string() + " --feature psnr -n --precision max --json";
    const CliResult cpu = run(pair + " -o " + path("cpu.json").string());
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    const auto json = [this](const std::string& name) { return nlohmann::json::parse(std::ifstream(path(name))); };
    EXPECT_FALSE(json("cpu.json").contains("provenance"));
    std::vector<std::string> backends;
    for (const char* b : {"vulkan", "cuda"})
        if (vmafx::gpu_unavailable_reason(b).empty()) backends.emplace_back(b);
    if (backends.empty()) GTEST_SKIP() << "skipped: no usable GPU backend";
    for (const std::string& backend : backends) {
        for (const char* mode : {"gpu", "auto"}) {
            const std::string out = backend + "_" + mode + ".json";
            const CliResult r = run(pair + " --backend " + backend + " --decode " + mode + " -o " + path(out).string());
            ASSERT_EQ(r.exit_code, 0) << backend << " " << mode << ": " << r.err;
            const nlohmann::json j = json(out);
            EXPECT_EQ(j["frames"], json("cpu.json")["frames"]) << backend << " " << mode;
            const nlohmann::json& decoding = j["provenance"]["decoding"];
            ASSERT_EQ(decoding.size(), 2u) << j.dump();
            for (const auto& [video, file] : {std::pair{"reference", ref}, std::pair{"distorted", dist}}) {
                const std::string decoder = decoding[video]["decoder"], note = decoding[video]["note"];
                const std::string said = file.string() + ": decoded on the CPU, not the GPU: ";
                if (decoder == backend) {
                    EXPECT_EQ(note, "") << backend;
                    EXPECT_NE(r.err.find(std::string(video) + " decoded on " + backend), std::string::npos) << r.err;
                    continue;
                }
                EXPECT_EQ(decoder, "cpu") << backend << " " << video;
                EXPECT_EQ(note.rfind(said, 0), 0u) << note;
                if (backend == "vulkan") {
                    EXPECT_EQ(note, said + "the Vulkan backend decodes no video");
                } else {
                    EXPECT_NE(note.find("cuda"), std::string::npos) << note;
                }
                // --decode gpu warns; auto says it in the record only.
                EXPECT_EQ(r.err.find(said) != std::string::npos, std::string(mode) == "gpu") << mode << ": " << r.err;
                EXPECT_NE(r.err.find(std::string(video) + " decoded on the CPU"), std::string::npos) << r.err;
            }
        }
    }
}

TEST_F(CliTest, UnknownFlagFails) {
    const CliResult r = run("--no-such-flag");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_FALSE(r.signaled);
    EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------------------------------
// Exit status: 2 for anything wrong with the command line itself, 1 for every other error.

TEST_F(CliTest, UsageErrorsExitWithTwo) {
    const std::string pair = pair_args();
    const std::string files = "-r " + path("ref.yuv").string() + " -d " + path("dist.yuv").string();
    std::ofstream(path("model.json")) << "{}";
    struct Case {
        std::string args, word;
    };
    const std::vector<Case> cases = {
        {pair + " --no-such-flag", "--no-such-flag"},
        {pair + " --threads", "--threads"},  // missing value
        {pair + " --threads abc", "--threads"},
        {pair + " --threads 2.5", "--threads"},
        {pair + " --threads -1", "--threads"},
        {pair + " --threads 1025", "0..1024"},
        {pair + " --threads 4294967295", "0..1024"},
        {pair + " --threads -18446744073709551615", "--threads"},  // CLI11 alone takes it as 1
        {pair + " --frame_cnt -5", "--frame_cnt"},
        {pair + " --frame_cnt 4294967296", "--frame_cnt"},
        {pair + " --frame_skip_ref -1", "--frame_skip_ref"},
        {pair + " --subsample 0", "--subsample"},
        {pair + " --subsample -1", "--subsample"},
        {pair + " --cpumask -1", "--cpumask"},
        {files + " -w -64 -h 48 -p 420 -b 8", "--width"},
        {files + " -w 0 -h 48 -p 420 -b 8", "--width"},
        {files + " -w 40000 -h 48 -p 420 -b 8", "--width"},
        {files + " -w 20000 -h 20000 -p 420 -b 8", "too large"},
        {files + " -w 64 -h 48 -p 420 -b 7", "--bitdepth"},
        {files + " -w 64 -h 48 -p 411 -b 8", "411"},
        {files + " -w 64", "--width/-w"},
        {"-d " + path("dist.yuv").string(), "-r/--reference"},
        {"-r " + path("ref.yuv").string(), "-d/--distorted"},
        {pair + " --xml --json", "--json"},
        {pair + " --threads 1 --threads 2", "--threads"},  // given twice
        {pair + " --precision 18", "--precision"},
        {pair + " --precision abc", "--precision"},
        {pair + " --precision +3", "--precision"},
        {pair + " --precision ' 3'", "--precision"},
        {pair + " --backend gpu", "--backend"},
        {pair + " --decode gpu", "--decode gpu needs a GPU backend"},
        {pair + " --decode sometimes", "--decode"},
        {pair + " --decode-sessions 0", "--decode-sessions"},
        {pair + " --decode-sessions 17", "--decode-sessions"},
        {pair + " --aom_ctc v8.0", "--aom_ctc v8.0"},
        {pair + " --aom_ctc proposed", "deprecated"},
        {pair + " --nflx_ctc v2.0", "--nflx_ctc v2.0"},
        {pair + " --aom_ctc v1.0 -m version=vmaf_v0.6.1:name=vmaf", "unique"},
        {pair + " -o ''", "-o/--output"},
        {pair + " -o", "--output"},  // missing value
        {pair + " -m name=x", "version=NAME"},
        {pair + " -m version=vmaf_v0.6.1:bogus", "bogus"},
        {pair + " -m version=vmaf_v0.6.1:vif.nosuch=1", "nosuch"},
        {pair + " -m version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=0.5", "vif_enhn_gain_limit"},
        {pair + " -m version=vmaf_v0.6.1:foo.bar=1", "foo"},
        {pair + " -m version=vmaf_v9", "vmaf_v9"},
        {pair + " -m version=vmaf_v0.6.1 -m version=vmaf_v0.6.1neg", "unique"},
        {pair + " --feature nosuch", "nosuch"},
        {pair + " --feature =x=1", "no feature name"},
        {pair + " --feature vif=egl", "egl"},
        {pair + " --feature vif=nosuch=1", "nosuch"},
        {pair + " --feature adm=adm_enhn_gain_limit=0.5", "adm_enhn_gain_limit"},
        {pair + " --feature motion=motion_force_zero=maybe", "motion_force_zero"},
        // Negative zero, which upstream's option parser refuses (it takes a zero only as "0...").
        {pair + " --feature float_motion=motion_blend_factor=-0", "motion_blend_factor"},
        {pair + " --feature float_motion=motion_blend_factor=-1e-50", "a zero must be written 0"},
        {pair + " --feature adm=adm_csf_mode=-0", "adm_csf_mode"},
        {pair + " -m version=vmaf_v0.6.1:motion.motion_blend_factor=-0.0", "motion_blend_factor"},
        // A model's outputs may not take a name another output of the run has.
        {pair + " -m version=vmaf_v0.6.1:name=psnr_y --feature psnr", "which is also the feature output \"psnr_y\""},
        {pair + " -m version=vmaf_v0.6.1:name=integer_adm2",
         "the feature output \"VMAF_integer_feature_adm2_score\" (printed \"integer_adm2\")"},
        {pair + " -m version=vmaf_v0.6.1:name=VMAF_integer_feature_vif_scale0_score",
         "the feature output \"VMAF_integer_feature_vif_scale0_score\""},
        {pair + " -m version=vmaf_v0.6.1:name=motion3 --feature float_motion", "(printed \"motion3\")"},
        {pair + " -m version=vmaf_v0.6.1:name=float_anpsnr --feature float_ansnr", "the feature output \"float_anpsnr\""},
        {pair + " -m version=vmaf_v0.6.1:name=integer_adm_egl_1 --feature adm=debug=true:adm_enhn_gain_limit=1",
         "the feature output \"integer_adm_egl_1\""},
        {pair + " -m version=vmaf_b_v0.6.3:name=b -m version=vmaf_v0.6.1:name=b_0001", "\"b_0001\", which is also model"},
        {pair + " -m version=vmaf_b_v0.6.3:name=b -m version=vmaf_v0.6.1:name=b_stddev", "\"b_stddev\""},
        {pair + " -m version=vmaf_v0.6.1:name=b_ci_p95_lo -m version=vmaf_b_v0.6.3:name=b", "\"b_ci_p95_lo\""},
        // -n loads the models all the same: unknown ones and repeated names are still errors.
        {pair + " -n -m version=vmaf_v9", "vmaf_v9"},
        {pair + " -n -m version=vmaf_v0.6.1 -m version=vmaf_v0.6.1neg", "unique"},
        // A usage error is found before any file is opened.
        {"-r " + path("nope.yuv").string() + " -d " + path("nope.yuv").string() + kRaw + " --threads 5000", "0..1024"},
        {"-r " + path("nope.yuv").string() + " -d " + path("nope.yuv").string() + kRaw + " --feature nosuch", "nosuch"},
        {"-r " + path("nope.yuv").string() + " -d " + path("nope.yuv").string() + kRaw + " -m version=vmaf_v9", "vmaf_v9"},
    };
    for (const auto& c : cases) {
        const CliResult r = run(c.args);
        EXPECT_FALSE(r.signaled) << c.args;
        EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.word), std::string::npos) << c.args << ": message lacks \"" << c.word << "\": " << r.err;
    }
}

// Upstream's -n skips prediction only: a model's features are extracted and written (the way
// to dump them), from built-in models, model files and presets; no score, no summary line.
TEST_F(CliTest, NoPredictionStillExtractsTheModelsFeatures) {
    const std::string pair = pair_args();
    const auto names_of = [&](const std::string& args) {
        const CliResult r = run(pair + " " + args + " --json -q -o " + path("out.json").string());
        EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
        EXPECT_EQ(r.out, "") << args;  // no "vmaf_v0.6.1: ..." summary
        const auto j = nlohmann::ordered_json::parse(read_file(path("out.json")));  // keys in the file's order
        std::vector<std::string> names;
        EXPECT_EQ(j.at("frames").size(), 3u) << args;
        for (const auto& [k, v] : j["frames"][1]["metrics"].items()) names.push_back(k);
        return names;
    };
    const std::vector<std::string> v061 = {"integer_adm2", "integer_aim", "integer_adm3", "integer_adm_scale0",
                                           "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3",
                                           "VMAF_integer_feature_motion_sad_score", "integer_vif_scale0",
                                           "integer_vif_scale1", "integer_vif_scale2", "integer_vif_scale3",
                                           "integer_motion2", "integer_motion3"};
    EXPECT_EQ(names_of("-n -m version=vmaf_v0.6.1"), v061);
    std::filesystem::copy_file(std::string(VMAFX_SOURCE_DIR) + "/models/vmaf_v0.6.1.json", path("model.json"));
    EXPECT_EQ(names_of("-n -m path=" + path("model.json").string()), v061);
    // Without -m nothing but the features asked for (no default model).
    EXPECT_EQ(names_of("-n --feature psnr"), (std::vector<std::string>{"psnr_y", "psnr_cb", "psnr_cr"}));
    // A collection: its members' features, no member scores.
    const std::vector<std::string> b = names_of("-n -m version=vmaf_b_v0.6.3");
    EXPECT_EQ(std::count(b.begin(), b.end(), "vmaf"), 0);
    EXPECT_NE(std::find(b.begin(), b.end(), "integer_vif_scale3"), b.end());
    // No model writes, so a model's name may equal a feature output (as upstream accepts it).
    std::vector<std::string> psnr = v061;
    psnr.insert(psnr.begin() + 12, {"psnr_y", "psnr_cb", "psnr_cr"});
    EXPECT_EQ(names_of("-n -m version=vmaf_v0.6.1:name=psnr_y --feature psnr"), psnr);
    // A preset's models too: --aom_ctc v1.0 adds vmaf_v0.6.1 and vmaf_v0.6.1neg (egl 1).
    // (float_ms_ssim, one of its features, needs 176x176.)
    const auto big_ref = write_yuv("big_ref.yuv", 176, 176, 3, 3), big_dist = write_yuv("big_dist.yuv", 176, 176, 3, 4);
    const CliResult r = run("-r " + big_ref.string() + " -d " + big_dist.string() +
                            " -w 176 -h 176 -p 420 -b 8 -n --aom_ctc v1.0 --csv -q -o " + path("ctc.csv").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string ctc = read_file(path("ctc.csv"));
    const std::string ctc_header = ctc.substr(0, ctc.find('\n'));
    EXPECT_NE(ctc_header.find(",integer_adm2_egl_1,"), std::string::npos) << ctc_header;
    EXPECT_NE(ctc_header.find(",float_ms_ssim,"), std::string::npos) << ctc_header;
    EXPECT_EQ(ctc_header.find(",vmaf,"), std::string::npos) << ctc_header;
    EXPECT_EQ(ctc_header.find(",vmaf_neg,"), std::string::npos) << ctc_header;
}

// A model may take the name of an output no feature of the run writes with its options (adm's
// debug output integer_adm without debug; psnr's psnr_cb without chroma): upstream writes the
// model's score under it, and so does vmafx.
TEST_F(CliTest, ModelNamedAsAnOutputNotWritten) {
    const std::string pair = pair_args();
    for (const std::string args : {"-m version=vmaf_v0.6.1:name=integer_adm",
                                   "-m version=vmaf_v0.6.1:name=psnr_cb --feature psnr=enable_chroma=false"}) {
        const CliResult r = run(pair + " " + args + " --csv -q -o " + path("out.csv").string());
        ASSERT_EQ(r.exit_code, 0) << args << ": " << r.err;
        const std::string csv = read_file(path("out.csv"));
        const std::string header = csv.substr(0, csv.find('\n'));
        const std::size_t at = args.find("name=") + 5;
        const std::string name = args.substr(at, args.find(' ', at) - at);
        EXPECT_TRUE(header.ends_with("," + name + ",")) << header;
        EXPECT_EQ(header.find("," + name + ","), header.size() - name.size() - 2) << header;  // once
    }
}

// The CSV columns in upstream's order: outputs as its feature collector first writes them
// (first frame's calls, then the second frame's: float_motion's motion3; then the flushes:
// integer motion's motion2 and motion3); with one frame motion3 comes at float_motion's flush.
TEST_F(CliTest, OutputOrderIsUpstreams) {
    const auto header = [&](const std::string& args) {
        const CliResult r = run(args + " -m version=vmaf_v0.6.1 --feature float_motion --csv -q -o " +
                                path("out.csv").string());
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const std::string csv = read_file(path("out.csv"));
        return csv.substr(0, csv.find('\n'));
    };
    const std::string pair = pair_args();
    const std::string start = "Frame,integer_adm2,integer_aim,integer_adm3,integer_adm_scale0,integer_adm_scale1,"
                              "integer_adm_scale2,integer_adm_scale3,VMAF_integer_feature_motion_sad_score,"
                              "integer_vif_scale0,integer_vif_scale1,integer_vif_scale2,integer_vif_scale3,";
    EXPECT_EQ(header(pair), start + "motion2,motion,motion3,integer_motion2,integer_motion3,vmaf,");
    EXPECT_EQ(header(pair + " --threads 3"), start + "motion2,motion,motion3,integer_motion2,integer_motion3,vmaf,");
    EXPECT_EQ(header(pair + " --frame_cnt 1"), start + "motion2,motion,integer_motion2,integer_motion3,motion3,vmaf,");
}

// A y4m header declaring a 16384x16384 4:4:4 16-bit frame (1.5 GiB of samples) that never
// comes: under a 1 GB address-space limit no frame is allocated where a regular file shows it
// is cut short, and where both videos are streams the failed allocation is an error naming the
// videos, their format and the bytes asked for, never an internal error.
TEST_F(CliTest, HugeDeclaredFramesFailCleanlyUnderAMemoryLimit) {
#ifdef VMAFX_SANITIZED_TESTS
    GTEST_SKIP() << "the sanitizers reserve more address space than the limit";
#else
    const std::string header = "YUV4MPEG2 W16384 H16384 F25:1 Ip A1:1 C444p16\nFRAME\n";
    ASSERT_EQ(header.size(), 52u);
    std::ofstream(path("big.y4m"), std::ios::binary) << header;
    ASSERT_EQ(::mkfifo(path("dist.fifo").c_str(), 0600), 0);
    const std::string limit = "ulimit -v 1000000; ";  // KiB: less than two of the 512 MiB planes
    const std::string out = " --json -o " + path("out.json").string();
    const auto big = path("big.y4m").string();
    // A regular file on standard input beside the same bytes in a file: a truncated frame 0
    // found from the file sizes, before anything is allocated.
    CliResult r = run("-r - -d " + big + out + " <" + big, limit);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("frame 0 is truncated: the file ends after 0 of its 1610612736 bytes"), std::string::npos)
        << r.err;
    // A pipe beside a regular file: the file's truncated frame 0 is found from its size
    // before the pipe is read (not the pipe's own truncation, which reading would find).
    r = run("-r - -d " + big + out, limit + "cat " + big + " |");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(big + ": frame 0 is truncated: the file ends after 0 of its 1610612736 bytes"),
              std::string::npos)
        << r.err;
    // Two streams, the reference through a pipe on standard input and the distorted video
    // through a FIFO fed by a writer process (waited for by its id); returns the exit status
    // and standard error.
    const auto two_streams = [&](const std::string& file) {
        const std::string cmd = limit + "cat " + file + " >" + path("dist.fifo").string() + " & writer=$!; " +
                                "cat " + file + " | " + cli() + " -r - -d " + path("dist.fifo").string() + out + " >" +
                                path("stdout.txt").string() + " 2>" + path("stderr.txt").string() +
                                "; status=$?; wait $writer; exit $status";
        const int status = std::system(cmd.c_str());
        return std::pair{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(path("stderr.txt"))};
    };
    // Cut short before its first sample: found without allocating a picture.
    auto [status, err] = two_streams(big);
    EXPECT_EQ(status, 1) << err;
    EXPECT_NE(err.find("frame 0 is truncated: the stream ends after 0 of its 1610612736 bytes"), std::string::npos)
        << err;
    // A frame begun (one byte): its pictures must be allocated, and that fails under the limit.
    std::ofstream(path("begun.y4m"), std::ios::binary) << header << 'x';
    std::tie(status, err) = two_streams(path("begun.y4m").string());
    EXPECT_EQ(status, 1) << err;
    EXPECT_NE(err.find("vmafx: error: reference \"-\" and distorted \"" + path("dist.fifo").string() +
                       "\" (16384x16384 444 16-bit): out of memory: 536870912 bytes asked for a 16384x16384 plane "
                       "of 2-byte samples"),
              std::string::npos)
        << err;
    EXPECT_EQ(err.find("internal error"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(path("out.json")));
    // The pictures fit (768 MiB: 8-bit 4:2:0 of zeros) but a metric's float image does not.
    const std::string zeros = "(printf 'YUV4MPEG2 W16384 H16384 F25:1 C420jpeg\\nFRAME\\n'; head -c 402653184 /dev/zero)";
    const std::string float_cmd = "ulimit -v 1600000; " + zeros + " >" + path("dist.fifo").string() +
                                  " & writer=$!; " + zeros + " | " + cli() + " -r - -d " +
                                  path("dist.fifo").string() + " -n --feature float_vif --threads 1" + out + " 2>" +
                                  path("stderr.txt").string() + "; status=$?; wait $writer; exit $status";
    const int float_status = std::system(float_cmd.c_str());
    EXPECT_TRUE(WIFEXITED(float_status) && WEXITSTATUS(float_status) == 1);
    err = read_file(path("stderr.txt"));
    EXPECT_NE(err.find("(16384x16384 420 8-bit): out of memory: 1073741824 bytes asked for a 16384x16384 float image"),
              std::string::npos)
        << err;
    EXPECT_FALSE(fs::exists(path("out.json")));
#endif
}

TEST_F(CliTest, OtherErrorsExitWithOne) {
    const std::string pair = pair_args();
    std::ofstream(path("bad_model.json")) << "{ not json";
    std::ofstream(path("short.yuv"), std::ios::binary) << std::string(100, 'x');
    std::ofstream(path("bad.y4m"), std::ios::binary) << "YUV4MPEG2 W64 Hx F25:1\nFRAME\n";
    fs::create_directory(path("a_dir"));
    struct Case {
        std::string args, word;
    };
    const std::vector<Case> cases = {
        {"-r " + path("nope.yuv").string() + " -d " + path("dist.yuv").string() + kRaw, "nope.yuv"},
        {"-r " + path("ref.yuv").string() + " -d " + path("short.yuv").string() + kRaw, "short.yuv"},
        {"-r " + path("bad.y4m").string() + " -d " + path("bad.y4m").string(), "bad.y4m"},
        {pair + " -m path=" + path("missing_model.json").string(), "missing_model.json"},
        {pair + " -m path=" + path("bad_model.json").string(), "bad_model.json"},
        {pair + " --frame_skip_ref 4294967295", "cannot skip"},
        {pair + " --frame_skip_dist 4", "cannot skip"},
        {pair + " --frame_skip_dist 1", "--frame_cnt"},  // different frame counts
        {pair + " -o " + path("no_dir/out.json").string(), "No such file or directory"},
        {pair + " -o " + path("a_dir").string(), "Is a directory"},
        {pair + " -o " + path("ref.yuv").string() + "/out.json", "Not a directory"},
    };
    for (const auto& c : cases) {
        const CliResult r = run(c.args + " -q");
        EXPECT_FALSE(r.signaled) << c.args;
        EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.word), std::string::npos) << c.args << ": message lacks \"" << c.word << "\": " << r.err;
    }
}

// ---------------------------------------------------------------------------------------
// Threads and frame counts at the ends of their ranges.

TEST_F(CliTest, ThreadRange) {
    const std::string pair = pair_args();
    const CliResult one = run(pair + " --json -o - -q --precision max --threads 1");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const auto scores = [](const std::string& json) { return nlohmann::json::parse(json).at("frames"); };
    for (const char* n : {"0", "1024"}) {
        const CliResult r = run(pair + " --json -o - -q --precision max --threads " + n);
        ASSERT_EQ(r.exit_code, 0) << "--threads " << n << ": " << r.err;
        EXPECT_EQ(scores(r.out), scores(one.out)) << "--threads " << n;
    }
}

TEST_F(CliTest, HugeFrameCountsAndSubsample) {
    const std::string pair = pair_args();
    CliResult r = run(pair + " --json -o - -q --subsample 4294967295");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto frames = nlohmann::json::parse(r.out).at("frames");
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0]["frameNum"], 0);
    r = run(pair + " --json -o - -q --subsample 2 --frame_cnt 4294967295");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    frames = nlohmann::json::parse(r.out).at("frames");
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[1]["frameNum"], 2);
}

// ---------------------------------------------------------------------------------------
// Where -o writes.

TEST_F(CliTest, OutputDashIsStandardOutputAndTheSummaryGoesToStandardError) {
    const CliResult r = run(pair_args() + " --json -o -");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);  // nothing but the JSON on standard output
    EXPECT_EQ(j.at("frames").size(), 3u);
    EXPECT_NE(r.err.find("vmaf_v0.6.1: "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("-")));
}

TEST_F(CliTest, OutputDashIntoAPipe) {
    const std::string cmd = cli() + " " + pair_args() + " --csv -o - 2>" + path("stderr.txt").string();
    FILE* pipe = ::popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    const int status = ::pclose(pipe);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(path("stderr.txt"));
    EXPECT_EQ(out.substr(0, 6), "Frame,");
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 4);  // header and 3 frames, no summary
    EXPECT_NE(read_file(path("stderr.txt")).find("vmaf_v0.6.1: "), std::string::npos);
}

TEST_F(CliTest, OutputThroughSymlinkToOwnStandardOutput) {
    const std::string pair = pair_args();
    fs::create_symlink("/proc/self/fd/1", path("stdout_link"));
    const CliResult r = run(pair + " --json -o " + path("stdout_link").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out).at("frames").size(), 3u);
    EXPECT_NE(r.err.find("vmaf_v0.6.1: "), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_symlink(path("stdout_link")));
    EXPECT_EQ(fs::read_symlink(path("stdout_link")), "/proc/self/fd/1");
}

TEST_F(CliTest, ReaderGoneIsAnErrorNotASignal) {
    const std::string pair = pair_args();
    int p[2];
    ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
    ::close(p[0]);  // nobody will read
    const CliResult r = run_with_stdout(pair + " --json -o - -q", p[1]);
    ::close(p[1]);
    EXPECT_FALSE(r.signaled);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("Broken pipe"), std::string::npos) << r.err;
}

TEST_F(CliTest, FailedRunLeavesTheExistingOutputUntouched) {
    const std::string pair = pair_args();
    std::ofstream(path("out.json")) << "old";
    const CliResult r = run("-r " + path("nope.yuv").string() + " -d " + path("dist.yuv").string() + kRaw +
                            " --json -o " + path("out.json").string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("nope.yuv"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(path("out.json")), "old");
    expect_no_temporary_file();
}

TEST_F(CliTest, FailedRunDoesNotOpenAFifo) {
    // Opening a FIFO waits for a reader: the CLI must not open it before it has something to
    // write (`timeout` turns a hang into a failure).
    const std::string pair = pair_args();
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    const CliResult r = run("-r " + path("nope.yuv").string() + " -d " + path("dist.yuv").string() + kRaw +
                            " -o " + path("fifo").string(),
                            "timeout 60");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("nope.yuv"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_fifo(path("fifo")));
}

TEST_F(CliTest, BadOutputFailsBeforeTheRun) {
    // The input is missing too: the output's error comes first, before any file is read.
    const CliResult r = run("-r " + path("nope.yuv").string() + " -d " + path("nope.yuv").string() + kRaw +
                            " -o " + path("no_dir/out.json").string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("out.json"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("nope.yuv"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("no_dir")));
}

TEST_F(CliTest, OutputIntoUnwritableDirectory) {
    // Root may write anywhere: as root the CLI runs as nobody (setpriv, util-linux).
    std::string as_user;
    if (::geteuid() == 0) {
        if (std::system("setpriv --version >/dev/null 2>&1") != 0)
            GTEST_SKIP() << "skipped: running as root without setpriv to run as another user";
        as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups";
        fs::permissions(dir_, fs::perms::others_exec | fs::perms::others_read, fs::perm_options::add);
    }
    const std::string pair = pair_args();
    fs::create_directory(path("ro"));
    fs::permissions(path("ro"), fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                                    fs::perms::others_exec);
    const CliResult r = run(pair + " -o " + path("ro/out.xml").string(), as_user);
    fs::permissions(path("ro"), fs::perms::owner_all);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("ro/out.xml"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(path("ro")));
}

}  // namespace
