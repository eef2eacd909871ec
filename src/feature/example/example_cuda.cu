// CUDA twin of the example metric (see example.hpp): bit-identical to the CPU extractor.
// One kernel per pair of planes (Settings::pairs(): luma, chroma, previous pictures): each
// thread blurs one sample of both planes with the CPU's blur_at and adds |difference| to the
// slot's 64-bit total with an integer atomic (exact, order-free); the total is copied to pinned
// host memory and finish() forms the score with the CPU's Settings::score.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "feature/example/example.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

constexpr unsigned kThreads = 256;

/// Adds |blur(ref) - blur(dis)| of every sample to *total. Grid: (column blocks, rows).
/// Planted defects: `half_rounding`, the blur rounds with 1 instead of 2 (the twin's own variant
/// on the shared blur_taps_at); `mirror_shift`, the right border reads one sample further in.
template <typename Sample>
__global__ void blurred_sad_kernel(const unsigned char* ref, std::ptrdiff_t ref_pitch, const unsigned char* dis,
                                   std::ptrdiff_t dis_pitch, int width, bool half_rounding, bool mirror_shift,
                                   unsigned long long* total) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= width) return;
    const auto* r = reinterpret_cast<const Sample*>(ref + y * ref_pitch);
    const auto* d = reinterpret_cast<const Sample*>(dis + y * dis_pitch);
    // Planted regression (parity-gate tests only): the last column mirrors one sample off.
    const int j = mirror_shift && x == width - 1 && width > 2 ? x - 1 : x;
    const std::int32_t blur_r =
        half_rounding ? (example::blur_taps_at(r, j, width) + 1) >> 2 : example::blur_at(r, j, width);
    const std::int32_t blur_d =
        half_rounding ? (example::blur_taps_at(d, j, width) + 1) >> 2 : example::blur_at(d, j, width);
    const std::int32_t diff = blur_r - blur_d;
    atomicAdd(total, static_cast<unsigned long long>(diff < 0 ? -diff : diff));
}

class Twin final : public GpuTwin {
public:
    Twin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(plant), settings_(options), totals_(slots), host_totals_(slots),
          frames_("example_blur_sad", slots) {}

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {

        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        cuda::check(cudaMemsetAsync(totals_.get() + slot, 0, sizeof(unsigned long long), stream), "cudaMemsetAsync");
        const DevicePicture* pictures[] = {&f.ref, &f.dist, &f.prev_dist[0], &f.prev_dist[1], &f.prev_ref[0]};
        for (const example::Settings::Pair& p : settings_.pairs()) {
            const DevicePlane& a = pictures[p.a]->planes[p.plane];
            const DevicePlane& b = pictures[p.b]->planes[p.plane];
            if (!a.data || !b.data) continue;  // before the start, as the CPU
            add_blurred_sad(a, b, p.plane, totals_.get() + slot, stream);
        }
        cuda::check(cudaMemcpyAsync(host_totals_.get() + slot, totals_.get() + slot, sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying the example sum to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        out.emplace_back(settings_.name, settings_.score(host_totals_[slot], format_.width, format_.height));
    }

private:
    /// Enqueues the kernel adding sum |blur(a) - blur(b)| over plane `plane` to *total.
    void add_blurred_sad(const DevicePlane& a, const DevicePlane& b, int plane, unsigned long long* total,
                         cudaStream_t stream) const {
        const int width = format_.plane_width(plane);
        const bool half = plant_ == PlantedDefect::kRoundingConstant;
        const bool shift = plant_ == PlantedDefect::kMirrorShift;
        const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(width), kThreads),
                        static_cast<unsigned>(format_.plane_height(plane)));
        const auto* ap = static_cast<const unsigned char*>(a.data);
        const auto* bp = static_cast<const unsigned char*>(b.data);
        if (format_.bit_depth == 8)
            blurred_sad_kernel<std::uint8_t>
                <<<grid, kThreads, 0, stream>>>(ap, a.pitch, bp, b.pitch, width, half, shift, total);
        else
            blurred_sad_kernel<std::uint16_t>
                <<<grid, kThreads, 0, stream>>>(ap, a.pitch, bp, b.pitch, width, half, shift, total);
        cuda::check_launch("example blurred_sad_kernel");
    }

    VideoFormat format_;
    PlantedDefect plant_;
    example::Settings settings_;
    cuda::DeviceBuffer<unsigned long long> totals_;       // per slot
    cuda::PinnedBuffer<unsigned long long> host_totals_;  // per slot
    cuda::SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant};

}  // namespace

namespace example {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "example_blur_sad",
    make_twin<Twin>,
    {exact_bound,
     "integer arithmetic only (so a contraction cannot change a value and none is planted): each sample's blur "
     "is the CPU's blur_at, the absolute differences are summed in 64-bit integer atomics (exact, order-free) and "
     "the score is formed on the host by the CPU's Settings::score"},
    kDefects,
    "integer arithmetic only on the device",
};

}  // namespace example

}  // namespace vmafx
