#include <cstdint>

#include "cuda/device.hpp"
#include "cuda/surface_unpack.hpp"
#include "picture/surface.hpp"

namespace vmafx::cuda {

namespace {

/// Plane `p` (w x h samples) of the picture from its surface plane `src` (`pitch` bytes a row):
/// one thread a sample.
template <typename Word>
__global__ void unpack_plane(const std::uint8_t* src, std::ptrdiff_t pitch, bool semi_planar, int p, int w, int h,
                             int shift, std::uint8_t* dst, std::ptrdiff_t dst_pitch) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const SurfaceIndex at = surface_index(semi_planar, p, x, y, pitch, static_cast<int>(sizeof(Word)));
    const Word word = *reinterpret_cast<const Word*>(src + at.offset);
    reinterpret_cast<Word*>(dst + y * dst_pitch)[x] = static_cast<Word>(surface_sample(word, shift));
}

}  // namespace

void unpack_surface(const DeviceSurface& from, const VideoFormat& format, const DevicePicture& to, PlaneSet planes,
                    GpuQueue* q) {
    const cudaStream_t stream = stream_of(q);
    // FFmpeg's NVDEC maps each frame (cuvidMapVideoFrame, its post-processing asynchronous) on
    // the stream of its CUDA device context, the legacy default stream of the primary context
    // (libavcodec/nvdec.c); our non-blocking queue does not wait for that stream by itself.
    cudaEvent_t mapped = nullptr;
    check(cudaEventCreateWithFlags(&mapped, cudaEventDisableTiming), "cudaEventCreate");
    const cudaError_t recorded = cudaEventRecord(mapped, cudaStreamLegacy);
    const cudaError_t waited = recorded == cudaSuccess ? cudaStreamWaitEvent(stream, mapped, 0) : recorded;
    cudaEventDestroy(mapped);  // released once the wait has been enqueued
    check(waited, "waiting for the decoder's frame");
    const bool semi = from.layout == DeviceSurface::Layout::kSemiPlanar;
    for (int p = 0; p < (planes == PlaneSet::kAll ? 3 : 1); ++p) {
        const int w = format.plane_width(p), h = format.plane_height(p);
        const int source = semi && p > 0 ? 1 : p;
        const auto* src = static_cast<const std::uint8_t*>(from.planes[source]);
        auto* dst = static_cast<std::uint8_t*>(const_cast<void*>(to.planes[p].data));
        if (!(semi && p > 0) && from.shift == 0) {  // the words are the samples
            check(cudaMemcpy2DAsync(dst, to.planes[p].pitch, src, from.pitch[source],
                                    static_cast<std::size_t>(w) * from.word_bytes, h, cudaMemcpyDeviceToDevice,
                                    stream),
                  "copying a decoded plane");
            continue;
        }
        const dim3 block(32, 8);
        const dim3 grid(blocks_for(static_cast<std::size_t>(w), block.x), blocks_for(static_cast<std::size_t>(h), block.y));
        if (from.word_bytes == 1)
            unpack_plane<std::uint8_t><<<grid, block, 0, stream>>>(src, from.pitch[source], semi, p, w, h, from.shift,
                                                                    dst, to.planes[p].pitch);
        else
            unpack_plane<std::uint16_t><<<grid, block, 0, stream>>>(src, from.pitch[source], semi, p, w, h,
                                                                     from.shift, dst, to.planes[p].pitch);
        check_launch("unpack_plane");
    }
}

}  // namespace vmafx::cuda
