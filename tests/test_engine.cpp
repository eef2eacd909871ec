// The frame pipeline: same bits for every thread count, memory bounded by frames in flight.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "gpu/twin.hpp"
#include "output/writers.hpp"
#include "parity/inputs.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

namespace fs = std::filesystem;

/// A w x h 4:2:0 format of `bit_depth` bits.
VideoFormat format_of(int w, int h, int bit_depth = 8) {
    VideoFormat f;
    f.width = w;
    f.height = h;
    f.bit_depth = bit_depth;
    return f;
}

class EngineTest : public test::TempDirTest {
protected:
    fs::path write_video(const std::string& name, const VideoFormat& f, int frames, unsigned seed, int noise) {
        write_random_video((dir_ / name).string(), f, frames, seed, noise);
        return dir_ / name;
    }

    RunConfig config(const VideoFormat& f, int frames) {
        RunConfig c;
        c.reference_path = write_video("ref.yuv", f, frames, 1, 0).string();
        c.distorted_path = write_video("dist.yuv", f, frames, 2, 6).string();
        c.raw_format = f;
        c.models.push_back(parse_model_spec("version=vmaf_v0.6.1"));
        c.models.push_back(parse_model_spec("version=vmaf_v0.6.1neg:name=vmaf_neg"));
        return c;
    }
};

bool same_bits(const RunResult& a, const RunResult& b) {
    if (a.scores.names() != b.scores.names() || a.frames != b.frames) return false;
    for (const auto& n : a.scores.names())
        for (unsigned i = 0; i < a.frames; ++i) {
            const auto x = a.scores.get(n, i), y = b.scores.get(n, i);
            if (x.has_value() != y.has_value()) return false;
            if (x && std::memcmp(&*x, &*y, sizeof(double)) != 0) return false;
        }
    return true;
}

TEST_F(EngineTest, SameBitsForEveryThreadCount) {
    const VideoFormat f = format_of(67, 45, 10);
    RunConfig c = config(f, 7);
    c.threads = 1;
    const RunResult one = run(c);
    ASSERT_EQ(one.frames, 7u);
    ASSERT_TRUE(one.scores.get("vmaf", 6).has_value());
    ASSERT_TRUE(one.scores.get("vmaf_neg", 6).has_value());
    for (unsigned t : {2u, 3u, 8u}) {
        c.threads = t;
        EXPECT_TRUE(same_bits(one, run(c))) << t << " threads";
    }
}

// A run crossing processes (vmafx.batch's workers): every field back, doubles by their bits.
TEST_F(EngineTest, SerializedRunComesBackWhole) {
    RunConfig c = config(format_of(67, 45, 10), 4);
    c.features.push_back(parse_feature_spec("psnr=enable_apsnr=true"));
    c.provenance = true;
    const RunResult r = run(c);
    const RunResult back = deserialize_run(serialize_run(r));
    EXPECT_TRUE(same_bits(r, back));
    ASSERT_EQ(back.scores.aggregates().size(), r.scores.aggregates().size());
    ASSERT_FALSE(r.scores.aggregates().empty());
    for (const OutputFormat f : {OutputFormat::kJson, OutputFormat::kXml, OutputFormat::kCsv}) {
        NumberFormat exact;
        exact.max_precision = true;
        EXPECT_EQ(render_output(back, f, exact), render_output(r, f, exact));
    }
    ASSERT_EQ(back.models.size(), 2u);
    EXPECT_EQ(back.models[1].name, "vmaf_neg");
    EXPECT_EQ(back.provenance.models.size(), 2u);
    EXPECT_EQ(back.backends.size(), r.backends.size());
    // Other bytes are an Error, not a crash.
    for (const std::string& bad : {std::string(), std::string("\x01\x02"), serialize_run(r).substr(0, 40)})
        EXPECT_THROW(deserialize_run(bad), Error);
}

