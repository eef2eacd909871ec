// fuzz_raw: the raw planar YUV reader (src/io/video_reader.cpp) and validate_video_format:
// geometry against file size.
//
// The first 4 bytes pick the format given as -w/-h/-b/-p: width and height (small, 1..64,
// or one of a list of absurd values: 0, negative, the limits and just past them, INT_MAX),
// bit depth (8..16 or an invalid 0, 7, 17, -1, INT_MAX) and subsampling (4:2:0, 4:2:2,
// 4:4:4); the rest of the input is the file. The file is opened with that format, counted,
// read whole (PlaneSet::kAll and kLuma), read again as a stream (a pipe), and skipped. Only
// vmafx::Error may come out; the pictures must have the format, frame_count() must give
// size / frame size whole frames and a damaged tail exactly when the size has a remainder, the
// reads must return those frames and then throw the damage message, and the stream reader the
// same frames with an error exactly where the file reader has one. (A file starting with
// "YUV4MPEG2 " is read as y4m whatever the format; that is fuzz_y4m's ground.)
#include <climits>
#include <optional>
#include <string_view>

#include "base/error.hpp"
#include "fuzz_support.hpp"
#include "io/video_reader.hpp"

using namespace vmafx;

namespace {

int side(std::uint8_t b) {
    constexpr int kAbsurd[] = {0, -1, -2, INT_MIN, kMaxVideoSide, kMaxVideoSide + 1, 16384, 16385, 65536, INT_MAX};
    if (b < 0xF0) return 1 + b % 64;
    return kAbsurd[(b - 0xF0) % (sizeof kAbsurd / sizeof kAbsurd[0])];
}

int bit_depth(std::uint8_t b) {
    constexpr int kDepths[] = {8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 7, 17, -1, INT_MAX};
    return kDepths[b % (sizeof kDepths / sizeof kDepths[0])];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 4) return 0;
    VideoFormat format;
    format.width = side(data[0]);
    format.height = side(data[1]);
    format.bit_depth = bit_depth(data[2]);
    format.subsampling = data[3] % 3 == 0 ? Subsampling::k420 : data[3] % 3 == 1 ? Subsampling::k422 : Subsampling::k444;

    static fuzz::MemFile file("fuzz_raw");
    file.set(data + 4, size - 4);
    const std::string& path = file.path();
    const bool y4m = size - 4 >= 10 && std::string_view(reinterpret_cast<const char*>(data + 4), 9) == "YUV4MPEG2";

    try {
        validate_video_format(format, path);
    } catch (const Error&) {
    }
    std::size_t frames_read[2] = {0, 0};
    std::string errors[2];
    for (const PlaneSet which : {PlaneSet::kAll, PlaneSet::kLuma}) {
        const int w = which == PlaneSet::kAll ? 0 : 1;
        try {
            const auto reader = open_video(path, format);
            const std::optional<FrameCount> count = reader->frame_count();
            fuzz::check(count.has_value());
            if (!y4m) {
                fuzz::check(reader->format() == format);
                fuzz::check(count->whole == (size - 4) / format.frame_bytes());
                fuzz::check(count->damage.empty() == ((size - 4) % format.frame_bytes() == 0));
            }
            Picture pic;
            try {
                while (reader->read(pic, which)) {
                    fuzz::check(pic.format == reader->format());
                    ++frames_read[w];
                }
            } catch (const Error& e) {
                errors[w] = e.what();
            }
            fuzz::check(frames_read[w] == count->whole);
            fuzz::check(errors[w] == count->damage);
        } catch (const Error& e) {
            errors[w] = e.what();
        }
    }
    fuzz::check(frames_read[0] == frames_read[1] && errors[0] == errors[1]);
    // The same bytes as a stream: the same frames, an error exactly where the file has one. (A
    // stream gets its picture once its first byte is there, so a huge declared frame would be
    // allocated in full: the formats that large are left to the file reader here, to keep the
    // harness fast.)
    bool valid = true;
    try {
        validate_video_format(format, path);
    } catch (const Error&) {
        valid = false;
    }
    if (!valid || format.frame_bytes() <= (16u << 20)) {
        const fuzz::MemPipe pipe(data + 4, size - 4);
        std::size_t frames = 0;
        bool failed = false;
        try {
            const auto reader = open_video(pipe.path(), format);
            fuzz::check(reader->is_stream() && !reader->frame_count());
            Picture pic;
            while (reader->read(pic, PlaneSet::kAll)) ++frames;
        } catch (const Error&) {
            failed = true;
        }
        fuzz::check(frames == frames_read[0]);
        // A y4m stream is not read past its header at open: one with no frame ends at once
        // where the file is refused.
        const bool no_frame = errors[0].ends_with("y4m file has no frames");
        fuzz::check(failed == !errors[0].empty() || (no_frame && frames == 0));
    }
    try {
        const auto reader = open_video(path, format);
        reader->skip(1);
        Picture pic;
        (void)reader->read(pic, PlaneSet::kAll);
        reader->skip(UINT_MAX);
    } catch (const Error&) {
    }
    return 0;
}
