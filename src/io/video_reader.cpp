// Raw planar YUV and YUV4MPEG2 readers (upstream: libvmaf tools/yuv_input.c, tools/y4m_input.c,
// tools/vidinput.c; see video_reader.hpp for where vmafx differs).
#include "io/video_reader.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <climits>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>  // snprintf
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "feature/feature_extractor.hpp"  // vmafx::Error

namespace vmafx {

namespace {

/// Longest y4m stream header or frame header accepted, newline included, in bytes.
constexpr std::size_t kMaxHeaderLine = 64 * 1024;
/// Largest piece of a plane one read call moves; larger planes are read in parallel pieces.
constexpr std::size_t kReadPiece = 512 * 1024;

constexpr std::string_view kY4mMagic = "YUV4MPEG2";

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
    throw Error(path + ": " + problem);
}

std::string frame_name(unsigned index) { return "frame " + std::to_string(index); }

/// "853x481 4:2:0 8-bit", for messages.
std::string describe(const VideoFormat& f) {
    const std::string s = subsampling_name(f.subsampling);
    return std::to_string(f.width) + "x" + std::to_string(f.height) + " " + s.substr(0, 1) + ":" + s.substr(1, 1) +
           ":" + s.substr(2, 1) + " " + std::to_string(f.bit_depth) + "-bit";
}

/// `bytes` quoted, non-printable characters as \xNN, for messages about malformed headers.
std::string quoted(std::string_view bytes) {
    std::string out = "\"";
    for (const char c : bytes) {
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            out += c;
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
            out += hex;
        }
    }
    return out + "\"";
}

