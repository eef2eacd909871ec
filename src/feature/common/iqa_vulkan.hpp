// The Vulkan half of the float_ssim and float_ms_ssim twins (float_ssim_vulkan.cpp,
// float_ms_ssim_vulkan.cpp): the per-slot device memory and the passes of iqa_vulkan.comp that
// turn the luma of a picture pair into the running sums of _iqa_ssim (iqa::TermSums) of one or
// more pyramid levels, bit for bit the CPU's (iqa.cpp), as the CUDA twins' iqa_cuda.cuh does.
//
// Per frame, on the frame's queue: pass 0 (both lumas as floats, level 0), pass 1 per picture and
// level below (the decimation), then per scored level pass 2 (the Gaussian's horizontal pass of
// the five maps), pass 3 (the vertical pass and each window's terms, written to the term rows)
// and vulkan::SequentialSum over the rows the outputs need (the CPU's running double sums in
// raster order, reproduced exactly), and one copy of the sums to the slot's host memory.
//
// Planted regressions (parity-gate tests only), as the CUDA twins' (iqa_twin.hpp's Plant):
// kMirrorShift (the decimation's mirror below 0 and the last window column's last horizontal tap)
// and kRoundingConstant (ref*ref's vertical pass rounded toward zero). No kContraction: the CUDA
// twins plant it as an explicit fma, which tools/spirv_strict.py refuses in a shader; every float
// operation of the module is NoContraction.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "feature/common/iqa.hpp"
#include "feature/common/iqa_twin.hpp"
#include "gpu/slot_frames.hpp"
#include "gpu/twin.hpp"
#include "vulkan/sequential_sum.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx::iqa {

/// The planted regressions a Vulkan twin of this pipeline can carry.
inline constexpr PlantedDefect kVulkanDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant};

/// Per-slot device memory (allocated at creation for the format) and the passes.
class VulkanSsimPipeline {
public:
    /// Throws Error on Vulkan errors. `name`: the twin, for messages.
    VulkanSsimPipeline(const char* name, const VideoFormat& format, TwinPlan plan, unsigned slots,
                       PlantedDefect plant);

    /// Size {w, h} of pyramid level k.
    const std::array<int, 2>& size(int k) const { return layout_.size[static_cast<std::size_t>(k)]; }

    /// Records frame `f`'s work in `slot` on `queue` (never waits).
    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue);

    /// Once `slot`'s work is done: the sums of the j-th scored level of frame `index` (rows
    /// outside the plan's are 0).
    TermSums sums(unsigned slot, unsigned index, std::size_t j) const;

private:
    struct Slot {
        vulkan::DeviceBuffer<float> ref, cmp;  // the pyramid's levels, packed one after another
        vulkan::DeviceBuffer<float> cache;     // the horizontal pass's maps, cache_plane apart
        vulkan::DeviceBuffer<double> rows;     // the plan's term rows, pitch apart
        vulkan::DeviceBuffer<double> sums;     // kTermRows per scored level
        std::vector<double> host_sums;
        std::unique_ptr<vulkan::SequentialSum<double>> seq;
    };

    const char* name_;
    VideoFormat format_;
    TwinPlan plan_;
    Plant plant_;
    TwinLayout layout_;
    vulkan::Kernel kernel_;
    vulkan::DeviceBuffer<float> taps_;
    std::vector<Slot> slots_;
    SlotFrames frames_;
};

}  // namespace vmafx::iqa
