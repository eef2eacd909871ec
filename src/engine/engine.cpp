#include "engine/engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_pipeline.h>

#include "base/build_info.hpp"
#include "base/trace.hpp"
#include "engine/core.hpp"
#include "engine/extraction.hpp"
#include "engine/inputs.hpp"
#include "engine/pooling.hpp"
#include "feature/registry.hpp"
#include "io/av_reader.hpp"
#include "io/video_reader.hpp"

namespace vmafx {

namespace {

/// Recycles pictures so that a run allocates only as many as it has in flight. A new picture
/// is handed out empty: the reader allocates its planes once it has seen that a frame is there
/// (VideoReader::read re-allocates a picture of another format), so the pair taken for a
/// stream's end, or for a frame cut short before its first sample, costs no frame of memory.
class PicturePool {
public:
    PicturePool() = default;
    std::shared_ptr<Picture> get() {
        std::unique_ptr<Picture> pic;
        {
            std::lock_guard lock(mutex_);
            if (!free_.empty()) {
                pic = std::move(free_.back());
                free_.pop_back();
            }
        }
        if (!pic) {
            pic = std::make_unique<Picture>();
            ++created_;
        }
        return {pic.release(), [this](Picture* p) {
                    std::lock_guard lock(mutex_);
                    free_.emplace_back(p);
                }};
    }

    /// Pictures allocated so far (the most ever alive at once).
    unsigned created() const { return created_; }

private:
    std::atomic<unsigned> created_{0};
    std::mutex mutex_;
    std::vector<std::unique_ptr<Picture>> free_;
};

/// Worker threads of the run: --threads, or every hardware thread when it is 0; at most
/// kMaxThreads (run() refuses more), so that 2 x threads frames in flight cannot overflow.
unsigned thread_count(const RunConfig& config) {
    static_assert(kMaxThreads <= std::numeric_limits<unsigned>::max() / 2);
    return config.threads ? config.threads : std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
}

/// The CPU pipeline: frames in parallel through oneTBB, a bounded number in flight, through the
/// scoring core. In a mixed run (a GPU backend with metrics that have no twin) the core also
/// hands each frame's pictures, in order, to its GPU half, which runs the twins of the others.
void run_cpu(const RunConfig& config, const std::vector<FeatureInstance>& instances, const CoreConfig& core_config,
             PairSource& pairs, RunResult& result) {
    const unsigned threads = thread_count(config);
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    // Declared in this order so that the frames and the core (holding pictures) go before the pool.
    PicturePool pool;
    ScoringCore core(instances, result.format, core_config);
    const PlaneSet planes = core.planes();
    const std::size_t in_flight = std::max<std::size_t>(2, 2 * static_cast<std::size_t>(threads));
    // The frames in flight, in a ring the pipeline owns: its stages pass them by pointer, so
    // that a stage that throws (the pipeline is then cancelled with frames in flight) leaks nothing.
    std::vector<CoreFrame> ring(in_flight);
    unsigned next = 0;
    const unsigned expected = config.progress ? pairs.expected() : 0;
    tbb::parallel_pipeline(
        in_flight,
        tbb::make_filter<void, CoreFrame*>(tbb::filter_mode::serial_in_order,
                                           [&](tbb::flow_control& fc) -> CoreFrame* {
                                               // Frame `next % in_flight` was last used by frame
                                               // next - in_flight, which has left the pipeline (at
                                               // most in_flight frames are alive, and they leave it
                                               // in order).
                                               CoreFrame& f = ring[next % in_flight];
                                               f.index = next;
                                               f.scores.clear();
                                               f.ref = pool.get();
                                               f.dist = pool.get();
                                               if (!pairs.next(*f.ref, *f.dist, planes)) {
                                                   f.release();
                                                   fc.stop();
                                                   return nullptr;
                                               }
                                               core.submit(f);
                                               core.pass_history(f);
                                               ++next;
                                               if (config.progress) config.progress(next, expected);
                                               return &f;
                                           }) &
            tbb::make_filter<CoreFrame*, CoreFrame*>(tbb::filter_mode::parallel,
                                                     [&](CoreFrame* f) -> CoreFrame* {
                                                         core.extract(*f);
                                                         f->release();  // back to the pool soon
                                                         return f;
                                                     }) &
            tbb::make_filter<CoreFrame*, void>(tbb::filter_mode::serial_in_order,
                                               [&](CoreFrame* f) { core.store(*f, result.scores); }));
    ring.clear();
    result.frames = pairs.count();
    pairs.finish();
    core.finish(result.scores);
    result.pictures_allocated = pool.created();
}

/// The device pictures the GPU pipeline unpacks decoder surfaces into, for videos that decode
/// on the GPU (PairSource::on_device): `size` reference and distorted pictures of the run's
/// format (the planes the twins read), a queue of its own for the unpacking and an event the
/// read stage waits on, so that it hands the decoder its surface back at once.
class DeviceRing {
public:
    DeviceRing(const DeviceApi& api, const VideoFormat& format, PlaneSet planes, unsigned size)
        : api_(api),
          format_(format),
          planes_(planes),
          refs_(size),
          dists_(size),
          queue_(api.create_queue(), QueueFree{&api}),
          done_(api.create_event(), EventFree{&api}) {
        for (std::vector<DevicePicture>* ring : {&refs_, &dists_})
            for (DevicePicture& pic : *ring)
                for (int p = 0; p < (planes == PlaneSet::kAll ? 3 : 1); ++p) {
                    // Rows 256-byte aligned, as cudaMallocPitch would align them.
                    const std::size_t pitch =
                        (static_cast<std::size_t>(format.plane_width(p)) * format.bytes_per_sample() + 255) / 256 * 256;
                    memory_.emplace_back(api.alloc_device(pitch * static_cast<std::size_t>(format.plane_height(p))),
                                         Free{&api});
                    pic.planes[p] = {memory_.back().get(), static_cast<std::ptrdiff_t>(pitch)};
                }
    }

