// The contract between a metric (a feature extractor) and the engine that feeds it frames.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "picture/picture.hpp"

struct CUstream_st;  // CUDA's stream type (cudaStream_t is CUstream_st*)

namespace vmafx {

/// Every error vmafx reports to a user: the message names the file or option and the problem.
/// The CLI exits with status 1 on it.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// An Error in what the caller asked for rather than in files or the machine: a malformed or
/// out-of-range value, a `-m`/`--feature` text that does not parse, an unknown feature,
/// feature option or built-in model. Seen from the command line, a usage error: the CLI
/// exits with status 2 on it.
class UsageError : public Error {
public:
    using Error::Error;
};

/// Type of an extractor option, as upstream's VmafOption types.
enum class OptionType { kBool, kInt, kDouble };

/// One option an extractor accepts (upstream: the VmafOption table of the extractor).
/// `alias` abbreviates the option in output names (e.g. "egl" for
/// "vif_enhn_gain_limit"); only options with `feature_param` set change the output names.
struct OptionSpec {
    const char* name;
    const char* alias;  ///< nullptr: the name itself is used in output names
    OptionType type;
    double default_value;
    double min;
    double max;
    bool feature_param;
    const char* help;
};

/// Option values of one extractor instance, validated against its OptionSpec table.
/// Values are held as doubles (bools as 0/1, ints exactly).
class Options {
public:
    Options() = default;
    /// Parses `text` ("true"/"false" for bools, decimal numbers otherwise) for each entry of
    /// `values`, checking names, types and ranges against `specs`. Throws UsageError naming
    /// `extractor` and the bad option (callers that read the values from a file report it
    /// as an error of that file).
    Options(const std::string& extractor, std::span<const OptionSpec> specs,
            const std::vector<std::pair<std::string, std::string>>& values);

    /// The value of option `name`, or its default when unset.
    double get(const std::string& name) const;
    bool get_bool(const std::string& name) const { return get(name) != 0.0; }
    int get_int(const std::string& name) const { return static_cast<int>(get(name)); }

    /// Output name of provided feature `feature` (e.g. "VMAF_integer_feature_vif_scale0_score")
    /// under these options, as upstream's vmaf_feature_name_from_options: the alias of the
    /// name (alias.c: "integer_vif_scale0") followed by "_<alias>_<value>" for each
    /// non-default feature parameter, in alphabetical order of option names; values print
    /// as %g (doubles), %d (ints), and bools as "_<alias>" alone.
    std::string feature_name(const std::string& feature) const;

