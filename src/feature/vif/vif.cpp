// Integer VIF (visual information fidelity), bit-exact with upstream libvmaf 3.2.0's "vif"
// extractor (src/feature/integer_vif.c, integer_vif.h and the x86 AVX2/AVX-512 versions in
// src/feature/x86/vif_avx2.c, vif_avx512.c, which compute the same integers).
//
// The luma planes of the reference and distorted pictures are analysed at four dyadic scales.
// At each scale a separable fixed-point Gaussian (taps kFilters[scale]) gives, per sample,
// the local means mu1 (reference), mu2 (distorted) and the filtered products ref*ref,
// dis*dis, ref*dis; from them the variances sigma1_sq, sigma2_sq and covariance sigma12.
// Samples whose reference variance reaches the noise variance add base-2 logarithms (from a
// 2048-per-octave table) of the information terms; the others add a linear term. The scale's
// numerator and denominator are stored as float, and the score is their float quotient.
// Between scales both pictures are low-pass filtered with the next scale's taps and
// decimated by two in each direction (even rows and columns kept).
//
// Borders are mirrored without repeating the edge sample (index -k reads k, n-1+k reads n-1-k),
// as upstream pads its buffers. Every size at least kMinSide x kMinSide keeps all mirrored
// indices inside the picture at every scale; smaller pictures are refused (upstream reads
// stale buffer contents there, or divides 0 by 0 at scale 3).
#include "feature/vif/vif.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

namespace vmafx {

namespace {

using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;

/// Number of dyadic scales.
constexpr int kScales = 4;
/// Smallest luma width and height: scale 3 is then at least 2x2 and every mirrored border
/// index stays inside the picture at every scale.
constexpr int kMinSide = 16;
/// Largest half filter width (scale 0: 17 taps).
constexpr int kMaxHalf = 8;

/// One scale's symmetric low-pass filter: `width` taps in 1/65536 (each set sums to 65536).
struct Filter {
    int width;
    std::array<uint16_t, 17> taps;
    int half() const { return width / 2; }
};

/// Upstream's vif_filter1d_table / vif_filter1d_width (integer_vif.h).
constexpr Filter kFilters[kScales] = {
    {17, {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935, 489}},
    {9, {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244}},
    {5, {3571, 16004, 26386, 16004, 3571}},
    {3, {10904, 43728, 10904}},
};

/// The noise variance 2.0 in the fixed-point units of sigma1_sq (2 * 65536).
constexpr int32_t kSigmaNsq = 65536 << 1;

/// round(log2(i) * 2048) for i in [32767, 65535] (upstream log_generate(): log2f of the
/// float i, times 2048, rounded half away from zero); other entries are 0 and never read.
/// The float logarithm is taken as the correctly rounded float of the double logarithm,
/// which is what glibc's log2f returns for every one of these arguments.
const std::array<uint16_t, 65536>& log2_table() {
    static const std::array<uint16_t, 65536> table = [] {
        std::array<uint16_t, 65536> t{};
        for (uint32_t i = 32767; i < 65536; ++i) {
            const float l = static_cast<float>(std::log2(static_cast<double>(i)));
            t[i] = static_cast<uint16_t>(std::round(l * 2048.0f));
        }
        return t;
    }();
    return table;
}

/// 2048 * log2(v) from the table, keeping the top 16 significant bits of v
/// (upstream log2_32(); v >= 2^15).
inline int32_t log2_q11(const uint16_t* table, uint32_t v) {
    const int shift = 16 - std::countl_zero(v);
    return table[v >> shift] + 2048 * shift;
}

/// 2048 * log2(v) for 64-bit v >= 2^17 (upstream log2_64()).
inline int32_t log2_q11(const uint16_t* table, uint64_t v) {
    const int shift = 48 - std::countl_zero(v);
    return table[v >> shift] + 2048 * shift;
}

/// Mirrors index i into [0, n) without repeating the edge: -k -> k, n-1+k -> n-1-k.
/// Valid for -n < i < 2n-1.
inline int mirror(int i, int n) {
    if (i < 0) return -i;
    if (i >= n) return 2 * (n - 1) - i;
    return i;
}

/// Read-only view of one plane of samples of type T (uint8_t or uint16_t); stride in samples.
template <typename T>
struct View {
    const T* data = nullptr;
    std::ptrdiff_t stride = 0;
    int width = 0;
    int height = 0;
    const T* row(int y) const { return data + static_cast<std::ptrdiff_t>(y) * stride; }
};

/// The fixed-point sums of one scale (upstream's accum_num_log, accum_den_log,
/// accum_num_non_log, accum_den_non_log).
struct ScaleSums {
    int64_t num_log = 0;
    int64_t den_log = 0;
    int64_t num_non_log = 0;
    int64_t den_non_log = 0;
};

/// Numerator and denominator of one scale, as upstream stores them (float).
struct ScaleScore {
    float num = 0.0f;
    float den = 0.0f;
};

/// Rounding of the vertical pass of the statistics (upstream vif_statistic_16's
/// add_shift_round_VP/shift_VP for the means and add_shift_round_VP_sq/shift_VP_sq for the
/// products). Scale 0 of 8-bit video is the case shift 8 / shift 0 (vif_statistic_8).
struct VerticalRounding {
    int mean_shift;
    int square_shift;
    uint32_t mean_round() const { return 1u << (mean_shift - 1); }
    uint64_t square_round() const { return square_shift == 0 ? 0 : uint64_t{1} << (square_shift - 1); }
};

VerticalRounding vertical_rounding(int scale, int bit_depth) {
    if (scale == 0) return {bit_depth, 2 * (bit_depth - 8)};
    return {16, 16};
}

/// Per-thread working rows and the decimated pictures of scales 1..3.
struct Scratch {
    // Vertically filtered rows (kMaxHalf samples of mirror padding on each side).
    std::vector<uint32_t> mu1, mu2, xx, yy, xy;
    // Per-sample variances of one row.
    std::vector<int32_t> sigma1_sq, sigma2_sq, sigma12;
    // Vertically filtered rows of the decimation filter (padded like the above).
    std::vector<uint32_t> ref_conv, dis_conv;
    // Decimated reference and distorted pictures (ping-pong between scales).
    std::vector<uint16_t> ref_scaled[2], dis_scaled[2];

