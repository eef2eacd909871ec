#include "gpu/scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "base/trace.hpp"

namespace vmafx {

namespace {

/// The device API of `backend`; throws Error naming why it cannot run.
const DeviceApi& usable_api(const std::string& backend) {
    if (const std::string why = gpu_unavailable_reason(backend); !why.empty())
        throw Error(fmt::format("the {} backend cannot run: {}", backend, why));
    return *device_api(backend);
}

/// Device memory of `bytes` bytes, freed with the object. Move-only.
class DeviceMemory {
public:
    DeviceMemory(const DeviceApi& api, std::size_t bytes) : api_(&api), data_(api.alloc_device(bytes)), bytes_(bytes) {}
    ~DeviceMemory() { api_->free_device(data_); }
    DeviceMemory(DeviceMemory&& o) noexcept : api_(o.api_), data_(std::exchange(o.data_, nullptr)), bytes_(o.bytes_) {}
    DeviceMemory& operator=(DeviceMemory&&) = delete;
    void* get() const { return data_; }
    std::size_t size() const { return bytes_; }

private:
    const DeviceApi* api_;
    void* data_;
    std::size_t bytes_;
};

/// A handle of the device API made by its `Create` call and given back by its `Destroy` call
/// with the object. Not copyable.
template <typename Handle, Handle* (*DeviceApi::*Create)(), void (*DeviceApi::*Destroy)(Handle*)>
class Owned {
public:
    explicit Owned(const DeviceApi& api) : api_(api), h_((api.*Create)()) {}
    ~Owned() { (api_.*Destroy)(h_); }
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;
    Handle* get() const { return h_; }

private:
    const DeviceApi& api_;
    Handle* h_;
};

/// A queue of the device API, destroyed (after its work) with the object.
using Queue = Owned<GpuQueue, &DeviceApi::create_queue, &DeviceApi::destroy_queue>;
/// An event of the device API, destroyed with the object.
using Event = Owned<GpuEvent, &DeviceApi::create_event, &DeviceApi::destroy_event>;
/// A graph of the device API (a frame's recorded work), destroyed with the object.
using Graph = Owned<GpuGraph, &DeviceApi::create_graph, &DeviceApi::destroy_graph>;

/// Whether the twins' work is recorded into graphs where the backend can (DeviceApi::
/// begin_capture): only where the environment sets VMAFX_GPU_GRAPHS=1, until the recorded path has
/// been checked and timed on a GPU (docs/performance.md, issue 28); the scores are the same
/// either way.
bool graphs_wanted() {
    const char* v = std::getenv("VMAFX_GPU_GRAPHS");
    return v && std::string(v) == "1";
}

/// Device pictures of one video (reference or distorted): a ring of slots + history pictures,
/// so that the previous pictures of a frame in flight are never overwritten, each with the
/// event of its upload.
class PictureRing {
public:
    PictureRing(const DeviceApi& api, const VideoFormat& format, int planes, std::size_t size)
        : api_(api), format_(format), planes_(planes) {
        for (int p = 0; p < planes; ++p) {
            row_bytes_[p] = static_cast<std::size_t>(format.plane_width(p)) * format.bytes_per_sample();
            pitch_[p] = (row_bytes_[p] + 255) / 256 * 256;
        }
        for (std::size_t r = 0; r < size; ++r) {
            for (int p = 0; p < planes; ++p)
                buffers_.emplace_back(api, pitch_[p] * static_cast<std::size_t>(format.plane_height(p)));
            uploaded_.push_back(std::make_unique<Event>(api));
        }
    }

    std::size_t size() const { return uploaded_.size(); }
    std::size_t entry(long long index) const { return static_cast<std::size_t>(index) % size(); }

    /// The device picture of ring entry `r`.
    DevicePicture picture(std::size_t r) const {
        DevicePicture pic;
        for (int p = 0; p < planes_; ++p)
            pic.planes[p] = {buffers_[r * planes_ + p].get(), static_cast<std::ptrdiff_t>(pitch_[p])};
        return pic;
    }

    /// Copies the planes of `from` (host or device memory, `kind`) into entry `r` on `queue`
    /// and records its upload event.
    template <typename PlaneOf>
    void upload(std::size_t r, PlaneOf plane_of, CopyKind kind, GpuQueue* queue, const char* what) {
        for (int p = 0; p < planes_; ++p) {
            const auto [data, pitch] = plane_of(p);
            api_.copy_2d_async(buffers_[r * planes_ + p].get(), pitch_[p], data, pitch, row_bytes_[p],
                               static_cast<std::size_t>(format_.plane_height(p)), kind, queue, what);
        }
        api_.record(uploaded_[r]->get(), queue);
    }

