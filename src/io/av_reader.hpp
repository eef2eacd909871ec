// Compressed video through FFmpeg's libraries (libavformat, libavcodec, libswscale): the reader
// open_video() picks for anything that is neither y4m nor raw YUV, and the scaler of
// --scale-dist. Built from src/io/av_reader.cpp where the libraries are found (CMake option
// VMAFX_LIBAV), else from src/io/av_reader_none.cpp, whose functions say the libraries are
// absent; the C API library (libvmaf.so) always takes the latter, since it reads no files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "io/video_reader.hpp"

namespace vmafx {

/// The versions of the FFmpeg libraries this vmafx decodes with ("libavformat 59.27.100,
/// libavcodec 59.37.100, libswscale 6.7.100"), or empty when it was built without them.
/// Throws vmafx::Error "FFmpeg's libraries cannot be loaded: <soname>: <reason> (...)" when
/// they cannot be opened.
///
/// The libraries are opened (dlopen, by the SONAMEs of the headers vmafx was built with) when a
/// run first needs them: by this function, is_certain_container(), open_av_video(),
/// scale_video() and check_scale_flags(), each of which throws that Error (naming the video or
/// --scale-dist) when they cannot be. Runs on y4m, and on raw YUV named .yuv that does not
/// start as a container does (video_reader.cpp, starts_as_container), never open them.
std::string libav_versions();

/// Whether `head` (the first bytes of the file `name`, any length) is certainly a container
/// that libavformat demuxes: its probe gives the highest score to one of the containers with a
/// signature of their own (MP4/QuickTime, Matroska/WebM, IVF, AVI, FLV, Ogg, MXF, NUT), or to
/// MPEG-TS when `name` also ends in .ts, .m2ts, .mts or .m2t (any case). Used where -w/-h/-p/-b
/// are given, so that a raw .yuv is never mistaken for one by chance (a flat picture can look
/// like an MPEG-TS to a prober: hence the name's say for it). False in a build without the
/// libraries; where they cannot be opened, throws the Error libav_versions() describes, naming
/// the video as `display_name` ("standard input" for "-").
bool is_certain_container(const std::uint8_t* head, std::size_t size, std::string_view name,
                          const std::string& display_name);

/// Where a decoded video's bytes come from: its name in messages, and for a stream (a pipe,
/// FIFO or standard input) the bytes in order; regular files are opened by path.
struct AvInput {
    /// The name messages give the video ("standard input" for "-").
    std::string name;
    /// A regular file: its path. Empty for a stream.
    std::string path;
    /// A stream: reads up to `n` bytes into `dst` and returns how many, fewer only at its end
    /// (0: the end); throws vmafx::Error on a read error. The bytes open_video() already peeked
    /// at come first.
    std::function<std::size_t(std::uint8_t* dst, std::size_t n)> read;
    /// A stream's identity (VideoReader::stream_identity()), empty for a regular file.
    std::string stream_identity;
    /// Decoding threads of the codec (frame threads where it has them): 0 for as many as
    /// there are cores.
    unsigned threads = 0;
    /// Decode on a GPU where libavcodec can (its hardware acceleration through a device of
    /// libav's type `device_type`, e.g. "cuda" for NVDEC; `backend` is vmafx's GPU backend of
    /// that device, "cuda", which VideoReader::decoder() then names); empty: on the CPU.
    GpuDecode gpu;
    /// Decoding sessions of a regular file, each decoding its own segments of the stream at once
    /// (H.264 and HEVC, cut at IDR pictures; see open_av_video); 1: one decoder.
    unsigned sessions = 1;
};

/// Opens libav's hardware device of type `device_type` ("cuda") on the first GPU the process sees,
/// for the videos of a run to decode on (GpuDecodingDevice::get, io/video_reader.hpp): CUDA's is
/// the device's primary context, the one vmafx's CUDA backend then runs in, created here with the
/// flags libav asks for (so it is opened before the backend starts: a primary context the backend
/// or an earlier user of CUDA in the process made has other flags, which libav refuses: `why`
/// then says "Primary context already active with incompatible flags"). Returns null and sets `why` when it cannot (no such type in the
/// libraries, no device, a driver error; a build without FFmpeg's libraries). Throws the Error
/// libav_versions() describes when the libraries cannot be loaded.
std::shared_ptr<void> open_gpu_decoding_device(const std::string& device_type, std::string& why);

/// Opens a video for decoding: the container probed by libavformat, its first video stream
/// decoded by the decoder libavcodec picks for its codec (as the ffmpeg command does), with
/// frame threads. Frames come in presentation order, as libavcodec outputs them (edit lists,
/// variable frame rates and the decoder's reordering as FFmpeg applies them); the first frame
/// is decoded now and gives format().
///
/// Pictures: the decoded samples themselves where vmafx reads the decoder's pixel format
/// (planar YUV 4:2:0, 4:2:2 or 4:4:4 at 8 to 16 bits, little- or big-endian, the full-range
/// yuvj* forms included: samples unchanged, as the raw reader would put them), else converted
/// by libswscale to the nearest such format (as `ffmpeg -pix_fmt` would, flags bicubic), which
/// notices() says. See docs/input.md.
///
/// frame_count() is std::nullopt (a decoded video's length is known at its end); and
/// expected_frames() is the container's estimate (the stream's frame count, else its
/// duration times its frame rate) for progress display.
///
/// With `input.gpu` set, the decoder decodes on the GPU where its hardware acceleration takes
/// the stream (NVDEC: the codecs, profiles, bit depths and sizes the GPU supports): frames then
/// stay on the device (VideoReader::read_surface; read() downloads them) and decoder() is the
/// backend. Where the GPU refuses the stream, where the libraries have no such acceleration for
/// the codec, or where the device cannot be opened, the video decodes on the CPU as without it
/// and decoder_note() says why in one line. Hardware frames in surfaces vmafx does not unpack
/// (other than NV12, P010, P016, YUV444P, YUV444P16 matching the stream's format) make a regular
/// file reopen on the CPU (noted too); a stream then fails naming the surface.
///
/// With `input.sessions` above 1, a regular H.264 or HEVC file is cut into segments before IDR
/// pictures, at least 16 frames each, each segment given the parameter sets seen before it, and
/// that many decoders decode the segments at once (GPU or CPU alike, the CPU's threads shared
/// among them), the frames handed on in order: the same frames as one decoder's. Cutting stops
/// where state it cannot carry appears (film grain SEI, old x264 SEI, parameter sets as side
/// data); a segment that gives fewer frames than packets without cause makes read() throw.
/// Frames held ahead: at most 1 GiB of GPU memory (256 MiB of host memory on the CPU) a
/// session, at least 4 frames. A stream or another codec decodes with one decoder, as notices() says.
/// See docs/input.md, "Several decoding sessions per video".
///
/// Throws vmafx::Error "<name>: <problem>" when the data is no container libavformat knows
/// (the message then also says that raw YUV needs -w, -h, -p and -b), holds no video stream
/// (e.g. audio only), its codec has no decoder, the decoder fails on the first frame or there
/// is none, or the size is out of range (validate_video_format). read() and skip() throw naming
/// the video and the frame on a read or decoding error or a frame whose size changes. Without
/// the FFmpeg libraries: "<name>: raw YUV needs -w, -h, -p and -b (this vmafx was built without
/// FFmpeg's libraries: it reads .y4m and raw YUV only)".
std::unique_ptr<VideoReader> open_av_video(AvInput input);

/// Scales every picture of `inner` to `width` x `height` with libswscale, as FFmpeg's scale
/// filter does with `-vf scale=W:H:flags=FLAGS` (same flags and parameters, MPEG-2 chroma
/// siting for 8-bit 4:2:0, one slice): `flags` is libswscale's sws_flags text, e.g. "bicubic",
/// "lanczos", "bilinear+accurate_rnd". The bit depth and subsampling stay. Everything else
/// (frame counts, skips, errors) is `inner`'s.
/// Throws vmafx::UsageError on flags libswscale does not know, vmafx::Error when the size is
/// out of range or the libraries are absent.
std::unique_ptr<VideoReader> scale_video(std::unique_ptr<VideoReader> inner, int width, int height,
                                         const std::string& flags);

/// Checks `flags` for scale_video() (libswscale's sws_flags text) without a video: throws
/// vmafx::UsageError when libswscale does not know them or the libraries are absent.
void check_scale_flags(const std::string& flags);

}  // namespace vmafx
