// Vulkan twin of the integer VIF metric (vif.cpp), bit-identical to it on every frame, as the
// CUDA twin (vif_cuda.cu) is.
//
// Per frame, on the frame's queue (vif_vulkan.comp), for each scale s = 0..3:
//  1. pass 0 (unless s = 0 with vif_skip_scale0): the scale's statistics. A workgroup per 256
//     columns and a stride of rows forms, per row, the vertical pass of its columns and their
//     halo, then per sample the horizontal pass, the variances and the four VIF terms, all by
//     vif_math.hpp's functions (the CPU's own); each invocation adds its terms in 64 bits, and
//     each workgroup's sums go to its partials (with, at scale 0 of 9..15-bit video, the count
//     of samples above the bit depth in each picture, which the CPU refuses);
//  2. pass 2, six workgroups: the scale's partials added in 64 bits, into the slot's totals;
//  3. pass 1 (s < 3): the decimation into scale s + 1's pictures (uint16, per slot).
// The totals (4 scales x 6 uint64) are copied to the slot's host memory; finish() refuses
// samples above the bit depth as the CPU does and scores each scale with the CPU's host code
// (vif::score_of, Settings::write_frame). Integer sums are exact in any order.
//
// The taps (kFilters) and the logarithm's table (log2_table(), entries 32768..65535) are
// uploaded once, at creation, from the CPU's own arrays.
//
// Planted regressions (tests of the parity gate only), as the CUDA twin's: kMirrorShift, scale
// 0's vertical pass mirrors the rows below the bottom edge one row off; kRoundingConstant, the
// horizontal pass of ref*ref rounds with 2^14. No kContraction and no kReductionOrder, for the
// CUDA twin's reasons (vif_cuda.cu): its one double a*b+c is truncated to an integer at once,
// and every sum is an integer sum.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "feature/vif/vif.hpp"
#include "feature/vif/vif_math.hpp"
#include "gpu/slot_frames.hpp"
#include "gpu/twin.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx {

namespace {

using vif::kFilters;
using vif::kScales;

const std::uint32_t kSpirv[] = {
#include "vif_vulkan.spv.inc"
};

constexpr int kGroup = 256;          // the shader's local_size_x
constexpr int kMaxGridRows = 65535;  // workgroups along y: every device allows this many
constexpr int kMaxTaps = 17;         // the shader's MAX_TAPS
constexpr int kSums = 6;             // per scale: the four VIF sums, then the samples above the bit depth
/// Workgroups along y of the statistics pass: enough rows for a full device, few partials.
constexpr int kStatisticsRows = 32;

/// vif_vulkan.comp's push constants, member for member.
struct Push {
    std::uint64_t ref, dis, out_ref, out_dis, constants;
    double gain_limit;
    std::uint32_t ref_pitch, dis_pitch, out_pitch;
    std::int32_t width, height, scale, bit_depth, wide, plant, pass, groups;
    std::int32_t pad;
};
static_assert(sizeof(Push) == 96);

/// The shader's constants: the taps of the four scales (kMaxTaps uint32 each), the four filters'
/// widths, then entries 32768..65535 of the CPU's log2 table (uint16), as 32-bit words.
std::vector<std::uint32_t> shader_constants() {
    constexpr int kTableAt = kScales * kMaxTaps + kScales;  // the shader's TABLE_OFFSET, in words
    std::vector<std::uint32_t> words(kTableAt + 32768 / 2, 0);
    for (int s = 0; s < kScales; ++s) {
        for (int k = 0; k < kFilters[s].width; ++k) words[s * kMaxTaps + k] = kFilters[s].taps[k];
        words[kScales * kMaxTaps + s] = static_cast<std::uint32_t>(kFilters[s].width);
    }
    std::memcpy(words.data() + kTableAt, vif::log2_table().data() + 32768, 32768 * sizeof(std::uint16_t));
    return words;
}

class VifVulkanTwin final : public GpuTwin {
public:
    VifVulkanTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(plant), settings_(options), kernel_(kSpirv, sizeof(Push), "vif (Vulkan)"),
          totals_(static_cast<std::size_t>(slots) * kScales * kSums),
          host_totals_(static_cast<std::size_t>(slots) * kScales * kSums), frames_("vif (Vulkan)", slots) {
        const std::vector<std::uint32_t> constants = shader_constants();
        constants_ = vulkan::DeviceBuffer<std::uint32_t>(constants.size());
        vulkan::upload(constants_.at(0), constants.data(), constants.size() * sizeof(std::uint32_t),
                       "uploading the vif taps and log2 table");
        std::size_t samples = 0, partials = 0;
        for (int s = 0; s < kScales; ++s) {
            width_[s] = format.width >> s;
            height_[s] = format.height >> s;
            groups_[s] = (width_[s] + kGroup - 1) / kGroup;
            grid_rows_[s] = std::min(height_[s], kStatisticsRows);
            partial_offset_[s] = partials;
            partials += static_cast<std::size_t>(kSums) * groups_[s] * grid_rows_[s];
            if (s > 0) {
                pitch_[s] = (static_cast<std::size_t>(width_[s]) + 127) / 128 * 128;
                picture_offset_[s] = samples;
                samples += 2 * pitch_[s] * static_cast<std::size_t>(height_[s]);  // reference, distorted
            }
        }
        slot_samples_ = samples;
        slot_partials_ = partials;
        pictures_ = vulkan::DeviceBuffer<std::uint16_t>(slot_samples_ * slots);
        partials_ = vulkan::DeviceBuffer<std::uint64_t>(slot_partials_ * slots);
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        frames_.enqueued(slot, f.index);
        const DevicePlane& ref = f.ref.luma();
        const DevicePlane& dis = f.dist.luma();
        if (!ref.data || !dis.data)
            throw Error("vif (Vulkan): frame " + std::to_string(f.index) + " has no reference or distorted luma");
        const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
        if (ref.pitch < row_bytes || dis.pitch < row_bytes)
            throw Error("vif (Vulkan): a luma pitch below the row's " + std::to_string(row_bytes) + " bytes");
        vulkan::fill(queue, totals_.at(static_cast<std::size_t>(slot) * kScales * kSums),
                     kScales * kSums * sizeof(std::uint64_t), 0);
        Push p{};
        p.constants = constants_.address();
        p.gain_limit = settings_.gain_limit;
        p.bit_depth = format_.bit_depth;
        p.plant = plant_ == PlantedDefect::kMirrorShift ? 1 : plant_ == PlantedDefect::kRoundingConstant ? 2 : 0;
        for (int s = 0; s < kScales; ++s) {
            p.scale = s;
            p.width = width_[s];
            p.height = height_[s];
            if (s == 0) {
                p.ref = vulkan::address(ref.data);
                p.dis = vulkan::address(dis.data);
                p.ref_pitch = static_cast<std::uint32_t>(ref.pitch);
                p.dis_pitch = static_cast<std::uint32_t>(dis.pitch);
                p.wide = format_.bit_depth > 8;
            } else {
                p.ref = picture(slot, s, 0);
                p.dis = picture(slot, s, 1);
                p.ref_pitch = p.dis_pitch = static_cast<std::uint32_t>(pitch_[s] * sizeof(std::uint16_t));
                p.wide = 1;
            }
            // Scale 0's pass runs with vif_skip_scale0 too where samples may exceed the bit depth:
            // the CPU refuses them whether or not it computes scale 0.
            if (s > 0 || !settings_.skip_scale0 || (format_.bit_depth > 8 && format_.bit_depth < 16)) {
                Push stats = p;
                stats.pass = 0;
                stats.groups = groups_[s];
                stats.out_ref = partials_.address(slot_partials_ * slot + partial_offset_[s]);
                kernel_.dispatch(queue, static_cast<std::uint32_t>(groups_[s]),
                                 static_cast<std::uint32_t>(grid_rows_[s]), 1, &stats);
                Push total{};
                total.ref = stats.out_ref;
                total.dis = totals_.address((static_cast<std::size_t>(slot) * kScales + s) * kSums);
                total.width = groups_[s] * grid_rows_[s];
                total.pass = 2;
                kernel_.dispatch(queue, kSums, 1, 1, &total);
            }
            if (s + 1 < kScales) {
                Push decimate = p;
                decimate.pass = 1;
                decimate.out_ref = picture(slot, s + 1, 0);
                decimate.out_dis = picture(slot, s + 1, 1);
                decimate.out_pitch = static_cast<std::uint32_t>(pitch_[s + 1] * sizeof(std::uint16_t));
                kernel_.dispatch(queue, static_cast<std::uint32_t>((width_[s + 1] + kGroup - 1) / kGroup),
                                 static_cast<std::uint32_t>(std::min(height_[s + 1], kStatisticsRows)), 1, &decimate);
            }
        }
        vulkan::copy_to_host(queue, &host_totals_[static_cast<std::size_t>(slot) * kScales * kSums],
                             totals_.at(static_cast<std::size_t>(slot) * kScales * kSums),
                             kScales * kSums * sizeof(std::uint64_t), "copying the vif sums");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const std::uint64_t* r = &host_totals_[static_cast<std::size_t>(slot) * kScales * kSums];
        // As the CPU extractor: samples above the bit depth have no defined integer VIF.
        for (int p = 0; p < 2; ++p)
            if (r[4 + p] != 0)
                throw Error("vif (Vulkan): frame " + std::to_string(index) + ": " +
                            (p == 0 ? "reference" : "distorted") + " luma has " + std::to_string(r[4 + p]) +
                            " sample(s) above the " + std::to_string(format_.bit_depth) + "-bit maximum " +
                            std::to_string((1u << format_.bit_depth) - 1u));
        std::array<vif::ScaleScore, kScales> scores{};
        for (int s = settings_.skip_scale0 ? 1 : 0; s < kScales; ++s) {
            const std::uint64_t* t = r + s * kSums;
            vif::ScaleSums sums;
            sums.num_log = static_cast<std::int64_t>(t[0]);
            sums.den_log = static_cast<std::int64_t>(t[1]);
            sums.num_non_log = static_cast<std::int64_t>(t[2]);
            sums.den_non_log = static_cast<std::int64_t>(t[3]);
            scores[s] = vif::score_of(sums);
        }
        settings_.write_frame(scores, out);
    }

private:
    /// The device address of scale s's picture (0: reference, 1: distorted) in `slot`.
    std::uint64_t picture(unsigned slot, int s, int which) const {
        return pictures_.address(slot_samples_ * slot + picture_offset_[s] +
                                 static_cast<std::size_t>(which) * pitch_[s] * static_cast<std::size_t>(height_[s]));
    }

