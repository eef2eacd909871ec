// CPU reference of float_ssim (see float_ssim.hpp; the arithmetic is in iqa.cpp).
#include "feature/float_ssim/float_ssim.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "feature/common/iqa.hpp"
#include "feature/common/float_image.hpp"

namespace vmafx::float_ssim {

namespace {

/// Upstream's option table (float_ssim.c `options`): no option is a feature parameter.
constexpr OptionSpec kOptions[] = {
    option<&Settings::enable_lcs>("enable_lcs", nullptr, 0, 0, 1, OptionRole::kSetting,
                                  "enable luminance, contrast and structure intermediate output"),
    option<&Settings::enable_db>("enable_db", nullptr, 0, 0, 1, OptionRole::kSetting, "write SSIM values as dB"),
    option<&Settings::clip_db>("clip_db", nullptr, 0, 0, 1, OptionRole::kSetting, "clip dB scores"),
    option<&Settings::scale>("scale", nullptr, 0, 0, 10, OptionRole::kSetting,
                             "decimation scale factor (0=auto, 1=no downscaling, 2-10=explicit)").also_at("2,3,7"),
};

/// The outputs: float_ssim (upstream's provided_features) and, with enable_lcs, the three
/// means extract() also writes.
constexpr FeatureName kFeatures[] = {{"float_ssim"}, {"float_ssim_l"}, {"float_ssim_c"}, {"float_ssim_s"}};

/// iqa/math_utils.c _round: half away from zero, the fraction taken in float.
int round_half_away(float a) {
    const int sign = a > 0.0f ? 1 : -1;
    const int whole = static_cast<int>(a);
    return a - static_cast<float>(whole) >= 0.5 ? whole + sign : whole;
}

class Extractor final : public FeatureExtractor {
public:
    Extractor(const Options& options, const VideoFormat& format)
        : format_(format),
          settings_(options),
          factor_(settings_.checked_factor(format)),
          max_db_(iqa::max_db(settings_.clip_db, format.bit_depth, format.width, format.height)) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        const int w = format_.width, h = format_.height;
        const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
        std::vector<float> ref(n), cmp(n);
        copy(in.ref, "reference", in.index, ref.data());
        copy(in.dist, "distorted", in.index, cmp.data());
        int sw = w, sh = h;
        if (factor_ > 1) {
            // ssim.c's low-pass filter: factor x factor taps of 1.0f / (factor * factor).
            const std::vector<float> box(static_cast<std::size_t>(factor_) * factor_, Settings::box_tap(factor_));
            iqa::decimate(ref.data(), w, h, factor_, box, factor_, ref.data());
            iqa::decimate(cmp.data(), w, h, factor_, box, factor_, cmp.data());
            sw = iqa::decimated_size(w, factor_);
            sh = iqa::decimated_size(h, factor_);
        }
        settings_.write_frame(iqa::ssim_means(ref.data(), cmp.data(), sw, sh), max_db_, out);
    }

private:
    void copy(const Picture* pic, const char* what, unsigned index, float* dst) const {
        if (!pic) throw Error(fmt::format("float_ssim: frame {}: no {} picture", index, what));
        const Plane& luma = pic->luma();
        if (luma.width() != format_.width || luma.height() != format_.height ||
            luma.bytes_per_sample() != format_.bytes_per_sample())
            throw Error(fmt::format("float_ssim: frame {}: {} luma is {}x{} with {}-byte samples, expected {}x{} "
                                    "with {}",
                                    index, what, luma.width(), luma.height(), luma.bytes_per_sample(), format_.width,
                                    format_.height, format_.bytes_per_sample()));
        // picture_copy with offset 0: the sample, / 4, 16, 256 at 10, 12, 16 bits; rows packed.
        floatimg::to_float(luma, format_.bit_depth, dst, format_.width, 0);
    }

    VideoFormat format_;
    Settings settings_;
    int factor_;
    double max_db_;
};

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    return std::make_unique<Extractor>(options, format);
}

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
// The fixtures' automatic scales are 1 (576x324), 2 (960x540) and 3 (1280x720); explicit scales
// 1..10 decimate every fixture (even and odd factors, odd decimated sizes).
constexpr const char* kCornerSets[] = {
    "scale=0:enable_lcs=true",
    "scale=1:enable_lcs=true",
    "scale=4:enable_lcs=true",
    "scale=10:enable_lcs=true",
    "enable_db=true:clip_db=true",
    "enable_db=true:clip_db=true:enable_lcs=true:scale=5",
};

}  // namespace

Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options)
    : ssim_name(options.feature_name(kFeatures[0].name)),
      l_name(options.feature_name(kFeatures[1].name)),
      c_name(options.feature_name(kFeatures[2].name)),
      s_name(options.feature_name(kFeatures[3].name)) {
    options.bind(*this);
}

int Settings::factor(int width, int height) const {
    if (scale > 0) return scale;
    return std::max(1, round_half_away(static_cast<float>(std::min(width, height)) / 256.0f));
}

int Settings::checked_factor(const VideoFormat& format) const {
    const int f = factor(format.width, format.height);
    if (f > 1) {
        const int w = iqa::decimated_size(format.width, f);
        const int h = iqa::decimated_size(format.height, f);
        if (w < iqa::kGaussianLen || h < iqa::kGaussianLen)
            throw Error(fmt::format("float_ssim: picture {}x{} is too small for scale {}: decimated to {}x{}, it "
                                    "must be at least {}x{} (the Gaussian window)",
                                    format.width, format.height, f, w, h, iqa::kGaussianLen, iqa::kGaussianLen));
    }
    return f;
}

void Settings::write_frame(const iqa::SsimMeans& m, double max_db, FrameScores& out) const {
    double score = m.ssim;
    if (enable_db) score = iqa::to_db(score, max_db);
    out.emplace_back(ssim_name, score);
    if (enable_lcs) {
        out.emplace_back(l_name, static_cast<double>(m.l));
        out.emplace_back(c_name, static_cast<double>(m.c));
        out.emplace_back(s_name, static_cast<double>(m.s));
    }
}

const MetricDescriptor descriptor{
    .name = "float_ssim", .oracle = {kLibvmaf, "libvmaf/src/feature/float_ssim.c"},
    .options = kOptions, .features = kFeatures,
    .limits = {iqa::kGaussianLen, iqa::kGaussianLen, kWholeUnitBitDepths,
               "(the 11x11 Gaussian window; upstream writes 0 or NaN below)"},
    .create = create, .corner_sets = kCornerSets};

}  // namespace vmafx::float_ssim
