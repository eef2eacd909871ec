// CUDA twin of ciede (ciede.cpp), bit-identical to it on every frame.
//
// The CPU adds, in double and in raster order, each pixel's CIEDE2000 difference (a float) and
// forms 45 - 20 log10(S / (w h)). Per frame, difference_kernel runs a thread per pixel: it reads
// the pixel's Y, Cb and Cr of both pictures as the CPU does (ciede_formula.hpp chroma_position,
// 4:2:2's upstream padding included) and evaluates ciede_formula.hpp's lab_of and delta_e_2000,
// the CPU's own text, under DeviceMath:
//  - every float operation, and every double operation whose operands are known exactly, is
//    computed as written (IEEE, round to nearest: --fmad=false, -prec-div, -prec-sqrt);
//  - a library call (pow, atan2, sin, cos, exp) is the device's function widened into an
//    interval that holds the CPU's result for sure: the device's value within 2 ULP of the
//    exact one (CUDA's documented maxima for these double functions), the CPU's within 1 ULP
//    (glibc's documented maxima on x86-64; vmafx's own exp within 0.51), an ULP of the exact
//    value at most twice the device value's, so 6 ULP of the device value; the interval is
//    widened by 8 relative ULP (2^-49 |d|) and 8 subnormal steps. Exact special values are kept
//    exact: pow(+0, y > 0) = +0, atan2(+-0, x > 0) = +-0, sin(+-0) = +-0, cos(0) = exp(0) = 1;
//  - the double operations between such a call and the next conversion to float are interval
//    arithmetic with directed rounding (each of the CPU's round-to-nearest results lies between
//    the round-down of the lowest and the round-up of the highest exact result), and the CPU's
//    branch on such a value (lab_f's c > epsilon) is taken where the interval decides it;
//  - at the conversion to float (every such chain ends in one), both ends of the interval are
//    converted: the same float (same bits) is the CPU's float, since rounding is monotone.
//    Otherwise, or where a branch is undecided, the pixel is "hard": its six samples go to a
//    per-slot list and its term waits for the host.
// powf is the CPU's own (libm::powf_with, base/libm_powf.hpp, host and device: one source).
// The terms (doubles) are summed by SequentialSum<double> (cuda/sequential_sum.hpp), the CPU's
// running sum bit for bit, and only the sum and the hard count come back. finish(): where the
// count is not 0, the hard pixels' samples are copied back, their terms computed with the CPU's
// own pixel_difference, written into the device terms and the sum taken again (a rare path: at
// 8 ULP a conversion is undecided with probability about 2^-24, so a 3840x2160 frame has a few
// such pixels at most; the tests force it on every pixel). The score is the CPU's score_of_sum.
//
// Planted regressions (parity-gate tests only; plant_, fixed at creation):
//  kMirrorShift:      every pixel's chroma read one luma column to the right (the last column
//                     its own), in difference_kernel (the nearest to a border shift: ciede reads
//                     no neighbourhood);
//  kRoundingConstant: the conversions to float of exactly known doubles rounded toward zero,
//                     in DeviceMath::to_float;
//  kReductionOrder:   the frame sum as float atomics (any order, float precision) instead of the
//                     CPU's sequential double sum. A parallel *double* sum is not planted: the
//                     H200 run showed it invisible on the gate's small inputs (a few hundred
//                     thousand float terms: every partial sum exact in double, any order the
//                     CPU's bits).
// No kContraction: every a*b+c of ciede is the shared formula's text (ciede_formula.hpp),
// which the twin does not rewrite; the twin's own arithmetic (interval bounds, the sum) moves
// no value the CPU computes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <math_constants.h>

#include "base/libm_powf.hpp"
#include "cuda/device.hpp"
#include "cuda/sequential_sum.hpp"
#include "feature/ciede/ciede.hpp"
#include "feature/ciede/ciede_formula.hpp"
#include "feature/ciede/ciede_twin.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

constexpr unsigned kThreads = 128;

/// The widening of a library result: 8 relative ULP and 8 subnormal steps (see the header).
constexpr double kRelativeSlack = 0x1p-49;
constexpr double kAbsoluteSlack = 0x8p-1074;

/// A double the CPU computes, known to lie in [lo, hi] (lo == hi: known exactly). NaN ends:
/// unknown (the pixel is hard).
struct Interval {
    double lo, hi;
    __device__ Interval(double x) : lo(x), hi(x) {}  // NOLINT: doubles convert, as in the formula
    __device__ Interval(double l, double h) : lo(l), hi(h) {}
};

