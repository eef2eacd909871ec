// CUDA twin of float_adm (float_adm.cpp), bit-identical to it on every frame.
//
// Per frame, on the frame's stream:
//  1. to_float_kernel: each luma sample as picture_copy's float (the sample, / 4, 16 or 256 at
//     10, 12, 16 bits, byte-wise at 9, 11, 13..15, + -128.0f: exact, as on the CPU).
//  2. For each of the four levels:
//     - dwt_kernel (reference and distorted): a thread per output position forms the four
//       vertical tap sums (low and high pass) of the four source columns 2j-1 .. 2j+2 and the
//       horizontal tap sums of those (float_adm_math.hpp dwt_taps, dwt_source's mirror): the
//       CPU's float sums in its tap order; the CPU's vertical pass stores the same row values
//       once, the thread recomputes them, which changes no value. Band a is the next level's input.
//     - decouple_kernel (the extended region): the CPU's decouple_pixel, sample by sample
//       (restored, angle_flag, gain_limited; the golden machines' rcpss estimate from the table
//       kRcpTable, copied to the device and read here, as the CPU reads it; any gain limit, the
//       limit in double as the CPU's scalar path).
//     - csf_kernel (the extended region): CSF-weighted bands and their 1/30 magnitudes
//       (csf_flt, in double as the CPU), of the additive part (the masker of the numerator), then
//       of the restored part (the masker of AIM).
//     - den_terms_kernel / cm_terms_kernel: each sample's term of the CPU's sums, written per
//       band at (row, column) of the summed rectangle: den_cube (the reference) over the score
//       region; cm_cube after the 3x3 masking threshold (cm_band_sum over the bands in band
//       order from 0, cm_neighbour's edge rows and columns) over cm's rows and columns
//       (CmGeometry: one contiguous rectangle, in the CPU's order).
//     - row_sum_kernel: a thread per (band, row) adds the row's terms from 0 in column order, in
//       float: the CPU's running row sum `inner`, the same additions in the same order (exact
//       by construction, no reassociation); accum_kernel: a thread per band adds the row sums
//       from 0 in row order, in float: the CPU's `accum`.
//  3. The 36 sums (level x {den, num, aim} x band) are copied to the slot's pinned memory.
// finish() forms each level's p-norms (powf, the noise constant) with the CPU's own
// pooled_p_norm and the scores with scores_of and Settings::write_frame, on the host.
//
// adm_p_norm: p = 3 is the CPU's cube (v * v) * v; any other p raises each term with
// libm::powf_with (base/libm_powf.hpp), the function of the CPU's libm::powf (glibc 2.36's
// FMA-variant bits), run on the device with a device copy of its tables.
//
// The per-thread work is float_adm_twin.hpp's (host-device; float_adm_twin_test.cpp runs it on
// the host in this file's decomposition against the CPU's compute_adm, bit for bit).
//
// Planted regressions (parity-gate tests only; plant_, fixed at creation, passed to the kernels;
// twin_work::Plant):
//  kContraction:      the DWT's tap sums fuse each product into the sum (fmaf), and the masking
//                     threshold's centre term is fused in double (fma), as a compiler contracting
//                     them would (dwt_kernel, cm_terms_kernel);
//  kMirrorShift:      the DWT's mirror before the first row and column reads index 2 instead of
//                     1 (-1 -> 2), at every level (dwt_kernel): the gate's heights below 240 put
//                     level 3's first row in the score region;
//  kRoundingConstant: the CSF's 1/30 magnitudes round the double product toward zero instead of
//                     to nearest (csf_kernel): the masking thresholds move;
//  kReductionOrder:   each row's terms summed from its last column to its first (row_sum_kernel).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "feature/float_adm/float_adm.hpp"
#include "feature/float_adm/float_adm_kernels.hpp"
#include "feature/float_adm/float_adm_math.hpp"
#include "feature/float_adm/float_adm_twin.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