// Segments scored with the temporal context around them, stitched: the whole run's values and
// its models' pooled means (vmafx.batch; tests/python/test_batch.py tries every split).
TEST_F(EngineTest, StitchedSegmentsAreTheWholeRun) {
    RunConfig c = config(format_of(48, 40), 9);
    const RunResult whole = run(c);
    const TemporalContext ctx = temporal_context(c);
    EXPECT_EQ(ctx, (TemporalContext{1, 1, false}));  // vmaf_v0.6.1's motion2
    std::vector<RunResult> runs;
    std::vector<RunPart> parts;
    runs.reserve(3);
    for (const auto& [a, b] : {std::pair{0u, 3u}, std::pair{3u, 7u}, std::pair{7u, 9u}}) {
        RunConfig s = c;
        const unsigned start = a >= ctx.before ? a - ctx.before : 0u, end = std::min(9u, b + ctx.after);
        s.frame_skip_ref = s.frame_skip_dist = start;
        s.frame_count = end - start;
        runs.push_back(run(s));
        parts.push_back({&runs.back(), a - start, b - a});
    }
    const RunResult stitched = stitch_runs(parts);
    EXPECT_TRUE(same_bits(whole, stitched));
    ASSERT_EQ(stitched.models.size(), whole.models.size());
    for (std::size_t m = 0; m < whole.models.size(); ++m)
        EXPECT_EQ(std::memcmp(&stitched.models[m].mean, &whole.models[m].mean, sizeof(double)), 0);
    // Without the context, the frame after the first cut differs (its motion2).
    parts[1].first = 0;
    RunConfig s = c;
    s.frame_skip_ref = s.frame_skip_dist = 3;
    s.frame_count = 4;
    const RunResult bare = run(s);
    parts[1].result = &bare;
    EXPECT_FALSE(same_bits(whole, stitch_runs(parts)));
    // Run-wide aggregates cannot be stitched; psnr's apsnr makes the whole run the context.
    c.features.push_back(parse_feature_spec("psnr=enable_apsnr=true"));
    EXPECT_TRUE(temporal_context(c).whole_run);
    const RunResult with_apsnr = run(c);
    EXPECT_THROW(stitch_runs({{&with_apsnr, 0, 9}}), Error);
}

TEST_F(EngineTest, PicturesBoundedByFramesInFlight) {
    const VideoFormat f = format_of(48, 40);
    RunConfig c = config(f, 48);
    c.threads = 2;
    const RunResult long_run = run(c);
    EXPECT_EQ(long_run.frames, 48u);
    // 2 x threads tokens, two pictures each, plus the previous reference motion keeps.
    EXPECT_LE(long_run.pictures_allocated, 2u * (2u * c.threads) + 2u);
    // The bound does not depend on the length: 48 frames never had more than that alive.
    EXPECT_LT(long_run.pictures_allocated, long_run.frames);
}

TEST_F(EngineTest, SubsampleScoresEveryNthFrame) {
    const VideoFormat f = format_of(48, 40);
    RunConfig c = config(f, 5);
    c.subsample = 2;
    const RunResult r = run(c);
    EXPECT_TRUE(r.scores.get("vmaf", 0).has_value());
    EXPECT_FALSE(r.scores.get("vmaf", 1).has_value());
    EXPECT_TRUE(r.scores.get("vmaf", 4).has_value());
    // motion sees every frame (it needs each previous reference), as upstream
    EXPECT_TRUE(r.scores.get("VMAF_integer_feature_motion_sad_score", 1).has_value());
}

TEST_F(EngineTest, FeatureSpecSyntax) {
    const FeatureSpec s = parse_feature_spec("adm=adm_enhn_gain_limit=1.0:debug=true");
    EXPECT_EQ(s.name, "adm");
    ASSERT_EQ(s.options.size(), 2u);
    EXPECT_EQ(s.options[0].first, "adm_enhn_gain_limit");
    EXPECT_EQ(s.options[0].second, "1");  // upstream normalizes numbers (%g of a float)
    EXPECT_EQ(s.options[1].second, "true");
    EXPECT_THROW(parse_feature_spec("vif=egl"), Error);
    EXPECT_THROW(parse_feature_spec("=x=1"), Error);
    EXPECT_THROW(parse_feature_spec("vif=a=1::b=2"), Error);
}

