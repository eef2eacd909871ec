// CUDA twin of float_ssim (float_ssim.cpp), bit-identical to it on every frame.
//
// Kernels (iqa_cuda.cuh, shared with float_ms_ssim's twin): the float copy of both lumas, the
// decimation by the scale factor when it is above 1 (ssim.c's factor x factor box of taps
// 1.0f / (factor * factor), iqa::filter_pixel with its mirrored borders), the Gaussian's
// horizontal pass of the five maps, the vertical pass with each window's terms, and the running
// double sums of the terms in raster order by gpu::SequentialSum<double> (one enqueue per frame,
// batch 4 with enable_lcs: l, c, s and l*c*s; else batch 1: l*c*s only).
// Why each value is the CPU's bits: every per-sample and per-window operation is the CPU's own
// VMAFX_HOST_DEVICE code (iqa_math.hpp: add_product, filter_pixel, mirror, gaussian_tap,
// variance, covariance, window_terms), compiled with --fmad=false -prec-div=true
// -prec-sqrt=true -ftz=false, so each float or double operation (double sqrt and divisions
// included) is the same IEEE operation as the CPU's (built with -ffp-contract=off); the sums are
// the CPU's sequence of rounded double adds (SequentialSum reproduces it exactly, no bound); the
// divisions by the window count, the float roundings of the means, the dB conversion and the
// outputs are the CPU's own host code (iqa::means_from_sums, Settings::write_frame). Refusals:
// Settings::checked_factor, as the CPU extractor.
//
// Planted regressions: see iqa_cuda.cuh (kContraction in the horizontal pass, kMirrorShift in
// the decimation's mirror and the Gaussian's right border, kRoundingConstant in the vertical
// pass of ref*ref).
#include <memory>
#include <vector>

#include "feature/common/iqa_cuda.cuh"
#include "feature/float_ssim/float_ssim.hpp"
#include "feature/float_ssim/float_ssim_twin.hpp"

namespace vmafx {

namespace {

class FloatSsimTwin final : public GpuTwin {
public:
    FloatSsimTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : settings_(options),
          factor_(settings_.checked_factor(format)),
          max_db_(iqa::max_db(settings_.clip_db, format.bit_depth, format.width, format.height)),
          pipeline_("float_ssim", format, iqa::float_ssim_plan(settings_, factor_), slots, plant) {}

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        pipeline_.enqueue(f, slot, cuda::stream_of(queue));
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        const auto& size = pipeline_.size(factor_ > 1 ? 1 : 0);
        settings_.write_frame(iqa::means_from_sums(pipeline_.sums(slot, index, 0), size[0], size[1]), max_db_, out);
    }

private:
    float_ssim::Settings settings_;
    int factor_;
    double max_db_;
    iqa::device::SsimPipeline pipeline_;
};

/// What this twin can plant (iqa_cuda.cuh).
constexpr PlantedDefect kDefects[] = {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                      PlantedDefect::kRoundingConstant};

}  // namespace

namespace float_ssim {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "float_ssim",
    make_twin<FloatSsimTwin>,
    {exact_bound,
     "bound 0 at every format and option: every per-sample and per-window value (the float copy of a sample, the "
     "decimation's mirrored box filter, the Gaussian passes' float products added in double and rounded to float, "
     "the product maps, the clamped variances, the covariance, each window's l, c, s and l*c*s) is computed by the "
     "CPU's own VMAFX_HOST_DEVICE functions (iqa_math.hpp) under strict IEEE flags (no FMA contraction, correctly "
     "rounded division and double sqrt, no flush to zero); the four running double sums are the CPU's raster-order "
     "sequence of rounded adds, reproduced exactly by gpu::SequentialSum<double>; the divisions, float roundings, "
     "dB conversion and outputs run on the host in the CPU's own code (iqa::means_from_sums, "
     "Settings::write_frame). Planted: an FMA in the Gaussian's horizontal pass (contraction), the decimation's "
     "mirror and the Gaussian's right border one sample off (mirror shift), the vertical pass of ref*ref rounded "
     "toward zero (rounding constant)"},
    kDefects,
    nullptr,
};

}  // namespace float_ssim

}  // namespace vmafx
