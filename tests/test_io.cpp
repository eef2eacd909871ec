// Tests of the video readers (src/io): y4m and raw YUV files written to a temporary directory,
// and the unpacked fixtures' .y4m against their .yuv.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "io/shared_library.hpp"
#include "io/video_reader.hpp"
#include "picture_checks.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

namespace fs = std::filesystem;
using test::error_of;
using test::expect_error;
using test::expect_same_samples;
using test::make_format;
using test::random_pictures;
using test::raw_bytes;

/// Base of the Io suites: a fresh temporary directory per test.
using IoTempDir = test::TempDirTest;

/// A y4m file: `header_fields` after "YUV4MPEG2 ", then each picture after `frame_header`.
std::string y4m_bytes(const std::string& header_fields, const std::vector<Picture>& pics,
                      const std::string& frame_header = "FRAME\n") {
    std::string out = "YUV4MPEG2 " + header_fields + "\n";
    for (const Picture& pic : pics) out += frame_header + raw_bytes(pic);
    return out;
}

/// The whole frames of a regular file's reader, checking that it has no damaged tail.
unsigned whole_frames(const VideoReader& reader) {
    const std::optional<FrameCount> c = reader.frame_count();
    EXPECT_TRUE(c.has_value()) << reader.path() << ": a regular file has a known frame count";
    if (!c) return 0;
    EXPECT_EQ(c->damage, "") << reader.path();
    return c->whole;
}

/// The damage a regular file's reader reports after `whole` whole frames.
std::string damage_after(const VideoReader& reader, unsigned whole) {
    const std::optional<FrameCount> c = reader.frame_count();
    EXPECT_TRUE(c.has_value()) << reader.path();
    if (!c) return {};
    EXPECT_EQ(c->whole, whole) << reader.path();
    return c->damage;
}

/// Checks that `text` contains every one of `parts`.
void expect_contains(const std::string& text, std::initializer_list<std::string> parts) {
    for (const std::string& part : parts)
        EXPECT_NE(text.find(part), std::string::npos) << "\"" << text << "\" lacks \"" << part << "\"";
}

/// Reads every frame of `reader` and checks them against `expected`, then the clean end.
void expect_frames(VideoReader& reader, const std::vector<Picture>& expected, const std::string& what) {
    if (!reader.is_stream()) {
        EXPECT_EQ(whole_frames(reader), expected.size()) << what;
    }
    Picture pic;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        ASSERT_TRUE(reader.read(pic)) << what << ": frame " << i;
        expect_same_samples(pic, expected[i], what + ": frame " + std::to_string(i));
    }
    EXPECT_FALSE(reader.read(pic)) << what << ": read past the last frame";
    EXPECT_FALSE(reader.read(pic)) << what << ": second read past the last frame";
}

using IoY4m = IoTempDir;
using IoRaw = IoTempDir;
using IoOpen = IoTempDir;

TEST_F(IoY4m, EveryColourSpace) {
    struct Case {
        const char* tag;
        Subsampling subsampling;
        int bit_depth;
    };
    const Case cases[] = {
        {"420jpeg", Subsampling::k420, 8},  {"420mpeg2", Subsampling::k420, 8}, {"420paldv", Subsampling::k420, 8},
        {"420", Subsampling::k420, 8},      {"422", Subsampling::k422, 8},      {"444", Subsampling::k444, 8},
        {"420p9", Subsampling::k420, 9},    {"420p10", Subsampling::k420, 10},  {"420p12", Subsampling::k420, 12},
        {"420p14", Subsampling::k420, 14},  {"420p16", Subsampling::k420, 16},  {"422p9", Subsampling::k422, 9},
        {"422p10", Subsampling::k422, 10},  {"422p12", Subsampling::k422, 12},  {"422p16", Subsampling::k422, 16},
        {"444p10", Subsampling::k444, 10},  {"444p12", Subsampling::k444, 12},  {"444p16", Subsampling::k444, 16},
    };
    for (const Case& c : cases) {
        const VideoFormat format = make_format(17, 9, c.subsampling, c.bit_depth);
        const auto pics = random_pictures(format, 3, 7);
        const std::string path = write(std::string("cs_") + c.tag + ".y4m",
                                       y4m_bytes(std::string("W17 H9 F25:1 Ip A1:1 C") + c.tag, pics));
        auto reader = open_video(path, std::nullopt);
        EXPECT_EQ(reader->format(), format) << c.tag;
        EXPECT_EQ(reader->path(), path);
        expect_frames(*reader, pics, c.tag);
    }
}

TEST_F(IoY4m, MissingColourSpaceIs420jpeg) {
    const VideoFormat format = make_format(6, 4, Subsampling::k420, 8);
    const auto pics = random_pictures(format, 2, 1);
    auto reader = open_video(write("noc.y4m", y4m_bytes("W6 H4 F30:1", pics)), std::nullopt);
    EXPECT_EQ(reader->format(), format);
    expect_frames(*reader, pics, "no C field");
}

TEST_F(IoY4m, FieldsInAnyOrderUnknownTagsAndLongXParameters) {
    const VideoFormat format = make_format(31, 7, Subsampling::k422, 10);
    const auto pics = random_pictures(format, 2, 3);
    const std::string long_x = "XLONG=" + std::string(20000, 'x');
    const std::string fields = "C422p10 XYSCSS=422P10 " + long_x + " Ip  H7 Zunknown A1:1 F30000:1001 W31 ";
    auto reader = open_video(write("order.y4m", y4m_bytes(fields, pics)), std::nullopt);
    EXPECT_EQ(reader->format(), format);
    expect_frames(*reader, pics, "odd field order");
}

