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
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_pipeline.h>

#include "base/trace.hpp"
#include "engine/core.hpp"
#include "engine/extraction.hpp"
#include "engine/pooling.hpp"
#include "feature/registry.hpp"
#include "io/av_reader.hpp"
#include "io/video_reader.hpp"

namespace vmafx {

namespace {

std::string describe(const VideoFormat& f) {
    return fmt::format("{}x{} {} {}-bit", f.width, f.height, subsampling_name(f.subsampling), f.bit_depth);
}

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

/// One frame pair travelling through the pipeline. The CPU pipeline keeps its tokens in a ring
/// that it owns and passes them between stages by pointer, so that a stage that throws (the
/// pipeline is then cancelled with tokens in flight) leaks nothing.
struct Token {
    unsigned index = 0;
    std::shared_ptr<Picture> ref, dist;
    std::array<std::shared_ptr<Picture>, kMaxHistory> prev_ref, prev_dist;
    FrameScores scores;

    /// Drops the pictures (back to the pool).
    void release() {
        ref.reset();
        dist.reset();
        for (auto& p : prev_ref) p.reset();
        for (auto& p : prev_dist) p.reset();
    }
};

/// Runs `a` and `b` at the same time and waits for both; rethrows `a`'s exception first, as if
/// they had run in turn. Where `threads` is set (a stream is read), `b` gets a thread of its
/// own: a writer feeding both videos (one process writing two pipes) may block on either, so
/// the two reads must really overlap, which oneTBB does not promise when it has one thread.
void concurrently(bool threads, const std::function<void()>& a, const std::function<void()>& b) {
    std::exception_ptr a_error, b_error;
    const auto guarded = [](const std::function<void()>& fn, std::exception_ptr& error) {
        try {
            fn();
        } catch (...) {
            error = std::current_exception();
        }
    };
    if (threads) {
        std::thread other([&] { guarded(b, b_error); });
        guarded(a, a_error);
        other.join();
    } else {
        // Its own context: a cancelled pipeline cannot skip one of the two.
        tbb::task_group_context context(tbb::task_group_context::isolated);
        tbb::parallel_invoke([&] { guarded(a, a_error); }, [&] { guarded(b, b_error); }, context);
    }
    if (a_error) std::rethrow_exception(a_error);
    if (b_error) std::rethrow_exception(b_error);
}

/// The error of videos whose lengths differ (after the skips) without --frame_cnt.
Error length_mismatch(const RunConfig& config, const std::string& ref, std::uint64_t ref_frames,
                      const std::string& dist, std::uint64_t dist_frames) {
    return Error(fmt::format("reference \"{}\" has {} frame{} but distorted \"{}\" has {}{}; use --frame_cnt N "
                             "to score the first N frames of both",
                             ref, ref_frames, ref_frames == 1 ? "" : "s", dist, dist_frames,
                             config.frame_skip_ref || config.frame_skip_dist ? " (after skipping)" : ""));
}

/// The error of a run with nothing to score.
Error no_frames(const std::string& ref, const std::string& dist) {
    return Error(fmt::format("no frames to score in \"{}\" and \"{}\"", ref, dist));
}

/// The frame pairs of a run, read in order: frame i of both videos at once, until `limit`
/// pairs or the end of either video.
class PairSource {
public:
    PairSource(const RunConfig& config, VideoReader& ref, VideoReader& dist, unsigned limit)
        : config_(config), ref_(ref), dist_(dist), limit_(limit), threads_(ref.is_stream() || dist.is_stream()) {}

    /// Whether next() is known to return false: `limit` reached, or a video ended.
    bool exhausted() const { return count_ == limit_ || ended_; }

    /// Reads the next pair into `ref` and `dist` (the planes `which`). Returns false when the
    /// run has no more pairs: `limit` reached, or one video or both ended.
    bool next(Picture& ref, Picture& dist, PlaneSet which) {
        if (exhausted()) return false;
        if (config_.align_pts) return next_by_time(ref, dist, which);
        bool ref_ok = false, dist_ok = false;
        concurrently(
            threads_, [&] { ref_ok = ref_.read(ref, which); }, [&] { dist_ok = dist_.read(dist, which); });
        if (ref_ok && dist_ok) {
            ++count_;
            return true;
        }
        ended_ = true;
        ref_longer_ = ref_ok;
        dist_longer_ = dist_ok;
        return false;
    }