    /// Canonical text of the non-default values (for telling two instances apart).
    std::string key() const;

private:
    std::span<const OptionSpec> specs_;
    std::map<std::string, double> values_;  // only explicitly set, non-default ones
};

/// Upstream's short output name of a feature (libvmaf feature/alias.c), e.g.
/// "VMAF_integer_feature_adm2_score" -> "integer_adm2"; other names unchanged.
std::string feature_alias(const std::string& feature);

/// Scores of one frame, as (output name, value) in the order the extractor writes them.
using FrameScores = std::vector<std::pair<std::string, double>>;

/// What an extractor sees of one frame: the reference and distorted pictures, and for
/// temporal extractors the reference pictures of the previous frames (nullptr at the start).
struct FrameInput {
    unsigned index = 0;
    const Picture* ref = nullptr;
    const Picture* dist = nullptr;
    const Picture* prev_ref = nullptr;       ///< reference of frame index-1, if wanted
    const Picture* prev_prev_ref = nullptr;  ///< reference of frame index-2, if wanted
};

/// Per-frame scores of a whole run, by output name; frames not written are empty.
class ScoreTable {
public:
    void set(const std::string& name, unsigned index, double value);
    std::optional<double> get(const std::string& name, unsigned index) const;
    /// Names in order of first write.
    const std::vector<std::string>& names() const { return order_; }
    /// Number of frame slots of `name` (highest written index + 1; 0 if none).
    unsigned frames(const std::string& name) const;
    /// Highest frame slot count over all names.
    unsigned max_frames() const;

private:
    std::map<std::string, std::vector<std::optional<double>>> scores_;
    std::vector<std::string> order_;
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
    /// How many previous reference pictures extract() needs (0, 1 or 2).
    virtual unsigned previous_refs() const { return 0; }
};

/// A CUDA stream (cudaStream_t), named without including CUDA's headers.
using GpuStream = ::CUstream_st*;

/// A plane in device memory: `pitch` bytes between row starts; samples uint8_t at 8 bits,
/// uint16_t above (as Plane). data == nullptr: absent.
struct DevicePlane {
    const void* data = nullptr;
    std::ptrdiff_t pitch = 0;
};

/// What a GPU twin sees of one frame: device copies of the luma planes of the reference and
/// distorted pictures, and for temporal twins the previous references' luma.
struct GpuFrame {
    unsigned index = 0;
    DevicePlane ref, dist;
    DevicePlane prev_ref, prev_prev_ref;
};

/// A metric's GPU (CUDA) twin: same outputs as its CPU FeatureExtractor, computed on the
/// device. The engine keeps several frames in flight, each in a result slot (0..slots-1, the
/// count given at creation); a twin owns per-slot device and pinned host memory.
class GpuExtractor {
public:
    virtual ~GpuExtractor() = default;
    /// Enqueues all device work of frame `f` on `stream`, ending with the asynchronous copy of
    /// its results to the slot's pinned host memory. Never synchronizes the host.
    virtual void enqueue(const GpuFrame& f, unsigned slot, GpuStream stream) = 0;
    /// Once the stream work of `slot` has completed: appends the frame's scores (the CPU
    /// extractor's names and, per the contract, its values) to `out`.
    virtual void finish(unsigned slot, unsigned index, FrameScores& out) = 0;
    /// As FeatureExtractor::flush.
    virtual void flush(ScoreTable& table) const { (void)table; }
    /// As FeatureExtractor::previous_refs.
    virtual unsigned previous_refs() const { return 0; }
};

/// A twin's parity contract, declared next to the twin and read by the parity gate:
/// exact (every value the CPU's bits), or a bound on |gpu - cpu| with its derivation.
struct TwinContract {
    bool exact = true;
    double bound = 0.0;            ///< max |gpu - cpu| where not exact
    const char* derivation = "";   ///< why the values may differ and how the bound follows
};

/// A registered extractor: upstream's name ("vif", "adm", "motion"), its option table, the
/// features it provides (upstream names, e.g. "VMAF_integer_feature_vif_scale0_score"), and
/// a factory. The factory throws Error when the format is one the metric cannot score
/// (e.g. too small), naming the metric and the limit.
struct ExtractorInfo {
    const char* name;
    std::span<const OptionSpec> options;
    std::vector<std::string> provided_features;
    /// The planes its extract() reads (kLuma lets the engine skip chroma when reading files).
    PlaneSet planes = PlaneSet::kAll;
    std::function<std::unique_ptr<FeatureExtractor>(const Options&, const VideoFormat&)> create;
    /// The GPU twin's factory (options, format, result slots); empty where the metric has no
    /// twin or the CUDA backend is not built. Throws Error like `create`.
    std::function<std::unique_ptr<GpuExtractor>(const Options&, const VideoFormat&, unsigned)> create_gpu = {};
    /// The GPU twin's parity contract.
    TwinContract gpu_contract = {};
};

/// All extractors, in a fixed order.
const std::vector<ExtractorInfo>& extractor_registry();
/// The extractor called `name`, or nullptr.
const ExtractorInfo* find_extractor(const std::string& name);
/// The names of all extractors, in registry order, for messages: "vif, adm, motion".
std::string extractor_names();
/// The extractor that provides upstream feature `feature` (e.g.
/// "VMAF_integer_feature_adm2_score"), or nullptr.
const ExtractorInfo* find_extractor_by_feature(const std::string& feature);

}  // namespace vmafx
