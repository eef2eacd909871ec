// Integer VIF (visual information fidelity), bit-exact with upstream libvmaf 3.2.0's "vif"
// extractor (src/feature/integer_vif.c, integer_vif.h; its x86 AVX2/AVX-512 versions in
// src/feature/x86/vif_avx2.c, vif_avx512.c compute the same integers for valid input).
//
// The luma planes of the reference and distorted pictures are analysed at four dyadic scales.
// At each scale a separable fixed-point Gaussian (kFilters[scale]) gives, per sample, the local
// means mu1 (reference), mu2 (distorted) and the filtered products ref*ref, dis*dis, ref*dis;
// from them the variances sigma1_sq, sigma2_sq and the covariance sigma12. Samples whose
// reference variance reaches the noise variance add base-2 logarithms (from a 2048-per-octave
// table) of the information terms; the others add a linear term. The scale's numerator and
// denominator are stored as float and the score is their float quotient. Between scales both
// pictures are low-pass filtered with the next scale's taps and decimated by two in each
// direction (even rows and columns kept).
//
// Borders are mirrored without repeating the edge sample (index -k reads k, n-1+k reads
// n-1-k), as upstream pads its buffers. This file holds the extractor, the frame driver and
// the portable reference kernels; vif_simd.cpp holds SIMD kernels giving the same integers.
#include "feature/vif/vif.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "feature/vif/vif_kernels.hpp"
#include "feature/vif/vif_math.hpp"

namespace vmafx {

namespace vif {

using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;

const std::array<uint16_t, 65537>& log2_table() {
    // Upstream: (uint16_t)round(log2f((float)i) * 2048). The float logarithm is taken as the
    // correctly rounded float of the double logarithm, which is what glibc's log2f returns for
    // every one of these arguments (and what a portable build needs).
    static const std::array<uint16_t, 65537> table = [] {
        std::array<uint16_t, 65537> t{};
        for (uint32_t i = 32767; i < 65536; ++i) {
            const float l = static_cast<float>(std::log2(static_cast<double>(i)));
            t[i] = static_cast<uint16_t>(std::round(l * 2048.0f));
        }
        return t;
    }();
    return table;
}

void add_vif_terms(const int32_t* sigma1_sq, const int32_t* sigma2_sq, const int32_t* sigma12, int width,
                   double gain_limit, ScaleSums& sums) {
    const Log2Table table{log2_table().data()};
    ScaleSums row;
    for (int j = 0; j < width; ++j) add_sample_terms(sigma1_sq[j], sigma2_sq[j], sigma12[j], gain_limit, table, row);
    sums.num_log += row.num_log;
    sums.den_log += row.den_log;
    sums.num_non_log += row.num_non_log;
    sums.den_non_log += row.den_non_log;
}

namespace {

/// Fills the `half` samples on each side of row[0, width) by mirroring (upstream
/// PADDING_SQ_DATA / PADDING_SQ_DATA_2); `row` points at sample 0.
template <typename U>
void mirror_pad(U* row, int width, int half) {
    for (int k = 1; k <= half; ++k) {
        row[-k] = row[k];
        row[width - 1 + k] = row[width - 1 - k];
    }
}

/// Calls body(std::integral_constant<int, k>) for k = 0 .. N-1, unrolled at compile time (so
/// that the column loops around it vectorise).
template <int N, typename Body>
[[gnu::always_inline]] inline void unroll(Body&& body) {
    [&]<int... K>(std::integer_sequence<int, K...>) {
        (body(std::integral_constant<int, K>{}), ...);
    }(std::make_integer_sequence<int, N>{});
}

// ---------------------------------------------------------------------------------------------
// Portable reference kernels (upstream's C functions, reorganised row by row).

/// Working rows of the reference kernels, kMaxHalf samples of padding on each side.
struct GenericRows {
    std::vector<uint16_t> mu1, mu2, ref_conv, dis_conv;
    std::vector<uint32_t> xx, yy, xy;
    std::vector<int32_t> sigma1_sq, sigma2_sq, sigma12;

