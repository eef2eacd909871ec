// Proofs of vmafx's own library math (base/libm.hpp): its results are glibc 2.36's FMA-variant
// bits, the golden machine's (Debian 12, x86-64 with FMA).
//
// Two oracles. Where the host is glibc 2.36 on a processor with FMA and AVX2 (so that glibc's
// ifunc picks the variants the golden machine runs), the host's powf and exp are compared with
// vmafx's on every input of the sweep. Everywhere, the sweep's results are hashed and compared
// with a SHA-256 computed on such a host when the test was written (2026-12-03, Debian 12,
// glibc 2.36-9+deb12u14, where the comparison with the host also passed): so the digest tests
// prove the bits on any machine, whatever its C library.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <math.h>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "base/libm.hpp"
#include "base/sha256.hpp"

namespace vmafx {
namespace {

bool host_is_golden_libm() { return libm::host_libm_is_golden(); }

unsigned sweep_threads() { return std::max(1u, std::min(8u, std::thread::hardware_concurrency())); }

/// Runs chunk(c, results) for c = 0..chunks-1 over the threads; chunk fills `results` (one
/// buffer per thread, reused) and returns its mismatch count. Returns the SHA-256 of the
/// concatenated hex SHA-256 digests of the chunks' result bytes (the results as little-endian
/// words, chunk after chunk), and adds up the mismatches.
template <typename Word>
std::string chunked_digest(uint64_t chunks, size_t chunk_words,
                           const std::function<uint64_t(uint64_t, std::vector<Word>&)>& chunk,
                           uint64_t& mismatches) {
    std::vector<std::string> digests(chunks);
    std::vector<uint64_t> counts(sweep_threads(), 0);
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < counts.size(); ++t) {
        threads.emplace_back([&, t] {
            std::vector<Word> results(chunk_words);
            for (uint64_t c = t; c < chunks; c += counts.size()) {
                counts[t] += chunk(c, results);
                digests[c] = sha256_hex(std::string_view(reinterpret_cast<const char*>(results.data()),
                                                         results.size() * sizeof(Word)));
            }
        });
    }
    for (auto& thread : threads) thread.join();
    mismatches = 0;
    for (const uint64_t count : counts) mismatches += count;
    std::string all;
    for (const auto& digest : digests) all += digest;
    return sha256_hex(all);
}

uint32_t fbits(float x) { return std::bit_cast<uint32_t>(x); }
uint64_t dbits(double x) { return std::bit_cast<uint64_t>(x); }

/// Equal bits, or both NaN (a NaN's payload is not promised).
bool same(float a, float b) { return fbits(a) == fbits(b) || (std::isnan(a) && std::isnan(b)); }
bool same(double a, double b) { return dbits(a) == dbits(b) || (std::isnan(a) && std::isnan(b)); }

constexpr float kThird = 1.0f / 3.0f;  // 0x1.555556p-2: adm's and float_adm's (p = 3) exponent

/// powf(x, y) over the non-negative floats with bits k*stride, k = 0..count-1, in chunks of
/// 2^22; NaN results are hashed as 0x7fc00000.
std::string power_sweep(float y, uint32_t stride, uint64_t count, bool with_host, uint64_t& mismatches) {
    const size_t chunk = std::min<uint64_t>(count, uint64_t{1} << 22);
    return chunked_digest<uint32_t>(count / chunk, chunk, [&](uint64_t c, std::vector<uint32_t>& out) {
        uint64_t bad = 0;
        for (size_t j = 0; j < chunk; ++j) {
            const float x = std::bit_cast<float>(static_cast<uint32_t>((c * chunk + j) * stride));
            const float own = libm::powf(x, y);
            out[j] = std::isnan(own) ? 0x7fc00000u : fbits(own);
            if (with_host && !same(own, ::powf(x, y))) ++bad;
        }
        return bad;
    }, mismatches);
}

TEST(LibmPowf, CubeRootSample) {
    // Every 64th non-negative float (2^25 of them, NaNs and +inf included): the default suite's
    // quick version of the full sweep below.
    uint64_t mismatches = 0;
    const bool host = host_is_golden_libm();
    const std::string digest = power_sweep(kThird, 64, uint64_t{1} << 25, host, mismatches);
    EXPECT_EQ(mismatches, 0u) << "against the host's glibc 2.36 powf";
    EXPECT_EQ(digest, "513965bad99ba83826453297316fd1d7f092bf07cd10af3d8a1cc49719293ca3");
}

TEST(LibmPowfExhaustive, CubeRootEveryNonNegativeFloat) {
    // All 2^31 non-negative floats (zeros, subnormals, normals, +inf, NaNs): the inputs of adm's
    // and float_adm's powf(x, 1/3f) (docs/metrics.md, "Library math calls"). About 30 s of one
    // core's time; the sanitized builds leave it to the Release build (their sampled sweep above
    // runs the same code).
#ifdef VMAFX_SANITIZED_TESTS
    GTEST_SKIP() << "the Release build runs the full sweep";
#endif
    uint64_t mismatches = 0;
    const bool host = host_is_golden_libm();
    const std::string digest = power_sweep(kThird, 1, uint64_t{1} << 31, host, mismatches);
    EXPECT_EQ(mismatches, 0u) << "against the host's glibc 2.36 powf";
    EXPECT_EQ(digest, "d84c4b517fda64b3d4bb67dcc192dd18d220f7e3cdd9bfe8ff25ad49699409df");
    if (!host) std::printf("proved by the digest only: the host's libm is not glibc 2.36 with FMA\n");
}

TEST(LibmPowf, SeventhPowerSample) {
    // ciede's powf(c', 7) (c' a non-negative float): every 64th non-negative float.
    uint64_t mismatches = 0;
    const bool host = host_is_golden_libm();
    const std::string digest = power_sweep(7.0f, 64, uint64_t{1} << 25, host, mismatches);
    EXPECT_EQ(mismatches, 0u) << "against the host's glibc 2.36 powf";
    EXPECT_EQ(digest, "e8621b54abcfa3951b6381caaa45cdb6ed3168a39f8fbb9b0ca142b8482f2531");
}

TEST(LibmPowf, EdgeValues) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(fbits(libm::powf(0.0f, kThird)), 0u);
    EXPECT_EQ(libm::powf(1.0f, kThird), 1.0f);
    EXPECT_EQ(libm::powf(8.0f, kThird), 2.0f);
    EXPECT_EQ(libm::powf(27.0f, kThird), 3.0f);
    EXPECT_EQ(libm::powf(inf, kThird), inf);
    EXPECT_EQ(libm::powf(-2.0f, 3.0f), -8.0f);
    EXPECT_EQ(libm::powf(-2.0f, -2.0f), 0.25f);
    EXPECT_EQ(libm::powf(-0.0f, -1.0f), -inf);
    EXPECT_EQ(libm::powf(0.0f, -1.0f), inf);
    EXPECT_EQ(libm::powf(2.0f, 128.0f), inf);
    EXPECT_EQ(libm::powf(-2.0f, 129.0f), -inf);
    EXPECT_EQ(libm::powf(2.0f, -149.0f), std::bit_cast<float>(1u));
    EXPECT_EQ(fbits(libm::powf(2.0f, -151.0f)), 0u);
    EXPECT_TRUE(std::isnan(libm::powf(-2.0f, 0.5f)));
    EXPECT_EQ(libm::powf(std::nanf(""), 0.0f), 1.0f);
    EXPECT_EQ(libm::powf(1.0f, std::nanf("")), 1.0f);
    EXPECT_EQ(libm::powf(0.5f, inf), 0.0f);
    EXPECT_EQ(libm::powf(0.5f, -inf), inf);
    EXPECT_EQ(libm::powf(-1.0f, inf), 1.0f);
}

