#include "engine/engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_pipeline.h>

#include "engine/pooling.hpp"
#include "io/video_reader.hpp"

namespace vmafx {

namespace {

std::string describe(const VideoFormat& f) {
    return fmt::format("{}x{} {} {}-bit", f.width, f.height, subsampling_name(f.subsampling), f.bit_depth);
}

/// Recycles pictures so that a run allocates only as many as it has in flight.
class PicturePool {
public:
    explicit PicturePool(const VideoFormat& format) : format_(format) {}
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
            pic = std::make_unique<Picture>(format_);
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
    VideoFormat format_;
    std::atomic<unsigned> created_{0};
    std::mutex mutex_;
    std::vector<std::unique_ptr<Picture>> free_;
};

/// One frame pair travelling through the pipeline.
struct Token {
    unsigned index = 0;
    std::shared_ptr<Picture> ref, dist, prev_ref, prev_prev_ref;
    FrameScores scores;
};

/// The planes the run's extractors read: luma only unless one of them reads chroma.
PlaneSet planes_needed(const std::vector<FeatureInstance>& instances) {
    for (const auto& f : instances)
        if (f.info->planes == PlaneSet::kAll) return PlaneSet::kAll;
    return PlaneSet::kLuma;
}

/// Reads frame `index` of both videos (the planes `which`), the two files at once. When both
/// fail, the reference's error is the one reported, as if they had been read in turn.
void read_pair(const RunConfig& config, VideoReader& ref_reader, VideoReader& dist_reader, Picture& ref,
               Picture& dist, unsigned index, PlaneSet which) {
    bool ref_ok = false, dist_ok = false;
    std::exception_ptr ref_error, dist_error;
    const auto read = [which](VideoReader& reader, Picture& pic, bool& ok, std::exception_ptr& error) {
        try {
            ok = reader.read(pic, which);
        } catch (...) {
            error = std::current_exception();
        }
    };
    // Its own context: a cancelled pipeline cannot skip one of the two reads.
    tbb::task_group_context context(tbb::task_group_context::isolated);
    tbb::parallel_invoke([&] { read(ref_reader, ref, ref_ok, ref_error); },
                         [&] { read(dist_reader, dist, dist_ok, dist_error); }, context);
    if (ref_error) std::rethrow_exception(ref_error);
    if (!ref_ok) throw Error(fmt::format("{}: ended after {} frames", config.reference_path, index));
    if (dist_error) std::rethrow_exception(dist_error);
    if (!dist_ok) throw Error(fmt::format("{}: ended after {} frames", config.distorted_path, index));
}

/// Worker threads of the run: --threads, or every hardware thread when it is 0; at most
/// kMaxThreads (run() refuses more), so that 2 x threads frames in flight cannot overflow.
unsigned thread_count(const RunConfig& config) {
    static_assert(kMaxThreads <= std::numeric_limits<unsigned>::max() / 2);
    return config.threads ? config.threads : std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
}

/// The extractor called `name`; throws UsageError listing the known ones when there is none.
const ExtractorInfo& extractor_named(const std::string& name) {
    if (const ExtractorInfo* info = find_extractor(name)) return *info;
    throw UsageError(fmt::format("unknown feature \"{}\" (available: {})", name, extractor_names()));
}

/// Adds the instance (info, options) unless an equal one (same extractor, same non-default
/// options) is there already: upstream shares such instances too.
void add_instance(std::vector<FeatureInstance>& instances, const ExtractorInfo& info,
                  const std::vector<std::pair<std::string, std::string>>& options) {
    Options opts(info.name, info.options, options);
    for (const auto& f : instances)
        if (f.info == &info && f.options.key() == opts.key()) return;
    instances.push_back({&info, std::move(opts)});
}

/// The CPU pipeline: frames in parallel through oneTBB, a bounded number in flight.
void run_cpu(const RunConfig& config, const std::vector<FeatureInstance>& instances, VideoReader& ref_reader,
             VideoReader& dist_reader, RunResult& result) {
    const VideoFormat& format = result.format;
    const unsigned frames = result.frames, subsample = result.subsample;
    std::vector<std::unique_ptr<FeatureExtractor>> extractors;
    unsigned history = 0;
    for (const auto& f : instances) {
        extractors.push_back(f.info->create(f.options, format));
        history = std::max(history, extractors.back()->previous_refs());
    }
    const unsigned threads = thread_count(config);
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    const PlaneSet planes = planes_needed(instances);

    PicturePool pool(format);
    std::shared_ptr<Picture> last_ref, last_last_ref;
    unsigned next = 0;
    tbb::parallel_pipeline(
        std::max(2u, 2 * threads),
        tbb::make_filter<void, Token*>(tbb::filter_mode::serial_in_order,
                                       [&](tbb::flow_control& fc) -> Token* {
                                           if (next == frames) {
                                               fc.stop();
                                               return nullptr;
                                           }
                                           auto t = std::make_unique<Token>();
                                           t->index = next;
                                           t->ref = pool.get();
                                           t->dist = pool.get();
                                           read_pair(config, ref_reader, dist_reader, *t->ref, *t->dist, next, planes);
                                           if (history >= 1) t->prev_ref = last_ref;
                                           if (history >= 2) t->prev_prev_ref = last_last_ref;
                                           if (history >= 2) last_last_ref = last_ref;
                                           if (history >= 1) last_ref = t->ref;
                                           ++next;
                                           if (config.progress) config.progress(next);
                                           return t.release();
                                       }) &
            tbb::make_filter<Token*, Token*>(tbb::filter_mode::parallel,
                                             [&](Token* t) -> Token* {
                                                 std::unique_ptr<Token> guard(t);
                                                 FrameInput in;
                                                 in.index = t->index;
                                                 in.ref = t->ref.get();
                                                 in.dist = t->dist.get();
                                                 in.prev_ref = t->prev_ref.get();
                                                 in.prev_prev_ref = t->prev_prev_ref.get();
                                                 for (const auto& e : extractors) {
                                                     const bool temporal = e->previous_refs() > 0;
                                                     if (!temporal && subsample > 1 && t->index % subsample) continue;
                                                     e->extract(in, t->scores);
                                                 }
                                                 // Pictures go back to the pool as soon as possible.
                                                 t->ref.reset();
                                                 t->dist.reset();
                                                 t->prev_ref.reset();
                                                 t->prev_prev_ref.reset();
                                                 return guard.release();
                                             }) &
            tbb::make_filter<Token*, void>(tbb::filter_mode::serial_in_order, [&](Token* t) {
                std::unique_ptr<Token> guard(t);
                for (const auto& [name, value] : t->scores) result.scores.set(name, t->index, value);
            }));
    last_ref.reset();
    last_last_ref.reset();
    result.pictures_allocated = pool.created();
    for (const auto& e : extractors) e->flush(result.scores);
}

#ifdef VMAFX_HAVE_CUDA
/// The GPU pipeline, two oneTBB stages: the first reads frame pairs (the two files at once,
/// large planes in parallel pieces, luma only: the twins read nothing else) into a ring of
/// pinned pictures, up to kReadAhead frames ahead; the second submits them in order to the
/// GpuScorer, which keeps kSlots frames in flight on the device. Reading thus overlaps both
/// the uploads and the kernels.
void run_gpu(const RunConfig& config, const std::vector<FeatureInstance>& instances, VideoReader& ref_reader,
             VideoReader& dist_reader, RunResult& result) {
    constexpr unsigned kSlots = 4;      // frames in flight on the device
    constexpr unsigned kReadAhead = 4;  // frames read but not yet submitted, at most
    // Ring slot i % kRing is rewritten for frame i once frame i - kReadAhead was submitted,
    // hence once frame i - kRing finished on the device (GpuScorer::submit's contract).
    constexpr unsigned kRing = kSlots + kReadAhead;
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, std::max(2u, thread_count(config)));
    // Declared before the scorer so that they outlive it: its destructor waits for the uploads
    // still reading them and unregisters them.
    std::vector<Picture> refs, dists;
    refs.reserve(kRing);
    dists.reserve(kRing);
    GpuScorer scorer(instances, result.format, kSlots, result.subsample);
    for (unsigned i = 0; i < kRing; ++i) {
        refs.emplace_back(result.format);
        dists.emplace_back(result.format);
        scorer.pin(refs.back().luma());
        scorer.pin(dists.back().luma());
    }
    result.pictures_allocated = 2 * kRing;
    unsigned next = 0;
    tbb::parallel_pipeline(
        kReadAhead,
        tbb::make_filter<void, unsigned>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> unsigned {
                                             if (next == result.frames) {
                                                 fc.stop();
                                                 return 0;
                                             }
                                             const unsigned i = next++;
                                             read_pair(config, ref_reader, dist_reader, refs[i % kRing],
                                                       dists[i % kRing], i, PlaneSet::kLuma);
                                             return i;
                                         }) &
            tbb::make_filter<unsigned, void>(tbb::filter_mode::serial_in_order, [&](unsigned i) {
                scorer.submit(i, refs[i % kRing].luma(), dists[i % kRing].luma());
                if (config.progress) config.progress(i + 1);
            }));
    result.scores = std::move(scorer.drain());
}
#endif

}  // namespace

