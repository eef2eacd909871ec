// Float moments, bit-exact to upstream libvmaf 3.2.0 src/feature/float_moment.c, moment.c
// and picture_copy.c (no SIMD variant upstream). See float_moment.hpp.
#include "feature/float_moment/float_moment.hpp"

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

bool upstream_depth(int bits) { return bits == 8 || bits == 10 || bits == 12 || bits == 16; }

// Sums of x and of (float)(x * x) in double, rows then columns, x as picture_copy makes it
// (float division by `scaler`, 1 at 8 bits).
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
    if (!upstream_depth(format.bit_depth))
        throw Error(fmt::format(
            "float_moment: bit depth {} is not supported (upstream scores 8, 10, 12 and 16 bits only)",
            format.bit_depth));
    return std::make_unique<Extractor>(format);
}

}  // namespace

void plane_moments(const Plane& plane, int bit_depth, double& first, double& second) {
    const float scaler = scaler_of(bit_depth);
    if (scaler == 0.0f) throw Error(fmt::format("float_moment: bit depth {} is not supported", bit_depth));
    if (bit_depth == 8) sums<std::uint8_t>(plane, scaler, first, second);
    else sums<std::uint16_t>(plane, scaler, first, second);
    finish_moments(first, second, plane.width(), plane.height());
}

void finish_moments(double& first, double& second, int width, int height) {
    const int n = width * height;
    first /= n;
    second /= n;
}

const MetricDescriptor descriptor{
    .name = "float_moment", .upstream_source = "libvmaf/src/feature/float_moment.c",
    .options = {}, .features = kFeatures, .planes = PlaneSet::kLuma,
    .limits = {1, 1, 8, 16, ""},
    .create = create};

}  // namespace vmafx::float_moment
