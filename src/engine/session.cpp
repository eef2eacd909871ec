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

struct Session::Impl {
    SessionConfig config;
    std::vector<Model> models;
    std::vector<FeatureInstance> instances;
    std::optional<ScoringCore> core;  ///< made at the first frame
    VideoFormat format;
    std::vector<unsigned> order;  ///< indices in push order
    std::set<unsigned> seen;
    bool flushed = false;
    ScoreTable table;
    // Workers (threads > 0): the frames in flight, oldest first; each worker writes only its
    // own frame's scores, and the frames are stored into the table in push order after a wait.
    std::optional<tbb::task_arena> arena;
    tbb::task_group group;
    std::deque<std::unique_ptr<CoreFrame>> in_flight;
    bool gpu = false;        ///< use_gpu() called
    bool gpu_twins = false;  ///< its argument: the twins run on the GPU
    std::string backend;     ///< use_gpu()'s GPU backend

    bool on_gpu() const { return core && core->has_gpu(); }

    /// Checks frame `index` of format `f` against the earlier ones; the first frame fixes the
    /// format and creates the core.
    void start(unsigned index, const VideoFormat& f) {
        if (order.empty()) {
            CoreConfig c;
            c.subsample = config.subsample;
            c.backend = gpu && gpu_twins ? backend : kCpuBackend;
            core.emplace(instances, f, c);  // throws for a format it cannot score
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

    /// Extracts frame `frame` with the core's CPU half (on a worker when there are some).
    void extract(std::unique_ptr<CoreFrame> frame) {
        if (!arena) {
            core->score_now(*frame, table);
            return;
        }
        core->pass_history(*frame);
        CoreFrame* f = frame.get();
        const ScoringCore* c = &*core;
        in_flight.push_back(std::move(frame));
        arena->execute([&] { group.run([c, f] { c->extract(*f); }); });
        if (in_flight.size() >= 2 * static_cast<std::size_t>(config.threads)) drain();
    }

    /// Waits for every frame in flight and stores them in push order; rethrows a worker's error
    /// (after dropping every frame, so that the session stays usable).
    void drain() {
        if (!arena || in_flight.empty()) return;
        std::exception_ptr error;
        try {
            arena->execute([&] { group.wait(); });
        } catch (...) {
            error = std::current_exception();
        }
        if (!error)
            for (auto& f : in_flight) core->store(*f, table);
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

void Session::use_gpu(const std::string& backend, bool twins) {
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
    auto frame = std::make_unique<CoreFrame>();
    frame->index = index;
    frame->ref = std::move(ref);
    frame->dist = std::move(dist);
    // Submitted first, so that the device works while the CPU metrics run.
    m.core->submit(*frame);
    if (m.core->has_cpu()) m.extract(std::move(frame));
}

void Session::push_device(unsigned index, const VideoFormat& format, const DevicePicture& ref,
                          const DevicePicture& dist, std::shared_ptr<const void> keep) {
    Impl& m = *impl_;
    if (!m.gpu) throw UsageError("device pictures need the GPU (Session::use_gpu)");
    if (m.flushed) throw UsageError("frames pushed after the flush");
    m.start(index, format);
    m.core->submit_device(index, ref, dist, std::move(keep));
    if (m.core->has_cpu()) {
        auto frame = std::make_unique<CoreFrame>();
        frame->index = index;
        frame->ref = std::make_shared<Picture>(format);
        frame->dist = std::make_shared<Picture>(format);
        download_picture(m.backend, ref, *frame->ref, m.core->cpu_planes());
        download_picture(m.backend, dist, *frame->dist, m.core->cpu_planes());
        m.extract(std::move(frame));
    }
}

void Session::flush() {
    Impl& m = *impl_;
    if (m.flushed) throw UsageError("the session was flushed already");
    m.drain();
    m.flushed = true;
    if (m.core) m.core->finish(m.table);
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
