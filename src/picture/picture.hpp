// Planar YUV pictures: the unit every reader produces and every metric consumes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vmafx {

/// Chroma subsampling of a planar YUV picture (ITU-R BT.601 naming: 4:2:0, 4:2:2, 4:4:4).
enum class Subsampling { k420, k422, k444 };

/// Which planes of a picture a reader fills or a metric reads: all three (Y, Cb, Cr), or
/// luma (Y) only, so that readers can skip the chroma bytes of luma-only runs.
enum class PlaneSet { kAll, kLuma };

/// "420", "422" or "444".
const char* subsampling_name(Subsampling s);

/// Parses "420", "422" or "444" (as upstream's `-p` flag takes them).
/// Returns false for anything else.
bool parse_subsampling(const std::string& text, Subsampling& out);

/// Geometry and sample format of a video: luma width and height in samples, bit depth
/// (8 to 16 bits per sample; samples above 8 bits are stored in 16-bit words, little-endian
/// in files) and chroma subsampling. Chroma planes of 4:2:0 and 4:2:2 are ceil(width/2)
/// wide, and those of 4:2:0 ceil(height/2) high, as ffmpeg writes odd sizes.
struct VideoFormat {
    int width = 0;
    int height = 0;
    int bit_depth = 8;
    Subsampling subsampling = Subsampling::k420;

    /// 1 for 8-bit samples, 2 above.
    int bytes_per_sample() const { return bit_depth > 8 ? 2 : 1; }
    /// Width of plane p (0 = luma Y, 1 = Cb, 2 = Cr) in samples.
    int plane_width(int p) const;
    /// Height of plane p in samples.
    int plane_height(int p) const;
    /// Bytes of one whole frame in a raw planar file (three planes, no padding).
    std::size_t frame_bytes() const;
    bool operator==(const VideoFormat&) const = default;
};

/// One plane of samples: width x height samples, rows `stride` bytes apart (the stride is
/// a multiple of 64 bytes so that SIMD loads of a row never split a cache line at its
/// start). Samples are uint8_t at 8 bits and uint16_t above; the reader of a plane picks
/// the type with row<T>().
class Plane {
public:
    Plane() = default;
    /// Allocates a zeroed width x height plane of `bytes_per_sample` (1 or 2) byte samples.
    Plane(int width, int height, int bytes_per_sample);

    int width() const { return width_; }
    int height() const { return height_; }
    int bytes_per_sample() const { return bytes_per_sample_; }
    /// Distance between the starts of two rows, in bytes.
    std::ptrdiff_t stride() const { return stride_; }

    /// Row y as samples of type T (uint8_t for 8-bit planes, uint16_t above).
    template <typename T>
    const T* row(int y) const {
        return reinterpret_cast<const T*>(data_.data() + static_cast<std::ptrdiff_t>(y) * stride_);
    }
    template <typename T>
    T* row(int y) {
        return reinterpret_cast<T*>(data_.data() + static_cast<std::ptrdiff_t>(y) * stride_);
    }
    const std::uint8_t* data() const { return data_.data(); }
    std::uint8_t* data() { return data_.data(); }

    /// Sample (x, y) widened to 32 bits, whatever the sample size (slow: tests, tools).
    std::uint32_t at(int x, int y) const {
        return bytes_per_sample_ == 1 ? row<std::uint8_t>(y)[x] : row<std::uint16_t>(y)[x];
    }

private:
    int width_ = 0;
    int height_ = 0;
    int bytes_per_sample_ = 1;
    std::ptrdiff_t stride_ = 0;
    std::vector<std::uint8_t> data_;
};

/// A decoded picture: three planes (Y, Cb, Cr) of the format's geometry.
struct Picture {
    VideoFormat format;
    Plane planes[3];

    Picture() = default;
    /// Allocates the three zeroed planes of `format`.
    explicit Picture(const VideoFormat& format);

    const Plane& luma() const { return planes[0]; }
    Plane& luma() { return planes[0]; }
};

}  // namespace vmafx
