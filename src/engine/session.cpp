#include "engine/session.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "engine/core.hpp"
#include "engine/extraction.hpp"

namespace vmafx {

namespace {

/// One pushed frame pair waiting for (or done with) its extraction.
struct Slot {
    FrameInput input;
    std::shared_ptr<Picture> ref, dist;
    std::array<std::shared_ptr<Picture>, kMaxHistory> prev_ref, prev_dist;
    FrameScores scores;
};

}  // namespace

struct Session::Impl {
    SessionConfig config;
    std::vector<Model> models;
    std::vector<FeatureInstance> instances;
    std::optional<FrameExtractors> extractors;
    std::optional<PictureHistory> ref_history, dist_history;
    VideoFormat format;
    std::vector<unsigned> order;  ///< indices in push order
    std::set<unsigned> seen;
    bool flushed = false;
    ScoreTable table;
    // Workers (threads > 0): the frames in flight, oldest first; each worker writes only its
    // own slot, and the slots are stored into the table in push order after a wait.
    std::optional<tbb::task_arena> arena;
    tbb::task_group group;
    std::deque<std::unique_ptr<Slot>> in_flight;
    // GPU (use_gpu()): the core's GPU half (the twins' scorer and the pictures it may still read).
    bool gpu = false;        ///< use_gpu() called
    bool gpu_twins = false;  ///< its argument: the twins run on the GPU
    std::string backend;     ///< use_gpu()'s GPU backend
    std::unique_ptr<GpuHalf> scorer;
    bool cpu_metrics = true;                ///< whether frames go to the CPU extractors
    PlaneSet cpu_planes = PlaneSet::kLuma;  ///< the planes they read

    bool on_gpu() const { return scorer != nullptr; }

    /// Checks frame `index` of format `f` against the earlier ones; the first frame fixes the
    /// format and creates the extractors (and the GPU scorer).
    void start(unsigned index, const VideoFormat& f) {
        if (order.empty()) {
            std::vector<FeatureInstance> cpu = instances;
            if (gpu && gpu_twins) {
                BackendSplit split = split_by_twin(instances, backend);
                cpu = std::move(split.cpu);
                if (!split.gpu.empty())
                    scorer = std::make_unique<GpuHalf>(split.gpu, f, backend, config.subsample);  // throws
            }
            extractors.emplace(cpu, f, config.subsample);  // throws for a format it cannot score
            const Needs needs = needs_of(cpu);
            ref_history.emplace(needs.history.refs);
            dist_history.emplace(needs.history.dists);
            cpu_metrics = !gpu || !cpu.empty();
            cpu_planes = needs.planes;
            format = f;
        } else if (!(f == format)) {
            throw UsageError(fmt::format("frame {}: {}x{} {}-bit {} pictures after {}x{} {}-bit {} ones", index,
                                         f.width, f.height, f.bit_depth, subsampling_name(f.subsampling),
                                         format.width, format.height, format.bit_depth,
                                         subsampling_name(format.subsampling)));
        }
        if (on_gpu() && index != order.size())
            throw UsageError(fmt::format("frame {} read after {} frames: with the GPU, frames must be read in order "
                                         "(0, 1, 2, ...)",
                                         index, order.size()));
        if (!seen.insert(index).second) throw UsageError(fmt::format("frame {} was given twice", index));
        order.push_back(index);
    }

