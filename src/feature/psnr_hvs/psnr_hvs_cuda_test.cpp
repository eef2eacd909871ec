// The CUDA twin of psnr_hvs (src/feature/psnr_hvs/psnr_hvs_cuda.cu) on the host, no device
// needed: the twin's per-thread code (psnr_hvs::math::grid_block_terms, which terms_kernel
// calls) over every block index, followed by the plain sequential float sum that
// gpu::SequentialSum reproduces, gives the CPU's plane scores bit for bit (the term layout and
// order are the CPU's) at every bit depth 8..12, odd sizes and sizes below one block; and each
// defect the twin plants changes the scores of the parity gate's own random inputs
// (parity/inputs.cpp, random_inputs(dir, 1, 5), every frame, as PlantedDefectsCuda runs them),
// so the gate can catch each of them. The device itself is covered by the registry-driven suites
// (test_twins.cpp, test_parity_gate.cpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "feature/psnr_hvs/psnr_hvs.hpp"
#include "feature/psnr_hvs/psnr_hvs_twin.hpp"
#include "parity/inputs.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

using psnr_hvs::math::blocks_along;

/// A plane pair as raw bytes, rows width * bytes apart.
struct PlanePair {
    int width = 0, height = 0, bit_depth = 8;
    std::vector<unsigned char> ref, dist;
    std::ptrdiff_t pitch() const { return static_cast<std::ptrdiff_t>(width) * (bit_depth > 8 ? 2 : 1); }
};

/// How the twin forms a plane's sum (see psnr_hvs_cuda.cu).
enum class SumOrder {
    kSequential,  ///< the CPU's running sum (what gpu::SequentialSum returns)
    kPlain,       ///< the planted kReductionOrder's plain_sum_kernel: 256 strided sums, then a tree
};

/// The twin's terms of a plane (grid_block_terms over every block index, as terms_kernel).
std::vector<float> twin_terms(const PlanePair& p, int plane, bool contraction, bool mirror_shift) {
    const int bx = blocks_along(p.width), by = blocks_along(p.height);
    std::vector<float> terms(64 * static_cast<std::size_t>(bx) * static_cast<std::size_t>(by));
    for (std::size_t b = 0; b < terms.size() / 64; ++b) {
        const psnr_hvs::PlaneTables& t = psnr_hvs::plane_tables(plane);
        float* out = terms.data() + 64 * b;
        if (p.bit_depth == 8)
            contraction ? psnr_hvs::math::grid_block_terms<std::uint8_t, true>(p.ref.data(), p.pitch(), p.dist.data(),
                                                                               p.pitch(), bx, b, t, out, mirror_shift)
                        : psnr_hvs::math::grid_block_terms<std::uint8_t, false>(p.ref.data(), p.pitch(), p.dist.data(),
                                                                                p.pitch(), bx, b, t, out, mirror_shift);
        else
            contraction ? psnr_hvs::math::grid_block_terms<std::uint16_t, true>(p.ref.data(), p.pitch(), p.dist.data(),
                                                                                p.pitch(), bx, b, t, out, mirror_shift)
                        : psnr_hvs::math::grid_block_terms<std::uint16_t, false>(
                              p.ref.data(), p.pitch(), p.dist.data(), p.pitch(), bx, b, t, out, mirror_shift);
    }
    return terms;
}

/// The sum of `terms` in `order`, as the twin's device code forms it.
float twin_sum(const std::vector<float>& terms, SumOrder order) {
    if (order == SumOrder::kSequential) {
        float sum = 0;
        for (const float t : terms) sum += t;
        return sum;
    }
    constexpr std::size_t kThreads = 256;
    float partial[kThreads];
    for (std::size_t t = 0; t < kThreads; ++t) {
        float s = 0;
        for (std::size_t i = t; i < terms.size(); i += kThreads) s += terms[i];
        partial[t] = s;
    }
    for (std::size_t stride = kThreads / 2; stride > 0; stride /= 2)
        for (std::size_t t = 0; t < stride; ++t) partial[t] += partial[t + stride];
    return partial[0];
}

