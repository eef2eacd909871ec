// Decoding through FFmpeg's libraries (Debian's FFmpeg 5.1: libavformat demuxes, libavcodec
// decodes, libswscale converts and scales); see av_reader.hpp and docs/input.md.
#include "io/av_reader.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include "base/error.hpp"
#include "base/trace.hpp"
#include "io/av_libav.hpp"
#include "picture/surface.hpp"

namespace vmafx {

namespace {

// FFmpeg's libraries, their errors and log, owners of their objects: av_libav.hpp.
using namespace av;

[[noreturn]] void fail(const std::string& name, const std::string& problem) { throw Error(name + ": " + problem); }

constexpr bool kBigEndian = std::endian::native == std::endian::big;

std::string frame_name(unsigned index) { return "frame " + std::to_string(index); }

// ---------------------------------------------------------------------------------------------
// Pixel formats.

/// How a pixel format's samples land in a Picture.
struct Layout {
    VideoFormat format;       ///< subsampling and bit depth (the size is the frame's)
    bool direct = false;      ///< the planes are a Picture's samples as they are (no libswscale)
    bool big_endian = false;  ///< direct, 16-bit words in big-endian order
};

/// The libav pixel format of vmafx's format `f` (planar YUV, native 16-bit words above 8
/// bits), AV_PIX_FMT_NONE when libav has none (11, 13 and 15 bits).
AVPixelFormat av_format_of(const VideoFormat& f) {
    std::string name = std::string("yuv") + subsampling_name(f.subsampling) + "p";
    if (f.bit_depth > 8) name += std::to_string(f.bit_depth) + (kBigEndian ? "be" : "le");
    return lib().av_get_pix_fmt(name.c_str());
}

/// Where `fmt`'s samples go: the format itself where vmafx reads it, else the nearest planar
/// YUV format libswscale converts it to.
Layout layout_of(AVPixelFormat fmt) {
    Layout out;
    const AVPixFmtDescriptor* d = lib().av_pix_fmt_desc_get(fmt);
    if (!d) return out;
    const int depth = d->comp[0].depth;
    const bool rgb = d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BAYER);
    // Planar YUV with three planes of plain samples (1 byte at 8 bits, a 2-byte word above),
    // chroma at 4:2:0, 4:2:2 or 4:4:4: read as it is. (yuvj* are the same samples.)
    if (!rgb && !(d->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_FLOAT |
                              AV_PIX_FMT_FLAG_ALPHA)) &&
        d->nb_components == 3 && depth >= 8 && depth <= 16) {
        bool plain = true;
        for (int c = 0; c < 3; ++c) {
            const AVComponentDescriptor& comp = d->comp[c];
            plain = plain && comp.plane == c && comp.step == (depth > 8 ? 2 : 1) && comp.offset == 0 &&
                    comp.shift == 0 && comp.depth == depth;
        }
        const int cw = d->log2_chroma_w, ch = d->log2_chroma_h;
        if (plain && ((cw == 1 && ch == 1) || (cw == 1 && ch == 0) || (cw == 0 && ch == 0))) {
            out.direct = true;
            out.big_endian = depth > 8 && (d->flags & AV_PIX_FMT_FLAG_BE);
            out.format.bit_depth = depth;
            out.format.subsampling = cw == 0 ? Subsampling::k444 : ch == 1 ? Subsampling::k420 : Subsampling::k422;
            return out;
        }
    }
    // The nearest: RGB (and palettes, Bayer) to 4:4:4; grey to 4:2:0 (the chroma planes then
    // hold the neutral value); other YUV to the smallest of 4:2:0, 4:2:2, 4:4:4 that keeps
    // every chroma sample (4:1:1 to 4:2:2, 4:1:0 to 4:2:0, 4:4:0 to 4:4:4); bit depth up to
    // one libswscale writes (8, 9, 10, 12, 14, 16), at most 16.
    if (rgb) {
        out.format.subsampling = Subsampling::k444;
    } else if (d->nb_components < 3) {
        out.format.subsampling = Subsampling::k420;
    } else if (d->log2_chroma_w == 0) {
        out.format.subsampling = Subsampling::k444;
    } else {
        out.format.subsampling = d->log2_chroma_h > 0 ? Subsampling::k420 : Subsampling::k422;
    }
    const int want = std::clamp(depth, 8, 16);
    out.format.bit_depth = 16;
    for (const int b : {16, 14, 12, 10, 9, 8})
        if (b >= want) out.format.bit_depth = b;
    return out;
}

std::string pix_fmt_name(AVPixelFormat fmt) {
    const char* n = lib().av_get_pix_fmt_name(fmt);
    return n ? n : "unknown pixel format " + std::to_string(static_cast<int>(fmt));
}

/// Copies plane rows from `src` (libav's planes and line sizes) into `pic`'s planes `which`;
/// 16-bit words are byte-swapped when `swap`.
void copy_into_picture(const std::uint8_t* const src[3], const int linesize[3], Picture& pic, PlaneSet which,
                       bool swap) {
    const int bps = pic.format.bytes_per_sample();
    for (int p = 0; p < (which == PlaneSet::kAll ? 3 : 1); ++p) {
        Plane& plane = pic.planes[p];
        const std::size_t row_bytes = static_cast<std::size_t>(plane.width()) * bps;
        for (int y = 0; y < plane.height(); ++y) {
            const std::uint8_t* from = src[p] + static_cast<std::ptrdiff_t>(y) * linesize[p];
            std::uint8_t* to = plane.row<std::uint8_t>(y);
            if (!swap) {
                std::memcpy(to, from, row_bytes);
            } else {
                for (std::size_t i = 0; i < row_bytes; i += 2) {
                    to[i] = from[i + 1];
                    to[i + 1] = from[i];
                }
            }
        }
    }
}

/// Makes `pic` a picture of `format` (re-allocated only when it is not one already).
void shape(Picture& pic, const VideoFormat& format) {
    if (pic.format != format || pic.planes[0].width() != format.width || pic.planes[0].height() != format.height)
        pic = Picture(format);
}

/// libswscale's flags for `text` (its sws_flags option, e.g. "bicubic+accurate_rnd"), parsed as
/// FFmpeg's scale filter parses its flags option. Throws UsageError when they do not parse.
int parse_sws_flags(const std::string& text) {
    install_log_callback();  // libav's own complaints about the text go to our message, not stderr
    const AVClass* cls = lib().sws_get_class();
    const AVOption* o = lib().av_opt_find(&cls, "sws_flags", nullptr, 0, AV_OPT_SEARCH_FAKE_OBJ);
    constexpr int kAlgorithms = SWS_FAST_BILINEAR | SWS_BILINEAR | SWS_BICUBIC | SWS_X | SWS_POINT | SWS_AREA |
                                SWS_BICUBLIN | SWS_GAUSS | SWS_SINC | SWS_LANCZOS | SWS_SPLINE;
    int flags = 0;
    // Exactly one algorithm: libswscale refuses two ("bicubic+lanczos") only when the scaler is
    // set up, after the files were opened.
    if (text.empty() || !o || lib().av_opt_eval_flags(&cls, o, text.c_str(), &flags) < 0 ||
        std::popcount(static_cast<unsigned>(flags & kAlgorithms)) != 1) {
        clear_log_line();  // libav's complaint is said better below
        throw UsageError("--scale-dist \"" + text +
                         "\": not a libswscale algorithm (bicubic, bilinear, fast_bilinear, lanczos, spline, neighbor, "
                         "area, gauss, sinc, bicublin, experimental: one of them; flags such as accurate_rnd may follow after +)");
    }
    return flags;
}

/// A libswscale context from `src` to `dst` (format and size) set up as FFmpeg 5.1's scale
/// filter sets up its own (libavfilter/vf_scale.c, config_props): the flags, both scaler
/// parameters at their defaults, MPEG-2 chroma siting (vertical position 128/256) on the side
/// that is 8-bit 4:2:0 (yuv420p exactly), the source's range when the frame states one
/// (`src_full_range`: 1 full, 0 limited, -1 not stated), one slice.
SwsPtr make_scaler(int src_w, int src_h, AVPixelFormat src_fmt, int dst_w, int dst_h, AVPixelFormat dst_fmt,
                   int flags, int src_full_range) {
    SwsPtr s(lib().sws_alloc_context());
    if (!s) throw std::bad_alloc();
    SwsContext* c = s.get();
    lib().av_opt_set_int(c, "srcw", src_w, 0);
    lib().av_opt_set_int(c, "srch", src_h, 0);
    lib().av_opt_set_int(c, "src_format", src_fmt, 0);
    lib().av_opt_set_int(c, "dstw", dst_w, 0);
    lib().av_opt_set_int(c, "dsth", dst_h, 0);
    lib().av_opt_set_int(c, "dst_format", dst_fmt, 0);
    lib().av_opt_set_int(c, "sws_flags", flags, 0);
    lib().av_opt_set_double(c, "param0", SWS_PARAM_DEFAULT, 0);
    lib().av_opt_set_double(c, "param1", SWS_PARAM_DEFAULT, 0);
    lib().av_opt_set_int(c, "threads", 1, 0);
    if (src_full_range >= 0) lib().av_opt_set_int(c, "src_range", src_full_range, 0);
    lib().av_opt_set_int(c, "src_h_chr_pos", -513, 0);
    lib().av_opt_set_int(c, "src_v_chr_pos", src_fmt == AV_PIX_FMT_YUV420P ? 128 : -513, 0);
    lib().av_opt_set_int(c, "dst_h_chr_pos", -513, 0);
    lib().av_opt_set_int(c, "dst_v_chr_pos", dst_fmt == AV_PIX_FMT_YUV420P ? 128 : -513, 0);
    if (const int r = lib().sws_init_context(c, nullptr, nullptr); r < 0)
        throw Error("libswscale cannot convert " + pix_fmt_name(src_fmt) + " " + std::to_string(src_w) + "x" +
                    std::to_string(src_h) + " to " + pix_fmt_name(dst_fmt) + " " + std::to_string(dst_w) + "x" +
                    std::to_string(dst_h) + ": " + av_error(r));
    return s;
}