__device__ inline bool exact(const Interval& a) { return a.lo == a.hi; }
__device__ inline bool unknown(const Interval& a) { return isnan(a.lo) || isnan(a.hi); }
__device__ inline Interval nowhere() { return {CUDART_NAN, CUDART_NAN}; }

__device__ inline Interval operator+(const Interval& a, const Interval& b) {
    if (exact(a) && exact(b)) return Interval(a.lo + b.lo);
    return {__dadd_rd(a.lo, b.lo), __dadd_ru(a.hi, b.hi)};
}
__device__ inline Interval operator-(const Interval& a, const Interval& b) {
    if (exact(a) && exact(b)) return Interval(a.lo - b.lo);
    return {__dadd_rd(a.lo, -b.hi), __dadd_ru(a.hi, -b.lo)};
}
__device__ inline Interval operator*(const Interval& a, const Interval& b) {
    if (exact(a) && exact(b)) return Interval(a.lo * b.lo);
    if (unknown(a) || unknown(b)) return nowhere();
    const double l = fmin(fmin(__dmul_rd(a.lo, b.lo), __dmul_rd(a.lo, b.hi)),
                          fmin(__dmul_rd(a.hi, b.lo), __dmul_rd(a.hi, b.hi)));
    const double h = fmax(fmax(__dmul_ru(a.lo, b.lo), __dmul_ru(a.lo, b.hi)),
                          fmax(__dmul_ru(a.hi, b.lo), __dmul_ru(a.hi, b.hi)));
    return {l, h};
}
__device__ inline Interval operator/(const Interval& a, const Interval& b) {
    if (exact(a) && exact(b)) return Interval(a.lo / b.lo);
    if (unknown(a) || unknown(b) || (b.lo <= 0.0 && b.hi >= 0.0)) return nowhere();
    const double l = fmin(fmin(__ddiv_rd(a.lo, b.lo), __ddiv_rd(a.lo, b.hi)),
                          fmin(__ddiv_rd(a.hi, b.lo), __ddiv_rd(a.hi, b.hi)));
    const double h = fmax(fmax(__ddiv_ru(a.lo, b.lo), __ddiv_ru(a.lo, b.hi)),
                          fmax(__ddiv_ru(a.hi, b.lo), __ddiv_ru(a.hi, b.hi)));
    return {l, h};
}

/// ciede_formula.hpp's policy on the device (see the header): `hard` is set where the CPU's
/// value cannot be decided.
struct DeviceMath {
    using D = Interval;
    bool hard;
    bool plant_rounding;
    double relative_slack;
    const libm::PowfTables* powf_tables;

    /// Where the CPU's library result lies, given the device's `d` for the same call.
    __device__ Interval around(double d) const {
        if (!isfinite(d)) return nowhere();
        const double r = __dadd_ru(__dmul_ru(fabs(d), relative_slack), kAbsoluteSlack);
        return {__dadd_rd(d, -r), __dadd_ru(d, r)};
    }
    __device__ Interval pow(const Interval& x, double y) const {
        if (exact(x) && x.lo == 0.0) return Interval(0.0);  // pow(+0, y > 0) = +0 (x is never -0 here)
        if (!(x.lo > 0.0)) return nowhere();
        // x^y increases with x for y > 0 (the formula's exponents: 2.4, 1/3, 7).
        return {around(::pow(x.lo, y)).lo, around(::pow(x.hi, y)).hi};
    }
    __device__ Interval atan2(double y, double x) const {
        if (y == 0.0 && x > 0.0) return Interval(y);
        return around(::atan2(y, x));
    }
    __device__ Interval sin(double x) const { return x == 0.0 ? Interval(x) : around(::sin(x)); }
    __device__ Interval cos(double x) const { return x == 0.0 ? Interval(1.0) : around(::cos(x)); }
    __device__ Interval exp(double x) const { return x == 0.0 ? Interval(1.0) : around(::exp(x)); }
    __device__ Interval sqrt(const Interval& x) const {
        if (exact(x)) return Interval(::sqrt(x.lo));
        if (unknown(x) || x.lo < 0.0) return nowhere();
        return {__dsqrt_rd(x.lo), __dsqrt_ru(x.hi)};
    }
    __device__ float powf(float x, float y) const { return libm::powf_with(x, y, *powf_tables); }
    __device__ float to_float(const Interval& x) {
        if (exact(x)) return plant_rounding ? __double2float_rz(x.lo) : static_cast<float>(x.lo);
        const float l = static_cast<float>(x.lo), h = static_cast<float>(x.hi);
        if (unknown(x) || __float_as_uint(l) != __float_as_uint(h)) hard = true;
        return l;
    }
    __device__ bool greater(const Interval& x, double c) {
        if (x.lo > c) return true;
        if (x.hi <= c) return false;
        hard = true;  // undecided, or unknown
        return false;
    }
};