#ifndef VMAFX_HAVE_CUDA
std::string gpu_unavailable_reason() { return "this vmafx was built without the CUDA backend"; }
PlantedDefect planted_defect() { return PlantedDefect::kNone; }
void set_planted_defect(PlantedDefect) {}
#endif

FeatureSpec parse_feature_spec(const std::string& text) {
    FeatureSpec spec;
    const auto eq = text.find('=');
    spec.name = text.substr(0, eq);
    if (spec.name.empty()) throw UsageError(fmt::format("--feature \"{}\": no feature name", text));
    const ExtractorInfo& info = extractor_named(spec.name);
    if (eq == std::string::npos) return spec;
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
    Options(info.name, info.options, spec.options);  // throws UsageError for a bad option
    return spec;
}

RunResult run(const RunConfig& config) {
    if (config.threads > kMaxThreads)
        throw UsageError(fmt::format("{} threads asked for: at most {} (0: all cores)", config.threads, kMaxThreads));
    auto ref_reader = open_video(config.reference_path, config.raw_format);
    auto dist_reader = open_video(config.distorted_path, config.raw_format);
    const VideoFormat format = ref_reader->format();
    if (!(dist_reader->format() == format))
        throw Error(fmt::format("reference \"{}\" is {} but distorted \"{}\" is {}: they must match",
                                config.reference_path, describe(format), config.distorted_path,
                                describe(dist_reader->format())));

    // Frame counts: the same in both unless the user bounded the run with --frame_cnt.
    const unsigned ref_total = ref_reader->frame_count();
    const unsigned dist_total = dist_reader->frame_count();
    if (config.frame_skip_ref > ref_total)
        throw Error(fmt::format("{}: cannot skip {} frames, it has {}", config.reference_path,
                                config.frame_skip_ref, ref_total));
    if (config.frame_skip_dist > dist_total)
        throw Error(fmt::format("{}: cannot skip {} frames, it has {}", config.distorted_path,
                                config.frame_skip_dist, dist_total));
    const unsigned ref_frames = ref_total - config.frame_skip_ref;
    const unsigned dist_frames = dist_total - config.frame_skip_dist;
    if (ref_frames != dist_frames && config.frame_count == 0)
        throw Error(fmt::format("reference \"{}\" has {} frames but distorted \"{}\" has {}{}; "
                                "use --frame_cnt N to score the first N frames of both",
                                config.reference_path, ref_frames, config.distorted_path, dist_frames,
                                config.frame_skip_ref || config.frame_skip_dist ? " (after skipping)" : ""));
    unsigned frames = std::min(ref_frames, dist_frames);
    if (config.frame_count) frames = std::min(frames, config.frame_count);
    if (frames == 0)
        throw Error(fmt::format("no frames to score in \"{}\" and \"{}\"", config.reference_path,
                                config.distorted_path));
    ref_reader->skip(config.frame_skip_ref);
    dist_reader->skip(config.frame_skip_dist);

    // Models first (their features), then the extra features; equal instances are shared.
    std::vector<std::unique_ptr<Model>> models;
    std::vector<FeatureInstance> instances;
    if (!config.no_prediction) {
        for (const auto& spec : config.models) {
            models.push_back(std::make_unique<Model>(spec));
            for (const auto& req : models.back()->required_features())
                add_instance(instances, *req.extractor, req.options);
        }
    }
    for (const auto& f : config.features) add_instance(instances, extractor_named(f.name), f.options);

    RunResult result;
    result.format = format;
    result.frames = frames;
    result.subsample = std::max(1u, config.subsample);
    const unsigned subsample = result.subsample;
    const auto t0 = std::chrono::steady_clock::now();
    if (config.backend == Backend::kCuda) {
#ifdef VMAFX_HAVE_CUDA
        run_gpu(config, instances, *ref_reader, *dist_reader, result);
#else
        throw Error("--backend cuda: this vmafx was built without the CUDA backend (configure with -DVMAFX_CUDA=ON "
                    "where nvcc is installed)");
#endif
    } else {
        run_cpu(config, instances, *ref_reader, *dist_reader, result);
    }

    // As upstream's tool: every model's own score first, then the bootstrap collections'.
    // A 64-bit count: next + subsample cannot wrap around to below frames.
    for (std::uint64_t next = 0; next < frames; next += subsample) {
        const auto i = static_cast<unsigned>(next);
        for (const auto& m : models) m->predict_score(result.scores, i);
        for (const auto& m : models) m->predict_collection(result.scores, i);
    }

    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.fps = seconds > 0 ? frames / seconds : 0.0;

    for (std::size_t i = 0; i < models.size(); ++i) {
        ModelSummary s;
        s.label = config.models[i].label();
        s.name = config.models[i].name;
        const auto pooled = [&](const std::string& n) {
            return pool_score(result.scores, n, PoolMethod::kMean, frames, subsample).value_or(0.0);
        };
        s.mean = pooled(s.name);
        if (result.scores.frames(s.name + "_bagging")) {
            s.bootstrap = true;
            s.bagging = pooled(s.name + "_bagging");
            s.ci_lo = pooled(s.name + "_ci_p95_lo");
            s.ci_hi = pooled(s.name + "_ci_p95_hi");
            s.stddev = pooled(s.name + "_stddev");
        }
        result.models.push_back(s);
    }
    return result;
}

}  // namespace vmafx