/// A frame of `fmt` and size with its own (padded, aligned) buffers.
FramePtr frame_with_buffer(AVPixelFormat fmt, int w, int h) {
    FramePtr f = new_frame();
    f->format = fmt;
    f->width = w;
    f->height = h;
    if (const int r = lib().av_frame_get_buffer(f.get(), 0); r < 0) throw Error("cannot allocate a frame: " + av_error(r));
    return f;
}

/// `frame` (any pixel format, the size of `format`) into `pic` as `format`'s samples through
/// `scaler` (libswscale, cached by the caller in `scaler`/`scaler_key` for the frame's format
/// and size) and a buffer frame `scratch`.
struct Converter {
    SwsPtr scaler;
    std::array<int, 4> key{-1, -1, -1, -1};  ///< source width, height, format, range
    FramePtr out;

    void convert(const AVFrame* frame, const VideoFormat& format, Picture& pic, PlaneSet which) {
        const AVPixelFormat dst = av_format_of(format);
        const int range = frame->color_range == AVCOL_RANGE_JPEG ? 1 : frame->color_range == AVCOL_RANGE_MPEG ? 0 : -1;
        const std::array<int, 4> k{frame->width, frame->height, frame->format, range};
        if (!scaler || k != key) {
            scaler = make_scaler(frame->width, frame->height, static_cast<AVPixelFormat>(frame->format), format.width,
                                 format.height, dst, SWS_BICUBIC, range);
            key = k;
        }
        if (!out) out = frame_with_buffer(dst, format.width, format.height);
        if (const int r = lib().sws_scale_frame(scaler.get(), out.get(), frame); r < 0)
            throw Error("libswscale failed: " + av_error(r));
        shape(pic, format);
        const std::uint8_t* planes[3] = {out->data[0], out->data[1], out->data[2]};
        copy_into_picture(planes, out->linesize, pic, which, false);
    }
};

// ---------------------------------------------------------------------------------------------
// Containers probed with certainty (is_certain_container).

