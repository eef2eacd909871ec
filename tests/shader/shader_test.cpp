// The shared-arithmetic subset run on a Vulkan device (lavapipe in CI) against the CPU, bit for
// bit: motion_math.hpp (integer), iqa_math.hpp (float_ssim's window terms: float and double,
// a double square root and divisions), vif_math.hpp (integer VIF's variances, the gain and
// the logarithms around the table reads: int64, double divisions, truncations) and
// gpu/sequential_sum_core.hpp (SequentialSum's transfers, steps and applications, float and
// double: bit casts, ties, subnormal grids) compiled as GLSL into the compute shaders
// motion.comp, iqa.comp, vif.comp and seq.comp (SPIR-V built by tests/shader/CMakeLists.txt,
// every float operation NoContraction), and the same case functions (motion_case.hpp,
// iqa_case.hpp, vif_case.hpp, seq_case.hpp) compiled as C++. Every output
// value's bits are compared. Without a Vulkan device the tests report skipped with the reason;
// VMAFX_REQUIRE_VULKAN=1 (scripts/run_tests.sh sets it where lavapipe is installed) makes that
// a failure.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/vif/vif_kernels.hpp"
#include "adm_case.hpp"
#include "iqa_case.hpp"
#include "motion_case.hpp"
#include "denorm_case.hpp"
#include "round_case.hpp"
#include "seq_case.hpp"
#include "vif_case.hpp"
#include "vulkan_runner.hpp"

