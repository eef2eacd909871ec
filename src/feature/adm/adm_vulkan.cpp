// Vulkan twin of the integer ADM (adm_pipeline.cpp), bit-identical to it on every frame, as the
// CUDA twin (adm_cuda.cu) is, with the same plan (adm_twin_plan.hpp) and the same structure.
//
// Per frame, on the frame's queue (adm_vulkan.comp):
//  1. pass 0 (level 0) and pass 1 (levels 1..3), a workgroup per 256 band columns and band row:
//     the DWT, the decouple and CSF weighting in the tap region (storing what contrast masking
//     reads) and the row's denominator cubes, one partial sum per workgroup and row;
//  2. pass 2 after each level (level 0 unless adm_skip_scale0), a workgroup per 256 visited
//     columns and visited row: the masking thresholds and cube terms, one partial per
//     workgroup, row and sum;
//  3. pass 3, 36 workgroups: each row's partials added, rounded and shifted, the rows added,
//     as the CPU does; the 36 sums are copied to the slot's host memory.
// finish() forms the scores with the CPU's own host code (adm::adm_scores,
// adm::Settings::write_frame). Every device sum is an integer sum: its order does not matter.
// Unlike the CUDA twin, no atomics: each workgroup writes its own partial, so nothing is zeroed
// between frames.
//
// Planted regressions (tests of the parity gate only), as the CUDA twin's: kMirrorShift (the
// DWT's vertical mirror at the bottom edge one row further in, every level), kRoundingConstant
// (level 0's horizontal DWT rounds with 2^14), kReductionOrder (each sum's rows added before one
// rounding and shift). No kContraction, for the CUDA twin's reason: the device code has no
// floating-point addition, so nothing can be contracted.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "feature/adm/adm.hpp"
#include "feature/adm/adm_twin_plan.hpp"
#include "gpu/slot_frames.hpp"
#include "gpu/twin.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx {

namespace {

const std::uint32_t kSpirv[] = {
#include "adm_vulkan.spv.inc"
};

constexpr int kGroup = 256;               // the shader's local_size_x
constexpr int kSpan = 2 * kGroup + 2;     // the shader's SPAN
constexpr int kMaxGridRows = 65535;       // workgroups along y: every device allows this many
constexpr int kTableEntries = 66;         // the shader's address table: 4 x 16, tails, sums
constexpr int kTails = 64, kSumsEntry = 65;

/// adm_vulkan.comp's push constants, member for member.
struct Push {
    std::uint64_t params, table, ref, dis;
    std::uint32_t ref_pitch, dis_pitch;
    std::int32_t level, pass, plant, wide;
};
static_assert(sizeof(Push) == 56);

/// adm_vulkan.comp's LevelParams, member for member (std430: the 64-bit members first).
struct LevelParams {
    std::int64_t round_v, round_h;
    std::uint64_t den_round_sq, den_cub_round;
    std::int64_t rcub[3];
    std::uint64_t den_round;
    std::int64_t cm_round;
    double egl;
    std::int32_t in_w, in_h, bit_depth;
    std::int32_t w, h, pitch;
    std::uint32_t shift_v, shift_h;
    std::int32_t reads_past_row, lo_only, integer_gain, egl_int, aim, store_a, store_tail, tap_vec_end;
    adm::Region tap, score;
    adm::CmBounds cm;
    std::int32_t wt[3];
    std::uint32_t wq[3];
    std::uint32_t scub[3];
    std::int32_t den_shift_sq;
    std::uint32_t den_cub_shift;
    std::int32_t tail_slot[2], tail_col[2];
    std::int32_t den_begin, den_end;
    std::uint32_t den_shift;
    std::int32_t cm_begin, cm_end;
    std::uint32_t cm_shift;
    std::int32_t has_den, has_num, has_aim;
    std::int32_t blocks, cm_blocks, in_pitch;
};
static_assert(sizeof(adm::Region) == 16 && sizeof(adm::CmBounds) == 48);
static_assert(offsetof(LevelParams, in_w) == 80 && offsetof(LevelParams, tap) == 144 &&
              offsetof(LevelParams, wt) == 224 && sizeof(LevelParams) == 336);

int blocks_for(int n) { return (n + kGroup - 1) / kGroup; }

/// The plan's stages of one level as the shader's parameters (copies, no arithmetic).
LevelParams level_params(const adm::TwinPlan& p, int s) {
    LevelParams l{};
    const adm::CmArgs& c = p.cm[s];
    const adm::FinalLevel& f = p.final[s];
    for (int k = 0; k < 3; ++k) {
        l.rcub[k] = c.rcub[k];
        l.scub[k] = c.scub[k];
        l.wt[k] = c.wt[k];
        l.wq[k] = c.wq[k];
    }
    l.den_round = f.den_round;
    l.cm_round = f.cm_round;
    l.den_begin = f.den_begin;
    l.den_end = f.den_end;
    l.den_shift = f.den_shift;
    l.cm_begin = f.cm_begin;
    l.cm_end = f.cm_end;
    l.cm_shift = f.cm_shift;
    l.has_den = f.den;
    l.has_num = f.num;
    l.has_aim = f.aim;
    l.cm = c.cm;
    l.w = c.w;
    l.h = c.h;
    l.pitch = (c.w + 63) / 64 * 64;
    l.blocks = blocks_for(c.w);
    l.cm_blocks = blocks_for(c.cm.col_end - c.cm.col_begin);
    if (s == 0) {
        const adm::Level0Args& a = p.level0;
        l.egl = a.egl;
        l.in_w = a.width;
        l.in_h = a.height;
        l.bit_depth = a.bit_depth;
        l.reads_past_row = a.reads_past_row;
        l.lo_only = a.lo_only;
        l.integer_gain = a.integer_gain;
        l.egl_int = a.egl_int;
        l.aim = a.aim;
        l.store_a = 1;
        l.tap_vec_end = a.tap_vec_end;
        l.tap = a.tap;
        l.score = a.score;
    } else {
        const adm::LevelArgs& a = p.levels[s - 1];
        l.round_v = a.round_v;
        l.round_h = a.round_h;
        l.shift_v = a.shift_v;
        l.shift_h = a.shift_h;
        l.den_round_sq = a.den_round_sq;
        l.den_cub_round = a.den_cub_round;
        l.den_shift_sq = a.den_shift_sq;
        l.den_cub_shift = a.den_cub_shift;
        l.egl = a.egl;
        l.in_w = a.w_in;
        l.in_h = a.h_in;
        l.reads_past_row = a.reads_past_row;
        l.aim = a.aim;
        l.store_a = a.store_a;
        l.store_tail = a.store_tail;
        l.tap_vec_end = a.tap_vec_end;
        l.tap = a.tap;
        l.score = a.score;
        for (int k = 0; k < 2; ++k) {
            l.tail_slot[k] = a.tail_slot[k];
            l.tail_col[k] = a.tail_col[k];
        }
    }
    return l;
}

class AdmVulkanTwin final : public GpuTwin {
public:
    AdmVulkanTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), settings_(options),
          plan_(adm::make_twin_plan(format, settings_, plant, kSpan, "adm (Vulkan)")),
          kernel_(kSpirv, sizeof(Push), "adm (Vulkan)"),
          host_sums_(static_cast<std::size_t>(slots) * adm::kTwinSums), frames_("adm (Vulkan)", slots) {
        if (plan_.bh[1] > kMaxGridRows)
            throw Error("adm (Vulkan): a luma of " + std::to_string(format.height) + " rows: at most " +
                        std::to_string(2 * kMaxGridRows) + " (a workgroup per band row)");
        plant_code_ = plan_.level0.mirror_shift     ? 1
                      : plan_.level0.half_rounding  ? 2
                      : plan_.round_after_sum       ? 3
                                                    : 0;
        LevelParams levels[4];
        for (int s = 0; s < 4; ++s) levels[s] = level_params(plan_, s);
        for (int s = 1; s < 4; ++s) levels[s].in_pitch = levels[s - 1].pitch;
        params_ = vulkan::DeviceBuffer<LevelParams>(4);
        vulkan::upload(params_.at(0), levels, sizeof levels, "uploading the adm plan");
        for (int s = 0; s < 4; ++s) {
            blocks_[s] = levels[s].blocks;
            cm_blocks_[s] = levels[s].cm_blocks;
            cm_rows_[s] = levels[s].cm.row_end - levels[s].cm.row_begin;
        }

        // Per slot: the planes of each level (int32: band a where a next level reads it, the
        // measured coefficients, the masking inputs), the row partials, the tails and the sums,
        // carved 256-byte aligned out of one buffer, and the table of their addresses.
        const bool aim = !settings_.config.skip_aim;
        std::size_t used = 0;
        const auto take = [&used](std::size_t bytes) {
            const std::size_t at = used;
            used += (bytes + 255) / 256 * 256;
            return at;
        };
        std::vector<std::size_t> layout(kTableEntries, SIZE_MAX);
        for (int s = 0; s < 4; ++s) {
            const std::size_t plane = static_cast<std::size_t>(levels[s].pitch) * levels[s].h * sizeof(std::int32_t);
            if (s < 3) {
                layout[s * 16 + 0] = take(plane);
                layout[s * 16 + 1] = take(plane);
            }
            for (int m = 0; m < (aim ? 2 : 1); ++m) {
                for (int theta = 0; theta < 3; ++theta) layout[s * 16 + 2 + 3 * m + theta] = take(plane);
                layout[s * 16 + 8 + m] = take(plane);
                layout[s * 16 + 10 + m] = take(plane);
            }
            layout[s * 16 + 12] =
                take(9 * static_cast<std::size_t>(levels[s].h) * levels[s].blocks * sizeof(std::uint64_t));
        }
        layout[kTails] = take(8 * sizeof(std::int32_t));
        layout[kSumsEntry] = take(adm::kTwinSums * sizeof(std::uint64_t));
        slot_bytes_ = used;
        memory_ = vulkan::DeviceBuffer<unsigned char>(slot_bytes_ * slots);
        tables_ = vulkan::DeviceBuffer<std::uint64_t>(static_cast<std::size_t>(kTableEntries) * slots);
        std::vector<std::uint64_t> table(static_cast<std::size_t>(kTableEntries) * slots, 0);
        const std::int32_t zeros[8] = {};
        for (unsigned slot = 0; slot < slots; ++slot) {
            for (int e = 0; e < kTableEntries; ++e)
                if (layout[e] != SIZE_MAX)
                    table[slot * kTableEntries + e] = memory_.address(slot * slot_bytes_ + layout[e]);
            // Level 1 reads zeros past its rows (no level before it leaves anything there).
            vulkan::upload(memory_.at(slot * slot_bytes_ + layout[kTails]), zeros, sizeof zeros, "zeroing the adm tails");
            sums_at_.push_back(slot * slot_bytes_ + layout[kSumsEntry]);
        }
        vulkan::upload(tables_.at(0), table.data(), table.size() * sizeof(std::uint64_t), "uploading the adm addresses");
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        frames_.enqueued(slot, f.index);
        const DevicePlane& ref = f.ref.luma();
        const DevicePlane& dis = f.dist.luma();
        if (!ref.data || !dis.data)
            throw Error("adm (Vulkan): frame " + std::to_string(f.index) + " has no reference or distorted luma");
        Push p{};
        p.params = params_.address();
        p.table = tables_.address(static_cast<std::size_t>(slot) * kTableEntries);
        p.ref = vulkan::address(ref.data);
        p.dis = vulkan::address(dis.data);
        p.ref_pitch = static_cast<std::uint32_t>(ref.pitch);
        p.dis_pitch = static_cast<std::uint32_t>(dis.pitch);
        p.plant = plant_code_;
        p.wide = format_.bit_depth > 8;
        for (int s = 0; s < 4; ++s) {
            p.level = s;
            p.pass = s == 0 ? 0 : 1;
            kernel_.dispatch(queue, static_cast<std::uint32_t>(blocks_[s]), static_cast<std::uint32_t>(plan_.bh[s + 1]),
                             1, &p);
            if ((s > 0 || !settings_.config.skip_scale0) && cm_blocks_[s] > 0 && cm_rows_[s] > 0) {
                p.pass = 2;
                kernel_.dispatch(queue, static_cast<std::uint32_t>(cm_blocks_[s]),
                                 static_cast<std::uint32_t>(cm_rows_[s]), 1, &p);
            }
        }
        p.pass = 3;
        kernel_.dispatch(queue, adm::kTwinSums, 1, 1, &p);
        vulkan::copy_to_host(queue, &host_sums_[static_cast<std::size_t>(slot) * adm::kTwinSums],
                             memory_.at(sums_at_[slot]), adm::kTwinSums * sizeof(std::uint64_t),
                             "copying the adm sums");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const adm::AdmSums sums = adm::twin_sums(&host_sums_[static_cast<std::size_t>(slot) * adm::kTwinSums]);
        settings_.write_frame(adm::adm_scores(sums, format_.width, format_.height, settings_.config), out);
    }

private:
    VideoFormat format_;
    adm::Settings settings_;
    adm::TwinPlan plan_;
    vulkan::Kernel kernel_;
    int plant_code_ = 0;  // the shader's plant
    int blocks_[4] = {}, cm_blocks_[4] = {}, cm_rows_[4] = {};
    vulkan::DeviceBuffer<LevelParams> params_;        // levels 0..3
    vulkan::DeviceBuffer<unsigned char> memory_;      // slots x slot_bytes_
    vulkan::DeviceBuffer<std::uint64_t> tables_;      // slots x kTableEntries addresses
    std::size_t slot_bytes_ = 0;
    std::vector<std::size_t> sums_at_;                // per slot: its sums' offset in memory_
    std::vector<std::uint64_t> host_sums_;            // slots x kTwinSums
    SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant,
                                      PlantedDefect::kReductionOrder};

}  // namespace

namespace adm {

extern const TwinDescriptor vulkan_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor vulkan_twin{
    "adm",
    make_twin<AdmVulkanTwin>,
    {exact_bound,
     "bound 0 at every format: every per-sample step is the CPU's own function (adm_math.hpp compiled as GLSL: the "
     "DWT, decouple, CSF and masking integer arithmetic with its rounding shifts and 32-bit wraps, chosen per column "
     "as the CPU chooses AVX-512 or C columns, at every bit depth 8..16 and size), with the CUDA twin's plan "
     "(adm_twin_plan.hpp); the device's only floating point is in the same-direction test, the gain restore and "
     "the 2^30 / i reciprocal: IEEE multiplications, correctly rounded divisions (base/correctly_rounded.hpp), "
     "comparisons and conversions in the CPU's order, NoContraction; each workgroup's row sums are 64-bit integer "
     "partials, added per row, rounded and shifted per row and summed over the rows as the CPU does (integer, "
     "order-free); the floats (cube roots, ratios, adm3) are formed on the host by the CPU's own code "
     "(adm_scores, Settings::write_frame)"},
    kDefects,
    "no floating-point addition on the device: nothing a compiler could contract",
};

}  // namespace adm

}  // namespace vmafx