constexpr std::array<std::string_view, 8> kSignedContainers = {
    "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "ivf", "avi", "flv", "ogg", "mxf", "nut"};

// ---------------------------------------------------------------------------------------------
// A stream's bytes for libavformat (a custom AVIOContext).

struct StreamSource {
    std::function<std::size_t(std::uint8_t*, std::size_t)> read;
    std::string error;  ///< the message of a read error (exceptions do not cross libav's C code)

    static int read_packet(void* opaque, std::uint8_t* buf, int size) {
        auto* self = static_cast<StreamSource*>(opaque);
        try {
            const std::size_t got = self->read(buf, static_cast<std::size_t>(size));
            return got == 0 ? AVERROR_EOF : static_cast<int>(got);
        } catch (const std::exception& e) {
            self->error = e.what();
            return AVERROR(EIO);
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Decoding on the GPU (AvInput::gpu): libavcodec's hardware acceleration with a device of ours.

/// What the decoder's get_format callback needs: the hardware pixel format to take when it is
/// offered, and why it was not (the hardware acceleration refused the stream).
struct GpuChoice {
    AVPixelFormat format = AV_PIX_FMT_NONE;
    std::mutex mutex;
    /// The hardware format was just taken, within the decoding call now running: a call without it
    /// in the same decoding call is libavcodec's retry after NVDEC refused (Decoding::settled).
    bool pending = false;
    std::string refused;  ///< empty while the hardware format is taken (or not yet offered)
};

/// The decoder's get_format: the hardware format when offered, until it is refused. libavcodec
/// offers the formats again without it when its hardware acceleration cannot set up for the
/// stream (NVDEC: codec, profile, bit depth or size beyond the GPU's), on this thread right after
/// this call, having logged NVDEC's reason first; the software format is then taken, and kept
/// (a frame decoded on the CPU never turns into a hardware one). A stream for which the decoder
/// offers no hardware format at all (H.264 10-bit) is refused too.
AVPixelFormat pick_gpu_format(AVCodecContext* c, const AVPixelFormat* offered) {
    auto* choice = static_cast<GpuChoice*>(c->opaque);
    std::lock_guard lock(choice->mutex);
    if (choice->refused.empty()) {
        for (const AVPixelFormat* f = offered; *f != AV_PIX_FMT_NONE; ++f)
            if (*f == choice->format) {
                choice->pending = true;
                mark_log();
                return *f;
            }
        if (choice->pending) {
            const std::string why = first_line_since_mark();
            choice->refused = why.empty() ? "the hardware decoder could not set up for this stream" : why;
        } else {
            const char* sw = lib().av_get_pix_fmt_name(c->sw_pix_fmt);
            choice->refused = "FFmpeg's " + std::string(c->codec ? c->codec->name : "") +
                              " decoder offers no hardware format for this stream (" + (sw ? sw : "unknown") + ")";
        }
    }
    for (const AVPixelFormat* f = offered; *f != AV_PIX_FMT_NONE; ++f)
        if (*f == choice->format) {
            // Offered again after a refusal (a new sequence): the software formats only.
            std::vector<AVPixelFormat> software;
            for (const AVPixelFormat* g = offered; *g != AV_PIX_FMT_NONE; ++g)
                if (*g != choice->format) software.push_back(*g);
            software.push_back(AV_PIX_FMT_NONE);
            return lib().avcodec_default_get_format(c, software.data());
        }
    return lib().avcodec_default_get_format(c, offered);
}

/// The surface shape (DeviceSurface without its planes) of hardware frames in `sw` (the
/// frames context's software format) for a video of `f`, or std::nullopt where vmafx does not
/// unpack it.
std::optional<DeviceSurface> surface_shape(AVPixelFormat sw, const VideoFormat& f) {
    DeviceSurface s;
    const bool c420 = f.subsampling == Subsampling::k420, c444 = f.subsampling == Subsampling::k444;
    if (sw == AV_PIX_FMT_NV12 && c420 && f.bit_depth == 8) {
        s.layout = DeviceSurface::Layout::kSemiPlanar;
        s.word_bytes = 1;
    } else if (((sw == AV_PIX_FMT_P010LE && f.bit_depth == 10) || (sw == AV_PIX_FMT_P016LE && f.bit_depth > 8)) &&
               c420 && !kBigEndian) {
        s.layout = DeviceSurface::Layout::kSemiPlanar;
        s.word_bytes = 2;
        s.shift = 16 - f.bit_depth;  // the sample in the word's top bits
    } else if (sw == AV_PIX_FMT_YUV444P && c444 && f.bit_depth == 8) {
        s.layout = DeviceSurface::Layout::kPlanar;
        s.word_bytes = 1;
    } else if (sw == AV_PIX_FMT_YUV444P16LE && c444 && f.bit_depth > 8 && !kBigEndian) {
        s.layout = DeviceSurface::Layout::kPlanar;
        s.word_bytes = 2;
        s.shift = 16 - f.bit_depth;
    } else {
        return std::nullopt;
    }
    return s;
}

/// `shape` with the planes of `f` (a hardware frame's device planes, or a downloaded frame's).
DeviceSurface surface_of(const DeviceSurface& shape, const AVFrame* f) {
    DeviceSurface s = shape;
    for (int p = 0; p < 3; ++p) {
        s.planes[p] = f->data[p];
        s.pitch[p] = f->linesize[p];
    }
    return s;
}

constexpr int kAvioBuffer = 64 * 1024;

/// The I/O context's own error after a failed av_read_frame of `c` ("cannot read: ..."), or "".
/// A failed read of the stream or file also sets the I/O context's end flag, and most demuxers
/// then say AVERROR_EOF: the I/O context's error tells them apart from a clean end.
std::string read_failure_of_io(const AVFormatContext* c) {
    if (c->pb && c->pb->error < 0 && c->pb->error != AVERROR_EOF) return "cannot read: " + av_problem(c->pb->error);
    return {};
}

/// Why av_read_frame of `c` failed with `r` ("cannot read: ..."), or "" at a clean end (also a
/// file cut short: the packets before the cut are the video's).
std::string read_failure(const AVFormatContext* c, int r) {
    if (std::string io = read_failure_of_io(c); !io.empty()) return io;
    if (r != AVERROR_EOF && !(c->pb && lib().avio_feof(c->pb))) return "cannot read: " + av_problem(r);
    return {};
}

/// A video stream being decoded: the stream source and I/O context (streams only), the
/// container, the decoder and the send/receive loop between them. Members are declared so that
/// the decoder and the container go before the I/O they read through.
struct Decoding {
    std::string name;                      ///< the video's name, for messages
    std::unique_ptr<StreamSource> source;  ///< a stream's bytes; null for a file
    AvioPtr avio;                          ///< a stream's I/O context; null for a file
    FormatPtr container;
    std::unique_ptr<GpuChoice> gpu;        ///< the decoder's get_format state (decoder->opaque)
    CodecPtr decoder;
    PacketPtr packet;
    /// A decoding session's packets (SegmentedDecoding) instead of the container's: the next
    /// packet of its segment into the argument, or false at the segment's end.
    std::function<bool(AVPacket*)> pull;
    int stream = -1;
    bool pipe_hint = false;  ///< a stream in MP4/MOV: say why it may fail to read
    bool flushed = false, ended = false;
    /// Packets or frames libavcodec refused so far, and the first one's reason: skipped, as the
    /// ffmpeg program skips them (it logs "Error while decoding stream" and goes on), so that
    /// the frames are those `ffmpeg -i FILE -f rawvideo` writes.
    unsigned errors = 0;
    std::string first_error;

    /// Decodes the next frame into `frame` (frame `index`, for messages); false at the end.
    /// Throws naming the video and the frame on a read error, or when the decoder refuses
    /// kMaxErrorsInARow packets or frames in a row (nothing decodes any more).
    bool next(AVFrame* frame, unsigned index) {
        if (ended) return false;
        unsigned in_a_row = 0;
        for (;;) {
            const int r = lib().avcodec_receive_frame(decoder.get(), frame);
            settled();
            if (r == 0) return true;
            if (r == AVERROR_EOF || (r == AVERROR(EAGAIN) && flushed)) {
                ended = true;
                return false;
            }
            if (r != AVERROR(EAGAIN)) {
                skipped(index, r, in_a_row);
                continue;
            }
            feed(index, in_a_row);
        }
    }

    /// After the end of a segment (pull): ready for the next segment's packets.
    void restart() {
        lib().avcodec_flush_buffers(decoder.get());
        flushed = ended = false;
    }

    /// The warning about what was skipped, or "" when nothing was.
    std::string skipped_warning() const {
        if (errors == 0) return {};
        const bool one = errors == 1;
        return "\"" + name + "\": " + std::to_string(errors) + (one ? " packet or frame" : " packets or frames") +
               " could not be decoded and " + (one ? "was" : "were") +
               " skipped, as the ffmpeg program skips them (the first: " + first_error + ")";
    }

private:
    static constexpr unsigned kMaxErrorsInARow = 1000;

    /// After a decoding call: a hardware format taken within it stands (GpuChoice::pending).
    void settled() {
        if (!gpu) return;
        std::lock_guard lock(gpu->mutex);
        gpu->pending = false;
    }

    /// Counts a packet or frame the decoder refused with `r` while frame `index` was wanted.
    void skipped(unsigned index, int r, unsigned& in_a_row) {
        const std::string what = frame_name(index) + ": cannot decode: " + av_problem(r);
        if (errors++ == 0) first_error = what;
        if (++in_a_row >= kMaxErrorsInARow)
            fail(name, what + " (and the " + std::to_string(kMaxErrorsInARow - 1) + " packets or frames before it)");
    }

    /// Sends the next packet of the video stream to the decoder, or the end when the container
    /// has no more (also a file cut short: the frames before the cut are the video's). A packet
    /// the decoder refuses is skipped (see `errors`).
    void feed(unsigned index, unsigned& in_a_row) {
        if (pull) {
            if (pull(packet.get())) {
                send(index, in_a_row);
            } else {
                send_end();
            }
            return;
        }
        for (;;) {
            const int r = lib().av_read_frame(container.get(), packet.get());
            if (r < 0) {
                if (source && !source->error.empty()) fail(name, frame_name(index) + ": " + source->error);
                if (const std::string io = read_failure_of_io(container.get()); !io.empty())
                    fail(name, frame_name(index) + ": " + io);
                if (const std::string problem = read_failure(container.get(), r); !problem.empty())
                    fail(name, frame_name(index) + ": " + problem +
                                   (pipe_hint ? " (an MP4 or MOV file whose index follows its samples cannot be read "
                                                "from a pipe: give its path, or write it with ffmpeg -movflags "
                                                "+faststart)"
                                              : ""));
                send_end();
                return;
            }
            if (packet->stream_index == stream) {
                send(index, in_a_row);
                return;
            }
            lib().av_packet_unref(packet.get());
        }
    }

    /// Sends `packet` to the decoder and releases it; a packet refused is skipped (`errors`).
    void send(unsigned index, unsigned& in_a_row) {
        const int sent = lib().avcodec_send_packet(decoder.get(), packet.get());
        settled();
        lib().av_packet_unref(packet.get());
        if (sent < 0 && sent != AVERROR(EAGAIN) && sent != AVERROR_EOF) skipped(index, sent, in_a_row);
    }

    /// Tells the decoder that no packet follows (it then gives the frames it holds).
    void send_end() {
        lib().avcodec_send_packet(decoder.get(), nullptr);
        settled();
        flushed = true;
    }
};

/// The video stream the ffmpeg program (5.1, fftools/ffmpeg_opt.c) maps when it is given no
/// -map: the largest area, with a stream that has new packets and then the default one ahead
/// (its score's weights), an attached picture (cover art) last; the first of equal ones.
/// AVERROR_STREAM_NOT_FOUND when the container has no video stream.
int ffmpeg_video_stream(const AVFormatContext* container) {
    int best = AVERROR_STREAM_NOT_FOUND;
    long long best_score = 0;
    for (unsigned i = 0; i < container->nb_streams; ++i) {
        const AVStream* st = container->streams[i];
        if (st->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) continue;
        long long score = static_cast<long long>(st->codecpar->width) * st->codecpar->height +
                          100000000LL * !!(st->event_flags & AVSTREAM_EVENT_FLAG_NEW_PACKETS) +
                          5000000LL * !!(st->disposition & AV_DISPOSITION_DEFAULT);
        if (st->disposition & AV_DISPOSITION_ATTACHED_PIC) score = 1;
        if (best < 0 || score > best_score) {
            best_score = score;
            best = static_cast<int>(i);
        }
    }
    return best;
}

/// Sets `d`'s decoder (allocated, not yet open) up to decode `codec` on the device of `gpu`,
/// with one thread (a hardware decoder gains nothing from frame threads, and each one holds
/// decoder surfaces of its own). Returns empty, or why it cannot (the video then decodes on the
/// CPU).
std::string set_up_gpu_decoding(Decoding& d, const AVCodec* codec, const GpuDecode& gpu) {
    std::string why;
    const std::shared_ptr<void> held = gpu.device->get(why);
    if (!held) return why;
    auto* device = static_cast<AVBufferRef*>(held.get());
    const AVHWDeviceType type = reinterpret_cast<const AVHWDeviceContext*>(device->data)->type;
    AVPixelFormat format = AV_PIX_FMT_NONE;
    for (int i = 0;; ++i) {
        const AVCodecHWConfig* config = lib().avcodec_get_hw_config(codec, i);
        if (!config) break;
        if ((config->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) && config->device_type == type) {
            format = config->pix_fmt;
            break;
        }
    }
    if (format == AV_PIX_FMT_NONE)
        return "FFmpeg's " + std::string(codec->name) + " decoder has no " + gpu.device_type +
               " hardware decoding in these libraries";
    d.decoder->hw_device_ctx = lib().av_buffer_ref(device);
    if (!d.decoder->hw_device_ctx) throw std::bad_alloc();
    d.gpu = std::make_unique<GpuChoice>();
    d.gpu->format = format;
    d.decoder->opaque = d.gpu.get();
    d.decoder->get_format = &pick_gpu_format;
    d.decoder->thread_count = 1;
    return {};
}

// ---------------------------------------------------------------------------------------------
// Several decoding sessions for one video (AvInput::sessions, --decode-sessions).

/// Where an H.264 or HEVC stream may be cut so that a decoder started there gives the frames
/// that the decoder of the whole stream gives from there on, and what the new decoder must be
/// given first. A cut goes before an IDR picture (ITU-T H.264 8.2.1 / H.265 8.3.2: it and the
/// pictures after it in decoding order refer to no picture before it); for HEVC only where the
/// IDR slice says no_output_of_prior_pics_flag = 0 (FFmpeg's HEVC decoder drops the frames not
/// yet output when it is 1; its H.264 decoder ignores the flag). The parameter sets are decoder
/// state that outlives an IDR picture: every distinct VPS/SPS/PPS seen in the stream's packets so
/// far is given again, in the order of their last appearance, ahead of the cut's packet
/// (Scan::prefix), so that the new decoder holds the sets the whole stream's decoder holds (a
/// later set of one id replaces an earlier one in both). State that this cannot carry stops the
/// cutting from where it appears: a film grain characteristics SEI (H.264 and H.265 payload 19,
/// which FFmpeg applies and may keep across pictures), an x264 version SEI older than core 151
/// (FFmpeg then decodes 4:4:4 with x264's old bugs), parameter sets arriving as packet side data
/// (AV_PKT_DATA_NEW_EXTRADATA: FLV, MOV with several sample descriptions), or more than
/// kMaxSets distinct sets.
class CutPoints {
public:
    static constexpr std::size_t kMaxSets = 64;

    /// `codec`'s packets, given its extradata: length-prefixed NAL units where the extradata is
    /// an avcC or hvcC record (the length's size from it), else Annex B (start codes). Cuts
    /// nothing for other codecs (splits() false).
    CutPoints(AVCodecID codec, const std::uint8_t* extradata, int size) : codec_(codec) {
        if (codec == AV_CODEC_ID_H264 && size >= 7 && extradata[0] == 1) length_size_ = (extradata[4] & 3) + 1;
        if (codec == AV_CODEC_ID_HEVC && size >= 23 && extradata[0] == 1) length_size_ = (extradata[21] & 3) + 1;
    }

    bool splits() const { return codec_ == AV_CODEC_ID_H264 || codec_ == AV_CODEC_ID_HEVC; }

    /// What a packet is to the cutting.
    struct Scan {
        bool clean = false;     ///< a segment may begin with it
        bool may_drop = false;  ///< it may legitimately give no frame, or drop frames before it
        std::string prefix;     ///< with `clean`: the parameter sets to give ahead of it (in its framing)
    };

    /// Scans the packet `data` (`size` bytes; `new_extradata`: it carries parameter sets as side
    /// data). Every packet of the stream goes through here in order.
    Scan scan(const std::uint8_t* data, std::size_t size, bool new_extradata) {
        Scan out;
        bool idr = false, picture = false;
        std::vector<std::string> sets;
        const bool h264 = codec_ == AV_CODEC_ID_H264;
        for_each_nal(data, size, [&](const std::uint8_t* nal, std::size_t n) {
            const int type = h264 ? nal[0] & 0x1F : (nal[0] >> 1) & 0x3F;
            const std::size_t header = h264 ? 1 : 2;
            if (h264 ? (type >= 1 && type <= 5) : type <= 31) picture = true;
            if (h264 ? (type == 7 || type == 8) : (type >= 32 && type <= 34)) sets.emplace_back(nal, nal + n);
            if (h264 ? type == 6 : type == 39) check_sei(nal + header, n - std::min(n, header));
            if (h264) {
                if (type == 5) idr = true;
                if (type == 10 || type == 11) out.may_drop = true;  // end of sequence or stream
                return;
            }
            // HEVC: the slice header's first bits, first_slice_segment_in_pic_flag, then
            // no_output_of_prior_pics_flag (IRAP pictures, types 16 to 23).
            const bool first_slice = n > 2 && (nal[2] & 0x80);
            const bool no_output = n > 2 && (nal[2] & 0x40);
            if ((type == 19 || type == 20) && first_slice) idr = !no_output;
            if (type >= 16 && type <= 23 && first_slice && no_output) out.may_drop = true;
            if (type == 8 || type == 9 || type == 36 || type == 37) out.may_drop = true;  // RASL, end of sequence/stream
        });
        if (!picture) out.may_drop = true;
        if (new_extradata) stopped_ = true;
        out.clean = idr && !stopped_;
        if (out.clean)
            for (const std::string& s : sets_) append_nal(out.prefix, s);
        for (std::string& s : sets) {
            sets_.erase(std::remove(sets_.begin(), sets_.end(), s), sets_.end());
            sets_.push_back(std::move(s));
        }
        if (sets_.size() > kMaxSets) stopped_ = true;
        return out;
    }

private:
    /// Calls `fn(nal, size)` for each NAL unit of the packet (from its header byte; never empty).
    template <class Fn>
    void for_each_nal(const std::uint8_t* data, std::size_t size, Fn&& fn) const {
        if (length_size_) {
            std::size_t at = 0;
            while (at + length_size_ <= size) {
                std::size_t n = 0;
                for (int i = 0; i < length_size_; ++i) n = (n << 8) | data[at + i];
                at += length_size_;
                if (n == 0 || n > size - at) return;
                fn(data + at, n);
                at += n;
            }
            return;
        }
        std::size_t start = std::string::npos;  // the NAL unit being scanned
        const auto end_nal = [&](std::size_t end) {
            while (end > start && data[end - 1] == 0) --end;  // a 4-byte start code's or trailing zero bytes
            if (end > start) fn(data + start, end - start);
        };
        for (std::size_t i = 0; i + 2 < size; ++i) {
            if (data[i] != 0 || data[i + 1] != 0 || data[i + 2] != 1) continue;
            if (start != std::string::npos) end_nal(i);
            start = i + 3;
            i += 2;
        }
        if (start != std::string::npos) end_nal(size);
    }

    /// Appends NAL unit `nal` to `out` in the stream's framing.
    void append_nal(std::string& out, const std::string& nal) const {
        if (length_size_ == 0) {
            out.append("\0\0\0\1", 4);
        } else {
            for (int i = length_size_ - 1; i >= 0; --i) out.push_back(static_cast<char>((nal.size() >> (8 * i)) & 0xFF));
        }
        out += nal;
    }

    /// An SEI NAL unit's payload (after its header): stops the cutting at a film grain
    /// characteristics message or an x264 version older than core 151.
    void check_sei(const std::uint8_t* data, std::size_t size) {
        // The RBSP: emulation prevention bytes (00 00 03) removed.
        std::vector<std::uint8_t> rbsp;
        rbsp.reserve(size);
        int zeros = 0;
        for (std::size_t i = 0; i < size; ++i) {
            if (zeros >= 2 && data[i] == 3) {
                zeros = 0;
                continue;
            }
            rbsp.push_back(data[i]);
            zeros = data[i] == 0 ? zeros + 1 : 0;
        }
        std::size_t at = 0;
        while (at + 2 <= rbsp.size() && rbsp[at] != 0x80) {
            const auto value = [&] {
                std::size_t v = 0;
                while (at < rbsp.size() && rbsp[at] == 0xFF) v += rbsp[at++];
                return at < rbsp.size() ? v + rbsp[at++] : v;
            };
            const std::size_t type = value(), n = value();
            if (n > rbsp.size() - at) return;
            if (type == 19) stopped_ = true;
            if (type == 5 && codec_ == AV_CODEC_ID_H264 && n > 16) {
                const std::string text(reinterpret_cast<const char*>(rbsp.data() + at + 16), n - 16);
                int build = 0;
                if (std::sscanf(text.c_str(), "x264 - core %d", &build) == 1 && build < 151) stopped_ = true;
            }
            at += n;
        }
    }

    AVCodecID codec_;
    int length_size_ = 0;  ///< 0: Annex B
    std::vector<std::string> sets_;  ///< the distinct parameter sets so far, the last seen last
    bool stopped_ = false;           ///< no more cuts
};

/// A regular file decoded by several sessions at once: a demuxing thread cuts the stream's
/// packets into segments at CutPoints (at least kMinSegment packets each), session i decodes
/// segments i, i+N, i+2N, ... with a decoder of its own on a thread of its own
/// (Decoding::pull), and next() hands the frames on in order, segment after segment, each in
/// its decoder's output order. A segment's first packet carries the parameter sets before it
/// (CutPoints::Scan::prefix). A segment after the first must give one frame per packet unless one
/// of its packets may drop output (CutPoints::Scan::may_drop): a check, not the proof, that it
/// decoded as the whole stream would (a picture that lacked a reference would be missing). An
/// error of a thread is thrown when next() reaches its segment. Each session holds at most
/// `capacity` decoded frames; a frame decoded on the GPU is copied out of the decoder's surfaces
/// (NVDEC has 32 at most) into a pool of the session's. Each waiting thread has a condition
/// variable of its own (the run's, the demuxer's, each session's), woken only by what it waits
/// for. With VMAFX_TIMINGS set, each thread's busy and waiting times are printed at the end.
class SegmentedDecoding {
public:
    static constexpr unsigned kMinSegment = 16;

    SegmentedDecoding(std::string name, FormatPtr container, int stream, CutPoints cuts,
                      std::vector<Decoding> sessions, unsigned capacity)
        : name_(std::move(name)), container_(std::move(container)), stream_(stream), cuts_(std::move(cuts)),
          capacity_(capacity), sessions_(sessions.size()) {
        for (std::size_t i = 0; i < sessions.size(); ++i) sessions_[i].decoding = std::move(sessions[i]);
        segments_.push_back({});
        try {
            for (std::size_t i = 0; i < sessions_.size(); ++i)
                sessions_[i].thread = std::thread([this, i] { decode(static_cast<unsigned>(i)); });
            demuxer_ = std::thread([this] { demux(); });
        } catch (...) {
            stop_and_join();  // a thread that could not start
            throw;
        }
    }

    ~SegmentedDecoding() {
        stop_and_join();
        if (trace::enabled()) print_timings();
    }

    SegmentedDecoding(const SegmentedDecoding&) = delete;
    SegmentedDecoding& operator=(const SegmentedDecoding&) = delete;

    /// The next frame into `frame`; false at the end. Throws the error of a thread (a read
    /// error, a decoder refusing everything) on reaching its segment, or that of a segment whose
    /// frames do not match its packets.
    bool next(AVFrame* frame) {
        std::unique_lock lock(mutex_);
        for (;;) {
            if (error_ && current_ >= error_segment_) std::rethrow_exception(error_);
            if (current_ >= segments_.size()) {
                if (demuxed_) return false;
                wait_for_frames(lock);
                continue;
            }
            Session& s = sessions_[current_ % sessions_.size()];
            if (s.out.empty()) {
                wait_for_frames(lock);
                continue;
            }
            Output item = std::move(s.out.front());
            s.out.pop_front();
            s.wake.notify_one();  // room for its next frame
            if (!item.frame) {
                const Segment& seg = segments_[current_];
                if (current_ > 0 && !seg.may_drop && delivered_ != seg.packets)
                    fail(name_, "the decoding session of the segment of packets " +
                                    std::to_string(seg.first_packet) + " to " +
                                    std::to_string(seg.first_packet + seg.packets - 1) + " (from an IDR picture) gave " +
                                    std::to_string(delivered_) + " frames for its " + std::to_string(seg.packets) +
                                    " packets, so it may not decode as the whole stream does; decode with one session "
                                    "(--decode-sessions 1)");
                ++current_;
                delivered_ = 0;
                continue;
            }
            lib().av_frame_unref(frame);
            lib().av_frame_move_ref(frame, item.frame.get());
            ++delivered_;
            return true;
        }
    }

    unsigned sessions() const { return static_cast<unsigned>(sessions_.size()); }
    /// Segments whose frames next() has handed on (at least 1).
    unsigned segments() const {
        std::lock_guard lock(mutex_);
        return std::max(1u, current_ + (delivered_ > 0 ? 1u : 0u));
    }

    /// The warning about what the sessions skipped (Decoding::skipped_warning, the first error
    /// being the earliest segment's), or "".
    std::string skipped_warning() const {
        std::lock_guard lock(mutex_);
        Decoding summary;
        summary.name = name_;
        unsigned first_segment = UINT_MAX;
        for (const Session& s : sessions_) {
            summary.errors += s.errors;
            if (s.errors && s.error_segment < first_segment) {
                first_segment = s.error_segment;
                summary.first_error = s.first_error;
            }
        }
        return summary.skipped_warning();
    }

private:
    struct Segment {
        unsigned first_packet = 0;  ///< the stream's index of its first packet
        unsigned packets = 0;       ///< so far, while it is being cut
        bool may_drop = false;      ///< a packet of it may give no frame (CutPoints::Scan::may_drop)
    };
    struct Input {
        PacketPtr packet;  ///< null: the end of the segment
    };
    struct Output {
        FramePtr frame;  ///< null: the end of the segment
    };
    struct Session {
        Decoding decoding;
        std::deque<Input> in;
        std::deque<Output> out;
        BufferPtr pool;  ///< the CUDA frames the session copies its GPU frames into
        unsigned errors = 0, error_segment = 0;
        std::string first_error;
        std::condition_variable wake;  ///< packets, a segment or room for frames, or the stop
        std::thread thread;
        /// Seconds in the decoder (waits for packets included), waiting for packets, copying
        /// GPU frames out, waiting for room for frames (VMAFX_TIMINGS).
        double decoding_s = 0, packets_s = 0, copying_s = 0, room_s = 0;
    };
    struct Stopped {};  ///< thrown inside a thread when the reader is being destroyed

    static constexpr std::size_t kMaxPackets = 1024;  ///< queued for one session

    /// Stops every thread and waits for them.
    void stop_and_join() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        demuxer_wake_.notify_all();
        for (Session& s : sessions_) s.wake.notify_all();
        if (demuxer_.joinable()) demuxer_.join();
        for (Session& s : sessions_)
            if (s.thread.joinable()) s.thread.join();
    }

    /// In a thread's catch block: keeps the error of the earliest segment for next(), which
    /// throws it on reaching `segment` (the thread then ends; the others go on, so that the
    /// segments before it are still handed on).
    void failed(unsigned segment) {
        std::lock_guard lock(mutex_);
        if (!error_ || segment < error_segment_) {
            error_ = std::current_exception();
            error_segment_ = segment;
        }
        frames_wake_.notify_one();
    }

    /// Waits on `wake` under `lock` until `ready()`, adding the seconds waited to `waited`;
    /// throws Stopped when the reader stops first.
    template <class Ready>
    void wait(std::unique_lock<std::mutex>& lock, std::condition_variable& wake, double& waited, Ready&& ready) {
        if (!stop_ && !ready()) {
            const auto t0 = std::chrono::steady_clock::now();
            wake.wait(lock, [&] { return stop_ || ready(); });
            waited += trace::seconds_since(t0);
        }
        if (stop_) throw Stopped{};
    }

    /// next(): waits under `lock` for a frame, a segment or an error (the run's thread destroys
    /// the reader, so no stop can come while it waits).
    void wait_for_frames(std::unique_lock<std::mutex>& lock) {
        const auto t0 = std::chrono::steady_clock::now();
        frames_wake_.wait(lock);
        frames_waited_s_ += trace::seconds_since(t0);
    }

    /// VMAFX_TIMINGS: where each thread's time went.
    void print_timings() const {
        trace::phase("decoding sessions of \"" + name_ + "\": the run waited " + ms(frames_waited_s_) +
                     " for frames, the demuxer " + ms(demuxer_waited_s_) + " for room for packets");
        for (std::size_t i = 0; i < sessions_.size(); ++i) {
            const Session& s = sessions_[i];
            trace::phase("decoding session " + std::to_string(i) + " of \"" + name_ + "\": decoder " +
                         ms(s.decoding_s - s.packets_s) + " (packets waited for " + ms(s.packets_s) +
                         " more), copying frames out " + ms(s.copying_s) + ", waiting for room " + ms(s.room_s));
        }
    }
    static std::string ms(double seconds) { return std::to_string(static_cast<long>(seconds * 1e3 + 0.5)) + " ms"; }

    void demux() {
        unsigned segment = 0;
        try {
            cut(segment);
        } catch (const Stopped&) {
        } catch (...) {
            failed(segment);
        }
    }

    /// demux(): `segment` is the one being cut.
    void cut(unsigned& segment) {
        PacketPtr packet(lib().av_packet_alloc());
        if (!packet) throw std::bad_alloc();
        unsigned frames = 0;  // packets so far
        for (;;) {
            const int r = lib().av_read_frame(container_.get(), packet.get());
            if (r < 0) {
                if (const std::string problem = read_failure(container_.get(), r); !problem.empty())
                    fail(name_, frame_name(frames) + ": " + problem);
                break;
            }
            if (packet->stream_index != stream_) {
                lib().av_packet_unref(packet.get());
                continue;
            }
            const CutPoints::Scan scan =
                cuts_.scan(packet->data, static_cast<std::size_t>(packet->size),
                           lib().av_packet_get_side_data(packet.get(), AV_PKT_DATA_NEW_EXTRADATA, nullptr) != nullptr);
            const bool begin = scan.clean && segments_.back().packets >= kMinSegment;
            PacketPtr queued(lib().av_packet_alloc());
            if (!queued) throw std::bad_alloc();
            if (begin && !scan.prefix.empty()) {
                // The parameter sets ahead of the packet's own data, its properties kept.
                const std::size_t size = scan.prefix.size() + static_cast<std::size_t>(packet->size);
                if (size > static_cast<std::size_t>(INT_MAX - AV_INPUT_BUFFER_PADDING_SIZE) ||
                    lib().av_new_packet(queued.get(), static_cast<int>(size)) < 0 ||
                    lib().av_packet_copy_props(queued.get(), packet.get()) < 0)
                    throw std::bad_alloc();
                std::memcpy(queued->data, scan.prefix.data(), scan.prefix.size());
                std::memcpy(queued->data + scan.prefix.size(), packet->data, static_cast<std::size_t>(packet->size));
                lib().av_packet_unref(packet.get());
            } else {
                lib().av_packet_move_ref(queued.get(), packet.get());
            }
            std::unique_lock lock(mutex_);
            if (begin) {
                push(lock, segment, nullptr);
                segments_.push_back({frames, 0, false});
                ++segment;
                if (segment == current_) frames_wake_.notify_one();
            }
            push(lock, segment, std::move(queued));
            ++segments_.back().packets;
            segments_.back().may_drop = segments_.back().may_drop || scan.may_drop;
            ++frames;
        }
        std::unique_lock lock(mutex_);
        push(lock, segment, nullptr);
        demuxed_ = true;
        frames_wake_.notify_one();
        for (Session& s : sessions_) s.wake.notify_one();  // those waiting for a segment that will not come
    }

    /// Queues `packet` (null: the segment's end) for the session of `segment`.
    void push(std::unique_lock<std::mutex>& lock, unsigned segment, PacketPtr packet) {
        Session& s = sessions_[segment % sessions_.size()];
        wait(lock, demuxer_wake_, demuxer_waited_s_, [&] { return s.in.size() < kMaxPackets || !packet; });
        s.in.push_back({std::move(packet)});
        s.wake.notify_one();  // a packet, or the segment it waits for (pushed under the same lock)
    }

    void decode(unsigned which) {
        unsigned segment = which;
        try {
            decode_segments(which, segment);
        } catch (const Stopped&) {
        } catch (...) {
            failed(segment);
        }
    }

    /// decode(): `segment` is the one being decoded.
    void decode_segments(unsigned which, unsigned& segment) {
        Session& s = sessions_[which];
        s.decoding.pull = [&](AVPacket* into) {
            std::unique_lock lock(mutex_);
            wait(lock, s.wake, s.packets_s, [&] { return !s.in.empty(); });
            Input item = std::move(s.in.front());
            s.in.pop_front();
            if (s.in.size() + 1 == kMaxPackets) demuxer_wake_.notify_one();
            if (!item.packet) return false;
            lib().av_packet_move_ref(into, item.packet.get());
            return true;
        };
        for (;; segment += static_cast<unsigned>(sessions_.size())) {
            unsigned index = 0;  // the frame's, for messages: its packet's index
            {
                std::unique_lock lock(mutex_);
                double unused = 0;  // the wait for the next segment is the wait for its first packet
                wait(lock, s.wake, unused, [&] { return segments_.size() > segment || demuxed_; });
                if (segments_.size() <= segment) return;
                index = segments_[segment].first_packet;
            }
            for (;; ++index) {
                FramePtr frame = new_frame();
                auto t0 = std::chrono::steady_clock::now();
                const bool got = s.decoding.next(frame.get(), index);
                s.decoding_s += trace::seconds_since(t0);
                if (got && frame->hw_frames_ctx) {
                    t0 = std::chrono::steady_clock::now();
                    frame = copy_out(s, std::move(frame), index);
                    s.copying_s += trace::seconds_since(t0);
                }
                std::unique_lock lock(mutex_);
                if (s.decoding.errors != s.errors) {
                    if (s.errors == 0) {
                        s.error_segment = segment;
                        s.first_error = s.decoding.first_error;
                    }
                    s.errors = s.decoding.errors;
                }
                if (!got) {
                    s.out.push_back({nullptr});
                    if (segment == current_) frames_wake_.notify_one();
                    break;
                }
                wait(lock, s.wake, s.room_s, [&] { return s.out.size() < capacity_; });
                s.out.push_back({std::move(frame)});
                if (segment == current_) frames_wake_.notify_one();
            }
            s.decoding.restart();
        }
    }

    /// A frame of the GPU decoder's surfaces copied into the session's pool (made for the
    /// frame's size and surface format, again when they change), so that the decoder can reuse
    /// its surface.
    FramePtr copy_out(Session& s, FramePtr frame, unsigned index) {
        const auto* source = reinterpret_cast<const AVHWFramesContext*>(frame->hw_frames_ctx->data);
        const auto* pool = s.pool ? reinterpret_cast<const AVHWFramesContext*>(s.pool->data) : nullptr;
        if (!pool || pool->sw_format != source->sw_format || pool->width != frame->width ||
            pool->height != frame->height) {
            BufferPtr made(lib().av_hwframe_ctx_alloc(source->device_ref));
            if (!made) throw std::bad_alloc();
            auto* c = reinterpret_cast<AVHWFramesContext*>(made->data);
            c->format = source->format;
            c->sw_format = source->sw_format;
            c->width = frame->width;
            c->height = frame->height;
            if (const int r = lib().av_hwframe_ctx_init(made.get()); r < 0)
                fail(name_, frame_name(index) + ": cannot make GPU frames for the decoding sessions: " + av_problem(r));
            s.pool = std::move(made);
        }
        FramePtr copy = new_frame();
        int r = lib().av_hwframe_get_buffer(s.pool.get(), copy.get(), 0);
        if (r >= 0) r = lib().av_hwframe_transfer_data(copy.get(), frame.get(), 0);
        if (r >= 0) r = lib().av_frame_copy_props(copy.get(), frame.get());
        if (r < 0) fail(name_, frame_name(index) + ": cannot copy the decoded frame on the GPU: " + av_problem(r));
        return copy;
    }

    std::string name_;
    FormatPtr container_;
    int stream_;
    CutPoints cuts_;
    unsigned capacity_;
    mutable std::mutex mutex_;
    std::condition_variable frames_wake_;   ///< next(): a frame, a segment, the end or an error
    std::condition_variable demuxer_wake_;  ///< room for packets, or the stop
    double frames_waited_s_ = 0, demuxer_waited_s_ = 0;  ///< VMAFX_TIMINGS
    std::vector<Segment> segments_;
    std::vector<Session> sessions_;
    unsigned current_ = 0;    ///< the segment next() reads
    unsigned delivered_ = 0;  ///< its frames handed on so far
    bool demuxed_ = false, stop_ = false;
    std::exception_ptr error_;  ///< of the earliest segment that failed
    unsigned error_segment_ = 0;
    std::thread demuxer_;
};

/// Opens `d`'s decoder for `codec` and stream `st` with `threads` codec threads (0: one per
/// core), on the GPU of `gpu` where set (set_up_gpu_decoding). Returns why a video asked to
/// decode on the GPU cannot, or empty.
std::string open_decoder(Decoding& d, const AVCodec* codec, const AVStream* st, unsigned threads,
                         const GpuDecode& gpu) {
    d.decoder.reset(lib().avcodec_alloc_context3(codec));
    d.packet.reset(lib().av_packet_alloc());
    if (!d.decoder || !d.packet) throw std::bad_alloc();
    AVCodecContext* decoder = d.decoder.get();
    if (const int r = lib().avcodec_parameters_to_context(decoder, st->codecpar); r < 0)
        fail(d.name, "cannot set up the " + std::string(codec->name) + " decoder: " + av_problem(r));
    decoder->pkt_timebase = st->time_base;
    decoder->thread_count = static_cast<int>(std::min(threads, 64u));  // 0: libavcodec picks (the cores)
    decoder->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    std::string gpu_note;
    if (gpu.device) gpu_note = set_up_gpu_decoding(d, codec, gpu);
    if (const int r = lib().avcodec_open2(decoder, codec, nullptr); r < 0)
        fail(d.name, "cannot open the " + std::string(codec->name) + " decoder: " + av_problem(r));
    return gpu_note;
}

/// Opens the container of regular file `path` as libavformat reads a named file: the "file:"
/// protocol only (a name with a colon, "2024-01-01T12:00.mp4", is not taken for another
/// protocol, and a playlist inside it, HLS or concat, may open files only). Null with `r` set
/// when it cannot.
FormatPtr open_file_container(const std::string& path, int& r) {
    AVFormatContext* raw = nullptr;  // on failure avformat_open_input frees what it made
    AVDictionary* options = nullptr;
    lib().av_dict_set(&options, "protocol_whitelist", "file", 0);
    r = lib().avformat_open_input(&raw, ("file:" + path).c_str(), nullptr, &options);
    lib().av_dict_free(&options);
    return FormatPtr(r < 0 ? nullptr : raw);
}

/// Budgets of the frames each decoding session holds ahead (SegmentedDecoding's capacity): in
/// GPU memory, and in host memory when it decodes on the CPU. The sessions decode at once only
/// while each can hold its whole segment (a GOP: 60 frames of 3840x2160 8-bit are 750 MB).
constexpr std::uint64_t kSessionsGpuBytes = 1ull << 30, kSessionsHostBytes = 256ull << 20;

/// Decoding sessions for regular file `input.path` (AvInput::sessions above 1), each decoding
/// as `d` does (its stream of `st`, `codec`; on the GPU of `input.gpu` when `on_gpu`, else on
/// the CPU with input.threads shared among them); frames of `frame_bytes`. Null where one
/// session decodes it, `notices` then saying why (a codec other than H.264 and HEVC, a container
/// that opens differently the second time, a session whose decoder cannot open as the first).
std::unique_ptr<SegmentedDecoding> open_sessions(const AvInput& input, const Decoding& d, const AVCodec* codec,
                                                 const AVStream* st, bool on_gpu, std::uint64_t frame_bytes,
                                                 std::vector<std::string>& notices) {
    const auto one = [&](const std::string& why) {
        notices.push_back(d.name + ": decoded by one session, not " + std::to_string(input.sessions) + ": " + why);
        return nullptr;
    };
    CutPoints cuts(st->codecpar->codec_id, st->codecpar->extradata, st->codecpar->extradata_size);
    if (!cuts.splits())
        return one("--decode-sessions cuts H.264 and HEVC streams only, at their IDR pictures (this one is " +
                   std::string(codec->name) + ")");
    int r = 0;
    FormatPtr container = open_file_container(input.path, r);
    if (container) r = lib().avformat_find_stream_info(container.get(), nullptr);
    if (r < 0) return one("it cannot be opened a second time: " + av_problem(r));
    if (static_cast<int>(container->nb_streams) <= d.stream ||
        container->streams[d.stream]->codecpar->codec_id != st->codecpar->codec_id)
        return one("its streams differ when it is opened a second time");
    for (unsigned i = 0; i < container->nb_streams; ++i)
        if (static_cast<int>(i) != d.stream) container->streams[i]->discard = AVDISCARD_ALL;
    const unsigned cores = input.threads ? input.threads : std::max(1u, std::thread::hardware_concurrency());
    std::vector<Decoding> sessions(input.sessions);
    for (Decoding& session : sessions) {
        session.name = d.name;
        session.stream = d.stream;
        std::string why;
        try {
            why = open_decoder(session, codec, st, std::max(1u, cores / input.sessions),
                               on_gpu ? input.gpu : GpuDecode{});
        } catch (const Error& e) {
            why = e.what();
        }
        if (!why.empty()) return one("a decoding session cannot open: " + why);
    }
    const std::uint64_t budget = on_gpu ? kSessionsGpuBytes : kSessionsHostBytes;
    const auto capacity = static_cast<unsigned>(std::clamp<std::uint64_t>(budget / frame_bytes, 4, 256));
    return std::make_unique<SegmentedDecoding>(d.name, std::move(container), d.stream, std::move(cuts),
                                               std::move(sessions), capacity);
}

/// A decoded video (see open_av_video).
class AvReader final : public VideoReader {
public:
    /// `gpu_shape`: the surfaces of a video decoded on the GPU of backend `gpu_backend` (libav's
    /// software format of them `gpu_sw_format`), else std::nullopt. `decoder_note`: why a video asked to decode on the GPU does not.
    AvReader(Decoding decoding, std::string identity, FramePtr first, const Layout& layout,
             std::optional<unsigned> expected, std::vector<std::string> notices,
             std::optional<DeviceSurface> gpu_shape = std::nullopt, int gpu_sw_format = AV_PIX_FMT_NONE,
             std::string gpu_backend = {}, std::string decoder_note = {},
             std::unique_ptr<SegmentedDecoding> segments = nullptr)
        : VideoReader(decoding.name, layout.format, std::move(identity)),
          gpu_shape_(std::move(gpu_shape)),
          gpu_sw_format_(gpu_sw_format),
          gpu_backend_(std::move(gpu_backend)),
          decoder_note_(std::move(decoder_note)),
          decoding_(std::move(decoding)),
          segments_(std::move(segments)),
          frame_(std::move(first)),
          have_frame_(!segments_),
          layout_(layout),
          layout_format_(frame_->format),
          expected_(expected),
          notices_(std::move(notices)) {
        // Decoded by sessions (segments_): the first frame comes again from the first one.
        if (segments_) lib().av_frame_unref(frame_.get());
    }

    bool read(Picture& pic, PlaneSet which) override {
        if (!next_frame()) return false;
        const AVFrame* f = frame_.get();
        check_frame(f);
        if (gpu_shape_) {
            // Decoded on the GPU: downloaded (the surface's own format) and unpacked here.
            if (!download_) download_ = new_frame();
            if (const int r = lib().av_hwframe_transfer_data(download_.get(), f, 0); r < 0)
                fail(path(), frame_name(next_) + ": cannot copy the decoded frame from the GPU: " + av_problem(r));
            unpack_surface_host(surface_of(*gpu_shape_, download_.get()), format(), pic, which);
            lib().av_frame_unref(download_.get());
        } else {
            if (f->format != layout_format_) {
                layout_ = layout_of(static_cast<AVPixelFormat>(f->format));
                layout_format_ = f->format;
            }
            if (layout_.direct && layout_.format.bit_depth == format().bit_depth &&
                layout_.format.subsampling == format().subsampling) {
                // The decoder's own samples (yuvj* too: the same samples, no range conversion).
                shape(pic, format());
                const std::uint8_t* planes[3] = {f->data[0], f->data[1], f->data[2]};
                copy_into_picture(planes, f->linesize, pic, which, layout_.big_endian != kBigEndian);
            } else {
                try {
                    converter_.convert(f, format(), pic, which);
                } catch (const Error& e) {
                    fail(path(), frame_name(next_) + ": " + e.what());
                }
            }
        }
        note_timestamp();
        lib().av_frame_unref(frame_.get());
        ++next_;
        return true;
    }

    bool read_surface(DeviceSurface& surface) override {
        if (!gpu_shape_) return VideoReader::read_surface(surface);
        if (!next_frame()) return false;
        const AVFrame* f = frame_.get();
        check_frame(f);
        AVFrame* held = lib().av_frame_clone(f);
        if (!held) throw std::bad_alloc();
        surface = surface_of(*gpu_shape_, held);
        surface.hold = std::shared_ptr<void>(held, [](void* p) {
            AVFrame* frame = static_cast<AVFrame*>(p);
            lib().av_frame_free(&frame);
        });
        note_timestamp();
        lib().av_frame_unref(frame_.get());
        ++next_;
        return true;
    }

    std::string decoder() const override { return gpu_shape_ ? gpu_backend_ : "cpu"; }
    bool has_surfaces() const override { return gpu_shape_.has_value(); }
    void set_decoder_note(std::string note) { decoder_note_ = std::move(note); }
    std::string decoder_note() const override { return decoder_note_; }
    Sessions decoding_sessions() const override {
        return segments_ ? Sessions{segments_->sessions(), segments_->segments()} : Sessions{};
    }

    void skip(unsigned n) override {
        for (unsigned i = 0; i < n; ++i) {
            if (!next_frame())
                fail(path(), "cannot skip " + std::to_string(n) + " frames from " + frame_name(next_ - i) +
                                 ": the video has " + std::to_string(next_) + " frames");
            note_timestamp();
            lib().av_frame_unref(frame_.get());
            ++next_;
        }
    }

    std::optional<FrameCount> frame_count() const override { return std::nullopt; }
    std::optional<unsigned> expected_frames() const override { return expected_; }
    std::vector<std::string> notices() const override { return notices_; }
    std::vector<std::string> reading_warnings() const override {
        std::string w = segments_ ? segments_->skipped_warning() : decoding_.skipped_warning();
        if (w.empty()) return {};
        return {std::move(w)};
    }
    std::optional<double> timestamp() const override { return timestamp_; }
    std::optional<double> frame_interval() const override {
        const AVStream* st = decoding_.container->streams[decoding_.stream];
        AVRational rate = st->avg_frame_rate;
        if (rate.num <= 0 || rate.den <= 0) rate = st->r_frame_rate;
        if (rate.num <= 0 || rate.den <= 0) return std::nullopt;
        return av_q2d(av_inv_q(rate));
    }

private:
    /// Throws for frame next_, `f`, when its size is not the video's, or when the video decodes
    /// on the GPU and `f` was decoded on the CPU (the decoder gave its hardware acceleration up).
    void check_frame(const AVFrame* f) const {
        if (f->width != format().width || f->height != format().height)
            fail(path(), frame_name(next_) + " is " + std::to_string(f->width) + "x" + std::to_string(f->height) +
                             " but the video starts at " + std::to_string(format().width) + "x" +
                             std::to_string(format().height) + " (vmafx scores videos of one size)");
        if (!gpu_shape_) return;
        if (!f->hw_frames_ctx)
            fail(path(), frame_name(next_) + " was decoded on the CPU although the frames before it were decoded on the "
                                             "GPU (the hardware decoder gave the stream up: " +
                             decoding_.gpu->refused + "); decode it on the CPU (--decode cpu)");
        const auto* frames = reinterpret_cast<const AVHWFramesContext*>(f->hw_frames_ctx->data);
        if (frames->sw_format != gpu_sw_format_)
            fail(path(), frame_name(next_) + " was decoded on the GPU into " + pix_fmt_name(frames->sw_format) +
                             " surfaces, the frames before it into " +
                             pix_fmt_name(static_cast<AVPixelFormat>(gpu_sw_format_)) +
                             " (vmafx scores videos of one format); decode it on the CPU (--decode cpu)");
    }

    /// Sets timestamp_ from frame_: its best-effort timestamp less the stream's start time (the
    /// first frame's when the stream states none); a frame without one is one interval after
    /// the previous frame, or at 0 when it is the first (a raw H.264 or HEVC stream has no
    /// timestamps at all: its frames are then spaced by its frame rate, as the ffmpeg program
    /// spaces them).
    void note_timestamp() {
        const AVStream* st = decoding_.container->streams[decoding_.stream];
        const std::int64_t ts = frame_->best_effort_timestamp;
        if (ts == AV_NOPTS_VALUE) {
            timestamp_ = timestamp_ ? *timestamp_ + frame_interval().value_or(0.0) : 0.0;
            return;
        }
        if (!start_) start_ = st->start_time != AV_NOPTS_VALUE ? st->start_time : ts;
        timestamp_ = static_cast<double>(ts - *start_) * av_q2d(st->time_base);
    }

    /// Makes frame_ the next decoded frame (frame next_); false at the end.
    bool next_frame() {
        if (have_frame_) {
            have_frame_ = false;
            return true;
        }
        return segments_ ? segments_->next(frame_.get()) : decoding_.next(frame_.get(), next_);
    }

    std::optional<DeviceSurface> gpu_shape_;  ///< decoded on the GPU: its surfaces' shape
    int gpu_sw_format_;                        ///< their libav format
    std::string gpu_backend_;
    std::string decoder_note_;
    FramePtr download_;  ///< a GPU frame copied to the host (read())
    Decoding decoding_;  ///< with segments_, the container only (for the stream's timestamps)
    std::unique_ptr<SegmentedDecoding> segments_;  ///< decoding sessions, or null: decoding_ decodes
    FramePtr frame_;
    bool have_frame_;  ///< frame_ holds frame next_, decoded but not yet read
    Layout layout_;           ///< of pixel format layout_format_
    int layout_format_ = -1;
    std::optional<unsigned> expected_;
    std::vector<std::string> notices_;
    Converter converter_;
    unsigned next_ = 0;
    std::optional<std::int64_t> start_;  ///< the stream's start, in its time base
    std::optional<double> timestamp_;    ///< of the frame last read or skipped (timestamp())
};

/// Frames the container expects of stream `st`: its frame count, else its duration (or the
/// container's) times its frame rate.
std::optional<unsigned> expected_of(const AVFormatContext* c, const AVStream* st) {
    if (st->nb_frames > 0 && st->nb_frames <= std::numeric_limits<unsigned>::max())
        return static_cast<unsigned>(st->nb_frames);
    AVRational rate = st->avg_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) rate = st->r_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) return std::nullopt;
    double seconds = -1;
    if (st->duration != AV_NOPTS_VALUE && st->duration > 0)
        seconds = static_cast<double>(st->duration) * av_q2d(st->time_base);
    else if (c->duration != AV_NOPTS_VALUE && c->duration > 0)
        seconds = static_cast<double>(c->duration) / AV_TIME_BASE;
    if (seconds <= 0) return std::nullopt;
    const double frames = std::round(seconds * av_q2d(rate));
    if (!(frames >= 1 && frames <= std::numeric_limits<unsigned>::max())) return std::nullopt;
    return static_cast<unsigned>(frames);
}

/// The media types of `c`'s streams, for the message of a file without video ("audio, subtitle").
std::string stream_types(const AVFormatContext* c) {
    std::string out;
    for (unsigned i = 0; i < c->nb_streams; ++i) {
        const char* t = lib().av_get_media_type_string(c->streams[i]->codecpar->codec_type);
        const std::string type = t ? t : "unknown";
        if (out.find(type) == std::string::npos) out += (out.empty() ? "" : ", ") + type;
    }
    return out;
}

/// The error of data that libavformat does not take for a video: it may be raw YUV.
[[noreturn]] void not_a_video(const std::string& name, const std::string& why) {
    fail(name, "FFmpeg's libraries do not read it as a video (" + why + "); if it is raw YUV, give -w, -h, -p and -b");
}

/// Demuxers that take any bytes for text art (by the file's extension alone): random data named
/// .bin would otherwise become a "video" of garbage.
constexpr std::array<std::string_view, 5> kAnyBytesDemuxers = {"bin", "xbin", "adf", "idf", "tty"};

// ---------------------------------------------------------------------------------------------
// --scale-dist.

class ScaledReader final : public VideoReader {
public:
    ScaledReader(std::unique_ptr<VideoReader> inner, const VideoFormat& format, int flags)
        : VideoReader(inner->path(), format, inner->stream_identity()),
          inner_(std::move(inner)),
          av_in_(av_format_of(inner_->format())),
          av_out_(av_format_of(format)),
          scaler_(make_scaler(inner_->format().width, inner_->format().height, av_in_, format.width, format.height,
                              av_out_, flags, -1)),
          in_(frame_with_buffer(av_in_, inner_->format().width, inner_->format().height)),
          out_(frame_with_buffer(av_out_, format.width, format.height)) {}

    bool read(Picture& pic, PlaneSet which) override {
        if (!inner_->read(source_, PlaneSet::kAll)) return false;
        const int bps = source_.format.bytes_per_sample();
        for (int p = 0; p < 3; ++p) {
            const Plane& plane = source_.planes[p];
            for (int y = 0; y < plane.height(); ++y)
                std::memcpy(in_->data[p] + static_cast<std::ptrdiff_t>(y) * in_->linesize[p], plane.row<std::uint8_t>(y),
                            static_cast<std::size_t>(plane.width()) * bps);
        }
        if (const int r = lib().sws_scale_frame(scaler_.get(), out_.get(), in_.get()); r < 0)
            fail(path(), "frame " + std::to_string(scaled_) + ": libswscale failed: " + av_error(r));
        shape(pic, format());
        const std::uint8_t* planes[3] = {out_->data[0], out_->data[1], out_->data[2]};
        copy_into_picture(planes, out_->linesize, pic, which, false);
        ++scaled_;
        return true;
    }
    void skip(unsigned n) override { inner_->skip(n); }
    std::optional<FrameCount> frame_count() const override { return inner_->frame_count(); }
    std::optional<unsigned> expected_frames() const override { return inner_->expected_frames(); }
    std::vector<std::string> notices() const override { return inner_->notices(); }
    std::vector<std::string> reading_warnings() const override { return inner_->reading_warnings(); }
    std::optional<double> timestamp() const override { return inner_->timestamp(); }
    std::optional<double> frame_interval() const override { return inner_->frame_interval(); }
    // Where the frames were decoded; scaled on the host, so never surfaces (has_surfaces()).
    std::string decoder() const override { return inner_->decoder(); }
    std::string decoder_note() const override { return inner_->decoder_note(); }
    Sessions decoding_sessions() const override { return inner_->decoding_sessions(); }

private:
    std::unique_ptr<VideoReader> inner_;
    AVPixelFormat av_in_, av_out_;
    SwsPtr scaler_;
    FramePtr in_, out_;
    Picture source_;
    unsigned scaled_ = 0;
};

}  // namespace