/// The twin's plane score with the given defects (none: the CPU's, if the twin is right).
float twin_score(const PlanePair& p, int plane, bool contraction = false, bool mirror_shift = false,
                 SumOrder order = SumOrder::kSequential) {
    const std::vector<float> terms = twin_terms(p, plane, contraction, mirror_shift);
    return psnr_hvs::finish_plane_score(twin_sum(terms, order), static_cast<int>(terms.size()), p.bit_depth);
}

/// The CPU reference's plane score.
float cpu_score(const PlanePair& p, int plane) {
    if (p.bit_depth == 8)
        return psnr_hvs::plane_score(p.ref.data(), p.pitch(), p.dist.data(), p.pitch(), p.width, p.height, 8, plane);
    return psnr_hvs::plane_score(reinterpret_cast<const std::uint16_t*>(p.ref.data()), p.pitch(),
                                 reinterpret_cast<const std::uint16_t*>(p.dist.data()), p.pitch(), p.width, p.height,
                                 p.bit_depth, plane);
}

/// Bits of a float (NaN compares equal to itself here).
std::uint32_t bits(float v) {
    std::uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    return u;
}

/// Random correlated planes: a smooth ramp plus noise, the distorted one with more noise.
PlanePair random_pair(int width, int height, int bit_depth, std::uint32_t seed) {
    PlanePair p{width, height, bit_depth, {}, {}};
    std::mt19937 rng(seed);
    const int max = (1 << bit_depth) - 1;
    const int bytes = bit_depth > 8 ? 2 : 1;
    p.ref.resize(static_cast<std::size_t>(width) * height * bytes);
    p.dist.resize(p.ref.size());
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const int base = ((x * 5 + y * 3) << (bit_depth - 8)) % (max + 1);
            const int r = std::clamp(base + static_cast<int>(rng() % 33) - 16, 0, max);
            const int d = std::clamp(r + static_cast<int>(rng() % 17) - 8, 0, max);
            const std::size_t i = (static_cast<std::size_t>(y) * width + x) * bytes;
            p.ref[i] = static_cast<unsigned char>(r & 0xff);
            p.dist[i] = static_cast<unsigned char>(d & 0xff);
            if (bytes == 2) {
                p.ref[i + 1] = static_cast<unsigned char>(r >> 8);
                p.dist[i + 1] = static_cast<unsigned char>(d >> 8);
            }
        }
    return p;
}

// The block grid: as many blocks along a side as the CPU's loop (y = 0; y < size - 7; y += 7).
TEST(PsnrHvsCudaHost, BlocksAlongASide) {
    for (int size = 0; size < 100; ++size) {
        int count = 0;
        for (int y = 0; y < size - 7; y += 7) ++count;
        EXPECT_EQ(blocks_along(size), count) << size;
    }
}

// The twin's indexing and order against the CPU, bit for bit: sizes below one block (NaN on both),
// exactly one block, odd sizes, one more than a multiple of 7, at 8..12 bits, every plane's tables.
TEST(PsnrHvsCudaHost, TwinIndexingGivesTheCpuScores) {
    const int sizes[][2] = {{1, 1}, {7, 9}, {9, 7}, {8, 8}, {15, 8}, {8, 15}, {16, 22}, {29, 36}, {77, 41}, {253, 131}};
    std::uint32_t seed = 1;
    for (const auto& s : sizes)
        for (int bits_ = 8; bits_ <= 12; ++bits_)
            for (int plane = 0; plane < 3; ++plane) {
                SCOPED_TRACE(testing::Message() << s[0] << "x" << s[1] << " " << bits_ << "-bit plane " << plane);
                const PlanePair p = random_pair(s[0], s[1], bits_, seed++);
                const float cpu = cpu_score(p, plane);
                EXPECT_EQ(bits(twin_score(p, plane)), bits(cpu)) << twin_score(p, plane) << " vs " << cpu;
                if (s[0] < 8 || s[1] < 8) {
                    EXPECT_TRUE(std::isnan(cpu));
                }
            }
}

/// One frame of an input: its label and its three plane pairs.
struct ParityFrame {
    std::string label;
    std::vector<PlanePair> planes;
};

