// CUDA twin of speed_chroma (speed_chroma.cpp), bit-identical to it on every frame.
//
// Per frame, for each chroma plane (Cb, Cr) of both videos, steps 1-3 of SpEED's core on the
// device (speed_cuda.cuh: the float picture, the speed_prescale rescale, the anti-alias
// convolution at the decimated samples, the band-pass picture); the four band-pass pictures
// (1/256 of the plane's samples each) and their covariance matrices (formed on the device as the
// CPU forms them, speed_cuda.cuh) come back to the slot's pinned memory, and finish() runs the
// rest of steps 4-5 and the scores with the CPU's own code (speed::score_band_pass: the
// eigenvalues, the solve and the entropies' log2; speed_chroma::write_scores). Planted
// regressions: speed_cuda.cuh.
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
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        float scores[2];
        bool singular[2];
        for (int c = 0; c < 2; ++c)
            scores[c] = speed::score_band_pass(geometry_, config_.params, band_.host_band(slot, 2 * c),
                                               band_.host_cov(slot, 2 * c), band_.host_band(slot, 2 * c + 1),
                                               band_.host_cov(slot, 2 * c + 1), band_.band_stride(), singular[c]);
        speed_chroma::write_scores(config_, scores[0], singular[0], scores[1], singular[1], out);
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

extern const TwinDescriptor twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor twin{
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
     "grouping and the plain rest, IEEE fma), reduced in the CPU's order. The eigenvalues, solve, log2 "
     "entropies and score run on the host with the CPU's own code; no library math runs on the device. --fmad=false, IEEE division"},
    speed_cuda::kDefects,
};

}  // namespace speed_chroma

}  // namespace vmafx
