// The frame pipeline: reads reference/distorted frame pairs, runs every feature extractor on
// them (frames in parallel, a bounded number in flight), then models and pooling.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/options.hpp"
#include "base/scores.hpp"
#include "feature/metric.hpp"
#include "gpu/device_api.hpp"
#include "gpu/twin.hpp"
#include "model/model.hpp"

namespace vmafx {

class VideoReader;  // io/video_reader.hpp

/// An extra feature extractor asked for by name, with its options as text
/// (upstream's `--feature NAME=opt=val:opt=val`).
struct FeatureSpec {
    std::string name;
    OptionValues options;
    /// `options` parsed against the metric's table, when parse_feature_spec made the spec (the
    /// run then uses them as they are); empty for a spec built by hand, whose options the run
    /// parses.
    std::optional<Options> parsed = std::nullopt;
};

/// Parses upstream's `--feature` syntax "NAME" or "NAME=opt=val:opt=val" and checks it against
/// the registry, keeping the parsed options (FeatureSpec::parsed): they are parsed once. Throws UsageError on a malformed option string, an unknown feature, an option
/// the feature does not have, or a bad option value.
FeatureSpec parse_feature_spec(const std::string& text);

/// The most worker threads a run takes (RunConfig::threads, the CLI's --threads).
inline constexpr unsigned kMaxThreads = 1024;

/// Where the metrics run, by name: kCpuBackend ("cpu", the reference extractors) or a GPU
/// backend of the twin registry (gpu_backends(): "cuda"), whose twins then run the metrics
/// that have one.
using Backend = std::string;

/// Everything one scoring run needs.
struct RunConfig {
    std::string reference_path;
    std::string distorted_path;
    std::optional<VideoFormat> raw_format;  ///< required for raw .yuv input
    /// Empty, or libswscale's flags (e.g. "bicubic", "lanczos"): a distorted video of another
    /// size than the reference is scaled to the reference's size as FFmpeg's
    /// `-vf scale=W:H:flags=FLAGS` does (io/av_reader.hpp, scale_video). Without it, different
    /// sizes are an error.
    std::string scale_dist;
    /// Pair frames by presentation time (the CLI's --align pts) instead of by position: frames
    /// whose timestamps (seconds from each video's start) differ by less than half the shorter
    /// frame interval are a pair, and a frame without such a partner is dropped (a warning
    /// counts them). Both videos must have timestamps (decoded video; not raw or y4m). The
    /// lengths then need not agree.
    bool align_pts = false;
    std::vector<ModelSpec> models;          ///< empty with no_prediction
    std::vector<FeatureSpec> features;
    unsigned threads = 0;          ///< 1..kMaxThreads; 0: all cores (at most kMaxThreads)
    unsigned frame_count = 0;      ///< 0: all frames (ref and dist must then have the same count)
    unsigned frame_skip_ref = 0;   ///< frames skipped at the start of the reference
    unsigned frame_skip_dist = 0;  ///< frames skipped at the start of the distorted video
    unsigned subsample = 1;        ///< score every N-th frame (temporal extractors see all)
    bool no_prediction = false;
    Backend backend = kCpuBackend;
    /// With a GPU backend: the device's index among the backend's devices (`vmafx --version`
    /// lists them; the CLI's --gpu N); -1: the backend's own choice. An index without a device
    /// fails the run naming it.
    int gpu = -1;
    /// Called from the reading thread after each frame pair is read: frame pairs read so far,
    /// and how many the run is expected to read (after the skips and --frame_cnt; from the
    /// readers' expected_frames()), 0 when unknown (a stream).
    std::function<void(unsigned done, unsigned total)> progress;
    /// Called once per notice of the readers (VideoReader::notices(): a decoded pixel format
    /// converted to another, naming the video), after both videos are open and before
    /// scoring. When empty, the notices go to RunResult::warnings instead.
    std::function<void(const std::string& notice)> notice;
    /// With a GPU backend: a defect planted in every twin that declares it (the parity gate's
    /// tests only; never set in normal runs).
    PlantedDefect planted_defect = PlantedDefect::kNone;
    /// Where compressed videos are decoded (the CLI's --decode; raw and y4m input needs none):
    /// kCpu by libavcodec on the CPU; kGpu on the GPU backend's hardware decoder (CUDA: NVDEC,
    /// through libavcodec) where it takes the stream, else on the CPU with a warning naming the
    /// video and why (a GPU backend is required: UsageError otherwise); kAuto as kGpu where the
    /// run is wholly on the GPU (every metric has a twin), silently, else on the CPU. The run's
    /// RunResult::decoding says where each video was decoded.
    enum class Decode { kCpu, kGpu, kAuto };
    Decode decode = Decode::kCpu;
    /// Decoders of each compressed regular file at once (the CLI's --decode-sessions, 1 to 16;
    /// on the GPU or the CPU, wherever it decodes): H.264 and HEVC files are cut into segments
    /// at IDR pictures, decoded at once and handed on in order, the frames of one decoder
    /// (open_av_video, io/av_reader.hpp). NVDEC decodes one stream on one of its engines: several
    /// sessions use several. Other codecs and streams use one decoder, with a notice.
    unsigned decode_sessions = 1;
    /// Whether the result files carry the run's provenance (RunResult::provenance) on a CPU
    /// run too (`--provenance`); a GPU run's always do.
    bool provenance = false;
    /// Where set, opens the reference / distorted video instead of reading reference_path /
    /// distorted_path (which then only label the video in messages): a reader of frames held
    /// by the caller (the Python package's NumPy arrays and frame iterators). Called once, on the
    /// run's thread; must not return null. The reader's format is the video's (raw_format is
    /// not used for it).
    std::function<std::unique_ptr<VideoReader>()> open_reference, open_distorted;
};

/// A model's pooled score, for the summary line (upstream prints "NAME: score").
struct ModelSummary {
    std::string label;  ///< the version or path the model came from
    std::string name;   ///< its output name
    double mean = 0.0;   ///< pooled mean of the model's score
    bool bootstrap = false;
    double bagging = 0.0, ci_lo = 0.0, ci_hi = 0.0, stddev = 0.0;  ///< bootstrap collections only (pooled means)
};

/// Which backend computed one metric instance of a run.
struct MetricBackend {
    std::string metric;   ///< the metric's name (its descriptor's), e.g. "float_ssim"
    std::string feature;  ///< the instance's feature name with its option suffix, e.g. "float_ssim" or "vif_egl_1"
    Backend backend = kCpuBackend;
    /// Why it is not on the requested backend ("no CUDA twin": the backend's name in capitals), or empty.
    std::string note;
    /// Its contract with the CPU reference at the run's format: "reference" (the CPU reference
    /// computed it), "exact" (a twin whose bound is 0), or "bound B" (a twin's bound at this
    /// format, TwinContract::bound, as %.17g).
    std::string contract = "reference";
};

/// One model of a run, for the provenance: what it was loaded from and a digest of its bytes.
struct ModelSource {
    std::string name;    ///< its output name
    std::string label;   ///< the built-in version or the file's path
    std::string sha256;  ///< SHA-256 of the model file's bytes (built-in: the embedded file), hex
};

/// Where one input video of a run was decoded (RunResult::decoding).
struct InputDecoding {
    std::string video;    ///< "reference" or "distorted"
    std::string decoder;  ///< "cpu", or the GPU backend whose device decoded it ("cuda")
    std::string note;     ///< why it was asked to decode on the GPU and did not, or empty
    unsigned sessions = 1;  ///< decoders at once (RunConfig::decode_sessions where they apply)
    unsigned segments = 1;  ///< segments of the video they were given (cut ahead of the frames scored)
};

/// Where a run's values come from: the program, the models, the device (GPU runs).
struct Provenance {
    bool print = false;             ///< whether the result files carry it (GPU runs, or RunConfig::provenance)
    std::string version;            ///< vmafx's version (VMAFX_VERSION)
    std::string commit;             ///< the source's git commit at build time ("unknown" outside a checkout)
    std::string libvmaf = "3.2.0";  ///< the upstream release whose CPU values vmafx reproduces
    std::vector<ModelSource> models;
    std::optional<DeviceInfo> device;  ///< the GPU of a run with a GPU backend
};

/// Result of a run: every per-frame score by output name, the frame count, the format.
struct RunResult {
    /// The backend the run was asked for (RunConfig::backend) and, per metric instance in
    /// registration order, the backend that computed it: with a GPU backend, metrics without
    /// a twin run on the CPU in the same run.
    Backend backend = kCpuBackend;
    std::vector<MetricBackend> backends;
    ScoreTable scores;
    unsigned frames = 0;
    unsigned subsample = 1;
    VideoFormat format;
    std::vector<ModelSummary> models;
    double fps = 0.0;  ///< frames scored per second of wall time
    /// Pictures the run allocated: bounded by the frames in flight, not by the video's length.
    unsigned pictures_allocated = 0;
    /// What the run noticed but did not stop for, one message each: a damaged tail of a file
    /// (naming the file and the frame) that the run did not score.
    std::vector<std::string> warnings;
    /// The name each output in `scores` is printed under where that differs from its name in
    /// `scores`: upstream's alias (libvmaf feature/alias.c, as each metric's descriptor declares
    /// it), e.g. "VMAF_integer_feature_adm2_score" -> "integer_adm2". An output not listed here
    /// prints as its own name. The engine fills it (printed_names_of); the writers read it, so
    /// that they need no metric registry.
    std::map<std::string, std::string> printed_names;
    /// The run's provenance (filled by run(); printed when Provenance::print).
    Provenance provenance;
    /// Where the two videos were decoded, reference first: filled when the run asked to decode
    /// on the GPU (RunConfig::decode not kCpu, a GPU backend); empty otherwise.
    std::vector<InputDecoding> decoding;
};

/// RunResult::printed_names for `scores`: each output of `scores` that a registered metric
/// declares an alias for, mapped to that alias.
std::map<std::string, std::string> printed_names_of(const ScoreTable& scores);

/// The summary of model `name` (its output name; `label`: its version or path) in `result`:
/// the pooled means of its score and, for a bootstrap collection (NAME_bagging present), of
/// its bagging, CI and stddev outputs (engine.cpp fills RunResult::models with these).
ModelSummary summarize_model(const std::string& label, const std::string& name, const RunResult& result);

/// The temporal context of a run of `config` (the cover of every metric instance's
/// MetricDescriptor::context_for): how many frames before and after a segment a run must read
/// so that the segment's frames get the whole video's values, or whole_run when no segment can
/// be scored apart. Plans the models and features as run() does, opening no video; throws
/// UsageError as run() does for an unknown model, feature or option.
TemporalContext temporal_context(const RunConfig& config);

/// The devices of GPU backend `backend` on this machine (DeviceApi::list_devices: "NAME" or
/// "NAME (unusable: WHY)", in the order gpu indices name them); empty where the backend is
/// unknown or not built, or its driver is missing. Never throws.
std::vector<std::string> gpu_devices(const std::string& backend);

/// The run that scores segment [first, end) of a video of `frames` frames (after the skips)
/// with its temporal context: frames [start, stop) are read and scored, and frames [keep_first,
/// keep_first + keep) of that run are the segment's (the RunPart of stitch_runs). The context is
/// cut at the video's ends. Used by vmafx.batch's segments and the CLI's runs on several GPUs.
struct SegmentRun {
    unsigned start = 0, stop = 0;
    unsigned keep_first = 0, keep = 0;
};
SegmentRun segment_run(unsigned first, unsigned end, unsigned frames, const TemporalContext& context);

/// One part of a stitched run: frames [first, first + count) of `result`, a run over a segment
/// of the video with its temporal context around it.
struct RunPart {
    const RunResult* result = nullptr;
    unsigned first = 0;
    unsigned count = 0;
};

/// The run of a whole video from its segments' runs (vmafx.batch): the parts' frames in order,
/// renumbered from 0, under the first part's outputs in its order; the models' summaries pooled
/// again from the stitched frames (summarize_model), never from the parts' pooled values; the
/// first part's format, backends, provenance and printed names; every part's warnings; fps from
/// the parts' times. With parts that cover the video with their temporal context, each value is
/// the single run's. Throws Error for no part, a part whose range leaves its run, parts with
/// other outputs, formats or backends, a subsampled run or one with aggregates (run-wide
/// values cannot be stitched).
RunResult stitch_runs(const std::vector<RunPart>& parts);

/// A RunResult as bytes (CBOR; doubles by their bits, so NaN and -0 survive) and back: a run
/// crossing processes (a Dask worker's to the driver). deserialize_run throws Error on bytes
/// serialize_run did not write.
std::string serialize_run(const RunResult& result);
RunResult deserialize_run(const std::string& bytes);

/// Runs the whole pipeline. Output is identical for every thread count. Memory holds at most a
/// fixed number of frames in flight (about twice the thread count), whatever the video length.
/// Either video may be a stream (a pipe, or "-" for standard input; not both): it is read once,
/// in order, and its length is known at its end.
///
/// Extractors are registered models first (each model's features in order), then `features`;
/// a registration with the same extractor and feature parameters as an earlier one is merged
/// into it, keeping the first (upstream's rule: `-m version=vmaf_v0.6.1 --feature adm=debug=true`
/// adds no debug outputs, since debug is not a feature parameter).
///
/// Only frames that are scored must be whole: a damaged frame (a truncated or malformed one) that
/// is scored is an error naming the file and the frame; a damaged tail after the scored frames
/// (with frame_count) is a warning in RunResult::warnings.
///
/// Throws UsageError for threads above kMaxThreads, an unknown feature, a feature option it
/// does not have or a bad value, an unknown built-in model, scale_dist flags libswscale does
/// not know. Throws Error naming the file and the problem: unreadable input, mismatched
/// reference and distorted formats (sizes: unless scale_dist is set), different frame
/// counts (unless frame_count is set: then the common prefix, up to frame_count, is scored),
/// zero frames, a damaged frame that is scored, a bad model file, both videos standard input or
/// the same stream.
RunResult run(const RunConfig& config);

}  // namespace vmafx
