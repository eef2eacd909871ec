// CUDA twin of the float_motion metric (float_motion.cpp), bit-identical to it on every frame and
// option (debug, motion_force_zero, motion_fps_weight, motion_blend_factor / _offset,
// motion_add_scale1, motion_filter_size, motion_add_uv, motion_max_val).
//
// The CPU blurs the float copies (picture_copy, offset -128) of the previous and the current
// reference plane with float_image's separable convolution (vertical pass into a float row, then
// horizontal, both mirrored, each output the float sum from 0 of tap * sample in tap order), adds
// |a - b| per row into a float from 0 in column order, the rows' sums in row order, and divides
// by the float w * h; with motion_add_scale1 it adds the same mean of the two blurs scaled to half
// size (bilinear); with motion_add_uv it adds the chroma planes' means (in double). The score is
// the frame's motion2 placeholder; flush() forms motion2 and motion3. Per scored frame and plane,
// on the frame's stream:
//  1. vertical_kernel: for both pictures (blockIdx.z), each column's vertical pass with the CPU's
//     own floatimg::picture_copy_sample, floatimg::mirror and floatimg::convolve_tap
//     (float_image_math.hpp), taps from float_motion::blur_tap (float_motion_math.hpp);
//  2. horizontal_kernel: the horizontal pass of both, mirrored columns, the same tap step;
//  3. sad_terms_kernel: float_motion::abs_difference of the two blurs, row-major (the CPU's order);
//     gpu::SequentialSum<float> reproduces each row's running float sum bit for bit;
//  4. with motion_add_scale1 (luma only: the descriptor refuses it with motion_add_uv),
//     scaled_terms_kernel: each half-size sample of both blurs by the CPU's own
//     floatimg::bilinear_sample from the CPU's own tap tables (floatimg::bilinear_axis, computed
//     once on the host), and their abs_difference; SequentialSum<float> again;
//  5. one asynchronous copy of every row sum to the slot's pinned host memory.
// finish() forms each plane's mean (float_motion::mean_of_rows, add_scales), the frame's score
// (Settings::frame_score) and its outputs (Settings::write_frame) with the CPU's own code;
// flush() is the CPU's Settings::flush. Frames the CPU does not score from pictures (frame 0,
// every frame with motion_force_zero) enqueue nothing. The previous picture is blurred again in
// each frame (the CPU keeps its blur; the values are the same, as both come from the same bytes):
// slots on different streams share no state.
//
// The per-thread work is float_motion_twin.hpp's (host-device, run on the host by the tests).
// Planted regressions (parity-gate tests only; plant_, fixed at creation), in vertical_kernel:
//  kContraction:      each tap of both passes (vertical_kernel, horizontal_kernel) added as one
//                     fused multiply-add (__fmaf_rn(tap, x, acc): the product not rounded), as a
//                     compiler contracting the loops would;
//  kMirrorShift:      the rows above the top border mirrored one row further in (-k reads k + 1);
//  kRoundingConstant: the rounding step of the taps' sum changed: each add rounded toward zero
//                     (__fadd_rz);
//  and in sad_terms_kernel kReductionOrder: the terms added to their rows' sums by float atomics
//  in whatever order the threads reach them (SequentialSum then skipped).
// With motion_filter_size 1 (the identity) the contraction and rounding plants change nothing
// (every product by 0 or 1 is exact); the gate's other rows catch them.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/sequential_sum.hpp"
#include "feature/common/float_image.hpp"
#include "feature/common/float_image_math.hpp"
#include "feature/float_motion/float_motion.hpp"
#include "feature/float_motion/float_motion_math.hpp"
#include "feature/float_motion/float_motion_twin.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

/// Blocks: 32 columns x 8 rows.
constexpr unsigned kBlockX = 32;
constexpr unsigned kBlockY = 8;
using float_motion::Blur;
using float_motion::Plant;

/// A plane of one picture on the device: bytes, rows `pitch` bytes apart.
struct PlaneIn {
    const unsigned char* data;
    std::ptrdiff_t pitch;
};

/// The vertical pass of picture blockIdx.z (0: prev, 1: cur) into tmp[z * w * h + y * w + x]:
/// the float sum from 0 of f[k] * sample(mirror(y - r + k, h), x) for k in order, each sample
/// picture_copy's float (Sample: uint16_t at 10, 12, 16 bits, where scaler != 0, else the row's
/// bytes as uint8_t, upstream's reading of 8, 9, 11, 13..15 bits). Grid: (ceil(w / kBlockX),
/// ceil(h / kBlockY), 2).
template <typename Sample>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    vertical_kernel(PlaneIn prev, PlaneIn cur, int w, int h, float scaler, Blur blur, Plant plant,
                    float* __restrict__ tmp) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const PlaneIn in = blockIdx.z == 0 ? prev : cur;
    const float acc = float_motion::vertical_at<Sample>(in.data, in.pitch, h, x, y, scaler, blur, plant);
    tmp[static_cast<std::size_t>(blockIdx.z) * static_cast<std::size_t>(w) * static_cast<std::size_t>(h) +
        static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)] = acc;
}