/// A float with uniformly random bits among the non-negative finite floats.
float random_non_negative(std::mt19937_64& random) {
    return std::bit_cast<float>(static_cast<uint32_t>(random() % 0x7f800000u));
}

TEST(LibmPowf, GeneralExponentsSample) {
    // float_adm's powf(x, float(p)) and powf(x, float(1/p)) for adm_p_norm values, and random
    // exponents of either sign, over random non-negative and negative x: 2^24 pairs from a fixed
    // seed. The code is the one the sweeps above prove for y = 1/3f; this checks the other paths
    // (integer y with negative x, overflow, underflow, subnormal results).
    std::mt19937_64 random(25);
    const float norms[] = {1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 4.0f, 5.5f, 8.0f, 16.0f, 0.5f, 7.0f};
    const size_t pairs = size_t{1} << 24;
    std::vector<std::pair<float, float>> inputs(pairs);
    for (size_t i = 0; i < pairs; ++i) {
        float y;
        switch (i % 4) {
        case 0: y = norms[random() % std::size(norms)]; break;
        case 1: y = 1.0f / norms[random() % std::size(norms)]; break;
        case 2: y = std::bit_cast<float>(static_cast<uint32_t>(random())); break;  // any float
        default: y = static_cast<float>(static_cast<int>(random() % 301) - 150); break;  // integers
        }
        float x = random_non_negative(random);
        if (random() % 4 == 0) x = -x;
        inputs[i] = {x, y};
    }
    uint64_t mismatches = 0;
    const bool host = host_is_golden_libm();
    const size_t chunk = size_t{1} << 20;
    const std::string digest = chunked_digest<uint32_t>(pairs / chunk, chunk, [&](uint64_t c, std::vector<uint32_t>& out) {
        uint64_t bad = 0;
        for (size_t j = 0; j < chunk; ++j) {
            const auto [x, y] = inputs[c * chunk + j];
            const float own = libm::powf(x, y);
            out[j] = std::isnan(own) ? 0x7fc00000u : fbits(own);
            if (host && !same(own, ::powf(x, y))) ++bad;
        }
        return bad;
    }, mismatches);
    EXPECT_EQ(mismatches, 0u) << "against the host's glibc 2.36 powf";
    EXPECT_EQ(digest, "69b1ee03e4321cdfd950807fae04c3bf27899bc11a1a1605325588aa8c633199");
}

