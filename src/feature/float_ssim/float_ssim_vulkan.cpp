// Vulkan twin of float_ssim (float_ssim.cpp), bit-identical to it on every frame, as the CUDA twin
// (float_ssim_cuda.cu) is, by the same passes (common/iqa_vulkan.hpp, shared with float_ms_ssim's
// twin) and the same plan (float_ssim_twin.hpp: the decimation by the scale factor when it is
// above 1, the last level scored, the term rows l, c, s, l*c*s with enable_lcs, else l*c*s).
// Why each value is the CPU's bits: every per-sample and per-window operation is the CPU's own
// function compiled as GLSL (iqa_math.hpp, float_image_math.hpp), each float or double
// operation one IEEE operation (NoContraction; divisions and the double square root correctly
// rounded by base/correctly_rounded.hpp); the running double sums are reproduced by
// vulkan::SequentialSum; the divisions by the window count, the float roundings of the means,
// the dB conversion and the outputs are the CPU's host code (iqa::means_from_sums,
// Settings::write_frame). Refusals: Settings::checked_factor, as the CPU extractor.
#include "feature/common/iqa_vulkan.hpp"
#include "feature/float_ssim/float_ssim.hpp"
#include "feature/float_ssim/float_ssim_twin.hpp"

namespace vmafx {

namespace {

class FloatSsimVulkanTwin final : public GpuTwin {
public:
    FloatSsimVulkanTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : settings_(options),
          factor_(settings_.checked_factor(format)),
          max_db_(iqa::max_db(settings_.clip_db, format.bit_depth, format.width, format.height)),
          pipeline_("float_ssim (Vulkan)", format, iqa::float_ssim_plan(settings_, factor_), slots, plant) {}

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override { pipeline_.enqueue(f, slot, queue); }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        const auto& size = pipeline_.size(factor_ > 1 ? 1 : 0);
        settings_.write_frame(iqa::means_from_sums(pipeline_.sums(slot, index, 0), size[0], size[1]), max_db_, out);
    }

private:
    float_ssim::Settings settings_;
    int factor_;
    double max_db_;
    iqa::VulkanSsimPipeline pipeline_;
};

}  // namespace

namespace float_ssim {

extern const TwinDescriptor vulkan_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor vulkan_twin{
    "float_ssim",
    make_twin<FloatSsimVulkanTwin>,
    {exact_bound,
     "bound 0 at every format and option: every per-sample and per-window value (the float copy of a sample, the "
     "decimation's mirrored box filter, the Gaussian passes' float products added in double and rounded to float, "
     "the product maps, the clamped variances, the covariance, each window's l, c, s and l*c*s) is formed by the "
     "CPU's own functions compiled as GLSL (iqa_math.hpp, float_image_math.hpp), each an IEEE operation "
     "(NoContraction; divisions and the double square root correctly rounded by base/correctly_rounded.hpp); the "
     "running double sums are the CPU's raster-order sequence of rounded adds, reproduced exactly by "
     "vulkan::SequentialSum; the divisions, float roundings, dB conversion and outputs run on the host in the "
     "CPU's own code (iqa::means_from_sums, Settings::write_frame)"},
    iqa::kVulkanDefects,
    "every float operation of the module is NoContraction, and an explicit fma is refused by tools/spirv_strict.py",
};

}  // namespace float_ssim

}  // namespace vmafx