namespace vmafx::shader_test {
namespace {

using adm::adm_case;
using adm::AdmCase;
using adm::AdmResult;
using iqa::iqa_case;
using iqa::IqaCase;
using iqa::IqaResult;
using motion::motion_case;
using motion::MotionCase;
using motion::MotionResult;
using gpu::seqsum::seq_case;
using gpu::seqsum::SeqCase;
using gpu::seqsum::SeqResult;
using vif::vif_case;
using vif::vif_case_reads;
using vif::VifCase;
using vif::VifResult;

static_assert(sizeof(AdmCase) == 56 && sizeof(AdmResult) == 96, "std430 layout of adm_case.hpp");
static_assert(sizeof(MotionCase) == 80 && sizeof(MotionResult) == 32, "std430 layout of motion_case.hpp");
static_assert(sizeof(IqaCase) == 64 && sizeof(IqaResult) == 48, "std430 layout of iqa_case.hpp");
static_assert(sizeof(VifCase) == 32 && sizeof(VifResult) == 72, "std430 layout of vif_case.hpp");
static_assert(sizeof(DenormCase) == 72 && sizeof(DenormResult) == 144, "std430 layout of denorm_case.hpp");
static_assert(sizeof(RoundCase) == 24 + 8 && sizeof(RoundResult) == 48, "std430 layout of round_case.hpp");
static_assert(sizeof(SeqCase) == 88 && sizeof(SeqResult) == 328, "std430 layout of seq_case.hpp");

/// The process's device (opened once).
VulkanRunner& runner() {
    static VulkanRunner r;
    return r;
}

/// Skips (or, under VMAFX_REQUIRE_VULKAN=1, fails) the test when there is no device.
#define REQUIRE_DEVICE()                                                                              \
    do {                                                                                              \
        if (!runner().available()) {                                                                  \
            const char* req = std::getenv("VMAFX_REQUIRE_VULKAN");                                   \
            if (req && std::string(req) == "1")                                                       \
                FAIL() << "VMAFX_REQUIRE_VULKAN=1 but " << runner().why_unavailable();                \
            GTEST_SKIP() << runner().why_unavailable();                                               \
        }                                                                                             \
    } while (0)

/// The SPIR-V file `name` (e.g. "motion.spv"): in $VMAFX_SHADER_DIR where set (a copy of the
/// build's shaders on another machine, scripts/device_bundle.sh), else in the build folder.
std::string shader(const char* name) {
    const char* dir = std::getenv("VMAFX_SHADER_DIR");
    return std::string(dir && *dir ? dir : VMAFX_SHADER_DIR) + "/" + name;
}

template <typename T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
    std::vector<unsigned char> b(v.size() * sizeof(T));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

template <typename T>
std::vector<T> from_bytes(const std::vector<unsigned char>& b) {
    std::vector<T> v(b.size() / sizeof(T));
    std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
    return v;
}

template <typename T>
std::uint64_t bits(T v) {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof v);
    return b;
}

constexpr std::uint32_t kCases = 1u << 18;

TEST(SharedMathShader, MotionMathMatchesCpuBitForBit) {
    REQUIRE_DEVICE();
    std::mt19937_64 rng(24);
    std::vector<MotionCase> cases(kCases);
    const int depths[4] = {8, 10, 12, 16};
    for (std::uint32_t i = 0; i < kCases; ++i) {
        MotionCase& c = cases[i];
        std::memset(&c, 0, sizeof c);
        c.bit_depth = depths[i % 4];
        const std::uint32_t top = (1u << c.bit_depth) - 1;
        for (int k = 0; k < 5; ++k) {
            // Half the cases near each other (small differences, as real frames), half anywhere.
            c.prev[k] = static_cast<std::int32_t>(rng() % (top + 1));
            c.cur[k] = i % 2 ? static_cast<std::int32_t>(rng() % (top + 1))
                             : static_cast<std::int32_t>(std::min<std::uint32_t>(
                                   top, static_cast<std::uint32_t>(c.prev[k]) + static_cast<std::uint32_t>(rng() % 9)));
            // Blurred values within the range of 16-bit samples, or any int32 (the lanes wrap).
            c.y[k] = i % 3 ? static_cast<std::int32_t>(rng() % 262144) - 131072 : static_cast<std::int32_t>(rng());
        }
        c.size = 3 + static_cast<std::int32_t>(rng() % 4000);
        c.index = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(c.size + 4)) - 2;
        c.width = static_cast<std::int32_t>(rng() % 8192);
    }
    const auto out = from_bytes<MotionResult>(
        runner().run(shader("motion.spv"), bytes_of(cases), kCases * sizeof(MotionResult), kCases));
    ASSERT_EQ(out.size(), kCases);
    std::uint32_t mismatches = 0;
    for (std::uint32_t i = 0; i < kCases; ++i) {
        const MotionResult want = motion_case(cases[i]);
        const MotionResult& got = out[i];
        const bool same = want.v8 == got.v8 && want.v16 == got.v16 &&
                          want.h_exact == got.h_exact && want.h_lane == got.h_lane && want.mag == got.mag &&
                          want.mirrored == got.mirrored && want.lane_end == got.lane_end;
        if (!same && ++mismatches <= 5)
            ADD_FAILURE() << "case " << i << ": cpu v8 " << want.v8 << " v16 " << want.v16
                          << " h " << want.h_exact << "/" << want.h_lane << " mag " << want.mag << " mirror "
                          << want.mirrored << " lanes " << want.lane_end << "; shader v8 "
                          << got.v8 << " v16 " << got.v16 << " h " << got.h_exact << "/" << got.h_lane << " mag "
                          << got.mag << " mirror " << got.mirrored << " lanes " << got.lane_end;
    }
    EXPECT_EQ(mismatches, 0u) << "of " << kCases << " cases on " << runner().device_name();
    // The cases reach what they are for: clamped and unclamped, wrapped lanes.
    std::uint32_t wrapped = 0;
    for (std::uint32_t i = 0; i < kCases; ++i) wrapped += out[i].h_exact != out[i].h_lane;
    EXPECT_GT(wrapped, kCases / 10) << "the lane variant's 32-bit wrap is exercised";
}

/// A coefficient of ADM's levels 1..3 as real bands hold them (mostly within 2^20, some anywhere in
/// int32, a few 0), or `other` plus a small change (the distorted coefficient of a pair).
std::int32_t adm_coefficient(std::mt19937_64& rng, std::uint64_t kind) {
    switch (kind % 8) {
    case 0: return 0;
    case 1: return static_cast<std::int32_t>(rng());
    case 2: return static_cast<std::int32_t>(rng() % 65536) - 32768;
    default: return static_cast<std::int32_t>(rng() % (1u << 21)) - (1 << 20);
    }
}

