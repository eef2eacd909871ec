// Strict arithmetic on the GPU: the flags reach every CUDA translation unit (checked on the
// compile commands, no GPU needed), and a probe kernel built with them computes a*b+c, a/b and
// sqrt(a) with the host's bits on random and boundary operands, and the twins' 64-bit warp sums
// exactly (needs a GPU).
#include <cfloat>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpu/scheduler.hpp"
#ifdef VMAFX_HAVE_CUDA
#include "cuda/probe.hpp"
#endif

namespace vmafx {
namespace {

namespace fs = std::filesystem;

TEST(CudaFlagsContract, EveryCudaUnitIsCompiledStrict) {
#ifndef VMAFX_HAVE_CUDA
    GTEST_SKIP() << "skipped: the CUDA backend is not built (no nvcc)";
#else
    std::ifstream in(fs::path(VMAFX_BINARY_DIR) / "compile_commands.json");
    if (!in) GTEST_SKIP() << "skipped: not run from its build tree (no " << VMAFX_BINARY_DIR << "/compile_commands.json)";
    const auto commands = nlohmann::json::parse(in);
    std::vector<std::string> cu_files;
    for (const auto& e : fs::recursive_directory_iterator(fs::path(VMAFX_SOURCE_DIR) / "src"))
        if (e.path().extension() == ".cu") cu_files.push_back(fs::canonical(e.path()).string());
    ASSERT_FALSE(cu_files.empty());
    for (const auto& file : cu_files) {
        bool found = false;
        for (const auto& c : commands) {
            if (fs::weakly_canonical(fs::path(c.at("file").get<std::string>())).string() != file) continue;
            found = true;
            const std::string cmd = c.contains("command") ? c["command"].get<std::string>() : c["arguments"].dump();
            for (const char* flag : {"--fmad=false", "-prec-div=true", "-prec-sqrt=true", "-ftz=false"})
                EXPECT_NE(cmd.find(flag), std::string::npos) << file << " is compiled without " << flag;
            for (const char* bad : {"use_fast_math", "--fmad=true", "-fmad=true", "-prec-div=false", "-prec-sqrt=false",
                                    "-ftz=true"})
                EXPECT_EQ(cmd.find(bad), std::string::npos) << file << " is compiled with " << bad;
        }
        EXPECT_TRUE(found) << file << " has no compile command: is it built?";
    }
#endif
}

#ifdef VMAFX_HAVE_CUDA
template <typename T>
bool same_bits(T a, T b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
std::vector<T> operands(std::mt19937_64& rng, std::size_t n) {
    using L = std::numeric_limits<T>;
    std::vector<T> v = {T(0), -T(0), T(1), T(-1), L::min(), L::denorm_min(), L::max(), L::epsilon(),
                        T(1) + L::epsilon(), T(1) - L::epsilon() / 2, T(3), T(1) / T(3), T(255), T(65535),
                        T(1) / L::min(), L::min() * T(1.5), T(0.1), T(1e-30), T(1e30)};
    std::uniform_real_distribution<double> mant(0.5, 1.0);
    std::uniform_int_distribution<int> expo(L::min_exponent - 10, L::max_exponent - 2);
    while (v.size() < n) {
        T x = static_cast<T>(std::ldexp(mant(rng), expo(rng)));
        if (rng() & 1) x = -x;
        v.push_back(x);
    }
    return v;
}
#endif

TEST(CudaProbe, StrictArithmeticHasTheHostBits) {
#ifndef VMAFX_HAVE_CUDA
    GTEST_SKIP() << "skipped: the CUDA backend is not built";
#else
    if (const auto why = gpu_unavailable_reason("cuda"); !why.empty()) GTEST_SKIP() << "skipped: no usable GPU: " << why;
    std::mt19937_64 rng(2026);
    const std::size_t n = 1 << 16;
    auto af = operands<float>(rng, n), bf = operands<float>(rng, n), cf = operands<float>(rng, n);
    auto ad = operands<double>(rng, n), bd = operands<double>(rng, n), cd = operands<double>(rng, n);
    std::shuffle(bf.begin(), bf.end(), rng);
    std::shuffle(cd.begin(), cd.end(), rng);
    // Products near a sum's magnitude, where a fused multiply-add rounds differently.
    for (std::size_t i = 0; i < 4096; ++i) {
        cf[i] = -af[i] * bf[i];
        cd[i] = -ad[i] * bd[i];
    }
    const auto r = cuda::probe_arithmetic(af, bf, cf, ad, bd, cd);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float m = af[i] * bf[i] + cf[i];  // host: -ffp-contract=off, two roundings
        const double md = ad[i] * bd[i] + cd[i];
        bad += !same_bits(r.mul_add_f[i], m) + !same_bits(r.div_f[i], af[i] / bf[i]) +
               !same_bits(r.sqrt_f[i], std::sqrt(af[i])) + !same_bits(r.mul_add_d[i], md) +
               !same_bits(r.div_d[i], ad[i] / bd[i]) + !same_bits(r.sqrt_d[i], std::sqrt(ad[i]));
        if (bad && bad < 5 && !same_bits(r.mul_add_f[i], m))
            ADD_FAILURE() << "a*b+c differs at " << af[i] << " " << bf[i] << " " << cf[i];
    }
    EXPECT_EQ(bad, 0u) << "device results that differ from the host's";
#endif
}

TEST(CudaProbe, WarpSumsOf64BitValuesAreExactModulo2To64) {
#ifndef VMAFX_HAVE_CUDA
    GTEST_SKIP() << "skipped: the CUDA backend is not built";
#else
    if (const auto why = gpu_unavailable_reason("cuda"); !why.empty()) GTEST_SKIP() << "skipped: no usable GPU: " << why;
    using u64 = unsigned long long;
    // Warps of the slices' edges (2^22 and 2^44, the 20-bit top), the largest values (whose sum
    // wraps), one lane set, and random words of every width.
    const u64 edges[] = {0,
                         1,
                         (u64(1) << 22) - 1,
                         u64(1) << 22,
                         (u64(1) << 44) - 1,
                         u64(1) << 44,
                         u64(1) << 63,
                         ~u64(0),
                         ~u64(0) - (u64(1) << 43),
                         0x0123456789abcdefULL};
    std::vector<u64> values;
    for (const u64 e : edges) values.insert(values.end(), 32, e);
    for (int lane = 0; lane < 32; ++lane) values.push_back(lane == 17 ? ~u64(0) : 0);
    std::mt19937_64 rng(64);
    for (int group = 0; group < 2048; ++group) {
        const int bits = 1 + group % 64;
        for (int lane = 0; lane < 32; ++lane) values.push_back(bits == 64 ? rng() : rng() & ((u64(1) << bits) - 1));
    }
    const auto sums = cuda::probe_warp_sums(values);
    ASSERT_EQ(sums.size(), values.size() / 32);
    for (std::size_t g = 0; g < sums.size(); ++g) {
        u64 want = 0;
        for (int lane = 0; lane < 32; ++lane) want += values[g * 32 + lane];  // modulo 2^64
        ASSERT_EQ(sums[g], want) << "warp " << g << ", first value " << values[g * 32];
    }
    // The values above wrap: 32 lanes of 2^64 - 1 sum to 2^64 - 32.
    EXPECT_EQ(sums[7], ~u64(0) - 31);
#endif
}

}  // namespace
}  // namespace vmafx