    void fit(int width) {
        const std::size_t padded = static_cast<std::size_t>(width) + 2 * kMaxHalf;
        if (mu1.size() >= padded) return;
        for (auto* v : {&mu1, &mu2, &ref_conv, &dis_conv}) v->assign(padded, 0);
        for (auto* v : {&xx, &yy, &xy}) v->assign(padded, 0);
        for (auto* v : {&sigma1_sq, &sigma2_sq, &sigma12}) v->assign(static_cast<std::size_t>(width), 0);
    }
};

GenericRows& generic_rows(int width) {
    thread_local GenericRows rows;
    rows.fit(width);
    return rows;
}

/// Vertical pass of scale kScale: per column, the filtered means
/// mu = (sum c*x + round) >> mean_shift and products (sum c*x*y + round) >> square_shift
/// truncated to 32 bits (upstream vif_statistic_8/_16, vertical loop). Product sums are
/// accumulated in SquareAcc: uint32_t for 8-bit samples (exact there, as upstream), else
/// uint64_t.
template <int kScale, typename T, typename SquareAcc>
void vertical_statistics(const StatisticsRow<T>& in, uint16_t* __restrict mu1, uint16_t* __restrict mu2,
                         uint32_t* __restrict xx, uint32_t* __restrict yy, uint32_t* __restrict xy) {
    constexpr Filter f = kFilters[kScale];
    const T* r[f.width];
    const T* d[f.width];
    for (int k = 0; k < f.width; ++k) {
        r[k] = in.ref_rows[k];
        d[k] = in.dis_rows[k];
    }
    const int mean_shift = in.mean_shift;
    const int square_shift = in.square_shift;
#pragma GCC ivdep
    for (int j = 0; j < in.width; ++j) {
        uint32_t a_mu1 = 0, a_mu2 = 0;
        SquareAcc a_xx = 0, a_yy = 0, a_xy = 0;
        unroll<f.width>([&](auto k) {
            const uint32_t c = f.taps[k];
            const uint32_t rv = r[k][j];
            const uint32_t dv = d[k][j];
            const uint32_t cr = c * rv;
            const uint32_t cd = c * dv;
            a_mu1 += cr;
            a_mu2 += cd;
            a_xx += static_cast<SquareAcc>(cr) * rv;
            a_yy += static_cast<SquareAcc>(cd) * dv;
            a_xy += static_cast<SquareAcc>(cr) * dv;
        });
        mu1[j] = static_cast<uint16_t>(vertical_mean(a_mu1, mean_shift));
        mu2[j] = static_cast<uint16_t>(vertical_mean(a_mu2, mean_shift));
        xx[j] = vertical_product(a_xx, square_shift);
        yy[j] = vertical_product(a_yy, square_shift);
        xy[j] = vertical_product(a_xy, square_shift);
    }
}

/// Horizontal pass of scale kScale over mirror-padded rows (pointers at sample 0): per sample
/// sigma1_sq = xx_filt - mu1^2, sigma2_sq = max(yy_filt - mu2^2, 0), sigma12 = xy_filt - mu1*mu2,
/// where the squares of the 32-bit filtered means keep their top 32 bits, rounded (upstream
/// vif_statistic_*, horizontal loop).
template <int kScale>
void horizontal_statistics(int width, const uint16_t* mu1_row, const uint16_t* mu2_row, const uint32_t* xx_row,
                           const uint32_t* yy_row, const uint32_t* xy_row, int32_t* __restrict sigma1_sq,
                           int32_t* __restrict sigma2_sq, int32_t* __restrict sigma12) {
    constexpr Filter f = kFilters[kScale];
    constexpr int half = f.width / 2;
    const uint16_t* mu1 = mu1_row - half;
    const uint16_t* mu2 = mu2_row - half;
    const uint32_t* xx = xx_row - half;
    const uint32_t* yy = yy_row - half;
    const uint32_t* xy = xy_row - half;
#pragma GCC ivdep
    for (int j = 0; j < width; ++j) {
        uint32_t a_mu1 = 0, a_mu2 = 0;
        uint64_t a_xx = 0, a_yy = 0, a_xy = 0;
        unroll<f.width>([&](auto k) {
            const uint32_t c = f.taps[k];
            a_mu1 += c * mu1[j + k];
            a_mu2 += c * mu2[j + k];
            a_xx += static_cast<uint64_t>(c) * xx[j + k];
            a_yy += static_cast<uint64_t>(c) * yy[j + k];
            a_xy += static_cast<uint64_t>(c) * xy[j + k];
        });
        const Variances v =
            variances(a_mu1, a_mu2, filtered_product(a_xx), filtered_product(a_yy), filtered_product(a_xy));
        sigma1_sq[j] = v.sigma1_sq;
        sigma2_sq[j] = v.sigma2_sq;
        sigma12[j] = v.sigma12;
    }
}

template <int kScale, typename T>
void generic_statistics_at(const StatisticsRow<T>& in, ScaleSums& sums) {
    using SquareAcc = std::conditional_t<sizeof(T) == 1, uint32_t, uint64_t>;
    constexpr int half = kFilters[kScale].width / 2;
    GenericRows& w = generic_rows(in.width);
    uint16_t* mu1 = w.mu1.data() + kMaxHalf;
    uint16_t* mu2 = w.mu2.data() + kMaxHalf;
    uint32_t* xx = w.xx.data() + kMaxHalf;
    uint32_t* yy = w.yy.data() + kMaxHalf;
    uint32_t* xy = w.xy.data() + kMaxHalf;
    vertical_statistics<kScale, T, SquareAcc>(in, mu1, mu2, xx, yy, xy);
    for (uint16_t* row : {mu1, mu2}) mirror_pad(row, in.width, half);
    for (uint32_t* row : {xx, yy, xy}) mirror_pad(row, in.width, half);
    horizontal_statistics<kScale>(in.width, mu1, mu2, xx, yy, xy, w.sigma1_sq.data(), w.sigma2_sq.data(),
                                  w.sigma12.data());
    add_vif_terms(w.sigma1_sq.data(), w.sigma2_sq.data(), w.sigma12.data(), in.width, in.gain_limit, sums);
}

template <typename T>
void generic_statistics(const StatisticsRow<T>& in, ScaleSums& sums) {
    switch (in.scale) {
    case 0: return generic_statistics_at<0>(in, sums);
    case 1: return generic_statistics_at<1>(in, sums);
    case 2: return generic_statistics_at<2>(in, sums);
    default: return generic_statistics_at<3>(in, sums);
    }
}

/// Decimation of one row (upstream subsample_rd_8/_16 and decimate_and_pad): vertical pass
/// (sum c*x + round) >> shift of the source rows, mirror padding, horizontal pass
/// (sum c*v + 32768) >> 16 at the even columns only (the ones kept).
template <int kScale, typename T>
void generic_decimation_at(const DecimationRow<T>& in) {
    constexpr Filter f = kFilters[kScale + 1];
    constexpr int half = f.width / 2;
    GenericRows& w = generic_rows(in.width);
    uint16_t* __restrict conv_ref = w.ref_conv.data() + kMaxHalf;
    uint16_t* __restrict conv_dis = w.dis_conv.data() + kMaxHalf;
    const T* r[f.width];
    const T* d[f.width];
    for (int k = 0; k < f.width; ++k) {
        r[k] = in.ref_rows[k];
        d[k] = in.dis_rows[k];
    }
    const int shift = in.shift;
#pragma GCC ivdep
    for (int j = 0; j < in.width; ++j) {
        uint32_t a_ref = 0, a_dis = 0;
        unroll<f.width>([&](auto k) {
            a_ref += f.taps[k] * static_cast<uint32_t>(r[k][j]);
            a_dis += f.taps[k] * static_cast<uint32_t>(d[k][j]);
        });
        conv_ref[j] = static_cast<uint16_t>(vertical_mean(a_ref, shift));
        conv_dis[j] = static_cast<uint16_t>(vertical_mean(a_dis, shift));
    }
    mirror_pad(conv_ref, in.width, half);
    mirror_pad(conv_dis, in.width, half);

    const uint16_t* cr = conv_ref - half;
    const uint16_t* cd = conv_dis - half;
    uint16_t* __restrict ref_out = in.ref_out;
    uint16_t* __restrict dis_out = in.dis_out;
#pragma GCC ivdep
    for (int j = 0; j < in.width / 2; ++j) {
        uint32_t a_ref = 0, a_dis = 0;
        unroll<f.width>([&](auto k) {
            a_ref += f.taps[k] * static_cast<uint32_t>(cr[2 * j + k]);
            a_dis += f.taps[k] * static_cast<uint32_t>(cd[2 * j + k]);
        });
        ref_out[j] = static_cast<uint16_t>(decimated_sample(a_ref));
        dis_out[j] = static_cast<uint16_t>(decimated_sample(a_dis));
    }
}

template <typename T>
void generic_decimation(const DecimationRow<T>& in) {
    switch (in.scale) {
    case 0: return generic_decimation_at<0>(in);
    case 1: return generic_decimation_at<1>(in);
    default: return generic_decimation_at<2>(in);
    }
}

// ---------------------------------------------------------------------------------------------
// Frame driver.

/// Read-only view of a picture of samples of type T; stride in samples.
template <typename T>
struct View {
    const T* data;
    std::ptrdiff_t stride;
    int width;
    int height;
    const T* row(int y) const { return data + static_cast<std::ptrdiff_t>(y) * stride; }
};

/// Decimated pictures of scales 1..3, per thread. Each has 64 samples of slack at its end for
/// the kernels' reads and writes past a row (see DecimationRow).
struct ScaledPictures {
    std::vector<uint16_t> ref[kScales], dis[kScales];