    /// Extracts frame `index` with the CPU extractors (on a worker when there are some).
    void extract(unsigned index, std::shared_ptr<Picture> ref, std::shared_ptr<Picture> dist) {
        auto slot = std::make_unique<Slot>();
        slot->input.index = index;
        slot->ref = std::move(ref);
        slot->dist = std::move(dist);
        // Without workers a frame the extractors refuse is not remembered as the previous
        // picture of the next one (upstream's n_threads=0 path returns before it keeps the
        // picture: frames read 2, 1, 0 are refused, refused, scored).
        const PictureHistory ref_before = *ref_history, dist_before = *dist_history;
        ref_history->pass(slot->prev_ref, slot->ref);
        dist_history->pass(slot->prev_dist, slot->dist);
        if (!arena) {
            try {
                run(*extractors, *slot);
            } catch (...) {
                *ref_history = ref_before;
                *dist_history = dist_before;
                throw;
            }
            store(*slot);
            return;
        }
        Slot* s = slot.get();
        const FrameExtractors* ex = &*extractors;
        in_flight.push_back(std::move(slot));
        arena->execute([&] { group.run([ex, s] { run(*ex, *s); }); });
        if (in_flight.size() >= 2 * static_cast<std::size_t>(config.threads)) drain();
    }

    static void run(const FrameExtractors& ex, Slot& s) {
        s.input.ref = s.ref.get();
        s.input.dist = s.dist.get();
        for (unsigned k = 0; k < kMaxHistory; ++k) {
            s.input.prev_ref[k] = s.prev_ref[k].get();
            s.input.prev_dist[k] = s.prev_dist[k].get();
        }
        ex.extract(s.input, s.scores);
    }

    void store(Slot& s) {
        for (const auto& [name, value] : s.scores) table.set(name, s.input.index, value);
    }