    /// Pairs read so far.
    unsigned count() const { return count_; }

    /// Pairs the run is expected to read, for progress display: `limit` capped by what each
    /// reader expects after its skip; 0 when unknown.
    unsigned expected() const {
        std::uint64_t n = limit_;
        const auto cap = [&n](const VideoReader& r, unsigned skipped) {
            if (const auto e = r.expected_frames()) n = std::min<std::uint64_t>(n, *e > skipped ? *e - skipped : 0);
        };
        cap(ref_, config_.frame_skip_ref);
        cap(dist_, config_.frame_skip_dist);
        return n == UINT_MAX ? 0u : static_cast<unsigned>(n);
    }

    /// With --align pts: a warning counting the frames dropped for want of a partner, or empty.
    std::string alignment_warning() const {
        if (!config_.align_pts || (dropped_ref_ == 0 && dropped_dist_ == 0)) return {};
        return fmt::format("--align pts: {} frame{} of reference \"{}\" and {} of distorted \"{}\" had no frame "
                           "of the other within {:.3f} ms and were not scored ({} pair{} scored)",
                           dropped_ref_, dropped_ref_ == 1 ? "" : "s", ref_.path(), dropped_dist_, dist_.path(),
                           tolerance_ * 1e3, count_, count_ == 1 ? "" : "s");
    }

    /// After the last pair: unless --frame_cnt asked for a common prefix (or --align pts pairs
    /// by time), throws when one video ended before the other, naming both counts (a stream
    /// that is longer is read to its end to count its frames); throws when there was no pair
    /// at all.
    void finish() {
        if (config_.align_pts) {
            if (count_ == 0) throw no_frames(ref_.path(), dist_.path());
            return;
        }
        if (config_.frame_count || (!ref_longer_ && !dist_longer_)) {
            if (count_ == 0) throw no_frames(ref_.path(), dist_.path());
            return;
        }
        VideoReader& longer = ref_longer_ ? ref_ : dist_;
        const unsigned skipped = ref_longer_ ? config_.frame_skip_ref : config_.frame_skip_dist;
        std::uint64_t more = 1;  // the frame read with the other's end
        if (const auto c = longer.frame_count()) {
            more = c->whole + (c->damage.empty() ? 0u : 1u) - skipped - count_;
        } else {
            Picture scratch;
            while (longer.read(scratch, PlaneSet::kLuma)) ++more;
        }
        const std::uint64_t ref_frames = ref_longer_ ? count_ + more : count_;
        const std::uint64_t dist_frames = dist_longer_ ? count_ + more : count_;
        throw length_mismatch(config_, ref_.path(), ref_frames, dist_.path(), dist_frames);
    }

private:
    /// next() with --align pts: reads on from whichever video is behind, dropping its frame,
    /// until the two frames in hand are within tolerance_ of each other; at either video's end
    /// the other's remaining frames are dropped (read to its end to count them, unless the
    /// limit was reached).
    bool next_by_time(Picture& ref, Picture& dist, PlaneSet which) {
        if (tolerance_ < 0) {
            const auto interval = [](const VideoReader& r) {
                if (!r.frame_interval())
                    throw Error(fmt::format("--align pts: \"{}\" has no timestamps or frame rate (raw and y4m video "
                                            "is paired by position only)",
                                            r.path()));
                return *r.frame_interval();
            };
            tolerance_ = std::min(interval(ref_), interval(dist_)) / 2;
        }
        bool need_ref = true, need_dist = true;
        bool ref_ok = true, dist_ok = true;
        for (;;) {
            if (need_ref && need_dist) {
                concurrently(
                    threads_, [&] { ref_ok = ref_.read(ref, which); }, [&] { dist_ok = dist_.read(dist, which); });
            } else if (need_ref) {
                ref_ok = ref_.read(ref, which);
            } else if (need_dist) {
                dist_ok = dist_.read(dist, which);
            }
            need_ref = need_dist = false;
            if (!ref_ok || !dist_ok) {
                ended_ = true;
                // The other video's frame in hand and the rest of it have no partner.
                VideoReader& other = ref_ok ? ref_ : dist_;
                unsigned& dropped = ref_ok ? dropped_ref_ : dropped_dist_;
                if (ref_ok || dist_ok) {
                    Picture scratch;
                    for (++dropped; other.read(scratch, PlaneSet::kLuma);) ++dropped;
                }
                return false;
            }
            const double tr = ref_.timestamp().value_or(0.0), td = dist_.timestamp().value_or(0.0);
            if (std::abs(tr - td) < tolerance_) {
                ++count_;
                return true;
            }
            if (tr < td) {
                ++dropped_ref_;
                need_ref = true;
            } else {
                ++dropped_dist_;
                need_dist = true;
            }
        }
    }

