// Integer PSNR, bit-exact to upstream libvmaf 3.2.0 src/feature/integer_psnr.c (no SIMD
// variant upstream). See psnr.hpp for the formulas.
#include "feature/psnr/psnr.hpp"

#include <atomic>
#include <cfloat>
#include <cmath>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "feature/psnr/psnr_math.hpp"

namespace vmafx::psnr {

namespace {

// Option table, as upstream's `options[]` of integer_psnr.c (no feature parameters).
constexpr OptionSpec kOptions[] = {
    option<&Settings::enable_chroma>("enable_chroma", nullptr, 1, 0, 1, OptionRole::kSetting,
                                     "enable calculation for chroma channels"),
    option<&Settings::enable_mse>("enable_mse", nullptr, 0, 0, 1, OptionRole::kSetting, "enable MSE calculation"),
    option<&Settings::enable_apsnr>("enable_apsnr", nullptr, 0, 0, 1, OptionRole::kSetting, "enable APSNR calculation"),
    option<&Settings::reduced_hbd_peak>("reduced_hbd_peak", nullptr, 0, 0, 1, OptionRole::kSetting,
                                        "reduce hbd peak value to align with scaled 8-bit content"),
    // Corners of min_sse: the cap far above the scores (0.001, 1), near and below them (1e7, 1e9
    // at 8 bits; at 16 bits the peak is 257 times larger), a float's largest (the largest value
    // upstream's option parsing lets through: the cap far below zero), and outside the range.
    option<&Settings::min_sse>("min_sse", nullptr, 0.0, 0.0, DBL_MAX, OptionRole::kSetting, "constrain the minimum possible sse").also_at("0.001,1,1e7,1e9,1e12,3.4e38,-1,1e39"),
};

// Upstream's provided_features[] (no aliases).
constexpr FeatureName kFeatures[] = {{"psnr_y"}, {"psnr_cb"}, {"psnr_cr"}};

constexpr const char* kPsnrNames[3] = {"psnr_y", "psnr_cb", "psnr_cr"};
constexpr const char* kMseNames[3] = {"mse_y", "mse_cb", "mse_cr"};
constexpr const char* kApsnrNames[3] = {"apsnr_y", "apsnr_cb", "apsnr_cr"};

// The smaller / larger of a and b, written as upstream's MIN / MAX macros (NaN picks b).
inline double min_of(double a, double b) { return a < b ? a : b; }
inline double max_of(double a, double b) { return a > b ? a : b; }

class Extractor final : public FeatureExtractor {
public:
    Extractor(const Options& options, const VideoFormat& format) : format_(format), scorer_(options, format) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        for (int p = 0; p < scorer_.planes(); ++p) {
            const Plane& ref = in.ref->planes[p];
            const Plane& dist = in.dist->planes[p];
            if (ref.width() != format_.plane_width(p) || ref.height() != format_.plane_height(p) ||
                dist.width() != ref.width() || dist.height() != ref.height())
                throw Error(fmt::format("psnr: plane {} is {}x{} / {}x{}, expected {}x{}", p, ref.width(),
                                        ref.height(), dist.width(), dist.height(), format_.plane_width(p),
                                        format_.plane_height(p)));
            scorer_.score_plane(p, plane_sse(ref, dist), out);
        }
    }

    void flush(ScoreTable& table) const override { scorer_.flush(table); }

private:
    VideoFormat format_;
    Scorer scorer_;
};

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    return std::make_unique<Extractor>(options, format);
}

template <typename Sample, typename RowSum>
std::uint64_t sse_of(const Plane& ref, const Plane& dist) {
    std::uint64_t sse = 0;
    for (int y = 0; y < ref.height(); ++y) {
        const Sample* r = ref.row<Sample>(y);
        const Sample* d = dist.row<Sample>(y);
        RowSum row = 0;
        for (int x = 0; x < ref.width(); ++x) {
            const std::uint32_t e2 = squared_error(r[x], d[x]);  // 65535^2 fits in 32 bits
            row += e2;
        }
        sse += row;
    }
    return sse;
}

}  // namespace

Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options) { options.bind(*this); }

Scorer::Scorer(const Options& options, const VideoFormat& format)
    : format_(format), settings_(options), peak_(settings_.peak(format.bit_depth)),
      planes_(settings_.enable_chroma ? 3 : 1) {
    for (int p = 0; p < 3; ++p) psnr_max_[p] = settings_.psnr_max(format, p);
}

