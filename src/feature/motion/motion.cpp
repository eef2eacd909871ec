// Integer MOTION, bit-exact to upstream libvmaf 3.2.0 (src/feature/integer_motion.c and its
// x86 pipelines x86/motion_avx2.c, x86/motion_avx512.c, which produced the golden values).
#include "feature/motion/motion.hpp"

#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "feature/common/motion_blend.hpp"
#include "feature/motion/motion_kernels.hpp"
#include "feature/motion/motion_math.hpp"

namespace vmafx {

namespace {

using motion::Settings;

// Option table, as upstream's `options[]` of integer_motion.c.
constexpr OptionSpec kMotionOptions[] = {
    option<&Settings::force_zero>("motion_force_zero", "force_0", 0, 0, 1, OptionRole::kFeatureParameter, "forcing motion score to zero"),
    option<&Settings::blend_factor>("motion_blend_factor", "mbf", 1.0, 0.0, 1.0, OptionRole::kFeatureParameter,
                                    "blend motion score given an offset").also_at("0.5"),
    option<&Settings::blend_offset>("motion_blend_offset", "mbo", 40.0, 0.0, 1000.0, OptionRole::kFeatureParameter,
                                    "blend motion score starting from this offset"),
    option<&Settings::fps_weight>("motion_fps_weight", "mfw", 1.0, 0.0, 5.0, OptionRole::kFeatureParameter,
                                  "fps-aware multiplicative weight/correction").also_at("2.5"),
    option<&Settings::max_val>("motion_max_val", "mmxv", 10000.0, 0.0, 10000.0, OptionRole::kFeatureParameter,
                               "maximum value allowed; larger values will be clipped to this value").also_at("5"),
    option<&Settings::five_frame_window>("motion_five_frame_window", "mffw", 0, 0, 1, OptionRole::kFeatureParameter,
                                         "use five-frame temporal window"),
    option<&Settings::moving_average>("motion_moving_average", "mma", 0, 0, 1, OptionRole::kFeatureParameter,
                                      "use moving average for motion scores after first frame"),
    option<&Settings::debug>("debug", nullptr, 0, 0, 1, OptionRole::kSetting, "debug mode: enable additional output"),
};

constexpr const char* kSadFeature = "VMAF_integer_feature_motion_sad_score";
constexpr const char* kMotionFeature = "VMAF_integer_feature_motion_score";
constexpr const char* kMotion2Feature = "VMAF_integer_feature_motion2_score";
constexpr const char* kMotion3Feature = "VMAF_integer_feature_motion3_score";

// Upstream's provided_features[] with their aliases (alias.c).
constexpr FeatureName kMotionFeatures[] = {
    {kSadFeature},
    {kMotionFeature, "integer_motion"},
    {kMotion2Feature, "integer_motion2"},
    {kMotion3Feature, "integer_motion3"},
};

// The smaller of a and b, written as upstream's MIN macro (a if a < b, else b).
inline double min_of(double a, double b) { return a < b ? a : b; }

// Sum of |blurred difference| over one row of the vertically blurred difference y (width
// samples), wrapping modulo 2^32 as upstream's uint32_t row sum does. Columns
// [2, lane_columns_end) are blurred as upstream's AVX-512 lanes do (wrapping at 32 bits, see
// motion_math.hpp), the others (the scalar path at the edges) exactly with mirrored columns.
std::uint32_t row_sad(const std::int32_t* y, int width) {
    using motion::mirror;
    const auto exact_at = [&](int j) {
        return motion::horizontal_blur_exact(y[mirror(j - 2, width)], y[mirror(j - 1, width)], y[j],
                                             y[mirror(j + 1, width)], y[mirror(j + 2, width)]);
    };
    const int lane_end = motion::lane_columns_end(width);

    std::uint32_t sum = 0;
    for (int j = 0; j < 2 && j < width; ++j) sum += motion::magnitude(exact_at(j));
    for (int j = 2; j < lane_end; ++j)
        sum += motion::magnitude(motion::horizontal_blur_lane(y[j - 2], y[j - 1], y[j], y[j + 1], y[j + 2]));
    for (int j = lane_end; j < width; ++j) sum += motion::magnitude(exact_at(j));
    return sum;
}

// Vertical blur of one row of prev - cur (the reference of motion::RowKernels::vertical_*).
template <typename Sample>
std::int32_t vertical_row(const Sample* const p[5], const Sample* const c[5], int width, int bit_depth,
                          std::int32_t* y) {
    std::int32_t any_nonzero = 0;
    for (int j = 0; j < width; ++j) {
        y[j] = motion::vertical_blur<Sample>(
            motion::sample_difference(p[0][j], c[0][j]), motion::sample_difference(p[1][j], c[1][j]),
            motion::sample_difference(p[2][j], c[2][j]), motion::sample_difference(p[3][j], c[3][j]),
            motion::sample_difference(p[4][j], c[4][j]), bit_depth);
        any_nonzero |= y[j];
    }
    return any_nonzero;
}

// Sum over the rows of row_sad() of blur(prev - cur), the blur being the 5-tap filter
// vertically (rounded to Q(16 - bit_depth), i.e. shifted right by bit_depth) then horizontally
// (rounded, shifted right by 16), both with mirrored edges. `prev` and `cur` are luma planes of
// the same width x height (>= 3 x 3) with samples of type Sample (uint8_t at 8 bits, uint16_t
// above). Upstream: integer_motion.c motion_score_pipeline_8 / motion_score_pipeline_16 and
// their AVX2/AVX-512 versions (all identical for in-range samples).
template <typename Sample>
std::uint64_t blurred_difference_sad(const Plane& prev, const Plane& cur, int bit_depth) {
    const int width = cur.width();
    const int height = cur.height();
    const motion::RowKernels& kernels = motion::simd_kernels();
    std::vector<std::int32_t> y_row(static_cast<std::size_t>(width));

    std::uint64_t sad = 0;
    for (int i = 0; i < height; ++i) {
        const Sample* p[5];
        const Sample* c[5];
        for (int k = 0; k < 5; ++k) {
            const int r = motion::mirror(i - motion::kRadius + k, height);
            p[k] = prev.row<Sample>(r);
            c[k] = cur.row<Sample>(r);
        }
        std::int32_t any_nonzero = 0;
        if constexpr (sizeof(Sample) == 1) any_nonzero = kernels.vertical_u8(p, c, width, bit_depth, y_row.data());
        else any_nonzero = kernels.vertical_u16(p, c, width, bit_depth, y_row.data());
        // An all-zero row blurs to zero: skipping it changes nothing.
        if (any_nonzero) sad += kernels.row_sad(y_row.data(), width);
    }
    return sad;
}

class MotionExtractor final : public FeatureExtractor {
public:
    MotionExtractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {}

