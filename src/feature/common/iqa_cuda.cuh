// The device half of the CUDA twins of float_ssim and float_ms_ssim (float_ssim_cuda.cu,
// float_ms_ssim_cuda.cu): kernels and per-slot scratch that turn the luma of a picture pair into
// the running sums of _iqa_ssim (iqa::TermSums) of one or more pyramid levels, bit for bit the
// CPU's (iqa.cpp). Include only from .cu files.
//
// Per frame, on the frame's stream:
//  1. to_float_kernel: each luma sample as picture_copy's float (offset 0): the sample, / 4, 16
//     or 256 at 10, 12, 16 bits (a division by a power of two: exact, as on the CPU), + 0.0f;
//     packed rows (level 0);
//  2. decimate_kernel (levels 1..): each output is iqa::filter_pixel at (x * factor, y * factor)
//     of the level above, the CPU's shared function (float products added in double in the
//     kernel's order, mirrored borders, rounded to float). The CPU decimates float_ssim in place,
//     row by row; no output overwrites a sample a later output reads, so writing to another
//     buffer gives the same values;
//  3. per scored level, horizontal_kernel (iqa::horizontal_at): the Gaussian's horizontal pass
//     of the five maps (ref, cmp, ref*ref, cmp*cmp, ref*cmp: each product the CPU's float
//     product) over every row of the valid columns (iqa::add_product per tap, taps in order,
//     rounded to float); then terms_kernel (iqa::terms_at): the vertical pass of the five maps
//     at each window, the clamped variances and the covariance (iqa::variance,
//     iqa::covariance) and the window's terms (iqa::window_terms), written to the term rows
//     (iqa::TermRow: l, c, s, l*c*s; window (x, y) at y * (w - 10) + x, rows `pitch` doubles
//     apart);
//  4. gpu::SequentialSum<double>::enqueue over the rows the outputs need: the CPU's running
//     double sums in raster order, reproduced exactly (no window is read back to the host);
//  5. one asynchronous copy of the level's sums to the slot's pinned host memory.
// The host (the twin's finish()) divides and rounds them with iqa::means_from_sums and forms the
// outputs with the CPU's own Settings::write_frame.
//
// The per-thread work is iqa_twin.hpp's (host-device, run on the host by the tests).
// Planted regressions (parity-gate tests only), fixed at creation (iqa::Plant):
//  kContraction:      the horizontal pass adds each product as one fused multiply-add
//                     (fma(double(sample), double(tap), sum), the product not rounded to float),
//                     every tap of every map, as a compiler contracting the loop body would;
//  kMirrorShift:      the decimation's mirror reads indices reflected from below 0 one sample
//                     further in (decimate_at's ShiftedBorder), and the Gaussian's last window
//                     column reads its last tap one column to the left (the border of the valid
//                     region, which exists without decimation);
//  kRoundingConstant: the vertical pass of ref*ref rounds its double sum to float toward zero
//                     instead of to nearest (a rounding step changed: the variance of the
//                     reference drops by up to one float step at every window, a bias the
//                     means keep).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cuda/device.hpp"
#include "feature/common/iqa.hpp"
#include "feature/common/iqa_math.hpp"
#include "feature/common/iqa_twin.hpp"
#include "cuda/sequential_sum.hpp"
#include "gpu/twin.hpp"

namespace vmafx::iqa::device {

// Internal linkage: each of the two twins' units has its own copy of the kernels.
namespace {

inline constexpr unsigned kThreads = 256;

/// Level 0: the w x h luma (Sample words, rows `pitch` bytes apart) as floats in `dst` (packed),
/// sample_float. `scaler`: 0 at 8 bits, else 4, 16 or 256. Grid: (column blocks, h).
template <typename Sample>
__global__ void to_float_kernel(const unsigned char* __restrict__ plane, std::ptrdiff_t pitch, int w, float scaler,
                                float* __restrict__ dst) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= w) return;
    const Sample s = reinterpret_cast<const Sample*>(plane + static_cast<std::ptrdiff_t>(y) * pitch)[x];
    dst[static_cast<std::ptrdiff_t>(y) * w + x] = sample_float(s, scaler);
}

/// One decimation: dst (sw x sh, packed) at (x, y) = filter_pixel(src, w, h, x * factor,
/// y * factor, taps, klen). Grid: (column blocks, sh).
__global__ void decimate_kernel(const float* __restrict__ src, int w, int h, int factor,
                                const float* __restrict__ taps, int klen, float* __restrict__ dst, int sw,
                                int plant_shift) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= sw) return;
    dst[static_cast<std::ptrdiff_t>(y) * sw + x] = decimate_at(src, w, h, x * factor, y * factor, taps, klen,
                                                                plant_shift);
}

