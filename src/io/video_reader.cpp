// Raw planar YUV and YUV4MPEG2 readers (upstream: libvmaf tools/yuv_input.c, tools/y4m_input.c,
// tools/vidinput.c; see video_reader.hpp for where vmafx differs). Both read through one
// ByteReader, which reads a regular file with positioned reads and a stream in order.
#include "io/video_reader.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdio>  // snprintf
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "base/error.hpp"
#include "io/av_reader.hpp"

namespace vmafx {

namespace {

/// Longest y4m stream header or frame header accepted, newline included, in bytes.
constexpr std::size_t kMaxHeaderLine = 64 * 1024;
/// Largest plane of a regular file read in one call; larger planes are read in parallel pieces
/// of at least kMinPiece bytes (whole pages), at most kMaxPieces of them (one 1920x1080 8-bit
/// luma plane: 15 pieces of 139,264 bytes, the last shorter; a 3840x2160 one 63 of 135,168;
/// the copy out of the page cache runs at a few GB/s per thread, so a GPU run at thousands of
/// frames per second needs many threads, and pieces this small let any number of them share
/// the work evenly).
constexpr std::size_t kReadPiece = 512 * 1024;
constexpr std::size_t kMinPiece = 128 * 1024;
constexpr std::size_t kMaxPieces = 64;
/// Bytes a header scan asks for at a time.
constexpr std::size_t kScanStep = 4096;

constexpr std::string_view kY4mMagic = "YUV4MPEG2";

/// Whether `head` (a file's first bytes) begins the way the containers is_certain_container()
/// accepts begin when a program writes them: an MP4/QuickTime box structure from byte 0 with one
/// of the box types libavformat's probe is certain of (ftyp, moov, mdat, pnot, udta) among its
/// first boxes, or the signature at byte 0 of Matroska/WebM (EBML), AVI (RIFF), Ogg, IVF, FLV,
/// NUT or MXF (a header partition pack). Decides only whether a file named .yuv is probed at
/// all; the probe decides the rest.
bool starts_as_container(std::string_view head) {
    const auto at = [&](std::size_t offset, std::string_view bytes) {
        return head.size() >= offset + bytes.size() && head.substr(offset, bytes.size()) == bytes;
    };
    using namespace std::string_view_literals;
    if (at(0, "\x1a\x45\xdf\xa3"sv) || at(0, "RIFF") || at(0, "OggS") || at(0, "DKIF") || at(0, "FLV") ||
        at(0, "nut/multimedia container") || at(0, "\x06\x0e\x2b\x34\x02\x05\x01\x01\x0d\x01\x02\x01\x01\x02"sv))
        return true;
    std::size_t offset = 0;
    for (int box = 0; box < 8 && offset + 8 <= head.size(); ++box) {
        const auto byte = [&](std::size_t i) {
            return static_cast<std::uint64_t>(static_cast<unsigned char>(head[offset + i]));
        };
        std::uint64_t box_size = byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3);
        if (box_size == 1 && offset + 16 <= head.size()) {  // a 64-bit size follows the type
            box_size = 0;
            for (std::size_t i = 8; i < 16; ++i) box_size = box_size << 8 | byte(i);
        }
        const std::string_view type = head.substr(offset + 4, 4);
        if (type == "ftyp" || type == "moov" || type == "mdat" || type == "pnot" || type == "udta") return true;
        if (box_size < 8 || box_size > head.size() - offset) break;  // not a box, or past what was read
        offset += static_cast<std::size_t>(box_size);
    }
    return false;
}

/// Bytes of a regular file's start that is_certain_container() sees when -w/-h/-p/-b are given.
constexpr std::size_t kProbeBytes = 4096;

/// The name messages give standard input ("-").
constexpr const char* kStandardInput = "standard input";

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

/// An open file descriptor, closed when the last owner lets it go.
class FileHandle {
public:
    explicit FileHandle(int fd) : fd_(fd) {}
    ~FileHandle() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileHandle(const FileHandle&) = delete;
    FileHandle& operator=(const FileHandle&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

/// Reads up to `n` bytes of `fd` into `dst`: at byte `*offset` (pread) of a regular file, or at
/// the descriptor's position (read) of a stream when `offset` is empty; repeated after signals
/// and short reads (which pipes give whenever the writer is behind). Returns the bytes read:
/// fewer than `n` only at the end. Throws on an I/O error, naming the video and frame `frame`.
std::size_t read_fully(int fd, void* dst, std::size_t n, std::optional<std::uint64_t> offset, const std::string& path,
                       unsigned frame) {
    std::size_t done = 0;
    while (done < n) {
        char* at = static_cast<char*>(dst) + done;
        const ssize_t got = offset ? ::pread(fd, at, n - done, static_cast<off_t>(*offset + done))
                                   : ::read(fd, at, n - done);
        if (got < 0) {
            if (errno == EINTR) continue;
            fail(path, frame_name(frame) + ": read error: " + std::strerror(errno));
        }
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    return done;
}

/// The bytes of a video read in order: a regular file (positioned reads from a cursor of its
/// own, so that several ByteReaders share one descriptor; reads above kReadPiece in parallel
/// pieces; skips move the cursor without reading) or a stream (read() in order; skips read and
/// discard). A look-ahead buffer lets header parsing peek at bytes before consuming them;
/// reads take the buffered bytes first, the rest straight from the file or stream.
class ByteReader {
public:
    /// A regular file of `size` bytes, read from byte `start`.
    ByteReader(std::shared_ptr<FileHandle> file, std::uint64_t size, std::uint64_t start, std::string path)
        : fd_(std::move(file)), stream_(false), size_(size), cursor_(start), path_(std::move(path)) {}
    /// A stream, read from its current position.
    ByteReader(std::shared_ptr<FileHandle> stream, std::string path)
        : fd_(std::move(stream)), stream_(true), path_(std::move(path)) {}

    /// Up to `n` bytes at the position, not consumed: fewer only at the end. The view is valid
    /// until the next call.
    std::string_view peek(std::size_t n, unsigned frame) {
        if (buffered() < n) {
            if (begin_ > 0) {
                buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(begin_));
                begin_ = 0;
            }
            const std::size_t have = buffer_.size();
            buffer_.resize(n);
            buffer_.resize(have + fill(buffer_.data() + have, n - have, frame));
        }
        return {reinterpret_cast<const char*>(buffer_.data()) + begin_, std::min(n, buffered())};
    }

    /// The bytes at the position up to and including the first newline, not consumed, reading
    /// no further than needed: a stream is read as its writer delivers (never waiting for more
    /// than the line), a file in kScanStep pieces. Returns fewer bytes, with no newline, when
    /// the video ends first or `max` bytes hold none. The view is valid until the next call.
    std::string_view peek_line(std::size_t max, unsigned frame) {
        std::size_t scanned = 0;
        for (;;) {
            const std::string_view have(reinterpret_cast<const char*>(buffer_.data()) + begin_, buffered());
            if (const std::size_t nl = have.find('\n', scanned); nl != std::string_view::npos && nl < max)
                return have.substr(0, nl + 1);
            if (have.size() >= max || eof_) return have.substr(0, std::min(have.size(), max));
            scanned = have.size();
            const std::size_t want = std::min(max - have.size(), kScanStep);
            if (begin_ > 0) {
                buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(begin_));
                begin_ = 0;
            }
            buffer_.resize(scanned + want);
            std::size_t got = 0;
            if (stream_) {
                // One read: whatever the writer has delivered (at least a byte, or the end).
                ssize_t n = -1;
                do n = ::read(fd_->get(), buffer_.data() + scanned, want);
                while (n < 0 && errno == EINTR);
                if (n < 0) fail(path_, frame_name(frame) + ": read error: " + std::strerror(errno));
                got = static_cast<std::size_t>(n);
            } else {
                got = fill(buffer_.data() + scanned, want, frame);
            }
            buffer_.resize(scanned + got);
            if (got == 0 || (!stream_ && got < want)) eof_ = true;
        }
    }

    /// Consumes `n` bytes that peek() returned.
    void consume(std::size_t n) {
        begin_ += n;
        if (begin_ == buffer_.size()) {
            buffer_.clear();
            begin_ = 0;
        }
    }

    /// Reads `n` bytes into `dst`; returns how many: fewer only at the end.
    std::size_t read(std::uint8_t* dst, std::size_t n, unsigned frame) {
        const std::size_t from_buffer = std::min(n, buffered());
        std::memcpy(dst, buffer_.data() + begin_, from_buffer);
        consume(from_buffer);
        return from_buffer + fill(dst + from_buffer, n - from_buffer, frame);
    }

    /// Skips `n` bytes; returns how many: fewer only at the end.
    std::uint64_t skip(std::uint64_t n, unsigned frame) {
        const std::size_t from_buffer = static_cast<std::size_t>(std::min<std::uint64_t>(n, buffered()));
        consume(from_buffer);
        std::uint64_t done = from_buffer;
        if (!stream_) {
            const std::uint64_t left = cursor_ < size_ ? size_ - cursor_ : 0;
            const std::uint64_t step = std::min(n - done, left);
            cursor_ += step;
            return done + step;
        }
        std::vector<std::uint8_t> scratch(static_cast<std::size_t>(std::min<std::uint64_t>(n - done, kReadPiece)));
        while (done < n) {
            const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(n - done, scratch.size()));
            const std::size_t got = read_fully(fd_->get(), scratch.data(), want, std::nullopt, path_, frame);
            done += got;
            if (got < want) break;
        }
        return done;
    }

