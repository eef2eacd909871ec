// Vulkan twin of the integer PSNR metric "psnr" (psnr.cpp), bit-identical to it on every frame
// and in its aggregates, as the CUDA twin (psnr_cuda.cu) is.
//
// The CPU sums, per plane (luma, and Cb and Cr with enable_chroma, each at its own subsampled
// size), the uint32 squared errors of the sample pairs (psnr_math.hpp squared_error): at 8 bits
// each row in a uint32_t (wrapping modulo 2^32, as upstream), the rows into a uint64_t; above 8
// bits straight into the uint64_t. Then everything else in double on the host.
// Per frame and scored plane, on the frame's queue (psnr_vulkan.comp):
//  1. pass 0, a workgroup per 256 columns and row (rows beyond the device's grid loop): each
//     invocation forms squared_error (the CPU's function), the workgroup adds its 256 in 64 bits
//     and stores the sum modulo 2^32 per row (8 bits), or per workgroup over its rows (above);
//  2. pass 1, one workgroup: at 8 bits each row's partial sums added modulo 2^32 (the CPU's
//     wrapped row sum, order-free), the rows in 64 bits; above, the partial sums in 64 bits
//     (exact, order-free: below 2^64 for any plane below 2^32 samples).
// The plane sums are copied to the slot's host memory; finish() scores each plane with the CPU's
// own psnr::Scorer, and flush() is the CPU's Scorer::flush (the aggregates).
//
// Planted regressions (parity-gate tests only): kMirrorShift, the nearest meaningful defect of a
// metric without a neighbourhood: the first column read from column 1 (pass 0); kReductionOrder:
// the squared errors summed in float (pass 1). No contraction and no rounding constant: integer
// arithmetic only on the device.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "feature/psnr/psnr.hpp"
#include "gpu/slot_frames.hpp"
#include "gpu/twin.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx {

namespace {

const std::uint32_t kSpirv[] = {
#include "psnr_vulkan.spv.inc"
};

constexpr int kGroup = 256;       // invocations of a workgroup (the shader's local_size_x)
constexpr int kMaxGridRows = 65535;  // workgroups along y: every device allows this many

/// psnr_vulkan.comp's push constants, member for member.
struct Push {
    std::uint64_t a, b, c;
    std::uint32_t ref_pitch, dist_pitch;
    std::int32_t width, height, wide, flag, pass, groups;
};
static_assert(sizeof(Push) == 56);

/// The device sums of one frame (per slot), copied to the host as one block.
struct PlaneSums {
    std::uint64_t sse[3];
    float planted[3];  ///< kReductionOrder's float sums
    std::uint32_t pad;
};

class PsnrVulkanTwin final : public GpuTwin {
public:
    PsnrVulkanTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(plant), scorer_(options, format), kernel_(kSpirv, sizeof(Push), "psnr (Vulkan)"),
          sums_(slots), host_sums_(slots), frames_("psnr (Vulkan)", slots) {
        for (int p = 0; p < 3; ++p) {
            const int width = format.plane_width(p), height = format.plane_height(p);
            groups_[p] = (width + kGroup - 1) / kGroup;
            grid_rows_[p] = std::min(height, kMaxGridRows);
            partial_offset_[p] = partials_per_slot_;
            partials_per_slot_ += static_cast<std::size_t>(groups_[p]) * static_cast<std::size_t>(height);
        }
        // uint64 entries: room for the 8-bit case's uint32 ones too.
        partials_ = vulkan::DeviceBuffer<std::uint64_t>(partials_per_slot_ * slots);
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        frames_.enqueued(slot, f.index);
        for (int p = 0; p < scorer_.planes(); ++p) {
            const DevicePlane& ref = f.ref.planes[p];
            const DevicePlane& dist = f.dist.planes[p];
            if (!ref.data || !dist.data) throw Error("psnr (Vulkan): plane " + std::to_string(p) + " is missing");
            add_sse(ref, dist, p, slot, queue);
        }
        vulkan::copy_to_host(queue, &host_sums_[slot], sums_.at(slot), sizeof(PlaneSums), "copying the psnr sums");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        scorer_.score_device_sums(host_sums_[slot], plant_ == PlantedDefect::kReductionOrder, out);
    }

    void flush(ScoreTable& table) const override { scorer_.flush(table); }

private:
    void add_sse(const DevicePlane& ref, const DevicePlane& dist, int p, unsigned slot, GpuQueue* queue) const {
        const int width = format_.plane_width(p), height = format_.plane_height(p);
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(width) * format_.bytes_per_sample();
        if (ref.pitch < row_bytes || dist.pitch < row_bytes) throw Error("psnr (Vulkan): a pitch below the row");
        const bool wide = format_.bit_depth > 8;
        const std::uint64_t partials = partials_.address(partials_per_slot_ * slot + partial_offset_[p]);
        const std::uint64_t sse = vulkan::address(sums_.at(slot)) + offsetof(PlaneSums, sse) + 8 * p;
        const std::uint64_t planted = vulkan::address(sums_.at(slot)) + offsetof(PlaneSums, planted) + 4 * p;
        Push first{};
        first.a = vulkan::address(ref.data);
        first.b = vulkan::address(dist.data);
        first.c = partials;
        first.ref_pitch = static_cast<std::uint32_t>(ref.pitch);
        first.dist_pitch = static_cast<std::uint32_t>(dist.pitch);
        first.width = width;
        first.height = height;
        first.wide = wide;
        first.flag = plant_ == PlantedDefect::kMirrorShift;
        first.pass = 0;
        first.groups = groups_[p];
        kernel_.dispatch(queue, static_cast<std::uint32_t>(groups_[p]), static_cast<std::uint32_t>(grid_rows_[p]), 1,
                         &first);
        Push second{};
        second.a = partials;
        second.b = sse;
        second.c = planted;
        second.width = wide ? 0 : groups_[p];
        second.height = wide ? groups_[p] * grid_rows_[p] : height;
        second.wide = wide;
        second.flag = plant_ == PlantedDefect::kReductionOrder;
        second.pass = 1;
        kernel_.dispatch(queue, 1, 1, 1, &second);
    }

    VideoFormat format_;
    PlantedDefect plant_;
    psnr::Scorer scorer_;
    vulkan::Kernel kernel_;
    int groups_[3] = {}, grid_rows_[3] = {};
    std::size_t partial_offset_[3] = {};
    std::size_t partials_per_slot_ = 0;
    vulkan::DeviceBuffer<std::uint64_t> partials_;  // per slot: every plane's partial sums
    vulkan::DeviceBuffer<PlaneSums> sums_;          // per slot
    std::vector<PlaneSums> host_sums_;              // per slot
    SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kReductionOrder};

}  // namespace

namespace psnr {

extern const TwinDescriptor vulkan_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor vulkan_twin{
    "psnr",
    make_twin<PsnrVulkanTwin>,
    {exact_bound,
     "bound 0 at every format and option: the device path is integer arithmetic only. Each sample pair's "
     "squared error is the CPU's own function (psnr_math.hpp, compiled as GLSL); at 8 bits each row's uint32 sum "
     "is formed as the CPU's (addition modulo 2^32, order-free) and the rows are summed in 64 bits, above 8 bits "
     "the plane is summed in 64 bits (exact, order-free), for every plane the options score. Every double (MSE, "
     "PSNR and its caps, the apsnr aggregates) is formed on the host by the CPU's own psnr::Scorer"},
    kDefects,
    "integer arithmetic only on the device",
};

}  // namespace psnr

}  // namespace vmafx