    void reserve(int width, int height) {
        const std::size_t row = static_cast<std::size_t>(width) + 2 * kMaxHalf;
        for (auto* v : {&mu1, &mu2, &xx, &yy, &xy, &ref_conv, &dis_conv})
            if (v->size() < row) v->resize(row);
        for (auto* v : {&sigma1_sq, &sigma2_sq, &sigma12})
            if (v->size() < static_cast<std::size_t>(width)) v->resize(static_cast<std::size_t>(width));
        const std::size_t half = static_cast<std::size_t>(width / 2) * static_cast<std::size_t>(height / 2);
        const std::size_t quarter = static_cast<std::size_t>(width / 4) * static_cast<std::size_t>(height / 4);
        for (auto* v : {&ref_scaled[0], &dis_scaled[0]})
            if (v->size() < half) v->resize(half);
        for (auto* v : {&ref_scaled[1], &dis_scaled[1]})
            if (v->size() < quarter) v->resize(quarter);
    }
};

/// Fills the `half` samples on each side of row[0, width) by mirroring (upstream
/// PADDING_SQ_DATA / PADDING_SQ_DATA_2); `row` points at sample 0.
inline void mirror_pad(uint32_t* row, int width, int half) {
    for (int k = 1; k <= half; ++k) {
        row[-k] = row[k];
        row[width - 1 + k] = row[width - 1 - k];
    }
}

/// Vertical pass of the statistics for output row y: the filtered means and products of the
/// reference and distorted columns, rounded as `rounding` says, into the padded rows of
/// `s` (sample 0 at index kMaxHalf). Square sums are accumulated in SquareAcc (uint32_t at
/// 8 bits as upstream vif_statistic_8, uint64_t above).
template <typename T, typename SquareAcc>
void vertical_statistics(const View<T>& ref, const View<T>& dis, int y, const Filter& filter,
                         VerticalRounding rounding, Scratch& s) {
    const int width = ref.width;
    const int half = filter.half();
    const T* ref_rows[17];
    const T* dis_rows[17];
    for (int k = 0; k < filter.width; ++k) {
        const int yy = mirror(y - half + k, ref.height);
        ref_rows[k] = ref.row(yy);
        dis_rows[k] = dis.row(yy);
    }
    uint32_t* mu1 = s.mu1.data() + kMaxHalf;
    uint32_t* mu2 = s.mu2.data() + kMaxHalf;
    uint32_t* xx = s.xx.data() + kMaxHalf;
    uint32_t* yy = s.yy.data() + kMaxHalf;
    uint32_t* xy = s.xy.data() + kMaxHalf;
    const uint32_t mean_round = rounding.mean_round();
    const uint64_t square_round = rounding.square_round();

    constexpr int kBlock = 32;
    const auto block = [&](int j0, int n) {
        uint32_t a_mu1[kBlock] = {}, a_mu2[kBlock] = {};
        SquareAcc a_xx[kBlock] = {}, a_yy[kBlock] = {}, a_xy[kBlock] = {};
        for (int k = 0; k < filter.width; ++k) {
            const uint32_t c = filter.taps[k];
            const T* r = ref_rows[k] + j0;
            const T* d = dis_rows[k] + j0;
            for (int j = 0; j < n; ++j) {
                const uint32_t rv = r[j];
                const uint32_t dv = d[j];
                const uint32_t cr = c * rv;
                const uint32_t cd = c * dv;
                a_mu1[j] += cr;
                a_mu2[j] += cd;
                a_xx[j] += static_cast<SquareAcc>(cr) * rv;
                a_yy[j] += static_cast<SquareAcc>(cd) * dv;
                a_xy[j] += static_cast<SquareAcc>(cr) * dv;
            }
        }
        for (int j = 0; j < n; ++j) {
            mu1[j0 + j] = static_cast<uint16_t>((a_mu1[j] + mean_round) >> rounding.mean_shift);
            mu2[j0 + j] = static_cast<uint16_t>((a_mu2[j] + mean_round) >> rounding.mean_shift);
            xx[j0 + j] = static_cast<uint32_t>((a_xx[j] + square_round) >> rounding.square_shift);
            yy[j0 + j] = static_cast<uint32_t>((a_yy[j] + square_round) >> rounding.square_shift);
            xy[j0 + j] = static_cast<uint32_t>((a_xy[j] + square_round) >> rounding.square_shift);
        }
    };
    int j0 = 0;
    for (; j0 + kBlock <= width; j0 += kBlock) block(j0, kBlock);
    if (j0 < width) block(j0, width - j0);

    for (uint32_t* row : {mu1, mu2, xx, yy, xy}) mirror_pad(row, width, half);
}

/// Horizontal pass of the statistics over the padded rows of `s` (width samples), then the
/// VIF terms of each sample added to `sums` (upstream vif_statistic_* horizontal loop and
/// vif_compute_line_residuals()).
void horizontal_statistics(int width, const Filter& filter, double gain_limit, const uint16_t* table,
                           Scratch& s, ScaleSums& sums) {
    const int half = filter.half();
    const uint32_t* mu1 = s.mu1.data() + kMaxHalf - half;
    const uint32_t* mu2 = s.mu2.data() + kMaxHalf - half;
    const uint32_t* xx = s.xx.data() + kMaxHalf - half;
    const uint32_t* yy = s.yy.data() + kMaxHalf - half;
    const uint32_t* xy = s.xy.data() + kMaxHalf - half;
    int32_t* sigma1_sq = s.sigma1_sq.data();
    int32_t* sigma2_sq = s.sigma2_sq.data();
    int32_t* sigma12 = s.sigma12.data();

    for (int j = 0; j < width; ++j) {
        uint32_t a_mu1 = 0, a_mu2 = 0;
        uint64_t a_xx = 0, a_yy = 0, a_xy = 0;
        for (int k = 0; k < filter.width; ++k) {
            const uint32_t c = filter.taps[k];
            a_mu1 += c * mu1[j + k];
            a_mu2 += c * mu2[j + k];
            a_xx += static_cast<uint64_t>(c) * xx[j + k];
            a_yy += static_cast<uint64_t>(c) * yy[j + k];
            a_xy += static_cast<uint64_t>(c) * xy[j + k];
        }
        const uint32_t mu1_sq = static_cast<uint32_t>((static_cast<uint64_t>(a_mu1) * a_mu1 + 0x80000000u) >> 32);
        const uint32_t mu2_sq = static_cast<uint32_t>((static_cast<uint64_t>(a_mu2) * a_mu2 + 0x80000000u) >> 32);
        const uint32_t mu1_mu2 = static_cast<uint32_t>((static_cast<uint64_t>(a_mu1) * a_mu2 + 0x80000000u) >> 32);
        const uint32_t xx_filt = static_cast<uint32_t>((a_xx + 32768) >> 16);
        const uint32_t yy_filt = static_cast<uint32_t>((a_yy + 32768) >> 16);
        const uint32_t xy_filt = static_cast<uint32_t>((a_xy + 32768) >> 16);
        sigma1_sq[j] = static_cast<int32_t>(xx_filt - mu1_sq);
        sigma2_sq[j] = std::max(static_cast<int32_t>(yy_filt - mu2_sq), 0);
        sigma12[j] = static_cast<int32_t>(xy_filt - mu1_mu2);
    }

    const double eps = 65536 * 1.0e-10;
    for (int j = 0; j < width; ++j) {
        const int32_t s1 = sigma1_sq[j];
        const int32_t s2 = sigma2_sq[j];
        const int32_t s12 = sigma12[j];
        if (s1 >= kSigmaNsq) {
            // log2(1 + sigma1_sq / 2) as log2(2*65536 + sigma1_sq) - 17, in 1/2048 units.
            sums.den_log += log2_q11(table, static_cast<uint32_t>(kSigmaNsq + s1)) - 2048 * 17;
            if (s12 > 0 && s2 > 0) {
                double g = s12 / (s1 + eps);
                // Upstream converts to int32 (x86: out of range gives INT32_MIN) then clamps at 0.
                const double sv = s2 - g * s12;
                const int32_t sv_sq = sv > 0.0 ? static_cast<int32_t>(sv) : 0;
                g = std::min(g, gain_limit);
                const uint32_t numer1 = static_cast<uint32_t>(sv_sq + kSigmaNsq);
                const int64_t numer1_tmp = static_cast<int64_t>(g * g * s1) + numer1;
                sums.num_log += log2_q11(table, static_cast<uint64_t>(numer1_tmp)) -
                                log2_q11(table, static_cast<uint64_t>(numer1));
            }
        } else {
            sums.num_non_log += s2;
            sums.den_non_log += 1;
        }
    }
}

/// VIF sums of one scale over width x height pictures ref and dis.
template <typename T, typename SquareAcc>
ScaleScore scale_statistics(const View<T>& ref, const View<T>& dis, int scale, int bit_depth, double gain_limit,
                            Scratch& s) {
    const Filter& filter = kFilters[scale];
    const VerticalRounding rounding = vertical_rounding(scale, bit_depth);
    const uint16_t* table = log2_table().data();
    ScaleSums sums;
    for (int y = 0; y < ref.height; ++y) {
        vertical_statistics<T, SquareAcc>(ref, dis, y, filter, rounding, s);
        horizontal_statistics(ref.width, filter, gain_limit, table, s, sums);
    }
    ScaleScore out;
    out.num = static_cast<float>(static_cast<double>(sums.num_log) / 2048.0 +
                                 (static_cast<double>(sums.den_non_log) -
                                  (static_cast<double>(sums.num_non_log) / 16384.0) / 65025.0));
    out.den = static_cast<float>(static_cast<double>(sums.den_log) / 2048.0 + static_cast<double>(sums.den_non_log));
    return out;
}

/// Low-pass filters ref and dis with the taps of scale `scale + 1` and keeps the even rows
/// and columns: (width/2) x (height/2) pictures into ref_out/dis_out (stride width/2)
/// (upstream subsample_rd_8 / subsample_rd_16 and decimate_and_pad).
template <typename T>
void decimate(const View<T>& ref, const View<T>& dis, int scale, int bit_depth, Scratch& s, uint16_t* ref_out,
              uint16_t* dis_out) {
    const Filter& filter = kFilters[scale + 1];
    const int half = filter.half();
    const int width = ref.width;
    const int out_w = width / 2;
    const int out_h = ref.height / 2;
    const int shift = scale == 0 ? bit_depth : 16;
    const uint32_t round = 1u << (shift - 1);
    uint32_t* ref_conv = s.ref_conv.data() + kMaxHalf;
    uint32_t* dis_conv = s.dis_conv.data() + kMaxHalf;

    for (int i = 0; i < out_h; ++i) {
        const int y = 2 * i;
        const T* ref_rows[9];
        const T* dis_rows[9];
        for (int k = 0; k < filter.width; ++k) {
            const int yy = mirror(y - half + k, ref.height);
            ref_rows[k] = ref.row(yy);
            dis_rows[k] = dis.row(yy);
        }
        for (int j = 0; j < width; ++j) {
            uint32_t a_ref = 0, a_dis = 0;
            for (int k = 0; k < filter.width; ++k) {
                a_ref += filter.taps[k] * static_cast<uint32_t>(ref_rows[k][j]);
                a_dis += filter.taps[k] * static_cast<uint32_t>(dis_rows[k][j]);
            }
            ref_conv[j] = static_cast<uint16_t>((a_ref + round) >> shift);
            dis_conv[j] = static_cast<uint16_t>((a_dis + round) >> shift);
        }
        mirror_pad(ref_conv, width, half);
        mirror_pad(dis_conv, width, half);

        uint16_t* ro = ref_out + static_cast<std::ptrdiff_t>(i) * out_w;
        uint16_t* dout = dis_out + static_cast<std::ptrdiff_t>(i) * out_w;
        for (int j = 0; j < out_w; ++j) {
            uint32_t a_ref = 0, a_dis = 0;
            for (int k = 0; k < filter.width; ++k) {
                a_ref += filter.taps[k] * ref_conv[2 * j - half + k];
                a_dis += filter.taps[k] * dis_conv[2 * j - half + k];
            }
            ro[j] = static_cast<uint16_t>((a_ref + 32768) >> 16);
            dout[j] = static_cast<uint16_t>((a_dis + 32768) >> 16);
        }
    }
}

/// The integer VIF extractor for one video format.
class VifExtractor final : public FeatureExtractor {
public:
    VifExtractor(const Options& options, const VideoFormat& format)
        : options_(options),
          format_(format),
          debug_(options.get_bool("debug")),
          skip_scale0_(options.get_bool("vif_skip_scale0")),
          gain_limit_(options.get("vif_enhn_gain_limit")) {
        if (format.width < kMinSide || format.height < kMinSide)
            throw Error(fmt::format(
                "vif: luma {}x{} is too small: integer VIF needs at least {}x{} samples (its scale 3, "
                "a 1/8 decimation, must be at least 2x2)",
                format.width, format.height, kMinSide, kMinSide));
        if (format.bit_depth < 8 || format.bit_depth > 16)
            throw Error(fmt::format("vif: bit depth {} is outside 8..16", format.bit_depth));
        log2_table();  // build the shared table before frames run in parallel
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

        ScaleScore scores[kScales];
        if (format_.bit_depth == 8)
            compute<std::uint8_t>(ref, dis, scores);
        else
            compute<std::uint16_t>(ref, dis, scores);
        write(scores, out);
    }

private:
    template <typename T>
    void compute(const Plane& ref_plane, const Plane& dis_plane, ScaleScore (&scores)[kScales]) const {
        thread_local Scratch scratch;
        Scratch& s = scratch;
        s.reserve(format_.width, format_.height);
        const int bpc = format_.bit_depth;

        const View<T> ref{ref_plane.row<T>(0), ref_plane.stride() / static_cast<std::ptrdiff_t>(sizeof(T)),
                          ref_plane.width(), ref_plane.height()};
        const View<T> dis{dis_plane.row<T>(0), dis_plane.stride() / static_cast<std::ptrdiff_t>(sizeof(T)),
                          dis_plane.width(), dis_plane.height()};
        using Acc0 = std::conditional_t<sizeof(T) == 1, uint32_t, uint64_t>;
        if (!skip_scale0_) scores[0] = scale_statistics<T, Acc0>(ref, dis, 0, bpc, gain_limit_, s);

        int w = ref.width / 2;
        int h = ref.height / 2;
        decimate(ref, dis, 0, bpc, s, s.ref_scaled[0].data(), s.dis_scaled[0].data());
        for (int scale = 1; scale < kScales; ++scale) {
            const int buf = (scale - 1) % 2;
            const View<uint16_t> r{s.ref_scaled[buf].data(), w, w, h};
            const View<uint16_t> d{s.dis_scaled[buf].data(), w, w, h};
            scores[scale] = scale_statistics<uint16_t, uint64_t>(r, d, scale, bpc, gain_limit_, s);
            if (scale + 1 < kScales) {
                decimate(r, d, scale, bpc, s, s.ref_scaled[1 - buf].data(), s.dis_scaled[1 - buf].data());
                w /= 2;
                h /= 2;
            }
        }
    }

