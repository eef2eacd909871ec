// CPU reference of float_ansnr (see float_ansnr.hpp). Every float and double where upstream
// (ansnr.c, ansnr_tools.c, picture_copy.c) has one, in the same order. The picture copy is
// float_image's to_float, the peak table common/float_psnr_peak.hpp's (upstream's two init()s agree).
#include "feature/float_ansnr/float_ansnr.hpp"

#include "feature/common/float_image.hpp"
#include "feature/common/float_psnr_peak.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace vmafx::float_ansnr {

namespace {

constexpr FeatureName kFeatures[] = {{"float_ansnr"}};

/// Border reach of the larger (5x5) filter: the smallest plane side it reads inside.
constexpr int kMinSide = 3;

/// The reference's 3x3 kernel (ansnr_filter2d_ref_s): double quotients rounded to float.
constexpr float kRefKernel[9] = {
    static_cast<float>(1.0 / 16.0), static_cast<float>(2.0 / 16.0), static_cast<float>(1.0 / 16.0),
    static_cast<float>(2.0 / 16.0), static_cast<float>(4.0 / 16.0), static_cast<float>(2.0 / 16.0),
    static_cast<float>(1.0 / 16.0), static_cast<float>(2.0 / 16.0), static_cast<float>(1.0 / 16.0)};

/// The distorted picture's 5x5 kernel (ansnr_filter2d_dis_s), weights n / 571.
constexpr float w571(double n) { return static_cast<float>(n / 571.0); }
constexpr float kDistKernel[25] = {
    w571(2.0),  w571(7.0),  w571(12.0),  w571(7.0),  w571(2.0),   //
    w571(7.0),  w571(31.0), w571(52.0),  w571(31.0), w571(7.0),   //
    w571(12.0), w571(52.0), w571(127.0), w571(52.0), w571(12.0),  //
    w571(7.0),  w571(31.0), w571(52.0),  w571(31.0), w571(7.0),   //
    w571(2.0),  w571(7.0),  w571(12.0),  w571(7.0),  w571(2.0)};

/// Upstream's mirror (not replicate) of an index outside [0, n): -k reads k, n-1+k reads n-k.
int reflect(int k, int n) {
    if (k < 0) return -k;
    if (k >= n) return 2 * n - k - 1;
    return k;
}

using floatimg::Image;

/// ansnr_filter2d_s: the Taps x Taps kernel `f` over `src`, mirrored borders; per output
/// sample, each kernel row summed into its own float, then the rows' sums in order.
template <int Taps>
Image filter2d(const float* f, const Image& src) {
    constexpr int r = Taps / 2;
    const int w = src.width;
    const int h = src.height;
    Image dst(w, h);
    std::vector<int> cols(static_cast<std::size_t>(w) + 2 * r);  // cols[j + fj]: column of tap fj
    for (int k = 0; k < w + 2 * r; ++k) cols[static_cast<std::size_t>(k)] = reflect(k - r, w);
    for (int i = 0; i < h; ++i) {
        const float* rows[Taps];
        for (int fi = 0; fi < Taps; ++fi) rows[fi] = src.row(reflect(i - r + fi, h));
        float* out = dst.row(i);
        for (int j = 0; j < w; ++j) {
            const int* c = cols.data() + j;
            float accum = 0;
            for (int fi = 0; fi < Taps; ++fi) {
                float accum_inner = 0;
                for (int fj = 0; fj < Taps; ++fj) accum_inner += f[fi * Taps + fj] * rows[fi][c[fj]];
                accum += accum_inner;
            }
            out[j] = accum;
        }
    }
    return dst;
}

/// ansnr_mse_s: sig = sum ref^2, noise = sum (ref - dis)^2, float sums per row, then over rows.
void mse(const Image& ref, const Image& dis, float& sig, float& noise) {
    float sig_accum = 0;
    float noise_accum = 0;
    for (int i = 0; i < ref.height; ++i) {
        const float* r = ref.row(i);
        const float* d = dis.row(i);
        float sig_inner = 0;
        float noise_inner = 0;
        for (int j = 0; j < ref.width; ++j) {
            sig_inner += r[j] * r[j];
            noise_inner += (r[j] - d[j]) * (r[j] - d[j]);
        }
        sig_accum += sig_inner;
        noise_accum += noise_inner;
    }
    sig = sig_accum;
    noise = noise_accum;
}

class Extractor final : public FeatureExtractor {
public:
    Extractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        const Scores s = compute(in.ref->luma(), in.dist->luma(), format_.bit_depth);
        out.emplace_back(settings_.ansnr_name, s.ansnr);
        out.emplace_back(settings_.anpsnr_name, s.anpsnr);
    }

private:
    VideoFormat format_;
    Settings settings_;
};

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    return std::make_unique<Extractor>(options, format);
}

}  // namespace

Scores compute(const Plane& ref, const Plane& dist, int bit_depth) {
    double peak = 0.0;
    double psnr_max = 0.0;
    if (!float_psnr::peak_and_cap(bit_depth, peak, psnr_max))
        throw Error(fmt::format("float_ansnr: bit depth {} is not supported (8, 10, 12 or 16)", bit_depth));
    const int w = ref.width();
    const int h = ref.height();
    if (dist.width() != w || dist.height() != h || w < kMinSide || h < kMinSide)
        throw Error(fmt::format("float_ansnr: planes {}x{} and {}x{}: need two equal planes of at least {}x{}", w, h,
                                dist.width(), dist.height(), kMinSide, kMinSide));
    const Image r = floatimg::to_float(ref, bit_depth);
    const Image d = floatimg::to_float(dist, bit_depth);
    const Image ref_filtered = filter2d<3>(kRefKernel, r);
    const Image dist_filtered = filter2d<5>(kDistKernel, d);
    float sig = 0;
    float noise = 0;
    mse(ref_filtered, dist_filtered, sig, noise);

    Scores s;
    // The quotient is a float (as upstream), widened for log10.
    s.ansnr = noise == 0 ? psnr_max : 10.0 * std::log10(static_cast<double>(sig / noise));
    const double eps = 1e-10;
    const double floor_noise = static_cast<double>(noise) > eps ? static_cast<double>(noise) : eps;
    const double anpsnr = 10 * std::log10(peak * peak * w * h / floor_noise);
    s.anpsnr = anpsnr < psnr_max ? anpsnr : psnr_max;
    return s;
}

Settings::Settings(const Options& options)
    : ansnr_name(options.feature_name("float_ansnr")), anpsnr_name(options.feature_name("float_anpsnr")) {
    options.bind(*this);
}

const MetricDescriptor descriptor{
    .name = "float_ansnr", .oracle = {kLibvmaf, "libvmaf/src/feature/float_ansnr.c, ansnr.c, ansnr_tools.c"},
    .options = {}, .features = kFeatures, .planes = nullptr, .history = nullptr,
    .limits = {kMinSide, kMinSide, kWholeUnitBitDepths,
               "(the 5x5 mirrored filter reads two samples beyond each border; upstream reads outside its buffers "
               "below)"},
    .create = create};

}  // namespace vmafx::float_ansnr
