// CUDA twin of speed_temporal (speed_temporal.cpp), bit-identical to it on every frame.
//
// Per frame i >= 1, the float luma differences (frame i-1 - frame i) of both videos (with
// speed_use_ref_diff the distorted one is previous distorted - current reference) on the device
// (speed_cuda.cuh difference_kernel: speed_math.hpp's temporal_difference of float_image_math.hpp's
// picture_copy_sample), then SpEED's whole core there (speed_cuda.cuh: steps 1-3, the covariance
// matrices, and the eigenvalues, solve, entropies and score by the host/device functions the CPU
// calls, speed_blocks.hpp); only the score (8 bytes) comes back to the slot's pinned memory for
// finish(). The previous pictures are the pipeline's (the descriptor's
// history: 1 previous reference, 1 previous distorted picture, as GpuFrame::prev_ref[0] /
// prev_dist[0]). Frame 0 enqueues nothing and scores 0, as the CPU. Planted regressions:
// speed_cuda.cuh.
#include <memory>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "feature/speed/speed.hpp"
#include "feature/speed/speed_cuda.cuh"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

class SpeedTemporalTwin final : public GpuTwin {
public:
    SpeedTemporalTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format),
          config_(speed_temporal::config_of(options)),
          geometry_(speed::Geometry::of(format.width, format.height, config_.params.prescale)),
          band_(geometry_, config_.params, slots, 2, plant),
          frames_("speed_temporal", slots) {}

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        if (f.index == 0) return;
        const DevicePlane& prev_ref = f.prev_ref[0].luma();
        const DevicePlane& prev_dis = f.prev_dist[0].luma();
        const DevicePlane& cur_ref = f.ref.luma();
        const DevicePlane& cur_dis = config_.use_ref_diff ? f.ref.luma() : f.dist.luma();
        if (!prev_ref.data || !prev_dis.data || !cur_ref.data || !cur_dis.data)
            throw Error("speed_temporal (CUDA): frame " + std::to_string(f.index) + " needs the pictures of frame " +
                        std::to_string(f.index - 1));
        difference(prev_ref, cur_ref, slot, 0, stream);
        difference(prev_dis, cur_dis, slot, 1, stream);
        band_.enqueue_scores(slot, stream);
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        if (index == 0) {
            out.emplace_back(config_.name, 0.0);
            return;
        }
        out.emplace_back(config_.name, static_cast<double>(band_.host_score(slot, 0).score));
    }

private:
    /// Enqueues picture `i` of `slot` = float(prev) - float(cur), then its steps 1-3.
    void difference(const DevicePlane& prev, const DevicePlane& cur, unsigned slot, int i, cudaStream_t stream) {
        const int w = geometry_.width, h = geometry_.height;
        const std::size_t n = static_cast<std::size_t>(w) * h;
        const float scaler = floatimg::picture_copy_scaler(format_.bit_depth);
        const auto* p = static_cast<const unsigned char*>(prev.data);
        const auto* c = static_cast<const unsigned char*>(cur.data);
        if (format_.bit_depth == 8)
            speed_cuda::difference_kernel<std::uint8_t>
                <<<cuda::blocks_for(n, speed_cuda::kThreads), speed_cuda::kThreads, 0, stream>>>(
                    p, prev.pitch, c, cur.pitch, w, h, scaler, band_.picture(slot, i), band_.picture_stride());
        else
            speed_cuda::difference_kernel<std::uint16_t>
                <<<cuda::blocks_for(n, speed_cuda::kThreads), speed_cuda::kThreads, 0, stream>>>(
                    p, prev.pitch, c, cur.pitch, w, h, scaler, band_.picture(slot, i), band_.picture_stride());
        cuda::check_launch("speed_temporal difference_kernel");
        band_.enqueue(slot, i, stream);
    }

    VideoFormat format_;
    speed_temporal::Config config_;
    speed::Geometry geometry_;
    speed_cuda::BandPass band_;
    cuda::SlotFrames frames_;
};

}  // namespace

namespace speed_temporal {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "speed_temporal",
    make_twin<SpeedTemporalTwin>,
    {exact_bound,
     "bound 0 at every format and option: the luma differences are the CPU's float subtraction of the CPU's "
     "float samples (speed_math.hpp, float_image_math.hpp); steps 1-3 (speed_prescale rescale, anti-alias "
     "convolution at the decimated samples, local-mean band-pass) run on the device with the CPU's own "
     "per-sample functions in the CPU's order (float sums from 0, taps in order, vertical then horizontal, the "
     "same mirror; the scalers' indices and weights are the CPU's host tables, lanczos4's sin computed on the "
     "host; the filters' taps from the host). The covariance matrix of each band-pass picture is formed on the "
     "device as the CPU forms it (float means by sequential float sums; each double sum split into the CPU's 17 "
     "chains, 16 fma lanes of its AVX-512 grouping and the plain rest, reduced in its order). The eigenvalues, QR "
     "decomposition, solve, entropies and score run on the device by the host/device functions the CPU's "
     "score_band_pass calls (speed_blocks.hpp: each element of a product the CPU's float sum in its order, the "
     "score the CPU's float sum in the blocks' order); the one library function there, log2, is vmafx's own "
     "(libm::log2_with, the CPU's libm::log2). --fmad=false, IEEE division and sqrt"},
    speed_cuda::kDefects,
};

}  // namespace speed_temporal

}  // namespace vmafx