/// A pixel whose term the host computes: its index in raster order and its samples as the CPU
/// reads them (Y, Cb, Cr of the reference, then of the distorted picture; 4:2:2 padding 0).
struct HardPixel {
    std::uint32_t index;
    std::uint16_t samples[6];
};

/// The per-frame results read back (per slot).
struct FrameSums {
    double sum;     ///< the terms' sequential sum
    unsigned hard;  ///< pixels in the hard list
    float planted;  ///< planted kReductionOrder: the terms' float atomic sum
};

/// What difference_kernel reads besides the pictures.
struct KernelArgs {
    int width, height, subsampling, chroma_width, bit_depth;
    bool plant_shift, plant_rounding, plant_order;
    double relative_slack;
    const libm::PowfTables* powf_tables;
};

/// A picture's three planes as the kernel reads them.
struct Planes {
    const unsigned char* data[3];
    std::ptrdiff_t pitch[3];
};

Planes planes_of(const DevicePicture& pic) {
    Planes p{};
    for (int k = 0; k < 3; ++k) {
        p.data[k] = static_cast<const unsigned char*>(pic.planes[static_cast<std::size_t>(k)].data);
        p.pitch[k] = pic.planes[static_cast<std::size_t>(k)].pitch;
    }
    return p;
}

template <typename Sample>
__device__ inline std::uint16_t sample_at(const Planes& p, int k, int col, int row) {
    return reinterpret_cast<const Sample*>(p.data[k] + row * p.pitch[k])[col];
}

/// One pixel's samples (Y, Cb, Cr) of `pic` as the CPU reads them at (x, y); the chroma view is
/// read at column `cx`.
template <typename Sample>
__device__ inline void pixel_samples(const Planes& pic, const KernelArgs& a, int x, int cx, int y,
                                     std::uint16_t* out) {
    out[0] = sample_at<Sample>(pic, 0, x, y);
    int col = 0, row = 0;
    const bool inside = ciede::chroma_position(a.subsampling, a.chroma_width, cx, y, col, row);
    out[1] = inside ? sample_at<Sample>(pic, 1, col, row) : 0;
    out[2] = inside ? sample_at<Sample>(pic, 2, col, row) : 0;
}

/// Each pixel's term into terms (raster order), or the pixel into the hard list. Grid: column
/// blocks x rows; block: kThreads.
template <typename Sample>
__global__ void __launch_bounds__(kThreads)
    difference_kernel(Planes ref, Planes dist, KernelArgs a, double* __restrict__ terms,
                      FrameSums* __restrict__ sums, HardPixel* __restrict__ hard) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= a.width) return;
    const int cx = a.plant_shift && x + 1 < a.width ? x + 1 : x;
    std::uint16_t s[6];
    pixel_samples<Sample>(ref, a, x, cx, y, s);
    pixel_samples<Sample>(dist, a, x, cx, y, s + 3);
    DeviceMath m{false, a.plant_rounding, a.relative_slack, a.powf_tables};
    const ciede::Lab c1 = ciede::formula::lab_of(m, static_cast<float>(s[0]), static_cast<float>(s[1]),
                                                 static_cast<float>(s[2]), a.bit_depth);
    const ciede::Lab c2 = ciede::formula::lab_of(m, static_cast<float>(s[3]), static_cast<float>(s[4]),
                                                 static_cast<float>(s[5]), a.bit_depth);
    const float de = ciede::formula::delta_e_2000(m, c1, c2);
    const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.width) + static_cast<std::size_t>(x);
    if (m.hard) {
        const unsigned k = atomicAdd(&sums->hard, 1u);
        HardPixel& h = hard[k];
        h.index = static_cast<std::uint32_t>(i);
        for (int c = 0; c < 6; ++c) h.samples[c] = s[c];
        terms[i] = 0.0;
        return;
    }
    terms[i] = de;
    if (a.plant_order) atomicAdd(&sums->planted, de);
}

/// terms[index[k]] = value[k] for k < n.
__global__ void scatter_kernel(const std::uint32_t* __restrict__ index, const double* __restrict__ value, unsigned n,
                               double* __restrict__ terms) {
    const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) terms[index[k]] = value[k];
}

/// device_library_values' kernel.
__global__ void library_kernel(int function, const double* x, const double* y, double* out, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    switch (function) {
        case 0: out[i] = ::pow(x[i], y[i]); break;
        case 1: out[i] = ::atan2(x[i], y[i]); break;
        case 2: out[i] = ::sin(x[i]); break;
        case 3: out[i] = ::cos(x[i]); break;
        default: out[i] = ::exp(x[i]); break;
    }
}

