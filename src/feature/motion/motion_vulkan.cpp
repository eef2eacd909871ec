// Vulkan twin of the integer MOTION metric (motion.cpp), bit-identical to it on every frame, as
// the CUDA twin (motion_cuda.cu) is.
//
// Per scored frame, two dispatches of motion_vulkan.comp on the frame's queue:
//  1. pass 0, a workgroup per 256 columns and row: each invocation blurs the difference of the
//     previous and current reference luma at its sample with motion_math.hpp (the CPU's own
//     functions), and the workgroup's magnitudes are added modulo 2^32 into the row's partial
//     sum; all of it wraps modulo 2^32, so each row's sum equals the CPU's row_sad() whatever the
//     order of the terms;
//  2. pass 1, one workgroup: each row's partial sums modulo 2^32, the rows in 64 bits.
// The total is copied to the slot's host word; finish() turns it into the sad score with the
// CPU's own motion::Settings, and flush() is the CPU's flush. Frames the CPU does not score from
// pictures (before the first with a previous reference, or all with motion_force_zero) enqueue
// nothing and get the CPU's 0.
//
// Planted regressions (tests of the parity gate only): kMirrorShift, the rows above the top edge
// mirrored one row off; kRoundingConstant, the vertical pass rounding with 2^(bit_depth - 2). No
// kContraction and no kReductionOrder, for the CUDA twin's reasons: no floating-point operation,
// and every sum an integer sum modulo 2^32 or 2^64.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "feature/motion/motion.hpp"
#include "gpu/slot_frames.hpp"
#include "gpu/twin.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx {

namespace {

const std::uint32_t kSpirv[] = {
#include "motion_vulkan.spv.inc"
};

constexpr int kGroup = 256;          // the shader's local_size_x
constexpr int kMaxGridRows = 65535;  // workgroups along y: every device allows this many

/// motion_vulkan.comp's push constants, member for member.
struct Push {
    std::uint64_t a, b, c;
    std::uint32_t prev_pitch, cur_pitch;
    std::int32_t width, height, bit_depth, plant, pass, groups;
};
static_assert(sizeof(Push) == 56);

class MotionVulkanTwin final : public GpuTwin {
public:
    MotionVulkanTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(plant), settings_(options), kernel_(kSpirv, sizeof(Push), "motion (Vulkan)"),
          groups_((format.width + kGroup - 1) / kGroup),
          partials_(static_cast<std::size_t>(slots) * static_cast<std::size_t>(groups_) * format.height),
          totals_(slots), host_totals_(slots), frames_("motion (Vulkan)", slots), slot_scored_(slots, false) {}

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        frames_.enqueued(slot, f.index);
        slot_scored_[slot] = settings_.scores_frame(f.index);
        if (!slot_scored_[slot]) return;  // frame 0 (0 and 1 with the five-frame window), force zero
        const DevicePlane& prev = f.prev_ref[settings_.first_scored_index() - 1].luma();
        const DevicePlane& cur = f.ref.luma();
        if (!prev.data || !cur.data)
            throw Error("motion (Vulkan): frame " + std::to_string(f.index) + " needs the reference luma of frames " +
                        std::to_string(f.index - settings_.first_scored_index()) + " and " + std::to_string(f.index));
        const std::uint64_t partials =
            partials_.address(static_cast<std::size_t>(slot) * static_cast<std::size_t>(groups_) * format_.height);
        Push first{};
        first.a = vulkan::address(prev.data);
        first.b = vulkan::address(cur.data);
        first.c = partials;
        first.prev_pitch = checked_pitch(prev.pitch);
        first.cur_pitch = checked_pitch(cur.pitch);
        first.width = format_.width;
        first.height = format_.height;
        first.bit_depth = format_.bit_depth;
        first.plant = plant_ == PlantedDefect::kMirrorShift ? 1 : plant_ == PlantedDefect::kRoundingConstant ? 2 : 0;
        first.pass = 0;
        first.groups = groups_;
        kernel_.dispatch(queue, static_cast<std::uint32_t>(groups_),
                         static_cast<std::uint32_t>(std::min(format_.height, kMaxGridRows)), 1, &first);
        Push second = first;
        second.a = partials;
        second.b = totals_.address(slot);
        second.pass = 1;
        kernel_.dispatch(queue, 1, 1, 1, &second);
        vulkan::copy_to_host(queue, &host_totals_[slot], totals_.at(slot), sizeof(std::uint64_t),
                             "copying the motion sum");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        settings_.write_device_frame(slot_scored_[slot], host_totals_[slot], format_.width, format_.height, out);
    }

    void flush(ScoreTable& table) const override { settings_.flush(table); }

private:
    std::uint32_t checked_pitch(std::ptrdiff_t pitch) const {
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
        if (pitch < row_bytes || pitch > std::numeric_limits<std::int32_t>::max())
            throw Error("motion (Vulkan): luma pitch " + std::to_string(pitch) + " bytes is not usable for rows of " +
                        std::to_string(row_bytes) + " bytes");
        return static_cast<std::uint32_t>(pitch);
    }

    VideoFormat format_;
    PlantedDefect plant_;
    motion::Settings settings_;
    vulkan::Kernel kernel_;
    int groups_;
    vulkan::DeviceBuffer<std::uint32_t> partials_;  // slots x height x groups
    vulkan::DeviceBuffer<std::uint64_t> totals_;    // per slot
    std::vector<std::uint64_t> host_totals_;        // per slot
    SlotFrames frames_;
    std::vector<bool> slot_scored_;  // whether that frame is scored from pictures
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant};

}  // namespace

namespace motion {

extern const TwinDescriptor vulkan_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor vulkan_twin{
    "motion",
    make_twin<MotionVulkanTwin>,
    {exact_bound,
     "bound 0 at every format and option: integer arithmetic only, each step the CPU's own function "
     "(motion_math.hpp compiled as GLSL: the mirror, the vertical blur at the bit depth, the horizontal blur as "
     "upstream's vector lanes or exactly by column, the magnitude); each row's sum modulo 2^32 (order-free) and "
     "the rows in 64 bits as the CPU; the score, the motion2/motion3 windows and the flush on the host by the "
     "CPU's own motion::Settings"},
    kDefects,
    "integer arithmetic only on the device (taps, shifts and sums)",
};

}  // namespace motion

}  // namespace vmafx
