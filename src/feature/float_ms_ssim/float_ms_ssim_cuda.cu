// CUDA twin of float_ms_ssim (float_ms_ssim.cpp), bit-identical to it on every frame.
//
// Kernels (feature/common/iqa_cuda.cuh, shared with float_ssim's twin): the float copy of
// both lumas, four decimations by 2 through the 9x9 low-pass kernel (iqa::filter_pixel with its
// mirrored borders: the five scales), and at each scale the Gaussian's horizontal pass of the
// five maps, the vertical pass with each window's terms, and the running double sums of l, c and
// s in raster order by gpu::SequentialSum<double> (one enqueue per scale, batch 3).
// Why each value is the CPU's bits: every per-sample and per-window operation is the CPU's own
// VMAFX_HOST_DEVICE code (feature/common/iqa_math.hpp), compiled with --fmad=false
// -prec-div=true -prec-sqrt=true -ftz=false (each operation the CPU's IEEE operation; the CPU
// builds with -ffp-contract=off); the sums are the CPU's sequence of rounded double adds
// (SequentialSum, exact); the means (iqa::means_from_sums), the pow products of the scales in
// double, the infinity refusal, the dB conversion and the outputs run on the host in the CPU's
// own code (Settings::write_frame), so libm's pow is the CPU's. Refusals: the descriptor's limits (8, 10, 12 or 16 bits), checked before the twin is made.
//
// Planted regressions: see feature/common/iqa_cuda.cuh (kContraction in the horizontal
// pass, kMirrorShift in the decimation's mirror and the Gaussian's right border,
// kRoundingConstant in the vertical pass of ref*ref).
#include <array>
#include <memory>
#include <span>
#include <vector>

#include "feature/common/iqa_cuda.cuh"
#include "feature/float_ms_ssim/float_ms_ssim.hpp"
#include "feature/float_ms_ssim/float_ms_ssim_twin.hpp"

namespace vmafx {

namespace {

using float_ms_ssim::kScales;

class FloatMsSsimTwin final : public GpuTwin {
public:
    FloatMsSsimTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : settings_(options),
          max_db_(iqa::max_db(settings_.clip_db, format.bit_depth, format.width, format.height)),
          pipeline_("float_ms_ssim", format, iqa::float_ms_ssim_plan(), slots, plant) {}

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        pipeline_.enqueue(f, slot, cuda::stream_of(queue));
    }

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
    iqa::device::SsimPipeline pipeline_;
};

/// What this twin can plant (feature/common/iqa_cuda.cuh).
constexpr PlantedDefect kDefects[] = {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                      PlantedDefect::kRoundingConstant};

}  // namespace

namespace float_ms_ssim {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "float_ms_ssim",
    make_twin<FloatMsSsimTwin>,
    {exact_bound,
     "bound 0 at every format and option: every per-sample and per-window value (the float copy of a sample, the "
     "four decimations by the 9x9 low-pass kernel with mirrored borders, the Gaussian passes' float products added "
     "in double and rounded to float, the product maps, the clamped variances, the covariance, each window's l, c "
     "and s) is computed by the CPU's own VMAFX_HOST_DEVICE functions (feature/common/iqa_math.hpp) under "
     "strict IEEE flags (no FMA contraction, correctly rounded division and double sqrt, no flush to zero); the "
     "running double sums of l, c and s of each scale are the CPU's raster-order sequence of rounded adds, "
     "reproduced exactly by gpu::SequentialSum<double>; the means, the pow product of the scales (the host's libm, "
     "as the CPU), the dB conversion and the outputs run on the host in the CPU's own code "
     "(iqa::means_from_sums, Settings::write_frame). Planted: an FMA in the Gaussian's horizontal pass "
     "(contraction), the decimation's mirror and the Gaussian's right border one sample off (mirror shift), the "
     "vertical pass of ref*ref rounded toward zero (rounding constant)"},
    kDefects,
    nullptr,
};

}  // namespace float_ms_ssim

}  // namespace vmafx
