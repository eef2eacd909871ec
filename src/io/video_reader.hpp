// Readers of the two video file formats vmafx reads itself: raw planar YUV (.yuv) and YUV4MPEG2
// (.y4m); open_video() hands anything else to the decoding reader (av_reader.hpp).
//
// Behaviour follows upstream libvmaf 3.2.0's tools/yuv_input.c and tools/y4m_input.c (the readers
// of the `vmaf` tool) where it reads files, with these deliberate differences, each documented
// where it applies: the file's first bytes (not the presence of -w/-h/-p/-b) decide between y4m
// and raw; y4m colour spaces are those of ffmpeg's yuv4mpegpipe muxer (8-bit 4:2:2 and the
// 9/14/16-bit forms included; upstream's direct-read path refuses 8-bit 4:2:2 and 420paldv and
// does not know p9/p14/p16); errors are exceptions naming the file and the frame.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "picture/picture.hpp"
#include "picture/surface.hpp"

namespace vmafx {

/// Largest width or height (in luma samples) a video may have; anything larger is refused as
/// absurd. Together with kMaxVideoArea this keeps one frame below 1.5 GiB.
inline constexpr int kMaxVideoSide = 32768;
/// Largest luma area (width x height, in samples) a video may have (16384 x 16384).
inline constexpr long long kMaxVideoArea = 16384LL * 16384LL;

/// Checks that `format` is one vmafx can read: width and height 1..kMaxVideoSide with area at
/// most kMaxVideoArea, bit depth 8..16. Throws vmafx::Error "<path>: <problem>" otherwise.
void validate_video_format(const VideoFormat& format, const std::string& path);

/// What a reader knows of a video's frames before reading them (regular files only).
struct FrameCount {
    /// Frames whose header and samples are complete, in order from the first.
    unsigned whole = 0;
    /// Empty, or why frame `whole` cannot be read (a raw file whose size is not a whole number
    /// of frames, a y4m file cut short inside a frame or with a malformed frame header): the
    /// message read() throws for that frame, naming the file and the frame. Nothing after a
    /// damaged frame is readable.
    std::string damage;
};

/// Where a compressed video is decoded: on the CPU (empty `device_type`), or on a GPU through
/// libavcodec's hardware acceleration of libav's device type `device_type` ("cuda": NVDEC), for
/// vmafx's GPU backend `backend` ("cuda"). The device is the first the process sees, the one
/// the backend runs on (a --gpu choice makes it the only one visible: cuda/device_api.cpp).
class GpuDecodingDevice;
struct GpuDecode {
    std::string device_type;
    std::string backend;
    /// The run's decoding device, shared by both videos and opened by the first that decodes on
    /// it; null: decode on the CPU.
    std::shared_ptr<GpuDecodingDevice> device;
};

/// The note (VideoReader::decoder_note) of video `name`, asked to decode on the GPU, that decodes
/// on the CPU because of `why`.
inline std::string cpu_decoding_note(const std::string& name, const std::string& why) {
    return name + ": decoded on the CPU, not the GPU: " + why;
}

/// The decoding device of a run (GpuDecode::device): libav's hardware device of one type, opened
/// by the first compressed video that asks for it (a run on raw or y4m video never opens it, nor
/// FFmpeg's libraries), once, for every video of the run.
class GpuDecodingDevice {
public:
    explicit GpuDecodingDevice(std::string device_type) : type_(std::move(device_type)) {}
    /// The device (libav's AVBufferRef, type-erased), opened on the first call
    /// (open_gpu_decoding_device, io/av_reader.hpp; thread-safe); null when it cannot be opened,
    /// `why` then saying why (on every call).
    std::shared_ptr<void> get(std::string& why);

private:
    std::string type_;
    std::once_flag once_;
    std::shared_ptr<void> device_;
    std::string why_;
};

/// A source of frames of one video, read in order from its first frame: a regular file
/// (positioned reads, the frame count known before reading) or a stream (a pipe, FIFO,
/// terminal, socket or standard input: read once, in order, with memory bounded by one frame
/// and a 64 KiB look-ahead, the frame count known only at its end); or a compressed video
/// decoded by FFmpeg's libraries (av_reader.hpp: a file or a stream, its frame count known
/// only at its end).
///
/// Frames are numbered from 0 in error messages (as upstream numbers frames in its output).
/// After a read() or skip() has thrown, the reader is in an unspecified position and should
/// be discarded.
class VideoReader {
public:
    virtual ~VideoReader() = default;
    VideoReader(const VideoReader&) = delete;
    VideoReader& operator=(const VideoReader&) = delete;

    /// Geometry (luma width x height in samples), bit depth (8..16) and chroma subsampling
    /// (4:2:0, 4:2:2 or 4:4:4) of every frame of the video.
    const VideoFormat& format() const { return format_; }
    /// The name messages give the video: the path it was opened with, or "standard input".
    const std::string& path() const { return path_; }
    /// Whether the video is a stream (see the class comment): frame_count() is then unknown and
    /// skip() reads the frames it skips.
    bool is_stream() const { return !stream_identity_.empty(); }
    /// For a stream, "<device>:<inode>" of what it reads (two readers of one pipe have the same
    /// identity); empty for a regular file.
    const std::string& stream_identity() const { return stream_identity_; }