    /// Makes `queue` wait for the upload of entry `r` and returns its picture.
    DevicePicture wait_for(std::size_t r, GpuQueue* queue) const {
        api_.queue_wait(queue, uploaded_[r]->get());
        return picture(r);
    }

    std::size_t bytes() const {
        std::size_t n = 0;
        for (const auto& b : buffers_) n += b.size();
        return n;
    }

private:
    const DeviceApi& api_;
    VideoFormat format_;
    int planes_;
    std::size_t row_bytes_[3] = {}, pitch_[3] = {};
    std::vector<DeviceMemory> buffers_;  // entry-major, then plane
    std::vector<std::unique_ptr<Event>> uploaded_;
};

}  // namespace

std::string gpu_unavailable_reason(const std::string& backend) {
    const GpuBackendInfo* info = find_gpu_backend(backend);
    if (!info) return fmt::format("no GPU backend is named \"{}\"", backend);
    const DeviceApi* api = device_api(backend);
    if (!api) return fmt::format("this vmafx was built without the {} backend", backend_label(backend));
    return api->unavailable_reason();
}

void gpu_prepare(const std::string& backend) {
    if (const DeviceApi* api = device_api(backend)) api->prepare();
}

void gpu_select_device(const std::string& backend, int index) {
    const DeviceApi* api = device_api(backend);
    if (!api) throw Error(fmt::format("GPU index {} (--gpu): this vmafx was built without the {} backend", index,
                                      backend_label(backend)));
    if (const std::string why = api->select_device(index); !why.empty()) throw Error(why);
}

void download_picture(const std::string& backend, const DevicePicture& from, Picture& to, PlaneSet planes) {
    const DeviceApi* api = device_api(backend);
    if (!api) throw Error(fmt::format("this vmafx was built without the {} backend", backend_label(backend)));
    const int count = planes == PlaneSet::kAll ? 3 : 1;
    for (int p = 0; p < count; ++p) {
        Plane& plane = to.planes[p];
        const std::size_t row_bytes = static_cast<std::size_t>(plane.width()) * to.format.bytes_per_sample();
        api->copy_2d(plane.data(), static_cast<std::size_t>(plane.stride()), from.planes[p].data,
                     static_cast<std::size_t>(from.planes[p].pitch), row_bytes, static_cast<std::size_t>(plane.height()),
                     CopyKind::kDeviceToHost, "downloading a device picture");
    }
}

struct GpuScorer::Impl {
    struct Twin {
        std::unique_ptr<GpuTwin> twin;
        bool temporal = false;  ///< MetricDescriptor::sees_every_frame: runs on every frame
        std::string name;       ///< the metric's name (VMAFX_TIMINGS' enqueue times)
        double enqueue_seconds = 0;  ///< host time in its enqueue, summed (VMAFX_TIMINGS only)
    };

    explicit Impl(const DeviceApi& a) : api(a) {}

    const DeviceApi& api;
    VideoFormat format;
    unsigned slots = 0;
    unsigned subsample = 1;
    PlaneSet planes = PlaneSet::kLuma;
    History history;
    std::vector<Twin> twins;
    std::unique_ptr<PictureRing> refs, dists;
    std::vector<std::unique_ptr<Queue>> queues;  // per slot
    std::vector<std::unique_ptr<Event>> done;    // per slot
    std::vector<std::unique_ptr<Graph>> graphs;  // per slot, where the twins' work is recorded (empty: not)
    std::vector<long long> slot_frame;           // frame in each slot, -1 when free
    std::vector<void*> pinned;                   // host memory registered by pin()
    long long next = 0;      // next frame index expected
    long long finished = 0;  // frames whose scores are stored
    double wait_seconds = 0, finish_seconds = 0;  // waiting for frames, their host finish (trace)
    // Host time of the submissions (VMAFX_TIMINGS only): the uploads' copies and the history's
    // waits as they are enqueued, the graphs' capture, update and launch; each twin's in
    // Twin::enqueue_seconds.
    double upload_seconds = 0, history_seconds = 0, graph_seconds = 0;
    ScoreTable table;
    FrameScores scratch;

    int plane_count() const { return planes == PlaneSet::kAll ? 3 : 1; }
    /// The time now under VMAFX_TIMINGS, else a zero time point (no clock read a frame).
    static std::chrono::steady_clock::time_point stamp() {
        return trace::enabled() ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    }
    bool runs(const Twin& t, long long index) const { return t.temporal || subsample == 1 || index % subsample == 0; }

