// Floating-point MOTION, bit-exact to upstream libvmaf 3.2.0 (src/feature/float_motion.c,
// motion.c; the blur goes through convolution_f32_avx_s on x86, the same float sums as the C
// path). See float_motion.hpp.
#include "feature/float_motion/float_motion.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "feature/common/float_image.hpp"
#include "feature/common/motion_blend.hpp"
#include "feature/float_motion/float_motion_math.hpp"

namespace vmafx {

namespace {

using float_motion::Settings;
using floatimg::Image;

// Upstream motion_tools.h filters, from the shared taps (float_motion_math.hpp).
template <int Taps>
struct Taps_ {
    float f[Taps];
};
template <int Taps>
constexpr Taps_<Taps> make_filter(int filter_size) {
    Taps_<Taps> t{};
    for (int k = 0; k < Taps; ++k) t.f[k] = float_motion::blur_tap(filter_size, k);
    return t;
}
constexpr Taps_<5> kFilter5 = make_filter<5>(5);
constexpr Taps_<3> kFilter3 = make_filter<3>(3);
constexpr Taps_<5> kFilter5Identity = make_filter<5>(1);
// The shared taps are upstream's float literals.
static_assert(kFilter5.f[0] == 0.054488685f && kFilter5.f[1] == 0.244201342f && kFilter5.f[2] == 0.402619947f &&
              kFilter5.f[3] == 0.244201342f && kFilter5.f[4] == 0.054488685f);
static_assert(kFilter3.f[0] == 0.166378498f && kFilter3.f[1] == 0.667243004f && kFilter3.f[2] == 0.166378498f);
static_assert(kFilter5Identity.f[2] == 1.0f && kFilter5Identity.f[0] == 0.0f && kFilter5Identity.f[4] == 0.0f);

// The blur of motion_filter_size (float_motion.c extract(): 1 and 3 are special, any other
// value is the 5-tap Gaussian).
std::span<const float> blur_filter(int filter_size) {
    if (filter_size == 1) return kFilter5Identity.f;
    if (filter_size == 3) return kFilter3.f;
    return kFilter5.f;
}

// Upstream vmaf_image_sad_c over one pair: the float mean of |a - b| (row sums first), plus,
// with add_scale1, that of the two images scaled to half size (bilinear).
float image_sad(const Image& a, const Image& b, bool add_scale1) {
    const auto mean_abs = [](const Image& x, const Image& y) {
        std::vector<float> rows(static_cast<std::size_t>(x.height));
        for (int i = 0; i < x.height; ++i) {
            float line = 0.0f;
            const float* p = x.row(i);
            const float* q = y.row(i);
            for (int j = 0; j < x.width; ++j) line += float_motion::abs_difference(p[j], q[j]);
            rows[static_cast<std::size_t>(i)] = line;
        }
        return float_motion::mean_of_rows(rows, x.width, x.height);
    };
    const float scale0 = mean_abs(a, b);
    if (!add_scale1) return scale0;
    const int sw = float_motion::scale1_size(a.width);
    const int sh = float_motion::scale1_size(a.height);
    using floatimg::ScaleMethod;
    const Image as = floatimg::scale(ScaleMethod::kBilinear, a, sw, sh);
    const Image bs = floatimg::scale(ScaleMethod::kBilinear, b, sw, sh);
    return float_motion::add_scales(scale0, mean_abs(as, bs));
}

class FloatMotionExtractor final : public FeatureExtractor {
public:
    FloatMotionExtractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {
        const int radius = static_cast<int>(blur_filter(settings_.filter_size).size()) / 2;
        const int planes = settings_.add_uv ? 3 : 1;
        for (int p = 0; p < planes; ++p) {
            const int w = format.plane_width(p);
            const int h = format.plane_height(p);
            if (w < radius + 1 || h < radius + 1)
                throw Error(fmt::format("float_motion: plane {} is {}x{}, below the {}x{} its {}-tap mirrored blur "
                                        "needs",
                                        p, w, h, radius + 1, radius + 1, 2 * radius + 1));
        }
    }

