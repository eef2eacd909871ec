// The contract between a metric and what runs it: the frame it sees, the CPU extractor
// interface, and the metric's descriptor (name, typed options, outputs, the planes and
// previous pictures it reads, its format limits, its factory). Knows no metric and no engine.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "base/options.hpp"
#include "base/scores.hpp"
#include "picture/picture.hpp"

namespace vmafx {

/// Most previous pictures (of the reference or the distorted video) a metric may ask for.
inline constexpr unsigned kMaxHistory = 2;

/// How many previous reference and previous distorted pictures a metric reads per frame
/// (e.g. motion: 1 reference, 2 with its five-frame window; speed_temporal: distorted ones).
struct History {
    unsigned refs = 0;
    unsigned dists = 0;
    bool any() const { return refs || dists; }
};

/// How far a frame's outputs reach in time: in a run over frames [s, e), frame i's outputs are
/// those of any longer run over the same frames when i - s >= before and e - 1 - i >= after
/// (the frames a run starts or ends with are scored differently: motion's first frame has no
/// previous picture, motion2's last no next score). whole_run: an output depends on every frame
/// (psnr's apsnr, a run-wide aggregate), so no part of the video can be scored apart. Segmented
/// scoring (the Python package's vmafx.batch) reads `before` frames ahead of a segment and
/// `after` past it.
struct TemporalContext {
    unsigned before = 0;
    unsigned after = 0;
    bool whole_run = false;
    /// The context that covers both.
    TemporalContext cover(const TemporalContext& o) const {
        return {before > o.before ? before : o.before, after > o.after ? after : o.after, whole_run || o.whole_run};
    }
    bool operator==(const TemporalContext&) const = default;
};

/// What a CPU extractor sees of one frame: the reference and distorted pictures (the planes
/// its descriptor declares are filled) and the previous pictures it declared:
/// prev_ref[k] / prev_dist[k] is the picture of frame index - 1 - k, nullptr before the start.
struct FrameInput {
    unsigned index = 0;
    const Picture* ref = nullptr;
    const Picture* dist = nullptr;
    std::array<const Picture*, kMaxHistory> prev_ref{};
    std::array<const Picture*, kMaxHistory> prev_dist{};
};

/// A metric on the CPU. One instance serves one run of one video format; extract() is
/// const and must be safe to call from several threads at once for different frames
/// (keep scratch memory per call or thread_local), so frames can be scored in parallel.
class FeatureExtractor {
public:
    virtual ~FeatureExtractor() = default;
    /// Scores frame `in.index`; appends (output name, value) to `out`. Throws Error on input
    /// the metric cannot score.
    virtual void extract(const FrameInput& in, FrameScores& out) const = 0;
    /// After the last frame, in order: temporal scores that need later frames (motion2).
    virtual void flush(ScoreTable& table) const { (void)table; }
};

/// A set of bit depths (1 to 31 bits): bit n of `mask` set accepts n-bit samples.
struct BitDepths {
    std::uint32_t mask = 0;

    /// Every depth from `lo` to `hi` (1 <= lo <= hi <= 31).
    static constexpr BitDepths range(int lo, int hi) {
        std::uint32_t m = 0;
        for (int b = lo; b <= hi; ++b) m |= std::uint32_t{1} << b;
        return {m};
    }
    /// The depths listed.
    static constexpr BitDepths of(std::initializer_list<int> depths) {
        std::uint32_t m = 0;
        for (const int b : depths) m |= std::uint32_t{1} << b;
        return {m};
    }
    /// Whether `bits` is in the set (false outside 1..31).
    constexpr bool has(int bits) const { return bits >= 1 && bits <= 31 && (mask >> bits & 1u); }
    /// The smallest and the largest depth of the set (0 for an empty set).
    int lowest() const;
    int highest() const;
    /// The set as the refusal message names it: "8 to 16" when it has no gap, else the depths
    /// listed, "8, 10, 12 or 16".
    std::string text() const;
    constexpr bool operator==(const BitDepths&) const = default;
};

/// Every depth the readers accept: 8 to 16 bits.
inline constexpr BitDepths kEveryBitDepth = BitDepths::range(8, 16);
/// 8, 10, 12 and 16 bits: the depths upstream's picture_copy (picture_copy.c) converts as such
/// (it reads the others byte-wise) and its integer PSNR and ciede size their peaks for; the
/// metrics resting on them refuse 9, 11 and 13 to 15 bits.
inline constexpr BitDepths kWholeUnitBitDepths = BitDepths::of({8, 10, 12, 16});

/// The formats a metric can score: luma width and height at least min_width x min_height, the
/// larger of them at least min_longer_side (cambi: upstream refuses pictures below 216 both
/// ways, yet scores 1x216 and 216x2), each chroma plane at least min_chroma_width x
/// min_chroma_height, bit depth in `bit_depths`. The chroma planes are measured as VideoFormat
/// gives them (ceil(w/2) wide at 4:2:0 and 4:2:2, ceil(h/2) high at 4:2:0, the luma's size at
/// 4:4:4), or, with chroma_rounds_down, as upstream extractors that halve the luma size with
/// integer division size them (floor(w/2), floor(h/2): speed.c init_chroma). `why` says where
/// the size limits come from (for the message). Positional initialisers name the luma sizes, the
/// bit depths and `why`; the chroma members come after them.
struct FormatLimits {
    int min_width = 1;
    int min_height = 1;
    BitDepths bit_depths = kEveryBitDepth;
    const char* why = "";
    int min_chroma_width = 1;
    int min_chroma_height = 1;
    bool chroma_rounds_down = false;
    int min_longer_side = 1;