/// The horizontal pass of both pictures: out[z][y][x] = the float sum from 0 of
/// f[k] * tmp[z][y][mirror(x - r + k, w)] for k in order. Grid as vertical_kernel's.
__global__ void __launch_bounds__(kBlockX* kBlockY)
    horizontal_kernel(const float* __restrict__ tmp, int w, int h, Blur blur, Plant plant, float* __restrict__ out) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const std::size_t at = static_cast<std::size_t>(blockIdx.z) * static_cast<std::size_t>(w) *
                               static_cast<std::size_t>(h) +
                           static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
    const float acc = float_motion::horizontal_at(tmp + at, w, x, blur, plant);
    out[at + static_cast<std::size_t>(x)] = acc;
}

/// The SAD's terms of the two w x h blurs a and b (packed): terms[i] = abs_difference(a[i], b[i])
/// or, planted kReductionOrder, added to planted_rows[i / w] by float atomics. Grid as
/// vertical_kernel's, z = 1.
__global__ void __launch_bounds__(kBlockX* kBlockY)
    sad_terms_kernel(const float* __restrict__ a, const float* __restrict__ b, int w, int h,
                     float* __restrict__ terms, float* __restrict__ planted_rows) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x);
    const float t = float_motion::abs_difference(a[i], b[i]);
    if (planted_rows) atomicAdd(planted_rows + y, t);
    else terms[i] = t;
}

/// The bilinear scaler's tap tables of one axis (floatimg::bilinear_axis), device copies.
struct AxisTaps {
    const int* i1;
    const int* i2;
    const float* d;
};

/// The half-size SAD's terms: for (x, y) in sw x sh, each of the w-wide blurs a and b scaled
/// by bilinear_sample at the CPU's taps (rows `ys`, columns `xs`), and their abs_difference
/// (or, planted kReductionOrder, added to planted_rows[y]). Grid: (ceil(sw / kBlockX),
/// ceil(sh / kBlockY)).
__global__ void __launch_bounds__(kBlockX* kBlockY)
    scaled_terms_kernel(const float* __restrict__ a, const float* __restrict__ b, int w, int sw, int sh, AxisTaps xs,
                        AxisTaps ys, float* __restrict__ terms, float* __restrict__ planted_rows) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= sw || y >= sh) return;
    const float t = float_motion::scaled_term_at(a, b, w, xs.i1[x], xs.i2[x], xs.d[x], ys.i1[y], ys.i2[y], ys.d[y]);
    if (planted_rows) atomicAdd(planted_rows + y, t);
    else terms[static_cast<std::size_t>(y) * static_cast<std::size_t>(sw) + static_cast<std::size_t>(x)] = t;
}

/// One plane's part of a slot's row sums: where its rows start, and the half-size rows'.
struct PlaneRows {
    std::size_t full = 0;    ///< offset of the h row sums of the full-size SAD
    std::size_t scaled = 0;  ///< offset of the sh row sums of the half-size SAD (luma, add_scale1)
};