namespace {

using float_adm::CmGeometry;
using float_adm::Region;
using float_adm::twin_work::Band3;
using float_adm::twin_work::Level;
using float_adm::twin_work::Plant;
using float_adm::twin_work::Power;
using float_adm::twin_work::Taps;

constexpr int kScales = 4;
constexpr unsigned kBlockX = 32;
constexpr unsigned kBlockY = 8;
constexpr unsigned kRowThreads = 128;

/// The 36 sums of a frame: [level][0 den, 1 num, 2 aim][band h, v, d].
struct FrameSums {
    float acc[kScales][3][3];
};

dim3 grid_for(int w, int h) {
    return dim3(cuda::blocks_for(static_cast<std::size_t>(w), kBlockX), cuda::blocks_for(static_cast<std::size_t>(h), kBlockY));
}

/// Picture_copy's float of each w x h luma sample (Sample words, rows `pitch` bytes apart) into
/// `dst` (packed): the sample / scaler (scaler 0: as it is, 8 bits and the byte-wise depths) + -128.
template <typename Sample>
__global__ void to_float_kernel(const unsigned char* __restrict__ plane, std::ptrdiff_t pitch, int w, int h, float scaler,
                                float* __restrict__ dst) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const Sample s = reinterpret_cast<const Sample*>(plane + static_cast<std::ptrdiff_t>(y) * pitch)[x];
    const float off = -128.0f;
    dst[static_cast<std::ptrdiff_t>(y) * w + x] =
        scaler != 0.0f ? static_cast<float>(s) / scaler + off : static_cast<float>(s) + off;
}

/// One DWT level of the w x h image `src` into the bw x bh bands (twin_work::dwt_at). Grid:
/// grid_for(bw, bh).
__global__ void dwt_kernel(const float* __restrict__ src, int w, int h, int bw, int bh, Taps taps, bool lo_only,
                           float* a, float* hb, float* vb, float* db, Plant plant) {
    const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (j >= bw || i >= bh) return;
    float_adm::twin_work::dwt_at(src, w, h, bw, i, j, taps, lo_only, a, hb, vb, db, plant);
}

/// The decouple step over region g of bw-wide bands (twin_work::decouple_at). table: kRcpTable.
__global__ void decouple_kernel(Band3 ref, Band3 dis, Band3 r, Band3 ad, int bw, Region g, double gain_limit,
                                const std::uint32_t* __restrict__ table) {
    const int j = g.left + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = g.top + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (j >= g.right || i >= g.bottom) return;
    float_adm::twin_work::decouple_at(ref, dis, r, ad, static_cast<std::ptrdiff_t>(i) * bw + j, gain_limit, table);
}

/// The CSF step over region g (twin_work::csf_at).
__global__ void csf_kernel(Band3 src, float f1, float f2, int bw, Region g, Band3 val, Band3 flt, Plant plant) {
    const int j = g.left + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = g.top + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (j >= g.right || i >= g.bottom) return;
    float_adm::twin_work::csf_at(src, f1, f2, static_cast<std::ptrdiff_t>(i) * bw + j, val, flt, plant);
}

/// The reference's terms over the score region s: terms[t * plane + (i - s.top) * n + (j -
/// s.left)] = den_cube(x, rf), n = s.right - s.left.
__global__ void den_terms_kernel(Band3 src, float f1, float f2, int bw, Region s, float* __restrict__ terms,
                                 std::ptrdiff_t plane, Power pw) {
    const int n = s.right - s.left;
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= n || y >= s.bottom - s.top) return;
    const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(s.top + y) * bw + (s.left + x);
    const float rf[3] = {f1, f1, f2};
    for (int t = 0; t < 3; ++t)
        terms[t * plane + static_cast<std::ptrdiff_t>(y) * n + x] = float_adm::twin_work::den_term(src.b[t][o], rf[t], pw);
}

/// The masked terms of cm over rows [r0, r1) and columns [g.first, g.last): the threshold of the
/// masker (val, flt) at the position (twin_work::cm_threshold_at; 0 when bypass), then cm_cube of
/// src; terms[t * plane + (i - r0) * n + (j - g.first)], n = g.last - g.first.
__global__ void cm_terms_kernel(Band3 src, Band3 val, Band3 flt, float f1, float f2, CmGeometry g, int r0, int r1,
                                bool bypass, float* __restrict__ terms, std::ptrdiff_t plane, Power pw, Plant plant) {
    const int n = g.last - g.first;
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= n || y >= r1 - r0) return;
    const int i = r0 + y;
    const int j = g.first + x;
    const float thr = bypass ? 0.0f : float_adm::twin_work::cm_threshold_at(val, flt, g, i, j, plant);
    const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(i) * g.w + j;
    const float rf[3] = {f1, f1, f2};
    for (int t = 0; t < 3; ++t)
        terms[t * plane + static_cast<std::ptrdiff_t>(y) * n + x] = float_adm::twin_work::cm_term(src.b[t][o], rf[t], thr, pw);
}