    /// Bytes left in a regular file from the position (as its size was at open).
    std::uint64_t remaining() const { return buffered() + (cursor_ < size_ ? size_ - cursor_ : 0); }

    /// Reads `n` bytes of a regular file at byte `at` into `dst`, bypassing the buffer and
    /// leaving the cursor: large reads in parallel pieces. Returns how many: fewer only at the
    /// end. Several threads may call it at once (positioned reads of one descriptor).
    std::size_t read_at(std::uint8_t* dst, std::size_t n, std::uint64_t at, unsigned frame) const {
        if (n <= kReadPiece) return read_fully(fd_->get(), dst, n, at, path_, frame);
        // Parallel pieces move a 4K plane out of the page cache several times faster than one
        // thread's copy; small ones (kMinPiece), each its own task, so that the threads share
        // the work evenly whatever their number. Its own context: a cancelled caller (a failing
        // pipeline, a library user's task group) cannot skip pieces; isolated, so that a thread
        // waiting here runs only these pieces, never unrelated pipeline work.
        const std::size_t pieces = std::clamp<std::size_t>(n / kMinPiece, 1, kMaxPieces);
        const std::size_t piece = ((n + pieces - 1) / pieces + 4095) / 4096 * 4096;
        std::atomic<bool> whole{true};
        tbb::task_group_context context(tbb::task_group_context::isolated);
        tbb::this_task_arena::isolate([&] {
            tbb::parallel_for(
                std::size_t{0}, pieces,
                [&](std::size_t i) {
                    const std::size_t begin = std::min(n, i * piece), end = std::min(n, (i + 1) * piece);
                    if (read_fully(fd_->get(), dst + begin, end - begin, at + begin, path_, frame) != end - begin)
                        whole = false;
                },
                tbb::simple_partitioner(), context);
        });
        // A file that shrank while it was read: the pieces after a short one may have read
        // nothing, so the prefix that is there is read again, in one piece.
        return whole ? n : read_fully(fd_->get(), dst, n, at, path_, frame);
    }

private:
    std::size_t buffered() const { return buffer_.size() - begin_; }

