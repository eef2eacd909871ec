#include "picture/picture.hpp"

#include <new>
#include <string>

#include "base/error.hpp"

namespace vmafx {

const char* subsampling_name(Subsampling s) {
    switch (s) {
    case Subsampling::k420: return "420";
    case Subsampling::k422: return "422";
    case Subsampling::k444: return "444";
    }
    return "?";
}

bool parse_subsampling(const std::string& text, Subsampling& out) {
    if (text == "420") out = Subsampling::k420;
    else if (text == "422") out = Subsampling::k422;
    else if (text == "444") out = Subsampling::k444;
    else return false;
    return true;
}

int VideoFormat::plane_width(int p) const {
    if (p == 0 || subsampling == Subsampling::k444) return width;
    return (width + 1) / 2;
}

int VideoFormat::plane_height(int p) const {
    if (p == 0 || subsampling != Subsampling::k420) return height;
    return (height + 1) / 2;
}

std::size_t VideoFormat::frame_bytes() const {
    std::size_t samples = 0;
    for (int p = 0; p < 3; ++p)
        samples += static_cast<std::size_t>(plane_width(p)) * static_cast<std::size_t>(plane_height(p));
    return samples * static_cast<std::size_t>(bytes_per_sample());
}

Plane::Plane(int width, int height, int bytes_per_sample)
    : width_(width), height_(height), bytes_per_sample_(bytes_per_sample) {
    const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(width) * bytes_per_sample;
    stride_ = (row_bytes + 63) / 64 * 64;
    if (stride_ == 0) stride_ = 64;
    const std::size_t bytes = static_cast<std::size_t>(stride_) * static_cast<std::size_t>(height);
    try {
        data_.assign(bytes, 0);
    } catch (const std::bad_alloc&) {
        throw OutOfMemory(bytes, "a " + std::to_string(width) + "x" + std::to_string(height) + " plane of " +
                                     std::to_string(bytes_per_sample) + "-byte samples");
    }
}

Picture::Picture(const VideoFormat& f) : format(f) {
    for (int p = 0; p < 3; ++p)
        planes[p] = Plane(f.plane_width(p), f.plane_height(p), f.bytes_per_sample());
}

}  // namespace vmafx
