// Float moments, bit-exact to upstream libvmaf 3.2.0 src/feature/float_moment.c, moment.c
// and picture_copy.c (no SIMD variant upstream). See float_moment.hpp.
#include "feature/float_moment/float_moment.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "feature/float_moment/float_moment_math.hpp"

namespace vmafx::float_moment {

namespace {

constexpr const char* kRef1st = "float_moment_ref1st";
constexpr const char* kDis1st = "float_moment_dis1st";
constexpr const char* kRef2nd = "float_moment_ref2nd";
constexpr const char* kDis2nd = "float_moment_dis2nd";

constexpr FeatureName kFeatures[] = {{kRef1st}, {kDis1st}, {kRef2nd}, {kDis2nd}};

// Sums of x and of (float)(x * x) in double, rows then columns, x as picture_copy makes it
// (float division by `scaler`, 1 at 8 bits): the CPU's running sums, one add at a time. The
// reference that exact_sums() reproduces where it can, and the path where it cannot.
template <typename Sample>
void sums(const Plane& plane, float scaler, double& first, double& second) {
    first = 0;
    second = 0;
    for (int y = 0; y < plane.height(); ++y) {
        const Sample* row = plane.row<Sample>(y);
        for (int x = 0; x < plane.width(); ++x) {
            const float v = sample_value(row[x], scaler);
            first += v;
            const float v2 = square_term(v);
            second += v2;
        }
    }
}

// Samples whose squares below this bound are exact in float (24 significand bits).
constexpr std::uint32_t kExactSquareBelow = 1u << 12;

// Integer sums of a row of samples and of their float squares, in units of 1/scaler and
// 1/scaler^2 (the squares as square_term makes them, scaled: a power-of-2 scale commutes with
// rounding). Partial sums go through uint32 in chunks that cannot overflow, so that the compiler
// vectorizes the loops.
template <typename Sample>
void add_row(const Sample* row, int width, std::uint64_t& s1, std::uint64_t& s2) {
    constexpr int kChunk1 = 1 << 16;  // 2^16 samples of at most 2^16 - 1: below 2^32
    for (int x0 = 0; x0 < width; x0 += kChunk1) {
        const int n = std::min(width - x0, kChunk1);
        std::uint32_t a = 0;
        for (int x = 0; x < n; ++x) a += row[x0 + x];
        s1 += a;
    }
    std::uint32_t top = 0;
    for (int x = 0; x < width; ++x) top = std::max<std::uint32_t>(top, row[x]);
    if (top < kExactSquareBelow) {
        // Squares below 2^24: chunks of 2^8 (2^16 at 8 bits, squares below 2^16) stay below 2^32.
        constexpr int kChunk2 = sizeof(Sample) == 1 ? 1 << 16 : 1 << 8;
        for (int x0 = 0; x0 < width; x0 += kChunk2) {
            const int n = std::min(width - x0, kChunk2);
            std::uint32_t a = 0;
            for (int x = 0; x < n; ++x) a += std::uint32_t{row[x0 + x]} * row[x0 + x];
            s2 += a;
        }
    } else {
        // Wider samples (16-bit words): the float square, rounded as square_term rounds it, is
        // a whole number below 2^32.
        for (int x = 0; x < width; ++x) {
            const float v = static_cast<float>(row[x]);
            s2 += static_cast<std::uint64_t>(square_term(v));
        }
    }
}

// The running double sums of sums() computed exactly in integers: every term is a whole number
// of units (1/scaler for the samples, 1/scaler^2 for their squares) and non-negative, so every
// partial sum is a whole number of units no larger than the total; while the total is at most
// 2^53 each partial sum is a double, no add rounds, and the sums are the integer totals in any
// order. Returns false (first and second unset) where a total exceeds 2^53: sums() then adds one
// term at a time.
template <typename Sample>
bool exact_sums(const Plane& plane, float scaler, double& first, double& second) {
    std::uint64_t s1 = 0, s2 = 0;
    for (int y = 0; y < plane.height(); ++y) add_row(plane.row<Sample>(y), plane.width(), s1, s2);
    constexpr std::uint64_t kExactDoubles = std::uint64_t{1} << 53;
    if (s1 > kExactDoubles || s2 > kExactDoubles) return false;
    const double unit = 1.0 / static_cast<double>(scaler);  // a power of 2: exact
    first = static_cast<double>(s1) * unit;
    second = static_cast<double>(s2) * (unit * unit);
    return true;
}

class Extractor final : public FeatureExtractor {
public:
    explicit Extractor(const VideoFormat& format) : format_(format) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        double ref1 = 0, ref2 = 0, dis1 = 0, dis2 = 0;
        moments(in.ref, "reference", ref1, ref2);
        moments(in.dist, "distorted", dis1, dis2);
        out.emplace_back(kRef1st, ref1);
        out.emplace_back(kDis1st, dis1);
        out.emplace_back(kRef2nd, ref2);
        out.emplace_back(kDis2nd, dis2);
    }

private:
    void moments(const Picture* pic, const char* what, double& first, double& second) const {
        const Plane& luma = pic->luma();
        if (luma.width() != format_.width || luma.height() != format_.height)
            throw Error(fmt::format("float_moment: {} luma is {}x{}, expected {}x{}", what, luma.width(),
                                    luma.height(), format_.width, format_.height));
        plane_moments(luma, format_.bit_depth, first, second);
    }

    VideoFormat format_;
};

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    (void)options;
    return std::make_unique<Extractor>(format);
}

}  // namespace

void plane_moments(const Plane& plane, int bit_depth, double& first, double& second) {
    const float scaler = scaler_of(bit_depth);
    if (scaler == 0.0f) throw Error(fmt::format("float_moment: bit depth {} is not supported", bit_depth));
    if (bit_depth == 8) {
        if (!exact_sums<std::uint8_t>(plane, scaler, first, second)) sums<std::uint8_t>(plane, scaler, first, second);
    } else if (!exact_sums<std::uint16_t>(plane, scaler, first, second)) {
        sums<std::uint16_t>(plane, scaler, first, second);
    }
    finish_moments(first, second, plane.width(), plane.height());
}

void finish_moments(double& first, double& second, int width, int height) {
    const int n = width * height;
    first /= n;
    second /= n;
}

const MetricDescriptor descriptor{
    .name = "float_moment", .oracle = {kLibvmaf, "libvmaf/src/feature/float_moment.c"},
    .options = {}, .features = kFeatures, .planes = nullptr,
    .limits = {1, 1, kWholeUnitBitDepths, ""},
    .create = create};

}  // namespace vmafx::float_moment