    /// Reads `n` bytes from the file at the cursor or from the stream, bypassing the buffer.
    std::size_t fill(std::uint8_t* dst, std::size_t n, unsigned frame) {
        if (n == 0) return 0;
        if (stream_) return read_fully(fd_->get(), dst, n, std::nullopt, path_, frame);
        const std::size_t got = read_at(dst, n, cursor_, frame);
        cursor_ += got;
        return got;
    }

    std::shared_ptr<FileHandle> fd_;
    bool stream_;
    std::uint64_t size_ = 0;    ///< regular files: size at open
    std::uint64_t cursor_ = 0;  ///< regular files: offset of the next byte past the buffer
    std::string path_;
    std::vector<std::uint8_t> buffer_;  ///< look-ahead: bytes [begin_, size) come next
    std::size_t begin_ = 0;
    bool eof_ = false;  ///< peek_line() saw the end
};

/// Bytes of plane `p` of one frame of `format` in a file (no padding).
std::size_t plane_file_bytes(const VideoFormat& format, int p) {
    return static_cast<std::size_t>(format.plane_width(p)) * static_cast<std::size_t>(format.plane_height(p)) *
           static_cast<std::size_t>(format.bytes_per_sample());
}

/// What the raw and y4m readers share: the bytes, the frame position and the reading of a
/// frame's samples.
class FrameReader : public VideoReader {
protected:
    FrameReader(std::string path, const VideoFormat& format, std::string identity, ByteReader bytes)
        : VideoReader(std::move(path), format, std::move(identity)),
          bytes_(std::move(bytes)),
          frame_bytes_(format.frame_bytes()) {}