/// out[t * out_pitch + r] = twin_work::row_sum_at of row r's n terms (terms[t * plane + r * n]),
/// t < 3, r < rows. Grid: blocks of kRowThreads over 3 * rows.
__global__ void row_sum_kernel(const float* __restrict__ terms, int n, int rows, std::ptrdiff_t plane,
                               float* __restrict__ out, int out_pitch, bool reversed) {
    const int id = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (id >= 3 * rows) return;
    const int t = id / rows;
    const int r = id - t * rows;
    out[t * out_pitch + r] = float_adm::twin_work::row_sum_at(terms + t * plane + static_cast<std::ptrdiff_t>(r) * n, n, reversed);
}

/// acc[t] = the float sum from 0 of row_sums[t * pitch + r], r < rows, in row order; t < 3.
__global__ void accum_kernel(const float* __restrict__ row_sums, int rows, int pitch, float* __restrict__ acc) {
    const int t = static_cast<int>(threadIdx.x);
    if (t >= 3) return;
    acc[t] = float_adm::twin_work::row_sum_at(row_sums + t * pitch, rows, false);
}

/// A slot's device memory.
struct SlotMemory {
    cuda::DeviceBuffer<float> pic[2];                // level 0 input: reference, distorted
    cuda::DeviceBuffer<float> bands[kScales][2][4];  // per level, per picture: a, h, v, d
    cuda::DeviceBuffer<float> dec[2][3];             // restored, additive: h, v, d (level 0's size)
    cuda::DeviceBuffer<float> val[3], flt[3];        // the masker (level 0's size)
    cuda::DeviceBuffer<float> terms;                 // 3 bands of terms (level 0's size each)
    cuda::DeviceBuffer<float> row_sums;              // 3 bands of row sums
    cuda::DeviceBuffer<FrameSums> sums;
};

class FloatAdmTwin final : public GpuTwin {
public:
    FloatAdmTwin(const Options& options, const VideoFormat& format, unsigned slots, PlantedDefect plant)
        : format_(format), plant_(Plant::of(plant)), settings_(options), host_sums_(slots), frames_("float_adm", slots) {
        powf_data_ = cuda::DeviceBuffer<libm::PowfTables>(1);
        cuda::check(cudaMemcpy(powf_data_.get(), &libm::powf_tables(), sizeof(libm::PowfTables), cudaMemcpyHostToDevice),
                    "copying powf's tables");
        power_ = Power{settings_.p_norm == 3.0, static_cast<float>(settings_.p_norm), powf_data_.get()};
        float_adm::twin_work::levels_of(format.width, format.height, levels_);
        for (int s = 0; s < kScales; ++s) factors_[s] = settings_.factors(s);
        std::vector<std::uint32_t> table(4096);
        for (std::size_t i = 0; i < table.size(); ++i) table[i] = float_adm::kRcpTable[i];
        table_ = cuda::DeviceBuffer<std::uint32_t>(table.size());
        cuda::check(cudaMemcpy(table_.get(), table.data(), table.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice),
                    "copying the reciprocal table");
        const std::size_t n0 = static_cast<std::size_t>(levels_[0].bw) * static_cast<std::size_t>(levels_[0].bh);
        plane_ = static_cast<std::ptrdiff_t>(n0);
        row_pitch_ = levels_[0].bh;
        for (unsigned s = 0; s < slots; ++s) {
            SlotMemory m;
            const std::size_t pixels = static_cast<std::size_t>(format.width) * static_cast<std::size_t>(format.height);
            for (auto& p : m.pic) p = cuda::DeviceBuffer<float>(pixels);
            for (int l = 0; l < kScales; ++l) {
                const std::size_t n = static_cast<std::size_t>(levels_[l].bw) * static_cast<std::size_t>(levels_[l].bh);
                for (auto& pic : m.bands[l])
                    for (auto& b : pic) b = cuda::DeviceBuffer<float>(n);
            }
            for (auto& part : m.dec)
                for (auto& b : part) b = cuda::DeviceBuffer<float>(n0);
            for (int t = 0; t < 3; ++t) m.val[t] = cuda::DeviceBuffer<float>(n0), m.flt[t] = cuda::DeviceBuffer<float>(n0);
            m.terms = cuda::DeviceBuffer<float>(3 * n0);
            m.row_sums = cuda::DeviceBuffer<float>(3 * static_cast<std::size_t>(row_pitch_));
            m.sums = cuda::DeviceBuffer<FrameSums>(1);
            slots_.push_back(std::move(m));
        }
    }