/// The message of the vmafx::Error run(c) throws; fails the test if it throws none.
std::string run_error(const RunConfig& c) {
    try {
        run(c);
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "run() threw no vmafx::Error";
    return {};
}

bool has_name_containing(const RunResult& r, const std::string& part) {
    const auto& names = r.scores.names();
    return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

// Upstream merges two registrations of one extractor whose feature parameters are equal and
// keeps the first (models before --feature): options that are not feature parameters (debug)
// of the later one are dropped. Checked against upstream's output names (see
// docs/reliability.md); both orders.
TEST_F(EngineTest, DuplicateExtractorsMergeKeepingTheFirst) {
    const VideoFormat f = format_of(64, 48);
    RunConfig c = config(f, 2);
    c.models.clear();
    c.no_prediction = true;
    c.features = {parse_feature_spec("adm=debug=true"), parse_feature_spec("adm")};
    const RunResult debug_first = run(c);
    EXPECT_TRUE(has_name_containing(debug_first, "adm_num")) << "the first registration (debug) is kept";
    EXPECT_EQ(debug_first.scores.names().size(), 18u);

    c.features = {parse_feature_spec("adm"), parse_feature_spec("adm=debug=true")};
    const RunResult plain_first = run(c);
    EXPECT_FALSE(has_name_containing(plain_first, "adm_num")) << "debug of the later registration is dropped";
    EXPECT_EQ(plain_first.scores.names().size(), 7u);

    // A model's adm comes first: --feature adm=debug=true merges into it, adding nothing.
    c.no_prediction = false;
    c.models = {parse_model_spec("version=vmaf_v0.6.1")};
    c.features = {parse_feature_spec("adm=debug=true")};
    const RunResult model_first = run(c);
    EXPECT_FALSE(has_name_containing(model_first, "adm_num"));
    EXPECT_FALSE(has_name_containing(model_first, "adm_den"));

    // Another feature parameter makes another instance, debug and all.
    c.features = {parse_feature_spec("adm=adm_enhn_gain_limit=1:debug=true")};
    const RunResult other = run(c);
    EXPECT_TRUE(has_name_containing(other, "adm_num_egl_1"));
    EXPECT_TRUE(has_name_containing(other, "integer_adm2_egl_1"));
    EXPECT_TRUE(other.scores.get("VMAF_integer_feature_adm2_score", 1).has_value());
}

// Only scored frames must be whole: a damaged tail after the scored frames is a warning naming
// the file and the frame; a damaged frame that is scored is an error naming both.
TEST_F(EngineTest, DamagedTailScoredOnlyWhenAsked) {
    const VideoFormat f = format_of(48, 40);
    RunConfig c = config(f, 6);
    const std::string dist = c.distorted_path;
    // 4 whole frames and part of a fifth.
    fs::resize_file(dist, f.frame_bytes() * 4 + 123);
    c.frame_count = 3;
    const RunResult r = run(c);
    EXPECT_EQ(r.frames, 3u);
    ASSERT_EQ(r.warnings.size(), 1u);
    for (const std::string& part : {dist, std::string("frame 4 is truncated"), std::string("123 of its"),
                                   std::string("not scored")})
        EXPECT_NE(r.warnings[0].find(part), std::string::npos) << r.warnings[0];

    c.frame_count = 5;  // the common prefix holds the damaged frame 4
    std::string e = run_error(c);
    EXPECT_NE(e.find(dist + ": frame 4 is truncated"), std::string::npos) << e;
    c.frame_count = 0;  // every frame: the damaged one too
    e = run_error(c);
    EXPECT_NE(e.find(dist + ": frame 4 is truncated"), std::string::npos) << e;

    // y4m cut inside frame 2, and skipping: frames 1..1 of it are scored.
    const std::string header = "YUV4MPEG2 W48 H40 C420jpeg\n";
    std::ifstream raw(c.reference_path, std::ios::binary);
    std::string y4m = header;
    for (int i = 0; i < 3; ++i) {
        std::string frame(f.frame_bytes(), '\0');
        raw.read(frame.data(), static_cast<std::streamsize>(frame.size()));
        y4m += "FRAME\n" + frame;
    }
    y4m.resize(y4m.size() - 5);
    const std::string cut = (dir_ / "cut.y4m").string();
    std::ofstream(cut, std::ios::binary) << y4m;
    RunConfig y = c;
    y.distorted_path = cut;
    y.frame_skip_dist = 1;
    y.frame_count = 1;
    const RunResult ry = run(y);
    EXPECT_EQ(ry.frames, 1u);
    ASSERT_EQ(ry.warnings.size(), 1u);
    EXPECT_NE(ry.warnings[0].find(cut + ": frame 2 is truncated"), std::string::npos) << ry.warnings[0];
    y.frame_count = 2;
    e = run_error(y);
    EXPECT_NE(e.find(cut + ": frame 2 is truncated"), std::string::npos) << e;
}

/// Writes the file `from` into a new FIFO `fifo` from a thread (which waits for a reader).
std::thread feed_fifo(const fs::path& from, const fs::path& fifo, std::size_t bytes = SIZE_MAX) {
    EXPECT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    return std::thread([from, fifo, bytes] {
        std::ifstream in(from, std::ios::binary);
        std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        data.resize(std::min(bytes, data.size()));
        const int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) return;
        (void)test::write_to_pipe(fd, data, 4096);  // the run may stop reading early (frame_count)
        ::close(fd);
    });
}

// Either video may be a stream: the same bits as from the files; a length mismatch found at a
// stream's end names both counts; --frame_cnt scores the common prefix.
TEST_F(EngineTest, StreamsScoreAsFiles) {
    const VideoFormat f = format_of(50, 38, 10);
    RunConfig c = config(f, 5);
    c.threads = 1;  // the two pipes are still read at once
    const RunResult files = run(c);

    RunConfig s = c;
    s.reference_path = (dir_ / "ref.fifo").string();
    s.distorted_path = (dir_ / "dist.fifo").string();
    std::thread a = feed_fifo(c.reference_path, s.reference_path);
    std::thread b = feed_fifo(c.distorted_path, s.distorted_path);
    const RunResult streams = run(s);
    a.join();
    b.join();
    EXPECT_TRUE(same_bits(files, streams));

    // The distorted stream ends after 3 frames: an error with both counts, after reading it all.
    fs::remove(s.distorted_path);
    RunConfig m = c;
    m.distorted_path = s.distorted_path;
    std::thread short_feed = feed_fifo(c.distorted_path, m.distorted_path, f.frame_bytes() * 3);
    const std::string e = run_error(m);
    short_feed.join();
    EXPECT_NE(e.find("has 5 frames but distorted \"" + m.distorted_path + "\" has 3"), std::string::npos) << e;

    // The same with --frame_cnt: the common prefix, 3 frames.
    fs::remove(m.distorted_path);
    m.frame_count = 10;
    std::thread again = feed_fifo(c.distorted_path, m.distorted_path, f.frame_bytes() * 3);
    const RunResult prefix = run(m);
    again.join();
    EXPECT_EQ(prefix.frames, 3u);
    EXPECT_EQ(prefix.scores.get("vmaf", 2), files.scores.get("vmaf", 2));

    RunConfig both = c;
    both.reference_path = both.distorted_path = "-";
    EXPECT_NE(run_error(both).find("cannot both be standard input"), std::string::npos);
}

// One writer feeding both videos, as one muxer writing two pipes does: both stream headers
// first, then the frames interleaved, each frame larger than a pipe's buffer. Opening must
// read no further than each header, and frame i of both must be read at once.
TEST_F(EngineTest, OneWriterFeedingBothPipes) {
    const VideoFormat f = format_of(320, 240);  // 115,200-byte frames, above a pipe's 64 KiB
    RunConfig c = config(f, 4);
    c.threads = 1;
    const RunResult files = run(c);
    const auto frames_of = [&](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        std::vector<std::string> out(4, std::string(f.frame_bytes(), '\0'));
        for (auto& fr : out) in.read(fr.data(), static_cast<std::streamsize>(fr.size()));
        return out;
    };
    const auto ref = frames_of(c.reference_path), dist = frames_of(c.distorted_path);
    RunConfig s = c;
    s.reference_path = (dir_ / "ref.y4m").string();
    s.distorted_path = (dir_ / "dist.y4m").string();
    ASSERT_EQ(::mkfifo(s.reference_path.c_str(), 0600), 0);
    ASSERT_EQ(::mkfifo(s.distorted_path.c_str(), 0600), 0);
    std::thread writer([&] {
        const int r = ::open(s.reference_path.c_str(), O_WRONLY | O_CLOEXEC);
        const int d = ::open(s.distorted_path.c_str(), O_WRONLY | O_CLOEXEC);
        const auto put = [](int fd, const std::string& bytes) { (void)test::write_to_pipe(fd, bytes); };
        const std::string header = "YUV4MPEG2 W320 H240 F25:1 Ip C420jpeg\n";
        put(r, header);
        put(d, header);
        for (int i = 0; i < 4; ++i) {
            put(r, "FRAME\n" + ref[static_cast<std::size_t>(i)]);
            put(d, "FRAME\n" + dist[static_cast<std::size_t>(i)]);
        }
        ::close(r);
        ::close(d);
    });
    // A deadlock would hang the suite: a watchdog ends the process with a message instead.
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
        for (int i = 0; i < 600 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (!done) {
            std::fprintf(stderr, "EngineTest.OneWriterFeedingBothPipes: deadlocked for 60 s\n");
            std::_Exit(1);
        }
    });
    const RunResult streams = run(s);
    done = true;
    writer.join();
    watchdog.join();
    EXPECT_TRUE(same_bits(files, streams));
}