    /// The message of frame `index` being cut short after `got` of its samples' bytes.
    std::string truncated(unsigned index, std::uint64_t got) const {
        return frame_name(index) + " is truncated: the " + (is_stream() ? "stream" : "file") + " ends after " +
               std::to_string(got) + " of its " + std::to_string(frame_bytes_) + " bytes of samples (" +
               describe(format()) + ")";
    }

    /// Re-allocates `pic` to the video's format unless it has it (planes and strides reused).
    void fit(Picture& pic) const {
        if (pic.format != format() || pic.planes[0].width() != format().width ||
            pic.planes[0].height() != format().height)
            pic = Picture(format());
    }

    /// Reads the samples of frame `next_`, which start at the position, into the planes
    /// `which` of `pic` (re-allocated when its format is not the video's); the other planes are
    /// skipped and left as they are. Returns false when `clean_end_allowed` and the video ended
    /// before the frame's first byte; throws when the frame is truncated.
    bool read_samples(Picture& pic, PlaneSet which, bool clean_end_allowed) {
        // Nothing is allocated for a frame that is not there: a file must hold all its bytes
        // (as its size was at open), a stream at least its first.
        const std::uint64_t there = is_stream() ? bytes_.peek(1, next_).size() : bytes_.remaining();
        if (there == 0 && clean_end_allowed) return false;
        if (there < (is_stream() ? 1 : frame_bytes_)) fail(path(), truncated(next_, there));
        fit(pic);
        std::uint64_t got = 0;
        for (int p = 0; p < 3; ++p) {
            const std::size_t want = plane_file_bytes(format(), p);
            const std::size_t n =
                p == 0 || which == PlaneSet::kAll
                    ? read_plane(pic.planes[p], want, bounce_,
                                 [this](std::uint8_t* dst, std::size_t k) { return bytes_.read(dst, k, next_); })
                    : static_cast<std::size_t>(bytes_.skip(want, next_));
            got += n;
            if (n < want) fail(path(), truncated(next_, got));
        }
        return true;
    }

    /// Skips the samples of frame `index`; throws when they are cut short.
    void skip_samples(unsigned index) {
        const std::uint64_t got = bytes_.skip(frame_bytes_, index);
        if (got < frame_bytes_) fail(path(), truncated(index, got));
    }

    [[noreturn]] void fail_skip(unsigned n, unsigned from, unsigned total) const {
        fail(path(), "cannot skip " + std::to_string(n) + " frames from " + frame_name(from) + ": the " +
                         (is_stream() ? "stream" : "file") + " has " + std::to_string(total) + " whole frames");
    }

