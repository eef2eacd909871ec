// FFmpeg's libraries as the decoding reader uses them (src/io/av_reader.cpp): opened when a run
// first needs them, by the SONAMEs of the headers vmafx was built with (io/shared_library.hpp
// says why), each function from the library that defines it; libav's errors and log lines as
// messages; owners of libav's objects. Internal to src/io/av_*.cpp (built only where FFmpeg's
// libraries are found: CMake's VMAFX_AV_SOURCE_WITH).
#pragma once

#include <memory>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace vmafx::av {

/// Every libav function the reader calls, with the library that defines it.
#define VMAFX_LIBAV_FUNCTIONS(X) \
    X(avutil, av_buffer_ref) \
    X(avutil, av_buffer_unref) \
    X(avutil, av_dict_free) \
    X(avutil, av_frame_clone) \
    X(avutil, av_hwdevice_ctx_create) \
    X(avutil, av_hwdevice_find_type_by_name) \
    X(avutil, av_hwframe_transfer_data) \
    X(avutil, av_hwframe_ctx_alloc) \
    X(avutil, av_hwframe_ctx_init) \
    X(avutil, av_hwframe_get_buffer) \
    X(avutil, av_frame_copy_props) \
    X(avutil, av_frame_move_ref) \
    X(avutil, av_dict_set) \
    X(avutil, av_frame_alloc) \
    X(avutil, av_frame_free) \
    X(avutil, av_frame_get_buffer) \
    X(avutil, av_frame_unref) \
    X(avutil, av_free) \
    X(avutil, av_freep) \
    X(avutil, av_get_media_type_string) \
    X(avutil, av_get_pix_fmt) \
    X(avutil, av_get_pix_fmt_name) \
    X(avutil, av_log_format_line2) \
    X(avutil, av_log_set_callback) \
    X(avutil, av_malloc) \
    X(avutil, av_opt_eval_flags) \
    X(avutil, av_opt_find) \
    X(avutil, av_opt_set_double) \
    X(avutil, av_opt_set_int) \
    X(avutil, av_pix_fmt_desc_get) \
    X(avutil, av_strerror) \
    X(swscale, sws_alloc_context) \
    X(swscale, sws_freeContext) \
    X(swscale, sws_get_class) \
    X(swscale, sws_init_context) \
    X(swscale, sws_scale_frame) \
    X(swscale, swscale_version) \
    X(avcodec, av_packet_alloc) \
    X(avcodec, av_packet_free) \
    X(avcodec, av_packet_unref) \
    X(avcodec, av_packet_move_ref) \
    X(avcodec, av_new_packet) \
    X(avcodec, av_packet_copy_props) \
    X(avcodec, av_packet_get_side_data) \
    X(avcodec, avcodec_flush_buffers) \
    X(avcodec, avcodec_alloc_context3) \
    X(avcodec, avcodec_default_get_format) \
    X(avcodec, avcodec_get_hw_config) \
    X(avcodec, avcodec_find_decoder) \
    X(avcodec, avcodec_free_context) \
    X(avcodec, avcodec_get_name) \
    X(avcodec, avcodec_open2) \
    X(avcodec, avcodec_parameters_to_context) \
    X(avcodec, avcodec_receive_frame) \
    X(avcodec, avcodec_send_packet) \
    X(avcodec, avcodec_version) \
    X(avformat, av_probe_input_format3) \
    X(avformat, av_read_frame) \
    X(avformat, avformat_alloc_context) \
    X(avformat, avformat_close_input) \
    X(avformat, avformat_find_stream_info) \
    X(avformat, avformat_free_context) \
    X(avformat, avformat_open_input) \
    X(avformat, avformat_version) \
    X(avformat, avio_alloc_context) \
    X(avformat, avio_context_free) \
    X(avformat, avio_feof)

/// The functions of VMAFX_LIBAV_FUNCTIONS, each with its own type.
struct LibAv {
#define VMAFX_LIBAV_POINTER(library, name) decltype(&::name) name = nullptr;
    VMAFX_LIBAV_FUNCTIONS(VMAFX_LIBAV_POINTER)
#undef VMAFX_LIBAV_POINTER
};

/// The libraries' functions, opened on the first call (thread-safe). Throws vmafx::Error
/// "FFmpeg's libraries cannot be loaded: <soname>: <reason> (...)" when one cannot be opened;
/// a later call tries again.
const LibAv& lib();

/// lib() for an entry point: a failure to load names `what` (the video, or --scale-dist).
void load_for(const std::string& what);

/// libav's message for an error code ("Invalid data found when processing input").
std::string av_error(int code);

/// Routes libav's log to av_problem (once per process): nothing is printed; the last
/// error-level line logged on a thread is kept.
void install_log_callback();

/// `code`'s message, with the last line libav logged on this thread when there is one
/// ("moov atom not found"); clears that line.
std::string av_problem(int code);

/// Marks this thread's log: first_line_since_mark() then gives the first error-level line libav
/// logged on this thread after the mark (libavcodec logs a hardware decoder's own reason first,
/// then its generic "Failed setup for format cuda").
void mark_log();
/// The first error-level line logged on this thread since mark_log(), or empty; ends the mark.
std::string first_line_since_mark();

/// Forgets the last line libav logged on this thread (before a call whose complaint is said
/// otherwise).
void clear_log_line();

// Owners of libav's objects.

struct FormatCloser {
    void operator()(AVFormatContext* c) const { lib().avformat_close_input(&c); }
};
struct CodecFreer {
    void operator()(AVCodecContext* c) const { lib().avcodec_free_context(&c); }
};
struct FrameFreer {
    void operator()(AVFrame* f) const { lib().av_frame_free(&f); }
};
struct PacketFreer {
    void operator()(AVPacket* p) const { lib().av_packet_free(&p); }
};
struct SwsFreer {
    void operator()(SwsContext* s) const { lib().sws_freeContext(s); }
};
struct AvioFreer {
    void operator()(AVIOContext* io) const {
        lib().av_freep(&io->buffer);
        lib().avio_context_free(&io);
    }
};
using FormatPtr = std::unique_ptr<AVFormatContext, FormatCloser>;
using CodecPtr = std::unique_ptr<AVCodecContext, CodecFreer>;
using FramePtr = std::unique_ptr<AVFrame, FrameFreer>;
using PacketPtr = std::unique_ptr<AVPacket, PacketFreer>;
using SwsPtr = std::unique_ptr<SwsContext, SwsFreer>;
using AvioPtr = std::unique_ptr<AVIOContext, AvioFreer>;
struct BufferUnref {
    void operator()(AVBufferRef* b) const { lib().av_buffer_unref(&b); }
};
using BufferPtr = std::unique_ptr<AVBufferRef, BufferUnref>;

/// A new AVFrame; throws std::bad_alloc when libav cannot allocate one.
FramePtr new_frame();

}  // namespace vmafx::av
