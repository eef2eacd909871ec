// Integer MOTION, bit-exact to upstream libvmaf 3.2.0 (src/feature/integer_motion.c and its
// x86 pipelines x86/motion_avx2.c, x86/motion_avx512.c, which produced the golden values).
#include "feature/motion/motion.hpp"

#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

namespace vmafx {

namespace {

// Option table, as upstream's `options[]` of integer_motion.c.
constexpr OptionSpec kMotionOptions[] = {
    {"motion_force_zero", "force_0", OptionType::kBool, 0.0, 0.0, 1.0, true,
     "forcing motion score to zero"},
    {"motion_blend_factor", "mbf", OptionType::kDouble, 1.0, 0.0, 1.0, true,
     "blend motion score given an offset"},
    {"motion_blend_offset", "mbo", OptionType::kDouble, 40.0, 0.0, 1000.0, true,
     "blend motion score starting from this offset"},
    {"motion_fps_weight", "mfw", OptionType::kDouble, 1.0, 0.0, 5.0, true,
     "fps-aware multiplicative weight/correction"},
    {"motion_max_val", "mmxv", OptionType::kDouble, 10000.0, 0.0, 10000.0, true,
     "maximum value allowed; larger values will be clipped to this value"},
    {"motion_five_frame_window", "mffw", OptionType::kBool, 0.0, 0.0, 1.0, true,
     "use five-frame temporal window"},
    {"motion_moving_average", "mma", OptionType::kBool, 0.0, 0.0, 1.0, true,
     "use moving average for motion scores after first frame"},
    {"debug", nullptr, OptionType::kBool, 0.0, 0.0, 1.0, false,
     "debug mode: enable additional output"},
};

constexpr const char* kSadFeature = "VMAF_integer_feature_motion_sad_score";
constexpr const char* kMotionFeature = "VMAF_integer_feature_motion_score";
constexpr const char* kMotion2Feature = "VMAF_integer_feature_motion2_score";
constexpr const char* kMotion3Feature = "VMAF_integer_feature_motion3_score";

// The 5-tap blur (integer_motion.h `filter`), a Gaussian in Q16: the taps sum to 65536.
constexpr std::array<std::int32_t, 5> kFilter = {3571, 16004, 26386, 16004, 3571};
constexpr int kRadius = 2;

// Mirror an index that is at most kRadius outside [0, size) back into it, without repeating
// the edge sample (-1 -> 1, size -> size-2). Needs size >= kRadius + 1.
inline int mirror(int index, int size) {
    if (index < 0) return -index;
    if (index >= size) return 2 * size - index - 2;
    return index;
}

// The smaller of a and b, written as upstream's MIN macro (a if a < b, else b).
inline double min_of(double a, double b) { return a < b ? a : b; }

// motion_blend_tools.h motion_blend: above `offset`, scores count only by `factor`.
inline double motion_blend(double score, double factor, double offset) {
    return score * factor + (1 - factor) * min_of(offset, score);
}

// Horizontal blur of the vertically blurred difference at column j, exact 64-bit sum with
// mirrored columns: the scalar path upstream takes at the left and right edges (and
// everywhere in its C pipeline). Returns the Q16-rounded value.
inline std::int32_t horizontal_tap_exact(const std::int32_t* y_row, int width, int j) {
    std::int64_t acc = 0;
    for (int k = 0; k < 5; ++k)
        acc += static_cast<std::int64_t>(kFilter[k]) * y_row[mirror(j - kRadius + k, width)];
    return static_cast<std::int32_t>((acc + (1 << 15)) >> 16);
}

// Sum of |blurred difference| over one row of the vertically blurred difference y_row
// (width samples), wrapping modulo 2^32 as upstream's uint32_t row sum does.
//
// Columns [2, lane_end) are the ones upstream's AVX-512 pipeline (x_conv_row_sad_avx512)
// computes in vector lanes: each tap product and the sums of the symmetric tap pairs
// (0+4, 1+3) are 32-bit and wrap, then the three partial sums are added in 64 bits. For
// samples within the bit depth nothing wraps and this equals the exact sum; the emulation
// only keeps vmafx bit-identical to the golden build on out-of-range samples too.
std::uint32_t row_sad(const std::int32_t* y_row, int width) {
    const auto magnitude = [](std::int32_t v) {
        return static_cast<std::uint32_t>(v < 0 ? -static_cast<std::int64_t>(v) : v);
    };
    const auto u32 = [](std::int32_t v) { return static_cast<std::uint32_t>(v); };
    const auto lane = [](std::uint32_t v) { return static_cast<std::int64_t>(static_cast<std::int32_t>(v)); };
    // AVX-512 loop: j = 2, 18, 34, ... while j + 18 <= width.
    const int lane_end = width >= 20 ? 2 + 16 * ((width - 4) / 16) : 2;

    std::uint32_t sum = 0;
    for (int j = 0; j < 2 && j < width; ++j) sum += magnitude(horizontal_tap_exact(y_row, width, j));
    for (int j = 2; j < lane_end; ++j) {
        const std::uint32_t outer = (u32(y_row[j - 2]) + u32(y_row[j + 2])) * u32(kFilter[0]);
        const std::uint32_t inner = (u32(y_row[j - 1]) + u32(y_row[j + 1])) * u32(kFilter[1]);
        const std::uint32_t centre = u32(y_row[j]) * u32(kFilter[2]);
        const std::int64_t acc = lane(outer) + lane(inner) + lane(centre);
        sum += magnitude(static_cast<std::int32_t>((acc + (1 << 15)) >> 16));
    }
    for (int j = lane_end; j < width; ++j) sum += magnitude(horizontal_tap_exact(y_row, width, j));
    return sum;
}

// Sum over the picture of |blur(prev - cur)|, the blur being kFilter vertically (rounded to
// Q(16 - bit_depth), i.e. shifted right by bit_depth) then horizontally (rounded, shifted
// right by 16), both with mirrored edges. `prev` and `cur` are luma planes of the same
// width x height (>= 3 x 3) with samples of type Sample (uint8_t at 8 bits, uint16_t above).
// Upstream: integer_motion.c motion_score_pipeline_8 / motion_score_pipeline_16 and their
// AVX2/AVX-512 versions (all identical for in-range samples).
template <typename Sample>
std::uint64_t blurred_difference_sad(const Plane& prev, const Plane& cur, int bit_depth) {
    // 8-bit differences times the taps fit 32 bits; 16-bit ones need 64.
    using Acc = std::conditional_t<sizeof(Sample) == 1, std::int32_t, std::int64_t>;
    const int width = cur.width();
    const int height = cur.height();
    const Acc round = Acc{1} << (bit_depth - 1);
    std::vector<std::int32_t> y_row(static_cast<std::size_t>(width));

    std::uint64_t sad = 0;
    for (int i = 0; i < height; ++i) {
        const Sample* p[5];
        const Sample* c[5];
        for (int k = 0; k < 5; ++k) {
            const int r = mirror(i - kRadius + k, height);
            p[k] = prev.row<Sample>(r);
            c[k] = cur.row<Sample>(r);
        }
        std::int32_t any_nonzero = 0;
        for (int j = 0; j < width; ++j) {
            Acc acc = 0;
            for (int k = 0; k < 5; ++k)
                acc += static_cast<Acc>(kFilter[k]) * (static_cast<Acc>(p[k][j]) - static_cast<Acc>(c[k][j]));
            y_row[j] = static_cast<std::int32_t>((acc + round) >> bit_depth);
            any_nonzero |= y_row[j];
        }
        if (any_nonzero) sad += row_sad(y_row.data(), width);
    }
    return sad;
}

class MotionExtractor final : public FeatureExtractor {
public:
    MotionExtractor(const Options& options, const VideoFormat& format)
        : format_(format),
          force_zero_(options.get_bool("motion_force_zero")),
          blend_factor_(options.get("motion_blend_factor")),
          blend_offset_(options.get("motion_blend_offset")),
          fps_weight_(options.get("motion_fps_weight")),
          max_val_(options.get("motion_max_val")),
          five_frame_window_(options.get_bool("motion_five_frame_window")),
          moving_average_(options.get_bool("motion_moving_average")),
          debug_(options.get_bool("debug")),
          sad_name_(options.feature_name(kSadFeature)),
          motion_name_(options.feature_name(kMotionFeature)),
          motion2_name_(options.feature_name(kMotion2Feature)),
          motion3_name_(options.feature_name(kMotion3Feature)) {}

