// CUDA twin of float_vif (float_vif.cpp), bit-identical to it on every frame.
//
// Per frame, on the frame's stream (each kernel a thread per output sample):
//  1. to_float_kernel: both lumas as picture_copy's floats minus 128 (the CPU's own
//     floatimg::picture_copy_sample: / 4, 16 or 256 at 10, 12, 16 bits, exact; other depths above 8
//     read byte by byte, as the CPU reads them), packed w x h; with a resizing vif_prescale,
//     scale_kernel then rescales them (see "Prescale" below);
//  2. per scale s from 0 (1 with vif_skip_scale0), with scale s's Gaussian (the CPU's own
//     floatimg::vif_filter, computed on the host at creation, so its exp is the host's):
//     - s > 0: decimate_vertical_kernel (the vertical pass at the even rows) and
//       decimate_horizontal_kernel (the horizontal pass at the even columns): the CPU's
//       convolution of the previous scale sampled at its even rows and columns, which is what
//       the CPU's decimate(convolve(...)) keeps;
//     - maps_kernel: the vertical pass of mu1, mu2, ref^2, dis^2, ref*dis (vertical_maps_at);
//     - terms_kernel: their horizontal pass and each sample's numerator and denominator terms
//       (terms_at, the CPU's float_vif::sample_terms, its polynomial log2 included);
//     - gpu::SequentialSum<float> over the 2h rows of terms (numerators, then denominators):
//       each row's float sum from 0 in column order, the CPU's row_num / row_den, bit for bit;
//  3. one asynchronous copy of every scale's row sums to the slot's pinned host memory.
// finish() adds the row sums in float, row by row (the CPU's accum_num / accum_den over a few
// hundred rows), and forms the outputs with the CPU's own Settings::write_frame.
//
// Why each value is the CPU's bits: every tap is the CPU's float operation in the CPU's order
// (float_vif_math.hpp tap_plain / tap_square / tap_cross, taps k = 0..fw-1 from 0, the vertical
// pass rounded to float before the horizontal one, mirrors without the edge repeated), every
// sample term is the CPU's own function, and the build is --fmad=false -prec-div=true
// -prec-sqrt=true -ftz=false, so each float and double operation is the same IEEE operation (the
// host code compiles with -ffp-contract=off). There is no library call on the device: the
// logarithm is upstream's polynomial (VIF_OPT_FAST_LOG2), float arithmetic and bit manipulation
// only, and float_vif_cuda_test.cpp compares the device's log2_approx with the host's over all
// 2^32 floats.
// Prescale: a vif_prescale that keeps the size is the CPU's copy; one that resizes runs
// scale_kernel after the float copy: each sample common/float_image_twin.hpp's scaled_sample, from host tables
// of the CPU scaler's own indices and weights per destination column and row
// (floatimg::scale_taps: lanczos4's sin is the host's, as on the CPU) mixed by the CPU's own
// float_image_math.hpp functions in the CPU's order.
//
// Planted regressions (parity-gate tests only; Plant, fixed at creation):
//  kContraction:      mu1's vertical taps as fused multiply-adds (maps_kernel);
//  kMirrorShift:      the horizontal pass of the five maps mirrors the left border with the edge
//                     repeated (-1 - i instead of -i, terms_kernel);
//  kRoundingConstant: ref^2's horizontal adds rounded toward zero instead of to nearest
//                     (terms_kernel);
//  kReductionOrder:   each row's terms added last to first (reversed_rows_kernel instead of the
//                     SequentialSum).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/sequential_sum.hpp"
#include "feature/common/float_image.hpp"
#include "feature/float_vif/float_vif.hpp"
#include "feature/float_vif/float_vif_twin.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

using float_vif::Plant;

constexpr unsigned kThreads = 128;
constexpr int kScales = 4;

/// The w x h luma (Sample words, rows `pitch` bytes apart) as floats minus 128 in dst (packed).
/// scaler: 4, 16 or 256 (Sample uint16_t), or 0 (Sample uint8_t: 8 bits, and the byte-wise
/// reading of the other depths). Grid: (column blocks, h).
template <typename Sample>
__global__ void to_float_kernel(const unsigned char* __restrict__ plane, std::ptrdiff_t pitch, int w, float scaler,
                                float* __restrict__ dst) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= w) return;
    const Sample s = reinterpret_cast<const Sample*>(plane + static_cast<std::ptrdiff_t>(y) * pitch)[x];
    dst[static_cast<std::ptrdiff_t>(y) * w + x] = floatimg::picture_copy_sample(static_cast<std::int32_t>(s), scaler, -128.0f);
}