    /// Reads the next frame into `pic`: the planes in `which` (Y, Cb, Cr; chroma of 4:2:0 is
    /// ceil(w/2) x ceil(h/2), of 4:2:2 ceil(w/2) x h) receive the video's samples unchanged
    /// (uint8_t at 8 bits, uint16_t above); with PlaneSet::kLuma the chroma bytes are skipped
    /// and `pic`'s chroma planes keep what they held. `pic` is re-allocated to format() when
    /// its format differs, else its planes (and strides) are reused, so a caller reading into
    /// the same Picture allocates once. In regular files, planes of more than 512 KiB are read
    /// in parallel pieces of at least 128 KiB (oneTBB tasks), positioned reads (pread) that
    /// leave no shared file position. Returns false at a clean end (no byte after the last whole frame).
    /// Throws vmafx::Error naming the video and the frame on a truncated frame (saying how many
    /// bytes of how many it got), a malformed y4m frame header or an I/O error.
    virtual bool read(Picture& pic, PlaneSet which) = 0;
    /// read(pic, PlaneSet::kAll).
    bool read(Picture& pic) { return read(pic, PlaneSet::kAll); }

    /// Skips the next `n` frames (a stream reads and discards them; a raw file moves without
    /// reading). Throws vmafx::Error naming the video, the count asked for and how many frames
    /// it has when fewer than `n` whole frames remain, or on a damaged frame among those
    /// skipped (which names it).
    virtual void skip(unsigned n) = 0;

    /// Whether frames after the position can be read out of order and from several threads at
    /// once (has_frame_ahead, read_ahead): a regular raw file, whose frames lie at known
    /// offsets. False for every other reader.
    virtual bool reads_ahead() const { return false; }
    /// Where reads_ahead(): whether frame `k` after the position (0: the one read() returns
    /// next) is a whole frame; false past the last one. Throws as read() would on reaching it:
    /// vmafx::Error with the damage of a truncated last frame. Throws std::logic_error
    /// elsewhere.
    virtual bool has_frame_ahead(unsigned k) const;
    /// Where reads_ahead(): reads frame `k` after the position, one has_frame_ahead() accepted,
    /// as read() would once there (same planes, same errors), without moving the position.
    /// Several threads may call it at once, for different pictures. Throws std::logic_error
    /// elsewhere.
    virtual void read_ahead(unsigned k, Picture& pic, PlaneSet which) const;

    /// Regular files: the whole frames and the damaged tail, if any (FrameCount). Raw: from the
    /// file size. Y4M: counted on first call by reading only the frame headers (a few
    /// microseconds per frame), then cached; does not move the position of read()/skip().
    /// Streams: std::nullopt (unknown until read to the end). Throws vmafx::Error on an I/O
    /// error.
    virtual std::optional<FrameCount> frame_count() const = 0;

    /// How many frames the video is expected to have from its first, for progress display and
    /// the GPU pipeline's first allocations (never for checks: it may be off): frame_count()'s
    /// whole frames where it is known, else what the container says (a reader that knows an
    /// estimate overrides this), else std::nullopt.
    virtual std::optional<unsigned> expected_frames() const {
        if (const auto c = frame_count()) return c->whole;
        return std::nullopt;
    }

    /// Presentation time, in seconds from the video's start, of the frame the last read() or
    /// skip() went past; std::nullopt before the first and for video without timestamps (raw
    /// and y4m: their frames are paired by position only). Decoded video: the frame's
    /// timestamp (libavcodec's best effort) less its stream's start time.
    virtual std::optional<double> timestamp() const { return std::nullopt; }
    /// Nominal seconds between frames (1 / the stream's average frame rate), std::nullopt when
    /// the video has no timestamps or no known rate.
    virtual std::optional<double> frame_interval() const { return std::nullopt; }

    /// What the reader did to the video that its user should know, one line each, naming the
    /// video (a decoded pixel format converted to another, see av_reader.hpp); empty for raw
    /// and y4m input. Known once the reader is open.
    virtual std::vector<std::string> notices() const { return {}; }

    /// What went wrong while reading without stopping it, one line each, naming the video
    /// (packets a decoder refused and that were skipped, as the ffmpeg program skips them; see
    /// av_reader.hpp); empty for raw and y4m input, whose damage is an error. Complete once
    /// read() returned false or the caller stopped reading.
    virtual std::vector<std::string> reading_warnings() const { return {}; }