TEST_F(IoY4m, FrameHeadersWithParameters) {
    const VideoFormat format = make_format(9, 5, Subsampling::k420, 8);
    const auto pics = random_pictures(format, 4, 11);
    // The third header is longer than the reader's 4 KiB scan buffer.
    const std::string frame_headers[] = {"FRAME Ip\n", "FRAME\n", "FRAME XA=1 XB=" + std::string(9000, 'b') + "\n",
                                         "FRAME \n"};
    std::string bytes = "YUV4MPEG2 W9 H5 C420jpeg\n";
    for (std::size_t i = 0; i < pics.size(); ++i) bytes += frame_headers[i] + raw_bytes(pics[i]);
    const std::string path = write("frameparams.y4m", bytes);
    {
        auto reader = open_video(path, std::nullopt);
        expect_frames(*reader, pics, "FRAME parameters");
    }
    {
        auto reader = open_video(path, std::nullopt);
        reader->skip(2);
        Picture pic;
        ASSERT_TRUE(reader->read(pic));
        expect_same_samples(pic, pics[2], "frame 2 after skip(2)");
    }
}

TEST_F(IoY4m, OddSizesMatchRaw) {
    for (const Subsampling s : {Subsampling::k420, Subsampling::k422, Subsampling::k444}) {
        for (const int bits : {8, 10, 12, 16}) {
            const VideoFormat format = make_format(853, 481, s, bits);
            // The chroma of odd sizes rounds up, as ffmpeg writes it.
            if (s != Subsampling::k444) {
                EXPECT_EQ(format.plane_width(1), 427);
                EXPECT_EQ(format.plane_height(1), s == Subsampling::k420 ? 241 : 481);
            }
            const auto pics = random_pictures(format, 3, 100 + bits);
            const std::string name = std::string("odd_") + subsampling_name(s) + "_" + std::to_string(bits);
            std::string tag = subsampling_name(s);
            if (bits > 8) tag.append("p").append(std::to_string(bits));
            auto y4m = open_video(write(name + ".y4m", y4m_bytes("W853 H481 F25:1 C" + tag, pics)), std::nullopt);
            std::string yuv_bytes;
            for (const Picture& pic : pics) yuv_bytes += raw_bytes(pic);
            EXPECT_EQ(yuv_bytes.size(), 3 * format.frame_bytes());
            auto yuv = open_video(write(name + ".yuv", yuv_bytes), format);
            ASSERT_EQ(y4m->format(), format) << name;
            ASSERT_EQ(yuv->format(), format) << name;
            ASSERT_EQ(whole_frames(*y4m), 3u) << name;
            ASSERT_EQ(whole_frames(*yuv), 3u) << name;
            Picture a, b;
            for (std::size_t i = 0; i < pics.size(); ++i) {
                ASSERT_TRUE(y4m->read(a));
                ASSERT_TRUE(yuv->read(b));
                expect_same_samples(a, b, name + " y4m vs yuv frame " + std::to_string(i));
                expect_same_samples(a, pics[i], name + " y4m vs written frame " + std::to_string(i));
            }
            EXPECT_FALSE(y4m->read(a));
            EXPECT_FALSE(yuv->read(b));
        }
    }
}

TEST_F(IoY4m, TruncatedLastFrame) {
    const VideoFormat format = make_format(16, 8, Subsampling::k420, 10);
    const auto pics = random_pictures(format, 3, 5);
    std::string bytes = y4m_bytes("W16 H8 C420p10", pics);
    bytes.resize(bytes.size() - 100);
    const std::string path = write("trunc.y4m", bytes);
    auto reader = open_video(path, std::nullopt);
    expect_contains(damage_after(*reader, 2), {path, "frame 2", "truncated", "284 of its 384 bytes"});
    Picture pic;
    ASSERT_TRUE(reader->read(pic));
    expect_same_samples(pic, pics[0], "frame 0");
    ASSERT_TRUE(reader->read(pic));
    expect_same_samples(pic, pics[1], "frame 1");
    expect_error([&] { reader->read(pic); }, {path, "frame 2", "truncated", "284 of its 384 bytes"});

    auto skipper = open_video(path, std::nullopt);
    expect_error([&] { skipper->skip(3); }, {path, "frame 2", "truncated"});
}