    ByteReader bytes_;
    std::size_t frame_bytes_;
    unsigned next_ = 0;  ///< index of the next frame read() returns

    /// Reads frame `index` of a regular file, whose samples start at byte `at`, into the planes
    /// `which` of `pic` (re-allocated when its format is not the video's) with positioned reads
    /// that leave the position as it is; throws when the file holds fewer bytes than the frame.
    /// Several threads may call it at once, for different pictures.
    void read_samples_at(std::uint64_t at, unsigned index, Picture& pic, PlaneSet which) const {
        fit(pic);
        std::vector<std::uint8_t> bounce;
        std::uint64_t got = 0;
        for (int p = 0; p < 3; ++p) {
            const std::size_t want = plane_file_bytes(format(), p);
            if (p == 0 || which == PlaneSet::kAll) {
                const std::size_t n = read_plane(pic.planes[p], want, bounce, [&](std::uint8_t* dst, std::size_t k) {
                    return bytes_.read_at(dst, k, at + got, index);
                });
                if (n < want) fail(path(), truncated(index, got + n));
            }
            got += want;
        }
    }

private:
    /// Reads one plane's `want` bytes with `read(dst, n)` (returns the bytes it read, fewer
    /// only at the end): straight into the plane when its rows are contiguous (stride equals
    /// the row size), else through `bounce`, row by row. 16-bit samples are little-endian in
    /// the video and byte-swapped only on a big-endian host. Returns the bytes read.
    template <typename Read>
    static std::size_t read_plane(Plane& plane, std::size_t want, std::vector<std::uint8_t>& bounce, Read&& read) {
        const std::size_t row_bytes = static_cast<std::size_t>(plane.width()) * plane.bytes_per_sample();
        const auto rows = static_cast<std::size_t>(plane.height());
        std::size_t got = 0;
        if (static_cast<std::size_t>(plane.stride()) == row_bytes) {
            got = read(plane.data(), want);
        } else {
            bounce.resize(want);
            got = read(bounce.data(), want);
            for (std::size_t y = 0; y < rows && (y + 1) * row_bytes <= got; ++y)
                std::memcpy(plane.row<std::uint8_t>(static_cast<int>(y)), bounce.data() + y * row_bytes, row_bytes);
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
        return got;
    }

    std::vector<std::uint8_t> bounce_;  ///< samples of a plane with padded rows, as in the video
};

/// Raw planar YUV (upstream: tools/yuv_input.c): frame i at byte i * frame_bytes.
class RawReader final : public FrameReader {
public:
    /// `data_start`: the byte of a regular file where frame 0 begins (where it was opened).
    RawReader(std::string path, const VideoFormat& format, std::string identity, ByteReader bytes,
              std::optional<FrameCount> count, std::uint64_t data_start)
        : FrameReader(std::move(path), format, std::move(identity), std::move(bytes)),
          count_(std::move(count)),
          data_start_(data_start) {}

    bool reads_ahead() const override { return count_.has_value(); }

    bool has_frame_ahead(unsigned k) const override {
        check_ahead();
        const std::uint64_t frame = std::uint64_t{next_} + k;
        if (frame < count_->whole) return true;
        if (frame == count_->whole && !count_->damage.empty()) throw Error(count_->damage);
        return false;
    }

    void read_ahead(unsigned k, Picture& pic, PlaneSet which) const override {
        check_ahead();
        const unsigned index = next_ + k;
        read_samples_at(data_start_ + std::uint64_t{index} * frame_bytes_, index, pic, which);
    }

    bool read(Picture& pic, PlaneSet which) override {
        if (count_ && next_ >= count_->whole) {
            if (count_->damage.empty()) return false;
            throw Error(count_->damage);
        }
        if (!read_samples(pic, which, true)) return false;
        ++next_;
        return true;
    }