    void fit(int width, int height) {
        for (int s = 1; s < kScales; ++s) {
            const std::size_t n = static_cast<std::size_t>(width >> s) * static_cast<std::size_t>(height >> s) + 64;
            if (ref[s].size() < n) {
                ref[s].assign(n, 0);
                dis[s].assign(n, 0);
            }
        }
    }
};

template <typename T>
ScaleScore scale_score(const RowKernels& kernels, int scale, const View<T>& ref, const View<T>& dis,
                       const Params& params) {
    const int width = kFilters[scale].width;
    const int half = width / 2;
    StatisticsRow<T> row{};
    const T* ref_rows[17];
    const T* dis_rows[17];
    row.scale = scale;
    row.ref_rows = ref_rows;
    row.dis_rows = dis_rows;
    row.width = ref.width;
    // Vertical rounding (upstream add_shift_round_VP/shift_VP and the _sq pair).
    row.mean_shift = vertical_shift(scale, params.bit_depth);
    row.square_shift = vertical_square_shift(scale, params.bit_depth);
    row.gain_limit = params.gain_limit;
    ScaleSums sums;
    for (int y = 0; y < ref.height; ++y) {
        for (int k = 0; k < width; ++k) {
            const int src = mirror(y - half + k, ref.height);
            ref_rows[k] = ref.row(src);
            dis_rows[k] = dis.row(src);
        }
        if constexpr (sizeof(T) == 1) kernels.statistics_u8(row, sums);
        else kernels.statistics_u16(row, sums);
    }
    return score_of(sums);
}

template <typename T>
View<uint16_t> decimate(const RowKernels& kernels, int scale, const View<T>& ref, const View<T>& dis,
                        const Params& params, ScaledPictures& pictures) {
    const int width = kFilters[scale + 1].width;
    const int half = width / 2;
    const int out_w = ref.width / 2;
    const int out_h = ref.height / 2;
    DecimationRow<T> row{};
    const T* ref_rows[17];
    const T* dis_rows[17];
    row.scale = scale;
    row.ref_rows = ref_rows;
    row.dis_rows = dis_rows;
    row.width = ref.width;
    row.shift = vertical_shift(scale, params.bit_depth);
    for (int i = 0; i < out_h; ++i) {
        for (int k = 0; k < width; ++k) {
            const int src = mirror(2 * i - half + k, ref.height);
            ref_rows[k] = ref.row(src);
            dis_rows[k] = dis.row(src);
        }
        row.ref_out = pictures.ref[scale + 1].data() + static_cast<std::ptrdiff_t>(i) * out_w;
        row.dis_out = pictures.dis[scale + 1].data() + static_cast<std::ptrdiff_t>(i) * out_w;
        if constexpr (sizeof(T) == 1) kernels.decimation_u8(row);
        else kernels.decimation_u16(row);
    }
    return View<uint16_t>{pictures.ref[scale + 1].data(), out_w, out_w, out_h};
}

template <typename T>
std::array<ScaleScore, kScales> compute_scales_of(const Plane& ref_plane, const Plane& dis_plane,
                                                  const Params& params, const RowKernels& kernels) {
    thread_local ScaledPictures pictures;
    pictures.fit(ref_plane.width(), ref_plane.height());
    const auto view = [](const Plane& p) {
        return View<T>{p.row<T>(0), p.stride() / static_cast<std::ptrdiff_t>(sizeof(T)), p.width(), p.height()};
    };
    const View<T> ref = view(ref_plane);
    const View<T> dis = view(dis_plane);
    std::array<ScaleScore, kScales> out{};
    if (!params.skip_scale0) out[0] = scale_score(kernels, 0, ref, dis, params);

    View<uint16_t> r = decimate(kernels, 0, ref, dis, params, pictures);
    const auto dis_of = [&](int s, const View<uint16_t>& v) {
        return View<uint16_t>{pictures.dis[s].data(), v.stride, v.width, v.height};
    };
    for (int s = 1; s < kScales; ++s) {
        const View<uint16_t> d = dis_of(s, r);
        out[s] = scale_score(kernels, s, r, d, params);
        if (s + 1 < kScales) r = decimate(kernels, s, r, d, params, pictures);
    }
    return out;
}

}  // namespace

const RowKernels& reference_kernels() {
    static const RowKernels kernels{"reference", generic_statistics<uint8_t>, generic_statistics<uint16_t>,
                                 generic_decimation<uint8_t>, generic_decimation<uint16_t>, add_vif_terms};
    return kernels;
}


std::array<ScaleScore, kScales> compute_scales(const Plane& ref, const Plane& dis, const Params& params,
                                               const RowKernels& kernels) {
    if (ref.bytes_per_sample() == 1) return compute_scales_of<uint8_t>(ref, dis, params, kernels);
    return compute_scales_of<uint16_t>(ref, dis, params, kernels);
}

void Settings::write_frame(const std::array<ScaleScore, kScales>& v, FrameScores& out) const {
    std::size_t next = 0;
    const auto put = [&](double value) { out.emplace_back(names[next++], value); };
    const auto ratio = [&](int scale) -> double { return v[scale].num / v[scale].den; };
    put(skip_scale0 ? 0.0 : ratio(0));
    put(ratio(1));
    put(ratio(2));
    put(ratio(3));
    if (!debug) return;

    double num = 0.0, den = 0.0;
    if (skip_scale0) {
        num = static_cast<double>(v[1].num) + v[2].num + v[3].num;
        den = static_cast<double>(v[1].den) + v[2].den + v[3].den;
    } else {
        num = static_cast<double>(v[0].num) + v[1].num + v[2].num + v[3].num;
        den = static_cast<double>(v[0].den) + v[1].den + v[2].den + v[3].den;
    }
    put(den == 0.0 ? 1.0 : num / den);  // integer_vif
    put(num);
    put(den);
    put(skip_scale0 ? 0.0 : v[0].num);
    put(skip_scale0 ? -1.0 : v[0].den);
    for (int scale = 1; scale < kScales; ++scale) {
        put(v[scale].num);
        put(v[scale].den);
    }
}

}  // namespace vif

namespace {

/// Throws Error when a sample of `plane` exceeds the largest value of `bit_depth` bits:
/// upstream's C, AVX2 and AVX-512 paths give three different results for such input (their
/// intermediate sums overflow differently), so it has no defined integer VIF.
void check_sample_range(const Plane& plane, int bit_depth, const char* which, unsigned index) {
    if (bit_depth == 8 || bit_depth == 16) return;
    const std::uint16_t max = static_cast<std::uint16_t>((1u << bit_depth) - 1);
    for (int y = 0; y < plane.height(); ++y) {
        const std::uint16_t* row = plane.row<std::uint16_t>(y);
        std::uint16_t row_max = 0;
        for (int x = 0; x < plane.width(); ++x) row_max = std::max(row_max, row[x]);
        if (row_max <= max) continue;
        for (int x = 0; x < plane.width(); ++x)
            if (row[x] > max)
                throw Error(fmt::format("vif: frame {}: {} luma sample ({}, {}) is {}, above the {}-bit maximum {}",
                                        index, which, x, y, row[x], bit_depth, max));
    }
}

/// The integer VIF extractor for one video format.
class VifExtractor final : public FeatureExtractor {
public:
    VifExtractor(const Options& options, const VideoFormat& format)
        : format_(format), settings_(options), params_(settings_.params(format.bit_depth)) {
        vif::log2_table();  // build the shared table before frames run in parallel
        vif::simd_kernels();
    }

