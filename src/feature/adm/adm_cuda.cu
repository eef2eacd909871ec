// CUDA twin of the integer ADM (adm_pipeline.cpp), bit-identical to it on every frame.
//
// Per frame, on the frame's stream, for each DWT level (0..3):
//  1. level0_kernel / level_kernel: one block per segment of kThreads output columns of one
//     output row. The vertical DWT pass of reference and distorted (the 4 input rows the taps
//     read, mirrored) goes to shared memory, the horizontal pass gives the four bands of both at
//     the block's columns; band a is stored as the next level's input. Where the CPU decouples
//     and CSF-weights (the tap region), the thread decouples its position and CSF-weights the
//     additive part (the masker of DLM) and the restored part (the masker of AIM), and stores
//     what contrast masking reads of the position: the coefficients it measures (restored for
//     DLM, additive for AIM), the sum over orientations of the masking filter input |x|/30, and
//     the sum of the masker terms |x|/15. In the score region the reference's cubes are summed
//     per row and orientation (block reduction, then a 64-bit atomicAdd into the row's sum).
//  2. cm0_kernel / cm_kernel: one block per segment of a visited row: each position's masking
//     threshold (3x3 neighbourhood sum of the filter inputs, mirrored at the band's edges, minus
//     the centre, plus the masker terms) and its cube terms, summed per row as in 1.
// Then finalize_kernel rounds and shifts each row's sum and adds the rows, as the CPU does,
// zeroing the row sums for the slot's next frame, and the 36 sums (level x orientation x
// {den, num, aim}) are copied to the slot's pinned host memory. finish() forms the scores from
// them with the CPU's own host code (adm::adm_scores, adm::Settings::write_frame).
//
// Exactness: every per-sample step is a function of adm_math.hpp, shared with the CPU, chosen
// per column as the CPU chooses it (AVX-512 vs C columns); every sum on the device is an integer
// sum (modulo 2^64, or modulo 2^32 where the CPU wraps), so its order does not matter; the
// floating-point end runs on the host in the CPU's code. Upstream: libvmaf 3.2.0
// src/feature/integer_adm.c, x86/adm_avx512.c.
//
// Planted regressions (tests of the parity gate only; fixed at creation in the twin's plan
// (adm_twin_plan.hpp, make_twin_plan) and set in the kernels' arguments), all inside kernels:
//  kMirrorShift:      the DWT's vertical mirror at the bottom edge reads one row further in
//                     (n -> n-2 instead of n-1), at every level (dwt_row, from level0_kernel and
//                     level_kernel);
//  kRoundingConstant: level 0's horizontal DWT rounds with 2^14 instead of 2^15 (level0_kernel,
//                     Level0Args::half_rounding: planted_dwt0_horizontal, the twin's own mutant
//                     of adm::dwt0_horizontal_lo/_hi on the shared tap sums; the CPU's math has
//                     no test-only parameter);
//  kReductionOrder:   finalize_kernel adds each sum's rows first and rounds and shifts the total
//                     once, instead of rounding and shifting each row's sum before adding the rows
//                     as the CPU does (FinalArgs::round_after_sum): the level 1..3 denominators
//                     and every contrast-masking sum.
// No kContraction: the device code has no floating-point addition or subtraction at all, only
// multiplications, divisions, comparisons and conversions (same_direction*, restore, recip30),
// so there is no a*b+c a compiler could fuse: compiled with --fmad=true its PTX is the same as
// with --fmad=false save the .rn qualifiers of 36 f64 and 6 f32 multiplies, and it has no fma.
// The only floating-point sums of ADM (cube roots, ratios, adm3's blend) run on the host, in the
// CPU's own code.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "gpu/twin.hpp"
#include "feature/adm/adm.hpp"
#include "feature/adm/adm_math.hpp"
#include "feature/adm/adm_pipeline.hpp"
#include "feature/adm/adm_cuda_kernels.cuh"