class CiedeTwin final : public GpuTwin {
public:
    CiedeTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant,
              double relative_slack)
        : format_(format), settings_(options), plant_(plant), relative_slack_(relative_slack),
          pixels_(static_cast<std::size_t>(format.width) * static_cast<std::size_t>(format.height)),
          terms_(pixels_ * slots), hard_(pixels_ * slots), sums_(slots), host_sums_(slots), frames_("ciede", slots) {
        if (pixels_ > 0xffffffffu) throw Error("ciede (CUDA): a picture of more than 2^32 pixels");
        powf_tables_ = cuda::DeviceBuffer<libm::PowfTables>(1);
        cuda::check(cudaMemcpy(powf_tables_.get(), &libm::powf_tables(), sizeof(libm::PowfTables),
                               cudaMemcpyHostToDevice),
                    "cudaMemcpy (ciede's powf tables)");
        for (unsigned s = 0; s < slots; ++s)
            sequential_.push_back(std::make_unique<gpu::SequentialSum<double>>(pixels_, 1));
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        for (const DevicePicture* pic : {&f.ref, &f.dist})
            for (const DevicePlane& p : pic->planes)
                if (!p.data) throw Error("ciede (CUDA): a plane is missing");
        FrameSums* sums = sums_.get() + slot;
        double* terms = terms_.get() + pixels_ * slot;
        cuda::check(cudaMemsetAsync(sums, 0, sizeof(FrameSums), stream), "cudaMemsetAsync");
        const KernelArgs a{format_.width,
                           format_.height,
                           static_cast<int>(format_.subsampling),
                           format_.plane_width(1),
                           format_.bit_depth,
                           plant_ == PlantedDefect::kMirrorShift,
                           plant_ == PlantedDefect::kRoundingConstant,
                           plant_ == PlantedDefect::kReductionOrder,
                           relative_slack_,
                           powf_tables_.get()};
        const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(format_.width), kThreads),
                        static_cast<unsigned>(format_.height));
        HardPixel* hard = hard_.get() + pixels_ * slot;
        if (format_.bit_depth == 8)
            difference_kernel<std::uint8_t><<<grid, kThreads, 0, stream>>>(planes_of(f.ref), planes_of(f.dist), a, terms,
                                                                           sums, hard);
        else
            difference_kernel<std::uint16_t><<<grid, kThreads, 0, stream>>>(planes_of(f.ref), planes_of(f.dist), a, terms,
                                                                           sums, hard);
        cuda::check_launch("ciede difference_kernel");
        if (plant_ != PlantedDefect::kReductionOrder)
            sequential_[slot]->enqueue(terms, pixels_, pixels_, 1, &sums->sum, stream);
        cuda::check(cudaMemcpyAsync(host_sums_.get() + slot, sums, sizeof(FrameSums), cudaMemcpyDeviceToHost, stream),
                    "copying ciede's sums to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        double sum = plant_ == PlantedDefect::kReductionOrder ? host_sums_[slot].planted : host_sums_[slot].sum;
        if (host_sums_[slot].hard > 0) sum = host_path(slot, host_sums_[slot].hard);
        out.emplace_back(settings_.name, ciede::score_of_sum(sum, format_.width, format_.height));
    }