TEST(SharedMathShader, AdmMathMatchesCpuBitForBit) {
    REQUIRE_DEVICE();
    std::mt19937_64 rng(26);
    std::vector<AdmCase> cases(kCases);
    const double gains[4] = {100.0, 1.0, 1.2, 2.5};
    for (std::uint32_t i = 0; i < kCases; ++i) {
        AdmCase& c = cases[i];
        std::memset(&c, 0, sizeof c);
        c.oh = adm_coefficient(rng, rng());
        c.ov = adm_coefficient(rng, rng());
        // Half the pairs close (a distorted coefficient near the reference's), half independent.
        const bool close = i % 2 == 0;
        c.th = close ? static_cast<std::int32_t>(static_cast<std::uint32_t>(c.oh) + static_cast<std::uint32_t>(rng() % 64) - 32u)
                     : adm_coefficient(rng, rng());
        c.tv = close ? static_cast<std::int32_t>(static_cast<std::uint32_t>(c.ov) + static_cast<std::uint32_t>(rng() % 64) - 32u)
                     : adm_coefficient(rng, rng());
        c.egl = gains[i % 4];
        c.wq = static_cast<std::uint32_t>(rng());
        c.wt = static_cast<std::int32_t>(rng() % 65536);
        c.thr = static_cast<std::int64_t>(rng() % (1u << 24)) - (i % 3 == 0 ? (1 << 23) : 0);
        c.scub = static_cast<std::uint32_t>(rng() % 40);
        c.rcub = c.scub == 0 ? 0 : std::int64_t{1} << (c.scub - 1);
    }
    const auto out =
        from_bytes<AdmResult>(runner().run(shader("adm.spv"), bytes_of(cases), kCases * sizeof(AdmResult), kCases));
    ASSERT_EQ(out.size(), kCases);
    std::uint32_t mismatches = 0, restored = 0;
    for (std::uint32_t i = 0; i < kCases; ++i) {
        const AdmResult want = adm_case(cases[i]);
        if (std::memcmp(&want, &out[i], sizeof want) != 0 && ++mismatches <= 5) {
            const AdmResult& got = out[i];
            ADD_FAILURE() << "case " << i << " (o " << cases[i].oh << ", t " << cases[i].th << ", egl " << cases[i].egl
                          << "): cpu k " << want.k << " same " << want.same << "/" << want.same_avx512 << " restored "
                          << want.restored_nearest << "/" << want.restored_trunc << " csf " << want.weighted_signed
                          << " filter " << want.masking_filter << " centre " << want.centre << " excess "
                          << want.excess_vector << "/" << want.excess_scalar << " cube " << want.cube << " pad " << want.pad << " level 0 "
                          << want.k0 << " " << want.restored0_value << " " << want.csf0 << " " << want.cube0
                          << "; shader k " << got.k << " same " << got.same << "/" << got.same_avx512 << " restored "
                          << got.restored_nearest << "/" << got.restored_trunc << " csf " << got.weighted_signed
                          << " filter " << got.masking_filter << " centre " << got.centre << " excess "
                          << got.excess_vector << "/" << got.excess_scalar << " cube " << got.cube << " pad " << got.pad << " level 0 "
                          << got.k0 << " " << got.restored0_value << " " << got.csf0 << " " << got.cube0;
        }
        restored += want.same != 0 && want.restored_nearest != want.restored_trunc;
    }
    EXPECT_EQ(mismatches, 0u) << "of " << kCases << " cases on " << runner().device_name();
    EXPECT_GT(restored, 0u) << "the gain restore's two roundings differ somewhere";
}