/// horizontal_at over a w x h level pair: the five maps, dw = w - 10 columns by h rows each,
/// `plane` floats apart in `out`. Grid: (column blocks of dw, h).
__global__ void horizontal_kernel(const float* __restrict__ ref, const float* __restrict__ cmp, int w,
                                  float* __restrict__ out, std::size_t plane, Plant plant) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= w - kGaussianLen + 1) return;
    horizontal_at(ref, cmp, w, x, y, out, plane, plant);
}

/// terms_at at each of the dw x dh windows (the maps: horizontal_kernel's output). Grid:
/// (column blocks of dw, dh).
__global__ void terms_kernel(const float* __restrict__ maps, std::size_t plane, int dw, double* __restrict__ rows,
                             std::size_t pitch, unsigned row_mask, Plant plant) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= dw) return;
    terms_at(maps, plane, dw, x, y, rows, pitch, row_mask, plant);
}

/// Per-slot device scratch (allocated at creation for the format) and the kernels' launches.
class SsimPipeline {
public:
    /// Throws Error for 0 slots and on CUDA errors. `name`: the twin, for messages.
    SsimPipeline(const char* name, const VideoFormat& format, TwinPlan plan, unsigned slots, PlantedDefect plant)
        : name_(name), format_(format), plan_(std::move(plan)), plant_(Plant::of(plant)), frames_(name, slots),
          layout_(format.width, format.height, plan_) {
        const std::size_t max_windows = layout_.max_windows, pyramid = layout_.pyramid;
        pitch_ = layout_.pitch;
        cache_plane_ = layout_.cache_plane;
        if (plan_.klen > 0) {
            taps_ = cuda::DeviceBuffer<float>(plan_.taps.size());
            cuda::check(cudaMemcpy(taps_.get(), plan_.taps.data(), plan_.taps.size() * sizeof(float),
                                   cudaMemcpyHostToDevice),
                        "copying the decimation taps");
        }
        const std::size_t sums = plan_.scored.size() * kTermRows;
        for (unsigned s = 0; s < slots; ++s) {
            Slot slot;
            slot.ref = cuda::DeviceBuffer<float>(pyramid);
            slot.cmp = cuda::DeviceBuffer<float>(pyramid);
            slot.cache = cuda::DeviceBuffer<float>(kMaps * cache_plane_);
            slot.rows = cuda::DeviceBuffer<double>(static_cast<std::size_t>(plan_.first_row + plan_.row_count) * pitch_);
            slot.sums = cuda::DeviceBuffer<double>(sums);
            slot.host_sums = cuda::PinnedBuffer<double>(sums);
            slot.seq = std::make_unique<gpu::SequentialSum<double>>(max_windows, kTermRows);
            // Rows the plan does not form stay 0 (finish() reads whole TermSums).
            cuda::check(cudaMemset(slot.sums.get(), 0, sums * sizeof(double)), "cudaMemset");
            for (std::size_t i = 0; i < sums; ++i) slot.host_sums[i] = 0.0;
            slots_.push_back(std::move(slot));
        }
        cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }

    /// Size {w, h} of pyramid level k.
    const std::array<int, 2>& size(int k) const { return layout_.size[static_cast<std::size_t>(k)]; }

