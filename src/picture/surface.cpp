#include "picture/surface.hpp"

#include <cstring>
#include <string>

#include "base/error.hpp"

namespace vmafx {

void unpack_surface_host(const DeviceSurface& surface, const VideoFormat& format, Picture& pic, PlaneSet which) {
    const bool semi = surface.layout == DeviceSurface::Layout::kSemiPlanar;
    if ((semi && format.subsampling != Subsampling::k420) || (!semi && format.subsampling != Subsampling::k444) ||
        (surface.word_bytes != 1 && surface.word_bytes != 2) || (surface.word_bytes == 1 && format.bit_depth != 8) ||
        (surface.word_bytes == 2 && format.bit_depth == 8) || surface.shift < 0 || surface.shift > 8)
        throw Error("internal: a decoder surface (" + std::string(semi ? "semi-planar" : "planar") + ", " +
                    std::to_string(surface.word_bytes) + "-byte words, shift " + std::to_string(surface.shift) +
                    ") cannot hold " + std::to_string(format.bit_depth) + "-bit " + subsampling_name(format.subsampling));
    if (pic.format != format || pic.planes[0].width() != format.width || pic.planes[0].height() != format.height)
        pic = Picture(format);
    for (int p = 0; p < (which == PlaneSet::kAll ? 3 : 1); ++p) {
        Plane& plane = pic.planes[p];
        for (int y = 0; y < plane.height(); ++y) {
            for (int x = 0; x < plane.width(); ++x) {
                const SurfaceIndex at = surface_index(semi, p, x, y, surface.pitch[semi && p > 0 ? 1 : p], surface.word_bytes);
                const auto* base = static_cast<const std::uint8_t*>(surface.planes[at.plane]) + at.offset;
                if (surface.word_bytes == 1) {
                    plane.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(surface_sample(*base, surface.shift));
                } else {
                    std::uint16_t word;
                    std::memcpy(&word, base, 2);
                    plane.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(surface_sample(word, surface.shift));
                }
            }
        }
    }
}

}  // namespace vmafx
