// CPU reference of psnr_hvs (see psnr_hvs.hpp): upstream's float arithmetic kept operation by
// operation (float accumulators, the same conversions and the same order), the DCT in int32.
// The per-block arithmetic (DCT, variance ratios, masking, the 64 terms) is psnr_hvs_math.hpp,
// shared with the CUDA twin; the plane's running sum, the divisions and the dB scores are here
// (finish_plane_score, Outputs: the twin's finish() calls them too).
#include "feature/psnr_hvs/psnr_hvs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>

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

/// The tables of the three planes (see PlaneTables): the masking weight of each coefficient is
/// (csf * c)^2 with c = 0.3885746225901003, the product in double (float times a double
/// constant), the square rounded to float (upstream's `mask`).
struct AllTables {
    PlaneTables plane[3];
    AllTables() {
        for (int p = 0; p < 3; ++p)
            for (int i = 0; i < 8; ++i)
                for (int j = 0; j < 8; ++j) {
                    plane[p].csf[i * 8 + j] = kCsf[p][i][j];
                    const double scaled = static_cast<double>(kCsf[p][i][j]) * 0.3885746225901003;
                    plane[p].mask[i * 8 + j] = static_cast<float>(scaled * scaled);
                }
    }
};

}  // namespace

const PlaneTables& plane_tables(int plane) {
    static const AllTables tables;
    return tables.plane[plane];
}

void fdct8(std::int32_t out[8], const std::int32_t* in, int stride) {
    std::int32_t src[64] = {};
    std::int32_t dst[64] = {};
    for (int k = 0; k < 8; ++k) src[k] = in[static_cast<std::ptrdiff_t>(k) * stride];
    math::fdct8(dst, 0, src, 0, 1);
    for (int k = 0; k < 8; ++k) out[k] = dst[k];
}

void fdct8x8(std::int32_t block[64]) {
    std::int32_t b[64];
    for (int k = 0; k < 64; ++k) b[k] = block[k];
    math::fdct8x8(b);
    for (int k = 0; k < 64; ++k) block[k] = b[k];
}

template <typename Sample>
float plane_score(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dist, std::ptrdiff_t dist_stride,
                  int width, int height, int bit_depth, int plane) {
    const PlaneTables& tables = plane_tables(plane);
    const auto* ref_bytes = reinterpret_cast<const std::uint8_t*>(ref);
    const auto* dist_bytes = reinterpret_cast<const std::uint8_t*>(dist);
    float sum = 0;
    int coefficients = 0;
    std::int32_t s[64];
    std::int32_t d[64];
    float terms[64];
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
            math::block_terms(s, d, tables, terms);
            // Upstream's running float sum, every coefficient of the block in row-major order.
            for (const float t : terms) sum += t;
            coefficients += 64;
        }
    }
    return finish_plane_score(sum, coefficients, bit_depth);
}

float finish_plane_score(float sum, int coefficients, int bit_depth) {
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

}  // namespace

Outputs::Outputs(const Options& options) {
    for (int k = 0; k < 4; ++k) names_[k] = options.feature_name(kFeatures[k].name);
}

void Outputs::write(const float score[3], FrameScores& out) const {
    for (int p = 0; p < 3; ++p) out.emplace_back(names_[p], to_db(score[p]));
    const double combined = static_cast<double>(score[0]) * .8 + .1 * (static_cast<double>(score[1]) + score[2]);
    out.emplace_back(names_[3], to_db(combined));
}

TwinPlan::TwinPlan(const VideoFormat& format, std::string twin) : format_(format), twin_(std::move(twin)) {
    if (format.bit_depth < 8 || format.bit_depth > 12)
        throw Error(fmt::format("{}: bit depth {} outside 8..12", twin_, format.bit_depth));
    for (int p = 0; p < 3; ++p) {
        blocks_x_[p] = math::blocks_along(format.plane_width(p));
        blocks_y_[p] = math::blocks_along(format.plane_height(p));
        terms_[p] = 64 * static_cast<std::size_t>(blocks_x_[p]) * static_cast<std::size_t>(blocks_y_[p]);
        if (terms_[p] > static_cast<std::size_t>(std::numeric_limits<int>::max()))
            throw Error(fmt::format("{}: plane {} has too many coefficients", twin_, p));
    }
}

std::size_t TwinPlan::slot_terms() const { return std::max<std::size_t>(terms_[0] + terms_[1] + terms_[2], 1); }

void TwinPlan::check_pitch(std::ptrdiff_t pitch, int p) const {
    const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.plane_width(p)) * format_.bytes_per_sample();
    if (pitch < row_bytes)
        throw Error(fmt::format("{}: plane {} pitch {} bytes is below its rows of {} bytes", twin_, p, pitch,
                                row_bytes));
}

void TwinPlan::write_scores(const float sums[3], const Outputs& outputs, FrameScores& out) const {
    float score[3];
    for (int p = 0; p < 3; ++p)
        score[p] = finish_plane_score(sums[p], static_cast<int>(terms_[p]), format_.bit_depth);
    outputs.write(score, out);
}

namespace {

class Extractor final : public FeatureExtractor {
public:
    Extractor(const Options& options, const VideoFormat& format) : format_(format), outputs_(options) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        if (!in.ref || !in.dist) throw Error("psnr_hvs: missing reference or distorted picture");
        float score[3];
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
        }
        outputs_.write(score, out);
    }

private:
    VideoFormat format_;
    Outputs outputs_;
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
    .name = "psnr_hvs", .oracle = {kLibvmaf, "libvmaf/src/feature/third_party/xiph/psnr_hvs.c"},
    .options = {}, .features = kFeatures, .planes = all_planes,
    .limits = {1, 1, BitDepths::range(8, 12), ""},
    .create = create};

}  // namespace vmafx::psnr_hvs