    /// Waits for every frame in flight and stores them in push order; rethrows a worker's error
    /// (after dropping every slot, so that the session stays usable).
    void drain() {
        if (!arena || in_flight.empty()) return;
        std::exception_ptr error;
        try {
            arena->execute([&] { group.wait(); });
        } catch (...) {
            error = std::current_exception();
        }
        if (!error)
            for (auto& s : in_flight) store(*s);
        in_flight.clear();
        if (error) std::rethrow_exception(error);
    }
};

Session::Session(const SessionConfig& config) : impl_(std::make_unique<Impl>()) {
    if (config.threads > kMaxThreads)
        throw UsageError(fmt::format("{} threads asked for: at most {}", config.threads, kMaxThreads));
    impl_->config = config;
    impl_->config.subsample = std::max(1u, config.subsample);
    // No slot reserved for the caller: the workers extract while the caller is away reading the
    // next frames (it joins only to wait). At most the hardware threads but one (the caller's):
    // oneTBB has no more workers than that unless a global_control raises the limit, which a
    // library must not do to its host program (and it warns on stderr when asked for more).
    if (config.threads) {
        const int hw = tbb::info::default_concurrency();
        if (hw <= 1)
            impl_->arena.emplace(1, 1);
        else
            impl_->arena.emplace(std::min(static_cast<int>(config.threads), hw - 1), 0);
    }
}

Session::~Session() {
    try {
        impl_->drain();
    } catch (...) {
        // A worker's error after the caller stopped asking: nothing to report it to.
    }
}

void Session::add_model(const Model& model) {
    if (!impl_->order.empty()) throw UsageError("models must be added before the first frame");
    std::vector<FeatureInstance> instances = impl_->instances;
    for (const auto& req : model.required_features()) add_instance(instances, *req.metric, req.options);
    impl_->instances = std::move(instances);
    impl_->models.push_back(model);
}

void Session::add_feature(const MetricDescriptor& metric, const OptionValues& options) {
    if (!impl_->order.empty()) throw UsageError("features must be added before the first frame");
    add_instance(impl_->instances, metric, options);
}

void Session::use_gpu(bool twins, const std::string& backend) {
    if (!impl_->order.empty()) throw UsageError("the GPU must be chosen before the first frame");
    if (!device_api(backend))
        throw Error(find_gpu_backend(backend)
                        ? fmt::format("this vmafx was built without the {} backend", backend_label(backend))
                        : fmt::format("no GPU backend is named \"{}\"", backend));
    impl_->gpu = true;
    impl_->gpu_twins = twins;
    impl_->backend = backend;
}

bool Session::uses_gpu() const { return impl_->gpu; }

void Session::push(unsigned index, std::shared_ptr<Picture> ref, std::shared_ptr<Picture> dist) {
    Impl& m = *impl_;
    if (m.flushed) throw UsageError("frames pushed after the flush");
    if (!ref || !dist) throw UsageError("a frame needs both a reference and a distorted picture");
    if (!(ref->format == dist->format))
        throw UsageError(fmt::format("frame {}: reference is {}x{} {}-bit {} but distorted is {}x{} {}-bit {}", index,
                                     ref->format.width, ref->format.height, ref->format.bit_depth,
                                     subsampling_name(ref->format.subsampling), dist->format.width,
                                     dist->format.height, dist->format.bit_depth,
                                     subsampling_name(dist->format.subsampling)));
    m.start(index, ref->format);
    if (m.scorer) {
        // Submitted first, so that the device works while the CPU metrics run.
        m.scorer->submit(index, *ref, *dist, ref, dist);
    }
    if (m.cpu_metrics) m.extract(index, std::move(ref), std::move(dist));
}

void Session::push_device(unsigned index, const VideoFormat& format, const DevicePicture& ref,
                          const DevicePicture& dist, std::shared_ptr<const void> keep) {
    Impl& m = *impl_;
    if (!m.gpu) throw UsageError("device pictures need the GPU (Session::use_gpu)");
    if (m.flushed) throw UsageError("frames pushed after the flush");
    m.start(index, format);
    if (m.scorer) {
        m.scorer->submit_device(index, ref, dist, std::move(keep));
    }
    if (m.cpu_metrics) {
        auto r = std::make_shared<Picture>(format), d = std::make_shared<Picture>(format);
        download_picture(m.backend, ref, *r, m.cpu_planes);
        download_picture(m.backend, dist, *d, m.cpu_planes);
        m.extract(index, std::move(r), std::move(d));
    }
}

void Session::flush() {
    Impl& m = *impl_;
    if (m.flushed) throw UsageError("the session was flushed already");
    m.drain();
    m.flushed = true;
    m.ref_history.reset();
    m.dist_history.reset();
    if (m.extractors) m.extractors->flush(m.table);
    if (m.scorer) m.scorer->drain_into(m.table);
    order_as_upstream(m.table, m.instances, static_cast<unsigned>(m.seen.size()), m.config.subsample);
    if (!m.config.predict_at_flush) return;
    std::vector<const Model*> models;
    for (const auto& model : m.models) models.push_back(&model);
    // Frames pushed with gaps between their indices may lack a temporal feature (motion2 of
    // the frame before a gap): as upstream, which predicts when a score is asked for, such a
    // frame is left without a model score (asking for it is then an error), and the flush
    // itself succeeds.
    std::vector<unsigned> indices;
    for (const unsigned i : m.seen) {
        if (i % m.config.subsample != 0) continue;
        bool complete = true;
        for (const Model* model : models) complete = complete && model->has_inputs(m.table, i);
        if (complete) indices.push_back(i);
    }
    predict_frames(models, m.table, indices, m.config.threads);
}

bool Session::flushed() const { return impl_->flushed; }
PlaneSet Session::planes() const { return needs_of(impl_->instances).planes; }
unsigned Session::frames_pushed() const { return static_cast<unsigned>(impl_->order.size()); }
const VideoFormat& Session::format() const { return impl_->format; }
ScoreTable& Session::scores() { return impl_->table; }
const ScoreTable& Session::scores() const { return impl_->table; }

RunResult Session::result(double fps) const {
    RunResult r;
    r.scores = impl_->table;
    r.frames = impl_->seen.empty() ? 0 : *impl_->seen.rbegin() + 1;
    r.subsample = impl_->config.subsample;
    r.format = impl_->format;
    r.fps = fps;
    r.printed_names = printed_names_of(r.scores);
    return r;
}

}  // namespace vmafx