    void extract(const FrameInput& in, FrameScores& out) const override {
        if (!in.ref || !in.dist) throw Error("vif: missing reference or distorted picture");
        const Plane& ref = in.ref->luma();
        const Plane& dis = in.dist->luma();
        for (const Plane* p : {&ref, &dis})
            if (p->width() != format_.width || p->height() != format_.height ||
                p->bytes_per_sample() != format_.bytes_per_sample())
                throw Error(fmt::format("vif: frame {}: luma plane is {}x{} with {}-byte samples, expected {}x{} "
                                        "with {}-byte samples",
                                        in.index, p->width(), p->height(), p->bytes_per_sample(), format_.width,
                                        format_.height, format_.bytes_per_sample()));
        check_sample_range(ref, format_.bit_depth, "reference", in.index);
        check_sample_range(dis, format_.bit_depth, "distorted", in.index);
        settings_.write_frame(vif::compute_scales(ref, dis, params_, vif::simd_kernels()), out);
    }

private:
    VideoFormat format_;
    vif::Settings settings_;
    vif::Params params_;
};

using vif::Settings;

/// Upstream's option table of "vif" (integer_vif.c `options`).
constexpr OptionSpec kOptions[] = {
    option<&Settings::debug>("debug", nullptr, 0, 0, 1, OptionRole::kSetting, "debug mode: enable additional output"),
    option<&Settings::gain_limit>(
        "vif_enhn_gain_limit", "egl", 100.0, 1.0, 100.0, OptionRole::kFeatureParameter,
        "enhancement gain imposed on vif, must be >= 1.0, where 1.0 means the gain is completely disabled").also_at("1.5"),
    option<&Settings::skip_scale0>("vif_skip_scale0", "ssclz", 0, 0, 1, OptionRole::kFeatureParameter, "when set, skip scale 0 calculations"),
};

/// Upstream's provided_features[] (in the order write_frame() writes them), with the aliases
/// of alias.c.
constexpr FeatureName kFeatures[] = {
    {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"},
    {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1"},
    {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2"},
    {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3"},
    {"integer_vif"}, {"integer_vif_num"}, {"integer_vif_den"},
    {"integer_vif_num_scale0"}, {"integer_vif_den_scale0"}, {"integer_vif_num_scale1"},
    {"integer_vif_den_scale1"}, {"integer_vif_num_scale2"}, {"integer_vif_den_scale2"},
    {"integer_vif_num_scale3"}, {"integer_vif_den_scale3"},
};

std::unique_ptr<FeatureExtractor> create_vif(const Options& options, const VideoFormat& format) {
    return std::make_unique<VifExtractor>(options, format);
}

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "vif_enhn_gain_limit=1:vif_skip_scale0=true",
};

}  // namespace

namespace vif {

Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options) {
    options.bind(*this);
    for (const FeatureName& f : kFeatures) names.push_back(options.feature_name(f.name));
}

const MetricDescriptor descriptor{
    .name = "vif", .oracle = {kLibvmaf, "libvmaf/src/feature/integer_vif.c"},
    .options = kOptions, .features = kFeatures,
    .limits = {kMinSide, kMinSide, kEveryBitDepth, "(its scale 3, a 1/8 decimation, must be at least 2x2)"},
    .create = create_vif, .corner_base = "debug=true", .corner_sets = kCornerSets};

}  // namespace vif

}  // namespace vmafx
