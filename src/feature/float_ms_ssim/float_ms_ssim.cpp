// CPU reference of float_ms_ssim (see float_ms_ssim.hpp; the shared arithmetic is in
// feature/common/iqa.cpp).
#include "feature/float_ms_ssim/float_ms_ssim.hpp"

#include <cmath>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "feature/common/iqa.hpp"
#include "feature/common/float_image.hpp"

namespace vmafx::float_ms_ssim {

namespace {

/// Upstream's option table (float_ms_ssim.c `options`): no option is a feature parameter.
constexpr OptionSpec kOptions[] = {
    option<&Settings::enable_lcs>("enable_lcs", nullptr, 0, 0, 1, OptionRole::kSetting,
                                  "enable luminance, contrast and structure intermediate output"),
    option<&Settings::enable_db>("enable_db", nullptr, 0, 0, 1, OptionRole::kSetting, "write MS-SSIM values as dB"),
    option<&Settings::clip_db>("clip_db", nullptr, 0, 0, 1, OptionRole::kSetting, "clip dB scores"),
};

/// The outputs: float_ms_ssim (upstream's provided_features) and, with enable_lcs, what
/// extract() also writes, in its order.
constexpr FeatureName kFeatures[] = {
    {"float_ms_ssim"},
    {"float_ms_ssim_l_scale0"}, {"float_ms_ssim_l_scale1"}, {"float_ms_ssim_l_scale2"},
    {"float_ms_ssim_l_scale3"}, {"float_ms_ssim_l_scale4"},
    {"float_ms_ssim_c_scale0"}, {"float_ms_ssim_c_scale1"}, {"float_ms_ssim_c_scale2"},
    {"float_ms_ssim_c_scale3"}, {"float_ms_ssim_c_scale4"},
    {"float_ms_ssim_s_scale0"}, {"float_ms_ssim_s_scale1"}, {"float_ms_ssim_s_scale2"},
    {"float_ms_ssim_s_scale3"}, {"float_ms_ssim_s_scale4"},
};

/// Smallest side: 11 << 4, the side whose fourth halving (rounded down) still holds the
/// Gaussian window (ms_ssim.c's "scale below 1x1" check).
constexpr int kMinSide = iqa::kGaussianLen << (kScales - 1);

/// The 9x9 low-pass kernel of the decimation (ms_ssim.c g_lpf: the 9/7 biorthogonal wavelet
/// filter), row-major.
constexpr float kLowPass[kLowPassLen * kLowPassLen] = {
    0.000714f,  -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f, 0.000714f,
    -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
    -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f,
    0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,
    0.016114f,  -0.010146f, -0.047149f, 0.160885f,  0.363505f,  0.160885f,  -0.047149f, -0.010146f, 0.016114f,
    0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,
    -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f,
    -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
    0.000714f,  -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f, 0.000714f,
};

/// The exponents of each scale (ms_ssim.c g_alphas, g_betas, g_gammas), as floats.
constexpr float kAlpha[kScales] = {0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f};
constexpr float kBeta[kScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};
constexpr float kGamma[kScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};

class Extractor final : public FeatureExtractor {
public:
    Extractor(const Options& options, const VideoFormat& format)
        : format_(format),
          settings_(options),
          max_db_(iqa::max_db(settings_.clip_db, format.bit_depth, format.width, format.height)) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        // The pyramid: scale k is decimated_size(scale k - 1, 2) on each side.
        std::array<std::vector<float>, kScales> ref, cmp;
        std::array<int, kScales> w{}, h{};
        w[0] = format_.width;
        h[0] = format_.height;
        for (int k = 1; k < kScales; ++k) {
            const std::array<int, 2> size = scale_size(w[0], h[0], k);
            w[k] = size[0];
            h[k] = size[1];
        }
        for (int k = 0; k < kScales; ++k) {
            ref[k].resize(static_cast<std::size_t>(w[k]) * static_cast<std::size_t>(h[k]));
            cmp[k].resize(ref[k].size());
        }
        copy(in.ref, "reference", in.index, ref[0].data());
        copy(in.dist, "distorted", in.index, cmp[0].data());
        for (int k = 1; k < kScales; ++k) {
            iqa::decimate(ref[k - 1].data(), w[k - 1], h[k - 1], 2, kLowPass, kLowPassLen, ref[k].data());
            iqa::decimate(cmp[k - 1].data(), w[k - 1], h[k - 1], 2, kLowPass, kLowPassLen, cmp[k].data());
        }