class FloatMotionTwin final : public GpuTwin {
public:
    FloatMotionTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), settings_(options), frames_("float_motion", slots), slot_scored_(slots, false) {
        plant_ = Plant::of(plant);
        blur_ = float_motion::blur_of(settings_.filter_size);
        scaler_ = floatimg::picture_copy_scaler(format.bit_depth);
        planes_ = settings_.add_uv ? 3 : 1;
        if (settings_.add_uv && settings_.add_scale1)
            throw Error("float_motion (CUDA): motion_add_uv with motion_add_scale1 is refused (as on the CPU)");
        const int r = blur_.taps / 2;
        for (int p = 0; p < planes_; ++p) {
            const int w = format.plane_width(p);
            const int h = format.plane_height(p);
            if (w < r + 1 || h < r + 1) throw Error("float_motion (CUDA): plane " + std::to_string(p) + " too small");
            rows_[p].full = rows_per_slot_;
            rows_per_slot_ += static_cast<std::size_t>(h);
        }
        const std::size_t samples = static_cast<std::size_t>(format.width) * static_cast<std::size_t>(format.height);
        std::size_t max_terms = static_cast<std::size_t>(format.width);
        unsigned max_batch = static_cast<unsigned>(format.height);
        if (settings_.add_scale1) {
            sw_ = float_motion::scale1_size(format.width);
            sh_ = float_motion::scale1_size(format.height);
            rows_[0].scaled = rows_per_slot_;
            rows_per_slot_ += static_cast<std::size_t>(sh_);
            upload_axis(format.width, sw_, x_taps_);
            upload_axis(format.height, sh_, y_taps_);
        }
        tmp_ = cuda::DeviceBuffer<float>(2 * samples * slots);
        blurred_ = cuda::DeviceBuffer<float>(2 * samples * slots);
        terms_ = cuda::DeviceBuffer<float>(samples * slots);
        row_sums_ = cuda::DeviceBuffer<float>(rows_per_slot_ * slots);
        host_row_sums_ = cuda::PinnedBuffer<float>(rows_per_slot_ * slots);
        for (unsigned s = 0; s < slots; ++s)
            sums_.push_back(std::make_unique<gpu::SequentialSum<float>>(max_terms, max_batch));
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        slot_scored_[slot] = settings_.scores_frame(f.index);
        if (!slot_scored_[slot]) return;
        const std::size_t samples = static_cast<std::size_t>(format_.width) * static_cast<std::size_t>(format_.height);
        float* tmp = tmp_.get() + 2 * samples * slot;
        float* blurred = blurred_.get() + 2 * samples * slot;
        float* terms = terms_.get() + samples * slot;
        float* row_sums = row_sums_.get() + rows_per_slot_ * slot;
        if (plant_.order)
            cuda::check(cudaMemsetAsync(row_sums, 0, rows_per_slot_ * sizeof(float), stream), "cudaMemsetAsync");
        for (int p = 0; p < planes_; ++p) {
            const DevicePlane& prev = f.prev_ref[0].planes[static_cast<std::size_t>(p)];
            const DevicePlane& cur = f.ref.planes[static_cast<std::size_t>(p)];
            if (!prev.data || !cur.data)
                throw Error("float_motion (CUDA): frame " + std::to_string(f.index) + " needs plane " +
                            std::to_string(p) + " of the reference pictures of frames " + std::to_string(f.index - 1) +
                            " and " + std::to_string(f.index));
            const int w = format_.plane_width(p);
            const int h = format_.plane_height(p);
            const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(w) * format_.bytes_per_sample();
            if (prev.pitch < row_bytes || cur.pitch < row_bytes)
                throw Error("float_motion (CUDA): a plane's pitch is below its row");
            const PlaneIn a{static_cast<const unsigned char*>(prev.data), prev.pitch};
            const PlaneIn b{static_cast<const unsigned char*>(cur.data), cur.pitch};
            const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
            const dim3 block(kBlockX, kBlockY);
            const dim3 grid2(cuda::blocks_for(static_cast<std::size_t>(w), kBlockX),
                             cuda::blocks_for(static_cast<std::size_t>(h), kBlockY), 2);
            if (scaler_ != 0.0f)
                vertical_kernel<std::uint16_t><<<grid2, block, 0, stream>>>(a, b, w, h, scaler_, blur_, plant_, tmp);
            else
                vertical_kernel<std::uint8_t><<<grid2, block, 0, stream>>>(a, b, w, h, scaler_, blur_, plant_, tmp);
            cuda::check_launch("float_motion vertical_kernel");
            horizontal_kernel<<<grid2, block, 0, stream>>>(tmp, w, h, blur_, plant_, blurred);
            cuda::check_launch("float_motion horizontal_kernel");
            float* plane_rows = row_sums + rows_[p].full;
            const dim3 grid1(grid2.x, grid2.y, 1);
            sad_terms_kernel<<<grid1, block, 0, stream>>>(blurred, blurred + n, w, h, terms,
                                                           plant_.order ? plane_rows : nullptr);
            cuda::check_launch("float_motion sad_terms_kernel");
            if (!plant_.order)
                sums_[slot]->enqueue(terms, static_cast<std::size_t>(w), static_cast<std::size_t>(w),
                                     static_cast<unsigned>(h), plane_rows, stream);
            if (p == 0 && settings_.add_scale1) {
                float* scaled_rows = row_sums + rows_[0].scaled;
                const dim3 grid_s(cuda::blocks_for(static_cast<std::size_t>(sw_), kBlockX),
                                  cuda::blocks_for(static_cast<std::size_t>(sh_), kBlockY));
                const AxisTaps xs{x_taps_.i1.get(), x_taps_.i2.get(), x_taps_.d.get()};
                const AxisTaps ys{y_taps_.i1.get(), y_taps_.i2.get(), y_taps_.d.get()};
                scaled_terms_kernel<<<grid_s, block, 0, stream>>>(blurred, blurred + n, w, sw_, sh_, xs, ys, terms,
                                                                  plant_.order ? scaled_rows : nullptr);
                cuda::check_launch("float_motion scaled_terms_kernel");
                if (!plant_.order)
                    sums_[slot]->enqueue(terms, static_cast<std::size_t>(sw_), static_cast<std::size_t>(sw_),
                                         static_cast<unsigned>(sh_), scaled_rows, stream);
            }
        }
        cuda::check(cudaMemcpyAsync(host_row_sums_.get() + rows_per_slot_ * slot, row_sums,
                                    rows_per_slot_ * sizeof(float), cudaMemcpyDeviceToHost, stream),
                    "copying the float_motion row sums to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        if (!slot_scored_[slot]) {
            settings_.write_frame(index, 0.0, out);
            return;
        }
        const float* rows = host_row_sums_.get() + rows_per_slot_ * slot;
        double plane_sad[3] = {0.0, 0.0, 0.0};
        for (int p = 0; p < planes_; ++p) {
            const int w = format_.plane_width(p);
            const int h = format_.plane_height(p);
            float sad = float_motion::mean_of_rows({rows + rows_[p].full, static_cast<std::size_t>(h)}, w, h);
            if (p == 0 && settings_.add_scale1)
                sad = float_motion::add_scales(
                    sad, float_motion::mean_of_rows({rows + rows_[0].scaled, static_cast<std::size_t>(sh_)}, sw_, sh_));
            plane_sad[p] = static_cast<double>(sad);
        }
        settings_.write_frame(index, settings_.frame_score(plane_sad[0], plane_sad[1], plane_sad[2]), out);
    }

    void flush(ScoreTable& table) const override {
        if (!settings_.force_zero) settings_.flush(table);
    }