    const RunConfig& config_;
    VideoReader& ref_;
    VideoReader& dist_;
    unsigned limit_;
    double tolerance_ = -1;                      ///< --align pts: seconds (set at the first pair)
    unsigned dropped_ref_ = 0, dropped_dist_ = 0;  ///< --align pts: frames without a partner
    bool threads_;
    unsigned count_ = 0;
    bool ended_ = false;
    bool ref_longer_ = false, dist_longer_ = false;  ///< which one still had a frame at the end
};

/// Worker threads of the run: --threads, or every hardware thread when it is 0; at most
/// kMaxThreads (run() refuses more), so that 2 x threads frames in flight cannot overflow.
unsigned thread_count(const RunConfig& config) {
    static_assert(kMaxThreads <= std::numeric_limits<unsigned>::max() / 2);
    return config.threads ? config.threads : std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
}

/// The CPU pipeline: frames in parallel through oneTBB, a bounded number in flight. With `gpu`
/// (a mixed run: `--backend cuda` with metrics that have no twin), each frame's pictures are
/// also submitted, in order, to the core's GPU half, which runs the twins of the others.
void run_cpu(const RunConfig& config, const std::vector<FeatureInstance>& instances, PairSource& pairs,
             RunResult& result, GpuHalf* gpu = nullptr) {
    const VideoFormat& format = result.format;
    const unsigned subsample = result.subsample;
    const FrameExtractors extractors(instances, format, subsample);
    Needs needs = needs_of(instances);
    if (gpu && gpu->planes() == PlaneSet::kAll) needs.planes = PlaneSet::kAll;
    const unsigned threads = thread_count(config);
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);