namespace vmafx {

namespace {

// ---------------------------------------------------------------------------------------
// The twin
// ---------------------------------------------------------------------------------------

/// Carves 256-byte aligned arrays out of one allocation (sizes first, then addresses).
class Carver {
public:
    explicit Carver(unsigned char* base) : base_(base) {}
    template <typename T>
    T* take(std::size_t count) {
        T* p = base_ ? reinterpret_cast<T*>(base_ + used_) : nullptr;
        used_ += (count * sizeof(T) + 255) / 256 * 256;
        return p;
    }
    std::size_t used() const { return used_; }

private:
    unsigned char* base_;
    std::size_t used_ = 0;
};

/// The device memory of one slot.
struct SlotMemory {
    LevelPlanes<int16_t> level0;
    LevelPlanes<int32_t> level[3];  // DWT levels 1..3
    RowSums rows[4];
    int32_t* tails = nullptr;  // [level 0..3][2]: what level s reads past its rows (level 1: zeros)
    ull* sums = nullptr;       // kSums
};

template <typename T>
void carve_planes(Carver& c, LevelPlanes<T>& p, int w, int h, bool with_a, bool aim) {
    p.pitch = (w + 63) / 64 * 64;
    const std::size_t n = static_cast<std::size_t>(p.pitch) * static_cast<std::size_t>(h);
    if (with_a) {
        p.ref_a = c.take<T>(n);
        p.dis_a = c.take<T>(n);
    }
    for (int m = 0; m < (aim ? 2 : 1); ++m) {
        for (int theta = 0; theta < 3; ++theta) p.x[m][theta] = c.take<T>(n);
        p.sf[m] = c.take<int32_t>(n);
        p.centre[m] = c.take<int32_t>(n);
    }
}

class AdmTwin final : public GpuTwin {
public:
    AdmTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), settings_(options),
          plan_(adm::make_twin_plan(format, settings_, plant, kSpan, "adm (CUDA)")),
          host_sums_(static_cast<std::size_t>(slots) * kSums), slots_(slots), frames_("adm", slots) {
        for (int s = 0; s < 4; ++s) final_.level[s] = plan_.final[s];
        final_.round_after_sum = plan_.round_after_sum;
        allocate_slots();
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {

        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        const DevicePlane& ref_luma = f.ref.luma();
        const DevicePlane& dis_luma = f.dist.luma();
        if (!ref_luma.data || !dis_luma.data)
            throw Error("adm (CUDA): frame " + std::to_string(f.index) + " without reference or distorted luma");
        SlotMemory& m = slots_[slot];

        // Level 0.
        const Level0Args& level0 = plan_.level0;
        const dim3 grid0(cuda::blocks_for(static_cast<std::size_t>(level0.w), kThreads),
                         static_cast<unsigned>(level0.h));
        const auto* ref = static_cast<const unsigned char*>(ref_luma.data);
        const auto* dis = static_cast<const unsigned char*>(dis_luma.data);
        if (format_.bit_depth == 8)
            level0_kernel<std::uint8_t><<<grid0, kThreads, 0, stream>>>(ref, ref_luma.pitch, dis, dis_luma.pitch,
                                                                        level0, m.level0, m.rows[0]);
        else
            level0_kernel<std::uint16_t><<<grid0, kThreads, 0, stream>>>(ref, ref_luma.pitch, dis, dis_luma.pitch,
                                                                         level0, m.level0, m.rows[0]);
        cuda::check_launch("adm level0_kernel");
        if (!settings_.config.skip_scale0) {
            cm0_kernel<<<cm_grid(plan_.cm[0]), kThreads, 0, stream>>>(m.level0, plan_.cm[0], m.rows[0]);
            cuda::check_launch("adm cm0_kernel");
        }

        // Levels 1..3.
        for (int s = 1; s <= 3; ++s) {
            const LevelArgs& a = plan_.levels[s - 1];
            const dim3 grid(cuda::blocks_for(static_cast<std::size_t>(a.w), kThreads), static_cast<unsigned>(a.h));
            LevelPlanes<int32_t>& out = m.level[s - 1];
            const int32_t* tail_in = m.tails + 2 * s;
            int32_t* tail_out = m.tails + 2 * (s + 1 < 4 ? s + 1 : 0);
            if (s == 1)
                level_kernel<int16_t><<<grid, kThreads, 0, stream>>>(m.level0.ref_a, m.level0.dis_a, m.level0.pitch,
                                                                     tail_in, a, out, tail_out, m.rows[s]);
            else
                level_kernel<int32_t><<<grid, kThreads, 0, stream>>>(
                    m.level[s - 2].ref_a, m.level[s - 2].dis_a, m.level[s - 2].pitch, tail_in, a, out, tail_out,
                    m.rows[s]);
            cuda::check_launch("adm level_kernel");
            cm_kernel<<<cm_grid(plan_.cm[s]), kThreads, 0, stream>>>(out, plan_.cm[s], m.rows[s]);
            cuda::check_launch("adm cm_kernel");
        }

        FinalArgs fin = final_;
        for (int s = 0; s < 4; ++s) fin.rows[s] = m.rows[s];
        finalize_kernel<<<kSums, kFinalThreads, 0, stream>>>(fin, m.sums);
        cuda::check_launch("adm finalize_kernel");
        cuda::check(cudaMemcpyAsync(host_sums_.get() + static_cast<std::size_t>(slot) * kSums, m.sums,
                                    kSums * sizeof(ull), cudaMemcpyDeviceToHost, stream),
                    "copying the adm sums to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const ull* v = host_sums_.get() + static_cast<std::size_t>(slot) * kSums;
        std::uint64_t words[kSums];
        std::copy(v, v + kSums, words);
        const adm::AdmSums sums = adm::twin_sums(words);
        settings_.write_frame(adm::adm_scores(sums, format_.width, format_.height, settings_.config), out);
    }

private:
    /// Whether AIM (and its sums) is computed.
    bool aim() const { return !settings_.config.skip_aim; }

    /// One slot's arrays carved from `c` into `m` (with a null base: sizes only).
    void carve_slot(Carver& c, SlotMemory& m) const {
        carve_planes(c, m.level0, plan_.bw[1], plan_.bh[1], true, aim());
        for (int s = 1; s <= 3; ++s) carve_planes(c, m.level[s - 1], plan_.bw[s + 1], plan_.bh[s + 1], s < 3, aim());
        for (int s = 0; s < 4; ++s) {
            m.rows[s].h = plan_.bh[s + 1];
            m.rows[s].data = c.take<ull>(9 * static_cast<std::size_t>(plan_.bh[s + 1]));
        }
        m.tails = c.take<int32_t>(8);
        m.sums = c.take<ull>(kSums);
    }

    /// One zeroed device allocation per slot, carved into slots_.
    void allocate_slots() {
        Carver sizing(nullptr);
        SlotMemory unused;
        carve_slot(sizing, unused);
        for (SlotMemory& m : slots_) {
            memory_.emplace_back(sizing.used());
            Carver c(memory_.back().get());
            carve_slot(c, m);
            // Row sums and the level-1 tail start at zero (finalize_kernel re-zeroes the sums).
            cuda::check(cudaMemset(memory_.back().get(), 0, sizing.used()), "cudaMemset");
        }
        cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }

    static dim3 cm_grid(const CmArgs& c) {
        return dim3(cuda::blocks_for(static_cast<std::size_t>(c.cm.col_end - c.cm.col_begin), kThreads),
                    static_cast<unsigned>(c.cm.row_end - c.cm.row_begin));
    }

    VideoFormat format_;
    adm::Settings settings_;
    adm::TwinPlan plan_;  // per level: arguments of the kernels (adm_twin_plan.hpp)
    FinalArgs final_{};  // plan_.final and the plant; the slot's rows bound in enqueue()
    cuda::PinnedBuffer<ull> host_sums_;  // kSums per slot
    std::vector<SlotMemory> slots_;
    std::vector<cuda::DeviceBuffer<unsigned char>> memory_;  // per slot
    cuda::SlotFrames frames_;  // frame enqueued in each slot
};

/// What this twin can plant (see the file's head): no contraction, as its device code has no
/// floating-point a*b+c.
constexpr PlantedDefect kDefects[] = {PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant,
                                      PlantedDefect::kReductionOrder};

}  // namespace

namespace adm {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "adm",
    make_twin<AdmTwin>,
    {exact_bound,
     "bound 0 at every format: every per-sample step is the CPU's own function (adm_math.hpp: the DWT, decouple, "
     "CSF and masking integer arithmetic with its rounding shifts and 32-bit wraps, chosen per column as the CPU "
     "chooses AVX-512 or C columns, at every bit depth 8..16 and size); the device's only floating point is in "
     "the same-direction test, the gain restore and the 2^30 / i reciprocal, made of IEEE multiplications, "
     "correctly rounded divisions, comparisons and conversions in the CPU's order, with no addition, so no "
     "contraction can occur (none declared); each row's sum of cubes is added with 64-bit integer atomics "
     "(exact, order-free), rounded and shifted per row and summed over the rows as the CPU does (integer, "
     "order-free); the floats (cube roots, ratios, adm3) are formed on the host by the CPU's own code "
     "(adm_scores, Settings::write_frame)"},
    kDefects,
    "no floating-point addition on the device: nothing a compiler could contract (its PTX with --fmad=true and "
    "--fmad=false differ only in .rn suffixes)",
};

}  // namespace adm

}  // namespace vmafx