/// exp over `inputs` against the host (where it is the golden libm) and a digest.
std::string exp_sweep(const std::vector<double>& inputs, uint64_t& mismatches) {
    const size_t chunk = size_t{1} << 20;
    EXPECT_EQ(inputs.size() % chunk, 0u);
    const bool host = host_is_golden_libm();
    return chunked_digest<uint64_t>(inputs.size() / chunk, chunk, [&](uint64_t c, std::vector<uint64_t>& out) {
        uint64_t bad = 0;
        for (size_t j = 0; j < chunk; ++j) {
            const double x = inputs[c * chunk + j];
            const double own = libm::exp(x);
            out[j] = std::isnan(own) ? 0x7ff8000000000000u : dbits(own);
            if (host && !same(own, ::exp(x))) ++bad;
        }
        return bad;
    }, mismatches);
}

TEST(LibmExp, EdgeValues) {
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(libm::exp(0.0), 1.0);
    EXPECT_EQ(libm::exp(-0.0), 1.0);
    EXPECT_EQ(libm::exp(-inf), 0.0);
    EXPECT_EQ(libm::exp(inf), inf);
    EXPECT_TRUE(std::isnan(libm::exp(std::nan(""))));
    EXPECT_EQ(libm::exp(710.0), inf);
    EXPECT_EQ(dbits(libm::exp(-746.0)), 0u);
    EXPECT_EQ(libm::exp(-745.0), std::bit_cast<double>(uint64_t{1}));  // 4.94e-324, the smallest subnormal
    EXPECT_EQ(libm::exp(1.0), 0x1.5bf0a8b145769p+1);  // e, correctly rounded
    EXPECT_EQ(libm::exp(-1.0), 0x1.78b56362cef38p-2);
}