    void write(const ScaleScore (&v)[kScales], FrameScores& out) const {
        const auto put = [&](const char* feature, double value) {
            out.emplace_back(options_.feature_name(feature), value);
        };
        const auto ratio = [&](int scale) -> double { return v[scale].num / v[scale].den; };
        put("VMAF_integer_feature_vif_scale0_score", skip_scale0_ ? 0.0 : ratio(0));
        put("VMAF_integer_feature_vif_scale1_score", ratio(1));
        put("VMAF_integer_feature_vif_scale2_score", ratio(2));
        put("VMAF_integer_feature_vif_scale3_score", ratio(3));
        if (!debug_) return;

        double num = 0.0, den = 0.0;
        if (skip_scale0_) {
            num = static_cast<double>(v[1].num) + v[2].num + v[3].num;
            den = static_cast<double>(v[1].den) + v[2].den + v[3].den;
        } else {
            num = static_cast<double>(v[0].num) + v[1].num + v[2].num + v[3].num;
            den = static_cast<double>(v[0].den) + v[1].den + v[2].den + v[3].den;
        }
        put("integer_vif", den == 0.0 ? 1.0 : num / den);
        put("integer_vif_num", num);
        put("integer_vif_den", den);
        put("integer_vif_num_scale0", skip_scale0_ ? 0.0 : v[0].num);
        put("integer_vif_den_scale0", skip_scale0_ ? -1.0 : v[0].den);
        put("integer_vif_num_scale1", v[1].num);
        put("integer_vif_den_scale1", v[1].den);
        put("integer_vif_num_scale2", v[2].num);
        put("integer_vif_den_scale2", v[2].den);
        put("integer_vif_num_scale3", v[3].num);
        put("integer_vif_den_scale3", v[3].den);
    }