    // Declared in this order so that the tokens (holding pictures) go before the pool.
    PicturePool pool;
    struct ReleaseHeld {  // declared after the pool: goes first, also when the pipeline throws
        GpuHalf* gpu;
        ~ReleaseHeld() { if (gpu) gpu->release(); }
    } release_held{gpu};
    const std::size_t in_flight = std::max<std::size_t>(2, 2 * static_cast<std::size_t>(threads));
    std::vector<Token> ring(in_flight);
    PictureHistory ref_history(needs.history.refs), dist_history(needs.history.dists);
    unsigned next = 0;
    const unsigned expected = config.progress ? pairs.expected() : 0;
    tbb::parallel_pipeline(
        in_flight,
        tbb::make_filter<void, Token*>(tbb::filter_mode::serial_in_order,
                                       [&](tbb::flow_control& fc) -> Token* {
                                           // Token `next % in_flight` was last used by frame
                                           // next - in_flight, which has left the pipeline (at
                                           // most in_flight tokens are alive, and they leave it
                                           // in order).
                                           Token& t = ring[next % in_flight];
                                           t.index = next;
                                           t.scores.clear();
                                           t.ref = pool.get();
                                           t.dist = pool.get();
                                           if (!pairs.next(*t.ref, *t.dist, needs.planes)) {
                                               t.release();
                                               fc.stop();
                                               return nullptr;
                                           }
                                           ref_history.pass(t.prev_ref, t.ref);
                                           dist_history.pass(t.prev_dist, t.dist);
                                           ++next;
                                           if (config.progress) config.progress(next, expected);
                                           return &t;
                                       }) &
            tbb::make_filter<Token*, Token*>(tbb::filter_mode::parallel,
                                             [&](Token* t) -> Token* {
                                                 FrameInput in;
                                                 in.index = t->index;
                                                 in.ref = t->ref.get();
                                                 in.dist = t->dist.get();
                                                 for (unsigned k = 0; k < kMaxHistory; ++k) {
                                                     in.prev_ref[k] = t->prev_ref[k].get();
                                                     in.prev_dist[k] = t->prev_dist[k].get();
                                                 }
                                                 try {
                                                     extractors.extract(in, t->scores);
                                                 } catch (const Error& e) {
                                                     // A metric knows pictures, not files: name them.
                                                     throw Error(fmt::format("{} (reference \"{}\", distorted \"{}\")",
                                                                             e.what(), config.reference_path,
                                                                             config.distorted_path));
                                                 }
                                                 // Pictures go back to the pool as soon as possible
                                                 // (a mixed run's GPU half still needs this frame's).
                                                 if (gpu) {
                                                     for (auto& p : t->prev_ref) p.reset();
                                                     for (auto& p : t->prev_dist) p.reset();
                                                 } else {
                                                     t->release();
                                                 }
                                                 return t;
                                             }) &
            tbb::make_filter<Token*, void>(tbb::filter_mode::serial_in_order, [&](Token* t) {
                for (const auto& [name, value] : t->scores) result.scores.set(name, t->index, value);
                t->scores.clear();
                if (gpu) {
                    gpu->submit(t->index, *t->ref, *t->dist, t->ref, t->dist);
                    t->release();
                }
            }));
    ref_history.clear();
    dist_history.clear();
    ring.clear();
    result.frames = pairs.count();
    result.pictures_allocated = pool.created();
    pairs.finish();
    extractors.flush(result.scores);
    if (gpu) {
        gpu->release();
        gpu->drain_into(result.scores);
    }
}

/// The GPU pipeline, two oneTBB stages: the first reads frame pairs (the two files at once,
/// large planes in parallel pieces, only the planes the twins read) into a ring of
/// pinned pictures, up to kReadAhead frames ahead; the second submits them in order to the
/// core's GPU half, which keeps kSlots frames in flight on the device. Reading thus overlaps both
/// the uploads and the kernels.
void run_gpu(const RunConfig& config, const std::vector<FeatureInstance>& instances, PairSource& pairs,
             RunResult& result) {
    constexpr unsigned kSlots = GpuHalf::kSlots;  // frames in flight on the device
    constexpr unsigned kReadAhead = 4;  // frames read but not yet submitted, at most
    // Ring slot i % kRing is rewritten for frame i once frame i - kReadAhead was submitted,
    // hence once frame i - kRing finished on the device (GpuScorer::submit's contract).
    constexpr unsigned kRing = kSlots + kReadAhead;
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, std::max(2u, thread_count(config)));
    // Declared before the scorer so that they outlive it: its destructor waits for the uploads
    // still reading them and unregisters them. Each ring picture is allocated (zeroed) and
    // pinned (about 0.7 ms per MB) when first used, by the read stage: a short run makes few,
    // and a long one makes the rest while its first frames are scored.
    std::vector<std::optional<Picture>> refs(kRing), dists(kRing);
    GpuHalf scorer(instances, result.format, config.backend, result.subsample, config.planted_defect);
    trace::phase("GPU scorer created");
    const PlaneSet planes = scorer.planes();
    unsigned next = 0;
    const unsigned expected = config.progress ? pairs.expected() : 0;
    // Seconds each serial stage spent (VMAFX_TIMINGS only: which one bounds the throughput).
    double read_seconds = 0, submit_seconds = 0;
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
                                             if (i < kRing) {
                                                 scorer.pin(refs[i].emplace(result.format));
                                                 scorer.pin(dists[i].emplace(result.format));
                                                 result.pictures_allocated += 2;
                                             }
                                             if (!pairs.next(*refs[i % kRing], *dists[i % kRing], planes)) {
                                                 fc.stop();
                                                 return 0;
                                             }
                                             ++next;
                                             read_seconds += trace::seconds_since(t0);
                                             return i;
                                         }) &
            tbb::make_filter<unsigned, void>(tbb::filter_mode::serial_in_order, [&](unsigned i) {
                const auto t0 = std::chrono::steady_clock::now();
                scorer.submit(i, *refs[i % kRing], *dists[i % kRing], nullptr, nullptr);  // the ring keeps them
                submit_seconds += trace::seconds_since(t0);
                if (i == 0) trace::phase("first frame submitted");
                if (config.progress) config.progress(i + 1, expected);
            }));
    trace::phase(fmt::format("read stage busy {:.1f} ms, submit stage busy {:.1f} ms", 1e3 * read_seconds,
                             1e3 * submit_seconds));
    result.frames = pairs.count();
    pairs.finish();
    scorer.drain_into(result.scores);
}

}  // namespace

