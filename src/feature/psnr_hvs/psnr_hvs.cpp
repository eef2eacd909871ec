// CPU reference of psnr_hvs (see psnr_hvs.hpp): upstream's float arithmetic kept operation by
// operation (float accumulators, the same conversions and the same order), the DCT in int32.
#include "feature/psnr_hvs/psnr_hvs.hpp"

#include <cmath>
#include <memory>
#include <string>

#include <fmt/format.h>

namespace vmafx::psnr_hvs {

namespace {

// Contrast sensitivity tables of upstream (csf_y, csf_cb420, csf_cr420): upstream writes them
// as double literals in `float` arrays, so each is the double literal rounded to float (the
// same conversion happens here: the literals below are doubles).
constexpr float kCsf[3][8][8] = {
    {{1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411, 1.00227514334, 0.678296995242, 0.466224900598,
      0.3265091542},
     {2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984, 1.2305666963, 0.868920337363, 0.61280991668,
      0.436405793551},
     {2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862, 0.875748795257, 0.670882927016, 0.501731932449,
      0.372504254596},
     {1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575, 0.605636379554, 0.48309405692, 0.380429446972,
      0.295774038565},
     {1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554, 0.448996256676, 0.352889268808, 0.283006984131,
      0.226951348204},
     {0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692, 0.352889268808, 0.27032073436, 0.215017739696,
      0.17408067321},
     {0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972, 0.283006984131, 0.215017739696, 0.168869545842,
      0.136153931001},
     {0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565, 0.226951348204, 0.17408067321, 0.136153931001,
      0.109083846276}},
    {{1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193, 1.05017074788, 0.898018824055, 0.74725392039,
      0.615105596242},
     {2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285, 1.33100189972, 1.17428548929, 0.996404342439,
      0.830890433625},
     {1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078, 1.03145147362, 0.960060382087, 0.849823426169,
      0.731221236837},
     {1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629, 0.801821139099, 0.751437590932, 0.685398513368,
      0.608694761374},
     {1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099, 0.676555426187, 0.605503172737, 0.55002013668,
      0.495804539034},
     {0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932, 0.605503172737, 0.514674450957, 0.454353482512,
      0.407050308965},
     {0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368, 0.55002013668, 0.454353482512, 0.389234902883,
      0.342353999733},
     {0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374, 0.495804539034, 0.407050308965, 0.342353999733,
      0.295530605237}},
    {{2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803, 1.01397751469, 0.867069376285, 0.721500455585,
      0.593906509971},
     {2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857, 1.28513006198, 1.13381474809, 0.962064122248,
      0.802254508198},
     {1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848, 0.995903384143, 0.926972725286, 0.820534991409,
      0.706020324706},
     {1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426, 0.77418706195, 0.725539939514, 0.661776842059,
      0.587716619023},
     {1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195, 0.653238524286, 0.584635025748, 0.531064164893,
      0.478717061273},
     {0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514, 0.584635025748, 0.496936637883, 0.438694579826,
      0.393021669543},
     {0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059, 0.531064164893, 0.438694579826, 0.375820256136,
      0.330555063063},
     {0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023, 0.478717061273, 0.393021669543, 0.330555063063,
      0.285345396658}},
};

/// The masking table of a plane: (csf * c)^2 with c = 0.3885746225901003, each product in
/// double (float times a double constant), the square rounded to float (upstream's `mask`).
struct MaskTable {
    float m[8][8];
    explicit MaskTable(const float (&csf)[8][8]) {
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 8; ++j) {
                const double scaled = static_cast<double>(csf[i][j]) * 0.3885746225901003;
                m[i][j] = static_cast<float>(scaled * scaled);
            }
    }
};

const MaskTable& mask_table(int plane) {
    static const MaskTable tables[3] = {MaskTable(kCsf[0]), MaskTable(kCsf[1]), MaskTable(kCsf[2])};
    return tables[plane];
}

// 32-bit int arithmetic wrapping as upstream's `int` does on x86-64 (its products do not
// overflow for samples of at most 12 bits, but the wrap keeps this free of undefined
// behaviour whatever the input).
inline std::int32_t add(std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
inline std::int32_t sub(std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
/// (v * mul + 2^(shift-1)) >> shift, arithmetic shift (one lifting step's product).
inline std::int32_t scaled(std::int32_t v, std::int32_t mul, int shift) {
    const auto p = static_cast<std::uint32_t>(v) * static_cast<std::uint32_t>(mul) + (1u << (shift - 1));
    return static_cast<std::int32_t>(p) >> shift;
}
/// |a - b| as upstream's abs() of the int difference gives it on x86-64 (the negation wraps:
/// only samples above the bit depth could reach -2^31, which stays -2^31).
inline std::int32_t abs_diff(std::int32_t a, std::int32_t b) {
    const std::int32_t d = sub(a, b);
    return d < 0 ? sub(0, d) : d;
}
/// v / 2 rounded toward zero (OD_DCT_RSHIFT(v, 1): the sign bit added before the shift).
inline std::int32_t half(std::int32_t v) {
    return add(v, static_cast<std::int32_t>(static_cast<std::uint32_t>(v) >> 31)) >> 1;
}

}  // namespace

void fdct8(std::int32_t out[8], const std::int32_t* in, int stride) {
    // Inputs in the transform's permuted order.
    std::int32_t t0 = in[0 * stride], t4 = in[1 * stride], t2 = in[2 * stride], t6 = in[3 * stride];
    std::int32_t t7 = in[4 * stride], t3 = in[5 * stride], t5 = in[6 * stride], t1 = in[7 * stride];
    // Butterflies.
    t1 = sub(t0, t1);
    const std::int32_t t1h = half(t1);
    t0 = sub(t0, t1h);
    t4 = add(t4, t5);
    const std::int32_t t4h = half(t4);
    t5 = sub(t5, t4h);
    t3 = sub(t2, t3);
    t2 = sub(t2, half(t3));
    t6 = add(t6, t7);
    const std::int32_t t6h = half(t6);
    t7 = sub(t6h, t7);
    // 4-point DCT-II of the even half.
    t0 = add(t0, t6h);
    t6 = sub(t0, t6);
    t2 = sub(t4h, t2);
    t4 = sub(t2, t4);
    // Its 2-point DCT-II: sqrt(2) - 1, sqrt(1/2), sqrt(2) - 1.
    t0 = sub(t0, scaled(t4, 13573, 15));
    t4 = add(t4, scaled(t0, 11585, 14));
    t0 = sub(t0, scaled(t4, 13573, 15));
    // Its 2-point DST-IV: rotation by 3 pi / 8 in three lifts.
    t6 = sub(t6, scaled(t2, 21895, 15));
    t2 = add(t2, scaled(t6, 15137, 14));
    t6 = sub(t6, scaled(t2, 21895, 15));
    // 4-point DST-IV of the odd half.
    t3 = add(t3, scaled(t5, 19195, 15));
    t5 = add(t5, scaled(t3, 11585, 14));
    t3 = sub(t3, scaled(t5, 7489, 13));
    t7 = sub(half(t5), t7);
    t5 = sub(t5, t7);
    t3 = sub(t1h, t3);
    t1 = sub(t1, t3);
    // Rotation by pi / 16.
    t7 = add(t7, scaled(t1, 3227, 15));
    t1 = sub(t1, scaled(t7, 6393, 15));
    t7 = add(t7, scaled(t1, 3227, 15));
    // Rotation by 3 pi / 16.
    t5 = add(t5, scaled(t3, 2485, 13));
    t3 = sub(t3, scaled(t5, 18205, 15));
    t5 = add(t5, scaled(t3, 2485, 13));
    out[0] = t0;
    out[1] = t1;
    out[2] = t2;
    out[3] = t3;
    out[4] = t4;
    out[5] = t5;
    out[6] = t6;
    out[7] = t7;
}

void fdct8x8(std::int32_t block[64]) {
    std::int32_t columns[64];
    for (int c = 0; c < 8; ++c) fdct8(columns + 8 * c, block + c, 8);
    for (int c = 0; c < 8; ++c) fdct8(block + 8 * c, columns + c, 8);
}

namespace {

/// Per-block statistics of one picture's 8x8 block (upstream's *_gmean, *_means, *_gvar,
/// *_vars, then *_mask), in upstream's float operations.
struct BlockStats {
    /// The variance ratio: sum of the four 4x4 quadrants' variances over the block's variance
    /// (each an unbiased estimate, scaled by n / (n - 1) as a float constant); the block's
    /// variance itself where that is not above 0.
    static float variance_ratio(const std::int32_t s[64]) {
        float gmean = 0;
        float means[4] = {0, 0, 0, 0};
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 8; ++j) {
                const int q = quadrant(i, j);
                gmean += static_cast<float>(s[i * 8 + j]);
                means[q] += static_cast<float>(s[i * 8 + j]);
            }
        gmean /= 64.f;
        for (float& m : means) m /= 16.f;
        float gvar = 0;
        float vars[4] = {0, 0, 0, 0};
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 8; ++j) {
                const int q = quadrant(i, j);
                const float dg = static_cast<float>(s[i * 8 + j]) - gmean;
                const float dq = static_cast<float>(s[i * 8 + j]) - means[q];
                gvar += dg * dg;
                vars[q] += dq * dq;
            }
        constexpr float kBlock = 1 / 63.f * 64;
        constexpr float kQuadrant = 1 / 15.f * 16;
        gvar *= kBlock;
        for (float& v : vars) v *= kQuadrant;
        if (gvar > 0) gvar = (vars[0] + vars[1] + vars[2] + vars[3]) / gvar;
        return gvar;
    }
    /// Quadrant of (row i, column j): 0 top left, 1 bottom left, 2 top right, 3 bottom right.
    static int quadrant(int i, int j) { return ((i & 12) >> 2) + ((j & 12) >> 1); }

    /// The masking level of a transformed block: sqrt(AC energy weighted by `mask` times the
    /// variance ratio) / 32 (the square root in double, the result rounded to float).
    static float masking(const std::int32_t dct[64], float ratio, const MaskTable& mask) {
        float energy = 0;
        for (int i = 0; i < 8; ++i)
            for (int j = i == 0 ? 1 : 0; j < 8; ++j) {
                const std::int32_t c = dct[i * 8 + j];
                // int * int (no overflow: |c| < 2^15 for samples of at most 12 bits), then float.
                energy += static_cast<float>(static_cast<std::int32_t>(static_cast<std::uint32_t>(c) *
                                                                        static_cast<std::uint32_t>(c))) *
                          mask.m[i][j];
            }
        return static_cast<float>(std::sqrt(static_cast<double>(energy * ratio)) / 32.0);
    }
};

}  // namespace