    /// Enqueues frame `f` in `slot` on `stream` (never synchronizes the host).
    void enqueue(const GpuFrame& f, unsigned slot, cudaStream_t stream) {
        frames_.enqueued(slot, f.index);
        const DevicePlane& ref = f.ref.luma();
        const DevicePlane& dist = f.dist.luma();
        if (!ref.data || !dist.data)
            throw Error(std::string(name_) + " (CUDA): frame " + std::to_string(f.index) + " has no luma");
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
        if (ref.pitch < row_bytes || dist.pitch < row_bytes)
            throw Error(std::string(name_) + " (CUDA): a luma pitch is shorter than a row");
        Slot& s = slots_[slot];
        const int w = format_.width, h = format_.height;
        const dim3 grid0(cuda::blocks_for(static_cast<std::size_t>(w), kThreads), static_cast<unsigned>(h));
        const float scaler = format_.bit_depth == 10 ? 4.0f
                             : format_.bit_depth == 12 ? 16.0f
                             : format_.bit_depth == 16 ? 256.0f
                                                       : 0.0f;
        for (int p = 0; p < 2; ++p) {
            const DevicePlane& plane = p == 0 ? ref : dist;
            float* dst = p == 0 ? s.ref.get() : s.cmp.get();
            const auto* data = static_cast<const unsigned char*>(plane.data);
            if (format_.bit_depth == 8)
                to_float_kernel<std::uint8_t><<<grid0, kThreads, 0, stream>>>(data, plane.pitch, w, scaler, dst);
            else
                to_float_kernel<std::uint16_t><<<grid0, kThreads, 0, stream>>>(data, plane.pitch, w, scaler, dst);
            cuda::check_launch("iqa to_float_kernel");
        }
        for (int k = 1; k < plan_.levels; ++k) {
            const auto [pw, ph] = layout_.size[k - 1];
            const auto [sw, sh] = layout_.size[k];
            const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(sw), kThreads), static_cast<unsigned>(sh));
            for (int p = 0; p < 2; ++p) {
                float* base = p == 0 ? s.ref.get() : s.cmp.get();
                decimate_kernel<<<grid, kThreads, 0, stream>>>(base + layout_.offset[k - 1], pw, ph, plan_.factor, taps_.get(),
                                                               plan_.klen, base + layout_.offset[k], sw, plant_.mirror_shift);
                cuda::check_launch("iqa decimate_kernel");
            }
        }
        const unsigned mask = plan_.row_mask();
        for (std::size_t j = 0; j < plan_.scored.size(); ++j) {
            const int k = plan_.scored[j];
            const auto [lw, lh] = layout_.size[k];
            const int dw = lw - kGaussianLen + 1, dh = lh - kGaussianLen + 1;
            const dim3 hgrid(cuda::blocks_for(static_cast<std::size_t>(dw), kThreads), static_cast<unsigned>(lh));
            horizontal_kernel<<<hgrid, kThreads, 0, stream>>>(s.ref.get() + layout_.offset[k], s.cmp.get() + layout_.offset[k], lw,
                                                              s.cache.get(), cache_plane_, plant_);
            cuda::check_launch("iqa horizontal_kernel");
            const dim3 vgrid(cuda::blocks_for(static_cast<std::size_t>(dw), kThreads), static_cast<unsigned>(dh));
            terms_kernel<<<vgrid, kThreads, 0, stream>>>(s.cache.get(), cache_plane_, dw, s.rows.get(), pitch_, mask,
                                                         plant_);
            cuda::check_launch("iqa terms_kernel");
            const std::size_t windows = static_cast<std::size_t>(dw) * static_cast<std::size_t>(dh);
            s.seq->enqueue(s.rows.get() + static_cast<std::size_t>(plan_.first_row) * pitch_, windows, pitch_,
                           static_cast<unsigned>(plan_.row_count),
                           s.sums.get() + j * kTermRows + static_cast<std::size_t>(plan_.first_row), stream);
        }
        cuda::check(cudaMemcpyAsync(s.host_sums.get(), s.sums.get(), s.sums.size() * sizeof(double),
                                    cudaMemcpyDeviceToHost, stream),
                    "copying the SSIM sums to the host");
    }

    /// Once `slot`'s work has completed: the sums of the j-th scored level of frame `index`
    /// (rows outside the plan's run are 0).
    TermSums sums(unsigned slot, unsigned index, std::size_t j) const {
        frames_.check_holds(slot, index);
        TermSums out{};
        for (int r = 0; r < kTermRows; ++r) out[static_cast<std::size_t>(r)] = slots_[slot].host_sums[j * kTermRows + r];
        return out;
    }

private:
    struct Slot {
        cuda::DeviceBuffer<float> ref, cmp;  // the pyramid's levels, packed one after another
        cuda::DeviceBuffer<float> cache;     // kMaps planes of the horizontal pass
        cuda::DeviceBuffer<double> rows;     // rows 0 .. first_row + row_count - 1 of window terms, pitch_ apart
        cuda::DeviceBuffer<double> sums;     // kTermRows per scored level
        cuda::PinnedBuffer<double> host_sums;
        std::unique_ptr<gpu::SequentialSum<double>> seq;
    };

    const char* name_;
    VideoFormat format_;
    TwinPlan plan_;
    Plant plant_;
    cuda::SlotFrames frames_;
    TwinLayout layout_;
    std::size_t pitch_ = 0, cache_plane_ = 0;
    cuda::DeviceBuffer<float> taps_;
    std::vector<Slot> slots_;
};

}  // namespace

}  // namespace vmafx::iqa::device
