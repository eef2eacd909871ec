// The harness of the SIMD kernel tests (docs/design.md, "SIMD convention"): random planes
// and rows, the cases every kernel runs over, and the registration of each metric's rows.
// Each metric's checks live beside its kernels (src/feature/<metric>/<metric>_simd_test.cpp,
// or <file>_simd_test.cpp beside a shared kernel file) and register their rows with
// VMAFX_SIMD_KERNELS; tests/test_simd_kernels.cpp runs every registered row on every target.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace vmafx::simd_test {

using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint8_t;

constexpr int kBitDepths[] = {8, 10, 12, 16};

/// Widths from `smallest` to 70, then some larger ones (around multiples of every vector
/// length, and an odd large one).
inline std::vector<int> widths_from(int smallest) {
    std::vector<int> out;
    for (int w = std::max(smallest, 1); w <= 70; ++w) out.push_back(w);
    for (int w : {95, 96, 97, 127, 128, 129, 255, 256, 257, 641}) out.push_back(w);
    return out;
}

/// Content of a random plane: how its samples are drawn.
enum class Content { kUniform, kExtremes, kSmooth, kFlatWithSpikes };
constexpr Content kContents[] = {Content::kUniform, Content::kExtremes, Content::kSmooth, Content::kFlatWithSpikes};

/// A plane of `width` x `height` samples of type T below 2^bits, each row followed by `slack`
/// samples of random junk (what a kernel may read past the row but must ignore); the last row's
/// slack ends the allocation, so AddressSanitizer sees any read beyond it.
template <typename T>
struct TestPlane {
    int width, height, stride;
    std::vector<T> data;

    TestPlane(int w, int h, int bits, Content content, std::mt19937& rng, int slack = 32)
        : width(w), height(h), stride(w + slack), data(static_cast<std::size_t>(stride) * h) {
        const uint32_t max = (1u << bits) - 1;
        std::uniform_int_distribution<uint32_t> any(0, max);
        std::uniform_int_distribution<uint32_t> junk(0, sizeof(T) == 1 ? 255 : 65535);
        const uint32_t base = any(rng);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < stride; ++x) {
                uint32_t v = 0;
                if (x >= w) {
                    v = junk(rng);
                } else {
                    switch (content) {
                    case Content::kUniform: v = any(rng); break;
                    case Content::kExtremes: v = rng() % 2 ? max : 0; break;
                    case Content::kSmooth: v = std::min<uint32_t>(max, (base + x * 3 + y * 5) % (max + 1) + rng() % 3); break;
                    case Content::kFlatWithSpikes: v = rng() % 13 == 0 ? any(rng) : base; break;
                    }
                }
                data[static_cast<std::size_t>(y) * stride + x] = static_cast<T>(v);
            }
    }
    const T* row(int y) const { return data.data() + static_cast<std::size_t>(y) * stride; }
    T* row(int y) { return data.data() + static_cast<std::size_t>(y) * stride; }
};

/// The seed of one case, so that a failure names what to replay.
struct Case {
    int bits;
    int width;
    int height;
    Content content;
    unsigned seed;
};

inline std::string describe(const Case& c) {
    return "bits " + std::to_string(c.bits) + ", " + std::to_string(c.width) + "x" + std::to_string(c.height) +
           ", content " + std::to_string(static_cast<int>(c.content)) + ", seed " + std::to_string(c.seed);
}

/// Runs `body(case)` over bit depths, contents and the widths from `smallest`, with one odd
/// height per case.
inline void for_cases(int smallest, int min_height, const std::function<void(const Case&)>& body) {
    unsigned seed = 1;
    for (const int bits : kBitDepths)
        for (const Content content : kContents)
            for (const int width : widths_from(smallest)) {
                const int height = min_height + 2 * static_cast<int>(seed % 3);  // odd when min_height is
                body({bits, width, height, content, seed++});
                if (::testing::Test::HasFailure()) return;  // one failing case is enough to read
            }
}

/// Random values of type T: uniform over the type, extremes, small, or around one value.
template <typename T>
std::vector<T> random_row(std::size_t n, Content content, std::mt19937& rng) {
    using Limits = std::numeric_limits<T>;
    std::vector<T> out(n);
    const T base = static_cast<T>(rng());
    for (T& v : out) {
        switch (content) {
        case Content::kUniform: v = static_cast<T>(rng()); break;
        case Content::kExtremes: v = rng() % 3 == 0 ? Limits::min() : (rng() % 2 ? Limits::max() : T{0}); break;
        case Content::kSmooth: v = static_cast<T>(static_cast<int>(rng() % 64) - 32); break;
        case Content::kFlatWithSpikes: v = rng() % 13 == 0 ? static_cast<T>(rng()) : base; break;
        }
    }
    return out;
}

/// Runs body(width, rng, content) over every width from 1 to 70 and the larger ones, for each
/// content (the level 0 kernels of decouple, CSF, denominator and masking take 16-bit inputs
/// whatever the video's bit depth).
inline void for_rows(const std::function<void(int, std::mt19937&, Content)>& body) {
    unsigned seed = 5000;
    for (const Content content : kContents)
        for (const int width : widths_from(1)) {
            std::mt19937 rng(seed++);
            body(width, rng, content);
            if (::testing::Test::HasFailure()) return;
        }
}

/// One row of the table: a kernel checked on every target.
struct Kernel {
    /// The test's name (unique over all metrics).
    const char* name;
    /// The Highway target the kernel's file dispatches to now.
    int64_t (*target)();
    /// Runs the scalar reference and the dispatched entry on the same inputs; fails on any
    /// differing output.
    void (*check)();
};

/// Every registered row, in registration order (tests/test_simd_kernels.cpp).
std::vector<Kernel>& kernels();

/// Adds its rows to kernels() at static initialization (VMAFX_SIMD_KERNELS).
struct Registration {
    Registration(std::initializer_list<Kernel> rows) { kernels().insert(kernels().end(), rows); }
};

}  // namespace vmafx::simd_test

/// Registers a metric's kernel rows: VMAFX_SIMD_KERNELS(group, {"name", target, check}, ...);
/// `group` names the registration (one per file).
#define VMAFX_SIMD_KERNELS(group, ...) \
    static const ::vmafx::simd_test::Registration vmafx_simd_kernels_##group({__VA_ARGS__})