std::string libav_versions() {
    const auto v = [](const char* name, unsigned version) {
        return std::string(name) + " " + std::to_string(AV_VERSION_MAJOR(version)) + "." +
               std::to_string(AV_VERSION_MINOR(version)) + "." + std::to_string(AV_VERSION_MICRO(version));
    };
    return v("libavformat", lib().avformat_version()) + ", " + v("libavcodec", lib().avcodec_version()) + ", " +
           v("libswscale", lib().swscale_version());
}

bool is_certain_container(const std::uint8_t* head, std::size_t size, std::string_view name,
                          const std::string& display_name) {
    if (size == 0) return false;
    load_for(display_name);
    install_log_callback();
    std::vector<std::uint8_t> padded(head, head + size);
    padded.resize(size + AVPROBE_PADDING_SIZE, 0);
    AVProbeData probe{};
    probe.filename = "";
    probe.buf = padded.data();
    probe.buf_size = static_cast<int>(std::min<std::size_t>(size, 1 << 20));
    int score = 0;
    const AVInputFormat* f = lib().av_probe_input_format3(&probe, 1, &score);
    if (!f || score < AVPROBE_SCORE_MAX) return false;
    if (std::string_view(f->name) == "mpegts") {
        const auto ends_with = [name](std::string_view suffix) {
            return name.size() >= suffix.size() &&
                   std::equal(suffix.rbegin(), suffix.rend(), name.rbegin(),
                              [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
        };
        return ends_with(".ts") || ends_with(".m2ts") || ends_with(".mts") || ends_with(".m2t");
    }
    return std::find(kSignedContainers.begin(), kSignedContainers.end(), std::string_view(f->name)) !=
           kSignedContainers.end();
}

std::unique_ptr<VideoReader> open_av_video(AvInput input) {
    // A regular file asked to decode on the GPU reopens on the CPU when the GPU's surfaces are
    // not ones vmafx unpacks: the input as given, for that.
    std::optional<AvInput> again;
    if (input.gpu.device && !input.read) again = input;
    load_for(input.name);
    install_log_callback();
    clear_log_line();
    Decoding d;  // owns everything from here on, also when a check below throws
    d.name = input.name;
    const std::string& name = d.name;
    int opened = 0;
    if (input.read) {
        // A stream: read in order through an I/O context of ours (no seeking).
        AVFormatContext* raw_container = lib().avformat_alloc_context();
        if (!raw_container) throw std::bad_alloc();
        d.source = std::make_unique<StreamSource>();
        d.source->read = std::move(input.read);
        auto* buffer = static_cast<unsigned char*>(lib().av_malloc(kAvioBuffer));
        if (buffer)
            d.avio.reset(lib().avio_alloc_context(buffer, kAvioBuffer, 0, d.source.get(), &StreamSource::read_packet,
                                            nullptr, nullptr));
        if (!d.avio) {
            lib().av_free(buffer);
            lib().avformat_free_context(raw_container);
            throw std::bad_alloc();
        }
        raw_container->pb = d.avio.get();
        raw_container->flags |= AVFMT_FLAG_CUSTOM_IO;
        // On failure avformat_open_input frees the context (not a custom AVIOContext).
        opened = lib().avformat_open_input(&raw_container, "", nullptr, nullptr);
        if (opened >= 0) d.container.reset(raw_container);
    } else {
        d.container = open_file_container(input.path, opened);
    }
    if (opened < 0) {
        if (d.source && !d.source->error.empty()) fail(name, d.source->error);
        not_a_video(name, av_problem(opened));
    }
    AVFormatContext* container = d.container.get();
    const std::string demuxer = container->iformat->name;
    d.pipe_hint = d.source && demuxer.starts_with("mov");
    if (std::find(kAnyBytesDemuxers.begin(), kAnyBytesDemuxers.end(), demuxer) != kAnyBytesDemuxers.end())
        not_a_video(name, "only its name suggests the " + demuxer + " format of text art");
    if (const int r = lib().avformat_find_stream_info(container, nullptr); r < 0) {
        if (d.source && !d.source->error.empty()) fail(name, d.source->error);
        fail(name, std::string(container->iformat->long_name ? container->iformat->long_name : demuxer) +
                       ": cannot read its streams: " + av_problem(r));
    }
    const AVCodec* codec = nullptr;
    d.stream = ffmpeg_video_stream(container);
    if (d.stream >= 0) {
        codec = lib().avcodec_find_decoder(container->streams[d.stream]->codecpar->codec_id);
        if (!codec) d.stream = AVERROR_DECODER_NOT_FOUND;
    }
    if (d.stream == AVERROR_STREAM_NOT_FOUND)
        fail(name, "no video stream (a " + demuxer + " file with " +
                       (container->nb_streams ? "streams of " + stream_types(container) : std::string("no streams")) +
                       ")");
    AVStream* st = d.stream >= 0 ? container->streams[d.stream] : nullptr;
    if (d.stream == AVERROR_DECODER_NOT_FOUND || (st && !codec)) {
        // av_find_best_stream names no stream then: the first video stream's codec.
        std::string codec_name = "its codec";
        for (unsigned i = 0; i < container->nb_streams; ++i)
            if (container->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) {
                codec_name = lib().avcodec_get_name(container->streams[i]->codecpar->codec_id);
                break;
            }
        fail(name, "FFmpeg's libavcodec has no decoder for " + codec_name);
    }
    if (d.stream < 0) fail(name, "cannot find a video stream: " + av_problem(d.stream));
    for (unsigned i = 0; i < container->nb_streams; ++i)
        if (static_cast<int>(i) != d.stream) container->streams[i]->discard = AVDISCARD_ALL;

    // Why a video asked to decode on the GPU does not.
    std::string gpu_note = open_decoder(d, codec, st, input.threads, input.gpu);
    AVCodecContext* decoder = d.decoder.get();

    // The first frame gives the format: decoded now, kept for the first read().
    FramePtr first = new_frame();
    if (!d.next(first.get(), 0)) {
        // Why: the GPU's refusal (FFmpeg 5.1's AV1 decoder has no software path to fall back to)
        // and the decoder's first error.
        std::string why;
        if (d.gpu) {
            std::lock_guard lock(d.gpu->mutex);
            if (!d.gpu->refused.empty()) why = "; the GPU's decoder refused it: " + d.gpu->refused;
        }
        if (d.errors) why += "; the first error: " + d.first_error;
        fail(name, "the " + std::string(codec->name) + " video stream has no frame that decodes" + why);
    }
    std::optional<DeviceSurface> gpu_shape;
    AVPixelFormat gpu_sw_format = AV_PIX_FMT_NONE;
    // A regular file that cannot stay on the GPU opens again on the CPU, with the CPU's threads.
    const auto reopen_on_cpu = [&](const std::string& why) {
        again->gpu = {};
        auto reader = open_av_video(std::move(*again));
        static_cast<AvReader&>(*reader).set_decoder_note(cpu_decoding_note(name, why));
        return reader;
    };
    if (d.gpu && first->hw_frames_ctx) {
        // Decoded on the GPU: the video's format is the stream's software format (the one the
        // CPU decoder gives), its frames surfaces of the frames context's format.
        const auto* frames = reinterpret_cast<const AVHWFramesContext*>(first->hw_frames_ctx->data);
        gpu_sw_format = frames->sw_format;
        const Layout software = layout_of(decoder->sw_pix_fmt);
        VideoFormat stream = software.format;
        stream.width = first->width;
        stream.height = first->height;
        if (software.direct) gpu_shape = surface_shape(frames->sw_format, stream);
        // An odd coded height: FFmpeg 5.1 places a mapped frame's chroma after that many rows
        // (libavcodec/nvdec.c, nvdec_retrieve_data), NVDEC's surface after an even number.
        if (gpu_shape && decoder->coded_height % 2) gpu_shape.reset();
        if (!gpu_shape) {
            const std::string why = "the GPU decodes it into " + pix_fmt_name(frames->sw_format) + " surfaces for a " +
                                    pix_fmt_name(decoder->sw_pix_fmt) + " stream " +
                                    std::to_string(decoder->coded_width) + "x" +
                                    std::to_string(decoder->coded_height) + ", which vmafx does not unpack";
            if (!again) fail(name, why + " (decode it on the CPU: --decode cpu)");
            return reopen_on_cpu(why);
        }
    } else if (d.gpu) {
        {
            std::lock_guard lock(d.gpu->mutex);
            gpu_note = d.gpu->refused.empty() ? "the decoder gave no hardware frame" : d.gpu->refused;
        }
        // Set up for one thread: a regular file decodes again with the CPU's threads.
        if (again) return reopen_on_cpu(gpu_note);
    }
    if (!gpu_note.empty()) gpu_note = cpu_decoding_note(name, gpu_note);
    const AVPixelFormat fmt =
        gpu_shape ? decoder->sw_pix_fmt : static_cast<AVPixelFormat>(first->format);
    Layout layout = layout_of(fmt);
    layout.format.width = first->width;
    layout.format.height = first->height;
    validate_video_format(layout.format, name);
    std::vector<std::string> notices;
    if (!layout.direct) {
        if (av_format_of(layout.format) == AV_PIX_FMT_NONE)
            fail(name, "no libswscale format to convert " + pix_fmt_name(fmt) + " to");
        notices.push_back(name + ": decoded as " + pix_fmt_name(fmt) + ", which vmafx does not score: converted to " +
                          pix_fmt_name(av_format_of(layout.format)) + " with libswscale");
    }
    const std::optional<unsigned> expected = expected_of(container, st);
    std::unique_ptr<SegmentedDecoding> segments;
    if (input.sessions > 1 && d.source) {
        notices.push_back(name + ": decoded by one session, not " + std::to_string(input.sessions) +
                          ": a stream is read once, in order (--decode-sessions cuts regular files)");
    } else if (input.sessions > 1) {
        segments = open_sessions(input, d, codec, st, gpu_shape.has_value(), layout.format.frame_bytes(), notices);
        if (segments) d.decoder.reset();  // the sessions decode from the first frame on
    }
    return std::make_unique<AvReader>(std::move(d), input.stream_identity, std::move(first), layout, expected,
                                      std::move(notices), std::move(gpu_shape), gpu_sw_format, input.gpu.backend,
                                      std::move(gpu_note), std::move(segments));
}

std::shared_ptr<void> open_gpu_decoding_device(const std::string& device_type, std::string& why) {
    load_for("--decode");
    install_log_callback();
    const AVHWDeviceType type = lib().av_hwdevice_find_type_by_name(device_type.c_str());
    if (type == AV_HWDEVICE_TYPE_NONE) {
        why = "FFmpeg's libraries have no " + device_type + " devices";
        return nullptr;
    }
    // CUDA: the device's primary context, the one vmafx's CUDA backend runs in, so that the
    // decoders' frames are device memory its kernels read.
    AVDictionary* options = nullptr;
    lib().av_dict_set(&options, "primary_ctx", "1", 0);
    AVBufferRef* device = nullptr;
    clear_log_line();
    const int r = lib().av_hwdevice_ctx_create(&device, type, nullptr, options, 0);
    lib().av_dict_free(&options);
    if (r < 0) {
        why = "cannot open the " + device_type + " device: " + av_problem(r);
        return nullptr;
    }
    return std::shared_ptr<AVBufferRef>(device, BufferUnref{});
}

void check_scale_flags(const std::string& flags) {
    load_for("--scale-dist");
    parse_sws_flags(flags);
}

std::unique_ptr<VideoReader> scale_video(std::unique_ptr<VideoReader> inner, int width, int height,
                                         const std::string& flags) {
    load_for("--scale-dist");
    const int sws_flags = parse_sws_flags(flags);
    VideoFormat format = inner->format();
    if (format.width == width && format.height == height) return inner;
    format.width = width;
    format.height = height;
    validate_video_format(format, inner->path());
    if (av_format_of(format) == AV_PIX_FMT_NONE)
        fail(inner->path(), "--scale-dist: libswscale has no " + std::to_string(format.bit_depth) + "-bit format");
    try {
        return std::make_unique<ScaledReader>(std::move(inner), format, sws_flags);
    } catch (const UsageError&) {
        throw;
    } catch (const Error& e) {
        throw Error(std::string("--scale-dist: ") + e.what());
    }
}

}  // namespace vmafx