template <typename Sample>
float plane_score(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dist, std::ptrdiff_t dist_stride,
                  int width, int height, int bit_depth, int plane) {
    const float (&csf)[8][8] = kCsf[plane];
    const MaskTable& mask = mask_table(plane);
    const auto* ref_bytes = reinterpret_cast<const std::uint8_t*>(ref);
    const auto* dist_bytes = reinterpret_cast<const std::uint8_t*>(dist);
    float sum = 0;
    int coefficients = 0;
    std::int32_t s[64];
    std::int32_t d[64];
    for (int y = 0; y < height - 7; y += 7) {
        for (int x = 0; x < width - 7; x += 7) {
            for (int i = 0; i < 8; ++i) {
                const auto* rrow = reinterpret_cast<const Sample*>(ref_bytes + (y + i) * ref_stride);
                const auto* drow = reinterpret_cast<const Sample*>(dist_bytes + (y + i) * dist_stride);
                for (int j = 0; j < 8; ++j) {
                    s[i * 8 + j] = rrow[x + j];
                    d[i * 8 + j] = drow[x + j];
                }
            }
            const float s_ratio = BlockStats::variance_ratio(s);
            const float d_ratio = BlockStats::variance_ratio(d);
            fdct8x8(s);
            fdct8x8(d);
            float level = BlockStats::masking(s, s_ratio, mask);
            const float d_level = BlockStats::masking(d, d_ratio, mask);
            if (d_level > level) level = d_level;
            for (int i = 0; i < 8; ++i)
                for (int j = 0; j < 8; ++j) {
                    float err = static_cast<float>(abs_diff(s[i * 8 + j], d[i * 8 + j]));
                    if (i != 0 || j != 0) {
                        const float threshold = level / mask.m[i][j];
                        err = err < threshold ? 0 : err - threshold;
                    }
                    sum += (err * csf[i][j]) * (err * csf[i][j]);
                    ++coefficients;
                }
        }
    }
    sum /= static_cast<float>(coefficients);
    const std::int32_t max_sample = (1 << bit_depth) - 1;
    sum /= static_cast<float>(max_sample * max_sample);
    return sum;
}

