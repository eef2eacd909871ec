// Vulkan twin of psnr_hvs (psnr_hvs.cpp), bit-identical to it on every frame, as the CUDA twin
// (psnr_hvs_cuda.cu) is, by the same method.
//
// Per frame, on the frame's queue:
//  1. psnr_hvs_vulkan.comp's pass 0, once per plane with at least one 8x8 block: an invocation
//     per block computes its 64 terms by the CPU's own block_terms (psnr_hvs_math.hpp compiled
//     as GLSL), and each workgroup stores its blocks' terms to the plane's row of terms in the
//     CPU's summation order (blocks in raster order, coefficients row-major, DC and zeros
//     included). The tables are the CPU's plane_tables(), uploaded once at creation.
//  2. vulkan::SequentialSum<float> reproduces the CPU's running float sum of each plane's terms
//     bit for bit (luma one row, Cb and Cr a batch of two rows of equal length).
//  3. the three float sums are copied to the slot's host memory; finish() forms the scores with
//     the CPU's own finish_plane_score and Outputs::write, as the CUDA twin's does.
// Every rounding of a term is the CPU's source compiled as GLSL with every float operation
// NoContraction (tools/spirv_strict.py), the float divisions and the double square root
// correctly rounded by base/correctly_rounded.hpp (Vulkan's own are not), round to nearest even
// required of the device (vulkan/device.cpp) and subnormals kept (vulkan/float_probe.cpp refuses
// a device that flushes them).
// Upstream: libvmaf 3.2.0 src/feature/third_party/xiph/psnr_hvs.c.
//
// Planted regressions (parity-gate tests only), as the CUDA twin's: kMirrorShift (each block's
// last row read one row up, in pass 0) and kReductionOrder (the plane sums a plain parallel float
// sum, pass 1, instead of SequentialSum). No kContraction: tools/spirv_strict.py refuses an
// explicit fma in a shader, so the contraction cannot be planted (the CUDA twin plants it).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "feature/psnr_hvs/psnr_hvs.hpp"
#include "feature/psnr_hvs/psnr_hvs_math.hpp"
#include "gpu/slot_frames.hpp"
#include "gpu/twin.hpp"
#include "vulkan/sequential_sum.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx {

namespace {

using psnr_hvs::PlaneTables;

const std::uint32_t kSpirv[] = {
#include "psnr_hvs_vulkan.spv.inc"
};

/// Blocks a workgroup of pass 0 (psnr_hvs_vulkan.comp's GROUP).
constexpr std::size_t kGroup = 64;
/// Workgroups along x of pass 0 at most (the rest along y): every device allows this many.
constexpr std::size_t kMaxGroupsX = 65535;

/// psnr_hvs_vulkan.comp's push constants, member for member.
struct Push {
    std::uint64_t ref, dist, tables, terms, sums;
    std::uint32_t ref_pitch, dist_pitch;
    std::int32_t blocks_x, blocks_y, wide, flag, pass;
    std::uint32_t n;
};
static_assert(sizeof(Push) == 72);

/// The GPU twin: per slot, the device terms of the three planes (luma, then Cb, then Cr, each
/// 64 per block), a SequentialSum<float>, the three device sums and their host copy.
class PsnrHvsVulkanTwin final : public GpuTwin {
public:
    PsnrHvsVulkanTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : plant_(plant), plan_(format, "psnr_hvs (Vulkan)"), outputs_(options),
          kernel_(kSpirv, sizeof(Push), "psnr_hvs (Vulkan)"), frames_("psnr_hvs (Vulkan)", slots) {
        wide_ = format.bit_depth > 8;
        terms_ = vulkan::DeviceBuffer<float>(plan_.slot_terms() * slots);
        sums_ = vulkan::DeviceBuffer<float>(3 * static_cast<std::size_t>(slots));
        host_sums_.assign(3 * static_cast<std::size_t>(slots), 0.0f);
        const std::size_t max_terms = std::max<std::size_t>({plan_.terms(0), plan_.terms(1), 1});
        for (unsigned k = 0; k < slots; ++k)
            sequential_.push_back(std::make_unique<vulkan::SequentialSum<float>>(max_terms, 2));
        PlaneTables tables[3];
        for (int p = 0; p < 3; ++p) tables[p] = psnr_hvs::plane_tables(p);
        tables_ = vulkan::DeviceBuffer<PlaneTables>(3);
        vulkan::upload(tables_.at(0), tables, sizeof tables, "uploading the psnr_hvs tables");
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        frames_.enqueued(slot, f.index);
        const std::size_t base = static_cast<std::size_t>(slot) * plan_.slot_terms();
        const std::size_t plane_terms[3] = {base + plan_.offset(0), base + plan_.offset(1), base + plan_.offset(2)};
        for (int p = 0; p < 3; ++p) {
            const DevicePlane& r = f.ref.planes[p];
            const DevicePlane& d = f.dist.planes[p];
            if (!r.data || !d.data)
                throw Error("psnr_hvs (Vulkan): frame " + std::to_string(f.index) + " lacks plane " + std::to_string(p));
            if (plan_.terms(p) == 0) continue;  // no block: the sum is 0 (SequentialSum's n == 0)
            plan_.check_pitch(r.pitch, p);
            plan_.check_pitch(d.pitch, p);
            Push push{};
            push.ref = vulkan::address(r.data);
            push.dist = vulkan::address(d.data);
            push.tables = tables_.address(static_cast<std::size_t>(p));
            push.terms = terms_.address(plane_terms[p]);
            push.ref_pitch = static_cast<std::uint32_t>(r.pitch);
            push.dist_pitch = static_cast<std::uint32_t>(d.pitch);
            push.blocks_x = plan_.blocks_x(p);
            push.blocks_y = plan_.blocks_y(p);
            push.wide = wide_;
            push.flag = plant_ == PlantedDefect::kMirrorShift;
            push.pass = 0;
            const std::size_t groups = (plan_.terms(p) / 64 + kGroup - 1) / kGroup;
            const std::size_t groups_x = std::min(groups, kMaxGroupsX);
            kernel_.dispatch(queue, static_cast<std::uint32_t>(groups_x),
                             static_cast<std::uint32_t>((groups + groups_x - 1) / groups_x), 1, &push);
        }
        const std::uint64_t sums = sums_.address(3 * static_cast<std::size_t>(slot));
        if (plant_ == PlantedDefect::kReductionOrder) {
            // Planted regression (parity-gate tests only): a plain parallel float sum.
            for (int p = 0; p < 2; ++p) {
                if (plan_.terms(p) == 0) {
                    vulkan::fill(queue, sums_.at(3 * static_cast<std::size_t>(slot) + p), (p == 0 ? 1 : 2) * sizeof(float), 0);
                    continue;
                }
                Push push{};
                push.terms = terms_.address(plane_terms[p]);
                push.sums = sums + p * sizeof(float);
                push.pass = 1;
                push.n = static_cast<std::uint32_t>(plan_.terms(p));
                kernel_.dispatch(queue, p == 0 ? 1 : 2, 1, 1, &push);
            }
        } else {
            // The CPU's running sums: luma, then Cb and Cr as a batch of two rows.
            sequential_[slot]->enqueue(queue, terms_.address(plane_terms[0]), plan_.terms(0), plan_.terms(0), 1, sums);
            sequential_[slot]->enqueue(queue, terms_.address(plane_terms[1]), plan_.terms(1), plan_.terms(1), 2,
                                       sums + sizeof(float));
        }
        vulkan::copy_to_host(queue, &host_sums_[3 * static_cast<std::size_t>(slot)],
                             sums_.at(3 * static_cast<std::size_t>(slot)), 3 * sizeof(float),
                             "copying the psnr_hvs sums");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        plan_.write_scores(&host_sums_[3 * static_cast<std::size_t>(slot)], outputs_, out);
    }

private:
    PlantedDefect plant_;
    psnr_hvs::TwinPlan plan_;
    psnr_hvs::Outputs outputs_;
    vulkan::Kernel kernel_;
    bool wide_ = false;  // 16-bit samples
    vulkan::DeviceBuffer<PlaneTables> tables_;  // plane_tables(0..2)
    vulkan::DeviceBuffer<float> terms_;         // slots x plan_.slot_terms()
    vulkan::DeviceBuffer<float> sums_;          // slots x 3
    std::vector<float> host_sums_;              // slots x 3
    std::vector<std::unique_ptr<vulkan::SequentialSum<float>>> sequential_;  // per slot
    SlotFrames frames_;
};

/// What this twin can plant (see the file's head).
constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kReductionOrder};

}  // namespace

namespace psnr_hvs {

extern const TwinDescriptor vulkan_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor vulkan_twin{
    "psnr_hvs",
    make_twin<PsnrHvsVulkanTwin>,
    {exact_bound,
     "bound 0 at every format (8 to 12 bits, every subsampling, every size; planes narrower or lower than 8 have "
     "no block and give the CPU's 0 / 0 = NaN). Each block's 64 terms are computed on the device by the CPU's own "
     "source (psnr_hvs_math.hpp compiled as GLSL: block_terms, the int32 DCT wrapping through uint32 as on the "
     "CPU, the float variance ratios, masking energies, thresholds and squares in the CPU's operation order, the "
     "square root in double), every float operation NoContraction, the divisions and the square root correctly "
     "rounded by base/correctly_rounded.hpp, round to nearest even and subnormals kept (required of the device); "
     "so each term is the CPU's float. The terms of a plane are stored in the CPU's summation order and "
     "vulkan::SequentialSum<float> returns the CPU's running float sum of them bit for bit. The float divisions "
     "by 64 * blocks and by (2^bpc - 1)^2, the double 10 * -log10 and the combined score are the CPU's own host "
     "functions (finish_plane_score, Outputs::write), run in finish(). The mirror-shift and reduction-order "
     "defects are planted in the shader's passes"},
    kDefects,
    "tools/spirv_strict.py refuses an explicit fma in a shader, so the contraction of the variance and energy "
    "sums (the CUDA twin's plant) cannot be written; every float operation is marked NoContraction instead",
};

}  // namespace psnr_hvs

}  // namespace vmafx
