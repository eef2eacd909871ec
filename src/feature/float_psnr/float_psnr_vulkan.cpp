// Vulkan twin of the float_psnr metric (float_psnr.cpp), bit-identical to it on every frame, as
// the CUDA twin (float_psnr_cuda.cu) is, by the same method.
//
// The CPU adds, in double and in row-major order, the float square d2 of the float difference of
// each pair of luma samples as picture_copy makes them (float(x) / scaler), then forms the PSNR
// from the sum. Per frame, on the frame's queue (float_psnr_vulkan.comp):
//  1. pass 0, a workgroup per 256 columns and a stride of rows: each invocation forms d2 with the
//     CPU's own function (float_psnr_math.hpp) and adds d2 * scaler^2, an integer (d2 is
//     float(D^2) / scaler^2 for the integer difference D, float(D^2) an integer below 2^32), to
//     its 64-bit sum in these units; each workgroup's sum goes to its partial. Where
//     w * h * 2^(2 * bit_depth) > 2^53 (16 bits above 2^21 samples), it also writes d2 as a
//     double term, row-major (the CPU's order);
//  2. pass 1, one workgroup: the partials added in 64 bits (exact, order-free);
//  3. on that path only, vulkan::SequentialSum reproduces the CPU's running double sum of the
//     terms bit for bit.
// Where w * h * 2^(2 * bit_depth) <= 2^53 every partial sum of the CPU's is an integer number of
// units below 2^53, so exact, and the CPU's sum is (double)(units) / scaler^2 exactly. The sums
// are copied to the slot's host memory; finish() forms the score with the CPU's own
// psnr_of_noise (the division by w * h, the log and the caps).
//
// Planted regressions (parity-gate tests only), as the CUDA twin's: kMirrorShift, the nearest
// meaningful defect of a metric without a neighbourhood, the first column read from column 1
// (pass 0); kReductionOrder, the sum taken in float over the partials (pass 1). No
// kRoundingConstant and no kContraction, for the CUDA twin's reasons (float_psnr_cuda.cu): the
// float square is the only rounding, and there is no a*b+c on the device.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "feature/float_psnr/float_psnr.hpp"
#include "feature/float_psnr/float_psnr_math.hpp"
#include "gpu/slot_frames.hpp"
#include "gpu/twin.hpp"
#include "vulkan/sequential_sum.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx {

namespace {

const std::uint32_t kSpirv[] = {
#include "float_psnr_vulkan.spv.inc"
};

constexpr int kGroup = 256;  // the shader's local_size_x
/// Workgroups along y of pass 0: each takes every kGridRows-th row (integer sums, order-free).
constexpr int kGridRows = 64;

/// float_psnr_vulkan.comp's push constants, member for member.
struct Push {
    std::uint64_t a, b, c, terms;
    float scaler;
    std::uint32_t ref_pitch, dist_pitch;
    std::int32_t width, height, wide, flag, pass, groups, pad;
};
static_assert(sizeof(Push) == 72);

/// The device sums of one frame (per slot), copied to the host as one block.
struct NoiseSums {
    std::uint64_t units;  ///< sum of d2 * scaler^2 (integer units)
    double sequential;    ///< SequentialSum of d2 (the terms' path only)
    float planted;        ///< kReductionOrder's float sum, in units
    std::uint32_t pad;
};

class FloatPsnrVulkanTwin final : public GpuTwin {
public:
    FloatPsnrVulkanTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(plant), scaler_(float_psnr::scaler_of(format.bit_depth)),
          samples_(static_cast<std::size_t>(format.width) * static_cast<std::size_t>(format.height)),
          groups_((format.width + kGroup - 1) / kGroup), grid_rows_(std::min(format.height, kGridRows)),
          kernel_(kSpirv, sizeof(Push), "float_psnr (Vulkan)"), sums_(slots), host_sums_(slots),
          // The CPU's sum is exact (an integer number of units below 2^53 at every step) where
          // w * h * 2^(2 * bit_depth) <= 2^53; beyond, its running double sum rounds.
          sequential_(samples_, 1, slots, gpu::double_sum_may_round(samples_, 2 * format.bit_depth)),
          frames_("float_psnr (Vulkan)", slots) {
        (void)options;  // none; the descriptor's check refused what the CPU refuses before this
        partials_ = vulkan::DeviceBuffer<std::uint64_t>(static_cast<std::size_t>(groups_) * grid_rows_ * slots);
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        frames_.enqueued(slot, f.index);
        const DevicePlane& ref = f.ref.luma();
        const DevicePlane& dist = f.dist.luma();
        if (!ref.data || !dist.data)
            throw Error("float_psnr (Vulkan): frame " + std::to_string(f.index) + " has no reference or distorted luma");
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
        if (ref.pitch < row_bytes || dist.pitch < row_bytes)
            throw Error("float_psnr (Vulkan): a luma pitch below the row's " + std::to_string(row_bytes) + " bytes");
        const std::uint64_t partials = partials_.address(static_cast<std::size_t>(groups_) * grid_rows_ * slot);
        Push p{};
        p.a = vulkan::address(ref.data);
        p.b = vulkan::address(dist.data);
        p.c = partials;
        p.terms = sequential_.terms(slot);
        p.scaler = scaler_;
        p.ref_pitch = static_cast<std::uint32_t>(ref.pitch);
        p.dist_pitch = static_cast<std::uint32_t>(dist.pitch);
        p.width = format_.width;
        p.height = format_.height;
        p.wide = format_.bit_depth > 8;
        p.flag = plant_ == PlantedDefect::kMirrorShift;
        p.pass = 0;
        p.groups = groups_;
        kernel_.dispatch(queue, static_cast<std::uint32_t>(groups_), static_cast<std::uint32_t>(grid_rows_), 1, &p);
        Push total{};
        total.a = partials;
        total.b = sums_.address(slot);
        total.c = sums_.address(slot) + offsetof(NoiseSums, planted);
        total.height = groups_ * grid_rows_;
        total.flag = plant_ == PlantedDefect::kReductionOrder;
        total.pass = 1;
        kernel_.dispatch(queue, 1, 1, 1, &total);
        sequential_.enqueue(queue, slot, sums_.address(slot) + offsetof(NoiseSums, sequential));
        vulkan::copy_to_host(queue, &host_sums_[slot], sums_.at(slot), sizeof(NoiseSums), "copying the float_psnr sums");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const NoiseSums& s = host_sums_[slot];
        const double units = static_cast<double>(scaler_) * scaler_;
        double noise = 0;
        if (plant_ == PlantedDefect::kReductionOrder) noise = static_cast<double>(s.planted) / units;
        else if (sequential_.active()) noise = s.sequential;
        else noise = static_cast<double>(s.units) / units;  // both exact
        out.emplace_back("float_psnr", float_psnr::psnr_of_noise(noise, format_.width, format_.height, format_.bit_depth));
    }

private:
    VideoFormat format_;
    PlantedDefect plant_;
    float scaler_;
    std::size_t samples_;
    int groups_, grid_rows_;
    vulkan::Kernel kernel_;
    vulkan::DeviceBuffer<NoiseSums> sums_;          // per slot
    std::vector<NoiseSums> host_sums_;              // per slot
    vulkan::SlotSequentialSums sequential_;         // w * h terms per slot (where the CPU's sum may round)
    vulkan::DeviceBuffer<std::uint64_t> partials_;  // per slot: groups_ x grid_rows_
    SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kReductionOrder};

}  // namespace

namespace float_psnr {

extern const TwinDescriptor vulkan_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor vulkan_twin{
    "float_psnr",
    make_twin<FloatPsnrVulkanTwin>,
    {exact_bound,
     "bound 0 at every format: each sample pair's noise term is the CPU's own function (float_psnr_math.hpp "
     "compiled as GLSL: IEEE division, difference and product, NoContraction, no FTZ). The frame's sum is the "
     "integer sum of float(D^2) (d2 * scaler^2, exact); where w * h * 2^(2 * bit depth) <= 2^53 every partial "
     "sum of the CPU's is an integer number of these units below 2^53, hence exact, and the CPU's value is that "
     "integer / scaler^2; beyond (16 bits, more than 2^21 samples) the CPU's running double sum is reproduced bit "
     "for bit by vulkan::SequentialSum over the terms in the CPU's order. The division by w * h, the log and the "
     "caps are the CPU's psnr_of_noise on the host"},
    kDefects,
    "no a*b+c on the device: two exact scalings, an exact difference and one float product per sample pair, "
    "integer sums, and SequentialSum's exact arithmetic",
};

}  // namespace float_psnr

}  // namespace vmafx