/// An open file descriptor, closed when destroyed.
class FileHandle {
public:
    explicit FileHandle(int fd) : fd_(fd) {}
    ~FileHandle() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileHandle(FileHandle&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    FileHandle& operator=(FileHandle&&) = delete;
    FileHandle(const FileHandle&) = delete;
    FileHandle& operator=(const FileHandle&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

/// Opens `path` for reading; returns the file and its size in bytes. Throws when the file is
/// missing, unreadable or not a regular file.
std::pair<FileHandle, std::uint64_t> open_regular_file(const std::string& path) {
    // Non-blocking, so that opening a pipe with no writer cannot hang before it is refused;
    // reads of a regular file ignore the flag.
    FileHandle file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (file.get() < 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (fstat(file.get(), &st) != 0) fail(path, std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) fail(path, "not a regular file (vmafx reads video files, not pipes or directories)");
    ::posix_fadvise(file.get(), 0, 0, POSIX_FADV_SEQUENTIAL);  // a hint only: its failure is harmless
    return {std::move(file), static_cast<std::uint64_t>(st.st_size)};
}

/// Reads up to `n` bytes at byte `offset` of `fd` into `dst` (pread, repeated after signals and
/// short reads). Returns the bytes read: fewer than `n` only at the end of the file. Throws on
/// an I/O error, naming the file and frame `frame`.
std::size_t read_at(int fd, void* dst, std::size_t n, std::uint64_t offset, const std::string& path,
                    unsigned frame) {
    std::size_t done = 0;
    while (done < n) {
        const ssize_t got = ::pread(fd, static_cast<char*>(dst) + done, n - done, static_cast<off_t>(offset + done));
        if (got < 0) {
            if (errno == EINTR) continue;
            fail(path, frame_name(frame) + ": read error: " + std::strerror(errno));
        }
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    return done;
}

/// Reads `n` bytes of frame `frame` at `offset` into `dst`. Large reads are split into
/// kReadPiece pieces read in parallel (oneTBB), which moves a 4K plane out of the page cache
/// several times faster than one thread's copy. Returns false when the file ended before
/// (the caller checked the size first, so the file shrank while it was read); throws on an
/// I/O error.
bool read_exact(int fd, std::uint8_t* dst, std::size_t n, std::uint64_t offset, const std::string& path,
                unsigned frame) {
    if (n <= kReadPiece) return read_at(fd, dst, n, offset, path, frame) == n;
    const std::size_t pieces = (n + kReadPiece - 1) / kReadPiece;
    std::atomic<bool> whole{true};
    // Its own context: a cancelled caller (a failing pipeline, a library user's task group)
    // cannot skip pieces and leave the plane half read; and isolated, so that a thread
    // waiting here runs only these pieces, never unrelated pipeline work.
    tbb::task_group_context context(tbb::task_group_context::isolated);
    tbb::this_task_arena::isolate([&] {
        tbb::parallel_for(
            std::size_t{0}, pieces,
            [&](std::size_t i) {
                const std::size_t begin = i * kReadPiece, end = std::min(n, (i + 1) * kReadPiece);
                if (read_at(fd, dst + begin, end - begin, offset + begin, path, frame) != end - begin) whole = false;
            },
            context);
    });
    return whole;
}

/// Bytes of plane `p` of one frame of `format` in a file (no padding).
std::size_t plane_file_bytes(const VideoFormat& format, int p) {
    return static_cast<std::size_t>(format.plane_width(p)) * static_cast<std::size_t>(format.plane_height(p)) *
           static_cast<std::size_t>(format.bytes_per_sample());
}

/// What raw and y4m readers share: the open file, its size, the frame position and the reading
/// of a frame's samples.
class FileReader : public VideoReader {
protected:
    FileReader(std::string path, const VideoFormat& format, FileHandle file, std::uint64_t file_size)
        : VideoReader(std::move(path), format),
          file_(std::move(file)),
          file_size_(file_size),
          frame_bytes_(format.frame_bytes()) {}

    /// Throws unless the file holds the whole samples of frame `index` at `samples_at`.
    void check_whole(std::uint64_t samples_at, unsigned index) const {
        if (samples_at > file_size_ || file_size_ - samples_at < frame_bytes_)
            fail(path(), frame_name(index) + " is truncated: the file ends after " +
                             std::to_string(samples_at > file_size_ ? 0 : file_size_ - samples_at) + " of its " +
                             std::to_string(frame_bytes_) + " bytes of samples (" + describe(format()) + ")");
    }

    /// Reads the samples of frame `next_`, which start at byte `samples_at`, into the planes
    /// `which` of `pic` (re-allocated when its format is not the file's); the other planes are
    /// skipped in the file and left as they are. Throws when the frame is truncated.
    void read_samples(Picture& pic, PlaneSet which, std::uint64_t samples_at) {
        check_whole(samples_at, next_);
        if (pic.format != format() || pic.planes[0].width() != format().width ||
            pic.planes[0].height() != format().height)
            pic = Picture(format());
        std::uint64_t offset = samples_at;
        const int planes = which == PlaneSet::kAll ? 3 : 1;
        for (int p = 0; p < planes; ++p) {
            if (!read_plane(pic.planes[p], offset)) {
                // The file shrank since it was opened: report it as the truncated frame it now is.
                struct stat st {};
                if (fstat(file_.get(), &st) != 0) fail(path(), std::string("cannot stat: ") + std::strerror(errno));
                file_size_ = static_cast<std::uint64_t>(st.st_size);
                check_whole(samples_at, next_);
                fail(path(), frame_name(next_) + ": read error: the file ended early while it was read");
            }
            offset += plane_file_bytes(format(), p);
        }
    }

    [[noreturn]] void fail_skip(unsigned n, unsigned total) const {
        fail(path(), "cannot skip " + std::to_string(n) + " frames from " + frame_name(next_) + ": the file has " +
                         std::to_string(total) + " frames");
    }

    FileHandle file_;
    std::uint64_t file_size_;
    std::size_t frame_bytes_;
    unsigned next_ = 0;  ///< index of the next frame read() returns

private:
    /// Reads one plane's samples at `offset`: straight into the plane when its rows are
    /// contiguous (stride equals the row size), else through a bounce buffer, row by row.
    /// 16-bit samples are little-endian in the file and byte-swapped only on a big-endian host.
    /// Returns false when the file ended within the plane.
    bool read_plane(Plane& plane, std::uint64_t offset) {
        const std::size_t row_bytes = static_cast<std::size_t>(plane.width()) * plane.bytes_per_sample();
        const auto rows = static_cast<std::size_t>(plane.height());
        if (static_cast<std::size_t>(plane.stride()) == row_bytes) {
            if (!read_exact(file_.get(), plane.data(), row_bytes * rows, offset, path(), next_)) return false;
        } else {
            bounce_.resize(row_bytes * rows);
            if (!read_exact(file_.get(), bounce_.data(), bounce_.size(), offset, path(), next_)) return false;
            for (std::size_t y = 0; y < rows; ++y)
                std::memcpy(plane.row<std::uint8_t>(static_cast<int>(y)), bounce_.data() + y * row_bytes, row_bytes);
        }
        if constexpr (std::endian::native == std::endian::big) {
            if (plane.bytes_per_sample() == 2) {
                for (int y = 0; y < plane.height(); ++y) {
                    std::uint16_t* row = plane.row<std::uint16_t>(y);
                    for (int x = 0; x < plane.width(); ++x)
                        row[x] = static_cast<std::uint16_t>((row[x] >> 8) | (row[x] << 8));
                }
            }
        }
        return true;
    }

    std::vector<std::uint8_t> bounce_;  ///< samples of a plane with padded rows, as in the file
};

/// Raw planar YUV (upstream: tools/yuv_input.c): frame i at byte i * frame_bytes.
class RawReader final : public FileReader {
public:
    RawReader(std::string path, const VideoFormat& format, FileHandle file, std::uint64_t file_size)
        : FileReader(std::move(path), format, std::move(file), file_size),
          frame_count_(static_cast<unsigned>(file_size / frame_bytes_)) {}

    bool read(Picture& pic, PlaneSet which) override {
        if (next_ >= frame_count_) return false;
        read_samples(pic, which, static_cast<std::uint64_t>(next_) * frame_bytes_);
        ++next_;
        return true;
    }

    void skip(unsigned n) override {
        if (n > frame_count_ - next_) fail_skip(n, frame_count_);
        next_ += n;
    }

    unsigned frame_count() const override { return frame_count_; }

private:
    unsigned frame_count_;
};

/// Reads the y4m frame header ("FRAME", optional " parameters", "\n") of frame `index` at byte
/// `offset` of the file. Returns its length in bytes, or 0 at a clean end of file.
/// Throws on a truncated, malformed or over-long header.
std::size_t read_frame_header(int fd, std::uint64_t offset, std::uint64_t file_size, const std::string& path,
                              unsigned index) {
    if (offset >= file_size) return 0;
    char head[6];
    const std::size_t got = read_at(fd, head, sizeof head, offset, path, index);
    if (got == 0) return 0;
    const std::string_view seen(head, got);
    if (got < sizeof head) {
        if (seen == std::string_view("FRAME", got))
            fail(path, frame_name(index) + " is truncated: the file ends within its header " + quoted(seen));
        fail(path, frame_name(index) + ": malformed y4m frame header " + quoted(seen) + " (expected \"FRAME\")");
    }
    if (std::memcmp(head, "FRAME", 5) != 0 || (head[5] != '\n' && head[5] != ' '))
        fail(path, frame_name(index) + ": malformed y4m frame header " + quoted(seen) + " (expected \"FRAME\")");
    if (head[5] == '\n') return sizeof head;
    // Parameters: scan for the newline within the first kMaxHeaderLine bytes of the header.
    const std::uint64_t limit = std::min<std::uint64_t>(kMaxHeaderLine, file_size - offset);
    char buffer[4096];
    std::uint64_t scanned = sizeof head;
    while (scanned < limit) {
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buffer, limit - scanned));
        const std::size_t n = read_at(fd, buffer, want, offset + scanned, path, index);
        if (n == 0) break;  // the file shrank since it was opened
        if (const void* nl = std::memchr(buffer, '\n', n))
            return static_cast<std::size_t>(scanned) + static_cast<std::size_t>(static_cast<const char*>(nl) - buffer) +
                   1;
        scanned += n;
    }
    if (scanned == kMaxHeaderLine && file_size - offset > kMaxHeaderLine)
        fail(path, frame_name(index) + ": y4m frame header longer than " + std::to_string(kMaxHeaderLine) +
                       " bytes (no newline)");
    fail(path, frame_name(index) + " is truncated: the file ends within its header");
}

/// YUV4MPEG2 (upstream: tools/y4m_input.c): a header line, then per frame a "FRAME" line and
/// the raw planes.
class Y4mReader final : public FileReader {
public:
    Y4mReader(std::string path, const VideoFormat& format, FileHandle file, std::uint64_t file_size,
              std::uint64_t data_start)
        : FileReader(std::move(path), format, std::move(file), file_size), data_start_(data_start), pos_(data_start) {}

    bool read(Picture& pic, PlaneSet which) override {
        const std::size_t header = read_frame_header(file_.get(), pos_, file_size_, path(), next_);
        if (header == 0) return false;
        read_samples(pic, which, pos_ + header);
        pos_ += header + frame_bytes_;
        ++next_;
        return true;
    }

    void skip(unsigned n) override {
        for (unsigned i = 0; i < n; ++i) {
            if (!skip_frame(pos_, next_)) {
                const unsigned total = next_;
                next_ -= i;  // name the frame the skip started from
                fail_skip(n, total);
            }
            ++next_;
        }
    }

    unsigned frame_count() const override {
        if (!frame_count_) {
            std::uint64_t pos = data_start_;
            unsigned count = 0;
            while (skip_frame(pos, count)) ++count;
            frame_count_ = count;
        }
        return *frame_count_;
    }

private:
    /// Moves `pos` past frame `index` (header and samples) by reading its header. Returns false
    /// at a clean end of file; throws when the frame is malformed or truncated.
    bool skip_frame(std::uint64_t& pos, unsigned index) const {
        const std::size_t header = read_frame_header(file_.get(), pos, file_size_, path(), index);
        if (header == 0) return false;
        check_whole(pos + header, index);
        pos += header + frame_bytes_;
        return true;
    }

    std::uint64_t data_start_;                     ///< offset of the first frame header
    std::uint64_t pos_;                            ///< offset of the next frame's header
    mutable std::optional<unsigned> frame_count_;  ///< cached by frame_count()
};

/// Parses the decimal value of a W or H field ("W1920": `digits` = "1920").
int parse_dimension(std::string_view field, std::string_view digits, const std::string& path) {
    int value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range)
        fail(path, "y4m header field " + quoted(field) + ": value out of range 1.." + std::to_string(kMaxVideoSide));
    if (ec != std::errc() || end != digits.data() + digits.size())
        fail(path, "malformed y4m header field " + quoted(field) + " (expected a number)");
    return value;
}

/// Sets `format`'s subsampling and bit depth from y4m colour space `tag` (the C field without
/// its "C"). Throws on a colour space vmafx does not read.
void parse_colour_space(std::string_view tag, VideoFormat& format, const std::string& path) {
    for (const std::string_view c : {"420jpeg", "420mpeg2", "420paldv", "420"}) {
        if (tag == c) {
            format.subsampling = Subsampling::k420;
            format.bit_depth = 8;
            return;
        }
    }
    // "422", "444", or "<420|422|444>p<bits>".
    if (tag.size() >= 3 && parse_subsampling(std::string(tag.substr(0, 3)), format.subsampling)) {
        if (tag.size() == 3 && format.subsampling != Subsampling::k420) {
            format.bit_depth = 8;
            return;
        }
        if (tag.size() > 4 && tag[3] == 'p') {
            const std::string_view digits = tag.substr(4);
            int bits = 0;
            const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
            if (ec == std::errc() && end == digits.data() + digits.size()) {
                if (bits < 8 || bits > 16)
                    fail(path, "y4m colour space C" + std::string(tag) + ": bit depth " + std::to_string(bits) +
                                   " is outside 8..16");
                format.bit_depth = bits;
                return;
            }
        }
    }
    std::string field = "C";
    field.append(tag);
    fail(path, "unsupported y4m colour space " + quoted(field) +
                   " (vmafx reads 420jpeg, 420mpeg2, 420paldv, 420, 422, 444, and 420pN, 422pN, 444pN with N "
                   "from 9 to 16)");
}

/// Parses the y4m stream header's fields (the line after "YUV4MPEG2", without its newline).
VideoFormat parse_y4m_header(std::string_view fields, const std::string& path) {
    VideoFormat format;  // C defaults to 420jpeg: 4:2:0 8-bit
    bool got_width = false, got_height = false;
    while (!fields.empty()) {
        const std::size_t space = fields.find(' ');
        const std::string_view field = fields.substr(0, space);
        fields = space == std::string_view::npos ? std::string_view() : fields.substr(space + 1);
        if (field.empty()) continue;
        const std::string_view value = field.substr(1);
        switch (field[0]) {
        case 'W':
            format.width = parse_dimension(field, value, path);
            got_width = true;
            break;
        case 'H':
            format.height = parse_dimension(field, value, path);
            got_height = true;
            break;
        case 'C':
            parse_colour_space(value, format, path);
            break;
        case 'I':
            if (value != "p" && value != "?")
                fail(path, "y4m interlacing " + quoted(field) +
                               " is not supported (vmafx reads progressive video: Ip or I?)");
            break;
        default:  // F (frame rate), A (aspect ratio), X (extensions) and unknown fields: unused
            break;
        }
    }
    if (!got_width) fail(path, "malformed y4m header: no width field (W)");
    if (!got_height) fail(path, "malformed y4m header: no height field (H)");
    return format;
}

}  // namespace

void validate_video_format(const VideoFormat& format, const std::string& path) {
    const std::string range = " is out of range 1.." + std::to_string(kMaxVideoSide);
    if (format.width < 1 || format.width > kMaxVideoSide)
        fail(path, "width " + std::to_string(format.width) + range);
    if (format.height < 1 || format.height > kMaxVideoSide)
        fail(path, "height " + std::to_string(format.height) + range);
    if (static_cast<long long>(format.width) * format.height > kMaxVideoArea)
        fail(path, "size " + std::to_string(format.width) + "x" + std::to_string(format.height) +
                       " is too large (at most " + std::to_string(kMaxVideoArea) + " luma samples)");
    if (format.bit_depth < 8 || format.bit_depth > 16)
        fail(path, "bit depth " + std::to_string(format.bit_depth) + " is outside 8..16");
}

std::unique_ptr<VideoReader> open_video(const std::string& path, const std::optional<VideoFormat>& raw) {
    auto [file, size] = open_regular_file(path);
    if (size == 0) fail(path, "empty file (no frames)");

    // The y4m stream header, if any, lies within the first kMaxHeaderLine bytes.
    std::vector<char> head(static_cast<std::size_t>(std::min<std::uint64_t>(size, kMaxHeaderLine)));
    const std::size_t got = read_at(file.get(), head.data(), head.size(), 0, path, 0);
    const std::string_view start(head.data(), got);
    const bool is_y4m =
        start.size() > kY4mMagic.size() && start.starts_with(kY4mMagic) &&
        (start[kY4mMagic.size()] == ' ' || start[kY4mMagic.size()] == '\n');

    if (!is_y4m) {
        if (!raw) fail(path, "raw YUV needs -w, -h, -p and -b");
        validate_video_format(*raw, path);
        const std::uint64_t frame_bytes = raw->frame_bytes();
        if (size % frame_bytes != 0)
            fail(path, "size " + std::to_string(size) + " bytes is not a whole number of frames of " +
                           std::to_string(frame_bytes) + " bytes (" + describe(*raw) + ")");
        if (size / frame_bytes > UINT_MAX)
            fail(path, "too many frames (" + std::to_string(size / frame_bytes) + ", at most " +
                           std::to_string(UINT_MAX) + ")");
        return std::make_unique<RawReader>(path, *raw, std::move(file), size);
    }

    const std::size_t newline = start.find('\n');
    if (newline == std::string_view::npos) {
        if (size >= kMaxHeaderLine)
            fail(path, "y4m header longer than " + std::to_string(kMaxHeaderLine) + " bytes (no newline)");
        fail(path, "y4m header is not ended by a newline");
    }
    const VideoFormat format = parse_y4m_header(start.substr(kY4mMagic.size(), newline - kY4mMagic.size()), path);
    validate_video_format(format, path);
    const std::uint64_t data_start = newline + 1;
    if (data_start == size) fail(path, "y4m file has no frames");
    return std::make_unique<Y4mReader>(path, format, std::move(file), size, data_start);
}

}  // namespace vmafx
