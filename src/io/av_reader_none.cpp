// av_reader.hpp without FFmpeg's libraries: a build configured with VMAFX_LIBAV=OFF or where they
// are not found, and the C API library (libvmaf.so), which reads no files. Every function says
// the libraries are absent.
#include "base/error.hpp"
#include "io/av_reader.hpp"

namespace vmafx {

namespace {
constexpr const char* kAbsent = "this vmafx was built without FFmpeg's libraries";
}

std::string libav_versions() { return {}; }

bool is_certain_container(const std::uint8_t*, std::size_t, std::string_view, const std::string&) { return false; }

std::unique_ptr<VideoReader> open_av_video(AvInput input) {
    throw Error(input.name + ": raw YUV needs -w, -h, -p and -b (" + kAbsent + ": it reads .y4m and raw YUV only)");
}

std::shared_ptr<void> open_gpu_decoding_device(const std::string&, std::string& why) {
    why = kAbsent;
    return nullptr;
}

void check_scale_flags(const std::string&) { throw UsageError(std::string("--scale-dist: ") + kAbsent); }

std::unique_ptr<VideoReader> scale_video(std::unique_ptr<VideoReader>, int, int, const std::string&) {
    throw UsageError(std::string("--scale-dist: ") + kAbsent);
}

}  // namespace vmafx