    unsigned previous_refs() const override { return five_frame_window_ ? 2 : 1; }

    // integer_motion.c extract(): the sad score of frame in.index (0 for the first frame(s)).
    void extract(const FrameInput& in, FrameScores& out) const override {
        double score = 0.0;
        if (!force_zero_ && in.index >= first_scored_index()) {
            const Picture* prev = five_frame_window_ ? in.prev_prev_ref : in.prev_ref;
            if (!prev)
                throw Error(fmt::format("motion: frame {} needs the reference picture of frame {}",
                                        in.index, in.index - first_scored_index()));
            check_luma(in.ref, "reference");
            check_luma(prev, "previous reference");
            const std::uint64_t sad =
                format_.bit_depth == 8
                    ? blurred_difference_sad<std::uint8_t>(prev->luma(), in.ref->luma(), 8)
                    : blurred_difference_sad<std::uint16_t>(prev->luma(), in.ref->luma(), format_.bit_depth);
            // Upstream multiplies width and height as unsigned.
            const unsigned area = static_cast<unsigned>(format_.width) * static_cast<unsigned>(format_.height);
            score = min_of(static_cast<double>(sad) / 256.0 / static_cast<double>(area) * fps_weight_,
                           max_val_);
        }
        out.emplace_back(sad_name_, score);
        if (debug_) out.emplace_back(motion_name_, score);
    }