/// The picture rescaled by vif_prescale: dst (dw x dh, packed) at (x, y) = floatimg::scaled_sample of src
/// (rows `stride` floats apart) with the scaler's tables. Grid: (column blocks of dw, dh).
__global__ void scale_kernel(const float* __restrict__ src, int stride, int dw, const int* __restrict__ x_index,
                             const float* __restrict__ x_weight, const int* __restrict__ y_index,
                             const float* __restrict__ y_weight, int taps, float* __restrict__ dst) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= dw) return;
    dst[static_cast<std::ptrdiff_t>(y) * dw + x] =
        floatimg::scaled_sample(src, stride, x, y, x_index, x_weight, y_index, y_weight, taps);
}

/// The vertical pass of src (w x h) at rows 0, 2, 4, ... into tmp (w x h / 2). Grid: (column
/// blocks of w, h / 2).
__global__ void decimate_vertical_kernel(const float* __restrict__ src, int w, int h, const float* __restrict__ f,
                                         int fw, float* __restrict__ tmp) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = static_cast<int>(blockIdx.y);
    if (x >= w) return;
    tmp[static_cast<std::ptrdiff_t>(i) * w + x] = float_vif::vertical_plain_at(src, w, h, x, 2 * i, f, fw);
}

/// The horizontal pass of tmp's rows (w wide) at columns 0, 2, 4, ... into dst (w / 2 x h / 2).
/// Grid: (column blocks of w / 2, h / 2).
__global__ void decimate_horizontal_kernel(const float* __restrict__ tmp, int w, const float* __restrict__ f, int fw,
                                           float* __restrict__ dst) {
    const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = static_cast<int>(blockIdx.y);
    const int w2 = w / 2;
    if (j >= w2) return;
    dst[static_cast<std::ptrdiff_t>(i) * w2 + j] =
        float_vif::horizontal_at(tmp + static_cast<std::ptrdiff_t>(i) * w, w, 2 * j, f, fw, false, false);
}

/// vertical_maps_at over a w x h scale. Grid: (column blocks, h).
__global__ void maps_kernel(const float* __restrict__ ref, const float* __restrict__ dis, int w, int h,
                            const float* __restrict__ f, int fw, float* __restrict__ maps, std::size_t plane,
                            bool fma) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= w) return;
    float_vif::vertical_maps_at(ref, dis, w, h, x, y, f, fw, maps, plane, fma);
}

/// terms_at over a w x h scale. Grid: (column blocks, h).
__global__ void terms_kernel(const float* __restrict__ maps, std::size_t plane, int w, int h,
                             const float* __restrict__ f, int fw, float limit, double sigma_nsq, float sigma_max_inv,
                             float* __restrict__ terms, bool shift, bool toward_zero) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= w) return;
    float_vif::terms_at(maps, plane, w, h, x, y, f, fw, limit, sigma_nsq, sigma_max_inv, terms, shift, toward_zero);
}

/// The planted kReductionOrder: out[r] = reversed_row_sum of row r (w terms) for r < rows.
__global__ void reversed_rows_kernel(const float* __restrict__ terms, int w, int rows, float* __restrict__ out) {
    const int r = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (r >= rows) return;
    out[r] = float_vif::reversed_row_sum(terms + static_cast<std::ptrdiff_t>(r) * w, w);
}

/// log2_approx of the floats of bits first + i, i < n.
__global__ void log2_probe_kernel(std::uint32_t first, std::size_t n, float* __restrict__ out) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const std::uint32_t bits = first + static_cast<std::uint32_t>(i);
    out[i] = float_vif::log2_approx(vmafx_bits_float(bits));
}