    // float_motion.c extract(): frame i's raw score (placeholder in the motion2 slot) and,
    // with debug, its weighted, clipped score.
    void extract(const FrameInput& in, FrameScores& out) const override {
        if (!settings_.scores_frame(in.index)) {
            settings_.write_frame(in.index, 0.0, out);
            return;
        }
        const Picture* prev = in.prev_ref[0];
        if (!in.ref || !prev)
            throw Error(fmt::format("float_motion: frame {} needs the reference pictures of frames {} and {}",
                                    in.index, in.index - 1, in.index));
        const std::span<const float> f = blur_filter(settings_.filter_size);
        const auto plane_score = [&](int p) {
            const Plane& cur = in.ref->planes[p];
            const Plane& old = prev->planes[p];
            if (cur.width() != format_.plane_width(p) || cur.height() != format_.plane_height(p) ||
                old.width() != cur.width() || old.height() != cur.height() ||
                cur.bytes_per_sample() != format_.bytes_per_sample() ||
                old.bytes_per_sample() != format_.bytes_per_sample())
                throw Error(fmt::format("float_motion: frame {} plane {} is not {}x{} with {}-byte samples", in.index,
                                        p, format_.plane_width(p), format_.plane_height(p),
                                        format_.bytes_per_sample()));
            // The current picture's blur is kept for the next frame (upstream keeps it too);
            // the previous one's is taken from there when its plane is the same, byte for byte.
            std::shared_ptr<const Image> a = blurs_.find(in.index - 1, p, old);
            if (!a) a = std::make_shared<const Image>(floatimg::convolve(f, floatimg::to_float(old, format_.bit_depth)));
            auto b = std::make_shared<const Image>(floatimg::convolve(f, floatimg::to_float(cur, format_.bit_depth)));
            blurs_.keep(in.index, p, cur, b);
            return static_cast<double>(image_sad(*a, *b, settings_.add_scale1));
        };
        const double y = plane_score(0);
        const double u = settings_.add_uv ? plane_score(1) : 0.0;
        const double v = settings_.add_uv ? plane_score(2) : 0.0;
        settings_.write_frame(in.index, settings_.frame_score(y, u, v), out);
    }

    void flush(ScoreTable& table) const override {
        if (!settings_.force_zero) settings_.flush(table);
    }

private:
    /// The blurred planes of the last few frames, shared by the extract() calls (which may run
    /// at once): the blur is a function of the plane's bytes alone (the options and the bit depth
    /// are the extractor's), so a kept blur is used only for a plane of the same bytes: a copy
    /// of them is kept with it and compared, whatever the frame index says.
    class BlurCache {
    public:
        /// The kept blur of plane p of frame `index` if `plane` has the bytes it was made from.
        std::shared_ptr<const Image> find(unsigned index, int p, const Plane& plane) const {
            const std::lock_guard<std::mutex> lock(mutex_);
            for (const Entry& e : entries_)
                if (e.index == index && e.plane == p && same_bytes(e, plane)) return e.blurred;
            return nullptr;
        }
        /// Keeps `blurred`, the blur of `plane` (plane p of frame `index`), dropping the oldest
        /// beyond kKept.
        void keep(unsigned index, int p, const Plane& plane, std::shared_ptr<const Image> blurred) const {
            Entry e{index, p, plane.width(), plane.height(), plane.bytes_per_sample(), {}, std::move(blurred)};
            const std::size_t row = static_cast<std::size_t>(e.width) * static_cast<std::size_t>(e.bytes_per_sample);
            e.bytes.resize(row * static_cast<std::size_t>(e.height));
            for (int y = 0; y < e.height; ++y)
                std::memcpy(e.bytes.data() + row * static_cast<std::size_t>(y), plane.row<std::uint8_t>(y), row);
            const std::lock_guard<std::mutex> lock(mutex_);
            entries_.push_back(std::move(e));
            if (entries_.size() > kKept) entries_.pop_front();
        }

    private:
        static constexpr std::size_t kKept = 3;  ///< a frame's 3 planes, or the luma of 3 frames in flight
        struct Entry {
            unsigned index;
            int plane;
            int width, height, bytes_per_sample;
            std::vector<std::uint8_t> bytes;  ///< the plane's samples, rows packed
            std::shared_ptr<const Image> blurred;
        };
        static bool same_bytes(const Entry& e, const Plane& plane) {
            if (e.width != plane.width() || e.height != plane.height() || e.bytes_per_sample != plane.bytes_per_sample())
                return false;
            const std::size_t row = static_cast<std::size_t>(e.width) * static_cast<std::size_t>(e.bytes_per_sample);
            for (int y = 0; y < e.height; ++y)
                if (std::memcmp(e.bytes.data() + row * static_cast<std::size_t>(y), plane.row<std::uint8_t>(y), row) != 0)
                    return false;
            return true;
        }
        mutable std::mutex mutex_;
        mutable std::deque<Entry> entries_;
    };