    /// The size of each chroma plane of `format` as these limits measure it.
    std::pair<int, int> chroma_size(const VideoFormat& format) const;
    /// The smallest luma width and height accepted at subsampling `s`, min_longer_side aside:
    /// the larger of the luma minimum and the smallest luma whose chroma planes meet the chroma
    /// minimum, per dimension.
    std::pair<int, int> smallest(Subsampling s) const;
    /// The smallest luma sizes accepted at subsampling `s`: smallest(s), or, where
    /// min_longer_side is larger than both of its sides, that size widened to min_longer_side
    /// and that size heightened to it.
    std::vector<std::pair<int, int>> corners(Subsampling s) const;
};

/// The name of upstream Netflix libvmaf at the release vmafx reproduces, as an oracle.
inline constexpr const char* kLibvmaf = "libvmaf 3.2.0";

/// The reference implementation whose values a metric reproduces bit for bit: libvmaf
/// (kLibvmaf) for upstream's metrics, another one for a metric libvmaf does not have (e.g.
/// "libjxl 0.11" for SSIMULACRA 2), or none. The golden files (../shared/golden) hold
/// libvmaf's output only, so only metrics whose oracle is kLibvmaf have golden values.
struct Oracle {
    const char* reference = nullptr;  ///< kLibvmaf, another reference's name and version, or nullptr: none
    const char* source = "";          ///< the reference's source file(s) the metric follows ("" with none)