class FloatVifTwin final : public GpuTwin {
public:
    FloatVifTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), settings_(options), plant_(Plant::of(plant)), frames_("float_vif", slots) {
        settings_.check(format.width, format.height);
        // floatimg::scale copies a picture whose size does not change, whatever the method.
        rescale_ = settings_.scaled(format.width) != format.width || settings_.scaled(format.height) != format.height;
        if (rescale_) {
            const floatimg::ScaleMethod method = settings_.scale_method();
            const floatimg::ScaleTaps x = floatimg::scale_taps(method, format.width, settings_.scaled(format.width));
            const floatimg::ScaleTaps y = floatimg::scale_taps(method, format.height, settings_.scaled(format.height));
            scale_taps_ = x.taps;
            x_index_ = upload(x.index);
            x_weight_ = upload(x.weight);
            y_index_ = upload(y.index);
            y_weight_ = upload(y.weight);
        }
        first_ = settings_.skip_scale0 ? 1 : 0;
        limit_ = static_cast<float>(settings_.gain_limit);
        sigma_max_inv_ = float_vif::sigma_max_inv_of(settings_.sigma_nsq);
        const float ks = static_cast<float>(settings_.kernelscale);
        std::vector<float> taps;
        for (int s = 0; s < kScales; ++s) {
            const std::vector<float> f = floatimg::vif_filter(s, ks);
            filter_at_[s] = taps.size();
            filter_len_[s] = static_cast<int>(f.size());
            taps.insert(taps.end(), f.begin(), f.end());
        }
        filters_ = cuda::DeviceBuffer<float>(taps.size());
        cuda::check(cudaMemcpy(filters_.get(), taps.data(), taps.size() * sizeof(float), cudaMemcpyHostToDevice),
                    "copying the float_vif filters");
        // Scale sizes: scale 0 is the picture; each next one halves (rounding down).
        w_[0] = settings_.scaled(format.width);
        h_[0] = settings_.scaled(format.height);
        for (int s = 1; s < kScales; ++s) {
            w_[s] = w_[s - 1] / 2;
            h_[s] = h_[s - 1] / 2;
        }
        for (int s = 0; s < kScales; ++s) {
            rows_at_[s] = rows_;
            rows_ += 2 * static_cast<std::size_t>(h_[s]);
        }
        plane_ = static_cast<std::size_t>(w_[0]) * static_cast<std::size_t>(h_[0]);
        for (unsigned i = 0; i < slots; ++i) {
            Slot slot;
            if (rescale_) {
                const std::size_t raw = static_cast<std::size_t>(format.width) * static_cast<std::size_t>(format.height);
                slot.raw_ref = cuda::DeviceBuffer<float>(raw);
                slot.raw_dis = cuda::DeviceBuffer<float>(raw);
            }
            slot.ref = cuda::DeviceBuffer<float>(plane_);
            slot.dis = cuda::DeviceBuffer<float>(plane_);
            slot.ref2 = cuda::DeviceBuffer<float>(plane_ / 4 + 1);
            slot.dis2 = cuda::DeviceBuffer<float>(plane_ / 4 + 1);
            slot.maps = cuda::DeviceBuffer<float>(float_vif::kMaps * plane_);
            slot.terms = cuda::DeviceBuffer<float>(2 * plane_);
            slot.row_sums = cuda::DeviceBuffer<float>(rows_);
            slot.host_row_sums = cuda::PinnedBuffer<float>(rows_);
            slot.seq = std::make_unique<gpu::SequentialSum<float>>(static_cast<std::size_t>(w_[0]),
                                                                   static_cast<unsigned>(2 * h_[0]));
            cuda::check(cudaMemset(slot.row_sums.get(), 0, rows_ * sizeof(float)), "cudaMemset");
            slots_.push_back(std::move(slot));
        }
        cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        const DevicePlane& ref = f.ref.luma();
        const DevicePlane& dist = f.dist.luma();
        if (!ref.data || !dist.data)
            throw Error("float_vif (CUDA): frame " + std::to_string(f.index) + " has no reference or distorted luma");
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
        if (ref.pitch < row_bytes || dist.pitch < row_bytes)
            throw Error("float_vif (CUDA): a luma pitch is shorter than a row");
        Slot& s = slots_[slot];
        const int w0 = format_.width, h0 = format_.height;
        const float scaler = format_.bit_depth == 10 ? 4.0f
                             : format_.bit_depth == 12 ? 16.0f
                             : format_.bit_depth == 16 ? 256.0f
                                                       : 0.0f;
        const dim3 grid0(cuda::blocks_for(static_cast<std::size_t>(w0), kThreads), static_cast<unsigned>(h0));
        for (int p = 0; p < 2; ++p) {
            const DevicePlane& plane = p == 0 ? ref : dist;
            float* dst = rescale_ ? (p == 0 ? s.raw_ref.get() : s.raw_dis.get()) : (p == 0 ? s.ref.get() : s.dis.get());
            const auto* data = static_cast<const unsigned char*>(plane.data);
            if (scaler != 0.0f)
                to_float_kernel<std::uint16_t><<<grid0, kThreads, 0, stream>>>(data, plane.pitch, w0, scaler, dst);
            else
                to_float_kernel<std::uint8_t><<<grid0, kThreads, 0, stream>>>(data, plane.pitch, w0, scaler, dst);
            cuda::check_launch("float_vif to_float_kernel");
            if (rescale_) {
                const dim3 sgrid(cuda::blocks_for(static_cast<std::size_t>(w_[0]), kThreads), static_cast<unsigned>(h_[0]));
                scale_kernel<<<sgrid, kThreads, 0, stream>>>(dst, w0, w_[0], x_index_.get(), x_weight_.get(),
                                                             y_index_.get(), y_weight_.get(), scale_taps_,
                                                             p == 0 ? s.ref.get() : s.dis.get());
                cuda::check_launch("float_vif scale_kernel");
            }
        }
        // The current scale's pictures: scale 0 in ref / dis; each decimation writes the other
        // buffer pair (ref2 / dis2 hold at most a quarter), using terms as the vertical scratch.
        float* cur_ref = s.ref.get();
        float* cur_dis = s.dis.get();
        for (int sc = first_; sc < kScales; ++sc) {
            const float* taps = filters_.get() + filter_at_[sc];
            const int fw = filter_len_[sc];
            if (sc > 0) {
                const int w = w_[sc - 1], h = h_[sc - 1];
                float* next_ref = cur_ref == s.ref.get() ? s.ref2.get() : s.ref.get();
                float* next_dis = cur_dis == s.dis.get() ? s.dis2.get() : s.dis.get();
                const dim3 vgrid(cuda::blocks_for(static_cast<std::size_t>(w), kThreads), static_cast<unsigned>(h / 2));
                const dim3 hgrid(cuda::blocks_for(static_cast<std::size_t>(w / 2), kThreads),
                                 static_cast<unsigned>(h / 2));
                for (int p = 0; p < 2; ++p) {
                    const float* src = p == 0 ? cur_ref : cur_dis;
                    float* dst = p == 0 ? next_ref : next_dis;
                    decimate_vertical_kernel<<<vgrid, kThreads, 0, stream>>>(src, w, h, taps, fw, s.terms.get());
                    cuda::check_launch("float_vif decimate_vertical_kernel");
                    decimate_horizontal_kernel<<<hgrid, kThreads, 0, stream>>>(s.terms.get(), w, taps, fw, dst);
                    cuda::check_launch("float_vif decimate_horizontal_kernel");
                }
                cur_ref = next_ref;
                cur_dis = next_dis;
            }
            const int w = w_[sc], h = h_[sc];
            const std::size_t plane = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
            const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(w), kThreads), static_cast<unsigned>(h));
            maps_kernel<<<grid, kThreads, 0, stream>>>(cur_ref, cur_dis, w, h, taps, fw, s.maps.get(), plane,
                                                       plant_.fma);
            cuda::check_launch("float_vif maps_kernel");
            terms_kernel<<<grid, kThreads, 0, stream>>>(s.maps.get(), plane, w, h, taps, fw, limit_,
                                                        settings_.sigma_nsq, sigma_max_inv_, s.terms.get(),
                                                        plant_.mirror, plant_.toward_zero);
            cuda::check_launch("float_vif terms_kernel");
            float* sums = s.row_sums.get() + rows_at_[sc];
            if (plant_.order) {
                reversed_rows_kernel<<<cuda::blocks_for(2 * static_cast<std::size_t>(h), kThreads), kThreads, 0,
                                       stream>>>(s.terms.get(), w, 2 * h, sums);
                cuda::check_launch("float_vif reversed_rows_kernel");
            } else {
                s.seq->enqueue(s.terms.get(), static_cast<std::size_t>(w), static_cast<std::size_t>(w),
                               static_cast<unsigned>(2 * h), sums, stream);
            }
        }
        cuda::check(cudaMemcpyAsync(s.host_row_sums.get(), s.row_sums.get(), rows_ * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying the float_vif row sums to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const Slot& s = slots_[slot];
        float_vif::ScaleSums sums{};
        for (int sc = first_; sc < kScales; ++sc) {
            const float* rows = s.host_row_sums.get() + rows_at_[sc];
            // The CPU's accum_num += row_num / accum_den += row_den, rows in order, in float.
            float num = 0.0f;
            float den = 0.0f;
            for (int y = 0; y < h_[sc]; ++y) {
                num += rows[y];
                den += rows[h_[sc] + y];
            }
            sums[2 * static_cast<std::size_t>(sc)] = num;
            sums[2 * static_cast<std::size_t>(sc) + 1] = den;
        }
        settings_.write_frame(sums, out);
    }

private:
    template <typename T>
    static cuda::DeviceBuffer<T> upload(const std::vector<T>& v) {
        cuda::DeviceBuffer<T> d(v.size());
        cuda::check(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice),
                    "copying the float_vif scaler tables");
        return d;
    }

    struct Slot {
        cuda::DeviceBuffer<float> raw_ref, raw_dis;  // the pictures before a resizing vif_prescale
        cuda::DeviceBuffer<float> ref, dis;    // scale 0, then every other scale
        cuda::DeviceBuffer<float> ref2, dis2;  // scales 1 and 3
        cuda::DeviceBuffer<float> maps;        // kMaps planes of the vertical pass
        cuda::DeviceBuffer<float> terms;       // 2 h rows of w terms (and the decimation's scratch)
        cuda::DeviceBuffer<float> row_sums;    // every scale's 2 h row sums
        cuda::PinnedBuffer<float> host_row_sums;
        std::unique_ptr<gpu::SequentialSum<float>> seq;
    };

    VideoFormat format_;
    float_vif::Settings settings_;
    Plant plant_;
    cuda::SlotFrames frames_;
    int first_ = 0;
    float limit_ = 0.0f;
    float sigma_max_inv_ = 0.0f;
    int w_[kScales] = {}, h_[kScales] = {};
    std::size_t filter_at_[kScales] = {};
    int filter_len_[kScales] = {};
    std::size_t rows_at_[kScales] = {};
    std::size_t rows_ = 0;
    std::size_t plane_ = 0;
    cuda::DeviceBuffer<float> filters_;
    bool rescale_ = false;
    int scale_taps_ = 0;
    cuda::DeviceBuffer<int> x_index_, y_index_;
    cuda::DeviceBuffer<float> x_weight_, y_weight_;
    std::vector<Slot> slots_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                      PlantedDefect::kRoundingConstant, PlantedDefect::kReductionOrder};

}  // namespace