// Beside a stream, a file's damaged tail is known up front but the run's length only at its
// end: a tail the run did not reach is still a warning; one it reached, an error.
TEST_F(EngineTest, DamagedTailBesideAStream) {
    const VideoFormat f = format_of(48, 40);
    RunConfig c = config(f, 6);
    fs::resize_file(c.distorted_path, f.frame_bytes() * 4 + 77);
    const std::string ref = c.reference_path;
    c.reference_path = (dir_ / "ref.fifo").string();
    c.frame_count = 2;
    std::thread feed = feed_fifo(ref, c.reference_path);
    const RunResult r = run(c);
    feed.join();
    EXPECT_EQ(r.frames, 2u);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find(c.distorted_path + ": frame 4 is truncated"), std::string::npos) << r.warnings[0];

    fs::remove(c.reference_path);
    c.frame_count = 0;
    std::thread again = feed_fifo(ref, c.reference_path);
    const std::string e = run_error(c);
    again.join();
    EXPECT_NE(e.find(c.distorted_path + ": frame 4 is truncated"), std::string::npos) << e;
}

/// Writes 32767, above the 10-bit maximum, at luma (7, 5) of frame 9 of raw 40-wide 10-bit `path`.
void put_sample_above_10_bits(const std::string& path, const VideoFormat& f) {
    std::fstream io(path, std::ios::binary | std::ios::in | std::ios::out);
    io.seekp(static_cast<std::streamoff>(f.frame_bytes() * 9 + 2 * (5 * 40 + 7)));
    const char above[2] = {static_cast<char>(0xff), static_cast<char>(0x7f)};
    io.write(above, 2);
}

