// A GPU decoder's output surface (DeviceSurface: NV12, P010, P016, YUV444P, YUV444P16), and its
// unpacking into the planar samples vmafx scores, one source for the host and the device: the
// sample arithmetic and the addressing are VMAFX_HOST_DEVICE, used by unpack_surface_host() here
// and by the CUDA backend's kernel (src/cuda/surface_unpack.cu).
//
// The result is what libswscale gives for the same conversion of a decoder's surface (NV12 to
// yuv420p, P010 to yuv420p10, YUV444P16 to yuv444p10 ...; tests/test_av_reader.cpp,
// SurfaceUnpackAsLibswscale), and what the same decoder writes in software: NVDEC's P010/P016 words hold the decoder's sample in
// their top bits with zeros below, so word >> shift is the sample itself.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/host_device.hpp"
#include "picture/picture.hpp"

namespace vmafx {

/// A frame that a GPU decoded and left in the GPU's memory (VideoReader::read_surface,
/// io/video_reader.hpp): the decoder's output surface as the hardware writes it, which the GPU backend unpacks on the
/// device into a DevicePicture of the video's format (DeviceApi::unpack_surface) and the host
/// into a Picture (unpack_surface_host, below).
struct DeviceSurface {
    /// How the planes hold the samples: kSemiPlanar is NV12 / P010 / P016 (plane 0 luma, plane 1
    /// Cb and Cr interleaved, Cb first; plane 2 unused), kPlanar is YUV444P / YUV444P16 (three
    /// planes, as a Picture's).
    enum class Layout { kSemiPlanar, kPlanar };
    Layout layout = Layout::kSemiPlanar;
    /// The backend's device address of each plane's first sample (CUDA: a device pointer),
    /// opaque outside the backend; `pitch` bytes between row starts.
    std::array<const void*, 3> planes{};
    std::array<std::ptrdiff_t, 3> pitch{};
    /// Each sample is stored as a word of `word_bytes` bytes (1 or 2, native order) holding the
    /// sample shifted left by `shift` bits (P010 holds 10-bit samples in the top bits: shift 6;
    /// 8-bit NV12 and YUV444P: 0). The unpacked sample is word >> shift, the decoder's value.
    int word_bytes = 1;
    int shift = 0;
    /// Keeps the surface valid (the decoder's frame) until released; release it once the device
    /// work that reads the surface has completed.
    std::shared_ptr<void> hold;
};


/// Sample of a surface word (`word` as stored, `shift` from DeviceSurface): word >> shift.
VMAFX_HOST_DEVICE inline unsigned surface_sample(unsigned word, int shift) { return word >> shift; }

/// Where sample (x, y) of picture plane `p` (0 Y, 1 Cb, 2 Cr; x, y in that plane's samples) is
/// in a surface of layout `semi_planar` (else planar) with words of `word_bytes` bytes: the
/// surface plane and the byte offset from that plane's first row at pitch `pitch`.
struct SurfaceIndex {
    int plane;
    std::ptrdiff_t offset;
};
VMAFX_HOST_DEVICE inline SurfaceIndex surface_index(bool semi_planar, int p, int x, int y, std::ptrdiff_t pitch,
                                                    int word_bytes) {
    if (semi_planar && p > 0)  // Cb at even words of plane 1, Cr at odd ones
        return {1, y * pitch + (2 * static_cast<std::ptrdiff_t>(x) + (p - 1)) * word_bytes};
    return {p, y * pitch + static_cast<std::ptrdiff_t>(x) * word_bytes};
}

/// Unpacks `surface`, whose planes are in host memory (a surface downloaded from the device),
/// into `pic` (re-allocated to `format` unless it is of it): the planes `which`. `format`'s
/// bit depth is the video's (8: one-byte samples; above: uint16_t); its subsampling must be
/// 4:2:0 for a semi-planar surface (4:4:4 for a planar one). Throws Error (an internal error)
/// for a surface that cannot hold `format`.
void unpack_surface_host(const DeviceSurface& surface, const VideoFormat& format, Picture& pic, PlaneSet which);

}  // namespace vmafx
