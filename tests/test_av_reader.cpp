// Tests of the decoding reader (src/io/av_reader.cpp) at the level of pictures: random pictures
// written as raw files, encoded losslessly by the ffmpeg command in a temporary folder, decoded
// by open_video() and compared sample by sample with what the raw reader reads. (Whole-run score
// comparisons, lossy codecs, --scale-dist against ffmpeg and the CLI's errors are in
// tests/compressed_input.py.) Skipped when this build has no FFmpeg libraries or no ffmpeg command.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "io/av_reader.hpp"
#include "picture/surface.hpp"
#include "io/video_reader.hpp"
#include "picture_checks.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

using test::error_of;
using test::expect_error;
using test::expect_same_samples;
using test::make_format;

/// ffmpeg's name of `f`'s raw layout ("yuv420p", "yuv444p12le").
std::string pix_fmt(const VideoFormat& f) {
    std::string name = std::string("yuv") + subsampling_name(f.subsampling) + "p";
    if (f.bit_depth > 8) name += std::to_string(f.bit_depth) + "le";
    return name;
}

class AvReader : public test::TempDirTest {
protected:
    void SetUp() override {
        test::TempDirTest::SetUp();
        if (libav_versions().empty()) GTEST_SKIP() << "skipped: this build has no FFmpeg libraries";
        if (std::system("ffmpeg -version >/dev/null 2>&1") != 0) GTEST_SKIP() << "skipped: no ffmpeg command";
    }

    /// Runs ffmpeg with `args` (quiet, overwriting); fails the test when it fails.
    void ffmpeg(const std::string& args) {
        const std::string cmd = "ffmpeg -nostdin -hide_banner -loglevel error -y " + args;
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }

    /// Writes `pics` as a raw file `name` and encodes it into `out` with `codec_args`.
    std::string encode(const std::vector<Picture>& pics, const std::string& name, const std::string& codec_args,
                       const std::string& out) {
        std::string bytes;
        for (const Picture& p : pics) bytes += test::raw_bytes(p);
        const std::string raw = write(name, bytes);
        const VideoFormat& f = pics.front().format;
        const std::string encoded = path(out).string();
        ffmpeg("-f rawvideo -pix_fmt " + pix_fmt(f) + " -s " + std::to_string(f.width) + "x" +
               std::to_string(f.height) + " -r 25 -i " + raw + " " + codec_args + " " + encoded);
        return encoded;
    }
};

// Lossless encodes decode to the raw samples, every plane, at odd sizes, 4:2:0/4:2:2/4:4:4 and
// 8 to 16 bits (big-endian words swapped); the reader knows no count in advance but the
// container's estimate.
TEST_F(AvReader, LosslessSamplesAsRaw) {
    struct Case {
        VideoFormat format;
        std::string codec;
        std::string ext;
    };
    const std::vector<Case> cases = {
        {make_format(35, 19, Subsampling::k420, 8), "-c:v ffv1", "mkv"},
        {make_format(34, 18, Subsampling::k422, 10), "-c:v libx264 -qp 0 -preset ultrafast", "mp4"},
        {make_format(33, 17, Subsampling::k444, 12), "-c:v ffv1", "mkv"},
        {make_format(32, 18, Subsampling::k420, 16), "-c:v ffv1", "mkv"},
        {make_format(32, 18, Subsampling::k444, 10), "-pix_fmt yuv444p10be -c:v rawvideo", "nut"},
    };
    int n = 0;
    for (const Case& c : cases) {
        const std::string what = pix_fmt(c.format) + " " + c.codec;
        const std::vector<Picture> pics = test::random_pictures(c.format, 3, 17 + n);
        const std::string encoded = encode(pics, "in" + std::to_string(n) + ".yuv", c.codec,
                                           "out" + std::to_string(n) + "." + c.ext);
        ++n;
        auto reader = open_video(encoded, std::nullopt);
        ASSERT_EQ(reader->format(), c.format) << what;
        EXPECT_FALSE(reader->frame_count()) << what;
        EXPECT_FALSE(reader->is_stream()) << what;
        if (c.ext != "nut") {  // NUT holds no count nor duration: its estimate comes from the last timestamp
            EXPECT_EQ(reader->expected_frames().value_or(0), 3u) << what;
        }
        EXPECT_TRUE(reader->notices().empty()) << what;
        Picture pic;
        for (const Picture& want : pics) {
            ASSERT_TRUE(reader->read(pic)) << what;
            expect_same_samples(pic, want, what);
        }
        EXPECT_FALSE(reader->read(pic)) << what;
        EXPECT_FALSE(reader->read(pic)) << what << " (after the end)";
    }
}

