// Float PSNR, bit-exact to upstream libvmaf 3.2.0 src/feature/float_psnr.c, psnr.c
// compute_psnr() and picture_copy.c (no SIMD variant upstream). See float_psnr.hpp.
#include "feature/float_psnr/float_psnr.hpp"

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
// picture_copy makes it (float division by `scaler`, 1 at 8 bits), the square in float.
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
    double peak = 0, cap = 0;
    if (!peak_and_cap(format.bit_depth, peak, cap))
        throw Error(fmt::format("float_psnr: bit depth {} is not supported (upstream scores 8, 10, 12 and 16 bits only)",
                                format.bit_depth));
    return std::make_unique<Extractor>(format);
}

}  // namespace

bool peak_and_cap(int bit_depth, double& peak, double& psnr_max) {
    switch (bit_depth) {
    case 8: peak = 255.0, psnr_max = 60.0; return true;
    case 10: peak = 255.75, psnr_max = 72.0; return true;
    case 12: peak = 255.9375, psnr_max = 84.0; return true;
    case 16: peak = 255.99609375, psnr_max = 108.0; return true;
    default: return false;
    }
}

double frame_psnr(const Plane& ref, const Plane& dist, int bit_depth) {
    double peak = 0, psnr_max = 0;
    if (!peak_and_cap(bit_depth, peak, psnr_max))
        throw Error(fmt::format("float_psnr: bit depth {} is not supported", bit_depth));
    const float scaler = scaler_of(bit_depth);
    const double noise = bit_depth == 8 ? noise_sum<std::uint8_t>(ref, dist, scaler)
                                        : noise_sum<std::uint16_t>(ref, dist, scaler);
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
    .name = "float_psnr", .upstream_source = "libvmaf/src/feature/float_psnr.c",
    .options = {}, .features = kFeatures, .planes = PlaneSet::kLuma,
    .limits = {1, 1, 8, 16, ""},
    .create = create};

}  // namespace vmafx::float_psnr