    void enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) override {
        const cudaStream_t stream = cuda::stream_of(queue);
        frames_.enqueued(slot, f.index);
        const DevicePlane* planes[2] = {&f.ref.luma(), &f.dist.luma()};
        if (!planes[0]->data || !planes[1]->data)
            throw Error("float_adm (CUDA): frame " + std::to_string(f.index) + " without reference or distorted luma");
        SlotMemory& m = slots_[slot];
        cuda::check(cudaMemsetAsync(m.sums.get(), 0, sizeof(FrameSums), stream), "cudaMemsetAsync");
        const dim3 block(kBlockX, kBlockY);
        const int depth = format_.bit_depth;
        const float scaler = depth == 10 ? 4.0f : depth == 12 ? 16.0f : depth == 16 ? 256.0f : 0.0f;
        for (int p = 0; p < 2; ++p) {
            const auto* data = static_cast<const unsigned char*>(planes[p]->data);
            const dim3 grid = grid_for(format_.width, format_.height);
            if (scaler != 0.0f)
                to_float_kernel<std::uint16_t><<<grid, block, 0, stream>>>(data, planes[p]->pitch, format_.width,
                                                                           format_.height, scaler, m.pic[p].get());
            else
                to_float_kernel<std::uint8_t><<<grid, block, 0, stream>>>(data, planes[p]->pitch, format_.width,
                                                                          format_.height, 0.0f, m.pic[p].get());
            cuda::check_launch("float_adm to_float_kernel");
        }
        for (int s = 0; s < kScales; ++s) {
            const Level& l = levels_[s];
            const bool skip = s == 0 && settings_.skip_scale0;
            for (int p = 0; p < 2; ++p) {
                const float* src = s == 0 ? m.pic[p].get() : m.bands[s - 1][p][0].get();
                auto& b = m.bands[s][p];
                dwt_kernel<<<grid_for(l.bw, l.bh), block, 0, stream>>>(src, l.w, l.h, l.bw, l.bh, taps_, skip, b[0].get(),
                                                                       b[1].get(), b[2].get(), b[3].get(), plant_);
                cuda::check_launch("float_adm dwt_kernel");
            }
            if (skip) continue;
            level_sums(m, s, reinterpret_cast<float*>(m.sums.get()) + 9 * s, stream);
        }
        cuda::check(cudaMemcpyAsync(host_sums_.get() + slot, m.sums.get(), sizeof(FrameSums), cudaMemcpyDeviceToHost, stream),
                    "copying the float_adm sums to the host");
    }

    void finish(unsigned slot, unsigned index, FrameScores& out) override {
        frames_.check_holds(slot, index);
        const FrameSums& sums = host_sums_[slot];
        std::array<float_adm::ScaleValues, kScales> values{};
        for (int s = 0; s < kScales; ++s) {
            if (s == 0 && settings_.skip_scale0) {
                values[s].den = 1e-10f;
                continue;
            }
            const Region& score = levels_[s].score;
            const double p = settings_.p_norm;
            values[s].den = float_adm::pooled_p_norm(sums.acc[s][0], score, settings_.noise_weight, p);
            values[s].num = float_adm::pooled_p_norm(sums.acc[s][1], score, settings_.noise_weight, p);
            values[s].aim_num = float_adm::pooled_p_norm(sums.acc[s][2], score, 0.0, p);
        }
        settings_.write_frame(float_adm::scores_of(values, format_.width, format_.height, settings_), out);
    }