    /// Where the frames are decoded: "cpu" (also raw and y4m, which need no decoding), or the GPU
    /// backend whose device decodes them ("cuda": NVDEC through libavcodec, av_reader.hpp).
    virtual std::string decoder() const { return "cpu"; }
    /// Why a video that was asked to decode on the GPU decodes on the CPU (one line, naming the
    /// video), or empty (it was not asked, or it decodes on the GPU). Known once open.
    virtual std::string decoder_note() const { return {}; }
    /// How many decoders decode the video at once (AvInput::sessions; 1 where one does) and how
    /// many segments they were given so far (cut ahead of the frames read; 1 where one decodes).
    struct Sessions {
        unsigned sessions = 1;
        unsigned segments = 1;
    };
    virtual Sessions decoding_sessions() const { return {}; }
    /// Whether read_surface() gives the frames (they decode on the GPU and nothing on the host
    /// transforms them, as --scale-dist would).
    virtual bool has_surfaces() const { return false; }

    /// For a reader that has_surfaces(): the next frame left on the device
    /// (DeviceSurface), without a copy to the host; false at the end. The same frames, errors
    /// and timestamps as read(), which downloads the surface and unpacks it on the host instead.
    /// Other readers throw an internal Error.
    virtual bool read_surface(DeviceSurface& surface);

protected:
    VideoReader(std::string path, const VideoFormat& format, std::string stream_identity)
        : path_(std::move(path)), format_(format), stream_identity_(std::move(stream_identity)) {}

private:
    std::string path_;
    VideoFormat format_;
    std::string stream_identity_;
};

/// "<device>:<inode>" of what `path` names ("-": standard input) when it is a stream (not a
/// regular file, not a directory); empty otherwise, also when it cannot be examined. Two
/// paths with the same non-empty identity name one stream (e.g. "-" and /dev/stdin).
std::string stream_identity_of(const std::string& path);

/// Opens the video `path`: a regular file, a stream (a FIFO, character device or socket
/// reached through `path`, e.g. a named pipe or /dev/stdin), or standard input when `path` is
/// "-". Opening a FIFO waits for a writer, as any reader of one does.
///
/// A video starting with "YUV4MPEG2" followed by a space or newline is read as y4m: its header
/// gives the format and `raw`, if given, is ignored (upstream's tool instead reads every file as
/// raw when -w/-h/-p/-b are given, which would take the y4m header for samples; vmafx trusts the
/// header).
///
/// Y4M header: "YUV4MPEG2" then space-separated fields in any order, ended by "\n" (or "\r\n")
/// within 64 KiB: W<width> and H<height> (required), C<colour space> (default 420jpeg),
/// I<interlacing> (p or ? accepted; t, b and m refused as upstream does), F, A, X<anything> and
/// unknown tags ignored. Colour spaces: 420jpeg, 420mpeg2, 420paldv, 420 (4:2:0 8-bit; the
/// chroma siting they name is not resampled), 422, 444 (8-bit), and 420pN, 422pN, 444pN for
/// N = 9..16 (N-bit samples in 16-bit little-endian words). Refused with the list of supported
/// ones: mono*, 411, 444alpha and any other. Each frame is "FRAME", optional space-separated
/// parameters (ignored), "\n" or "\r\n" (within 64 KiB), then the three planes as in a raw
/// file.
///
/// Raw planar YUV (anything else when `raw` is given) has planes Y, Cb, Cr one after the other
/// with no padding, 8-bit samples as bytes, 9..16-bit ones as 16-bit little-endian words. A raw
/// file whose size is not a whole number of frames is opened: its last, partial frame is the
/// damaged tail FrameCount reports.
///
/// Compressed video (any container and codec FFmpeg's libraries decode; see av_reader.hpp):
/// anything that is not y4m when `raw` is not given, a file or a stream, probed by libavformat;
/// and, when `raw` is given, a regular file whose first 4 KiB are certainly a container
/// (is_certain_container: MP4, Matroska, ...; a file named .yuv is probed only when it starts as
/// a container does), so that a raw reference can be scored against a compressed distorted
/// video. Decoded with `decode_threads` codec threads (0: one per core). FFmpeg's libraries are
/// opened by the first video that needs them (av_reader.hpp).
///
/// Throws vmafx::Error "<path>: <problem>" on: a missing or unreadable file (with the system's
/// reason), a directory, an empty file or stream, a y4m file with no frame, data that is
/// neither y4m nor a video FFmpeg's libraries decode when `raw` is not given ("<path>: raw YUV
/// needs -w, -h, -p and -b; FFmpeg's libraries do not read it as a video either: <why>"; also
/// in a build without those libraries), a malformed y4m header (naming the
/// field), an unsupported y4m colour space, a bit depth outside 8..16, a zero or absurd
/// width/height (see validate_video_format), more than 2^32 - 1 frames in a raw file; "<path>:
/// FFmpeg's libraries cannot be loaded: ..." where a video needs them and they cannot be opened.
/// `gpu`: decode a compressed video on the GPU where it can (open_av_video); raw and y4m input
/// ignore it. `decode_sessions`: decoders of a compressed regular file at once
/// (AvInput::sessions).
std::unique_ptr<VideoReader> open_video(const std::string& path, const std::optional<VideoFormat>& raw,
                                        unsigned decode_threads = 0, const GpuDecode& gpu = {},
                                        unsigned decode_sessions = 1);

}  // namespace vmafx