    // integer_motion.c extract(): the sad score of frame in.index (0 for the first frame(s)).
    void extract(const FrameInput& in, FrameScores& out) const override {
        double score = 0.0;
        if (settings_.scores_frame(in.index)) {
            const Picture* prev = in.prev_ref[settings_.first_scored_index() - 1];
            if (!prev)
                throw Error(fmt::format("motion: frame {} needs the reference picture of frame {}", in.index,
                                        in.index - settings_.first_scored_index()));
            check_luma(in.ref, "reference");
            check_luma(prev, "previous reference");
            const std::uint64_t sad =
                format_.bit_depth == 8
                    ? blurred_difference_sad<std::uint8_t>(prev->luma(), in.ref->luma(), 8)
                    : blurred_difference_sad<std::uint16_t>(prev->luma(), in.ref->luma(), format_.bit_depth);
            score = settings_.sad_score(sad, format_.width, format_.height);
        }
        settings_.write_frame(score, out);
    }

    void flush(ScoreTable& table) const override { settings_.flush(table); }

private:
    void check_luma(const Picture* pic, const char* what) const {
        if (!pic) throw Error(fmt::format("motion: no {} picture", what));
        const Plane& luma = pic->luma();
        if (luma.width() != format_.width || luma.height() != format_.height ||
            luma.bytes_per_sample() != format_.bytes_per_sample())
            throw Error(fmt::format("motion: {} luma is {}x{} with {}-byte samples, expected {}x{} with {}",
                                    what, luma.width(), luma.height(), luma.bytes_per_sample(),
                                    format_.width, format_.height, format_.bytes_per_sample()));
    }