    // integer_motion.c flush(): motion2 and motion3 of every frame from the sad scores.
    void flush(ScoreTable& table) const override {
        unsigned n = 0;
        while (table.get(sad_name_, n)) ++n;
        if (n == 0) return;
        const auto sad = [&](unsigned i) { return *table.get(sad_name_, i); };
        const unsigned min_idx = first_scored_index();
        const unsigned stride = five_frame_window_ ? 2 : 1;

        // Frames before min_idx have no motion of their own: they get the clipped, blended
        // score of the first frame that has.
        double stamp_value = 0.0;
        if (n > min_idx) stamp_value = min_of(motion_blend(sad(min_idx), blend_factor_, blend_offset_), max_val_);

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
            table.set(motion2_name_, i, motion2);

            double motion3 = stamp_value;
            if (i < min_idx) {
                prev_processed = stamp_value;
            } else {
                const double processed = min_of(motion_blend(motion2, blend_factor_, blend_offset_), max_val_);
                motion3 = moving_average_ ? (processed + prev_processed) / 2.0 : processed;
                prev_processed = processed;
            }
            table.set(motion3_name_, i, motion3);
        }
    }

private:
    // First frame with a previous reference to compare against (upstream's min_idx).
    unsigned first_scored_index() const { return five_frame_window_ ? 2 : 1; }

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
    bool force_zero_;
    double blend_factor_;
    double blend_offset_;
    double fps_weight_;
    double max_val_;
    bool five_frame_window_;
    bool moving_average_;
    bool debug_;
    std::string sad_name_;
    std::string motion_name_;
    std::string motion2_name_;
    std::string motion3_name_;
};

std::unique_ptr<FeatureExtractor> create_motion(const Options& options, const VideoFormat& format) {
    if (format.bit_depth < 8 || format.bit_depth > 16)
        throw Error(fmt::format("motion: bit depth {} is not supported (8 to 16)", format.bit_depth));
    if (format.width < kRadius + 1 || format.height < kRadius + 1)
        throw Error(fmt::format("motion: picture {}x{} is too small, the 5-tap blur needs at least {}x{}",
                                format.width, format.height, kRadius + 1, kRadius + 1));
    return std::make_unique<MotionExtractor>(options, format);
}

}  // namespace

const ExtractorInfo& motion_extractor_info() {
    static const ExtractorInfo info{
        "motion",
        kMotionOptions,
        {kSadFeature, kMotionFeature, kMotion2Feature, kMotion3Feature},
        create_motion,
    };
    return info;
}

}  // namespace vmafx