    void finish_slot(unsigned s) {
        const auto t0 = std::chrono::steady_clock::now();
        api.host_wait(done[s]->get());
        const auto t1 = std::chrono::steady_clock::now();
        wait_seconds += std::chrono::duration<double>(t1 - t0).count();
        const auto index = static_cast<unsigned>(slot_frame[s]);
        scratch.clear();
        for (auto& t : twins)
            if (runs(t, index)) t.twin->finish(s, index, scratch);
        for (const auto& [name, value] : scratch) table.set(name, index, value);
        slot_frame[s] = -1;
        ++finished;
        finish_seconds += trace::seconds_since(t1);
    }

    /// Checks that `index` is the next frame, frees its slot (finishing the frame that was
    /// there) and returns it.
    unsigned acquire(long long index) {
        if (index != next) throw Error(fmt::format("internal: frame {} submitted, {} expected", index, next));
        const auto s = static_cast<unsigned>(index % slots);
        if (slot_frame[s] >= 0) finish_slot(s);
        return s;
    }

    void enqueue(unsigned s, long long index, const DevicePicture& ref, const DevicePicture& dist) {
        GpuQueue* queue = queues[s]->get();
        GpuFrame f;
        f.index = static_cast<unsigned>(index);
        f.ref = ref;
        f.dist = dist;
        const bool timed = trace::enabled();
        auto t0 = stamp();
        // Previous pictures: their ring entries, once their uploads are done.
        for (unsigned back = 1; back <= history.refs && back <= index; ++back)
            f.prev_ref[back - 1] = refs->wait_for(refs->entry(index - back), queue);
        for (unsigned back = 1; back <= history.dists && back <= index; ++back)
            f.prev_dist[back - 1] = dists->wait_for(dists->entry(index - back), queue);
        if (timed) history_seconds += trace::seconds_since(t0);
        const auto enqueue_twin = [&](Twin& t) {
            t0 = stamp();
            t.twin->enqueue(f, s, queue);
            if (timed) t.enqueue_seconds += trace::seconds_since(t0);
        };
        // The twins' work, recorded as one graph where the backend can (after the waits above,
        // which stay outside it) and launched as one.
        const bool record = !graphs.empty();
        if (record) {
            t0 = stamp();
            api.begin_capture(queue);
            if (timed) graph_seconds += trace::seconds_since(t0);
        }
        try {
            for (auto& t : twins)
                if (runs(t, index)) enqueue_twin(t);
        } catch (...) {
            if (record) api.end_capture(graphs[s]->get(), queue, false);
            throw;
        }
        if (record) {
            t0 = stamp();
            api.end_capture(graphs[s]->get(), queue, true);
            if (timed) graph_seconds += trace::seconds_since(t0);
        }
        api.record(done[s]->get(), queue);
        slot_frame[s] = index;
        ++next;
    }
};

GpuScorer::GpuScorer(const std::vector<FeatureInstance>& features, const VideoFormat& format,
                     const std::string& backend, unsigned slots, unsigned subsample, PlantedDefect plant)
    : impl_(std::make_unique<Impl>(usable_api(backend))) {
    Impl& m = *impl_;
    m.format = format;
    m.slots = std::max(1u, slots);
    m.subsample = std::max(1u, subsample);
    for (const auto& f : features) {
        const TwinDescriptor* twin = find_twin(f.metric->name, backend);
        if (!twin)
            throw Error(fmt::format("feature \"{}\" has no {} twin yet", f.metric->name, backend_label(backend)));
        f.metric->check(f.options, format);
        const History h = f.metric->history_for(f.options);
        m.history.refs = std::max(m.history.refs, h.refs);
        m.history.dists = std::max(m.history.dists, h.dists);
        if (f.metric->planes_for(f.options) == PlaneSet::kAll) m.planes = PlaneSet::kAll;
        const bool plants = std::find(twin->defects.begin(), twin->defects.end(), plant) != twin->defects.end();
        m.twins.push_back({twin->create(f.options, format, m.slots, plants ? plant : PlantedDefect::kNone),
                           f.metric->sees_every_frame(f.options), f.metric->name});
    }
    m.refs = std::make_unique<PictureRing>(m.api, format, m.plane_count(), m.slots + m.history.refs);
    m.dists = std::make_unique<PictureRing>(m.api, format, m.plane_count(), m.slots + m.history.dists);
    for (unsigned s = 0; s < m.slots; ++s) {
        m.queues.push_back(std::make_unique<Queue>(m.api));
        m.done.push_back(std::make_unique<Event>(m.api));
        if (m.api.create_graph && graphs_wanted()) m.graphs.push_back(std::make_unique<Graph>(m.api));
    }
    m.slot_frame.assign(m.slots, -1);
}

GpuScorer::~GpuScorer() {
    if (!impl_) return;
    impl_->queues.clear();  // each waits for its work, then goes
    for (void* p : impl_->pinned) impl_->api.unpin_host(p);
}

PlaneSet GpuScorer::planes() const { return impl_->planes; }

void GpuScorer::pin(const Picture& pic) {
    for (int p = 0; p < impl_->plane_count(); ++p) {
        const Plane& plane = pic.planes[p];
        void* data = const_cast<std::uint8_t*>(plane.data());
        const std::size_t bytes = static_cast<std::size_t>(plane.stride()) * static_cast<std::size_t>(plane.height());
        if (!data || std::find(impl_->pinned.begin(), impl_->pinned.end(), data) != impl_->pinned.end()) continue;
        impl_->api.pin_host(data, bytes);
        impl_->pinned.push_back(data);
    }
}

void GpuScorer::submit(unsigned index, const Picture& ref, const Picture& dist) {
    Impl& m = *impl_;
    const unsigned s = m.acquire(index);
    GpuQueue* queue = m.queues[s]->get();
    const auto host_planes = [](const Picture& pic) {
        return [&pic](int p) { return std::pair<const void*, std::size_t>(pic.planes[p].data(), pic.planes[p].stride()); };
    };
    const std::size_t r = m.refs->entry(index), d = m.dists->entry(index);
    const auto t0 = Impl::stamp();
    m.refs->upload(r, host_planes(ref), CopyKind::kHostToDevice, queue, "uploading the reference picture");
    m.dists->upload(d, host_planes(dist), CopyKind::kHostToDevice, queue, "uploading the distorted picture");
    if (trace::enabled()) m.upload_seconds += trace::seconds_since(t0);
    m.enqueue(s, index, m.refs->picture(r), m.dists->picture(d));
}

void GpuScorer::submit_device(unsigned index, const DevicePicture& ref, const DevicePicture& dist) {
    Impl& m = *impl_;
    const unsigned s = m.acquire(index);
    GpuQueue* queue = m.queues[s]->get();
    const auto device_planes = [](const DevicePicture& pic) {
        return [&pic](int p) {
            return std::pair<const void*, std::size_t>(pic.planes[p].data, static_cast<std::size_t>(pic.planes[p].pitch));
        };
    };
    // Twins with history find previous pictures in the rings: copy a picture there (device to
    // device) only when some twin keeps that video's history.
    DevicePicture ref_used = ref, dist_used = dist;
    const std::size_t r = m.refs->entry(index), d = m.dists->entry(index);
    const auto t0 = Impl::stamp();
    if (m.history.refs) {
        m.refs->upload(r, device_planes(ref), CopyKind::kDeviceToDevice, queue, "copying the reference picture");
        ref_used = m.refs->picture(r);
    }
    if (m.history.dists) {
        m.dists->upload(d, device_planes(dist), CopyKind::kDeviceToDevice, queue, "copying the distorted picture");
        dist_used = m.dists->picture(d);
    }
    if (trace::enabled()) m.upload_seconds += trace::seconds_since(t0);
    m.enqueue(s, index, ref_used, dist_used);
}

void GpuScorer::wait_all() {
    Impl& m = *impl_;
    for (long long i = m.finished; i < m.next; ++i) {
        const auto s = static_cast<unsigned>(i % m.slots);
        if (m.slot_frame[s] == i) m.finish_slot(s);
    }
}

ScoreTable& GpuScorer::drain() {
    wait_all();
    trace::phase(fmt::format("GPU scorer: {} frames, waited {:.1f} ms for the device, finished frames on the host in "
                             "{:.1f} ms",
                             impl_->finished, 1e3 * impl_->wait_seconds, 1e3 * impl_->finish_seconds));
    if (trace::enabled()) {
        // Where the submitting thread's time goes, per frame submitted (the host's side of the
        // launches: which the submit stage's busy time is made of).
        const double per = impl_->next > 0 ? 1e6 / static_cast<double>(impl_->next) : 0.0;
        std::string twins;
        for (const auto& t : impl_->twins) twins += fmt::format(", {} {:.1f}", t.name, per * t.enqueue_seconds);
        trace::phase(fmt::format("GPU scorer: host time enqueuing a frame (us): uploads {:.1f}, history {:.1f}{}{}",
                                 per * impl_->upload_seconds, per * impl_->history_seconds, twins,
                                 impl_->graphs.empty() ? std::string(", no graphs")
                                                       : fmt::format(", graphs {:.1f}", per * impl_->graph_seconds)));
    }
    for (auto& t : impl_->twins) t.twin->flush(impl_->table);
    return impl_->table;
}

std::size_t GpuScorer::device_bytes() const { return impl_->refs->bytes() + impl_->dists->bytes(); }

}  // namespace vmafx
