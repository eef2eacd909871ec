// The one harness that runs a metric over a clip and compares runs: the CPU extractor
// (descriptor.make_extractor, each frame given the previous reference and distorted pictures
// its descriptor declares), its GPU twin through the GPU pipeline (GpuScorer), and the
// comparison of two score tables, bit for bit or within a twin's contract bound. The golden
// suite, the twin sweeps and each metric's own tests use it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/options.hpp"
#include "base/scores.hpp"
#include "feature/metric.hpp"
#include "gpu/twin.hpp"
#include "pictures.hpp"

namespace vmafx::test {

/// The CPU extractor of `metric` with `options` over the clip: frames scored in parallel (their
/// extract() is const and thread-safe), each with prev_ref[k] / prev_dist[k] of frame i - 1 - k
/// as many as metric.history_for(options) declares; scores stored in frame order, then flush().
ScoreTable run_cpu(const MetricDescriptor& metric, const Options& options, const Clip& clip);

/// run_cpu over constant pictures of `values` (every sample of every plane; one frame each),
/// the distorted pictures equal to the references.
ScoreTable run_constant(const MetricDescriptor& metric, const Options& options,
                        const std::vector<std::uint32_t>& values, VideoFormat format = {8, 6, 8, Subsampling::k420});

/// The values of output `name` at frames 0 .. count - 1; a missing one is a test failure (and
/// reads -1).
std::vector<double> column(const ScoreTable& table, const std::string& name, unsigned count);
/// The value of output `name` at `frame`; a missing one is a test failure (and reads -1).
double value(const ScoreTable& table, const std::string& name, unsigned frame = 0);

/// The GPU twin of `metric` over the clip through a GpuScorer with `slots` frames in flight
/// (submit(index, ref, dist) per frame), then drain(). Throws Error as GpuScorer does (no usable
/// device, no twin, a format the metric refuses); without backend `backend`, always.
ScoreTable run_gpu(const MetricDescriptor& metric, const Options& options, const Clip& clip, unsigned slots,
                   PlantedDefect plant = PlantedDefect::kNone, const std::string& backend = "cuda");

/// Compares every output of every frame of `want` (the CPU's) and `got`: a value differs when
/// its bits differ (bound 0) or it is more than `bound` away (NaN counts as differing); an
/// output or frame on one side only differs too. Returns the number of differing values (the
/// output names differing count once). When `report`, the first eight differences are test
/// failures naming `what`.
int count_differences(const ScoreTable& want, const ScoreTable& got, const std::string& what, double bound = 0.0,
                      bool report = true);

/// Runs the CPU extractor and the twin of `metric` under `values` over `clip` with `slots`
/// frames in flight and expects every value within the twin's contract at the clip's format
/// (bit for bit where the bound is 0), and a value for every frame of every output. Where the
/// CPU refuses (an Error: options or samples it cannot score), expects the twin to refuse too
/// and returns false; true when values were compared. `backend`: the twin's GPU backend.
bool expect_twin_matches_cpu(const MetricDescriptor& metric, const OptionValues& values, const Clip& clip,
                             unsigned slots, const std::string& backend = "cuda");

/// How much picture the twin suites and the gate's tests give a GPU backend's device:
/// - kFull on a real GPU: every size and fixture;
/// - kEmulated on a device emulated on the CPU (DeviceInfo::emulated: lavapipe, a second or more
///   a frame at 1080p): the largest pictures smaller (fixtures up to 960x540, the sweep's largest
///   301x157, the repeated runs at 577x323);
/// - kEmulatedSanitized there in a sanitized build (kSanitized): the Release build's tests
///   (part 1 of the test command) have run the same shaders on the kEmulated pictures, and the
///   sanitizers watch host code only (lavapipe is not instrumented), which the small pictures reach
///   as the large ones do: fixtures up to 853x481 (the odd size included), the sweep without its
///   two largest sizes, the repeated runs at 211x119, and no planted-defect runs (a plant changes
///   only shader code).
enum class DeviceScale { kFull, kEmulated, kEmulatedSanitized };

/// The DeviceScale of GPU backend `backend`'s device (which must be usable).
DeviceScale device_scale(const std::string& backend);

/// The largest fixture, in samples, that the twin suites and the gate's fixture test run at
/// `scale`; 0 for every fixture (kFull).
long max_fixture_samples(DeviceScale scale);

/// A registry-driven suite's name for twin parameter `info`: METRIC_BACKEND (psnr_cuda).
std::string twin_param_name(const testing::TestParamInfo<const TwinDescriptor*>& info);

/// The default options ({}) first, then each other option set the built-in models give `metric`
/// (Model::required_features of each built-in model; the feature_opts_dicts of those that also
/// need unregistered metrics), each once (by Options::key()), in the order of builtin_models().
std::vector<OptionValues> model_option_sets(const MetricDescriptor& metric);

/// "name=value:name=value", or "defaults".
std::string option_label(const OptionValues& values);

}  // namespace vmafx::test
