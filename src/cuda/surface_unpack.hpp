// The CUDA backend's unpacking of NVDEC's decoder surfaces (DeviceApi::unpack_surface).
#pragma once

#include "gpu/twin.hpp"
#include "picture/surface.hpp"

namespace vmafx::cuda {

/// Enqueues on `q` the unpacking of `from` (NV12, P010, P016, YUV444P or YUV444P16 in device
/// memory; picture/surface.hpp, DeviceSurface) into `to`, a device picture of `format` (the
/// planes `planes`): each sample is surface_sample() of its word at surface_index()
/// (picture/surface.hpp), the arithmetic unpack_surface_host() runs on the host. Planes whose
/// words are their samples (8-bit luma, 8-bit 4:4:4) are 2D copies. Throws Error on CUDA's errors.
void unpack_surface(const DeviceSurface& from, const VideoFormat& format, const DevicePicture& to, PlaneSet planes,
                    GpuQueue* q);

}  // namespace vmafx::cuda