    const DevicePicture& ref(unsigned slot) const { return refs_[slot]; }
    const DevicePicture& dist(unsigned slot) const { return dists_[slot]; }

    /// Unpacks the surfaces of one frame into slot `slot` and waits until that is done (the
    /// caller then releases the surfaces).
    void unpack(unsigned slot, const DeviceSurface& ref, const DeviceSurface& dist) {
        api_.unpack_surface(ref, format_, refs_[slot], planes_, queue_.get());
        api_.unpack_surface(dist, format_, dists_[slot], planes_, queue_.get());
        api_.record(done_.get(), queue_.get());
        api_.host_wait(done_.get());
    }

private:
    struct Free {
        const DeviceApi* api;
        void operator()(void* p) const { api->free_device(p); }
    };
    struct QueueFree {
        const DeviceApi* api;
        void operator()(GpuQueue* q) const { api->destroy_queue(q); }
    };
    struct EventFree {
        const DeviceApi* api;
        void operator()(GpuEvent* e) const { api->destroy_event(e); }
    };
    const DeviceApi& api_;
    VideoFormat format_;
    PlaneSet planes_;
    std::vector<DevicePicture> refs_, dists_;
    std::vector<std::unique_ptr<void, Free>> memory_;
    std::unique_ptr<GpuQueue, QueueFree> queue_;
    std::unique_ptr<GpuEvent, EventFree> done_;
};

/// The GPU pipeline, when every metric has a twin: oneTBB stages. The first reads frame
/// pairs (the two files at once, large planes in parallel pieces, only the planes the twins
/// read) into a ring of pinned pictures, up to kReadAhead frames ahead (regular raw files: it
/// takes each pair and a parallel stage reads them, several at once); the last submits them
/// in order to the scoring core, whose GPU half keeps kGpuSlots frames in flight on the device.
/// Reading thus overlaps both the uploads and the kernels. Videos that both decode on the GPU
/// (PairSource::on_device) skip the host: the read stage unpacks the decoders' surfaces into a
/// ring of device pictures (DeviceRing) and the frames are submitted from there.
void run_gpu(const RunConfig& config, const std::vector<FeatureInstance>& instances, const CoreConfig& core_config,
             PairSource& pairs, RunResult& result) {
    constexpr unsigned kSlots = ScoringCore::kGpuSlots;  // frames in flight on the device
    constexpr unsigned kReadAhead = 4;  // frames read but not yet submitted, at most
    // Ring slot i % kRing is rewritten for frame i once frame i - kReadAhead was submitted,
    // hence once frame i - kRing finished on the device (GpuScorer::submit's contract).
    constexpr unsigned kRing = kSlots + kReadAhead;
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, std::max(2u, thread_count(config)));
    // Declared before the core so that they outlive it: its destructor waits for the uploads
    // still reading them and unregisters them. The ring pictures the run is expected to use (as
    // many as its frames, at most the ring) are allocated and zeroed here, while the device's
    // context is still being created on its own thread (gpu_prepare), so that their first
    // touches overlap it; the read stage pins each (0.07 to 0.1 ms per MB once touched:
    // docs/performance.md) when it first fills it, and allocates those the estimate left out
    // (a stream's).
    std::vector<std::shared_ptr<Picture>> refs(kRing), dists(kRing);
    // Videos decoded on the GPU: the device pictures instead, declared before the core for the same reason.
    std::optional<DeviceRing> device_ring;
    const DeviceApi* api = device_api(config.backend);
    const bool on_device = api && api->unpack_surface && pairs.on_device(config.backend);
    const auto allocate = [&](unsigned k) {
        refs[k] = std::make_shared<Picture>(result.format);
        dists[k] = std::make_shared<Picture>(result.format);
    };
    const unsigned early = on_device ? 0 : std::min(kRing, pairs.expected());
    tbb::parallel_for(0u, early, allocate);
    result.pictures_allocated += 2 * early;
    trace::phase("ring pictures allocated");
    ScoringCore core(instances, result.format, core_config);
    trace::phase("GPU scorer created");
    const PlaneSet planes = core.planes();
    if (on_device) device_ring.emplace(*api, result.format, planes, kRing);
    unsigned next = 0;
    const unsigned expected = config.progress ? pairs.expected() : 0;
    // Regular raw files: the first stage only takes each pair and the second reads it, several
    // pairs at once (each of the two files' planes in parallel pieces too), so that no thread
    // waits for the last piece of one frame before the next frame's reading starts.
    const bool ahead = !on_device && pairs.reads_ahead();
    // Seconds each serial stage spent, and the reading's seconds summed over its threads
    // (VMAFX_TIMINGS only: which stage bounds the throughput).
    double read_seconds = 0, pin_seconds = 0, submit_seconds = 0;
    std::atomic<std::int64_t> ahead_nanoseconds{0};
    tbb::parallel_pipeline(
        kReadAhead,
        tbb::make_filter<void, unsigned>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> unsigned {
                                             const auto t0 = std::chrono::steady_clock::now();
                                             const unsigned i = next;
                                             if (pairs.exhausted()) {
                                                 fc.stop();
                                                 return 0;
                                             }
                                             if (device_ring) {
                                                 // Released at the end of this call: the decoders get
                                                 // their surfaces back before their next frames.
                                                 DeviceSurface ref, dist;
                                                 if (!pairs.next_surfaces(ref, dist)) {
                                                     fc.stop();
                                                     return 0;
                                                 }
                                                 device_ring->unpack(i % kRing, ref, dist);
                                                 ++next;
                                                 read_seconds += trace::seconds_since(t0);
                                                 return i;
                                             }
                                             if (i < kRing) {
                                                 if (!refs[i]) {
                                                     allocate(i);
                                                     result.pictures_allocated += 2;
                                                 }
                                                 const auto p0 = std::chrono::steady_clock::now();
                                                 core.pin(*refs[i]);
                                                 core.pin(*dists[i]);
                                                 pin_seconds += trace::seconds_since(p0);
                                             }
                                             if (ahead ? !pairs.take()
                                                       : !pairs.next(*refs[i % kRing], *dists[i % kRing], planes)) {
                                                 fc.stop();
                                                 return 0;
                                             }
                                             ++next;
                                             read_seconds += trace::seconds_since(t0);
                                             return i;
                                         }) &
            tbb::make_filter<unsigned, unsigned>(tbb::filter_mode::parallel,
                                                 [&](unsigned i) {
                                                     if (ahead) {
                                                         const auto t0 = std::chrono::steady_clock::now();
                                                         pairs.read_taken(i, *refs[i % kRing], *dists[i % kRing],
                                                                          planes);
                                                         ahead_nanoseconds += std::chrono::duration_cast<
                                                             std::chrono::nanoseconds>(
                                                             std::chrono::steady_clock::now() - t0).count();
                                                     }
                                                     return i;
                                                 }) &
            tbb::make_filter<unsigned, void>(tbb::filter_mode::serial_in_order, [&](unsigned i) {
                const auto t0 = std::chrono::steady_clock::now();
                if (device_ring) {
                    // The ring keeps them until frame i + kRing, past the device's use.
                    core.submit_device(i, device_ring->ref(i % kRing), device_ring->dist(i % kRing), nullptr);
                    submit_seconds += trace::seconds_since(t0);
                    if (config.progress) config.progress(i + 1, expected);
                    return;
                }
                CoreFrame f;
                f.index = i;
                // Owning nothing: the ring keeps them until frame i + kRing, past the device's use.
                f.ref = std::shared_ptr<Picture>(std::shared_ptr<void>(), refs[i % kRing].get());
                f.dist = std::shared_ptr<Picture>(std::shared_ptr<void>(), dists[i % kRing].get());
                core.submit(f);
                submit_seconds += trace::seconds_since(t0);
                if (i == 0) trace::phase("first frame submitted");
                if (config.progress) config.progress(i + 1, expected);
            }));
    trace::phase(fmt::format("read stage busy {:.1f} ms (pinning {:.1f} ms){}, submit stage busy {:.1f} ms",
                             1e3 * read_seconds, 1e3 * pin_seconds,
                             ahead ? fmt::format(", frames read ahead in {:.1f} ms over all threads",
                                                 1e-6 * static_cast<double>(ahead_nanoseconds.load()))
                                   : std::string(),
                             1e3 * submit_seconds));
    result.frames = pairs.count();
    pairs.finish();
    core.finish(result.scores);
    trace::phase("GPU scores gathered");
}

}  // namespace