    /// Whether the reference is libvmaf (same pointer or same text as kLibvmaf).
    bool is_libvmaf() const;
    /// Whether the golden files hold values of the metric (its oracle is libvmaf).
    bool has_golden() const { return is_libvmaf(); }
};

/// When upstream's extractor first writes an output. Upstream's feature collector lists outputs
/// in the order of their first write, and its writers keep that order; with one thread that is
/// the extract call of the first frame (extractors in registration order), then the second
/// frame's, ..., then the flushes in registration order (libvmaf.c vmaf_read_pictures,
/// flush_context; feature_collector.c vmaf_feature_collector_append).
enum class FirstWrite {
    kFirstCall,   ///< in the extract call of the extractor's first frame (most outputs)
    kSecondCall,  ///< in the call of its second frame; at its flush when it sees one frame only
    kFlush,       ///< at its flush, after the last frame
};

/// A descriptor's `planes` for a metric that reads every plane whatever its options.
inline PlaneSet all_planes(const Options& options) {
    (void)options;
    return PlaneSet::kAll;
}

/// One metric: everything the engine, the models, the GPU pipeline and the tests need to know
/// of it, declared in the metric's folder and listed in feature/registry.cpp.
struct MetricDescriptor {
    /// Upstream's extractor name ("vif", "adm", "motion").
    const char* name;
    /// Where its truth comes from: the reference implementation it reproduces bit for bit and
    /// the file(s) there (libvmaf 3.2.0 for upstream's metrics); none for the tests' example.
    Oracle oracle;
    /// Its options (upstream's VmafOption table), bound to the members of its Settings.
    std::span<const OptionSpec> options;
    /// The features it provides (upstream names) with their output-name aliases.
    std::span<const FeatureName> features;
    /// The planes it reads under `options` (luma only lets readers skip chroma and the GPU
    /// upload it); nullptr: the luma only. all_planes for a metric that always reads chroma.
    PlaneSet (*planes)(const Options& options) = nullptr;
    /// The previous pictures it reads under `options`; nullptr: none.
    History (*history)(const Options& options) = nullptr;
    /// Its temporal context under `options` (TemporalContext), declared where the metric's
    /// flush reads later frames or its scores depend on more than the previous pictures;
    /// nullptr: derived (context_for).
    TemporalContext (*context)(const Options& options) = nullptr;
    /// The formats it can score with its default options (checked by check() before `create`).
    FormatLimits limits = {};
    /// The formats it can score under `options`, where those differ from `limits` (speed_chroma:
    /// speed_prescale scales the chroma planes before its 80x80 minimum); nullptr: `limits`.
    FormatLimits (*limits_for)(const Options& options) = nullptr;
    /// When upstream first writes provided feature `feature` (an entry of `features`) under
    /// `options`; nullptr: every output in the first frame's extract call.
    FirstWrite (*first_write)(const Options& options, const std::string& feature) = nullptr;
    /// Sees every frame whatever the subsampling, as a metric with history does (upstream's
    /// VMAF_FEATURE_EXTRACTOR_TEMPORAL without previous pictures: psnr, whose enable_apsnr
    /// sums every frame).
    bool temporal = false;
    /// What it cannot score beyond the limits under `options` (an option combination, an option
    /// at a format): throws Error naming the metric; nullptr: nothing. Run by check(), before the
    /// CPU extractor or any GPU twin is made, so that every backend refuses alike.
    void (*refuse)(const Options& options, const VideoFormat& format) = nullptr;
    /// The CPU extractor for `format` (already passed by check()). May throw Error for what it
    /// cannot score found while it is made (e.g. cambi's per-picture plans), naming the metric.
    std::unique_ptr<FeatureExtractor> (*create)(const Options& options, const VideoFormat& format) = nullptr;
    /// Option values every option corner of the metric carries (feature/corners.hpp), as
    /// "opt=v:opt=v", e.g. "debug=true" so that every output is compared; nullptr: none. A
    /// corner that sets one of these options itself keeps its own value.
    const char* corner_base = nullptr;
    /// Option corners of several options at once (feature/corners.hpp), each "opt=v:opt=v":
    /// combinations where options act together (e.g. adm's CSF modes at each viewing condition
    /// with a table). Single values of special interest are declared on the option rows
    /// (OptionSpec::also_at).
    std::span<const char* const> corner_sets = {};

    /// Parses and checks option values (Options' constructor for this metric).
    Options parse_options(const OptionValues& values) const { return Options(name, options, features, values); }
    /// The previous pictures the metric reads under `opts`; throws Error when the descriptor
    /// asks for more than kMaxHistory of either video.
    History history_for(const Options& opts) const;
    /// The planes the metric reads under `opts`: planes(opts), or the luma only.
    PlaneSet planes_for(const Options& opts) const { return planes ? planes(opts) : PlaneSet::kLuma; }
    /// Its temporal context under `opts`: context(opts) where declared, else the whole run for a
    /// `temporal` metric, else history_for(opts)'s previous pictures before and nothing after.
    TemporalContext context_for(const Options& opts) const;
    /// Whether it runs on every frame under --subsample N (temporal, or reading previous
    /// pictures under `opts`), on every backend; the others run on every N-th frame only.
    bool sees_every_frame(const Options& opts) const { return temporal || history_for(opts).any(); }
    /// The limits under `opts`: limits_for(opts), or `limits`.
    FormatLimits limits_under(const Options& opts) const { return limits_for ? limits_for(opts) : limits; }
    /// Whether the metric can score `format` under `opts`: throws Error naming the metric and
    /// the limit unless limits_under(opts) accept `format` (bit depth first, then the sizes),
    /// then runs `refuse`. The CPU extractor (make_extractor) and every GPU twin (the GPU
    /// scorer, before the twin's factory) are made only after it.
    void check(const Options& opts, const VideoFormat& format) const;
    /// check(opts, format), then `create`.
    std::unique_ptr<FeatureExtractor> make_extractor(const Options& opts, const VideoFormat& format) const;
    /// Whether `feature` (an upstream name) is one of its features.
    bool provides(const std::string& feature) const;
};

/// One metric instance of a run: the metric and its option values.
struct FeatureInstance {
    const MetricDescriptor* metric = nullptr;
    Options options;
};

}  // namespace vmafx