    VideoFormat format_;
    Settings settings_;
    BlurCache blurs_;
};

std::unique_ptr<FeatureExtractor> create_float_motion(const Options& options, const VideoFormat& format) {
    return std::make_unique<FloatMotionExtractor>(options, format);
}

History float_motion_history(const Options& options) { return {Settings(options).force_zero ? 0u : 1u, 0}; }

// From Settings::flush: frame i's motion2 and motion3 are the lesser of its score (from frame
// i - 1's picture) and frame i + 1's; the first and last frames of a run are scored apart.
// motion_force_zero writes zeros only.
TemporalContext float_motion_context(const Options& options) {
    return Settings(options).force_zero ? TemporalContext{} : TemporalContext{1, 1, false};
}

/// Upstream's option table of "float_motion" (float_motion.c `options`), in its order.
constexpr OptionSpec kOptions[] = {
    option<&Settings::debug>("debug", nullptr, 1, 0, 1, OptionRole::kSetting, "debug mode: enable additional output"),
    option<&Settings::force_zero>("motion_force_zero", "force_0", 0, 0, 1, OptionRole::kFeatureParameter, "forcing motion score to zero"),
    option<&Settings::fps_weight>("motion_fps_weight", "mfw", 1.0, 0.0, 5.0, OptionRole::kFeatureParameter,
                                  "fps-aware multiplicative weight/correction").also_at("2.5"),
    option<&Settings::blend_factor>("motion_blend_factor", "mbf", 1.0, 0.0, 1.0, OptionRole::kFeatureParameter,
                                    "blend motion score given an offset"),
    option<&Settings::blend_offset>("motion_blend_offset", "mbo", 40.0, 0.0, 1000.0, OptionRole::kFeatureParameter,
                                    "blend motion score starting from this offset"),
    option<&Settings::add_scale1>("motion_add_scale1", "mdc", 0, 0, 1, OptionRole::kFeatureParameter, "add motion score from scale1"),
    option<&Settings::filter_size>("motion_filter_size", "mfs", 5, 0, 9, OptionRole::kFeatureParameter, "filtering size").also_at("1,3"),
    option<&Settings::add_uv>("motion_add_uv", "mau", 0, 0, 1, OptionRole::kFeatureParameter, "include U and V terms"),
    option<&Settings::max_val>("motion_max_val", "mmxv", 10000.0, 0.0, 10000.0, OptionRole::kFeatureParameter,
                               "maximum value allowed; larger values will be clipped to this value").also_at("5"),
};

constexpr const char* kMotionFeature = "VMAF_feature_motion_score";
constexpr const char* kMotion2Feature = "VMAF_feature_motion2_score";
constexpr const char* kMotion3Feature = "VMAF_feature_motion3_score";

// Upstream's provided_features[] with the aliases of alias.c.
constexpr FeatureName kFeatures[] = {
    {kMotionFeature, "motion"},
    {kMotion2Feature, "motion2"},
    {kMotion3Feature, "motion3"},
};

// float_motion.c writes motion3 first in its second frame's call (frame 0's value, from frame
// 1's score) or, with one frame, at its flush; with motion_force_zero every output at once.
// What float_motion cannot score beyond its limits (the descriptor's `refuse`, before the
// extractor is made): motion_add_uv with motion_add_scale1, and motion_add_scale1 on a luma
// whose half is wider than upstream's bilinear scaler takes.
void refuse(const Options& options, const VideoFormat& format) {
    const Settings s(options);
    if (s.add_uv && s.add_scale1)
        throw Error("float_motion: motion_add_uv with motion_add_scale1 is not supported (upstream reads the "
                    "chroma buffers with the luma stride there, i.e. uninitialised memory)");
    if (s.add_scale1 && float_motion::scale1_size(format.width) > floatimg::kBilinearMaxWidth)
        throw Error(fmt::format("float_motion: motion_add_scale1 scales the luma to {} columns, above upstream's "
                                "limit {}",
                                float_motion::scale1_size(format.width), floatimg::kBilinearMaxWidth));
}

// The chroma planes with motion_add_uv (their SADs are added to the luma's), else the luma.
PlaneSet planes_of(const Options& options) { return Settings(options).add_uv ? PlaneSet::kAll : PlaneSet::kLuma; }

FirstWrite float_motion_first_write(const Options& options, const std::string& feature) {
    return feature == kMotion3Feature && options.get("motion_force_zero") == 0 ? FirstWrite::kSecondCall
                                                                                : FirstWrite::kFirstCall;
}

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "motion_force_zero=true:debug=false",
    "motion_blend_factor=0.5:motion_blend_offset=10",
    "motion_add_uv=true:motion_filter_size=3",
    "motion_add_scale1=true:motion_fps_weight=2:motion_max_val=20",
};

}  // namespace