TEST(LibmExp, StridedAndRandomSample) {
    // The RBF kernel's exp(-gamma |x - sv|^2) takes any double <= 0; exp is general. Inputs:
    // every 2^37-th double by bit pattern (both signs, 2^27 of them: every binade, zeros,
    // infinities, NaNs); every 2^26-th double from -708 to -746, where the result is subnormal
    // (exp's other end path: 2^22 of them, about); the 2^20 doubles after 512 and after -512
    // (where the special path starts); and 2^23 from a fixed seed, uniform in [-800, 800] and
    // in [-50, 0] (the kernel's usual range). Against the host where it is glibc 2.36 with FMA,
    // and a committed digest everywhere.
    std::vector<double> inputs;
    for (uint64_t b = 0; b < (uint64_t{1} << 27); ++b) inputs.push_back(std::bit_cast<double>(b << 37));
    const uint64_t from = dbits(-708.0), to = dbits(-746.0);
    for (uint64_t b = from; b < to; b += uint64_t{1} << 26) inputs.push_back(std::bit_cast<double>(b));
    for (uint64_t j = 0; j < (uint64_t{1} << 20); ++j) {
        inputs.push_back(std::bit_cast<double>(dbits(512.0) + j));
        inputs.push_back(std::bit_cast<double>(dbits(-512.0) + j));
    }
    std::mt19937_64 random(25);  // mt19937_64's outputs are the same in every standard library
    const auto unit = [&] { return static_cast<double>(random() >> 11) * 0x1p-53; };  // [0, 1)
    for (uint64_t j = 0; j < (uint64_t{1} << 22); ++j) {
        inputs.push_back(-800.0 + 1600.0 * unit());
        inputs.push_back(-50.0 * unit());
    }
    while (inputs.size() % (size_t{1} << 20) != 0) inputs.push_back(-std::ldexp(1.0, -static_cast<int>(inputs.size() % 1000)));
    uint64_t mismatches = 0;
    const std::string digest = exp_sweep(inputs, mismatches);
    EXPECT_EQ(mismatches, 0u) << "against the host's glibc 2.36 exp";
    EXPECT_EQ(digest, "a345969805e0f809aee84781a22e0b3099f6d7d56479483f8b8ba986fd367497");
}

/// log2 over `inputs` against the host (where it is the golden libm) and a digest.
std::string log2_sweep(size_t count, const std::function<double(uint64_t)>& input, uint64_t& mismatches) {
    const size_t chunk = std::min<size_t>(count, size_t{1} << 21);
    EXPECT_EQ(count % chunk, 0u);
    const bool host = host_is_golden_libm();
    return chunked_digest<uint64_t>(count / chunk, chunk, [&](uint64_t c, std::vector<uint64_t>& out) {
        uint64_t bad = 0;
        for (size_t j = 0; j < chunk; ++j) {
            const double x = input(c * chunk + j);
            const double own = libm::log2(x);
            out[j] = std::isnan(own) ? 0x7ff8000000000000u : dbits(own);
            if (host && !same(own, ::log2(x))) ++bad;
        }
        return bad;
    }, mismatches);
}

TEST(LibmLog2, EdgeValues) {
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(dbits(libm::log2(1.0)), 0u);
    EXPECT_EQ(libm::log2(2.0), 1.0);
    EXPECT_EQ(libm::log2(0x1p-1074), -1074.0);
    EXPECT_EQ(libm::log2(0.0), -inf);
    EXPECT_EQ(libm::log2(-0.0), -inf);
    EXPECT_EQ(libm::log2(inf), inf);
    EXPECT_TRUE(std::isnan(libm::log2(-1.0)));
    EXPECT_TRUE(std::isnan(libm::log2(std::nan(""))));
    EXPECT_EQ(libm::log2(3.0), 0x1.95c01a39fbd68p+0);  // log2 3, correctly rounded
}

