// CUDA twin of speed_chroma (speed_chroma.cpp), bit-identical to it on every frame.
//
// Per frame, for each chroma plane (Cb, Cr) of both videos, SpEED's whole core on the device
// (speed_cuda.cuh: the float picture, the speed_prescale rescale, the anti-alias convolution at
// the decimated samples, the band-pass picture and its covariance matrix; then per plane the
// eigenvalues, the solve, the entropies and the score by the host/device functions the CPU calls,
// speed_blocks.hpp); only each plane's score and whether it was singular (8 bytes) come back to
// the slot's pinned memory, and finish() writes the three scores (speed_chroma::write_scores).
// Planted regressions: speed_cuda.cuh.
#include <memory>
#include <string>

#include "cuda/device.hpp"
#include "feature/speed/speed.hpp"
#include "feature/speed/speed_cuda.cuh"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

class SpeedChromaTwin final : public GpuTwin {
public:
    SpeedChromaTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format),
          config_(speed_chroma::config_of(options)),
          geometry_(speed::Geometry::of(format.plane_width(1), format.plane_height(1), config_.params.prescale)),
          band_(geometry_, config_.params, slots, 4, plant),
          frames_("speed_chroma", slots) {}

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        const float scaler = floatimg::picture_copy_scaler(format_.bit_depth);
        const int w = geometry_.width, h = geometry_.height;
        const std::size_t n = static_cast<std::size_t>(w) * h;
        for (int c = 0; c < 2; ++c)
            for (int v = 0; v < 2; ++v) {
                const DevicePlane& plane = (v == 0 ? f.ref : f.dist).planes[1 + c];
                if (!plane.data)
                    throw Error("speed_chroma (CUDA): frame " + std::to_string(f.index) + " lacks its chroma planes");
                const int i = 2 * c + v;
                const auto* data = static_cast<const unsigned char*>(plane.data);
                if (format_.bit_depth == 8)
                    speed_cuda::picture_kernel<std::uint8_t>
                        <<<cuda::blocks_for(n, speed_cuda::kThreads), speed_cuda::kThreads, 0, stream>>>(
                            data, plane.pitch, w, h, scaler, band_.picture(slot, i), band_.picture_stride());
                else
                    speed_cuda::picture_kernel<std::uint16_t>
                        <<<cuda::blocks_for(n, speed_cuda::kThreads), speed_cuda::kThreads, 0, stream>>>(
                            data, plane.pitch, w, h, scaler, band_.picture(slot, i), band_.picture_stride());
                cuda::check_launch("speed_chroma picture_kernel");
                band_.enqueue(slot, i, stream);
            }
        band_.enqueue_scores(slot, stream);
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const speed::blocks::PairScore u = band_.host_score(slot, 0), v = band_.host_score(slot, 1);
        speed_chroma::write_scores(config_, u.score, u.singular != 0, v.score, v.singular != 0, out);
    }

private:
    VideoFormat format_;
    speed_chroma::Config config_;
    speed::Geometry geometry_;
    speed_cuda::BandPass band_;
    cuda::SlotFrames frames_;
};

}  // namespace

namespace speed_chroma {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "speed_chroma",
    make_twin<SpeedChromaTwin>,
    {exact_bound,
     "bound 0 at every format and option: the device computes SpEED's steps 1-3 (float picture, speed_prescale "
     "rescale, anti-alias convolution at the decimated samples, local-mean band-pass) with the CPU's own "
     "per-sample functions (float_image_math.hpp, speed_math.hpp) in the CPU's order: each output is the float "
     "sum from 0 of the taps in order, vertical then horizontal, with the same mirror; the scalers' indices and "
     "weights are the CPU's (host tables of floatimg::scale_taps, lanczos4's sin computed on the host), their "
     "mixes in the CPU's order; the filters' taps (exp, sqrt) are the CPU's, from the host. The covariance "
     "matrix of each band-pass picture is formed on the device as the CPU forms it: float means by sequential "
     "float sums, each double covariance sum split into the CPU's 17 chains (16 fma lanes of its AVX-512 "
     "grouping and the plain rest, IEEE fma), reduced in the CPU's order. The eigenvalues, QR decomposition, "
     "solve, entropies and score run on the device by the host/device functions the CPU's score_band_pass calls "
     "(speed_blocks.hpp: each element of a product the CPU's float sum in its order, the score the CPU's float "
     "sum in the blocks' order); the one library function there, log2, is vmafx's own (libm::log2_with, the "
     "CPU's libm::log2). --fmad=false, IEEE division and sqrt"},
    speed_cuda::kDefects,
};

}  // namespace speed_chroma

}  // namespace vmafx