void Scorer::score_plane(int p, std::uint64_t sse, FrameScores& out) const {
    const auto samples = static_cast<std::uint32_t>(static_cast<unsigned>(format_.plane_width(p)) *
                                                    static_cast<unsigned>(format_.plane_height(p)));
    if (settings_.enable_apsnr) {
        // Order-free exact integer sums: any order of frames and threads gives the same
        // totals (upstream sums them frame by frame in extract()).
        sse_sum_[p].fetch_add(sse, std::memory_order_relaxed);
        samples_sum_[p].fetch_add(samples, std::memory_order_relaxed);
    }
    double mse = 0.0;
    const double score = plane_psnr(sse, samples, peak_, psnr_max_[p], mse);
    out.emplace_back(kPsnrNames[p], score);
    if (settings_.enable_mse) out.emplace_back(kMseNames[p], mse);
}

void Scorer::flush(ScoreTable& table) const {
    if (!settings_.enable_apsnr) return;
    // Every plane, the ones not scored included (upstream: -inf for those).
    for (int p = 0; p < 3; ++p)
        table.set_aggregate(kApsnrNames[p], aggregate_psnr(sse_sum_[p].load(), samples_sum_[p].load(), peak_));
}

std::uint32_t Settings::peak(int bit_depth) const {
    return reduced_hbd_peak ? 255u << (bit_depth - 8) : (1u << bit_depth) - 1u;
}

double Settings::psnr_max(const VideoFormat& format, int p) const {
    const auto bpc = static_cast<unsigned>(format.bit_depth);
    if (min_sse == 0.0) return static_cast<double>(6 * bpc + 12);
    const std::uint32_t pk = peak(format.bit_depth);
    const auto samples = static_cast<unsigned>(format.plane_width(p)) * static_cast<unsigned>(format.plane_height(p));
    const double mse = min_sse / static_cast<double>(samples);
    return std::ceil(10. * std::log10(static_cast<double>(pk * pk) / mse));
}

double plane_psnr(std::uint64_t sse, std::uint32_t samples, std::uint32_t peak, double psnr_max, double& mse) {
    mse = static_cast<double>(sse) / static_cast<double>(samples);
    return min_of(10. * std::log10(static_cast<double>(peak * peak) / max_of(mse, 1e-16)), psnr_max);
}

double aggregate_psnr(std::uint64_t sse, std::uint64_t samples, std::uint32_t peak) {
    const std::uint32_t peak2 = peak * peak;
    const double apsnr = 10 * (std::log10(static_cast<double>(peak2)) + std::log10(static_cast<double>(samples)) -
                               std::log10(static_cast<double>(sse)));
    const double cap = std::ceil(10 * std::log10(static_cast<double>(peak2 * samples * 2)));
    return min_of(apsnr, cap);
}

std::uint64_t plane_sse(const Plane& ref, const Plane& dist) {
    // 8 bits: upstream sums each row in a uint32_t; above, straight into the uint64_t total.
    return ref.bytes_per_sample() == 1 ? sse_of<std::uint8_t, std::uint32_t>(ref, dist)
                                       : sse_of<std::uint16_t, std::uint64_t>(ref, dist);
}

namespace {

// Cb and Cr with enable_chroma, else the luma.
PlaneSet planes_of(const Options& options) { return Settings(options).enable_chroma ? PlaneSet::kAll : PlaneSet::kLuma; }

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "enable_chroma=false:enable_mse=true",
    "enable_chroma=false:enable_apsnr=true",
    "reduced_hbd_peak=true:min_sse=1e9",
    "reduced_hbd_peak=true:enable_mse=true:enable_apsnr=true",
    "enable_chroma=false:min_sse=1e9",
    "enable_chroma=true:enable_mse=true:enable_apsnr=true:reduced_hbd_peak=true:min_sse=0.5",
};

}  // namespace

// enable_apsnr's aggregates sum every frame of the run; the per-frame values stand alone.
TemporalContext psnr_context(const Options& options) { return {0, 0, Settings(options).enable_apsnr}; }

const MetricDescriptor descriptor{
    .name = "psnr", .oracle = {kLibvmaf, "libvmaf/src/feature/integer_psnr.c"},
    .options = kOptions, .features = kFeatures, .planes = planes_of,
    .context = psnr_context, .limits = {1, 1, kWholeUnitBitDepths, ""},
    .temporal = true,
    .create = create, .corner_sets = kCornerSets};

}  // namespace vmafx::psnr
