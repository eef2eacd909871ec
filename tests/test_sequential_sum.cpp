// Tests of the device reproduction of a CPU running sum (cuda/sequential_sum.hpp,
// vulkan/sequential_sum.hpp): the method's host emulation (gpu/sequential_sum_core.hpp, the
// device's chunking and ordered grouping) and, where a CUDA or Vulkan device is usable (lavapipe
// in CI), the SequentialSum of each backend itself, against the plain loop
// `Acc s = 0; for (...) s += t;`, compared bit for bit, on rows of every kind the method has
// a separate path for: positive terms over one or many binades, exact ties on the grid of a
// sum past 2^p units (half-integers, the float_moment squares of 16-bit samples), mixed signs
// crossing binades downwards and through zero, zeros and -0.0, subnormals, huge terms,
// non-finite terms, single terms, n = 0 and n not a multiple of the chunk.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/sequential_sum_core.hpp"
#include "test_support.hpp"

#if defined(VMAFX_HAVE_CUDA)
#include <cuda_runtime.h>

#include "cuda/sequential_sum.hpp"
#endif
#if defined(VMAFX_HAVE_VULKAN)
#include "twin_support.hpp"
#include "vulkan/sequential_sum.hpp"
#include "vulkan/vulkan.hpp"
#endif

namespace vmafx {
namespace {

namespace ss = gpu::seqsum;

template <typename Acc>
Acc plain_sum(const std::vector<Acc>& t) {
    Acc s = 0;
    for (const Acc v : t) s += v;
    return s;
}

template <typename Acc>
auto bits_of(Acc v) {
    return ss::seq_bits<Acc>(v);
}

/// The kinds of rows (see the head comment).
enum class Kind {
    kUniform,
    kLogUniform,
    kHalfIntegersPastP,
    kMomentSquares,
    kMixedCrossing,
    kDownThroughZero,
    kZeros,
    kSubnormal,
    kHuge,
    kNegativeTies,
    kStagnation,
    kHoverBinade,
    kCount
};

template <typename Acc>
std::vector<Acc> make_row(Kind kind, std::size_t n, std::mt19937_64& rng) {
    constexpr int p = ss::SeqFormat<Acc>::p;
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<Acc> t(n);
    switch (kind) {
    case Kind::kUniform:
        for (auto& v : t) v = static_cast<Acc>(unit(rng));
        break;
    case Kind::kLogUniform:
        for (auto& v : t) v = static_cast<Acc>(std::exp2(-30.0 + 60.0 * unit(rng)));
        break;
    case Kind::kHalfIntegersPastP: {
        // A start past 2^p units of 1/2, then small multiples of 1/2: every add of an odd
        // multiple is a tie on the grid.
        const double start = std::ldexp(1.0 + unit(rng), p);
        for (std::size_t i = 0; i < n; ++i)
            t[i] = static_cast<Acc>(i == 0 ? start : 0.5 * static_cast<double>(rng() % 16));
        break;
    }
    case Kind::kMomentSquares: {
        // float_moment at 16 bits: float (x / 65536)^2 of bright samples with a few dark
        // ones, whose squares have bits below the sum's grid.
        for (auto& v : t) {
            const unsigned x = rng() % 8 == 0 ? static_cast<unsigned>(rng() % 4096) : 60000u + rng() % 5536;
            const float f = static_cast<float>(x) / 65536.0f;
            v = static_cast<Acc>(f * f);
        }
        if (n > 0) t[0] = static_cast<Acc>(std::ldexp(1.0, p - 30));  // as if many rows were summed already
        break;
    }
    case Kind::kMixedCrossing:
        for (auto& v : t) v = static_cast<Acc>((unit(rng) - 0.45) * std::exp2(20.0 * unit(rng)));
        break;
    case Kind::kDownThroughZero: {
        // A large start, then negative terms that take the sum through every binade down, through
        // zero, and negative.
        const double start = std::ldexp(1.0, 20) * (1.0 + unit(rng));
        for (std::size_t i = 0; i < n; ++i)
            t[i] = static_cast<Acc>(i == 0 ? start : -(2.0 * start / static_cast<double>(n)) * (0.5 + unit(rng)));
        break;
    }
    case Kind::kZeros:
        for (auto& v : t) {
            const auto r = rng() % 4;
            v = r == 0 ? Acc(0) : r == 1 ? -Acc(0) : r == 2 ? static_cast<Acc>(unit(rng)) : -static_cast<Acc>(unit(rng));
        }
        if (rng() % 2)
            for (auto& v : t) v = -Acc(0);
        break;
    case Kind::kSubnormal:
        for (auto& v : t) {
            const Acc tiny = std::numeric_limits<Acc>::denorm_min();
            v = static_cast<Acc>(static_cast<double>(rng() % 1000)) * tiny * (rng() % 3 == 0 ? Acc(-1) : Acc(1));
            if (rng() % 50 == 0) v = std::numeric_limits<Acc>::min() * static_cast<Acc>(unit(rng) * 4);
        }
        break;
    case Kind::kHuge:
        for (auto& v : t) v = static_cast<Acc>(std::numeric_limits<Acc>::max() / 8 * unit(rng)) * (rng() % 5 == 0 ? -1 : 1);
        break;
    case Kind::kNegativeTies: {
        const double start = -std::ldexp(1.0 + unit(rng), p + 2);
        for (std::size_t i = 0; i < n; ++i)
            t[i] = static_cast<Acc>(i == 0 ? start : 2.0 * (static_cast<double>(rng() % 32) - 15.0));
        break;
    }
    case Kind::kStagnation:
        // Terms far below the sum's grid after a while (the sum stops growing, far from the
        // exact sum): the prediction misses, the walk must notice.
        for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<Acc>(i < 4 ? std::ldexp(1.0, p) : 0.25 + unit(rng));
        break;
    case Kind::kHoverBinade: {
        // A sum that wanders around a power of two (2^p units of 1/2 above or below), with
        // terms on, half-way between and off its two grids: near-misses of the placement test.
        const double start = std::ldexp(1.0, p - 1) * (rng() % 2 ? 1.0 : -1.0);
        const int scale = static_cast<int>(rng() % 4);
        for (std::size_t i = 0; i < n; ++i)
            t[i] = static_cast<Acc>(i == 0 ? start
                                           : std::ldexp(static_cast<double>(static_cast<int>(rng() % 13) - 6), scale - 2) +
                                                 (rng() % 8 == 0 ? unit(rng) : 0.0));
        break;
    }
    case Kind::kCount:
        break;
    }
    return t;
}

template <typename Acc>
void expect_emulation_matches(const std::vector<Acc>& t, const std::string& what, ss::SeqStats* stats = nullptr) {
    const Acc want = plain_sum(t);
    const Acc got = ss::seq_emulate<Acc>(t.data(), t.size(), stats);
    ASSERT_EQ(bits_of(got), bits_of(want)) << what << ": n " << t.size() << " got " << got << " want " << want;
}

template <typename Acc>
void random_rows(unsigned cases, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (unsigned c = 0; c < cases; ++c) {
        const auto kind = static_cast<Kind>(c % static_cast<unsigned>(Kind::kCount));
        // Mostly short rows (a few chunks, ragged ends), some long ones.
        const std::size_t n = c % 50 == 0 ? 100000 + rng() % 200000 : rng() % (6 * ss::kChunk + 7);
        const auto t = make_row<Acc>(kind, n, rng);
        expect_emulation_matches(t, "case " + std::to_string(c) + " kind " + std::to_string(static_cast<int>(kind)));
    }
}

TEST(SequentialSum, EmulationMatchesThePlainLoopFloat) { random_rows<float>(2200, 1); }
TEST(SequentialSum, EmulationMatchesThePlainLoopDouble) { random_rows<double>(2200, 2); }

TEST(SequentialSum, EdgeRows) {
    expect_emulation_matches<double>({}, "empty");
    expect_emulation_matches<float>({}, "empty");
    expect_emulation_matches<double>({-0.0}, "-0");
    expect_emulation_matches<double>({-0.0, -0.0}, "-0 -0");
    expect_emulation_matches<float>({-0.0f}, "-0");
    expect_emulation_matches<double>({3.25}, "single");
    expect_emulation_matches<double>({1.0, -1.0}, "to +0");
    std::vector<double> inf(5000, 1.0);
    inf[4500] = std::numeric_limits<double>::infinity();
    expect_emulation_matches(inf, "inf");
    inf[4700] = -std::numeric_limits<double>::infinity();
    expect_emulation_matches(inf, "inf - inf");
    std::vector<float> nan(9000, 2.0f);
    nan[8000] = std::numeric_limits<float>::quiet_NaN();
    expect_emulation_matches(nan, "nan");
    std::vector<double> overflow(9000, std::numeric_limits<double>::max() / 4096);
    expect_emulation_matches(overflow, "overflow");
    // Exact multiples of the chunk and one more.
    std::mt19937_64 rng(7);
    for (const std::size_t n : {std::size_t{ss::kChunk}, std::size_t{2 * ss::kChunk}, std::size_t{2 * ss::kChunk + 1}})
        for (int k = 0; k < static_cast<int>(Kind::kCount); ++k) {
            expect_emulation_matches(make_row<double>(static_cast<Kind>(k), n, rng), "double kind " + std::to_string(k));
            expect_emulation_matches(make_row<float>(static_cast<Kind>(k), n, rng), "float kind " + std::to_string(k));
        }
}

// The transfers must carry the sum, not the fallback: on long rows few chunks go one by one
// (a binade crossing each, and the start), and ties are taken on the grid.
TEST(SequentialSum, FewSequentialChunksOnLongRows) {
    std::mt19937_64 rng(11);
    for (const Kind kind : {Kind::kUniform, Kind::kHalfIntegersPastP, Kind::kMomentSquares, Kind::kNegativeTies}) {
        const std::size_t n = 3840 * 2160 / 4;
        {
            ss::SeqStats stats;
            expect_emulation_matches(make_row<double>(kind, n, rng), "double long", &stats);
            EXPECT_LE(stats.sequential, 40u) << static_cast<int>(kind) << " of " << stats.chunks;
        }
        {
            ss::SeqStats stats;
            expect_emulation_matches(make_row<float>(kind, n, rng), "float long", &stats);
            if (kind != Kind::kUniform) {  // a float sum of 2M uniform terms stagnates: the predictions miss
                EXPECT_LE(stats.sequential, 40u) << static_cast<int>(kind) << " of " << stats.chunks;
            }
        }
    }
}

// The float_moment case at full size: squares of 16-bit samples of bright 2560x1440 frames,
// as float, summed into double (the sum passes 2^53 units of the dark samples' squares).
TEST(SequentialSum, MomentSquaresAt2560x1440) {
    std::mt19937_64 rng(13);
    std::vector<double> t(2560 * 1440);
    for (auto& v : t) {
        const unsigned x = rng() % 16 == 0 ? static_cast<unsigned>(rng() % 65536) : 50000u + rng() % 15536;
        const float f = static_cast<float>(x) / 65536.0f;
        v = f * f;
    }
    ss::SeqStats stats;
    expect_emulation_matches(t, "moment squares", &stats);
    EXPECT_LE(stats.sequential, 40u);
}

TEST(SequentialSum, TransfersComposeInOrder) {
    // The composition is associative but not commutative: check both on single-term transfers.
    const ss::SeqTransfer a = ss::seq_term<double>(2.5, 0, 1);  // grid 2^-52: q huge -> bad
    EXPECT_TRUE(a.bad);
    const int e = 53;  // grid 2: terms 1 (a tie: 0 or 1 by parity) and 3 (a tie: 1 or 2)
    const ss::SeqTransfer one = ss::seq_term<double>(1.0, e, 1);
    const ss::SeqTransfer two = ss::seq_term<double>(2.0, e, 1);
    EXPECT_EQ(one.inc[0], 0u);
    EXPECT_EQ(one.inc[1], 1u);
    EXPECT_EQ(two.inc[0], 1u);
    EXPECT_EQ(two.par[0], 1);
    const auto ab = ss::seq_compose(one, two), ba = ss::seq_compose(two, one);
    EXPECT_EQ(ab.inc[0], 1u);  // even + 1 (tie -> +0, even) + 2 -> +1
    EXPECT_EQ(ba.inc[0], 2u);  // even + 2 -> odd, + 1 (tie -> +1)
    const auto abc1 = ss::seq_compose(ss::seq_compose(one, two), one);
    const auto abc2 = ss::seq_compose(one, ss::seq_compose(two, one));
    EXPECT_EQ(abc1.inc[0], abc2.inc[0]);
    EXPECT_EQ(abc1.inc[1], abc2.inc[1]);
    EXPECT_EQ(abc1.par[0], abc2.par[0]);
    EXPECT_EQ(abc1.par[1], abc2.par[1]);
}

#if defined(VMAFX_HAVE_CUDA)

template <typename Acc>
void device_rows(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::size_t max_terms = 3840 * 2160;
    gpu::SequentialSum<Acc> sum(max_terms, 4);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    Acc* terms = nullptr;
    Acc* out = nullptr;
    ASSERT_EQ(cudaMalloc(&terms, 4 * max_terms * sizeof(Acc)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, 4 * sizeof(Acc)), cudaSuccess);
    for (unsigned c = 0; c < 400; ++c) {
        const auto kind = static_cast<Kind>(c % static_cast<unsigned>(Kind::kCount));
        const unsigned batch = 1 + c % 4;
        const std::size_t n = c % 40 == 0 ? max_terms - rng() % 1000 : c % 7 == 0 ? rng() % 3 : rng() % (40 * ss::kChunk);
        const std::size_t pitch = n + c % 3;
        std::vector<Acc> host(batch * pitch, Acc(0));
        std::vector<Acc> want(batch);
        for (unsigned b = 0; b < batch; ++b) {
            const auto row = make_row<Acc>(kind, n, rng);
            std::copy(row.begin(), row.end(), host.begin() + static_cast<std::ptrdiff_t>(b * pitch));
            want[b] = plain_sum(row);
        }
        if (!host.empty()) {
            ASSERT_EQ(cudaMemcpy(terms, host.data(), host.size() * sizeof(Acc), cudaMemcpyHostToDevice), cudaSuccess);
        }
        sum.enqueue(terms, n, pitch, batch, out, stream);
        std::vector<Acc> got(batch);
        ASSERT_EQ(cudaMemcpyAsync(got.data(), out, batch * sizeof(Acc), cudaMemcpyDeviceToHost, stream), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        for (unsigned b = 0; b < batch; ++b)
            ASSERT_EQ(bits_of(got[b]), bits_of(want[b]))
                << "case " << c << " kind " << static_cast<int>(kind) << " n " << n << " row " << b << ": got " << got[b]
                << " want " << want[b];
    }
    cudaFree(terms);
    cudaFree(out);
    cudaStreamDestroy(stream);
}

TEST(SequentialSumCuda, MatchesThePlainLoopFloat) {
    VMAFX_REQUIRE_GPU();
    device_rows<float>(21);
}

TEST(SequentialSumCuda, MatchesThePlainLoopDouble) {
    VMAFX_REQUIRE_GPU();
    device_rows<double>(22);
}

// 4 rows of 3840x2160 doubles (positive terms: a binade crossing every doubling of the sum), the
// time printed (bench/ measures it; a test asserts values only).
TEST(SequentialSumCuda, FourRowsOf3840x2160Doubles) {
    VMAFX_REQUIRE_GPU();
    const std::size_t n = 3840 * 2160;
    std::mt19937_64 rng(31);
    std::vector<double> host(4 * n);
    std::vector<double> want(4);
    for (unsigned b = 0; b < 4; ++b) {
        const auto row = make_row<double>(b % 2 ? Kind::kMomentSquares : Kind::kUniform, n, rng);
        std::copy(row.begin(), row.end(), host.begin() + static_cast<std::ptrdiff_t>(b * n));
        want[b] = plain_sum(row);
    }
    gpu::SequentialSum<double> sum(n, 4);
    double* terms = nullptr;
    double* out = nullptr;
    ASSERT_EQ(cudaMalloc(&terms, host.size() * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, 4 * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(terms, host.data(), host.size() * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
    float best = 1e9f;
    for (int rep = 0; rep < 5; ++rep) {
        ASSERT_EQ(cudaEventRecord(start, stream), cudaSuccess);
        sum.enqueue(terms, n, n, 4, out, stream);
        ASSERT_EQ(cudaEventRecord(stop, stream), cudaSuccess);
        ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
        float ms = 0;
        ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
        best = std::min(best, ms);
    }
    std::vector<double> got(4);
    ASSERT_EQ(cudaMemcpy(got.data(), out, 4 * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    for (unsigned b = 0; b < 4; ++b) EXPECT_EQ(bits_of(got[b]), bits_of(want[b])) << "row " << b;
    std::cout << "[ SequentialSum<double> ] 4 rows of 3840x2160: " << best << " ms (best of 5)\n";
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
    cudaFree(terms);
    cudaFree(out);
}

TEST(SequentialSumCuda, Refusals) {
    VMAFX_REQUIRE_GPU();
    gpu::SequentialSum<double> sum(100, 2);
    EXPECT_THROW(sum.enqueue(nullptr, 101, 101, 1, nullptr, nullptr), Error);
    EXPECT_THROW(sum.enqueue(nullptr, 10, 9, 1, nullptr, nullptr), Error);
    EXPECT_THROW(sum.enqueue(nullptr, 10, 10, 3, nullptr, nullptr), Error);
    EXPECT_THROW(gpu::SequentialSum<float>(0, 1), Error);
    EXPECT_THROW(gpu::SequentialSum<float>(1, 0), Error);
}

#endif

#if defined(VMAFX_HAVE_VULKAN)

// The Vulkan SequentialSum<Acc> against the plain loop on rows of every kind, 1 to 4 rows a call,
// ragged pitches, n = 0 to 3840x2160 (on a device emulated on the CPU up to 300000 terms, and
// fewer calls there, fewest in a sanitized build: test::DeviceScale).
template <typename Acc>
void vulkan_rows(unsigned seed, unsigned emulated_cases) {
    const test::DeviceScale scale = test::device_scale("vulkan");
    const std::size_t max_terms = scale == test::DeviceScale::kFull ? 3840 * 2160 : 300000;
    const unsigned cases = scale == test::DeviceScale::kFull       ? 400
                           : scale == test::DeviceScale::kEmulated ? emulated_cases
                                                                   : emulated_cases / 4;
    const DeviceApi& api = vulkan::api();
    vulkan::SequentialSum<Acc> sum(max_terms, 4);
    vulkan::DeviceBuffer<Acc> terms(4 * (max_terms + 2));
    vulkan::DeviceBuffer<Acc> out(4);
    GpuQueue* queue = api.create_queue();
    GpuEvent* done = api.create_event();
    std::mt19937_64 rng(seed);
    for (unsigned c = 0; c < cases; ++c) {
        const auto kind = static_cast<Kind>(c % static_cast<unsigned>(Kind::kCount));
        const unsigned batch = 1 + c % 4;
        const std::size_t n = c % 40 == 0 ? max_terms - rng() % 1000 : c % 7 == 0 ? rng() % 3 : rng() % (40 * ss::kChunk);
        const std::size_t pitch = n + c % 3;
        std::vector<Acc> host(batch * pitch, Acc(0));
        std::vector<Acc> want(batch);
        for (unsigned b = 0; b < batch; ++b) {
            const auto row = make_row<Acc>(kind, n, rng);
            std::copy(row.begin(), row.end(), host.begin() + static_cast<std::ptrdiff_t>(b * pitch));
            want[b] = plain_sum(row);
        }
        const std::size_t bytes = host.size() * sizeof(Acc);
        if (bytes > 0)
            api.copy_2d(terms.at(0), bytes, host.data(), bytes, bytes, 1, CopyKind::kHostToDevice, "test terms");
        std::vector<Acc> got(batch, Acc(-1));
        sum.enqueue(queue, terms.address(), n, pitch, batch, out.address());
        vulkan::copy_to_host(queue, got.data(), out.at(0), batch * sizeof(Acc), "test sums");
        api.record(done, queue);
        api.host_wait(done);
        for (unsigned b = 0; b < batch; ++b)
            ASSERT_EQ(bits_of(got[b]), bits_of(want[b]))
                << "case " << c << " kind " << static_cast<int>(kind) << " n " << n << " row " << b << ": got " << got[b]
                << " want " << want[b];
    }
    api.destroy_event(done);
    api.destroy_queue(queue);
}

TEST(SequentialSumVulkan, MatchesThePlainLoopDouble) {
    VMAFX_REQUIRE_BACKEND("vulkan");
    vulkan_rows<double>(23, 160);
}

TEST(SequentialSumVulkan, MatchesThePlainLoopFloat) {
    VMAFX_REQUIRE_BACKEND("vulkan");
    vulkan_rows<float>(25, 80);
}

// A row whose walk adds 600 chunks one term at a time (zeros: the running sum stays +0, so no
// chunk has a binade to be applied in), then chunks it applies: more loop iterations than
// lavapipe lets one shader invocation run (65535), which the walk's dispatches stay below.
TEST(SequentialSumVulkan, LongOneByOneWalk) {
    VMAFX_REQUIRE_BACKEND("vulkan");
    const std::size_t zeros = 600 * ss::kChunk, n = zeros + 20 * ss::kChunk + 77;
    std::mt19937_64 rng(24);
    std::vector<double> host(n, 0.0);
    for (std::size_t i = zeros; i < n; ++i) host[i] = static_cast<double>(rng() % 100000) / 64.0;
    host[zeros / 2] = -0.0;
    const DeviceApi& api = vulkan::api();
    vulkan::SequentialSum<double> sum(n, 1);
    vulkan::DeviceBuffer<double> terms(n);
    vulkan::DeviceBuffer<double> out(1);
    api.copy_2d(terms.at(0), n * sizeof(double), host.data(), n * sizeof(double), n * sizeof(double), 1,
                CopyKind::kHostToDevice, "test terms");
    GpuQueue* queue = api.create_queue();
    GpuEvent* done = api.create_event();
    double got = -1.0;
    sum.enqueue(queue, terms.address(), n, n, 1, out.address());
    vulkan::copy_to_host(queue, &got, out.at(0), sizeof(double), "test sum");
    api.record(done, queue);
    api.host_wait(done);
    api.destroy_event(done);
    api.destroy_queue(queue);
    EXPECT_EQ(bits_of(got), bits_of(plain_sum(host))) << "got " << got << " want " << plain_sum(host);
}

TEST(SequentialSumVulkan, Refusals) {
    VMAFX_REQUIRE_BACKEND("vulkan");
    vulkan::SequentialSum<double> sum(100, 2);
    EXPECT_THROW(sum.enqueue(nullptr, 0, 101, 101, 1, 0), Error);
    EXPECT_THROW(sum.enqueue(nullptr, 0, 10, 9, 1, 0), Error);
    EXPECT_THROW(sum.enqueue(nullptr, 0, 10, 10, 3, 0), Error);
    EXPECT_THROW(vulkan::SequentialSum<double>(0, 1), Error);
    EXPECT_THROW(vulkan::SequentialSum<float>(1, 0), Error);
    EXPECT_THROW(vulkan::SequentialSum<float>(std::size_t{1} << 31, 1), Error);
}

#endif

}  // namespace
}  // namespace vmafx