namespace float_vif {

void device_log2_approx(std::uint32_t first, std::size_t count, float* out) {
    if (count == 0) return;
    cuda::DeviceBuffer<float> d(count);
    log2_probe_kernel<<<cuda::blocks_for(count, 256), 256>>>(first, count, d.get());
    cuda::check_launch("float_vif log2_probe_kernel");
    cuda::check(cudaMemcpy(out, d.get(), count * sizeof(float), cudaMemcpyDeviceToHost), "copying log2 results");
}

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "float_vif",
    make_twin<FloatVifTwin>,
    {exact_bound,
     "bound 0 at every format: the float copy of the luma is the CPU's (an exact division by a power of two and "
     "one float add); every convolution output is the CPU's float sum from 0 of the same float products in the "
     "same tap order (float_vif_math.hpp's taps, vertical pass rounded to float, then horizontal, mirrors without "
     "the edge repeated), and a decimation is that convolution at the even rows and columns; every sample's terms "
     "are the CPU's own sample_terms (float variances, IEEE float and double divisions, upstream's polynomial "
     "log2, no library call), built with --fmad=false -prec-div=true -ftz=false; each row's float sum is "
     "SequentialSum<float> (the CPU's running sum, bit for bit) and the rows' float sum and the outputs are the "
     "CPU's host code (Settings::write_frame). A resizing vif_prescale: each sample the CPU scaler's float mix "
     "(float_image_math.hpp) of host tables of its indices and weights (floatimg::scale_taps; lanczos4's sin on the "
     "host)"},
    kDefects,
    nullptr,
};

}  // namespace float_vif

}  // namespace vmafx
