// fuzz_y4m: the YUV4MPEG2 reader (src/io/video_reader.cpp) on arbitrary bytes, as a regular
// file and as a stream.
//
// The input is the whole video. It is opened with open_video(path, nullopt) (so a video that is
// not y4m must be refused: raw YUV needs a format), then: frame_count(); every frame read with
// PlaneSet::kAll and again, in a second reader, with PlaneSet::kLuma; the same bytes through a
// pipe (the stream reader); skip() of one frame and of more frames than remain. Only
// vmafx::Error may come out. Invariants: pictures have the reader's format; a file reader
// returns exactly frame_count().whole frames, then ends cleanly when there is no damage, or
// throws the damage message itself; the stream reader returns the same frames (same luma
// samples) and throws exactly where the file reader does. vmafx refuses absurd sizes itself
// (kMaxVideoSide, kMaxVideoArea in src/io/video_reader.hpp) and allocates a picture only for a
// frame whose header it read, so memory follows the input size.
#include <climits>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "fuzz_support.hpp"
#include "io/video_reader.hpp"

using namespace vmafx;

namespace {

/// What reading a video to its end gave: the luma rows of every frame, and the error that
/// stopped it (empty at a clean end).
struct Reading {
    std::vector<std::string> luma;
    std::string error;
    bool opened = false;
};

Reading read_all(const std::string& path, PlaneSet which) {
    Reading r;
    try {
        const auto reader = open_video(path, std::nullopt);
        r.opened = true;
        Picture pic;
        while (reader->read(pic, which)) {
            fuzz::check(pic.format == reader->format());
            const Plane& y = pic.planes[0];
            fuzz::check(y.width() == reader->format().width && y.height() == reader->format().height);
            std::string rows;
            const std::size_t row_bytes = static_cast<std::size_t>(y.width()) * y.bytes_per_sample();
            for (int i = 0; i < y.height(); ++i) rows.append(reinterpret_cast<const char*>(y.row<std::uint8_t>(i)), row_bytes);
            r.luma.push_back(std::move(rows));
        }
    } catch (const Error& e) {
        r.error = e.what();
    }
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static fuzz::MemFile file("fuzz_y4m");
    file.set(data, size);

    std::optional<FrameCount> count;
    try {
        count = open_video(file.path(), std::nullopt)->frame_count();
        fuzz::check(count.has_value());
    } catch (const Error&) {
    }
    const Reading all = read_all(file.path(), PlaneSet::kAll);
    const Reading luma = read_all(file.path(), PlaneSet::kLuma);
    fuzz::check(all.luma == luma.luma && all.error == luma.error);
    if (count) {
        fuzz::check(all.luma.size() == count->whole);
        fuzz::check(all.error == count->damage);
    }
    {
        const fuzz::MemPipe pipe(data, size);
        const Reading stream = read_all(pipe.path(), PlaneSet::kAll);
        // A stream is not read past its header at open, so one with no frame opens (and ends
        // at once) where the file is refused.
        const bool no_frame = all.error.ends_with("y4m file has no frames");
        fuzz::check(stream.opened == all.opened || (no_frame && stream.luma.empty() && stream.error.empty()));
        fuzz::check(stream.luma == all.luma);
        fuzz::check(stream.error.empty() == all.error.empty() || no_frame);
    }
    try {
        const auto reader = open_video(file.path(), std::nullopt);
        reader->skip(1);
        Picture pic;
        (void)reader->read(pic, PlaneSet::kLuma);
        reader->skip(UINT_MAX);
    } catch (const Error&) {
    }
    return 0;
}
