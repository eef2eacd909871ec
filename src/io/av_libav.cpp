// FFmpeg's libraries opened at run time, libav's errors and log (av_libav.hpp).
#include "io/av_libav.hpp"

#include <mutex>
#include <optional>
#include <new>
#include <utility>

#include "base/error.hpp"
#include "io/shared_library.hpp"

namespace vmafx::av {

namespace {

#define VMAFX_SONAME(library, major) "lib" #library ".so." AV_STRINGIFY(major)
/// The Debian packages that hold those libraries (a library's name and its major version).
#define VMAFX_PACKAGES                                                                             \
    "libavutil" AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR) ", libswscale" AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR) \
    ", libavcodec" AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR) " and libavformat" AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)

/// The four libraries, open, and their functions bound.
struct OpenLibAv {
    SharedLibrary avutil{VMAFX_SONAME(avutil, LIBAVUTIL_VERSION_MAJOR)};
    SharedLibrary swscale{VMAFX_SONAME(swscale, LIBSWSCALE_VERSION_MAJOR)};
    SharedLibrary avcodec{VMAFX_SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR)};
    SharedLibrary avformat{VMAFX_SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR)};
    LibAv functions;

    OpenLibAv() {
#define VMAFX_LIBAV_BIND(library, name) functions.name = reinterpret_cast<decltype(functions.name)>(library.symbol(#name));
        VMAFX_LIBAV_FUNCTIONS(VMAFX_LIBAV_BIND)
#undef VMAFX_LIBAV_BIND
    }
};

OpenLibAv open_libav() {
    try {
        return OpenLibAv();
    } catch (const Error& e) {
        throw Error(std::string("FFmpeg's libraries cannot be loaded: ") + e.what() +
                    " (compressed input and --scale-dist need them; Debian's packages " VMAFX_PACKAGES ")");
    }
}

}  // namespace

const LibAv& lib() {
    static const OpenLibAv open = open_libav();
    return open.functions;
}

void load_for(const std::string& what) {
    try {
        lib();
    } catch (const Error& e) {
        throw Error(what + ": " + e.what());
    }
}

std::string av_error(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    lib().av_strerror(code, text, sizeof text);
    return text;
}

// ---------------------------------------------------------------------------------------------
// libav's log: nothing is printed (vmafx reports errors itself); the last error-level line
// logged on a thread is kept, so that an error message can say what the demuxer or decoder
// complained of ("moov atom not found"). Frame threads' lines are lost: the error code remains.

namespace {

thread_local std::string last_log_line;
/// mark_log()'s state: engaged since the mark, holding the first error line after it (or empty).
thread_local std::optional<std::string> first_since_mark;

void log_callback(void* avcl, int level, const char* fmt, va_list args) {
    if (level > AV_LOG_ERROR) return;
    char line[512];
    int print_prefix = 0;  // libav's prefix holds an address: the component's name instead
    lib().av_log_format_line2(avcl, level, fmt, args, line, sizeof line, &print_prefix);
    std::string text(line);
    const AVClass* cls = avcl ? *static_cast<AVClass* const*>(avcl) : nullptr;
    if (cls && cls->item_name) text = std::string(cls->item_name(avcl)) + ": " + text;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
    if (text.empty()) return;
    if (first_since_mark && first_since_mark->empty()) *first_since_mark = text;
    last_log_line = std::move(text);
}

}  // namespace

void install_log_callback() {
    static std::once_flag once;
    std::call_once(once, [] { lib().av_log_set_callback(log_callback); });
}

std::string av_problem(int code) {
    std::string text = av_error(code);
    if (!last_log_line.empty()) text += " (" + last_log_line + ")";
    last_log_line.clear();
    return text;
}

FramePtr new_frame() {
    FramePtr f(lib().av_frame_alloc());
    if (!f) throw std::bad_alloc();
    return f;
}

void clear_log_line() { last_log_line.clear(); }

void mark_log() { first_since_mark.emplace(); }

std::string first_line_since_mark() {
    std::string line = first_since_mark.value_or("");
    first_since_mark.reset();
    return line;
}

}  // namespace vmafx::av
