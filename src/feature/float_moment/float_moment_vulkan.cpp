// Vulkan twin of the float_moment metric (float_moment.cpp), bit-identical to it on every frame,
// as the CUDA twin (float_moment_cuda.cu) is, by the same method.
//
// The CPU adds, in double and in row-major order, v = float(x) / scaler (first moment) and the
// float square v2 = v * v (second moment) of every luma sample x, then divides by w * h.
// Per frame, on the frame's queue (float_moment_vulkan.comp):
//  1. pass 0, per picture (reference, distorted), a workgroup per 256 columns and a stride of
//     rows: each invocation forms v and v2 with the CPU's own functions (float_moment_math.hpp)
//     and adds, in 64 bits, x and v2 * scaler^2 (an integer: v2 is float(x^2) / scaler^2,
//     float(x^2) an integer below 2^32); each workgroup's two sums go to its partials. Where
//     w * h * 2^(2 * bit_depth) > 2^53 (16 bits above 2^21 samples), it also writes v2 as a
//     double term, row-major (the CPU's order);
//  2. pass 1, one workgroup: each picture's partials added in 64 bits (exact, order-free);
//  3. on that path only, vulkan::SequentialSum reproduces the CPU's running double sums of the
//     two pictures' terms bit for bit (two rows of one call).
// Every partial sum of the CPU's first sum is (integer) / scaler below 2^53 / scaler, so exact:
// the first sum is (double)(sum x) / scaler. Where w * h * 2^(2 * bit_depth) <= 2^53 every
// partial sum of the second is an integer number of units below 2^53, so exact: it is
// (double)(units) / scaler^2. The sums are copied to the slot's host memory; finish() divides with
// the CPU's own finish_moments().
//
// Planted regressions (parity-gate tests only), as the CUDA twin's: kMirrorShift, the nearest
// meaningful defect of a metric without a neighbourhood, the first column read from column 1
// (pass 0); kRoundingConstant, the square's rounding to float removed (v * v in double, pass 0);
// kReductionOrder, the second sums taken in float over the partials (pass 1). No kContraction,
// for the CUDA twin's reason: no a*b+c on the device.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "feature/float_moment/float_moment.hpp"
#include "feature/float_moment/float_moment_math.hpp"
#include "gpu/slot_frames.hpp"
#include "gpu/twin.hpp"
#include "vulkan/sequential_sum.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx {

namespace {

const std::uint32_t kSpirv[] = {
#include "float_moment_vulkan.spv.inc"
};

constexpr int kGroup = 256;  // the shader's local_size_x
/// Workgroups along y of pass 0: each takes every kGridRows-th row (integer sums, order-free).
constexpr int kGridRows = 64;

/// float_moment_vulkan.comp's push constants, member for member.
struct Push {
    std::uint64_t a, b, c;
    float scaler;
    std::uint32_t pitch;
    std::int32_t width, height, wide, flag, pass, groups;
};
static_assert(sizeof(Push) == 56);

/// The device sums of one frame (per slot), copied to the host as one block; pass 1 writes
/// first and second as four consecutive uint64.
struct MomentSums {
    std::uint64_t first[2];   ///< sum of x, reference and distorted
    std::uint64_t second[2];  ///< sum of v2 * scaler^2 (integer units)
    double sequential[2];     ///< SequentialSum of v2 (the terms' path only)
    float planted[2];         ///< kReductionOrder's float sums, in units
};

class FloatMomentVulkanTwin final : public GpuTwin {
public:
    FloatMomentVulkanTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(plant), scaler_(float_moment::scaler_of(format.bit_depth)),
          samples_(static_cast<std::size_t>(format.width) * static_cast<std::size_t>(format.height)),
          groups_((format.width + kGroup - 1) / kGroup), grid_rows_(std::min(format.height, kGridRows)),
          kernel_(kSpirv, sizeof(Push), "float_moment (Vulkan)"), sums_(slots), host_sums_(slots),
          // The CPU's second sum is exact (an integer number of units below 2^53 at every step)
          // where w * h * 2^(2 * bit_depth) <= 2^53; beyond, its running double sum rounds.
          sequential_(samples_, 2, slots, gpu::double_sum_may_round(samples_, 2 * format.bit_depth)),
          frames_("float_moment (Vulkan)", slots) {
        (void)options;  // none; the descriptor's check refused what the CPU refuses before this
        partials_ = vulkan::DeviceBuffer<std::uint64_t>(slot_partials() * slots);
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        frames_.enqueued(slot, f.index);
        const DevicePlane* planes[2] = {&f.ref.luma(), &f.dist.luma()};
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
        const std::size_t per_sum = static_cast<std::size_t>(groups_) * grid_rows_;
        const std::uint64_t partials = partials_.address(slot_partials() * slot);
        for (int pic = 0; pic < 2; ++pic) {
            const DevicePlane& plane = *planes[pic];
            if (!plane.data)
                throw Error("float_moment (Vulkan): frame " + std::to_string(f.index) + " has no " +
                            (pic == 0 ? "reference" : "distorted") + " luma");
            if (plane.pitch < row_bytes)
                throw Error("float_moment (Vulkan): a luma pitch below the row's " + std::to_string(row_bytes) + " bytes");
            Push p{};
            p.a = vulkan::address(plane.data);
            p.b = partials + 2 * per_sum * sizeof(std::uint64_t) * pic;
            p.c = sequential_.terms(slot, static_cast<unsigned>(pic));
            p.scaler = scaler_;
            p.pitch = static_cast<std::uint32_t>(plane.pitch);
            p.width = format_.width;
            p.height = format_.height;
            p.wide = format_.bit_depth > 8;
            p.flag = plant_ == PlantedDefect::kMirrorShift ? 1 : plant_ == PlantedDefect::kRoundingConstant ? 2 : 0;
            p.pass = 0;
            p.groups = groups_;
            kernel_.dispatch(queue, static_cast<std::uint32_t>(groups_), static_cast<std::uint32_t>(grid_rows_), 1, &p);
        }
        Push total{};
        total.a = partials;
        total.b = sums_.address(slot);
        total.c = sums_.address(slot) + offsetof(MomentSums, planted);
        total.height = static_cast<std::int32_t>(per_sum);
        total.flag = plant_ == PlantedDefect::kReductionOrder;
        total.pass = 1;
        kernel_.dispatch(queue, 1, 1, 1, &total);
        sequential_.enqueue(queue, slot, sums_.address(slot) + offsetof(MomentSums, sequential));
        vulkan::copy_to_host(queue, &host_sums_[slot], sums_.at(slot), sizeof(MomentSums),
                             "copying the float_moment sums");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const MomentSums& s = host_sums_[slot];
        const double units = static_cast<double>(scaler_) * scaler_;
        double first[2], second[2];
        for (int pic = 0; pic < 2; ++pic) {
            first[pic] = static_cast<double>(s.first[pic]) / static_cast<double>(scaler_);  // both exact
            if (plant_ == PlantedDefect::kReductionOrder) second[pic] = static_cast<double>(s.planted[pic]) / units;
            else if (sequential_.active()) second[pic] = s.sequential[pic];
            else second[pic] = static_cast<double>(s.second[pic]) / units;  // both exact
            float_moment::finish_moments(first[pic], second[pic], format_.width, format_.height);
        }
        out.emplace_back("float_moment_ref1st", first[0]);
        out.emplace_back("float_moment_dis1st", first[1]);
        out.emplace_back("float_moment_ref2nd", second[0]);
        out.emplace_back("float_moment_dis2nd", second[1]);
    }

private:
    /// A slot's partials: per picture, groups_ x grid_rows_ first sums, then as many second sums.
    std::size_t slot_partials() const { return 4 * static_cast<std::size_t>(groups_) * grid_rows_; }

    VideoFormat format_;
    PlantedDefect plant_;
    float scaler_;
    std::size_t samples_;
    int groups_, grid_rows_;
    vulkan::Kernel kernel_;
    vulkan::DeviceBuffer<MomentSums> sums_;         // per slot
    std::vector<MomentSums> host_sums_;             // per slot
    vulkan::SlotSequentialSums sequential_;         // 2 x w * h terms per slot (where the CPU's sums may round)
    vulkan::DeviceBuffer<std::uint64_t> partials_;  // per slot: slot_partials()
    SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant,
                                      PlantedDefect::kReductionOrder};

}  // namespace

namespace float_moment {

extern const TwinDescriptor vulkan_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor vulkan_twin{
    "float_moment",
    make_twin<FloatMomentVulkanTwin>,
    {exact_bound,
     "bound 0 at every format: each sample's value and float square are the CPU's own functions "
     "(float_moment_math.hpp compiled as GLSL: IEEE division and product, NoContraction, no FTZ). The first sum "
     "is the integer sum of the samples (exact), and the CPU's double sum of x / scaler is exact at every step "
     "(below 2^53 / scaler), so it is that integer / scaler. The second sum is the integer sum of float(x^2) "
     "(v2 * scaler^2, exact); where w * h * 2^(2 * bit depth) <= 2^53 every partial sum of the CPU's is an "
     "integer number of these units below 2^53, hence exact, and the CPU's value is that integer / scaler^2; "
     "beyond (16 bits, more than 2^21 samples) the CPU's running double sum is reproduced bit for bit by "
     "vulkan::SequentialSum over the terms in the CPU's order. The divisions by w * h are the CPU's "
     "finish_moments on the host"},
    kDefects,
    "no a*b+c on the device: x / scaler, v * v and an exact scaling per sample, integer sums, and "
    "SequentialSum's exact arithmetic",
};

}  // namespace float_moment

}  // namespace vmafx