// A GPU decoder's surfaces (NV12, P010, P016, YUV444P, YUV444P16: libswscale writes them from the
// pictures here) unpack on the host (unpack_surface_host, the arithmetic of the CUDA backend's
// kernel) to the pictures, as libswscale converts them back to the planar formats, at odd sizes.
TEST_F(AvReader, SurfaceUnpackAsLibswscale) {
    struct Case {
        VideoFormat format;
        std::string surface;
        DeviceSurface::Layout layout;
        int word_bytes, shift;
    };
    using L = DeviceSurface::Layout;
    const std::vector<Case> cases = {
        {make_format(35, 19, Subsampling::k420, 8), "nv12", L::kSemiPlanar, 1, 0},
        {make_format(33, 18, Subsampling::k420, 10), "p010le", L::kSemiPlanar, 2, 6},
        {make_format(34, 17, Subsampling::k420, 12), "p016le", L::kSemiPlanar, 2, 4},
        {make_format(33, 17, Subsampling::k444, 8), "yuv444p", L::kPlanar, 1, 0},
        {make_format(31, 19, Subsampling::k444, 10), "yuv444p16le", L::kPlanar, 2, 6},
    };
    int n = 0;
    for (const Case& c : cases) {
        const VideoFormat& f = c.format;
        const std::string what = pix_fmt(f) + " as " + c.surface;
        const Picture want = test::random_picture(f, 40 + n);
        const std::string size = std::to_string(f.width) + "x" + std::to_string(f.height);
        const std::string raw = write("pic" + std::to_string(n) + ".yuv", test::raw_bytes(want));
        const std::string surface = path("surface" + std::to_string(n) + ".raw").string();
        const std::string back = path("back" + std::to_string(n) + ".yuv").string();
        ++n;
        // The surface as a decoder's output, then libswscale's conversion of it to the format.
        ffmpeg("-f rawvideo -pix_fmt " + pix_fmt(f) + " -s " + size + " -i " + raw + " -f rawvideo -pix_fmt " +
               c.surface + " " + surface);
        ffmpeg("-f rawvideo -pix_fmt " + c.surface + " -s " + size + " -i " + surface + " -f rawvideo -pix_fmt " +
               pix_fmt(f) + " " + back);
        Picture by_libswscale;
        ASSERT_TRUE(open_video(back, f)->read(by_libswscale)) << what;

        std::ifstream in(surface, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        DeviceSurface s;
        s.layout = c.layout;
        s.word_bytes = c.word_bytes;
        s.shift = c.shift;
        const std::ptrdiff_t luma = static_cast<std::ptrdiff_t>(f.width) * c.word_bytes;
        const std::ptrdiff_t chroma = c.layout == L::kSemiPlanar ? 2 * f.plane_width(1) * c.word_bytes : luma;
        s.pitch = {luma, chroma, chroma};
        s.planes[0] = bytes.data();
        s.planes[1] = bytes.data() + luma * f.height;
        s.planes[2] = bytes.data() + luma * f.height + chroma * f.plane_height(1);
        const std::size_t size_wanted = static_cast<std::size_t>(luma * f.height) +
                                        static_cast<std::size_t>(chroma * f.plane_height(1)) *
                                            (c.layout == L::kSemiPlanar ? 1 : 2);
        ASSERT_EQ(bytes.size(), size_wanted) << what;
        Picture unpacked;
        unpack_surface_host(s, f, unpacked, PlaneSet::kAll);
        expect_same_samples(unpacked, by_libswscale, what);
        // Where libswscale writes the surface without loss (all but P010 at an odd width, whose
        // chroma it converts through its scaler), both are the pictures themselves.
        if (!(c.surface == "p010le" && f.width % 2)) expect_same_samples(unpacked, want, what + " (the pictures)");
        // Luma alone leaves the chroma planes as they were.
        Picture luma_only(f);
        unpack_surface_host(s, f, luma_only, PlaneSet::kLuma);
        EXPECT_EQ(luma_only.planes[0].row<std::uint8_t>(0)[0], unpacked.planes[0].row<std::uint8_t>(0)[0]) << what;
        EXPECT_EQ(luma_only.planes[1].row<std::uint8_t>(0)[0], 0) << what;
    }
    // A surface that cannot hold the format is an internal error, not a wrong picture.
    DeviceSurface nv12;
    Picture pic;
    EXPECT_THROW(unpack_surface_host(nv12, make_format(8, 8, Subsampling::k420, 10), pic, PlaneSet::kAll), Error);
    EXPECT_THROW(unpack_surface_host(nv12, make_format(8, 8, Subsampling::k444, 8), pic, PlaneSet::kAll), Error);
}

// Asked to decode on the GPU: where this machine has NVDEC (a CUDA device and FFmpeg libraries
// with its acceleration), H.264 and HEVC videos decode there and their frames, downloaded and
// unpacked, are the CPU decoder's; H.264 10-bit, which NVDEC lacks, decodes on the CPU with a
// note naming the video and why. Where no device opens, the videos decode on the CPU with a note
// giving the device's reason. A device type libav does not know is refused by name. (Sizes above
// NVDEC's smallest, 144x144 for HEVC.)
TEST_F(AvReader, GpuDecodeOrNote) {
    std::string why;
    EXPECT_EQ(GpuDecodingDevice("no-such-device").get(why), nullptr);
    EXPECT_EQ(why, "FFmpeg's libraries have no no-such-device devices");
    why.clear();
    const auto shared = std::make_shared<GpuDecodingDevice>("cuda");
    const bool device = shared->get(why) != nullptr;
    EXPECT_EQ(device, why.empty()) << why;
    if (!device) {
        EXPECT_EQ(why.rfind("cannot open the cuda device: ", 0), 0u) << why;
    }
    const GpuDecode gpu{"cuda", "cuda", shared};
    struct Case {
        VideoFormat format;
        std::string codec, ext;
        bool nvdec;  ///< NVDEC decodes it
    };
    int n = 0;
    for (const Case& c :
         {Case{make_format(160, 144, Subsampling::k420, 8), "-c:v libx264 -preset ultrafast -crf 30", "mp4", true},
          Case{make_format(160, 144, Subsampling::k420, 10),
               "-c:v libx265 -preset ultrafast -crf 30 -x265-params log-level=error", "mkv", true},
          Case{make_format(160, 144, Subsampling::k420, 10), "-c:v libx264 -preset ultrafast -crf 30", "mkv", false}}) {
        const std::vector<Picture> pics = test::random_pictures(c.format, 4, 5 + n);
        const std::string encoded = encode(pics, "gpu" + std::to_string(n) + ".yuv", c.codec,
                                           "gpu" + std::to_string(n) + "." + c.ext);
        ++n;
        auto cpu = open_video(encoded, std::nullopt);
        EXPECT_EQ(cpu->decoder(), "cpu");
        EXPECT_EQ(cpu->decoder_note(), "");
        EXPECT_FALSE(cpu->has_surfaces());
        auto on_gpu = open_video(encoded, std::nullopt, 0, gpu);
        if (!device) {
            EXPECT_EQ(on_gpu->decoder(), "cpu") << c.codec;
            EXPECT_EQ(on_gpu->decoder_note(), encoded + ": decoded on the CPU, not the GPU: " + why) << c.codec;
        } else if (c.nvdec) {
            EXPECT_EQ(on_gpu->decoder(), "cuda") << c.codec << ": " << on_gpu->decoder_note();
            EXPECT_TRUE(on_gpu->has_surfaces()) << c.codec;
            EXPECT_EQ(on_gpu->decoder_note(), "") << c.codec;
        } else {
            EXPECT_EQ(on_gpu->decoder(), "cpu") << c.codec;
            EXPECT_EQ(on_gpu->decoder_note().rfind(encoded + ": decoded on the CPU, not the GPU: ", 0), 0u)
                << on_gpu->decoder_note();
        }
        if (!on_gpu->has_surfaces()) {
            DeviceSurface s;
            EXPECT_THROW(on_gpu->read_surface(s), Error) << c.codec;
        }
        ASSERT_EQ(on_gpu->format(), cpu->format()) << c.codec;
        Picture a, b;
        for (unsigned i = 0; i < pics.size(); ++i) {
            ASSERT_TRUE(cpu->read(a)) << c.codec;
            ASSERT_TRUE(on_gpu->read(b)) << c.codec;
            expect_same_samples(b, a, c.codec + " frame " + std::to_string(i) + " decoded on the " + on_gpu->decoder());
        }
        EXPECT_FALSE(on_gpu->read(b)) << c.codec;
    }
}

// Several decoding sessions (AvInput::sessions) give the frames of one decoder, on H.264 and
// HEVC with B-frames in MP4, Annex B and Matroska: the stream is cut before each IDR picture
// that may begin a segment (at least 16 frames apart: IDR pictures every 5 frames give segments
// of 20), into as many segments as expected; open-GOP HEVC (CRA pictures) and other codecs are
// not cut, and a notice says why. Skips count the sessions' frames.
TEST_F(AvReader, SessionsDecodeAsOne) {
    const VideoFormat f = make_format(64, 48, Subsampling::k420, 8);
    const std::vector<Picture> pics = test::random_pictures(f, 70, 17);
    const std::string x264 = "-c:v libx264 -preset veryfast -crf 30 -x264-params "
                             "log-level=none:scenecut=0:b-adapt=0:bframes=3:keyint=",
                      x265 = "-c:v libx265 -preset ultrafast -crf 30 -x265-params "
                             "log-level=error:scenecut=0:b-adapt=0:bframes=3:keyint=20:min-keyint=20:open-gop=";
    struct Case {
        std::string codec, file;
        unsigned segments;  ///< expected cuts of 70 frames
        std::string notice;  ///< why one session decodes it
    };
    const std::vector<Case> cases = {
        {x264 + "20:min-keyint=20", "h264.mp4", 4, ""},  // IDR at 0, 20, 40, 60; parameter sets in avcC
        {x264 + "20:min-keyint=20", "h264.h264", 4, ""},  // Annex B, the sets before each IDR
        {x264 + "5:min-keyint=5", "h264_short.mp4", 4, ""},  // IDR every 5 frames: cut at 20, 40, 60
        {x265 + "0", "hevc.mkv", 4, ""},
        {x265 + "1", "hevc_open.mkv", 1, ""},  // CRA pictures only after the first
        {"-c:v ffv1", "ffv1.mkv", 1, "--decode-sessions cuts H.264 and HEVC streams only"},
    };
    for (const Case& c : cases) {
        const std::string encoded = encode(pics, "in.yuv", c.codec, c.file);
        auto one = open_video(encoded, std::nullopt);
        auto three = open_video(encoded, std::nullopt, 0, {}, 3);
        ASSERT_EQ(three->format(), one->format()) << c.file;
        Picture a, b;
        for (unsigned i = 0; i < pics.size(); ++i) {
            ASSERT_TRUE(one->read(a)) << c.file;
            ASSERT_TRUE(three->read(b)) << c.file << " frame " << i;
            expect_same_samples(b, a, c.file + " frame " + std::to_string(i) + " by three sessions");
        }
        EXPECT_FALSE(one->read(a)) << c.file;
        EXPECT_FALSE(three->read(b)) << c.file;
        const VideoReader::Sessions s = three->decoding_sessions();
        EXPECT_EQ(s.segments, c.segments) << c.file;
        EXPECT_EQ(s.sessions, c.notice.empty() ? 3u : 1u) << c.file;
        const std::vector<std::string> notices = three->notices();
        if (c.notice.empty()) {
            EXPECT_TRUE(notices.empty()) << c.file << ": " << notices.front();
        } else {
            ASSERT_EQ(notices.size(), 1u) << c.file;
            EXPECT_NE(notices[0].find(encoded + ": decoded by one session, not 3: " + c.notice), std::string::npos)
                << notices[0];
        }
        EXPECT_TRUE(three->reading_warnings().empty()) << c.file;
        auto skipping = open_video(encoded, std::nullopt, 0, {}, 2);
        skipping->skip(33);
        ASSERT_TRUE(skipping->read(b)) << c.file;
        expect_same_samples(b, [&] {
            auto again = open_video(encoded, std::nullopt);
            again->skip(33);
            Picture p;
            again->read(p);
            return p;
        }(), c.file + " frame 33 after skip(33) by two sessions");
    }
}

// -w/-h/-p/-b given: a certain container is still decoded; raw bytes stay raw.
TEST_F(AvReader, RawFormatGivenKeepsContainers) {
    const VideoFormat f = make_format(32, 18, Subsampling::k420, 8);
    const std::vector<Picture> pics = test::random_pictures(f, 2, 5);
    const std::string mkv = encode(pics, "in.yuv", "-c:v ffv1", "out.mkv");
    auto decoded = open_video(mkv, f);
    EXPECT_FALSE(decoded->frame_count());
    Picture pic;
    ASSERT_TRUE(decoded->read(pic));
    expect_same_samples(pic, pics[0], "mkv with -w -h -p -b");
    auto raw = open_video(path("in.yuv").string(), f);
    ASSERT_TRUE(raw->frame_count());
    EXPECT_EQ(raw->frame_count()->whole, 2u);
    // A flat grey raw picture of 0x47 bytes looks like MPEG-TS to a prober: still raw.
    const std::string flat = write("flat.yuv", std::string(f.frame_bytes() * 2, '\x47'));
    auto flat_reader = open_video(flat, f);
    ASSERT_TRUE(flat_reader->frame_count());
    EXPECT_EQ(flat_reader->frame_count()->whole, 2u);
}

// Skips decode and drop frames; skipping past the end names the counts.
TEST_F(AvReader, Skip) {
    const VideoFormat f = make_format(32, 18, Subsampling::k420, 8);
    const std::vector<Picture> pics = test::random_pictures(f, 4, 9);
    const std::string mkv = encode(pics, "in.yuv", "-c:v ffv1", "out.mkv");
    auto reader = open_video(mkv, std::nullopt);
    reader->skip(2);
    Picture pic;
    ASSERT_TRUE(reader->read(pic));
    expect_same_samples(pic, pics[2], "frame 2 after skip(2)");
    expect_error([&] { open_video(mkv, std::nullopt)->skip(6); },
                 {mkv, "cannot skip 6 frames from frame 0", "has 4 frames"});
}

// A decoded format vmafx does not score is converted, and a notice says so; grey becomes 4:2:0
// as `ffmpeg -pix_fmt yuv420p` converts it (grey is full range to libswscale: the luma is
// mapped to limited range), with neutral chroma.
TEST_F(AvReader, ConvertedWithNotice) {
    const VideoFormat f = make_format(32, 18, Subsampling::k420, 8);
    const std::vector<Picture> pics = test::random_pictures(f, 2, 3);
    const std::string mkv = encode(pics, "in.yuv", "-pix_fmt gray -c:v ffv1", "gray.mkv");
    auto reader = open_video(mkv, std::nullopt);
    EXPECT_EQ(reader->format(), f);
    ASSERT_EQ(reader->notices().size(), 1u);
    EXPECT_NE(reader->notices()[0].find(mkv + ": decoded as gray"), std::string::npos) << reader->notices()[0];
    EXPECT_NE(reader->notices()[0].find("converted to yuv420p"), std::string::npos) << reader->notices()[0];
    ffmpeg("-i " + mkv + " -f rawvideo -pix_fmt yuv420p " + path("ffmpeg.yuv").string());
    auto theirs = open_video(path("ffmpeg.yuv").string(), f);
    Picture pic, want;
    for (int i = 0; i < 2; ++i) {
        ASSERT_TRUE(reader->read(pic));
        ASSERT_TRUE(theirs->read(want));
        expect_same_samples(pic, want, "gray frame " + std::to_string(i));
    }
    EXPECT_FALSE(reader->read(pic));
    for (int p = 1; p < 3; ++p)
        for (int y = 0; y < pic.planes[p].height(); ++y)
            for (int x = 0; x < pic.planes[p].width(); ++x) ASSERT_EQ(pic.planes[p].at(x, y), 128u);
}

// scale_video: the format takes the new size; the same size is left alone; unknown flags are a
// usage error.
TEST_F(AvReader, ScaleVideo) {
    const VideoFormat f = make_format(32, 18, Subsampling::k420, 10);
    const std::vector<Picture> pics = test::random_pictures(f, 2, 11);
    std::string bytes;
    for (const Picture& p : pics) bytes += test::raw_bytes(p);
    const std::string raw = write("in.yuv", bytes);
    auto scaled = scale_video(open_video(raw, f), 64, 36, "bicubic");
    EXPECT_EQ(scaled->format(), make_format(64, 36, Subsampling::k420, 10));
    ASSERT_TRUE(scaled->frame_count());
    EXPECT_EQ(scaled->frame_count()->whole, 2u);
    Picture pic;
    ASSERT_TRUE(scaled->read(pic));
    ASSERT_TRUE(scaled->read(pic));
    EXPECT_FALSE(scaled->read(pic));
    auto same = scale_video(open_video(raw, f), 32, 18, "lanczos");
    ASSERT_TRUE(same->read(pic));
    expect_same_samples(pic, pics[0], "same size");
    EXPECT_THROW(check_scale_flags("nonsense"), UsageError);
    EXPECT_THROW(check_scale_flags("accurate_rnd"), UsageError);  // no algorithm
    EXPECT_NO_THROW(check_scale_flags("lanczos+accurate_rnd"));
}

// Bad input: clear errors naming the file, never a crash.
TEST_F(AvReader, Errors) {
    const std::string text = write("notes.txt", std::string(200, 'x'));
    expect_error([&] { open_video(text, std::nullopt); },
                 {text, "FFmpeg's libraries do not read it as a video", "-w, -h, -p and -b"});
    const std::string yuv = write("plain.yuv", std::string(200, 'x'));
    expect_error([&] { open_video(yuv, std::nullopt); }, {yuv + ": raw YUV needs -w, -h, -p and -b"});
    // Random bytes named .bin (libavformat's text-art demuxer may take such data by its name alone).
    test::Random random(7);
    std::string noise(5000, '\0');
    for (char& c : noise) c = static_cast<char>(random.next() >> 24);
    const std::string bin = write("random.bin", noise);
    expect_error([&] { open_video(bin, std::nullopt); }, {bin, "-w, -h, -p and -b"});
    const VideoFormat f = make_format(32, 18, Subsampling::k420, 8);
    const std::string mp4 = encode(test::random_pictures(f, 3, 1), "in.yuv", "-c:v libx264 -qp 0", "whole.mp4");
    std::ifstream in(mp4, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const std::size_t keep : {std::size_t{0}, std::size_t{100}, data.size() / 2, data.size() - 10}) {
        const std::string cut = write("cut" + std::to_string(keep) + ".mp4", data.substr(0, keep));
        const std::string message = error_of([&] {
            auto r = open_video(cut, std::nullopt);
            Picture pic;
            while (r->read(pic)) {
            }
            throw Error("read to the end");  // a cut that still decodes: fine, as long as nothing crashed
        });
        EXPECT_NE(message.find(keep == 0 ? cut : ""), std::string::npos) << message;
    }
    ffmpeg("-f lavfi -i sine=duration=0.2 -c:a aac " + path("audio.m4a").string());
    expect_error([&] { open_video(path("audio.m4a").string(), std::nullopt); }, {"audio.m4a", "no video stream"});
}

}  // namespace
}  // namespace vmafx