TEST_F(IoY4m, TruncatedOrMalformedFrameHeader) {
    const VideoFormat format = make_format(4, 4, Subsampling::k444, 8);
    const auto pics = random_pictures(format, 1, 9);
    for (const std::string tail : {"\n", "\r\n", "\n\n\n"}) {
        // Stray line ends after the last frame are its end, as upstream reads them.
        auto reader = open_video(write("tail.y4m", y4m_bytes("W4 H4 C444", pics) + tail), std::nullopt);
        expect_frames(*reader, pics, "y4m with a line end after its last frame");
    }
    {
        const std::string path = write("trunc_header.y4m", y4m_bytes("W4 H4 C444", pics) + "FRA");
        auto reader = open_video(path, std::nullopt);
        Picture pic;
        ASSERT_TRUE(reader->read(pic));
        expect_error([&] { reader->read(pic); }, {path, "frame 1", "truncated"});
    }
    {
        const std::string path = write("no_samples.y4m", y4m_bytes("W4 H4 C444", pics) + "FRAME\n");
        auto reader = open_video(path, std::nullopt);
        Picture pic;
        ASSERT_TRUE(reader->read(pic));
        expect_error([&] { reader->read(pic); }, {path, "frame 1", "truncated", "0 of its 48 bytes"});
    }
    {
        const std::string path =
            write("bad_header.y4m", y4m_bytes("W4 H4 C444", pics) + "FRAMX\n" + raw_bytes(pics[0]));
        auto reader = open_video(path, std::nullopt);
        expect_contains(damage_after(*reader, 1), {path, "frame 1", "malformed y4m frame header", "FRAMX"});
        Picture pic;
        ASSERT_TRUE(reader->read(pic));
        expect_error([&] { reader->read(pic); }, {path, "frame 1", "malformed y4m frame header", "FRAMX"});
    }
    {
        const std::string path =
            write("long_header.y4m", y4m_bytes("W4 H4 C444", pics) + "FRAME " + std::string(70000, 'x') + "\n");
        auto reader = open_video(path, std::nullopt);
        reader->skip(1);
        expect_error([&] { reader->skip(1); }, {path, "frame 1", "longer than 65536"});
    }
}

TEST_F(IoY4m, MalformedHeaders) {
    struct Case {
        std::string fields;
        std::string expected;
    };
    const Case cases[] = {
        {"H4 F25:1 C420jpeg", "no width field"},
        {"W4 F25:1", "no height field"},
        {"W0 H4", "width 0 is out of range"},
        {"W4 H0", "height 0 is out of range"},
        {"W-4 H4", "width -4 is out of range"},
        {"Wabc H4", "malformed y4m header field \"Wabc\""},
        {"W12x H4", "malformed y4m header field \"W12x\""},
        {"W H4", "malformed y4m header field \"W\""},
        {"W99999999999 H4", "\"W99999999999\": value out of range"},
        {"W40000 H4", "width 40000 is out of range 1..32768"},
        {"W20000 H20000", "size 20000x20000 is too large"},
        {"W4 H4 C411", "unsupported y4m colour space \"C411\""},
        {"W4 H4 Cmono", "unsupported y4m colour space \"Cmono\""},
        {"W4 H4 Cmono16", "unsupported y4m colour space \"Cmono16\""},
        {"W4 H4 C444alpha", "unsupported y4m colour space \"C444alpha\""},
        {"W4 H4 Cfoo", "unsupported y4m colour space \"Cfoo\""},
        {"W4 H4 C", "unsupported y4m colour space \"C\""},
        {"W4 H4 C420p", "unsupported y4m colour space \"C420p\""},
        {"W4 H4 C420p7", "bit depth 7 is outside 8..16"},
        {"W4 H4 C444p17", "bit depth 17 is outside 8..16"},
        {"W4 H4 It", "interlacing \"It\" is not supported"},
        {"W4 H4 Ib", "interlacing \"Ib\" is not supported"},
    };
    int i = 0;
    for (const Case& c : cases) {
        // Followed by enough bytes for a frame, so that only the header can be at fault.
        const std::string path = write("bad" + std::to_string(i++) + ".y4m",
                                       "YUV4MPEG2 " + c.fields + "\nFRAME\n" + std::string(24, '\x10'));
        expect_error([&] { open_video(path, std::nullopt); }, {path, c.expected});
    }
    const std::string no_newline = write("no_newline.y4m", "YUV4MPEG2 W4 H4 C420jpeg");
    expect_error([&] { open_video(no_newline, std::nullopt); }, {no_newline, "not ended by a newline"});
    const std::string too_long = write("too_long.y4m", "YUV4MPEG2 W4 H4 X" + std::string(70000, 'x') + "\n");
    expect_error([&] { open_video(too_long, std::nullopt); }, {too_long, "longer than 65536 bytes"});
    const std::string no_frames = write("no_frames.y4m", "YUV4MPEG2 W4 H4\n");
    expect_error([&] { open_video(no_frames, std::nullopt); }, {no_frames, "no frames"});
}

TEST_F(IoY4m, RawFormatIsIgnored) {
    const VideoFormat format = make_format(10, 6, Subsampling::k444, 12);
    const auto pics = random_pictures(format, 2, 21);
    const std::string path = write("ignored.y4m", y4m_bytes("W10 H6 C444p12", pics));
    auto reader = open_video(path, make_format(1920, 1080, Subsampling::k420, 8));
    EXPECT_EQ(reader->format(), format);
    expect_frames(*reader, pics, "raw format given for a y4m file");
}

TEST_F(IoY4m, Skip) {
    const VideoFormat format = make_format(5, 3, Subsampling::k420, 16);
    const auto pics = random_pictures(format, 5, 31);
    const std::string path = write("skip.y4m", y4m_bytes("W5 H3 C420p16", pics, "FRAME Ixx\n"));
    auto reader = open_video(path, std::nullopt);
    Picture pic;
    reader->skip(0);
    ASSERT_TRUE(reader->read(pic));
    expect_same_samples(pic, pics[0], "frame 0");
    reader->skip(2);
    EXPECT_EQ(whole_frames(*reader), 5u);  // does not move the read position
    ASSERT_TRUE(reader->read(pic));
    expect_same_samples(pic, pics[3], "frame 3");
    expect_error([&] { reader->skip(2); }, {path, "cannot skip 2 frames from frame 4", "the file has 5 whole frames"});

    auto to_end = open_video(path, std::nullopt);
    to_end->skip(5);
    EXPECT_FALSE(to_end->read(pic));
    auto past = open_video(path, std::nullopt);
    expect_error([&] { past->skip(6); }, {path, "cannot skip 6 frames from frame 0", "the file has 5 whole frames"});
}

