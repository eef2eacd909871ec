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

constexpr double kPi = 3.14159265358979323846;  // M_PI

/// Upstream's chroma row pitch in samples (vmaf_picture_alloc: the width rounded up to 32).
constexpr int kRowAlign = 32;

/// Widest 4:2:2 picture of one row upstream reads inside its chroma planes (see chroma_at).
constexpr int kMaxWidthOneRow422 = 32;

double sq(double x) { return x * x; }  // upstream pow(x, 2), as compiled

/// powf(25., 7) as upstream's compiler folds it: 25^7 = 6103515625 rounded to float.
constexpr float kPowf25To7 = 6103515648.0f;

float h_prime(float x, float y) {
    if (x == 0.0 && y == 0.0) return 0.0;
    float hue = static_cast<float>(std::atan2(static_cast<double>(x), static_cast<double>(y)));
    if (hue < 0.0) hue = static_cast<float>(hue + 2. * kPi);
    return hue;
}

float delta_h_prime(float c1, float c2, float h1, float h2) {
    if (c1 == 0.0 || c2 == 0.0) return 0.0;
    if (std::fabs(h1 - h2) <= kPi) return h2 - h1;
    if (h2 <= h1) return static_cast<float>((h2 - h1) + 2. * kPi);
    return static_cast<float>((h2 - h1) - 2. * kPi);
}

float upcase_h_bar_prime(float h1, float h2) {
    const double d = std::fabs(static_cast<double>(h1 - h2));
    return static_cast<float>(d > kPi ? ((h1 + h2) + 2.0 * kPi) / 2.0 : static_cast<double>(h1 + h2) / 2.0);
}

float upcase_t(float hbp) {
    const double h = hbp;
    return static_cast<float>(1.0 - 0.17 * std::cos(h - kPi / 6.0) + 0.24 * std::cos(2.0 * h) +
                              0.32 * std::cos(3.0 * h + kPi / 30.0) - 0.20 * std::cos(4.0 * h - 7.0 * kPi / 20.0));
}

float radians_to_degrees(float radians) { return static_cast<float>(radians * (180.0 / kPi)); }
float degrees_to_radians(float degrees) { return static_cast<float>(degrees * (kPi / 180.0)); }

float r_sub_t(float c_bar_prime, float hbp) {
    const float degrees = static_cast<float>((radians_to_degrees(hbp) - 275.0) * (1.0 / 25.0));
    const float c7 = libm::powf(c_bar_prime, 7.0f);
    const float ratio = c7 / (c7 + kPowf25To7);
    const float neg_sq = -(degrees * degrees);
    const float angle = degrees_to_radians(static_cast<float>(60.0 * libm::exp(static_cast<double>(neg_sq))));
    return static_cast<float>(-2.0 * std::sqrt(static_cast<double>(ratio)) * std::sin(static_cast<double>(angle)));
}

double srgb_to_linear(double c) {  // rgb_to_xyz_map
    if (c > 10. / 255.) {
        const double a = 0.055;
        const double d = 1.0 / 1.055;
        return std::pow((c + a) * d, 2.4);
    }
    const double d = 1.0 / 12.92;
    return c * d;
}

float lab_f(double c) {  // xyz_to_lab_map
    const double kappa = 24389.0 / 27.0;
    const double epsilon = 216.0 / 24389.0;
    if (c > epsilon) return static_cast<float>(std::pow(c, 1.0 / 3.0));
    return static_cast<float>((kappa * c + 16.0) * (1.0 / 116.0));
}

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
        const unsigned area = static_cast<unsigned>(format_.width) * static_cast<unsigned>(format_.height);
        out.emplace_back(settings_.name, 45. - 20. * std::log10(sum / area));
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
    const double scale = 1 << (bit_depth - 8);
    y = (y - 16. * scale) * (1. / (219. * scale));
    u = (u - 128. * scale) * (1. / (224. * scale));
    v = (v - 128. * scale) * (1. / (224. * scale));

    double r = y + 1.28033 * v;
    double g = y - 0.21482 * u - 0.38059 * v;
    double b = y + 2.12798 * u;
    r = srgb_to_linear(r);
    g = srgb_to_linear(g);
    b = srgb_to_linear(b);

    double x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
    y = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
    double z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;

    x = lab_f(x * (1.0 / 0.95047));
    y = lab_f(y);
    z = lab_f(z * (1.0 / 1.08883));

    return {static_cast<float>((116.0 * y) - 16.0), static_cast<float>(500.0 * (x - y)),
            static_cast<float>(200.0 * (y - z))};
}