private:
    /// Device copies of one axis's bilinear taps.
    struct AxisBuffers {
        cuda::DeviceBuffer<int> i1, i2;
        cuda::DeviceBuffer<float> d;
    };

    /// The CPU's tap tables of an axis from `src` to `dst` samples, copied to the device (once,
    /// synchronously, at creation).
    static void upload_axis(int src, int dst, AxisBuffers& out) {
        std::vector<int> i1(static_cast<std::size_t>(dst)), i2(static_cast<std::size_t>(dst));
        std::vector<float> d(static_cast<std::size_t>(dst));
        floatimg::bilinear_axis(src, dst, i1.data(), i2.data(), d.data());
        out.i1 = cuda::DeviceBuffer<int>(i1.size());
        out.i2 = cuda::DeviceBuffer<int>(i2.size());
        out.d = cuda::DeviceBuffer<float>(d.size());
        cuda::check(cudaMemcpy(out.i1.get(), i1.data(), i1.size() * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
        cuda::check(cudaMemcpy(out.i2.get(), i2.data(), i2.size() * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
        cuda::check(cudaMemcpy(out.d.get(), d.data(), d.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    }

    VideoFormat format_;
    float_motion::Settings settings_;
    Plant plant_{};
    Blur blur_{};
    float scaler_ = 0.0f;
    int planes_ = 1;
    int sw_ = 0, sh_ = 0;  // motion_add_scale1's half size of the luma
    PlaneRows rows_[3];
    std::size_t rows_per_slot_ = 0;
    AxisBuffers x_taps_, y_taps_;
    cuda::DeviceBuffer<float> tmp_;       // per slot: the two vertical passes, 2 x w x h (luma size)
    cuda::DeviceBuffer<float> blurred_;   // per slot: the two blurs, 2 x w x h
    cuda::DeviceBuffer<float> terms_;     // per slot: w x h terms
    cuda::DeviceBuffer<float> row_sums_;  // per slot: rows_per_slot_ sums
    cuda::PinnedBuffer<float> host_row_sums_;
    std::vector<std::unique_ptr<gpu::SequentialSum<float>>> sums_;  // per slot
    cuda::SlotFrames frames_;
    std::vector<bool> slot_scored_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                      PlantedDefect::kRoundingConstant, PlantedDefect::kReductionOrder};

}  // namespace

namespace float_motion {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "float_motion",
    make_twin<FloatMotionTwin>,
    {exact_bound,
     "bound 0 at every format and option: each sample's float copy is the CPU's picture_copy_sample (8..16 bits, "
     "upstream's byte-wise reading of 9, 11, 13..15 bits included), the blur the CPU's separable convolution "
     "arithmetic (float_image_math.hpp: the same mirror, each output the float sum from 0 of tap * sample in tap "
     "order, vertical then horizontal; --fmad=false, no FTZ) with the CPU's taps (float_motion_math.hpp), the "
     "half-size blurs the CPU's bilinear_sample at the CPU's own tap tables, each term the CPU's abs_difference. "
     "Every row's running float sum is reproduced bit for bit by SequentialSum<float>; the rows' sums, the "
     "division, the planes' sum and the outputs (motion2, motion3, debug, force zero) are formed on the host by the "
     "CPU's own code (mean_of_rows, add_scales, Settings::frame_score, write_frame, flush)"},
    kDefects,
    nullptr,
};

}  // namespace float_motion

}  // namespace vmafx