TEST_F(IoRaw, EveryFormat) {
    for (const Subsampling s : {Subsampling::k420, Subsampling::k422, Subsampling::k444}) {
        for (const int bits : {8, 9, 10, 12, 14, 16}) {
            for (const auto& [w, h] : {std::pair{64, 36}, std::pair{33, 17}, std::pair{1, 1}}) {
                const VideoFormat format = make_format(w, h, s, bits);
                const auto pics = random_pictures(format, 3, 41);
                std::string bytes;
                for (const Picture& pic : pics) bytes += raw_bytes(pic);
                const std::string name = std::to_string(w) + "x" + std::to_string(h) + "_" + subsampling_name(s) +
                                         "_" + std::to_string(bits) + ".yuv";
                auto reader = open_video(write(name, bytes), format);
                EXPECT_EQ(reader->format(), format);
                expect_frames(*reader, pics, name);
            }
        }
    }
}

/// Reads `reader`'s frames alternating luma-only and whole reads and checks them against
/// `expected`: a luma-only read fills the luma and leaves the chroma planes as they were.
void expect_luma_only_reads(VideoReader& reader, const std::vector<Picture>& expected, const std::string& what) {
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const std::string frame = what + ": frame " + std::to_string(i);
        if (i % 2 == 0) {
            Picture pic(expected[i].format);
            Picture before = pic;
            for (Plane& plane : pic.planes) std::memset(plane.data(), 0x5a, plane.stride() * plane.height());
            for (Plane& plane : before.planes) std::memset(plane.data(), 0x5a, plane.stride() * plane.height());
            ASSERT_TRUE(reader.read(pic, PlaneSet::kLuma)) << frame;
            Picture want = expected[i];
            want.planes[1] = before.planes[1];
            want.planes[2] = before.planes[2];
            expect_same_samples(pic, want, frame + " (luma only)");
        } else {
            Picture pic;
            ASSERT_TRUE(reader.read(pic)) << frame;
            expect_same_samples(pic, expected[i], frame);
        }
    }
    Picture pic;
    EXPECT_FALSE(reader.read(pic, PlaneSet::kLuma)) << what << ": read past the last frame";
}

TEST_F(IoRaw, LumaOnlyReadsSkipChroma) {
    for (const Subsampling s : {Subsampling::k420, Subsampling::k422, Subsampling::k444}) {
        for (const int bits : {8, 10, 16}) {
            const VideoFormat format = make_format(33, 17, s, bits);
            const auto pics = random_pictures(format, 5, 61);
            std::string bytes;
            for (const Picture& pic : pics) bytes += raw_bytes(pic);
            const std::string name = std::string("luma_") + subsampling_name(s) + "_" + std::to_string(bits);
            auto raw = open_video(write(name + ".yuv", bytes), format);
            expect_luma_only_reads(*raw, pics, name + ".yuv");
            const std::string tag = s == Subsampling::k420 && bits == 8
                                        ? "420"
                                        : std::string(subsampling_name(s)) + (bits == 8 ? std::string() : std::string("p") + std::to_string(bits));
            auto y4m = open_video(write(name + ".y4m", y4m_bytes("W33 H17 C" + tag, pics, "FRAME Ip\n")), std::nullopt);
            expect_luma_only_reads(*y4m, pics, name + ".y4m");
        }
    }
}

TEST_F(IoRaw, LargePlanesReadInPieces) {
    // Planes above the 512 KiB piece size: contiguous rows (1024 x 16-bit) and padded rows
    // (1001 x 16-bit: 2002-byte rows in 2048-byte strides, read through the bounce buffer).
    for (const int width : {1024, 1001}) {
        const VideoFormat format = make_format(width, 700, Subsampling::k444, 16);
        const auto pics = random_pictures(format, 2, 71);
        auto reader = open_video(write("large.yuv", raw_bytes(pics[0]) + raw_bytes(pics[1])), format);
        expect_frames(*reader, pics, "large planes, width " + std::to_string(width));
    }
}

TEST_F(IoRaw, ReallocatesOnlyWhenFormatDiffers) {
    const VideoFormat format = make_format(40, 20, Subsampling::k420, 10);
    const auto pics = random_pictures(format, 2, 51);
    auto reader = open_video(write("realloc.yuv", raw_bytes(pics[0]) + raw_bytes(pics[1])), format);
    Picture pic(make_format(8, 8, Subsampling::k444, 8));
    ASSERT_TRUE(reader->read(pic));
    expect_same_samples(pic, pics[0], "frame 0 into a picture of another format");
    const std::uint8_t* luma = pic.planes[0].data();
    ASSERT_TRUE(reader->read(pic));
    expect_same_samples(pic, pics[1], "frame 1");
    EXPECT_EQ(pic.planes[0].data(), luma) << "planes of the right format are reused";
}