// An extractor that throws mid-run (here VIF, on a sample above the 10-bit maximum in frame 9)
// cancels the pipeline with frames in flight between its stages: the error reaches the caller
// and nothing is leaked (the sanitizer build runs this test under LeakSanitizer).
TEST_F(EngineTest, ExtractorErrorFreesFramesInFlight) {
    const VideoFormat f = format_of(40, 36, 10);
    RunConfig c = config(f, 16);
    put_sample_above_10_bits(c.distorted_path, f);
    for (unsigned threads : {1u, 2u, 4u}) {
        c.threads = threads;
        const std::string e = run_error(c);
        EXPECT_NE(e.find("frame 9"), std::string::npos) << e;
        EXPECT_NE(e.find("above the 10-bit maximum"), std::string::npos) << e;
        EXPECT_NE(e.find("distorted \"" + c.distorted_path + "\""), std::string::npos) << "names the files: " << e;
    }
}

// A twin's refusal of a frame (VIF on a sample above the bit depth, found when the GPU half
// finishes the frame) names the videos as the CPU's does, on every GPU backend this machine has.
TEST_F(EngineTest, TwinErrorsNameTheVideos) {
    const VideoFormat f = format_of(40, 36, 10);
    RunConfig c = config(f, 16);
    put_sample_above_10_bits(c.distorted_path, f);
    unsigned backends = 0;
    for (const char* backend : {"cuda", "vulkan"}) {
        if (!gpu_unavailable_reason(backend).empty()) continue;
        ++backends;
        c.backend = Backend(backend);
        const std::string e = run_error(c);
        EXPECT_NE(e.find("frame 9"), std::string::npos) << backend << ": " << e;
        EXPECT_NE(e.find("above the 10-bit maximum"), std::string::npos) << backend << ": " << e;
        EXPECT_NE(e.find("(reference \"" + c.reference_path + "\", distorted \"" + c.distorted_path + "\")"),
                  std::string::npos)
            << backend << " names the files: " << e;
    }
    if (backends == 0) GTEST_SKIP() << "no GPU backend usable here (CUDA, Vulkan)";
}

// A raw file of 2^32 - 1 whole frames and a damaged tail (sparse, 2x2 frames of 6 bytes): the
// damaged frame among those scored is the error, with its number; the frame counts are not
// wrapped to 0 ("no frames to score") or to a wrong length.
TEST_F(EngineTest, DamageAfterTheLastCountableFrame) {
    const VideoFormat f = format_of(2, 2);
    const std::filesystem::path big = path("big.yuv"), two = path("two.yuv");
    {
        std::ofstream(big, std::ios::binary).put('\0');
        std::error_code ec;
        std::filesystem::resize_file(big, std::uint64_t{4294967295u} * f.frame_bytes() + 5, ec);
        if (ec) GTEST_SKIP() << "this file system holds no sparse file of 25.8 GB here: " << ec.message();
        std::ofstream(two, std::ios::binary) << std::string(2 * f.frame_bytes(), '\x10');
    }
    RunConfig c;
    c.raw_format = f;
    c.features.push_back(parse_feature_spec("psnr"));
    c.reference_path = c.distorted_path = big.string();
    c.frame_skip_ref = c.frame_skip_dist = 4294967293u;
    std::string e = run_error(c);
    EXPECT_NE(e.find("frame 4294967295 is truncated"), std::string::npos) << e;
    // Against a 2-frame file with --frame_cnt 2: the two whole frames after the skip are scored.
    c.distorted_path = two.string();
    c.frame_skip_dist = 0;
    c.frame_count = 2;
    const RunResult r = run(c);
    EXPECT_EQ(r.frames, 2u);
    // Without --frame_cnt the lengths differ: 3 frames (the damaged one counted) against 2.
    c.frame_count = 0;
    e = run_error(c);
    EXPECT_NE(e.find("frame 4294967295 is truncated"), std::string::npos) << e;
}