FeatureSpec parse_feature_spec(const std::string& text) {
    FeatureSpec spec;
    const auto eq = text.find('=');
    spec.name = text.substr(0, eq);
    if (spec.name.empty()) throw UsageError(fmt::format("--feature \"{}\": no feature name", text));
    const MetricDescriptor& metric = metric_named(spec.name);
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
    metric.parse_options(spec.options);  // throws UsageError for a bad option
    return spec;
}

namespace {

/// Frames of a regular file after `skip`, its damaged frame counted as one.
unsigned frames_after(const FrameCount& c, unsigned skip) {
    const unsigned all = c.whole + (c.damage.empty() ? 0u : 1u);
    return all - std::min(all, skip);
}

/// Throws the damage of a regular file when its damaged frame is among frames
/// skip..skip+frames-1, the ones a run scores.
void check_damage(const FrameCount& c, unsigned skip, std::uint64_t frames) {
    if (!c.damage.empty() && skip + frames > c.whole) throw Error(c.damage);
}

/// After a run that scored `frames` frames from `skip`: a damaged tail it did not reach is a
/// warning naming the file and the frame.
void warn_damage(const std::optional<FrameCount>& c, unsigned skip, unsigned frames,
                 std::vector<std::string>& warnings) {
    if (!c || c->damage.empty()) return;
    warnings.push_back(fmt::format("{} (not scored: the run scored frames {} to {})", c->damage, skip,
                                   static_cast<std::uint64_t>(skip) + frames - 1));
}


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
    RunPlan plan;
    // With no_prediction too (upstream's -n skips prediction only): every model is loaded (an
    // unknown one is an error) and its features are extracted and written.
    for (const auto& spec : config.models) {
        plan.models.push_back(std::make_unique<Model>(spec));
        for (const auto& req : plan.models.back()->required_features())
            add_instance(plan.instances, *req.metric, req.options);
    }
    for (const auto& f : config.features) add_instance(plan.instances, metric_named(f.name), f.options);
    check_model_names(plan.models, !config.no_prediction);
    if (!config.scale_dist.empty()) check_scale_flags(config.scale_dist);
    return plan;
}

/// The two videos of a run, opened and checked against each other, their known frame counts
/// (regular files) and the number of pairs to score at most.
struct Inputs {
    std::unique_ptr<VideoReader> ref, dist;
    std::optional<FrameCount> ref_count, dist_count;
    unsigned limit = UINT_MAX;
    std::vector<std::string> notices;  ///< the readers' (VideoReader::notices())
};