// A raw file whose size is not a whole number of frames opens: its whole frames read, and the
// partial last frame is the damaged tail, reported by frame_count() and thrown by read().
TEST_F(IoRaw, SizeNotWholeFrames) {
    const VideoFormat format = make_format(853, 481, Subsampling::k420, 8);
    const std::size_t frame_bytes = 853 * 481 + 2 * 427 * 241;
    ASSERT_EQ(format.frame_bytes(), frame_bytes);
    const std::string path = write("partial.yuv", std::string(frame_bytes * 2 + 1000, '\x20'));
    auto reader = open_video(path, format);
    const std::vector<std::string> expected = {
        path, "frame 2 is truncated", "1000 of its " + std::to_string(frame_bytes) + " bytes", "853x481 4:2:0 8-bit",
        "size, " + std::to_string(frame_bytes * 2 + 1000) + " bytes, is not a whole number of frames"};
    const std::string damage = damage_after(*reader, 2);
    for (const auto& part : expected) expect_contains(damage, {part});
    Picture pic;
    ASSERT_TRUE(reader->read(pic));
    ASSERT_TRUE(reader->read(pic));
    const std::string thrown = error_of([&] { reader->read(pic); });
    EXPECT_EQ(thrown, damage);
    expect_error([&] { open_video(path, format)->skip(3); }, {path, "cannot skip 3 frames", "2 whole frames"});

    const std::string small = write("small.yuv", std::string(100, '\x20'));
    auto small_reader = open_video(small, format);
    expect_contains(damage_after(*small_reader, 0), {small, "frame 0 is truncated", "100 of its"});
    expect_error([&] { small_reader->read(pic); }, {small, "frame 0 is truncated", "100 of its"});
}

TEST_F(IoRaw, NeedsFormat) {
    const std::string path = write("noformat.yuv", std::string(96, '\x20'));
    expect_error([&] { open_video(path, std::nullopt); }, {path + ": raw YUV needs -w, -h, -p and -b"});
    // Starts like y4m but is not ("YUV4MPEG2" must be followed by a space).
    const std::string almost = write("almost.yuv", "YUV4MPEG2X W4 H4\n");
    expect_error([&] { open_video(almost, std::nullopt); }, {almost + ": raw YUV needs -w, -h, -p and -b"});
}

TEST_F(IoRaw, BadFormat) {
    const std::string path = write("any.yuv", std::string(6000, '\x20'));
    expect_error([&] { open_video(path, make_format(20, 20, Subsampling::k420, 7)); }, {path, "bit depth 7"});
    expect_error([&] { open_video(path, make_format(20, 20, Subsampling::k420, 17)); }, {path, "bit depth 17"});
    expect_error([&] { open_video(path, make_format(0, 20, Subsampling::k420, 8)); }, {path, "width 0"});
    expect_error([&] { open_video(path, make_format(20, -1, Subsampling::k420, 8)); }, {path, "height -1"});
    expect_error([&] { open_video(path, make_format(40000, 2, Subsampling::k420, 8)); }, {path, "width 40000"});
}

TEST_F(IoRaw, Skip) {
    const VideoFormat format = make_format(7, 3, Subsampling::k422, 12);
    const auto pics = random_pictures(format, 4, 61);
    std::string bytes;
    for (const Picture& pic : pics) bytes += raw_bytes(pic);
    const std::string path = write("skip.yuv", bytes);
    auto reader = open_video(path, format);
    EXPECT_EQ(whole_frames(*reader), 4u);
    reader->skip(1);
    Picture pic;
    ASSERT_TRUE(reader->read(pic));
    expect_same_samples(pic, pics[1], "frame 1");
    expect_error([&] { reader->skip(3); }, {path, "cannot skip 3 frames from frame 2", "the file has 4 whole frames"});
    reader->skip(2);
    EXPECT_FALSE(reader->read(pic));
}