FeatureSpec parse_feature_spec(const std::string& text) {
    FeatureSpec spec;
    const auto eq = text.find('=');
    spec.name = text.substr(0, eq);
    if (spec.name.empty()) throw UsageError(fmt::format("--feature \"{}\": no feature name", text));
    const MetricDescriptor& metric = metric_named(spec.name);
    if (eq == std::string::npos) {
        spec.parsed = metric.parse_options({});
        return spec;
    }
    std::string rest = text.substr(eq + 1);
    std::size_t start = 0;
    while (start <= rest.size()) {
        const auto colon = rest.find(':', start);
        const std::string kv = rest.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        const auto e = kv.find('=');
        if (kv.empty() || e == std::string::npos || e == 0 || e + 1 == kv.size())
            throw UsageError(fmt::format("--feature \"{}\": bad option string \"{}\" (expected opt=value)", text, kv));
        // Upstream stores option values normalized (numbers as %g of a float), then parses them.
        spec.options.emplace_back(kv.substr(0, e), normalize_option_value(kv.substr(e + 1)));
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    spec.parsed = metric.parse_options(spec.options);  // throws UsageError for a bad option
    return spec;
}

namespace {


/// What a run computes, decided before any video is opened: the models and the metric
/// instances (models' features first, then the extra features; equal instances shared).
struct RunPlan {
    std::vector<std::unique_ptr<Model>> models;
    std::vector<FeatureInstance> instances;
};

/// Throws UsageError for two models of one name (upstream's CLI refuses them, -n or not) and,
/// when the models predict, for a model output (its name, or a collection's NAME_0001.. and
/// NAME_bagging, _stddev, _ci_p95_lo, _ci_p95_hi) equal to another model's output. Collisions
/// with the features' outputs are found once the features are written (check_feature_collisions):
/// which outputs a metric writes depends on its options (debug, enable_chroma, ...).
void check_model_names(const std::vector<std::unique_ptr<Model>>& models, bool predicting) {
    for (std::size_t i = 0; i < models.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (models[i]->name() == models[j]->name())
                throw UsageError(fmt::format("two models are named \"{}\": give each a unique :name=", models[i]->name()));
    if (!predicting) return;
    std::map<std::string, const Model*> owner;
    for (const auto& m : models)
        for (const std::string& out : m->output_names())
            if (const auto [it, fresh] = owner.emplace(out, m.get()); !fresh)
                throw UsageError(fmt::format("model \"{}\" (name \"{}\") writes \"{}\", which is also model \"{}\"'s "
                                             "output: give each a unique :name=",
                                             m->label(), m->name(), out, it->second->label()));
}

/// Before the models predict: throws UsageError when a model output is also an output the
/// features wrote, by its full name or by the name it is printed under (upstream's collector
/// would keep the feature's value under that name, or print two columns of one name); the
/// message names both.
void check_feature_collisions(const std::vector<std::unique_ptr<Model>>& models, const ScoreTable& features) {
    std::map<std::string, std::string> written;  // full and printed names -> full name
    for (const std::string& n : features.names()) {
        written.emplace(n, n);
        written.emplace(feature_alias(n), n);
    }
    for (const auto& m : models)
        for (const std::string& out : m->output_names())
            if (const auto it = written.find(out); it != written.end())
                throw UsageError(fmt::format("model \"{}\" (name \"{}\") writes \"{}\", which is also the feature output "
                                             "\"{}\"{}: give the model a unique :name=",
                                             m->label(), m->name(), out, it->second,
                                             it->second == out ? "" : fmt::format(" (printed \"{}\")", out)));
}

/// Loads the models and lists the metric instances (models' features first).
RunPlan plan_metrics(const RunConfig& config) {
    RunPlan plan;
    // With no_prediction too (upstream's -n skips prediction only): every model is loaded (an
    // unknown one is an error) and its features are extracted and written.
    for (const auto& spec : config.models) {
        plan.models.push_back(std::make_unique<Model>(spec));
        for (const auto& req : plan.models.back()->required_features())
            add_instance(plan.instances, *req.metric, req.options);
    }
    for (const auto& f : config.features)
        add_instance(plan.instances, metric_named(f.name), f.parsed ? *f.parsed : metric_named(f.name).parse_options(f.options));
    check_model_names(plan.models, !config.no_prediction);
    return plan;
}

/// Checks the configuration that needs no file, loads the models and lists the instances.
RunPlan plan_run(const RunConfig& config) {
    if (config.threads > kMaxThreads)
        throw UsageError(fmt::format("{} threads asked for: at most {} (0: all cores)", config.threads, kMaxThreads));
    if (config.reference_path == "-" && config.distorted_path == "-")
        throw UsageError("the reference and the distorted video cannot both be standard input (-)");
    // Checked before opening too: two readers of one stream would each get part of its bytes.
    if (const std::string id = stream_identity_of(config.reference_path);
        !id.empty() && id == stream_identity_of(config.distorted_path))
        throw UsageError(fmt::format("reference \"{}\" and distorted \"{}\" are the same stream",
                                     config.reference_path, config.distorted_path));
    if (config.decode_sessions < 1 || config.decode_sessions > 16)
        throw UsageError(fmt::format("{} decoding sessions asked for: 1 to 16", config.decode_sessions));
    if (config.decode == RunConfig::Decode::kGpu && config.backend == kCpuBackend)
        throw UsageError("--decode gpu needs a GPU backend (--backend cuda): a CPU run reads its frames on the CPU");
    RunPlan plan = plan_metrics(config);
    if (!config.scale_dist.empty()) check_scale_flags(config.scale_dist);
    return plan;
}

/// Scores every frame with the run's metric instances on the configured backend.
void execute(const RunConfig& config, const RunPlan& plan, Inputs& in, RunResult& result) {
    PairSource pairs(config, *in.ref, *in.dist, in.limit);
    result.backend = config.backend;
    for (const FeatureInstance& f : plan.instances) {
        MetricBackend b{f.metric->name, f.options.feature_name(f.metric->name), kCpuBackend, {}};
        if (config.backend != kCpuBackend) {
            if (const TwinDescriptor* twin = find_twin(f.metric->name, config.backend)) {
                b.backend = config.backend;
                const double bound = twin->contract.bound(result.format);
                b.contract = bound == 0.0 ? "exact" : fmt::format("bound {:.17g}", bound);
            } else {
                b.note = fmt::format("no {} twin", backend_label(config.backend));
            }
        }
        result.backends.push_back(std::move(b));
    }
    CoreConfig core_config;
    core_config.subsample = result.subsample;
    core_config.backend = config.backend;
    core_config.plant = config.planted_defect;
    core_config.error_context =
        fmt::format(" (reference \"{}\", distorted \"{}\")", config.reference_path, config.distorted_path);
    if (config.backend != kCpuBackend && !device_api(config.backend)) {
        const GpuBackendInfo* info = find_gpu_backend(config.backend);
        throw Error(fmt::format("--backend {}: this vmafx was built without the {} backend ({})", config.backend,
                                backend_label(config.backend), info ? info->built_without : "unknown backend"));
    }
    // Metrics without a twin run on the CPU in the same run (as upstream mixes its CUDA and
    // CPU extractors), through the CPU pipeline; the GPU pipeline alone when every metric has one.
    if (runs_wholly_on_gpu(plan.instances, config.backend))
        run_gpu(config, plan.instances, core_config, pairs, result);
    else
        run_cpu(config, plan.instances, core_config, pairs, result);
    order_as_upstream(result.scores, plan.instances, result.frames, result.subsample);
    if (std::string w = pairs.alignment_warning(); !w.empty()) result.warnings.push_back(std::move(w));
    // A stream beside a damaged file: a damaged frame the run reached has thrown already.
    warn_damage(in.ref_count, config.frame_skip_ref, result.frames, result.warnings);
    warn_damage(in.dist_count, config.frame_skip_dist, result.frames, result.warnings);
}

/// Every model's per-frame scores (as upstream's tool: every model's own score first, then the
/// bootstrap collections'), on the scored frames.
void predict(const RunConfig& config, const RunPlan& plan, RunResult& result) {
    if (config.no_prediction) return;
    check_feature_collisions(plan.models, result.scores);
    std::vector<unsigned> indices;
    // A 64-bit count: next + subsample cannot wrap around to below frames.
    for (std::uint64_t next = 0; next < result.frames; next += result.subsample)
        indices.push_back(static_cast<unsigned>(next));
    std::vector<const Model*> models;
    for (const auto& m : plan.models) models.push_back(m.get());
    predict_frames(models, result.scores, indices, thread_count(config));
}

/// Each model's pooled score for the summary line.
ModelSummary summarize(const ModelSpec& spec, const RunResult& result) {
    return summarize_model(spec.label(), spec.name, result);
}


/// Where the run's values come from (RunResult::provenance).
Provenance provenance_of(const RunConfig& config, const RunPlan& plan, const RunResult& result) {
    Provenance p;
    p.print = config.provenance || config.backend != kCpuBackend;
    p.version = VMAFX_VERSION;
    p.commit = build_commit();
    for (const auto& m : plan.models) p.models.push_back({m->name(), m->label(), m->sha256()});
    const bool on_gpu = std::any_of(result.backends.begin(), result.backends.end(),
                                    [](const MetricBackend& b) { return b.backend != kCpuBackend; });
    if (on_gpu) p.device = device_api(config.backend)->device_info();
    return p;
}

/// Where the run's compressed videos decode (RunConfig::decode), and why not on the GPU where
/// it was asked for and cannot be (`why`, empty otherwise).
GpuDecode gpu_decode_of(const RunConfig& config, const RunPlan& plan, std::string& why) {
    if (config.decode == RunConfig::Decode::kCpu || config.backend == kCpuBackend) return {};
    if (config.decode == RunConfig::Decode::kAuto && !runs_wholly_on_gpu(plan.instances, config.backend)) return {};
    const DeviceApi* api = device_api(config.backend);
    if (!api || !api->decode_device_type || !api->unpack_surface) {
        why = fmt::format("the {} backend decodes no video", backend_label(config.backend));
        return {};
    }
    return {api->decode_device_type, config.backend, std::make_shared<GpuDecodingDevice>(api->decode_device_type)};
}

/// RunResult::decoding of a run that asked to decode on the GPU or with several sessions; a
/// warning for each video that --decode gpu could not decode there.
void record_decoding(const RunConfig& config, const Inputs& in, const std::string& why_not, RunResult& result) {
    if ((config.decode == RunConfig::Decode::kCpu || config.backend == kCpuBackend) && config.decode_sessions == 1)
        return;
    for (const auto& [video, reader] : {std::pair{"reference", in.ref.get()}, std::pair{"distorted", in.dist.get()}}) {
        const VideoReader::Sessions s = reader->decoding_sessions();
        InputDecoding d{video, reader->decoder(), reader->decoder_note(), s.sessions, s.segments};
        if (d.note.empty() && !why_not.empty() && d.decoder == kCpuBackend)
            d.note = cpu_decoding_note(reader->path(), why_not);
        if (config.decode == RunConfig::Decode::kGpu && !d.note.empty()) result.warnings.push_back(d.note);
        result.decoding.push_back(std::move(d));
    }
}

/// run() but for out-of-memory: sets `format` once the videos are open.
RunResult score(const RunConfig& config, std::optional<VideoFormat>& format) {
    trace::phase("run started");
    const RunPlan plan = plan_run(config);
    trace::phase("models and features planned");
    // A GPU run starts creating the CUDA context now, while the inputs open, and waits for it
    // whatever happens (so that no thread is still inside the driver when the process exits).
    struct GpuStart {
        std::string backend;  ///< the GPU backend started, or empty
        ~GpuStart() {
            if (!backend.empty()) gpu_unavailable_reason(backend);
        }
    } gpu_start;
    if (config.backend != kCpuBackend && config.gpu >= 0) gpu_select_device(config.backend, config.gpu);
    const bool gpu_twins =
        config.backend != kCpuBackend &&
        std::any_of(plan.instances.begin(), plan.instances.end(),
                    [&](const FeatureInstance& f) { return find_twin(f.metric->name, config.backend) != nullptr; });
    std::string gpu_decode_why_not;
    const GpuDecode gpu_decode = gpu_decode_of(config, plan, gpu_decode_why_not);
    const auto start_gpu = [&] {
        gpu_prepare(config.backend);
        gpu_start.backend = config.backend;
    };
    // A run that decodes on the GPU starts the backend once the inputs are open: the first
    // compressed video opens libav's device, which makes the primary context with the flags
    // libav requires (a context the backend made first has others, which libav refuses).
    if (gpu_twins && !gpu_decode.device) start_gpu();
    Inputs in;
    open_inputs(config, in, gpu_decode);
    if (gpu_twins && gpu_decode.device) start_gpu();
    count_and_skip(config, in);
    trace::phase("inputs opened and counted");

    format = in.ref->format();
    RunResult result;
    for (const std::string& n : in.notices) {
        if (config.notice)
            config.notice(n);
        else
            result.warnings.push_back(n);
    }
    result.format = in.ref->format();
    result.subsample = std::max(1u, config.subsample);
    const auto t0 = std::chrono::steady_clock::now();
    // Packets a decoder skipped: warnings of the run, or part of the error they may explain
    // (a video cut short has fewer frames than the other).
    const auto reading_warnings = [&in] {
        std::vector<std::string> all;
        for (const VideoReader* r : {in.ref.get(), in.dist.get()})
            for (std::string& w : r->reading_warnings()) all.push_back(std::move(w));
        return all;
    };
    try {
        execute(config, plan, in, result);
    } catch (const Error& e) {
        const std::vector<std::string> warnings = reading_warnings();
        if (warnings.empty() || dynamic_cast<const UsageError*>(&e)) throw;
        std::string message = e.what();
        for (const std::string& w : warnings) message += "; " + w;
        throw Error(message);
    }
    // After the frames: the segments the decoding sessions were given are known at the end.
    record_decoding(config, in, gpu_decode_why_not, result);
    for (std::string& w : reading_warnings()) result.warnings.push_back(std::move(w));
    trace::phase("frames scored");
    predict(config, plan, result);
    trace::phase("models predicted");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.fps = seconds > 0 ? result.frames / seconds : 0.0;
    if (!config.no_prediction)
        for (const auto& spec : config.models) result.models.push_back(summarize(spec, result));
    result.printed_names = printed_names_of(result.scores);
    result.provenance = provenance_of(config, plan, result);
    return result;
}

}  // namespace

std::vector<std::string> gpu_devices(const std::string& backend) {
    const DeviceApi* api = device_api(backend);
    return api ? api->list_devices() : std::vector<std::string>{};
}

TemporalContext temporal_context(const RunConfig& config) {
    const RunPlan plan = plan_metrics(config);
    TemporalContext c;
    for (const FeatureInstance& f : plan.instances) c = c.cover(f.metric->context_for(f.options));
    return c;
}

RunResult run(const RunConfig& config) {
    std::optional<VideoFormat> format;
    try {
        return score(config, format);
    } catch (const std::bad_alloc& e) {
        // Memory sized by the input (the pictures in flight, the metrics' images at this size):
        // a message naming the videos, their format and, where known, the bytes asked for.
        const auto* sized = dynamic_cast<const OutOfMemory*>(&e);
        throw Error(fmt::format("reference \"{}\" and distorted \"{}\"{}: out of memory{}{}", config.reference_path,
                                config.distorted_path, format ? " (" + describe(*format) + ")" : std::string(),
                                sized ? ": " : "", sized ? sized->what() : ""));
    }
}

}  // namespace vmafx