private:
    /// The frame's sum once the host has computed the terms of the `n` hard pixels of `slot`
    /// (the slot's device work is complete when finish() runs).
    double host_path(unsigned slot, unsigned n) {
        std::vector<HardPixel> pixels(n);
        cuda::check(cudaMemcpy(pixels.data(), hard_.get() + pixels_ * slot, n * sizeof(HardPixel),
                               cudaMemcpyDeviceToHost),
                    "copying ciede's hard pixels to the host");
        std::vector<std::uint32_t> where(n);
        std::vector<double> value(n);
        for (unsigned k = 0; k < n; ++k) {
            ciede::PixelSamples s{};
            for (int c = 0; c < 3; ++c) {
                s.ref[c] = static_cast<float>(pixels[k].samples[c]);
                s.dist[c] = static_cast<float>(pixels[k].samples[3 + c]);
            }
            where[k] = pixels[k].index;
            value[k] = ciede::pixel_difference(s, format_.bit_depth);
        }
        if (plant_ == PlantedDefect::kReductionOrder) {
            // The planted sum: the host terms added to the device's atomic sum of the others.
            float planted = host_sums_[slot].planted;
            for (const double v : value) planted += static_cast<float>(v);
            return planted;
        }
        cuda::DeviceBuffer<std::uint32_t> d_where(n);
        cuda::DeviceBuffer<double> d_value(n);
        const cudaStream_t stream = fix_stream_.get();
        cuda::check(cudaMemcpyAsync(d_where.get(), where.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice,
                                    stream),
                    "copying ciede's host terms to the device");
        cuda::check(cudaMemcpyAsync(d_value.get(), value.data(), n * sizeof(double), cudaMemcpyHostToDevice, stream),
                    "copying ciede's host terms to the device");
        double* terms = terms_.get() + pixels_ * slot;
        scatter_kernel<<<cuda::blocks_for(n, 256), 256, 0, stream>>>(d_where.get(), d_value.get(), n, terms);
        cuda::check_launch("ciede scatter_kernel");
        FrameSums* sums = sums_.get() + slot;
        sequential_[slot]->enqueue(terms, pixels_, pixels_, 1, &sums->sum, stream);
        cuda::check(cudaMemcpyAsync(host_sums_.get() + slot, sums, sizeof(FrameSums), cudaMemcpyDeviceToHost, stream),
                    "copying ciede's sum to the host");
        cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (ciede)");
        return host_sums_[slot].sum;
    }

    VideoFormat format_;
    ciede::Settings settings_;
    PlantedDefect plant_;
    double relative_slack_;
    std::size_t pixels_;
    cuda::DeviceBuffer<double> terms_;         // per slot: w h terms, raster order
    cuda::DeviceBuffer<HardPixel> hard_;       // per slot: up to w h hard pixels
    cuda::DeviceBuffer<FrameSums> sums_;       // per slot
    cuda::PinnedBuffer<FrameSums> host_sums_;  // per slot
    cuda::DeviceBuffer<libm::PowfTables> powf_tables_;
    std::vector<std::unique_ptr<gpu::SequentialSum<double>>> sequential_;  // per slot
    cuda::Stream fix_stream_;
    cuda::SlotFrames frames_;
};

std::unique_ptr<GpuTwin> create(const Options& options, const VideoFormat& format, unsigned slots,
                                PlantedDefect defect) {
    if (slots == 0) throw Error("a GPU twin needs at least one result slot");
    return std::make_unique<CiedeTwin>(options, format, slots, defect, kRelativeSlack);
}

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant,
                                      PlantedDefect::kReductionOrder};

}  // namespace

namespace ciede {

std::unique_ptr<GpuTwin> make_twin_with_slack(const VideoFormat& format, unsigned slots, double relative_slack) {
    if (slots == 0) throw Error("a GPU twin needs at least one result slot");
    return std::make_unique<CiedeTwin>(descriptor.parse_options({}), format, slots, PlantedDefect::kNone,
                                       relative_slack);
}

void device_library_values(int function, const double* x, const double* y, double* out, std::size_t n) {
    if (function < 0 || function > 4) throw Error("ciede (CUDA): no such library function");
    if (n == 0) return;
    cuda::DeviceBuffer<double> dx(n), dy(n), dout(n);
    cuda::check(cudaMemcpy(dx.get(), x, n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    cuda::check(cudaMemcpy(dy.get(), y, n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    library_kernel<<<cuda::blocks_for(n, 256), 256>>>(function, dx.get(), dy.get(), dout.get(), n);
    cuda::check_launch("ciede library_kernel");
    cuda::check(cudaMemcpy(out, dout.get(), n * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
}

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "ciede",
    create,
    {exact_bound,
     "bound 0 at every format: each pixel is ciede_formula.hpp's lab_of and delta_e_2000, the CPU's own text, "
     "with every float operation and every double operation on exactly known values as the CPU rounds them; "
     "each library call (pow, atan2, sin, cos, exp) is the device's widened into an interval that holds the "
     "CPU's result (device within 2 ULP, CPU within 1 ULP of the exact value: 8 ULP taken), carried by "
     "directed-rounding interval arithmetic to the next conversion to float, where both ends must give the "
     "same float, which is then the CPU's; where they do not (or lab_f's branch is undecided) the pixel's term "
     "is the CPU's own pixel_difference on the host. powf is the CPU's own (libm::powf_with). The raster-order "
     "double sum is SequentialSum<double>, the score the CPU's score_of_sum"},
    kDefects,
    "every a*b+c of ciede is the shared formula's text (ciede_formula.hpp), not rewritten by the twin; the "
    "twin's own arithmetic (the interval bounds, the sum) moves no value the CPU computes",
};

}  // namespace ciede
}  // namespace vmafx
