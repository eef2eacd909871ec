// fuzz_y4m: the YUV4MPEG2 reader (src/io/video_reader.cpp) on arbitrary bytes.
//
// The input is the whole file. It is opened with open_video(path, nullopt) (so a file that
// is not y4m must be refused: raw YUV needs a format), then: frame_count(); every frame read
// with PlaneSet::kAll and again, in a second reader, with PlaneSet::kLuma; skip() of one frame
// and of more frames than remain. Only vmafx::Error may come out. Invariants checked: the
// pictures have the reader's format, and when frame_count() and the reads both succeed they
// agree on the number of frames. vmafx refuses absurd sizes itself (kMaxVideoSide,
// kMaxVideoArea in src/io/video_reader.hpp) and allocates a picture only for a frame whose
// samples the file holds, so memory follows the input size.
#include <climits>
#include <optional>

#include "feature/feature_extractor.hpp"
#include "fuzz_support.hpp"
#include "io/video_reader.hpp"

using namespace vmafx;

namespace {

// Reads every frame; returns how many there were.
unsigned read_all(VideoReader& reader, PlaneSet which) {
    Picture pic;
    unsigned n = 0;
    while (reader.read(pic, which)) {
        fuzz::check(pic.format == reader.format());
        fuzz::check(pic.planes[0].width() == reader.format().width && pic.planes[0].height() == reader.format().height);
        ++n;
    }
    return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static fuzz::MemFile file("fuzz_y4m");
    file.set(data, size);

    std::optional<unsigned> count;
    try {
        count = open_video(file.path(), std::nullopt)->frame_count();
    } catch (const Error&) {
    }
    for (const PlaneSet which : {PlaneSet::kAll, PlaneSet::kLuma}) {
        try {
            const auto reader = open_video(file.path(), std::nullopt);
            const unsigned read = read_all(*reader, which);
            if (count) fuzz::check(read == *count);
            fuzz::check(reader->frame_count() == read);
        } catch (const Error&) {
        }
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