/// Opens both videos: two streams at once (opening a pipe waits for its writer, and one
/// writer may feed both); otherwise the file first, so that its errors come without waiting
/// for the stream's writer. Throws when the formats differ or both are one stream.
void open_inputs(const RunConfig& config, Inputs& in) {
    // Standard input closed: a file opened now would take descriptor 0 and be read as "-".
    if ((config.reference_path == "-" || config.distorted_path == "-") && ::fcntl(STDIN_FILENO, F_GETFD) < 0)
        throw Error(fmt::format("standard input: cannot read: {}", std::strerror(errno)));
    // Codec threads of decoded videos: --threads (0: one per core, libavcodec's choice).
    const auto open_ref = [&] { in.ref = open_video(config.reference_path, config.raw_format, config.threads); };
    const auto open_dist = [&] { in.dist = open_video(config.distorted_path, config.raw_format, config.threads); };
    const bool ref_stream = !stream_identity_of(config.reference_path).empty();
    const bool dist_stream = !stream_identity_of(config.distorted_path).empty();
    if (ref_stream && dist_stream) {
        concurrently(true, open_ref, open_dist);
    } else if (ref_stream) {
        open_dist();
        open_ref();
    } else {
        open_ref();
        open_dist();
    }
    const VideoFormat format = in.ref->format();
    const VideoFormat& dist_format = in.dist->format();
    if (dist_format.width != format.width || dist_format.height != format.height) {
        if (config.scale_dist.empty())
            throw Error(fmt::format("reference \"{}\" is {}x{} but distorted \"{}\" is {}x{}: the sizes must match, "
                                    "or add --scale-dist bicubic (or another libswscale algorithm) to scale the "
                                    "distorted video to the reference's size",
                                    in.ref->path(), format.width, format.height, in.dist->path(), dist_format.width,
                                    dist_format.height));
        in.dist = scale_video(std::move(in.dist), format.width, format.height, config.scale_dist);
    }
    for (const VideoReader* r : {in.ref.get(), in.dist.get()}) {
        for (std::string& n : r->notices()) in.notices.push_back(std::move(n));
        if (config.align_pts && !r->frame_interval())
            throw Error(fmt::format("--align pts: \"{}\" has no timestamps or frame rate (raw and y4m video is "
                                    "paired by position only)",
                                    r->path()));
    }
    if (!(in.dist->format() == format))
        throw Error(fmt::format("reference \"{}\" is {} but distorted \"{}\" is {}: they must match",
                                in.ref->path(), describe(format), in.dist->path(), describe(in.dist->format())));
    if (in.ref->is_stream() && in.ref->stream_identity() == in.dist->stream_identity())
        throw Error(fmt::format("reference \"{}\" and distorted \"{}\" are the same stream", in.ref->path(),
                                in.dist->path()));
}

/// Frame counts. Regular files: known now, so that a mismatch or a damaged frame to be scored
/// is reported before scoring, with both numbers; they must agree unless --frame_cnt asks for
/// the common prefix. Streams: read until they end (PairSource checks their lengths). Then
/// skips the frames --frame_skip_ref/_dist ask for.
void count_and_skip(const RunConfig& config, Inputs& in) {
    in.ref_count = in.ref->frame_count();
    in.dist_count = in.dist->frame_count();
    in.limit = config.frame_count ? config.frame_count : UINT_MAX;
    if (in.ref_count && in.dist_count) {
        const FrameCount& rc = *in.ref_count;
        const FrameCount& dc = *in.dist_count;
        if (config.frame_skip_ref > rc.whole) in.ref->skip(config.frame_skip_ref);     // throws
        if (config.frame_skip_dist > dc.whole) in.dist->skip(config.frame_skip_dist);  // throws
        const unsigned ref_frames = frames_after(rc, config.frame_skip_ref);
        const unsigned dist_frames = frames_after(dc, config.frame_skip_dist);
        if (config.frame_count == 0 && !config.align_pts) {
            // Every frame is to be scored: a damaged one is an error, whatever the other video.
            check_damage(rc, config.frame_skip_ref, ref_frames);
            check_damage(dc, config.frame_skip_dist, dist_frames);
            if (ref_frames != dist_frames)
                throw length_mismatch(config, in.ref->path(), ref_frames, in.dist->path(), dist_frames);
        }
        in.limit = std::min({in.limit, ref_frames, dist_frames});
        if (in.limit == 0) throw no_frames(in.ref->path(), in.dist->path());
        check_damage(rc, config.frame_skip_ref, in.limit);
        check_damage(dc, config.frame_skip_dist, in.limit);
    } else if ((in.ref_count || in.dist_count) && config.frame_count == 0 && !config.align_pts) {
        // A regular file beside a stream, every frame to be scored: its damaged frame is an
        // error now, before any picture is allocated or the stream read.
        const bool ref_known = in.ref_count.has_value();
        const FrameCount& c = ref_known ? *in.ref_count : *in.dist_count;
        const unsigned skip = ref_known ? config.frame_skip_ref : config.frame_skip_dist;
        if (skip <= c.whole) check_damage(c, skip, frames_after(c, skip));
    }
    concurrently(
        in.ref->is_stream() || in.dist->is_stream(), [&] { in.ref->skip(config.frame_skip_ref); },
        [&] { in.dist->skip(config.frame_skip_dist); });
}