// Reading ahead (the GPU pipeline's reading of several frames at once): a regular raw file's
// frames after the position, in any order and from several threads, equal read()'s; luma only
// leaves the chroma as it was; the position does not move; the end and a damaged last frame
// are reported as read() reports them.
TEST_F(IoRaw, ReadsAheadOutOfOrderAsReadDoes) {
    // Small planes, and planes above the 512 KiB piece size with contiguous and padded rows.
    for (const auto& [w, h, bits] : {std::tuple{7, 3, 12}, std::tuple{1024, 700, 16}, std::tuple{1001, 700, 16}}) {
        const VideoFormat format = make_format(w, h, Subsampling::k420, bits);
        const auto pics = random_pictures(format, 5, 91);
        std::string bytes;
        for (const Picture& pic : pics) bytes += raw_bytes(pic);
        const std::string path = write("ahead.yuv", bytes + std::string(10, '\x20'));
        const std::string what = std::to_string(w) + "x" + std::to_string(h);
        auto reader = open_video(path, format);
        ASSERT_TRUE(reader->reads_ahead()) << what;
        reader->skip(1);
        std::vector<Picture> got(4);
        std::vector<std::thread> threads;
        for (const unsigned k : {3u, 0u, 2u, 1u}) {
            ASSERT_TRUE(reader->has_frame_ahead(k)) << what;
            threads.emplace_back([&, k] { reader->read_ahead(k, got[k], PlaneSet::kAll); });
        }
        for (auto& t : threads) t.join();
        for (unsigned k = 0; k < 4; ++k) expect_same_samples(got[k], pics[k + 1], what + ": frame " + std::to_string(k + 1));
        // The damaged tail after the last whole frame, as read() throws it.
        const std::string thrown = error_of([&] { reader->has_frame_ahead(4); });
        expect_contains(thrown, {path, "frame 5 is truncated", "10 of its"});
        // Luma only: the chroma keeps its samples.
        Picture luma = pics[0];
        reader->read_ahead(2, luma, PlaneSet::kLuma);
        EXPECT_TRUE(std::memcmp(luma.planes[0].data(), pics[3].planes[0].data(),
                                static_cast<std::size_t>(luma.planes[0].stride()) * h) == 0) << what;
        EXPECT_TRUE(std::memcmp(luma.planes[1].data(), pics[0].planes[1].data(),
                                static_cast<std::size_t>(luma.planes[1].stride()) * luma.planes[1].height()) == 0)
            << what;
        // The position did not move: read() gives frame 1 next, then 2.
        Picture pic;
        ASSERT_TRUE(reader->read(pic));
        expect_same_samples(pic, pics[1], what + ": read() after reading ahead");
        EXPECT_TRUE(reader->has_frame_ahead(0));
        EXPECT_THROW(reader->has_frame_ahead(3), Error) << what;
    }
    // A whole number of frames: false past the last one.
    const VideoFormat format = make_format(6, 4, Subsampling::k444, 8);
    const auto pics = random_pictures(format, 2, 92);
    auto reader = open_video(write("whole.yuv", raw_bytes(pics[0]) + raw_bytes(pics[1])), format);
    EXPECT_TRUE(reader->has_frame_ahead(1));
    EXPECT_FALSE(reader->has_frame_ahead(2));
}

// A file cut short after it was opened: a frame read ahead is reported truncated as read()
// reports it.
TEST_F(IoRaw, ReadAheadOfAFileThatShrank) {
    const VideoFormat format = make_format(1024, 1024, Subsampling::k420, 8);
    const auto pics = random_pictures(format, 3, 93);
    const std::string path = write("shrink_ahead.yuv", raw_bytes(pics[0]) + raw_bytes(pics[1]) + raw_bytes(pics[2]));
    auto reader = open_video(path, format);
    const std::size_t frame = format.frame_bytes();
    fs::resize_file(path, frame + 100);
    Picture pic;
    reader->read_ahead(0, pic, PlaneSet::kAll);
    expect_same_samples(pic, pics[0], "frame 0, whole");
    expect_error([&] { reader->read_ahead(1, pic, PlaneSet::kAll); },
                 {path, "frame 1 is truncated", "100 of its " + std::to_string(frame) + " bytes"});
}

// Only regular raw files read ahead; the others say so and refuse.
TEST_F(IoY4m, DoesNotReadAhead) {
    const VideoFormat format = make_format(6, 4, Subsampling::k420, 8);
    const auto pics = random_pictures(format, 1, 94);
    auto reader = open_video(write("one.y4m", "YUV4MPEG2 W6 H4 C420jpeg\nFRAME\n" + raw_bytes(pics[0])), std::nullopt);
    EXPECT_FALSE(reader->reads_ahead());
    Picture pic;
    EXPECT_THROW(reader->read_ahead(0, pic, PlaneSet::kAll), std::logic_error);
    EXPECT_THROW(reader->has_frame_ahead(0), std::logic_error);
}

TEST_F(IoOpen, MissingEmptyOrDirectory) {
    const std::string missing = (dir_ / "missing.y4m").string();
    expect_error([&] { open_video(missing, std::nullopt); }, {missing, "cannot open", "No such file"});
    const std::string empty = write("empty.yuv", "");
    expect_error([&] { open_video(empty, std::nullopt); }, {empty, "empty file"});
    expect_error([&] { open_video(empty, make_format(4, 4, Subsampling::k420, 8)); }, {empty, "empty file"});
    expect_error([&] { open_video(dir_.string(), std::nullopt); }, {dir_.string(), "is a directory"});
    const fs::path link = dir_ / "link_to_dir";
    fs::create_directory_symlink(dir_, link);
    expect_error([&] { open_video(link.string(), std::nullopt); }, {link.string(), "is a directory"});
}

// A file cut short after it was opened (another process rewriting it): the frame it now ends
// in is reported as truncated, with the bytes it still has, for small and for large planes
// (read in parallel pieces).
TEST_F(IoRaw, FileShrinksAfterOpen) {
    for (const auto& [w, h] : {std::pair{33, 17}, std::pair{1024, 1024}}) {
        const VideoFormat format = make_format(w, h, Subsampling::k420, 8);
        const auto pics = random_pictures(format, 3, 81);
        const std::string path = write("shrink.yuv", raw_bytes(pics[0]) + raw_bytes(pics[1]) + raw_bytes(pics[2]));
        auto reader = open_video(path, format);
        Picture pic;
        ASSERT_TRUE(reader->read(pic));
        const std::size_t frame = format.frame_bytes();
        fs::resize_file(path, frame + 100);
        expect_error([&] { reader->read(pic); },
                     {path, "frame 1 is truncated", "100 of its " + std::to_string(frame) + " bytes"});
    }
}