    Options options_;
    VideoFormat format_;
    bool debug_;
    bool skip_scale0_;
    double gain_limit_;
};

/// Upstream's option table of "vif" (integer_vif.c `options`).
constexpr OptionSpec kOptions[] = {
    {"debug", nullptr, OptionType::kBool, 0.0, 0.0, 1.0, false, "debug mode: enable additional output"},
    {"vif_enhn_gain_limit", "egl", OptionType::kDouble, 100.0, 1.0, 100.0, true,
     "enhancement gain imposed on vif, must be >= 1.0, where 1.0 means the gain is completely disabled"},
    {"vif_skip_scale0", "ssclz", OptionType::kBool, 0.0, 0.0, 1.0, true, "when set, skip scale 0 calculations"},
};

}  // namespace

const ExtractorInfo& vif_extractor_info() {
    static const ExtractorInfo info{
        "vif",
        kOptions,
        {"VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
         "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score", "integer_vif",
         "integer_vif_num", "integer_vif_den", "integer_vif_num_scale0", "integer_vif_den_scale0",
         "integer_vif_num_scale1", "integer_vif_den_scale1", "integer_vif_num_scale2", "integer_vif_den_scale2",
         "integer_vif_num_scale3", "integer_vif_den_scale3"},
        [](const Options& options, const VideoFormat& format) -> std::unique_ptr<FeatureExtractor> {
            return std::make_unique<VifExtractor>(options, format);
        }};
    return info;
}

}  // namespace vmafx