TEST_F(EngineTest, FeatureErrorsAreUsageErrors) {
    // What the caller asked for is wrong, not a file: the CLI exits with 2 on these.
    for (const char* text : {"nosuch", "=x=1", "vif=egl", "vif=nosuch=1", "vif=vif_enhn_gain_limit=0.5",
                             "motion=motion_force_zero=maybe"})
        EXPECT_THROW(parse_feature_spec(text), UsageError) << text;
    EXPECT_NO_THROW(parse_feature_spec("vif=vif_enhn_gain_limit=1.0"));
    // A FeatureSpec built by hand is checked by run() alike.
    const VideoFormat f = format_of(48, 40);
    RunConfig c = config(f, 2);
    c.features = {{"nosuch", {}}};
    EXPECT_THROW(run(c), UsageError);
    c.features = {{"vif", {{"nosuch", "1"}}}};
    EXPECT_THROW(run(c), UsageError);
}

TEST_F(EngineTest, ThreadsAboveTheLimitAreRefused) {
    const VideoFormat f = format_of(48, 40);
    RunConfig c = config(f, 2);
    // 4294967295 used to overflow 2 x threads frames in flight and end in std::bad_alloc.
    for (unsigned t : {kMaxThreads + 1, 4294967295u}) {
        c.threads = t;
        try {
            (void)run(c);
            ADD_FAILURE() << t << " threads accepted";
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find(std::to_string(kMaxThreads)), std::string::npos) << e.what();
        }
    }
    c.threads = kMaxThreads;
    EXPECT_EQ(run(c).frames, 2u);
}

TEST_F(EngineTest, HugeSubsampleScoresFrameZeroOnly) {
    // next + subsample must not wrap around to a frame below the count.
    const VideoFormat f = format_of(48, 40);
    RunConfig c = config(f, 3);
    c.subsample = 4294967295u;
    const RunResult r = run(c);
    EXPECT_TRUE(r.scores.get("vmaf", 0).has_value());
    EXPECT_FALSE(r.scores.get("vmaf", 1).has_value());
    EXPECT_FALSE(r.scores.get("vmaf", 2).has_value());
}

TEST_F(EngineTest, BackendOfEveryMetricInstance) {
    const VideoFormat f = format_of(48, 40);
    RunConfig c = config(f, 2);
    c.models.resize(1);
    c.features.push_back(parse_feature_spec("ciede"));
    c.features.push_back(parse_feature_spec("vif=vif_enhn_gain_limit=1.0"));
    const RunResult r = run(c);
    EXPECT_EQ(r.backend, Backend(kCpuBackend));
    std::vector<std::string> features;
    for (const MetricBackend& b : r.backends) {
        features.push_back(b.feature);
        EXPECT_EQ(b.backend, Backend(kCpuBackend)) << b.feature;
        EXPECT_TRUE(b.note.empty()) << b.feature;
    }
    // The model's features (in its order), then the extra ones in order, with their option suffix.
    EXPECT_EQ(features, (std::vector<std::string>{"adm", "motion", "vif", "ciede", "vif_egl_1"}));
}

/// The scores of `r` by name, whatever the order of the names.
std::map<std::string, std::vector<std::optional<double>>> by_name(const RunResult& r) {
    std::map<std::string, std::vector<std::optional<double>>> out;
    for (const auto& n : r.scores.names())
        for (unsigned i = 0; i < r.frames; ++i) out[n].push_back(r.scores.get(n, i));
    return out;
}

