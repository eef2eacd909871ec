// Vulkan twin of float_ms_ssim (float_ms_ssim.cpp), bit-identical to it on every frame, as the
// CUDA twin (float_ms_ssim_cuda.cu) is, by the same passes (common/iqa_vulkan.hpp, shared with
// float_ssim's twin) and the same plan (float_ms_ssim_twin.hpp: four decimations by 2 through the
// 9x9 low-pass kernel, the five scales scored, the term rows l, c and s).
// Why each value is the CPU's bits: every per-sample and per-window operation is the CPU's own
// function compiled as GLSL (iqa_math.hpp, float_image_math.hpp), each an IEEE operation
// (NoContraction; divisions and the double square root correctly rounded by
// base/correctly_rounded.hpp); the running double sums of each scale are reproduced by
// vulkan::SequentialSum; the means (iqa::means_from_sums), the pow products of the scales, the
// infinity refusal, the dB conversion and the outputs run on the host in the CPU's own code
// (Settings::write_frame), so libm's pow is the CPU's. Refusals: the descriptor's limits,
// checked before the twin is made.
#include <array>

#include "feature/common/iqa_vulkan.hpp"
#include "feature/float_ms_ssim/float_ms_ssim.hpp"
#include "feature/float_ms_ssim/float_ms_ssim_twin.hpp"

namespace vmafx {

namespace {

using float_ms_ssim::kScales;

class FloatMsSsimVulkanTwin final : public GpuTwin {
public:
    FloatMsSsimVulkanTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : settings_(options),
          max_db_(iqa::max_db(settings_.clip_db, format.bit_depth, format.width, format.height)),
          pipeline_("float_ms_ssim (Vulkan)", format, iqa::float_ms_ssim_plan(), slots, plant) {}

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override { pipeline_.enqueue(f, slot, queue); }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        std::array<iqa::SsimMeans, kScales> means;
        for (int k = 0; k < kScales; ++k) {
            const auto& size = pipeline_.size(k);
            means[k] = iqa::means_from_sums(pipeline_.sums(slot, index, static_cast<std::size_t>(k)), size[0], size[1]);
        }
        settings_.write_frame(means, max_db_, index, out);
    }

private:
    float_ms_ssim::Settings settings_;
    double max_db_;
    iqa::VulkanSsimPipeline pipeline_;
};

}  // namespace

namespace float_ms_ssim {

extern const TwinDescriptor vulkan_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor vulkan_twin{
    "float_ms_ssim",
    make_twin<FloatMsSsimVulkanTwin>,
    {exact_bound,
     "bound 0 at every format and option: every per-sample and per-window value (the float copy of a sample, the "
     "four decimations by the 9x9 low-pass kernel with mirrored borders, the Gaussian passes' float products added "
     "in double and rounded to float, the product maps, the clamped variances, the covariance, each window's l, c "
     "and s) is formed by the CPU's own functions compiled as GLSL (iqa_math.hpp, float_image_math.hpp), each an "
     "IEEE operation (NoContraction; divisions and the double square root correctly rounded by "
     "base/correctly_rounded.hpp); the running double sums of l, c and s of each scale are the CPU's raster-order "
     "sequence of rounded adds, reproduced exactly by vulkan::SequentialSum; the means, the pow product of the "
     "scales (the host's libm, as the CPU), the dB conversion and the outputs run on the host in the CPU's own "
     "code (iqa::means_from_sums, Settings::write_frame)"},
    iqa::kVulkanDefects,
    "every float operation of the module is NoContraction, and an explicit fma is refused by tools/spirv_strict.py",
};

}  // namespace float_ms_ssim

}  // namespace vmafx