TEST(LibmLog2, FloatArgumentSample) {
    // SpEED's log2 of a float made double (its entropies and weights: docs/metrics.md): every
    // 64th non-negative float. The full sweep is LibmLog2Exhaustive below.
    uint64_t mismatches = 0;
    const std::string digest = log2_sweep(size_t{1} << 25, [](uint64_t k) {
        return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(k * 64)));
    }, mismatches);
    EXPECT_EQ(mismatches, 0u) << "against the host's glibc 2.36 log2";
    EXPECT_EQ(digest, "32729e468a2c947be20acfbf95a8fb070c022a1e82735556a3bcabbd9bfebfc5");
}

TEST(LibmLog2Exhaustive, EveryNonNegativeFloatAsDouble) {
    // All 2^31 non-negative floats, made double: every input of SpEED's one-float log2 calls.
#ifdef VMAFX_SANITIZED_TESTS
    GTEST_SKIP() << "the Release build runs the full sweep";
#endif
    uint64_t mismatches = 0;
    const std::string digest = log2_sweep(size_t{1} << 31, [](uint64_t k) {
        return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(k)));
    }, mismatches);
    EXPECT_EQ(mismatches, 0u) << "against the host's glibc 2.36 log2";
    EXPECT_EQ(digest, "1943d28e4a014b2f6ccab2b968b35d4400bf62525567a6933e47ecd01bb8f7ab");
}

TEST(LibmLog2, DoubleSample) {
    // SpEED's mode 5 and 6 weights log2(1 + (0.75 v_r + 0.25 v_d)) take any double >= 1 (v >= 0);
    // log2 is general. Inputs: every 2^37-th double by bit pattern (2^27: both signs, every
    // binade, zeros, subnormals, infinities, NaNs); every 2^27-th double in the near-1 range
    // (1 - 0x1.5b51p-5, 1 + 0x1.6ab2p-5), which has its own polynomial (2^22); and 2^23 from a
    // fixed seed: 1 + v with v spread over 2^-30 .. 2^20 (log-uniform), and uniform in [0.5, 2].
    std::vector<double> inputs;
    for (uint64_t b = 0; b < (uint64_t{1} << 27); ++b) inputs.push_back(std::bit_cast<double>(b << 37));
    for (uint64_t b = dbits(1.0 - 0x1.5b51p-5); b < dbits(1.0 + 0x1.6ab2p-5); b += uint64_t{1} << 27)
        inputs.push_back(std::bit_cast<double>(b));
    std::mt19937_64 random(25);  // the same outputs in every standard library
    const auto unit = [&] { return static_cast<double>(random() >> 11) * 0x1p-53; };  // [0, 1)
    for (uint64_t j = 0; j < (uint64_t{1} << 22); ++j) {
        inputs.push_back(1.0 + std::ldexp(1.0 + unit(), static_cast<int>(random() % 51) - 30));
        inputs.push_back(0.5 + 1.5 * unit());
    }
    while (inputs.size() % (size_t{1} << 21) != 0) inputs.push_back(1.0 + std::ldexp(1.0, -static_cast<int>(inputs.size() % 60)));
    uint64_t mismatches = 0;
    const std::string digest = log2_sweep(inputs.size(), [&](uint64_t k) { return inputs[k]; }, mismatches);
    EXPECT_EQ(mismatches, 0u) << "against the host's glibc 2.36 log2";
    EXPECT_EQ(digest, "5f398cdb1a5752b6a4048e9c82ccf3cc85a841a210a9c7756cfaa5af4d077f21");
}

}  // namespace
}  // namespace vmafx