/// A float from its parts: mantissa bits `m` (23) and an exponent e (unbiased), positive.
float float_of(std::uint32_t m, int e) {
    const std::uint32_t b = (static_cast<std::uint32_t>(e + 127) << 23) | (m & 0x7fffffu);
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

TEST(SharedMathShader, IqaWindowTermsMatchCpuBitForBit) {
    REQUIRE_DEVICE();
    std::mt19937_64 rng(2024);
    std::uniform_real_distribution<float> sample(0.0f, 255.0f);
    std::uniform_real_distribution<float> spread(0.0f, 2000.0f);
    std::vector<IqaCase> cases(kCases);
    for (std::uint32_t i = 0; i < kCases; ++i) {
        IqaCase& c = cases[i];
        // Gaussian means of 8-bit-scale samples and plausible second moments: variances from 0
        // (flat windows, where the clamp and the s12 rule act) to large, covariance of either sign.
        c.mu1 = sample(rng);
        c.mu2 = i % 5 == 0 ? c.mu1 : sample(rng);
        const float var1 = i % 7 == 0 ? 0.0f : spread(rng);
        const float var2 = i % 11 == 0 ? 0.0f : spread(rng);
        c.sq1 = c.mu1 * c.mu1 + var1 - (i % 13 == 0 ? 0.5f : 0.0f);
        c.sq2 = c.mu2 * c.mu2 + var2;
        c.both = c.mu1 * c.mu2 + (spread(rng) - 1000.0f) * (i % 3 == 0 ? 0.0f : 1.0f);
        for (float& x : c.x) x = i % 4 == 0 ? float_of(static_cast<std::uint32_t>(rng()), static_cast<int>(rng() % 9))
                                            : sample(rng);
    }
    const auto out = from_bytes<IqaResult>(
        runner().run(shader("iqa.spv"), bytes_of(cases), kCases * sizeof(IqaResult), kCases));
    ASSERT_EQ(out.size(), kCases);
    std::uint32_t mismatches = 0, clamped = 0;
    for (std::uint32_t i = 0; i < kCases; ++i) {
        const IqaResult want = iqa_case(cases[i]);
        const IqaResult& got = out[i];
        const bool same = bits(want.l) == bits(got.l) && bits(want.c) == bits(got.c) && bits(want.s) == bits(got.s) &&
                          bits(want.lcs) == bits(got.lcs) && bits(want.v1) == bits(got.v1) &&
                          bits(want.v2) == bits(got.v2) && bits(want.cov) == bits(got.cov) &&
                          bits(want.filtered) == bits(got.filtered);
        clamped += want.v1 == 0.0f;
        if (!same && ++mismatches <= 5)
            ADD_FAILURE() << std::hexfloat << "case " << i << ": cpu l " << want.l << " c " << want.c << " s "
                          << want.s << " lcs " << want.lcs << " v " << want.v1 << "," << want.v2 << " cov "
                          << want.cov << " f " << want.filtered << "; shader l " << got.l << " c " << got.c << " s "
                          << got.s << " lcs " << got.lcs << " v " << got.v1 << "," << got.v2 << " cov " << got.cov
                          << " f " << got.filtered;
    }
    EXPECT_EQ(mismatches, 0u) << "of " << kCases << " cases on " << runner().device_name();
    EXPECT_GT(clamped, kCases / 20) << "the variance clamp is exercised";
}

TEST(SharedMathShader, VifTermsMatchCpuBitForBit) {
    REQUIRE_DEVICE();
    std::mt19937_64 rng(1717);
    const auto& table = vif::log2_table();
    std::vector<VifCase> cases(kCases);
    for (std::uint32_t i = 0; i < kCases; ++i) {
        VifCase& c = cases[i];
        std::memset(&c, 0, sizeof c);
        const double limits[4] = {100.0, 1.0, 2.5, 1.0 + static_cast<double>(rng() % 1000) / 100.0};
        c.gain_limit = limits[i % 4];
        c.a_mu1 = static_cast<std::uint32_t>(rng());
        c.a_mu2 = i % 5 == 0 ? c.a_mu1 : static_cast<std::uint32_t>(rng());
        // Variances wanted: around the noise variance 2 * 65536 (the log terms' threshold), up to
        // 2^31 - 1, or any int32 (negative ones included); the covariance a fraction of
        // sqrt(s1 * s2) of either sign, sometimes beyond it (then the gain is large and clamped).
        const auto variance = [&](std::uint64_t r) -> std::int32_t {
            switch (r % 4) {
            case 0: return static_cast<std::int32_t>(rng() % (1u << 19));
            case 1: return static_cast<std::int32_t>(rng() % (1u << 31));
            case 2: return static_cast<std::int32_t>(rng() % (1u << 24));
            default: return static_cast<std::int32_t>(static_cast<std::uint32_t>(rng()));
            }
        };
        const std::int32_t s1 = variance(rng()), s2 = variance(rng());
        const double root = std::sqrt(std::max(0.0, static_cast<double>(s1)) * std::max(0.0, static_cast<double>(s2)));
        const double fraction = static_cast<double>(rng() % 2001) / 1000.0 - (i % 3 == 0 ? 1.0 : 0.2);
        const double s12 = std::min(2147483647.0, std::max(-2147483648.0, std::floor(root * fraction)));
        // The products that give these variances modulo 2^32 (variances() subtracts the means'
        // products).
        c.xx = vif::mean_product(c.a_mu1, c.a_mu1) + static_cast<std::uint32_t>(s1);
        c.yy = vif::mean_product(c.a_mu2, c.a_mu2) + static_cast<std::uint32_t>(s2);
        c.xy = vif::mean_product(c.a_mu1, c.a_mu2) + static_cast<std::uint32_t>(static_cast<std::int32_t>(s12));
    }
    // Binding 0: the table's entries 32768..65535 (the indices read), then the cases.
    std::vector<std::uint32_t> entries(32768);
    for (std::uint32_t k = 0; k < 32768; ++k) entries[k] = table[32768 + k];
    std::vector<unsigned char> input = bytes_of(entries);
    const std::vector<unsigned char> case_bytes = bytes_of(cases);
    input.insert(input.end(), case_bytes.begin(), case_bytes.end());
    const auto out = from_bytes<VifResult>(
        runner().run(shader("vif.spv"), input, kCases * sizeof(VifResult), kCases));
    ASSERT_EQ(out.size(), kCases);
    std::uint32_t mismatches = 0, logs = 0, nums = 0, non_log = 0;
    for (std::uint32_t i = 0; i < kCases; ++i) {
        std::uint32_t den_index, numer_index, numer1_index;
        vif_case_reads(cases[i], den_index, numer_index, numer1_index);
        const auto entry = [&](std::uint32_t index) -> std::uint32_t { return index == 0 ? 0u : table[index]; };
        const VifResult want = vif_case(cases[i], entry(den_index), entry(numer_index), entry(numer1_index));
        const VifResult& got = out[i];
        logs += want.logs == 1 && want.num == 0;
        nums += want.num == 1;
        non_log += want.logs == 0;
        if (std::memcmp(&want, &got, sizeof want) != 0 && ++mismatches <= 5)
            ADD_FAILURE() << "case " << i << ": cpu s " << want.sigma1_sq << "," << want.sigma2_sq << ","
                          << want.sigma12 << " args " << want.den_v << "," << want.numer_v << "," << want.numer1_v
                          << " terms " << want.num_log << "," << want.den_log << "," << want.num_non_log << ","
                          << want.den_non_log << "; shader s " << got.sigma1_sq << "," << got.sigma2_sq << ","
                          << got.sigma12 << " args " << got.den_v << "," << got.numer_v << "," << got.numer1_v
                          << " terms " << got.num_log << "," << got.den_log << "," << got.num_non_log << ","
                          << got.den_non_log;
    }
    EXPECT_EQ(mismatches, 0u) << "of " << kCases << " cases on " << runner().device_name();
    // Every path of the per-sample terms is exercised.
    EXPECT_GT(nums, kCases / 10) << "samples with the numerator's logarithms";
    EXPECT_GT(logs, kCases / 20) << "samples with the denominator's logarithm only";
    EXPECT_GT(non_log, kCases / 10) << "samples below the noise variance";
}

TEST(SharedMathShader, SequentialSumCoreMatchesCpuBitForBit) {
    REQUIRE_DEVICE();
    std::mt19937_64 rng(53);
    std::vector<SeqCase> cases(kCases);
    for (std::uint32_t i = 0; i < kCases; ++i) {
        SeqCase& c = cases[i];
        std::memset(&c, 0, sizeof c);
        const double sign = i % 2 ? -1.0 : 1.0;
        const auto unit = [&]() { return static_cast<double>(rng() >> 11) * std::ldexp(1.0, -53); };  // [0, 1)
        // A running sum in binade e (every binade, the extremes included), the prefix that
        // predicts it (often its own binade, sometimes a neighbour's), terms of a few half units
        // of its grid (ties included) or anything, bounds from the terms (sometimes too wide).
        const int ed = i % 16 == 0 ? (i % 32 == 0 ? -1022 : 1021) : -1022 + static_cast<int>(rng() % 2044);
        const int ef = i % 16 == 0 ? (i % 32 == 0 ? -126 : 125) : -126 + static_cast<int>(rng() % 252);
        c.s_d = sign * std::ldexp(1.0 + unit(), ed);
        c.s_f = static_cast<float>(sign * std::ldexp(1.0 + unit(), ef));
        const double drift = i % 5 == 0 ? 1.0 + (unit() - 0.5) : 1.0 + (unit() - 0.5) * 1e-6;
        c.prefix_d = c.s_d * drift;
        c.prefix_f = static_cast<double>(c.s_f) * drift;
        const auto halves = [&]() { return (static_cast<double>(rng() % 4097) - 2048.0) / 2.0; };
        const double ud = std::ldexp(1.0, ed - 52), uf = std::ldexp(1.0, ef - 23);
        c.t1_d = i % 7 == 0 ? std::ldexp(unit() - 0.5, ed - static_cast<int>(rng() % 80)) : halves() * ud;
        c.t2_d = i % 11 == 0 ? sign * std::ldexp(1.0, ed) : halves() * ud;
        c.t1_f = static_cast<float>(i % 7 == 0 ? std::ldexp(unit() - 0.5, ef - static_cast<int>(rng() % 40)) : halves() * uf);
        c.t2_f = static_cast<float>(i % 11 == 0 ? sign * std::ldexp(1.0, ef) : halves() * uf);
        c.count = i % 3 == 0 ? 2 + static_cast<std::int32_t>(rng() % 2047) : 2;
        const double widen = i % 13 == 0 ? std::ldexp(1.0, 10) : 1.0;
        c.pos_d = (std::max(c.t1_d, 0.0) + std::max(c.t2_d, 0.0)) * widen;
        c.neg_d = (std::max(-c.t1_d, 0.0) + std::max(-c.t2_d, 0.0)) * widen;
        c.pos_f = (std::max(static_cast<double>(c.t1_f), 0.0) + std::max(static_cast<double>(c.t2_f), 0.0)) * widen;
        c.neg_f = (std::max(-static_cast<double>(c.t1_f), 0.0) + std::max(-static_cast<double>(c.t2_f), 0.0)) * widen;
    }
    const auto out = from_bytes<SeqResult>(
        runner().run(shader("seq.spv"), bytes_of(cases), kCases * sizeof(SeqResult), kCases));
    ASSERT_EQ(out.size(), kCases);
    std::uint32_t mismatches = 0, applied_f = 0, applied_d = 0, ties = 0;
    for (std::uint32_t i = 0; i < kCases; ++i) {
        const SeqResult want = seq_case(cases[i]);
        const SeqResult& got = out[i];
        applied_f += want.applied_f;
        applied_d += want.applied_d;
        ties += want.first_d.inc[0] != want.first_d.inc[1];
        // Member by member: SeqTransfer's tail padding is not written.
        const bool same = std::memcmp(&want.step_f, &got.step_f, sizeof want.step_f) == 0 &&
                          std::memcmp(&want.step_d, &got.step_d, sizeof want.step_d) == 0 &&
                          want.first_d.inc[0] == got.first_d.inc[0] && want.first_d.inc[1] == got.first_d.inc[1] &&
                          want.first_d.par[0] == got.first_d.par[0] && want.first_d.par[1] == got.first_d.par[1] &&
                          want.first_d.bad == got.first_d.bad && bits(want.s_d) == bits(got.s_d) &&
                          bits(want.s_f) == bits(got.s_f) && want.applied_f == got.applied_f &&
                          want.applied_d == got.applied_d && want.binade_f == got.binade_f &&
                          want.binade_d == got.binade_d && want.parity_f == got.parity_f &&
                          want.parity_d == got.parity_d && want.e0_d == got.e0_d;
        if (!same && ++mismatches <= 5)
            ADD_FAILURE() << std::hexfloat << "case " << i << ": s " << cases[i].s_d << " / " << cases[i].s_f
                          << "; cpu " << want.s_d << " / " << want.s_f << " applied " << want.applied_d << "/"
                          << want.applied_f << " binades " << want.binade_d << "/" << want.binade_f
                          << "; shader " << got.s_d << " / " << got.s_f << " applied " << got.applied_d << "/"
                          << got.applied_f << " binades " << got.binade_d << "/" << got.binade_f;
    }
    EXPECT_EQ(mismatches, 0u) << "of " << kCases << " cases on " << runner().device_name();
    // The paths are exercised: applied and not, in both variants; ties (parity-dependent moves).
    EXPECT_GT(applied_d, kCases / 4);
    EXPECT_GT(applied_f, kCases / 4);
    EXPECT_LT(applied_d, kCases - kCases / 20);
    EXPECT_LT(applied_f, kCases - kCases / 20);
    EXPECT_GT(ties, kCases / 10);
}

// base/correctly_rounded.hpp on the device: division and square root in float and double, every
// result the CPU's IEEE one, bit for bit. Operands of every magnitude (random bit patterns: zeros,
// subnormals, infinities and NaNs among them; floats widened to double, as the twins divide them;
// quotients on the subnormal grid), with the candidates as the device makes them (nudge 0) and
// moved up to 4 units (the decision alone). The device's own division and root are counted
// beside: where they differ from the CPU, the functions are what keeps the twins exact.
TEST(SharedMathShader, CorrectlyRoundedDivisionAndRootMatchCpuBitForBit) {
    REQUIRE_DEVICE();
    std::mt19937_64 rng(31);
    std::vector<RoundCase> cases(kCases);
    const auto any_float = [&]() { return vmafx_bits_float(static_cast<std::uint32_t>(rng())); };
    const auto near_one = [&]() { return std::ldexp(1.0 + static_cast<double>(rng() >> 11) * 0x1p-53, static_cast<int>(rng() % 61) - 30); };
    for (std::uint32_t i = 0; i < kCases; ++i) {
        RoundCase& c = cases[i];
        std::memset(&c, 0, sizeof c);
        switch (i % 4) {
        case 0:  // any bit patterns
            c.a = any_float();
            c.b = any_float();
            c.c = vmafx_bits_double(rng());
            c.d = vmafx_bits_double(rng());
            break;
        case 1:  // moderate magnitudes, as the twins' statistics
            c.a = static_cast<float>(near_one());
            c.b = static_cast<float>(near_one());
            c.c = near_one();
            c.d = near_one();
            break;
        case 2:  // floats widened to double; quotients on and near the subnormal grid
            c.a = vmafx_bits_float(static_cast<std::uint32_t>(rng() % 64));
            c.b = static_cast<float>(1 << (rng() % 4)) * (i % 8 == 2 ? 1.0f : 3.0f);
            c.c = static_cast<double>(any_float());
            c.d = static_cast<double>(any_float());
            break;
        default:  // candidates moved
            c.a = static_cast<float>(near_one());
            c.b = static_cast<float>(near_one());
            c.c = near_one();
            c.d = near_one();
            c.nudge = static_cast<std::int32_t>(rng() % 9) - 4;
            break;
        }
    }
    const auto out = from_bytes<RoundResult>(
        runner().run(shader("round.spv"), bytes_of(cases), kCases * sizeof(RoundResult), kCases));
    ASSERT_EQ(out.size(), kCases);
    std::uint32_t mismatches = 0, native_f = 0, native_d = 0;
    for (std::uint32_t i = 0; i < kCases; ++i) {
        const RoundCase& c = cases[i];
        const RoundResult& got = out[i];
        const float df = c.a / c.b, sf = std::sqrt(c.a);
        const double dd = c.c / c.d, sd = std::sqrt(c.c);
        const bool same = bits(got.div_f) == bits(df) && bits(got.sqrt_f) == bits(sf) &&
                          bits(got.div_d) == bits(dd) && bits(got.sqrt_d) == bits(sd);
        if (!same && ++mismatches <= 5)
            ADD_FAILURE() << std::hexfloat << "case " << i << " (nudge " << c.nudge << "): " << c.a << " / " << c.b
                          << " = " << df << ", device " << got.div_f << "; sqrt " << sf << ", device " << got.sqrt_f
                          << "; " << c.c << " / " << c.d << " = " << dd << ", device " << got.div_d << "; sqrt "
                          << sd << ", device " << got.sqrt_d;
        // The device's own operations, on finite operands (NaN payloads aside).
        if (std::isfinite(df) && std::isfinite(sf))
            native_f += bits(got.native_div_f) != bits(df) || bits(got.native_sqrt_f) != bits(sf);
        if (std::isfinite(dd) && std::isfinite(sd))
            native_d += bits(got.native_div_d) != bits(dd) || bits(got.native_sqrt_d) != bits(sd);
    }
    EXPECT_EQ(mismatches, 0u) << "of " << kCases << " cases on " << runner().device_name();
    std::printf("%s: the device's own division or square root differs from the CPU's in %u float and %u double "
                "cases of %u\n",
                runner().device_name().c_str(), native_f, native_d, kCases);
}

// Subnormal arithmetic on the device (the float controls: tools/spirv_strict.py's DenormPreserve
// request, or a device that keeps them unasked; src/vulkan/float_probe.cpp checks the same at
// start-up): each operation of denorm_case.hpp, in float and double, the CPU's bits. The cases:
// the probe's operands, then random ones near the smallest normal (2^-126, 2^-1022) with random
// subnormals. A failure names the operations that differ and how often.
TEST(SharedMathShader, SubnormalArithmeticMatchesCpuBitForBit) {
    REQUIRE_DEVICE();
    std::mt19937_64 rng(41);
    std::vector<DenormCase> cases(kCases);
    const auto unit = [&]() { return static_cast<double>(rng() >> 11) * 0x1p-53; };
    for (std::uint32_t i = 0; i < kCases; ++i) {
        DenormCase& c = cases[i];
        std::memset(&c, 0, sizeof c);
        const double h = i % 3 == 0 ? 0.5 : i % 3 == 1 ? 0.25 + 0.5 * unit() : unit();
        c.x = static_cast<float>(std::ldexp(1.0 + unit(), -126 + static_cast<int>(rng() % 4)));
        c.h = static_cast<float>(h);
        c.s = vmafx_bits_float(static_cast<std::uint32_t>(rng() % 0x800000u) | (i % 2 ? 0x80000000u : 0u));
        c.s2 = vmafx_bits_float(static_cast<std::uint32_t>(rng() % 0x800000u));
        c.u = static_cast<float>(std::ldexp(1.0 + unit(), 100));
        c.dx = std::ldexp(1.0 + unit(), -1022 + static_cast<int>(rng() % 4));
        c.dh = h;
        c.ds = i % 5 == 0 ? std::ldexp(unit(), -130 - static_cast<int>(rng() % 20))  // a subnormal float's size
                          : vmafx_bits_double((rng() % (std::uint64_t(1) << 52)) | (i % 2 ? std::uint64_t(1) << 63 : 0));
        c.ds2 = vmafx_bits_double(rng() % (std::uint64_t(1) << 52));
        c.du = std::ldexp(1.0 + unit(), 1000);
    }
    cases[0] = DenormCase{0x1p-126f, 0.5f, 0x3p-149f, 0x1p-149f, 0x1p100f, 0.0f,
                          0x1p-1022, 0.5, 0x3p-1074, 0x1p-1074, 0x1p1000, 0.0};
    const auto out = from_bytes<DenormResult>(
        runner().run(shader("denorm.spv"), bytes_of(cases), kCases * sizeof(DenormResult), kCases));
    ASSERT_EQ(out.size(), kCases);
    std::uint32_t differ_f[kDenormOps] = {}, differ_d[kDenormOps] = {}, mismatches = 0;
    for (std::uint32_t i = 0; i < kCases; ++i) {
        const DenormResult want = denorm_case(cases[i]);
        bool same = true;
        for (int k = 0; k < kDenormOps; ++k) {
            if (bits(want.f[k]) != bits(out[i].f[k])) ++differ_f[k], same = false;
            if (bits(want.d[k]) != bits(out[i].d[k])) ++differ_d[k], same = false;
        }
        if (!same && ++mismatches <= 3)
            for (int k = 0; k < kDenormOps; ++k)
                if (bits(want.f[k]) != bits(out[i].f[k]) || bits(want.d[k]) != bits(out[i].d[k]))
                    ADD_FAILURE() << std::hexfloat << "case " << i << " operation " << k << ": float cpu " << want.f[k]
                                  << " device " << out[i].f[k] << "; double cpu " << want.d[k] << " device "
                                  << out[i].d[k];
    }
    std::string per_op;
    for (int k = 0; k < kDenormOps; ++k)
        if (differ_f[k] || differ_d[k])
            per_op += " op " + std::to_string(k) + ": " + std::to_string(differ_f[k]) + " float, " +
                      std::to_string(differ_d[k]) + " double;";
    EXPECT_EQ(mismatches, 0u) << "of " << kCases << " cases on " << runner().device_name() << " ("
                              << runner().denorm_preserve() << "):" << per_op;
}

}  // namespace
}  // namespace vmafx::shader_test