private:
    static Band3 band3(cuda::DeviceBuffer<float> (&b)[3]) { return Band3{{b[0].get(), b[1].get(), b[2].get()}}; }

    /// Level s's decouple, CSF, and the den, num and aim sums into acc[3 * k + band] (device; k:
    /// den, num, aim; FrameSums::acc[s]).
    void level_sums(SlotMemory& m, int s, float* acc, cudaStream_t stream) {
        const dim3 block(kBlockX, kBlockY);
        const Level& l = levels_[s];
        const float f1 = factors_[s][0], f2 = factors_[s][1];
        const Band3 ref{{m.bands[s][0][1].get(), m.bands[s][0][2].get(), m.bands[s][0][3].get()}};
        const Band3 dis{{m.bands[s][1][1].get(), m.bands[s][1][2].get(), m.bands[s][1][3].get()}};
        const Band3 rst = band3(m.dec[0]), add = band3(m.dec[1]);
        const Band3 val = band3(m.val), flt = band3(m.flt);
        const int ew = l.ext.right - l.ext.left, eh = l.ext.bottom - l.ext.top;
        if (ew > 0 && eh > 0) {
            decouple_kernel<<<grid_for(ew, eh), block, 0, stream>>>(ref, dis, rst, add, l.bw, l.ext,
                                                                    settings_.enhn_gain_limit, table_.get());
            cuda::check_launch("float_adm decouple_kernel");
        }
        // The denominator: the reference's cubes over the score region.
        const int sw = l.score.right - l.score.left, sh = l.score.bottom - l.score.top;
        den_terms_kernel<<<grid_for(sw, sh), block, 0, stream>>>(ref, f1, f2, l.bw, l.score, m.terms.get(), plane_, power_);
        cuda::check_launch("float_adm den_terms_kernel");
        sum_rows(m, sw, sh, acc, stream);
        // The numerator (restored, masked by the additive part) and AIM (additive, masked by the restored part).
        const Band3 maskers[2] = {add, rst};
        const Band3 sources[2] = {rst, add};
        const int cw = l.cm.last - l.cm.first, ch = l.cm_r1 - l.cm_r0;
        for (int k = 0; k < 2; ++k) {
            if (ew > 0 && eh > 0) {
                csf_kernel<<<grid_for(ew, eh), block, 0, stream>>>(maskers[k], f1, f2, l.bw, l.ext, val, flt, plant_);
                cuda::check_launch("float_adm csf_kernel");
            }
            if (cw > 0 && ch > 0) {
                cm_terms_kernel<<<grid_for(cw, ch), block, 0, stream>>>(sources[k], val, flt, f1, f2, l.cm, l.cm_r0,
                                                                        l.cm_r1, settings_.bypass_cm != 0, m.terms.get(),
                                                                        plane_, power_, plant_);
                cuda::check_launch("float_adm cm_terms_kernel");
            }
            sum_rows(m, cw, ch, acc + 3 * (1 + k), stream);
        }
    }

    /// acc[band] = the float sum over `rows` rows (in order) of each row's float sum of its n terms.
    void sum_rows(SlotMemory& m, int n, int rows, float* acc, cudaStream_t stream) {
        if (n <= 0 || rows <= 0) return;  // the sums stay 0, as the CPU's
        row_sum_kernel<<<cuda::blocks_for(3 * static_cast<std::size_t>(rows), kRowThreads), kRowThreads, 0, stream>>>(
            m.terms.get(), n, rows, plane_, m.row_sums.get(), row_pitch_, plant_.order);
        cuda::check_launch("float_adm row_sum_kernel");
        accum_kernel<<<1, 32, 0, stream>>>(m.row_sums.get(), rows, row_pitch_, acc);
        cuda::check_launch("float_adm accum_kernel");
    }

    VideoFormat format_;
    Plant plant_;
    float_adm::Settings settings_;
    Level levels_[kScales];
    std::array<float, 2> factors_[kScales];
    Taps taps_ = float_adm::twin_work::dwt_taps_table();
    cuda::DeviceBuffer<std::uint32_t> table_;
    cuda::DeviceBuffer<libm::PowfTables> powf_data_;  // libm::powf_tables()
    Power power_{};
    std::ptrdiff_t plane_ = 0;  // floats between the bands' terms (level 0's band size)
    int row_pitch_ = 0;         // floats between the bands' row sums (level 0's band height)
    std::vector<SlotMemory> slots_;
    cuda::PinnedBuffer<FrameSums> host_sums_;  // per slot
    cuda::SlotFrames frames_;
};

constexpr PlantedDefect kDefects[] = {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                      PlantedDefect::kRoundingConstant, PlantedDefect::kReductionOrder};

}  // namespace

namespace float_adm {

extern const TwinDescriptor cuda_twin;  // external linkage, for gpu/twin_registry.cpp
const TwinDescriptor cuda_twin{
    "float_adm",
    make_twin<FloatAdmTwin>,
    {exact_bound,
     "bound 0 at every format and option: every per-sample step is the CPU's own function (float_adm_math.hpp: the DWT's float tap sums in tap order with the mirrored borders, "
     "decouple with the golden machines' rcpss table and one Newton step, the gain limit in double, the CSF's "
     "double 1/30 and 1/15 terms, the masking threshold's sums in the CPU's order, the cubes; at adm_p_norm other than 3 "
     "the CPU's own powf, libm::powf_with of base/libm_powf.hpp, host and device: one source), compiled without "
     "contraction and with IEEE division; every float sum is the CPU's running sum taken in its order (each "
     "row's terms from 0 in column order, the rows from 0 in row order, by one thread each); the powf of the "
     "p-norms and the noise constant, the double sums over the levels and the ratios are the CPU's own host code "
     "(pooled_p_norm, scores_of, Settings::write_frame)"},
    kDefects,
    nullptr,
};

}  // namespace float_adm

}  // namespace vmafx