/// Every frame of the parity gate's random inputs (random_inputs(dir, 1, 5): 4 frames each) at
/// the bit depths psnr_hvs takes (8, 10, 12; the 16-bit one is refused by both backends).
std::vector<ParityFrame> parity_frames(const std::string& dir) {
    std::vector<ParityFrame> out;
    for (const ParityInput& in : random_inputs(dir, 1, 5)) {
        const VideoFormat& f = *in.raw_format;
        if (f.bit_depth > 12) continue;
        std::ifstream ref(in.reference_path, std::ios::binary), dist(in.distorted_path, std::ios::binary);
        for (int frame = 0; frame < 4; ++frame) {
            ParityFrame pf{in.label + " frame " + std::to_string(frame), {}};
            for (int p = 0; p < 3; ++p) {
                PlanePair pair{f.plane_width(p), f.plane_height(p), f.bit_depth, {}, {}};
                const std::size_t bytes = static_cast<std::size_t>(pair.pitch()) * pair.height;
                pair.ref.resize(bytes);
                pair.dist.resize(bytes);
                ref.read(reinterpret_cast<char*>(pair.ref.data()), static_cast<std::streamsize>(bytes));
                dist.read(reinterpret_cast<char*>(pair.dist.data()), static_cast<std::streamsize>(bytes));
                EXPECT_TRUE(ref && dist) << pf.label;
                pf.planes.push_back(std::move(pair));
            }
            out.push_back(std::move(pf));
        }
    }
    return out;
}

/// The four output values of plane scores `s`.
std::vector<double> outputs_of(const float s[3]) {
    FrameScores out;
    psnr_hvs::Outputs(psnr_hvs::descriptor.parse_options({})).write(s, out);
    std::vector<double> v;
    for (const auto& [name, value] : out) v.push_back(value);
    return v;
}

/// Output values (of 4) that differ in their bits.
int differing(const std::vector<double>& a, const std::vector<double>& b) {
    int n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) n += std::memcmp(&a[i], &b[i], sizeof(double)) != 0;
    return n;
}

class PsnrHvsCudaParityInputs : public test::TempDirTest {};

// On the gate's inputs (PlantedDefectsCuda: random_inputs(dir, 1, 5), every frame), the twin
// without a defect gives the CPU's outputs, and each planted defect changes outputs (each changed
// output is a breach of the exact contract on the twin's rows; the gate needs one). The counts
// are printed for the log; each defect must change at least 4 of the 48 outputs (12 frames x 4),
// so that it is caught with a margin, not by one coincidence.
TEST_F(PsnrHvsCudaParityInputs, EachPlantedDefectChangesTheScores) {
    const std::vector<ParityFrame> frames = parity_frames(dir_.string());
    ASSERT_EQ(frames.size(), 12u);  // 8, 10 and 12 bits, 4 frames each
    int changed[3] = {0, 0, 0}, outputs = 0;
    for (const ParityFrame& f : frames) {
        SCOPED_TRACE(f.label);
        float cpu[3], clean[3], contraction[3], shift[3], order[3];
        for (int p = 0; p < 3; ++p) {
            cpu[p] = cpu_score(f.planes[p], p);
            clean[p] = twin_score(f.planes[p], p);
            contraction[p] = twin_score(f.planes[p], p, true);
            shift[p] = twin_score(f.planes[p], p, false, true);
            order[p] = twin_score(f.planes[p], p, false, false, SumOrder::kPlain);
        }
        const std::vector<double> want = outputs_of(cpu);
        EXPECT_EQ(differing(outputs_of(clean), want), 0);
        const int c[3] = {differing(outputs_of(contraction), want), differing(outputs_of(shift), want),
                          differing(outputs_of(order), want)};
        std::cout << "[ " << f.label << " ] outputs changed by contraction " << c[0] << ", mirror shift " << c[1]
                  << ", reduction order " << c[2] << " of 4\n";
        for (int k = 0; k < 3; ++k) changed[k] += c[k];
        outputs += 4;
    }
    EXPECT_GE(changed[0], 4) << "the planted contraction changes " << changed[0] << " of " << outputs << " outputs";
    EXPECT_GE(changed[1], 4) << "the planted mirror shift changes " << changed[1] << " of " << outputs << " outputs";
    EXPECT_GE(changed[2], 4) << "the planted reduction order changes " << changed[2] << " of " << outputs
                             << " outputs";
}

}  // namespace
}  // namespace vmafx