    VideoFormat format_;
    motion::Settings settings_;
};

std::unique_ptr<FeatureExtractor> create_motion(const Options& options, const VideoFormat& format) {
    return std::make_unique<MotionExtractor>(options, format);
}

History motion_history(const Options& options) { return {Settings(options).first_scored_index(), 0}; }

// From Settings::flush: frame i's SAD needs first_scored_index() frames before it; its motion2
// the SAD of frame i + 1 and, with the five-frame window, of frame i - 1 (whose SAD needs its
// own frames before); its motion3 with the moving average frame i - 1's motion2 too. The frames
// a run starts with, before first_scored_index(), take the score of frame first_scored_index()
// (the stamp value): after is that many frames, at least the one motion2 needs.
TemporalContext motion_context(const Options& options) {
    const Settings s(options);
    const unsigned stride = s.five_frame_window ? 2 : 1;
    return {s.first_scored_index() + (stride - 1) + (s.moving_average ? 1u : 0u), s.first_scored_index(), false};
}

// integer_motion.c writes motion2 and motion3 of every frame at its flush, from the SAD scores.
FirstWrite motion_first_write(const Options&, const std::string& feature) {
    return feature == kMotion2Feature || feature == kMotion3Feature ? FirstWrite::kFlush : FirstWrite::kFirstCall;
}

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "motion_blend_factor=0.5:motion_blend_offset=10",
    "motion_five_frame_window=true:motion_moving_average=true",
    "motion_force_zero=true:motion_five_frame_window=true",
};

}  // namespace

namespace motion {

const MetricDescriptor descriptor{
    .name = "motion", .oracle = {kLibvmaf, "libvmaf/src/feature/integer_motion.c"},
    .options = kMotionOptions, .features = kMotionFeatures, .history = motion_history,
    .context = motion_context,
    .limits = {kRadius + 1, kRadius + 1, kEveryBitDepth,
               "(the 5-tap mirrored blur needs 3 samples; upstream reads outside the picture below)"},
    .first_write = motion_first_write, .create = create_motion, .corner_base = "debug=true", .corner_sets = kCornerSets};

const RowKernels& reference_kernels() {
    static const RowKernels kernels{"reference", vertical_row<std::uint8_t>, vertical_row<std::uint16_t>, row_sad};
    return kernels;
}

Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options)
    : sad_name(options.feature_name(kSadFeature)),
      motion_name(options.feature_name(kMotionFeature)),
      motion2_name(options.feature_name(kMotion2Feature)),
      motion3_name(options.feature_name(kMotion3Feature)) {
    options.bind(*this);
}

double Settings::sad_score(std::uint64_t sad, int width, int height) const {
    // Upstream multiplies width and height as unsigned.
    const unsigned area = static_cast<unsigned>(width) * static_cast<unsigned>(height);
    return min_of(static_cast<double>(sad) / 256.0 / static_cast<double>(area) * fps_weight, max_val);
}

void Settings::write_frame(double score, FrameScores& out) const {
    out.emplace_back(sad_name, score);
    if (debug) out.emplace_back(motion_name, score);
}

void Settings::flush(ScoreTable& table) const {
    unsigned n = 0;
    while (table.get(sad_name, n)) ++n;
    if (n == 0) return;
    const auto sad = [&](unsigned i) { return *table.get(sad_name, i); };
    const unsigned min_idx = first_scored_index();
    const unsigned stride = five_frame_window ? 2 : 1;

    // Frames before min_idx have no motion of their own: they get the clipped, blended
    // score of the first frame that has.
    double stamp_value = 0.0;
    if (n > min_idx) stamp_value = min_of(motion::motion_blend(sad(min_idx), blend_factor, blend_offset), max_val);

    double prev_processed = 0.0;
    for (unsigned i = 0; i < n; ++i) {
        double motion2 = 0.0;
        if (i >= min_idx) {
            if (i + 1 >= n) {
                motion2 = sad(i);  // last frame: no later one to compare with
            } else {
                const double hi = sad(i + 1);
                const unsigned lo_idx = i - (stride - 1);
                if (lo_idx >= min_idx) {
                    const double lo = sad(lo_idx);
                    motion2 = lo < hi ? lo : hi;
                } else {
                    motion2 = hi;
                }
            }
        }
        table.set(motion2_name, i, motion2);

        double motion3 = stamp_value;
        if (i < min_idx) {
            prev_processed = stamp_value;
        } else {
            const double processed = min_of(motion::motion_blend(motion2, blend_factor, blend_offset), max_val);
            motion3 = moving_average ? (processed + prev_processed) / 2.0 : processed;
            prev_processed = processed;
        }
        table.set(motion3_name, i, motion3);
    }
}

}  // namespace motion

}  // namespace vmafx
