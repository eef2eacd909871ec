// CPU reference of ciede (see ciede.hpp). Every float and double where upstream's ciede.c has
// one, and its libm calls: upstream's pow(x, 2) and powf(x, 2) are compiled (GCC) into x * x,
// and its powf(25., 7) into a constant, so those are written so here; every other pow, powf,
// sqrt, atan2, sin, cos, exp and log10 is the double (or float) call upstream makes, exp and
// powf by base/libm (glibc 2.36's bits on any host).
#include "feature/ciede/ciede.hpp"

#include "base/libm.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

namespace vmafx::ciede {

namespace {

constexpr FeatureName kFeatures[] = {{"ciede2000"}};

/// Widest 4:2:2 picture of one row upstream reads inside its chroma planes (see chroma_at).
constexpr int kMaxWidthOneRow422 = 32;

/// The CPU's arithmetic for ciede_formula.hpp: doubles, the library calls as upstream makes
/// them (exp and powf vmafx's own, base/libm.hpp; pow, atan2, sin and cos the host's).
struct HostMath {
    using D = double;
    static double pow(double x, double y) { return std::pow(x, y); }
    static double atan2(double y, double x) { return std::atan2(y, x); }
    static double sin(double x) { return std::sin(x); }
    static double cos(double x) { return std::cos(x); }
    static double exp(double x) { return libm::exp(x); }
    static double sqrt(double x) { return std::sqrt(x); }
    static float powf(float x, float y) { return libm::powf(x, y); }
    static float to_float(double x) { return static_cast<float>(x); }
    static bool greater(double x, double c) { return x > c; }
};

/// Upstream's 4:4:4 Cb or Cr row y of `chroma` for a picture `width` wide (see chroma_at), as
/// floats.
template <typename Sample>
void chroma_row(const Plane& chroma, Subsampling s, int width, int y, float* out) {
    if (s == Subsampling::k444) {
        const Sample* in = chroma.row<Sample>(y);
        for (int x = 0; x < width; ++x) out[x] = static_cast<float>(in[x]);
    } else if (s == Subsampling::k420) {
        const Sample* in = chroma.row<Sample>(y / 2);
        for (int x = 0; x < width; ++x) out[x] = static_cast<float>(in[x / 2]);
    } else {
        for (int x = 0; x < width; ++x) out[x] = chroma_at(chroma, s, x, y);
    }
}

template <typename Sample>
double sum_of_differences(const Picture& ref, const Picture& dist, const VideoFormat& f) {
    std::vector<float> rows(static_cast<std::size_t>(f.width) * 4);
    float* ru = rows.data();
    float* rv = ru + f.width;
    float* du = rv + f.width;
    float* dv = du + f.width;
    double sum = 0.;
    for (int i = 0; i < f.height; ++i) {
        chroma_row<Sample>(ref.planes[1], f.subsampling, f.width, i, ru);
        chroma_row<Sample>(ref.planes[2], f.subsampling, f.width, i, rv);
        chroma_row<Sample>(dist.planes[1], f.subsampling, f.width, i, du);
        chroma_row<Sample>(dist.planes[2], f.subsampling, f.width, i, dv);
        const Sample* ry = ref.planes[0].row<Sample>(i);
        const Sample* dy = dist.planes[0].row<Sample>(i);
        for (int j = 0; j < f.width; ++j) {
            const float r_y = static_cast<float>(ry[j]);
            const float d_y = static_cast<float>(dy[j]);
            const Lab c1 = lab_of(r_y, ru[j], rv[j], f.bit_depth);
            const Lab c2 = lab_of(d_y, du[j], dv[j], f.bit_depth);
            const float de00 = delta_e_2000(c1, c2);
            sum += de00;
        }
    }
    return sum;
}

class Extractor final : public FeatureExtractor {
public:
    Extractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        const double sum = format_.bit_depth == 8 ? sum_of_differences<std::uint8_t>(*in.ref, *in.dist, format_)
                                                  : sum_of_differences<std::uint16_t>(*in.ref, *in.dist, format_);
        out.emplace_back(settings_.name, score_of_sum(sum, format_.width, format_.height));
    }

private:
    VideoFormat format_;
    Settings settings_;
};

// The descriptor's `refuse`: a 4:2:2 picture one row high and wider than kMaxWidthOneRow422.
void refuse(const Options& options, const VideoFormat& format) {
    (void)options;
    if (format.subsampling == Subsampling::k422 && format.height == 1 && format.width > kMaxWidthOneRow422)
        throw Error(fmt::format("ciede: 4:2:2 picture {}x{} is not supported: one row high, it must be at most {} "
                                "wide (upstream's chroma upsampling reads beyond the chroma planes)",
                                format.width, format.height, kMaxWidthOneRow422));
}

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    return std::make_unique<Extractor>(options, format);
}

}  // namespace

Lab lab_of(double y, double u, double v, int bit_depth) {
    HostMath m;
    return formula::lab_of(m, y, u, v, bit_depth);
}

float delta_e_2000(const Lab& c1, const Lab& c2) {
    HostMath m;
    return formula::delta_e_2000(m, c1, c2);
}

double score_of_sum(double sum, int width, int height) {
    const unsigned area = static_cast<unsigned>(width) * static_cast<unsigned>(height);
    return 45. - 20. * std::log10(sum / area);
}

float pixel_difference(const PixelSamples& s, int bit_depth) {
    return delta_e_2000(lab_of(s.ref[0], s.ref[1], s.ref[2], bit_depth), lab_of(s.dist[0], s.dist[1], s.dist[2], bit_depth));
}

float chroma_at(const Plane& chroma, Subsampling s, int x, int y) {
    int col = 0, row = 0;
    if (!chroma_position(static_cast<int>(s), chroma.width(), x, y, col, row)) return 0.0f;  // 4:2:2 padding
    if (row >= chroma.height())
        throw Error(fmt::format("ciede: 4:2:2 chroma sample ({}, {}) reads beyond the plane", x, y));
    return static_cast<float>(chroma.at(col, row));
}

Settings::Settings(const Options& options) : name(options.feature_name("ciede2000")) { options.bind(*this); }

const MetricDescriptor descriptor{
    .name = "ciede", .oracle = {kLibvmaf, "libvmaf/src/feature/ciede.c"},
    .options = {}, .features = kFeatures, .planes = all_planes, .history = nullptr,
    .limits = {1, 1, kWholeUnitBitDepths, ""},
    .refuse = refuse, .create = create};

}  // namespace vmafx::ciede