float delta_e_2000(const Lab& c1, const Lab& c2) {
    const float k_l = static_cast<float>(0.65);
    const float k_c = static_cast<float>(1.0);
    const float k_h = static_cast<float>(4.0);
    const double pow25_7 = 6103515625.0;  // pow(25, 7), exact

    const float delta_l_prime = c2.l - c1.l;
    const float l_bar = (c1.l + c2.l) / 2;
    const float ch1 = static_cast<float>(std::sqrt(sq(c1.a) + sq(c1.b)));
    const float ch2 = static_cast<float>(std::sqrt(sq(c2.a) + sq(c2.b)));
    const float c_bar = (ch1 + ch2) / 2;
    const double c_bar7 = std::pow(static_cast<double>(c_bar), 7.0);  // upstream: four equal calls
    const double g = 1 - std::sqrt(c_bar7 / (c_bar7 + pow25_7));
    const float a_prime_1 = static_cast<float>(c1.a + (c1.a / 2) * g);
    const float a_prime_2 = static_cast<float>(c2.a + (c2.a / 2) * g);
    const float c_prime_1 = static_cast<float>(std::sqrt(sq(a_prime_1) + sq(c1.b)));
    const float c_prime_2 = static_cast<float>(std::sqrt(sq(a_prime_2) + sq(c2.b)));
    const float c_bar_prime = (c_prime_1 + c_prime_2) / 2;
    const float delta_c_prime = c_prime_2 - c_prime_1;
    const float l50 = l_bar - 50;
    const float s_sub_l = static_cast<float>(1. + ((0.015 * sq(l50)) / std::sqrt(20 + sq(l50))));
    const float s_sub_c = static_cast<float>(1. + 0.045 * c_bar_prime);
    const float h_prime_1 = h_prime(c1.b, a_prime_1);
    const float h_prime_2 = h_prime(c2.b, a_prime_2);
    const float dhp = delta_h_prime(ch1, ch2, h_prime_1, h_prime_2);
    const float delta_upcase_h_prime = static_cast<float>(
        2.0 * std::sqrt(static_cast<double>(c_prime_1 * c_prime_2)) * std::sin(static_cast<double>(dhp) / 2.0));
    const float hbp = upcase_h_bar_prime(h_prime_1, h_prime_2);
    const float t = upcase_t(hbp);
    const float s_sub_upcase_h = static_cast<float>(1.0 + 0.015 * c_bar_prime * t);
    const float rt = r_sub_t(c_bar_prime, hbp);
    const float lightness = delta_l_prime / (k_l * s_sub_l);
    const float chroma = delta_c_prime / (k_c * s_sub_c);
    const float hue = delta_upcase_h_prime / (k_h * s_sub_upcase_h);

    return static_cast<float>(std::sqrt(sq(lightness) + sq(chroma) + sq(hue) + rt * chroma * hue));
}

float chroma_at(const Plane& chroma, Subsampling s, int x, int y) {
    if (s == Subsampling::k444) return static_cast<float>(chroma.at(x, y));
    if (s == Subsampling::k420) return static_cast<float>(chroma.at(x / 2, y / 2));
    // 4:2:2: sample x of the flat memory from row y / 2 on, rows kRowAlign-aligned apart.
    const int cw = chroma.width();
    const int pitch = (cw + kRowAlign - 1) / kRowAlign * kRowAlign;
    const int row = y / 2 + x / pitch;
    const int col = x % pitch;
    if (col >= cw) return 0.0f;  // upstream's zeroed padding
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