    VideoFormat format_;
    PlantedDefect plant_;
    vif::Settings settings_;
    vulkan::Kernel kernel_;
    vulkan::DeviceBuffer<std::uint32_t> constants_;  // taps and log2 table (shader_constants)
    int width_[kScales] = {}, height_[kScales] = {}, groups_[kScales] = {}, grid_rows_[kScales] = {};
    std::size_t pitch_[kScales] = {};           // samples, scales 1..3
    std::size_t picture_offset_[kScales] = {};  // in a slot's pictures, scales 1..3
    std::size_t partial_offset_[kScales] = {};  // in a slot's partials
    std::size_t slot_samples_ = 0, slot_partials_ = 0;
    vulkan::DeviceBuffer<std::uint16_t> pictures_;  // slots x slot_samples_
    vulkan::DeviceBuffer<std::uint64_t> partials_;  // slots x slot_partials_
    vulkan::DeviceBuffer<std::uint64_t> totals_;    // slots x scales x kSums
    std::vector<std::uint64_t> host_totals_;        // slots x scales x kSums
    SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant};

}  // namespace

namespace vif {

extern const TwinDescriptor vulkan_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor vulkan_twin{
    "vif",
    make_twin<VifVulkanTwin>,
    {exact_bound,
     "bound 0 at every format and option: every per-sample value is formed by the CPU's own functions "
     "(vif_math.hpp compiled as GLSL: the mirror, the vertical and horizontal roundings and 32-bit wraps at every "
     "bit depth 8..16, the variances, the terms around the CPU's own log2 table, the decimated samples), with the "
     "CPU's taps; sample_args' doubles are IEEE operations as the CPU's (NoContraction, the division correctly "
     "rounded by base/correctly_rounded.hpp); the terms are summed in 64-bit integers (order-free) and scored on "
     "the host by vif::score_of and Settings::write_frame"},
    kDefects,
    "its one device a*b+c (sv = s2 - g * s12) is truncated to an integer at once, as the CUDA twin's",
};

}  // namespace vif

}  // namespace vmafx