bool same_values(const RunResult& a, const RunResult& b) {
    const auto x = by_name(a), y = by_name(b);
    if (x.size() != y.size()) return false;
    for (const auto& [name, values] : x) {
        const auto it = y.find(name);
        if (it == y.end() || it->second.size() != values.size()) return false;
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (values[i].has_value() != it->second[i].has_value()) return false;
            if (values[i] && std::memcmp(&*values[i], &*it->second[i], sizeof(double)) != 0) return false;
        }
    }
    return a.scores.aggregates() == b.scores.aggregates();
}

TEST_F(EngineTest, CudaRunsMetricsWithoutATwinOnTheCpuInTheSameRun) {
    VMAFX_REQUIRE_GPU();
    // vmaf_v0.6.1's vif, adm and motion have twins, and so have float_motion (temporal: previous
    // pictures, every frame under --subsample) and ciede (chroma planes); null, upstream's
    // do-nothing extractor, has none (every scoring metric has a CUDA twin): it runs in the CPU
    // half of the same run.
    const VideoFormat f = format_of(67, 45, 10);
    for (unsigned subsample : {1u, 3u}) {
        RunConfig c = config(f, 7);
        c.subsample = subsample;
        c.features.push_back(parse_feature_spec("ciede"));
        c.features.push_back(parse_feature_spec("float_motion"));
        c.features.push_back(parse_feature_spec("null"));
        const RunResult cpu = run(c);
        c.backend = Backend("cuda");
        const RunResult mixed = run(c);
        EXPECT_TRUE(same_values(cpu, mixed)) << "subsample " << subsample;
        // vmaf_v0.6.1's vif, adm, motion; vmaf_neg's vif and adm (other options; its motion is
        // merged); ciede; float_motion; null.
        ASSERT_EQ(mixed.backends.size(), 8u);
        EXPECT_EQ(mixed.backend, Backend("cuda"));
        unsigned on_cpu = 0;
        for (const MetricBackend& b : mixed.backends) {
            const bool twin = b.metric != "null";
            ASSERT_EQ(twin, find_twin(b.metric, "cuda") != nullptr) << b.metric;
            on_cpu += twin ? 0 : 1;
            EXPECT_EQ(b.backend, twin ? Backend("cuda") : Backend(kCpuBackend)) << b.feature;
            EXPECT_EQ(b.note, twin ? "" : "no CUDA twin") << b.feature;
        }
        EXPECT_EQ(on_cpu, 1u);  // null
        EXPECT_EQ(mixed.models.at(0).mean, cpu.models.at(0).mean);
    }
}

// Two cambi features with other options in one GPU run (every twin is made before any frame
// runs): the second's contrast kernel needs less shared memory than the first's and must not
// lower the limit the first set (cambi_cuda.cu raise_shared_limit: the limit is the kernel's for
// the whole process); both run on the GPU and give the CPU's values.
TEST_F(EngineTest, CudaRunsTwoCambiFeaturesOfOtherOptions) {
    VMAFX_REQUIRE_GPU();
    RunConfig c = config(format_of(320, 180, 8), 3);
    c.features.push_back(parse_feature_spec("cambi=max_log_contrast=5"));
    c.features.push_back(parse_feature_spec("cambi=max_log_contrast=0"));
    const RunResult cpu = run(c);
    c.backend = Backend("cuda");
    const RunResult gpu = run(c);
    EXPECT_TRUE(same_values(cpu, gpu));
    unsigned cambi_on_gpu = 0;
    for (const MetricBackend& b : gpu.backends)
        cambi_on_gpu += b.metric == "cambi" && b.backend == Backend("cuda") ? 1u : 0u;
    EXPECT_EQ(cambi_on_gpu, 2u);
}