    void skip(unsigned n) override {
        if (count_) {
            if (n > count_->whole - std::min(next_, count_->whole)) fail_skip(n, next_, count_->whole);
            bytes_.skip(static_cast<std::uint64_t>(n) * frame_bytes_, next_);
            next_ += n;
            return;
        }
        for (unsigned i = 0; i < n; ++i, ++next_) {
            if (bytes_.peek(1, next_).empty()) fail_skip(n, next_ - i, next_);
            skip_samples(next_);
        }
    }

    std::optional<FrameCount> frame_count() const override { return count_; }

private:
    void check_ahead() const {
        if (!count_) throw std::logic_error("RawReader: reading ahead in a stream");
    }

    std::optional<FrameCount> count_;  ///< regular files: from the size
    std::uint64_t data_start_;         ///< regular files: the byte where frame 0 begins
};

/// Reads the y4m frame header of frame `index` ("FRAME", optional parameters after a space,
/// then "\n" or "\r\n") at the position of `bytes` and consumes it. Returns false at a clean
/// end (no byte left). Throws on a truncated, malformed or over-long header.
bool read_frame_header(ByteReader& bytes, const std::string& path, unsigned index) {
    const std::string_view head = bytes.peek(6, index);
    if (head.empty()) return false;
    if (head.size() < 6) {
        // A few stray line ends after the last frame, as some tools write: upstream's reader
        // takes any tail shorter than a frame header for the end, vmafx only this harmless one.
        if (head.find_first_not_of("\r\n ") == std::string_view::npos) return false;
        if (head == std::string_view("FRAME", head.size()))
            fail(path, frame_name(index) + " is truncated: the video ends within its header " + quoted(head));
        fail(path, frame_name(index) + ": malformed y4m frame header " + quoted(head) + " (expected \"FRAME\")");
    }
    if (!head.starts_with("FRAME") || (head[5] != '\n' && head[5] != ' ' && head[5] != '\r'))
        fail(path, frame_name(index) + ": malformed y4m frame header " + quoted(head) + " (expected \"FRAME\")");
    if (head[5] == '\n') {
        bytes.consume(6);
        return true;
    }
    // Parameters (or "\r"): the newline within the first kMaxHeaderLine bytes.
    const std::string_view line = bytes.peek_line(kMaxHeaderLine, index);
    if (!line.ends_with('\n')) {
        if (line.size() < kMaxHeaderLine)
            fail(path, frame_name(index) + " is truncated: the video ends within its header");
        fail(path, frame_name(index) + ": y4m frame header longer than " + std::to_string(kMaxHeaderLine) +
                       " bytes (no newline)");
    }
    bytes.consume(line.size());
    return true;
}

/// YUV4MPEG2 (upstream: tools/y4m_input.c): a header line, then per frame a "FRAME" line and
/// the raw planes.
class Y4mReader final : public FrameReader {
public:
    /// `file` and `data_start` (the offset of the first frame header) are those of a regular
    /// file, for frame_count()'s scan; null for a stream.
    Y4mReader(std::string path, const VideoFormat& format, std::string identity, ByteReader bytes,
              std::shared_ptr<FileHandle> file, std::uint64_t file_size, std::uint64_t data_start)
        : FrameReader(std::move(path), format, std::move(identity), std::move(bytes)),
          file_(std::move(file)),
          file_size_(file_size),
          data_start_(data_start) {}

    bool read(Picture& pic, PlaneSet which) override {
        if (!read_frame_header(bytes_, path(), next_)) return false;
        read_samples(pic, which, false);
        ++next_;
        return true;
    }

    void skip(unsigned n) override {
        for (unsigned i = 0; i < n; ++i, ++next_) {
            if (!read_frame_header(bytes_, path(), next_)) fail_skip(n, next_ - i, next_);
            skip_samples(next_);
        }
    }

