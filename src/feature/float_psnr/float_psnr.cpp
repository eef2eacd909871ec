// Float PSNR, bit-exact to upstream libvmaf 3.2.0 src/feature/float_psnr.c, psnr.c
// compute_psnr() and picture_copy.c (no SIMD variant upstream). See float_psnr.hpp.
#include "feature/float_psnr/float_psnr.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "feature/float_psnr/float_psnr_math.hpp"

namespace vmafx::float_psnr {

namespace {

constexpr FeatureName kFeatures[] = {{"float_psnr"}};

// The smaller / larger of a and b, written as upstream's MIN / MAX macros.
inline double min_of(double a, double b) { return a < b ? a : b; }
inline double max_of(double a, double b) { return a > b ? a : b; }

// Sum of the squared float differences, rows then columns, as compute_psnr: each sample as
// picture_copy makes it (float division by `scaler`, 1 at 8 bits), the square in float, the
// running sum in double, one add at a time. The reference that exact_noise_sum() reproduces
// where it can, and the path where it cannot.
template <typename Sample>
double noise_sum(const Plane& ref, const Plane& dist, float scaler) {
    double noise = 0;
    for (int y = 0; y < ref.height(); ++y) {
        const Sample* r = ref.row<Sample>(y);
        const Sample* d = dist.row<Sample>(y);
        for (int x = 0; x < ref.width(); ++x) {
            const float diff2 = squared_difference(r[x], d[x], scaler);
            noise += diff2;
        }
    }
    return noise;
}

// Differences whose squares below this bound are exact in float (24 significand bits).
constexpr std::uint32_t kExactSquareBelow = 1u << 12;

// The integer sum of a row's float squared differences, in units of 1/scaler^2 (the squares as
// squared_difference makes them, scaled: a power-of-2 scale commutes with rounding). Partial
// sums go through uint32 in chunks that cannot overflow, so that the compiler vectorizes.
template <typename Sample>
std::uint64_t row_noise(const Sample* r, const Sample* d, int width) {
    std::uint64_t sum = 0;
    std::uint32_t top = 0;
    if constexpr (sizeof(Sample) == 1) {
        top = 0;  // differences of 8-bit samples are below 2^8
    } else {
        for (int x = 0; x < width; ++x) {
            const int diff = static_cast<int>(r[x]) - static_cast<int>(d[x]);
            top = std::max<std::uint32_t>(top, static_cast<std::uint32_t>(diff < 0 ? -diff : diff));
        }
    }
    if (top < kExactSquareBelow) {
        // Squares below 2^24: chunks of 2^8 (2^16 at 8 bits, squares below 2^16) stay below 2^32.
        constexpr int kChunk = sizeof(Sample) == 1 ? 1 << 16 : 1 << 8;
        for (int x0 = 0; x0 < width; x0 += kChunk) {
            const int n = std::min(width - x0, kChunk);
            std::uint32_t a = 0;
            for (int x = 0; x < n; ++x) {
                const int diff = static_cast<int>(r[x0 + x]) - static_cast<int>(d[x0 + x]);
                a += static_cast<std::uint32_t>(diff * diff);
            }
            sum += a;
        }
    } else {
        // Wider differences (16-bit words): the float square, rounded as squared_difference
        // rounds it (scale 1), is a whole number below 2^32.
        for (int x = 0; x < width; ++x) sum += static_cast<std::uint64_t>(squared_difference(r[x], d[x], 1.0f));
    }
    return sum;
}

// noise_sum() computed exactly in integers: every term is a whole, non-negative number of units
// of 1/scaler^2, so every partial sum is a whole number of units no larger than the total; while
// the total is at most 2^53 each partial sum is a double, no add rounds, and the sum is the
// integer total in any order. Returns false (noise unset) where the total exceeds 2^53:
// noise_sum() then adds one term at a time.
template <typename Sample>
bool exact_noise_sum(const Plane& ref, const Plane& dist, float scaler, double& noise) {
    std::uint64_t sum = 0;
    for (int y = 0; y < ref.height(); ++y) sum += row_noise(ref.row<Sample>(y), dist.row<Sample>(y), ref.width());
    if (sum > (std::uint64_t{1} << 53)) return false;
    const double unit = 1.0 / static_cast<double>(scaler);  // a power of 2: exact
    noise = static_cast<double>(sum) * (unit * unit);
    return true;
}

template <typename Sample>
double frame_noise(const Plane& ref, const Plane& dist, float scaler) {
    double noise = 0;
    if (!exact_noise_sum<Sample>(ref, dist, scaler, noise)) noise = noise_sum<Sample>(ref, dist, scaler);
    return noise;
}

class Extractor final : public FeatureExtractor {
public:
    explicit Extractor(const VideoFormat& format) : format_(format) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        const Plane& ref = in.ref->luma();
        const Plane& dist = in.dist->luma();
        if (ref.width() != format_.width || ref.height() != format_.height || dist.width() != ref.width() ||
            dist.height() != ref.height())
            throw Error(fmt::format("float_psnr: luma is {}x{} / {}x{}, expected {}x{}", ref.width(), ref.height(),
                                    dist.width(), dist.height(), format_.width, format_.height));
        out.emplace_back("float_psnr", frame_psnr(ref, dist, format_.bit_depth));
    }

private:
    VideoFormat format_;
};

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    (void)options;
    return std::make_unique<Extractor>(format);
}

}  // namespace

double frame_psnr(const Plane& ref, const Plane& dist, int bit_depth) {
    double peak = 0, psnr_max = 0;
    if (!peak_and_cap(bit_depth, peak, psnr_max))
        throw Error(fmt::format("float_psnr: bit depth {} is not supported", bit_depth));
    const float scaler = scaler_of(bit_depth);
    const double noise = bit_depth == 8 ? frame_noise<std::uint8_t>(ref, dist, scaler)
                                        : frame_noise<std::uint16_t>(ref, dist, scaler);
    return psnr_of_noise(noise, ref.width(), ref.height(), bit_depth);
}

double psnr_of_noise(double noise, int width, int height, int bit_depth) {
    double peak = 0, psnr_max = 0;
    if (!peak_and_cap(bit_depth, peak, psnr_max))
        throw Error(fmt::format("float_psnr: bit depth {} is not supported", bit_depth));
    noise /= width * height;
    return min_of(10 * std::log10(peak * peak / max_of(noise, 1e-10)), psnr_max);
}

const MetricDescriptor descriptor{
    .name = "float_psnr", .oracle = {kLibvmaf, "libvmaf/src/feature/float_psnr.c"},
    .options = {}, .features = kFeatures, .planes = nullptr,
    .limits = {1, 1, kWholeUnitBitDepths, ""},
    .create = create};

}  // namespace vmafx::float_psnr