        std::array<iqa::SsimMeans, kScales> means;
        for (int k = 0; k < kScales; ++k) means[k] = iqa::ssim_means(ref[k].data(), cmp[k].data(), w[k], h[k]);
        settings_.write_frame(means, max_db_, in.index, out);
    }

private:
    void copy(const Picture* pic, const char* what, unsigned index, float* dst) const {
        if (!pic) throw Error(fmt::format("float_ms_ssim: frame {}: no {} picture", index, what));
        const Plane& luma = pic->luma();
        if (luma.width() != format_.width || luma.height() != format_.height ||
            luma.bytes_per_sample() != format_.bytes_per_sample())
            throw Error(fmt::format("float_ms_ssim: frame {}: {} luma is {}x{} with {}-byte samples, expected "
                                    "{}x{} with {}",
                                    index, what, luma.width(), luma.height(), luma.bytes_per_sample(), format_.width,
                                    format_.height, format_.bytes_per_sample()));
        // picture_copy with offset 0: the sample, / 4, 16, 256 at 10, 12, 16 bits; rows packed.
        floatimg::to_float(luma, format_.bit_depth, dst, format_.width, 0);
    }

    VideoFormat format_;
    Settings settings_;
    double max_db_;
};

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    return std::make_unique<Extractor>(options, format);
}

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "enable_db=true:clip_db=true",
    "enable_lcs=true:enable_db=true:clip_db=true",
};

}  // namespace

Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options) : name(options.feature_name(kFeatures[0].name)) {
    options.bind(*this);
    for (int k = 0; k < kScales; ++k) {
        l_names[k] = options.feature_name(kFeatures[1 + k].name);
        c_names[k] = options.feature_name(kFeatures[1 + kScales + k].name);
        s_names[k] = options.feature_name(kFeatures[1 + 2 * kScales + k].name);
    }
}

void Settings::write_frame(const std::array<iqa::SsimMeans, kScales>& means, double max_db, unsigned index,
                           FrameScores& out) const {
    double msssim = 1.0;
    for (int k = 0; k < kScales; ++k) {
        // pow of the float means and float exponents, in double (C's pow).
        msssim *= std::pow(static_cast<double>(means[k].l), static_cast<double>(kAlpha[k])) *
                  std::pow(static_cast<double>(means[k].c), static_cast<double>(kBeta[k])) *
                  std::pow(static_cast<double>(means[k].s), static_cast<double>(kGamma[k]));
        if (msssim == INFINITY)  // upstream fails the frame ("ms_ssim is INFINITY")
            throw Error(fmt::format("float_ms_ssim: frame {}: the score is infinite at scale {}", index, k));
    }
    double score = msssim;
    if (enable_db) score = iqa::to_db(score, max_db);
    out.emplace_back(name, score);
    if (enable_lcs) {
        for (int k = 0; k < kScales; ++k) out.emplace_back(l_names[k], static_cast<double>(means[k].l));
        for (int k = 0; k < kScales; ++k) out.emplace_back(c_names[k], static_cast<double>(means[k].c));
        for (int k = 0; k < kScales; ++k) out.emplace_back(s_names[k], static_cast<double>(means[k].s));
    }
}

std::array<int, 2> scale_size(int width, int height, int k) {
    for (int i = 0; i < k; ++i) {
        width = iqa::decimated_size(width, 2);
        height = iqa::decimated_size(height, 2);
    }
    return {width, height};
}

std::span<const float, kLowPassLen * kLowPassLen> low_pass() { return kLowPass; }

const MetricDescriptor descriptor{
    .name = "float_ms_ssim", .oracle = {kLibvmaf, "libvmaf/src/feature/float_ms_ssim.c"},
    .options = kOptions, .features = kFeatures,
    .limits = {kMinSide, kMinSide, kWholeUnitBitDepths,
               "(its fifth scale, four halvings rounded down, must hold the 11x11 Gaussian window)"},
    .create = create, .corner_sets = kCornerSets};

}  // namespace vmafx::float_ms_ssim