namespace float_motion {

const MetricDescriptor descriptor{
    .name = "float_motion", .oracle = {kLibvmaf, "libvmaf/src/feature/float_motion.c"},
    .options = kOptions, .features = kFeatures, .planes = planes_of, .history = float_motion_history, .context = float_motion_context,
    .limits = {3, 3, kEveryBitDepth, "(the 5-tap mirrored blur needs 3 samples; upstream reads outside the picture below)"},
    .first_write = float_motion_first_write, .refuse = refuse,
    .create = create_float_motion, .corner_sets = kCornerSets};

Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options)
    : motion_name(options.feature_name(kMotionFeature)),
      motion2_name(options.feature_name(kMotion2Feature)),
      motion3_name(options.feature_name(kMotion3Feature)) {
    options.bind(*this);
}

bool Settings::scores_frame(unsigned index) const { return !force_zero && index > 0; }

double Settings::frame_score(double y, double u, double v) const {
    double score = y;
    if (add_uv) {
        score += u;
        score += v;
    }
    return score;
}

void Settings::write_frame(unsigned index, double score, FrameScores& out) const {
    if (force_zero) {
        out.emplace_back(motion2_name, 0.0);
        out.emplace_back(motion3_name, 0.0);
        if (debug) out.emplace_back(motion_name, 0.0);
        return;
    }
    if (index == 0) {
        out.emplace_back(motion2_name, 0.0);
        if (debug) out.emplace_back(motion_name, 0.0);
        return;
    }
    out.emplace_back(motion2_name, score);
    if (debug) out.emplace_back(motion_name, weighted(score));
}

float mean_of_rows(std::span<const float> rows, int width, int height) {
    float accum = 0.0f;
    for (const float line : rows) accum += line;
    return static_cast<float>(accum / static_cast<float>(width * height));
}

float add_scales(float scale0, float scale1) { return scale0 + scale1; }

int scale1_size(int side) { return static_cast<int>(side * 0.5 + 0.5); }

double Settings::weighted(double score) const {
    const double x = score * fps_weight;
    return x < max_val ? x : max_val;
}

double Settings::blended(double score) const {
    const double x = motion::motion_blend(score * fps_weight, blend_factor, blend_offset);
    return x < max_val ? x : max_val;
}

void Settings::flush(ScoreTable& table) const {
    unsigned n = 0;
    while (table.get(motion2_name, n)) ++n;
    if (n == 0) return;
    std::vector<double> raw(n);
    for (unsigned i = 0; i < n; ++i) raw[i] = *table.get(motion2_name, i);
    if (n == 1) {
        table.set(motion3_name, 0, 0.0);
        return;
    }
    // Frame 0: motion2 0 (written so by extract), motion3 from frame 1's score alone.
    table.set(motion2_name, 0, 0.0);
    table.set(motion3_name, 0, blended(raw[1]));
    for (unsigned i = 1; i + 1 < n; ++i) {
        const double s = raw[i] < raw[i + 1] ? raw[i] : raw[i + 1];
        table.set(motion2_name, i, weighted(s));
        table.set(motion3_name, i, blended(s));
    }
    table.set(motion2_name, n - 1, weighted(raw[n - 1]));
    table.set(motion3_name, n - 1, blended(raw[n - 1]));
}

}  // namespace float_motion

}  // namespace vmafx