// Windows tools end y4m lines with "\r\n": the stream header and frame headers still parse
// (upstream reads such files too).
TEST_F(IoY4m, CrlfLineEnds) {
    const VideoFormat format = make_format(6, 4, Subsampling::k422, 10);
    const auto pics = random_pictures(format, 3, 71);
    std::string bytes = "YUV4MPEG2 W6 H4 F25:1 Ip A1:1 C422p10\r\n";
    for (const Picture& pic : pics) bytes += "FRAME\r\n" + raw_bytes(pic);
    auto reader = open_video(write("crlf.y4m", bytes), std::nullopt);
    EXPECT_EQ(reader->format(), format);
    expect_frames(*reader, pics, "CRLF y4m");
    // The colour space as the last field, where the "\r" would otherwise stick to it.
    std::string last = "YUV4MPEG2 W6 H4 C422p10\r\n";
    for (const Picture& pic : pics) last += "FRAME Ip\r\n" + raw_bytes(pic);
    auto reader2 = open_video(write("crlf_last.y4m", last), std::nullopt);
    expect_frames(*reader2, pics, "CRLF y4m, colour space last");
}

/// Base of the stream tests: bytes fed to a FIFO in the temporary directory by a writer thread,
/// in pieces of `piece` bytes (1 makes every read of the reader a short one).
class IoStream : public IoTempDir {
protected:
    void TearDown() override {
        if (writer_.joinable()) {
            // A writer still waiting for a reader (the test failed before opening its FIFO) is
            // released by a reader that leaves at once.
            const int fd = ::open(fifo_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd >= 0) ::close(fd);
            writer_.join();
        }
        IoTempDir::TearDown();
    }

    /// Makes FIFO `name` and starts writing `bytes` into it; returns its path. The writer opens
    /// the FIFO (waiting for the reader), writes, and closes it (the reader's end of stream).
    std::string feed(const std::string& name, std::string bytes, std::size_t piece = 65536) {
        const std::string path = (dir_ / name).string();
        EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
        fifo_ = path;
        writer_ = std::thread([path, bytes = std::move(bytes), piece] {
            const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
            if (fd < 0) return;
            (void)test::write_to_pipe(fd, bytes, piece);  // a reader that left: the test fails on its own
            ::close(fd);
        });
        return path;
    }

    std::thread writer_;
    std::string fifo_;
};

TEST_F(IoStream, Y4mFromPipeMatchesFile) {
    struct Case {
        VideoFormat format;
        std::string fields;
        std::size_t piece;
    };
    const Case cases[] = {
        {make_format(9, 5, Subsampling::k420, 8), "W9 H5 C420jpeg F30000:1001", 1},
        {make_format(7, 3, Subsampling::k422, 10), "W7 H3 C422p10", 5},
        {make_format(160, 90, Subsampling::k444, 16), "W160 H90 C444p16 XYSCSS=444P16", 65536},
    };
    for (const Case& c : cases) {
        const auto pics = random_pictures(c.format, 4, 3);
        const std::string bytes = y4m_bytes(c.fields, pics, "FRAME Ip\n");
        auto reader = open_video(feed("in.y4m", bytes, c.piece), std::nullopt);
        EXPECT_TRUE(reader->is_stream());
        EXPECT_FALSE(reader->frame_count().has_value()) << "a stream's length is unknown";
        EXPECT_EQ(reader->format(), c.format);
        expect_frames(*reader, pics, "y4m stream " + c.fields);
        writer_.join();
        fs::remove(dir_ / "in.y4m");
    }
}

TEST_F(IoStream, RawFromPipeLumaOnlyAndSkip) {
    const VideoFormat format = make_format(33, 17, Subsampling::k420, 12);
    const auto pics = random_pictures(format, 5, 13);
    std::string bytes;
    for (const Picture& pic : pics) bytes += raw_bytes(pic);
    auto reader = open_video(feed("in.yuv", bytes, 777), format);
    EXPECT_TRUE(reader->is_stream());
    reader->skip(1);
    Picture pic;
    ASSERT_TRUE(reader->read(pic));
    expect_same_samples(pic, pics[1], "frame 1 after skip(1)");
    ASSERT_TRUE(reader->read(pic, PlaneSet::kLuma));  // chroma bytes skipped in the stream
    const std::size_t luma_row = 33 * 2;
    for (int y = 0; y < 17; ++y)
        ASSERT_EQ(std::memcmp(pic.planes[0].row<std::uint8_t>(y), pics[2].planes[0].row<std::uint8_t>(y), luma_row), 0);
    ASSERT_TRUE(reader->read(pic));
    expect_same_samples(pic, pics[3], "frame 3 after a luma-only read");
    expect_error([&] { reader->skip(2); }, {"in.yuv", "cannot skip 2 frames from frame 4", "the stream has 5 whole frames"});
}

