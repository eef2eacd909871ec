// CPU reference of float_ansnr (see float_ansnr.hpp). Every float and double where upstream
// (ansnr.c, ansnr_tools.c, picture_copy.c) has one, in the same order. The picture copy is
// float_image's to_float, the peak table common/float_psnr_peak.hpp's (upstream's two init()s agree).
#include "feature/float_ansnr/float_ansnr.hpp"

#include "feature/common/float_image.hpp"
#include "feature/common/float_psnr_peak.hpp"
#include "feature/float_ansnr/float_ansnr_math.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace vmafx::float_ansnr {

namespace {

constexpr FeatureName kFeatures[] = {{"float_ansnr"}};

/// Border reach of the larger (5x5) filter: the smallest plane side it reads inside.
constexpr int kMinSide = 3;

/// A filter's weights, row-major, from the shared weight function (float_ansnr_math.hpp).
template <int Taps>
struct Kernel {
    float w[Taps * Taps];
};
template <int Taps>
constexpr Kernel<Taps> make_kernel(float (*weight)(int, int)) {
    Kernel<Taps> k{};
    for (int fi = 0; fi < Taps; ++fi)
        for (int fj = 0; fj < Taps; ++fj) k.w[fi * Taps + fj] = weight(fi, fj);
    return k;
}
/// The reference's 3x3 kernel (ansnr_filter2d_ref_s) and the distorted picture's 5x5
/// (ansnr_filter2d_dis_s): double quotients n / 16 and n / 571 rounded to float.
constexpr Kernel<kRefTaps> kRefKernel = make_kernel<kRefTaps>(ref_weight);
constexpr Kernel<kDistTaps> kDistKernel = make_kernel<kDistTaps>(dist_weight);
static_assert(kRefKernel.w[4] == 0.25f && kDistKernel.w[12] == static_cast<float>(127.0 / 571.0));

using floatimg::Image;

/// ansnr_filter2d_s: the Taps x Taps kernel `k` over `src`, reflected borders; per output
/// sample, each kernel row summed into its own float, then the rows' sums in order
/// (filter3_at / filter5_at).
template <int Taps>
Image filter2d(const Kernel<Taps>& k, const Image& src) {
    constexpr int r = Taps / 2;
    const int w = src.width;
    const int h = src.height;
    Image dst(w, h);
    std::vector<int> cols(static_cast<std::size_t>(w) + 2 * r);  // cols[j + fj]: column of tap fj
    for (int c = 0; c < w + 2 * r; ++c) cols[static_cast<std::size_t>(c)] = reflect(c - r, w);
    for (int i = 0; i < h; ++i) {
        const float* rows[Taps];
        for (int fi = 0; fi < Taps; ++fi) rows[fi] = src.row(reflect(i - r + fi, h));
        float* out = dst.row(i);
        for (int j = 0; j < w; ++j) {
            const int* c = cols.data() + j;
            float window[Taps * Taps];
            for (int fi = 0; fi < Taps; ++fi)
                for (int fj = 0; fj < Taps; ++fj) window[fi * Taps + fj] = rows[fi][c[fj]];
            if constexpr (Taps == kRefTaps) out[j] = filter3_at(k.w, window);
            else out[j] = filter5_at(k.w, window);
        }
    }
    return dst;
}

/// ansnr_mse_s: per row, the float sums from 0 of signal_term and noise_term in column order
/// (into sig_rows[i], noise_rows[i]).
void mse_rows(const Image& ref, const Image& dis, std::vector<float>& sig_rows, std::vector<float>& noise_rows) {
    sig_rows.assign(static_cast<std::size_t>(ref.height), 0.0f);
    noise_rows.assign(static_cast<std::size_t>(ref.height), 0.0f);
    for (int i = 0; i < ref.height; ++i) {
        const float* r = ref.row(i);
        const float* d = dis.row(i);
        float sig_inner = 0;
        float noise_inner = 0;
        for (int j = 0; j < ref.width; ++j) {
            sig_inner += signal_term(r[j]);
            noise_inner += noise_term(r[j], d[j]);
        }
        sig_rows[static_cast<std::size_t>(i)] = sig_inner;
        noise_rows[static_cast<std::size_t>(i)] = noise_inner;
    }
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
    const Image ref_filtered = filter2d<kRefTaps>(kRefKernel, r);
    const Image dist_filtered = filter2d<kDistTaps>(kDistKernel, d);
    std::vector<float> sig_rows;
    std::vector<float> noise_rows;
    mse_rows(ref_filtered, dist_filtered, sig_rows, noise_rows);
    return scores_of(sum_rows(sig_rows), sum_rows(noise_rows), w, h, bit_depth);
}

float sum_rows(std::span<const float> row_sums) {
    float accum = 0;
    for (const float s : row_sums) accum += s;
    return accum;
}

Scores scores_of(float sig, float noise, int width, int height, int bit_depth) {
    double peak = 0.0;
    double psnr_max = 0.0;
    if (!float_psnr::peak_and_cap(bit_depth, peak, psnr_max))
        throw Error(fmt::format("float_ansnr: bit depth {} is not supported (8, 10, 12 or 16)", bit_depth));
    Scores s;
    // The quotient is a float (as upstream), widened for log10.
    s.ansnr = noise == 0 ? psnr_max : 10.0 * std::log10(static_cast<double>(sig / noise));
    const double eps = 1e-10;
    const double floor_noise = static_cast<double>(noise) > eps ? static_cast<double>(noise) : eps;
    const double anpsnr = 10 * std::log10(peak * peak * width * height / floor_noise);
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