/// Scores every frame with the run's metric instances on the configured backend.
void execute(const RunConfig& config, const RunPlan& plan, Inputs& in, RunResult& result) {
    PairSource pairs(config, *in.ref, *in.dist, in.limit);
    result.backend = config.backend;
    for (const FeatureInstance& f : plan.instances) {
        MetricBackend b{f.metric->name, f.options.feature_name(f.metric->name), kCpuBackend, {}};
        if (config.backend != kCpuBackend) {
            if (find_twin(f.metric->name, config.backend))
                b.backend = config.backend;
            else
                b.note = fmt::format("no {} twin", backend_label(config.backend));
        }
        result.backends.push_back(std::move(b));
    }
    if (config.backend != kCpuBackend) {
        if (!device_api(config.backend)) {
            const GpuBackendInfo* info = find_gpu_backend(config.backend);
            throw Error(fmt::format("--backend {}: this vmafx was built without the {} backend ({})", config.backend,
                                    backend_label(config.backend), info ? info->built_without : "unknown backend"));
        }
        // Metrics without a twin run on the CPU in the same run (as upstream mixes its CUDA and
        // CPU extractors); the GPU pipeline alone when every metric has one.
        const BackendSplit split = split_by_twin(plan.instances, config.backend);
        const std::vector<FeatureInstance>& on_gpu = split.gpu;
        const std::vector<FeatureInstance>& on_cpu = split.cpu;
        if (on_cpu.empty()) {
            run_gpu(config, on_gpu, pairs, result);
        } else if (on_gpu.empty()) {
            run_cpu(config, on_cpu, pairs, result);
        } else {
            GpuHalf gpu(on_gpu, result.format, config.backend, result.subsample, config.planted_defect);
            run_cpu(config, on_cpu, pairs, result, &gpu);
        }
    } else {
        run_cpu(config, plan.instances, pairs, result);
    }
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
    ModelSummary s;
    s.label = spec.label();
    s.name = spec.name;
    const auto pooled = [&](const std::string& n) {
        return pool_score(result.scores, n, PoolMethod::kMean, result.frames, result.subsample).value_or(0.0);
    };
    s.mean = pooled(s.name);
    if (result.scores.frames(s.name + "_bagging")) {
        s.bootstrap = true;
        s.bagging = pooled(s.name + "_bagging");
        s.ci_lo = pooled(s.name + "_ci_p95_lo");
        s.ci_hi = pooled(s.name + "_ci_p95_hi");
        s.stddev = pooled(s.name + "_stddev");
    }
    return s;
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
    if (config.backend != kCpuBackend &&
        std::any_of(plan.instances.begin(), plan.instances.end(),
                    [&](const FeatureInstance& f) { return find_twin(f.metric->name, config.backend) != nullptr; })) {
        gpu_prepare(config.backend);
        gpu_start.backend = config.backend;
    }
    Inputs in;
    open_inputs(config, in);
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
    for (std::string& w : reading_warnings()) result.warnings.push_back(std::move(w));
    trace::phase("frames scored");
    predict(config, plan, result);
    trace::phase("models predicted");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.fps = seconds > 0 ? result.frames / seconds : 0.0;
    if (!config.no_prediction)
        for (const auto& spec : config.models) result.models.push_back(summarize(spec, result));
    result.printed_names = printed_names_of(result.scores);
    return result;
}

}  // namespace

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