template float plane_score<std::uint8_t>(const std::uint8_t*, std::ptrdiff_t, const std::uint8_t*, std::ptrdiff_t,
                                         int, int, int, int);
template float plane_score<std::uint16_t>(const std::uint16_t*, std::ptrdiff_t, const std::uint16_t*,
                                          std::ptrdiff_t, int, int, int, int);

double to_db(double score) { return 10 * -std::log10(score); }

namespace {

constexpr FeatureName kFeatures[] = {{"psnr_hvs_y"}, {"psnr_hvs_cb"}, {"psnr_hvs_cr"}, {"psnr_hvs"}};

class Extractor final : public FeatureExtractor {
public:
    Extractor(const Options& options, const VideoFormat& format) : format_(format) {
        for (int k = 0; k < 4; ++k) names_[k] = options.feature_name(kFeatures[k].name);
    }

    void extract(const FrameInput& in, FrameScores& out) const override {
        if (!in.ref || !in.dist) throw Error("psnr_hvs: missing reference or distorted picture");
        double score[3];
        for (int p = 0; p < 3; ++p) {
            const Plane& r = in.ref->planes[p];
            const Plane& d = in.dist->planes[p];
            for (const Plane* q : {&r, &d})
                if (q->width() != format_.plane_width(p) || q->height() != format_.plane_height(p) ||
                    q->bytes_per_sample() != format_.bytes_per_sample())
                    throw Error(fmt::format("psnr_hvs: frame {}: plane {} is {}x{} with {}-byte samples, expected "
                                            "{}x{} with {}-byte samples",
                                            in.index, p, q->width(), q->height(), q->bytes_per_sample(),
                                            format_.plane_width(p), format_.plane_height(p),
                                            format_.bytes_per_sample()));
            score[p] = format_.bit_depth == 8
                           ? plane_score(r.row<std::uint8_t>(0), r.stride(), d.row<std::uint8_t>(0), d.stride(),
                                         r.width(), r.height(), format_.bit_depth, p)
                           : plane_score(r.row<std::uint16_t>(0), r.stride(), d.row<std::uint16_t>(0), d.stride(),
                                         r.width(), r.height(), format_.bit_depth, p);
            out.emplace_back(names_[p], to_db(score[p]));
        }
        const double combined = score[0] * .8 + .1 * (score[1] + score[2]);
        out.emplace_back(names_[3], to_db(combined));
    }

private:
    VideoFormat format_;
    std::string names_[4];
};

std::unique_ptr<FeatureExtractor> create(const Options& options, const VideoFormat& format) {
    return std::make_unique<Extractor>(options, format);
}

}  // namespace

// No size limit: a plane without an 8x8 block (narrower or lower than 8) has no coefficient,
// and its score is 0 / 0 = NaN as upstream's (null in its JSON), which makes the combined score
// NaN too; the other planes keep their scores (upstream 3.2.0 writes them so, e.g. psnr_hvs_y
// of an 8x8 4:2:0 picture beside null chroma scores).
const MetricDescriptor descriptor{
    .name = "psnr_hvs", .upstream_source = "libvmaf/src/feature/third_party/xiph/psnr_hvs.c",
    .options = {}, .features = kFeatures, .planes = PlaneSet::kAll,
    .limits = {1, 1, 8, 12, ""},
    .create = create};

}  // namespace vmafx::psnr_hvs