TEST_F(IoStream, TruncatedOrEmptyStream) {
    const VideoFormat format = make_format(8, 8, Subsampling::k444, 8);
    const auto pics = random_pictures(format, 2, 17);
    {
        const std::string bytes = y4m_bytes("W8 H8 C444", pics);
        auto reader = open_video(feed("cut.y4m", bytes.substr(0, bytes.size() - 10)), std::nullopt);
        Picture pic;
        ASSERT_TRUE(reader->read(pic));
        expect_error([&] { reader->read(pic); }, {"cut.y4m", "frame 1 is truncated", "the stream ends after 182 of its 192"});
        writer_.join();
    }
    {
        auto reader = open_video(feed("cut.yuv", raw_bytes(pics[0]) + "abc"), format);
        Picture pic;
        ASSERT_TRUE(reader->read(pic));
        expect_error([&] { reader->read(pic); }, {"cut.yuv", "frame 1 is truncated", "3 of its 192"});
        writer_.join();
    }
    {
        const std::string path = feed("empty.y4m", "");
        expect_error([&] { open_video(path, std::nullopt); }, {"empty.y4m", "empty stream"});
        writer_.join();
    }
    {
        // A header and no frame: opening does not wait for a frame (a writer feeding both videos
        // may send the other's header first); the first read is the end.
        auto reader = open_video(feed("header_only.y4m", "YUV4MPEG2 W8 H8 C444\n"), std::nullopt);
        Picture pic;
        EXPECT_FALSE(reader->read(pic));
    }
}

// "-" reads standard input: here a pipe put in place of descriptor 0 for the test.
TEST_F(IoStream, StandardInput) {
    const VideoFormat format = make_format(10, 6, Subsampling::k420, 8);
    const auto pics = random_pictures(format, 3, 19);
    const std::string fifo = feed("stdin.y4m", y4m_bytes("W10 H6 C420mpeg2", pics));
    const int saved = ::dup(STDIN_FILENO);
    ASSERT_GE(saved, 0);
    const int in = ::open(fifo.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(in, 0);
    ASSERT_EQ(::dup2(in, STDIN_FILENO), STDIN_FILENO);
    ::close(in);
    std::unique_ptr<VideoReader> reader;
    try {
        reader = open_video("-", std::nullopt);
    } catch (...) {
        ::dup2(saved, STDIN_FILENO);
        throw;
    }
    ::dup2(saved, STDIN_FILENO);  // the reader holds its own descriptor
    ::close(saved);
    EXPECT_EQ(reader->path(), "standard input");
    EXPECT_TRUE(reader->is_stream());
    expect_frames(*reader, pics, "standard input");
}

/// Every unpacked fixture's .y4m gives the samples of its .yuv (first and last frame, and the
/// frame counts agree).
TEST(IoFixtures, Y4mMatchesYuv) {
    VMAFX_SKIP_IF_MISSING(test::missing_fixtures());
    const fs::path fixtures = test::fixtures_dir();
    int checked = 0;
    for (const auto& entry : fs::directory_iterator(fixtures)) {
        if (!fs::exists(entry.path() / "fixture.ini")) continue;
        const std::string name = entry.path().filename().string();
        const VideoFormat format = test::fixture_format(name);
        for (const std::string which : {"ref", "dist"}) {
            const fs::path y4m_path = entry.path() / (which + ".y4m");
            if (!fs::exists(y4m_path))
                VMAFX_SKIP_IF_MISSING(y4m_path.string() + " absent (run ../shared/fixtures/prepare.py --out .fixtures --y4m)");
            const std::string what = name + "/" + which;
            auto y4m = open_video(y4m_path.string(), std::nullopt);
            auto yuv = open_video((entry.path() / (which + ".yuv")).string(), format);
            ASSERT_EQ(y4m->format(), format) << what;
            const unsigned frames = whole_frames(*yuv);
            ASSERT_EQ(whole_frames(*y4m), frames) << what;
            ASSERT_EQ(frames, test::fixture_frames(name)) << what;
            Picture a, b;
            ASSERT_TRUE(y4m->read(a));
            ASSERT_TRUE(yuv->read(b));
            expect_same_samples(a, b, what + " frame 0");
            expect_same_samples(a, test::fixture_frame(name, which, 0), what + " frame 0 vs fixture_frame");
            ASSERT_GE(frames, 2u) << what;
            y4m->skip(frames - 2);
            yuv->skip(frames - 2);
            ASSERT_TRUE(y4m->read(a));
            ASSERT_TRUE(yuv->read(b));
            expect_same_samples(a, b, what + " last frame");
            expect_same_samples(a, test::fixture_frame(name, which, frames - 1), what + " last frame vs fixture_frame");
            EXPECT_FALSE(y4m->read(a)) << what;
            EXPECT_FALSE(yuv->read(b)) << what;
            ++checked;
        }
    }
    EXPECT_GT(checked, 0) << "no fixture found in " << fixtures;
}

// The run-time loader of optional libraries (FFmpeg's): opens by SONAME, binds symbols, and
// names the library and the loader's reason when it cannot.
using IoSharedLibrary = test::TempDirTest;

TEST_F(IoSharedLibrary, OpensBindsAndNamesWhatFails) {
    const SharedLibrary libc("libc.so.6");
    using Strlen = std::size_t (*)(const char*);
    EXPECT_EQ(reinterpret_cast<Strlen>(libc.symbol("strlen"))("vmafx"), 5u);
    test::expect_error([&] { libc.symbol("vmafx_no_such_function"); },
                       {"libc.so.6: no symbol vmafx_no_such_function"});
    test::expect_error([] { SharedLibrary absent("libvmafx-absent.so.0"); },
                       {"libvmafx-absent.so.0: ", "No such file"});
    const std::string bogus = write("libbogus.so.1", std::string(256, 'x'));
    test::expect_error([&] { SharedLibrary not_elf(bogus); }, {bogus + ": ", "ELF"});
}

}  // namespace
}  // namespace vmafx