// The same split with the Vulkan backend (lavapipe in CI): vmaf_v0.6.1's adm, motion and vif,
// psnr, float_psnr and float_moment run on the Vulkan twins (motion temporal: previous pictures,
// every frame under --subsample; psnr with chroma planes), float_motion on the CPU in the same
// run; every value the CPU's.
TEST_F(EngineTest, VulkanRunsMetricsWithoutATwinOnTheCpuInTheSameRun) {
    VMAFX_REQUIRE_BACKEND("vulkan");
    const VideoFormat f = format_of(67, 45, 10);
    for (unsigned subsample : {1u, 3u}) {
        RunConfig c = config(f, 7);
        c.subsample = subsample;
        c.features.push_back(parse_feature_spec("psnr=enable_chroma=true"));
        c.features.push_back(parse_feature_spec("float_motion"));
        c.features.push_back(parse_feature_spec("float_psnr"));
        c.features.push_back(parse_feature_spec("float_moment"));
        const RunResult cpu = run(c);
        c.backend = Backend("vulkan");
        const RunResult mixed = run(c);
        EXPECT_TRUE(same_values(cpu, mixed)) << "subsample " << subsample;
        EXPECT_EQ(mixed.backend, Backend("vulkan"));
        std::set<std::string> on_gpu, on_cpu;
        for (const MetricBackend& b : mixed.backends) {
            const bool twin = find_twin(b.metric, "vulkan") != nullptr;
            (twin ? on_gpu : on_cpu).insert(b.metric);
            EXPECT_EQ(b.backend, twin ? Backend("vulkan") : Backend(kCpuBackend)) << b.feature;
            EXPECT_EQ(b.note, twin ? "" : "no Vulkan twin") << b.feature;
        }
        EXPECT_EQ(on_gpu, (std::set<std::string>{"adm", "float_moment", "float_psnr", "motion", "psnr", "vif"}));
        EXPECT_EQ(on_cpu, (std::set<std::string>{"float_motion"}));
        EXPECT_EQ(mixed.models.at(0).mean, cpu.models.at(0).mean);
    }
}

// The GPU pipeline alone (every metric has a twin) on raw files, whose frame pairs it reads
// several at once (PairSource::take, read_taken): with skips, --frame_cnt and more frames than
// its ring, the CPU's frames and bits; videos of different lengths fail as the CPU's run fails.
// On the Vulkan backend (lavapipe in CI); the same pipeline serves CUDA.
TEST_F(EngineTest, GpuPipelineReadsRawPairsAheadAsTheCpuReadsThem) {
    VMAFX_REQUIRE_BACKEND("vulkan");
    const VideoFormat f = format_of(67, 45, 8);
    struct Case {
        unsigned skip_ref, skip_dist, frame_count, frames;
    };
    for (const Case k : {Case{0, 0, 0, 30}, Case{3, 1, 20, 20}, Case{2, 0, 0, 0}}) {
        const std::string what = "skips " + std::to_string(k.skip_ref) + ", " + std::to_string(k.skip_dist) +
                                 ", frame_cnt " + std::to_string(k.frame_count);
        RunConfig c = config(f, 30);
        c.models.pop_back();  // vmaf_v0.6.1 alone: every feature has a Vulkan twin
        c.frame_skip_ref = k.skip_ref;
        c.frame_skip_dist = k.skip_dist;
        c.frame_count = k.frame_count;
        if (k.frames == 0) {
            const std::string cpu_error = test::error_of([&] { run(c); });
            c.backend = Backend("vulkan");
            EXPECT_EQ(test::error_of([&] { run(c); }), cpu_error) << what;
            EXPECT_NE(cpu_error.find("has 28 frames"), std::string::npos) << cpu_error;
            continue;
        }
        const RunResult cpu = run(c);
        c.backend = Backend("vulkan");
        const RunResult gpu = run(c);
        EXPECT_EQ(gpu.frames, k.frames) << what;
        EXPECT_GT(gpu.pictures_allocated, 0u) << what << ": the GPU pipeline's ring";
        EXPECT_TRUE(same_bits(cpu, gpu)) << what;
        EXPECT_EQ(gpu.models.at(0).mean, cpu.models.at(0).mean) << what;
    }
}

// The GPU pipeline alone (every metric has a twin): its picture ring holds as many pairs as the
// run is expected to read, at most the ring (allocated while the device's context is created,
// pinned as the read stage first fills them), so a video shorter than the ring makes one pair
// per frame and none more; a longer one makes the whole ring (12 pairs: 8 frames in flight on
// the device, 4 read ahead; engine.cpp run_gpu) and no more; the scores are the CPU's bits.
TEST_F(EngineTest, CudaPipelineAllocatesItsRingAsFramesArrive) {
    VMAFX_REQUIRE_GPU();
    const VideoFormat f = format_of(67, 45, 8);
    for (const auto& [frames, pictures] : {std::pair{3, 6u}, std::pair{30, 24u}}) {
        RunConfig c = config(f, frames);
        const RunResult cpu = run(c);
        c.backend = Backend("cuda");
        const RunResult gpu = run(c);
        EXPECT_TRUE(same_bits(cpu, gpu)) << frames << " frames";
        EXPECT_EQ(gpu.frames, static_cast<unsigned>(frames));
        EXPECT_EQ(gpu.pictures_allocated, pictures) << frames << " frames";
        EXPECT_EQ(gpu.models.at(0).mean, cpu.models.at(0).mean);
    }
}

}  // namespace
}  // namespace vmafx
