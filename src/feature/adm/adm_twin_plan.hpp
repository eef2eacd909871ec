// What the GPU twins of the integer ADM (adm_cuda.cu, adm_vulkan.cpp) compute per DWT level,
// worked out once on the host from the format and the options by the CPU's own geometry and
// constants (adm_math.hpp, adm_pipeline.hpp): band sizes, the regions each stage covers, the
// per-column choice between upstream's AVX-512 and C arithmetic, CSF weights, and the
// roundings and shifts of every sum. Plain data, read by the CUDA kernels as arguments and
// copied by the Vulkan twin into its shader's parameter block; no arithmetic of its own beyond
// the choice of constants. Upstream: libvmaf 3.2.0 src/feature/integer_adm.c, x86/adm_avx512.c.
#pragma once

#include <cstdint>

#include "base/host_device.hpp"
#include "feature/adm/adm_math.hpp"
#include "feature/adm/adm_pipeline.hpp"

namespace vmafx {

struct VideoFormat;
enum class PlantedDefect;

namespace adm {

struct Settings;

/// Level 0's DWT, decouple and CSF stage (luma in, band size out).
struct Level0Args {
    int width, height, bit_depth;  ///< input luma
    int w, h;                      ///< band size
    bool lo_only;                  ///< adm_skip_scale0: band a only
    bool reads_past_row;           ///< the last output column reads past its scratch row
    bool mirror_shift;             ///< planted kMirrorShift
    bool half_rounding;            ///< planted kRoundingConstant
    Region tap, score;
    int tap_vec_end;  ///< first tap-region column decouple/csf compute the C way
    CmLayout cm;
    std::int32_t wt[3];  ///< fixed-point CSF weights (csf_weights_q_scale0)
    bool integer_gain;
    std::int32_t egl_int;
    double egl;
    bool aim;
};

/// A level 1..3's DWT, decouple and CSF stage.
struct LevelArgs {
    int w_in, h_in;  ///< input: band a of the previous level
    int w, h;        ///< band size
    std::int64_t round_v, round_h;
    std::uint32_t shift_v, shift_h;
    bool reads_past_row;
    bool mirror_shift;
    Region tap, score;
    int tap_vec_end;
    std::uint32_t wq[3];  ///< Q32 CSF weights (csf_weights_q32)
    double egl;
    bool aim;
    std::uint64_t den_round_sq, den_cub_round;
    int den_shift_sq;
    std::uint32_t den_cub_shift;
    bool store_a;           ///< whether a next level reads band a
    bool store_tail;        ///< whether the next level reads past its rows into this level's scratch
    int tail_slot[2];       ///< which vertical row (0 ref lo, 1 ref hi, 2 dis lo, 3 dis hi) and
    int tail_col[2];        ///< column of this level's last row the next level reads there
};

/// A level's contrast-masking stage.
struct CmArgs {
    int w, h;
    CmLayout cm;
    std::int32_t wt[3];   ///< level 0: fixed-point weights
    std::uint32_t wq[3];  ///< levels 1..3: Q32 weights
    std::int64_t rcub[3];
    std::uint32_t scub[3];
    bool aim;
};

/// How a level's row sums become its frame sums: which rows, and each row's rounding and shift
/// (den_row_rounded, cm_row_rounded) before the rows are added, as the CPU does.
struct FinalLevel {
    int den_begin, den_end;  ///< score rows
    std::uint64_t den_round;
    std::uint32_t den_shift;
    int cm_begin, cm_end;  ///< visited rows
    std::int64_t cm_round;
    std::uint32_t cm_shift;
    bool den, num, aim;  ///< which sums the level has
};

/// The whole frame's plan: levels 0..3.
struct TwinPlan {
    int bw[5], bh[5];  ///< the luma's size, then each level's band size (half, rounded up)
    Level0Args level0;
    LevelArgs levels[3];  ///< levels 1..3
    CmArgs cm[4];
    FinalLevel final[4];
    bool round_after_sum;  ///< planted kReductionOrder: each sum's rows added before one rounding
};

/// The frame sums a twin forms: 4 levels x {0 den, 1 num, 2 aim} x 3 orientations (h, v, d), at
/// index level * 9 + quantity * 3 + orientation.
inline constexpr int kTwinSums = 4 * 3 * 3;

/// The kTwinSums sums at `v` as the CPU's AdmSums (the numerators and AIM sums are 64-bit
/// integers the twins add modulo 2^64 as unsigned words).
AdmSums twin_sums(const std::uint64_t* v);

/// The plan of a twin of `settings` (checked: Settings::check_options) on `format`, with the
/// planted defect `plant` (kMirrorShift, kRoundingConstant, kReductionOrder; anything else plants
/// nothing). `span`: the vertical-pass columns a workgroup of the backend keeps (2 x its width
/// + 2); throws Error naming `who` when a level's scratch tail (what the next level reads past
/// its rows) falls outside it.
TwinPlan make_twin_plan(const VideoFormat& format, const Settings& settings, PlantedDefect plant, int span,
                        const char* who);

}  // namespace adm

}  // namespace vmafx