    std::optional<FrameCount> frame_count() const override {
        if (!file_) return std::nullopt;
        if (!count_) {
            // A scan of its own over the same file: the headers only, the samples skipped.
            ByteReader scan(file_, file_size_, data_start_, path());
            FrameCount c;
            try {
                while (read_frame_header(scan, path(), c.whole)) {
                    const std::uint64_t got = scan.skip(frame_bytes_, c.whole);
                    if (got < frame_bytes_) fail(path(), truncated(c.whole, got));
                    ++c.whole;
                }
            } catch (const Error& e) {
                c.damage = e.what();
            }
            count_ = std::move(c);
        }
        return count_;
    }

private:
    std::shared_ptr<FileHandle> file_;
    std::uint64_t file_size_;
    std::uint64_t data_start_;
    mutable std::optional<FrameCount> count_;  ///< cached by frame_count()
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

std::shared_ptr<void> GpuDecodingDevice::get(std::string& why) {
    std::call_once(once_, [this] {
        try {
            device_ = open_gpu_decoding_device(type_, why_);
        } catch (const Error& e) {  // FFmpeg's libraries cannot be loaded
            why_ = e.what();
        }
    });
    why = why_;
    return device_;
}

bool VideoReader::read_surface(DeviceSurface&) {
    throw Error(path_ + ": internal: read_surface() on a video decoded on the " + decoder());
}

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

namespace {

/// "<device>:<inode>" of a stream's status, empty for a regular file or a directory.
std::string identity_of(const struct stat& st) {
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return {};
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

}  // namespace

std::string stream_identity_of(const std::string& path) {
    struct stat st {};
    const int status = path == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(path.c_str(), &st);
    return status == 0 ? identity_of(st) : std::string();
}

bool VideoReader::has_frame_ahead(unsigned) const {
    throw std::logic_error("VideoReader: " + path_ + " cannot be read ahead");
}

void VideoReader::read_ahead(unsigned, Picture&, PlaneSet) const {
    throw std::logic_error("VideoReader: " + path_ + " cannot be read ahead");
}

std::unique_ptr<VideoReader> open_video(const std::string& path, const std::optional<VideoFormat>& raw,
                                        unsigned decode_threads, const GpuDecode& gpu,
                                        unsigned decode_sessions) {
    const bool standard_input = path == "-";
    const std::string name = standard_input ? kStandardInput : path;
    int descriptor = -1;
    if (standard_input) {
        descriptor = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
        if (descriptor < 0) fail(name, std::string("cannot read: ") + std::strerror(errno));
    } else {
        // A directory opens for reading too: refuse it by name before opening. Opening a FIFO
        // waits for its writer.
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) fail(name, std::string("cannot open: ") + std::strerror(errno));
        if (S_ISDIR(st.st_mode)) fail(name, "is a directory, not a video");
        do {
            descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        } while (descriptor < 0 && errno == EINTR);
        if (descriptor < 0) fail(name, std::string("cannot open: ") + std::strerror(errno));
    }
    auto file = std::make_shared<FileHandle>(descriptor);
    struct stat st {};
    if (::fstat(descriptor, &st) != 0) fail(name, std::string("cannot stat: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) fail(name, "is a directory, not a video");

    // A regular file is read with positioned reads from where it stands (standard input
    // redirected from a file may have been read before); anything else is a stream.
    const bool regular = S_ISREG(st.st_mode);
    std::uint64_t start = 0, size = 0;
    std::string identity;
    if (regular) {
        size = static_cast<std::uint64_t>(st.st_size);
        if (standard_input) {
            const off_t at = ::lseek(descriptor, 0, SEEK_CUR);
            start = at > 0 ? std::min(static_cast<std::uint64_t>(at), size) : 0;
        }
        if (size == start) fail(name, "empty file (no frames)");
        ::posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL);  // a hint only: its failure is harmless
    } else {
        identity = identity_of(st);
    }
    ByteReader bytes = regular ? ByteReader(file, size, start, name) : ByteReader(file, name);

    const std::string_view head = bytes.peek(kY4mMagic.size() + 1, 0);
    if (head.empty()) fail(name, "empty stream (no frames)");
    const bool is_y4m = head.size() > kY4mMagic.size() && head.starts_with(kY4mMagic) &&
                        (head[kY4mMagic.size()] == ' ' || head[kY4mMagic.size()] == '\n');

    if (!is_y4m) {
        // Decoded by FFmpeg's libraries: anything without -w/-h/-p/-b, and a regular file that
        // is certainly a container (a raw .yuv cannot pass for one by chance).
        std::string extension = path.size() > 4 ? path.substr(path.size() - 4) : std::string();
        std::transform(extension.begin(), extension.end(), extension.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (!raw && extension == ".yuv") fail(name, "raw YUV needs -w, -h, -p and -b");
        bool decode = !raw;
        if (raw && regular) {
            // Peeked through a reader of its own: the raw reader then reads the file as it is
            // when each frame is read (a file that shrinks after opening is still noticed).
            ByteReader probe(file, size, start, name);
            const std::string_view first = probe.peek(kProbeBytes, 0);
            // A .yuv goes to libavformat's probe only when it starts as a container does, so that
            // a run on raw .yuv files never opens FFmpeg's libraries (io/shared_library.hpp).
            if (extension != ".yuv" || starts_as_container(first))
                decode = is_certain_container(reinterpret_cast<const std::uint8_t*>(first.data()), first.size(), path,
                                              name);
        }
        if (decode) {
            AvInput input;
            input.name = name;
            input.threads = decode_threads;
            input.gpu = gpu;
            input.sessions = decode_sessions;
            input.stream_identity = identity;
            if (regular && !standard_input) {
                input.path = path;
            } else {
                auto shared = std::make_shared<ByteReader>(std::move(bytes));
                input.read = [shared](std::uint8_t* dst, std::size_t n) { return shared->read(dst, n, 0); };
            }
            return open_av_video(std::move(input));
        }
        validate_video_format(*raw, name);
        std::optional<FrameCount> count;
        if (regular) {
            const std::uint64_t frame_bytes = raw->frame_bytes();
            const std::uint64_t bytes_left = size - start;
            if (bytes_left / frame_bytes > UINT_MAX)
                fail(name, "too many frames (" + std::to_string(bytes_left / frame_bytes) + ", at most " +
                               std::to_string(UINT_MAX) + ")");
            count = FrameCount{static_cast<unsigned>(bytes_left / frame_bytes), {}};
            if (const std::uint64_t part = bytes_left % frame_bytes)
                count->damage = name + ": " + frame_name(count->whole) + " is truncated: the file ends after " +
                                std::to_string(part) + " of its " + std::to_string(frame_bytes) +
                                " bytes of samples (" + describe(*raw) + "; its size, " + std::to_string(size) +
                                " bytes, is not a whole number of frames: are -w, -h, -p and -b right?)";
        }
        return std::make_unique<RawReader>(name, *raw, identity, std::move(bytes), std::move(count), start);
    }

    // The stream header: a line within kMaxHeaderLine bytes, read no further than its newline
    // (a writer feeding both videos may not send more of this one before the other's header).
    const std::string_view line = bytes.peek_line(kMaxHeaderLine, 0);
    if (!line.ends_with('\n')) {
        if (line.size() < kMaxHeaderLine) fail(name, "y4m header is not ended by a newline");
        fail(name, "y4m header longer than " + std::to_string(kMaxHeaderLine) + " bytes (no newline)");
    }
    std::string_view fields = line.substr(kY4mMagic.size(), line.size() - kY4mMagic.size() - 1);
    if (fields.ends_with('\r')) fields.remove_suffix(1);  // CRLF line ends, as Windows tools write
    const VideoFormat format = parse_y4m_header(fields, name);
    validate_video_format(format, name);
    const std::uint64_t data_start = start + line.size();
    bytes.consume(line.size());
    // A stream is not peeked at here, for the same reason: one with no frame ends at its first read.
    if (regular && data_start == size) fail(name, "y4m file has no frames");
    return std::make_unique<Y4mReader>(name, format, identity, std::move(bytes), regular ? file : nullptr, size,
                                       data_start);
}

}  // namespace vmafx
