#include "engine/gpu_scorer.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <mutex>
#include <system_error>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "base/trace.hpp"
#include "cuda/device.hpp"

namespace vmafx {

namespace {
std::once_flag prepare_once;
std::shared_future<std::string> prepared;  // gpu_prepare()'s outcome: empty, or why not usable
}  // namespace

void gpu_prepare() {
    std::call_once(prepare_once, [] {
        const auto start = [] {
            std::string why = cuda::unavailable_reason();
            // cudaFree(nullptr) is the documented way to create the primary context.
            if (why.empty() && cudaFree(nullptr) != cudaSuccess) why = cudaGetErrorString(cudaGetLastError());
            return why;
        };
        try {
            prepared = std::async(std::launch::async, start).share();
        } catch (const std::system_error&) {  // no thread to spare: start up on this one
            std::promise<std::string> now;
            now.set_value(start());
            prepared = now.get_future().share();
        }
    });
}

std::string gpu_unavailable_reason() {
    gpu_prepare();
    return prepared.get();
}

void download_picture(const DevicePicture& from, Picture& to, PlaneSet planes) {
    const int count = planes == PlaneSet::kAll ? 3 : 1;
    for (int p = 0; p < count; ++p) {
        Plane& plane = to.planes[p];
        const std::size_t row_bytes = static_cast<std::size_t>(plane.width()) * to.format.bytes_per_sample();
        cuda::check(cudaMemcpy2D(plane.data(), static_cast<std::size_t>(plane.stride()), from.planes[p].data,
                                 static_cast<std::size_t>(from.planes[p].pitch), row_bytes,
                                 static_cast<std::size_t>(plane.height()), cudaMemcpyDeviceToHost),
                    "downloading a device picture");
    }
}

namespace {

/// Device pictures of one video (reference or distorted): a ring of slots + history pictures,
/// so that the previous pictures of a frame in flight are never overwritten, each with the
/// event of its upload.
class PictureRing {
public:
    PictureRing(const VideoFormat& format, int planes, std::size_t size) : format_(format), planes_(planes) {
        for (int p = 0; p < planes; ++p) {
            row_bytes_[p] = static_cast<std::size_t>(format.plane_width(p)) * format.bytes_per_sample();
            pitch_[p] = (row_bytes_[p] + 255) / 256 * 256;
        }
        for (std::size_t r = 0; r < size; ++r) {
            for (int p = 0; p < planes; ++p)
                buffers_.emplace_back(pitch_[p] * static_cast<std::size_t>(format.plane_height(p)));
            uploaded_.push_back(std::make_unique<cuda::Event>());
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

    /// Copies the planes of `from` (host or device memory, `kind`) into entry `r` on `stream`
    /// and records its upload event.
    template <typename PlaneOf>
    void upload(std::size_t r, PlaneOf plane_of, cudaMemcpyKind kind, cudaStream_t stream, const char* what) {
        for (int p = 0; p < planes_; ++p) {
            const auto [data, pitch] = plane_of(p);
            cuda::check(cudaMemcpy2DAsync(buffers_[r * planes_ + p].get(), pitch_[p], data, pitch, row_bytes_[p],
                                          static_cast<std::size_t>(format_.plane_height(p)), kind, stream),
                        what);
        }
        cuda::check(cudaEventRecord(uploaded_[r]->get(), stream), "cudaEventRecord");
    }

    /// Makes `stream` wait for the upload of entry `r` and returns its picture.
    DevicePicture wait_for(std::size_t r, cudaStream_t stream) const {
        cuda::check(cudaStreamWaitEvent(stream, uploaded_[r]->get(), 0), "cudaStreamWaitEvent");
        return picture(r);
    }

    std::size_t bytes() const {
        std::size_t n = 0;
        for (const auto& b : buffers_) n += b.size();
        return n;
    }

private:
    VideoFormat format_;
    int planes_;
    std::size_t row_bytes_[3] = {}, pitch_[3] = {};
    std::vector<cuda::DeviceBuffer<std::uint8_t>> buffers_;  // entry-major, then plane
    std::vector<std::unique_ptr<cuda::Event>> uploaded_;
};

}  // namespace

struct GpuScorer::Impl {
    struct Twin {
        std::unique_ptr<GpuTwin> twin;
        bool temporal = false;  ///< MetricDescriptor::sees_every_frame: runs on every frame
    };

    VideoFormat format;
    unsigned slots = 0;
    unsigned subsample = 1;
    PlaneSet planes = PlaneSet::kLuma;
    History history;
    std::vector<Twin> twins;
    std::unique_ptr<PictureRing> refs, dists;
    std::vector<std::unique_ptr<cuda::Stream>> streams;  // per slot
    std::vector<std::unique_ptr<cuda::Event>> done;      // per slot
    std::vector<long long> slot_frame;                   // frame in each slot, -1 when free
    std::vector<const void*> pinned;                     // host memory registered by pin()
    long long next = 0;      // next frame index expected
    long long finished = 0;  // frames whose scores are stored
    double wait_seconds = 0, finish_seconds = 0;  // waiting for frames, their host finish (trace)
    ScoreTable table;
    FrameScores scratch;

    int plane_count() const { return planes == PlaneSet::kAll ? 3 : 1; }
    bool runs(const Twin& t, long long index) const { return t.temporal || subsample == 1 || index % subsample == 0; }

    void finish_slot(unsigned s) {
        const auto t0 = std::chrono::steady_clock::now();
        cuda::check(cudaEventSynchronize(done[s]->get()), "waiting for a frame");
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
        cudaStream_t stream = streams[s]->get();
        GpuFrame f;
        f.index = static_cast<unsigned>(index);
        f.ref = ref;
        f.dist = dist;
        // Previous pictures: their ring entries, once their uploads are done.
        for (unsigned back = 1; back <= history.refs && back <= index; ++back)
            f.prev_ref[back - 1] = refs->wait_for(refs->entry(index - back), stream);
        for (unsigned back = 1; back <= history.dists && back <= index; ++back)
            f.prev_dist[back - 1] = dists->wait_for(dists->entry(index - back), stream);
        for (auto& t : twins)
            if (runs(t, index)) t.twin->enqueue(f, s, cuda::queue_of(stream));
        cuda::check(cudaEventRecord(done[s]->get(), stream), "cudaEventRecord");
        slot_frame[s] = index;
        ++next;
    }
};

GpuScorer::GpuScorer(const std::vector<FeatureInstance>& features, const VideoFormat& format, unsigned slots,
                     unsigned subsample, PlantedDefect plant)
    : impl_(std::make_unique<Impl>()) {
    if (const std::string why = gpu_unavailable_reason(); !why.empty())
        throw Error(fmt::format("the CUDA backend cannot run: {}", why));
    Impl& m = *impl_;
    m.format = format;
    m.slots = std::max(1u, slots);
    m.subsample = std::max(1u, subsample);
    for (const auto& f : features) {
        const TwinDescriptor* twin = find_twin(f.metric->name, "cuda");
        if (!twin) throw Error(fmt::format("feature \"{}\" has no CUDA twin yet", f.metric->name));
        f.metric->check_format(f.options, format);
        const History h = f.metric->history_for(f.options);
        m.history.refs = std::max(m.history.refs, h.refs);
        m.history.dists = std::max(m.history.dists, h.dists);
        if (f.metric->planes == PlaneSet::kAll) m.planes = PlaneSet::kAll;
        const bool plants = std::find(twin->defects.begin(), twin->defects.end(), plant) != twin->defects.end();
        m.twins.push_back({twin->create(f.options, format, m.slots, plants ? plant : PlantedDefect::kNone),
                           f.metric->sees_every_frame(f.options)});
    }
    m.refs = std::make_unique<PictureRing>(format, m.plane_count(), m.slots + m.history.refs);
    m.dists = std::make_unique<PictureRing>(format, m.plane_count(), m.slots + m.history.dists);
    for (unsigned s = 0; s < m.slots; ++s) {
        m.streams.push_back(std::make_unique<cuda::Stream>());
        m.done.push_back(std::make_unique<cuda::Event>());
    }
    m.slot_frame.assign(m.slots, -1);
}

GpuScorer::~GpuScorer() {
    if (!impl_) return;
    for (auto& s : impl_->streams) cudaStreamSynchronize(s->get());
    for (const void* p : impl_->pinned) cudaHostUnregister(const_cast<void*>(p));
}

PlaneSet GpuScorer::planes() const { return impl_->planes; }

void GpuScorer::pin(const Picture& pic) {
    for (int p = 0; p < impl_->plane_count(); ++p) {
        const Plane& plane = pic.planes[p];
        void* data = const_cast<std::uint8_t*>(plane.data());
        const std::size_t bytes = static_cast<std::size_t>(plane.stride()) * static_cast<std::size_t>(plane.height());
        if (!data || std::find(impl_->pinned.begin(), impl_->pinned.end(), data) != impl_->pinned.end()) continue;
        cuda::check(cudaHostRegister(data, bytes, cudaHostRegisterDefault), "cudaHostRegister");
        impl_->pinned.push_back(data);
    }
}

void GpuScorer::submit(unsigned index, const Picture& ref, const Picture& dist) {
    Impl& m = *impl_;
    const unsigned s = m.acquire(index);
    cudaStream_t stream = m.streams[s]->get();
    const auto host_planes = [](const Picture& pic) {
        return [&pic](int p) { return std::pair<const void*, std::size_t>(pic.planes[p].data(), pic.planes[p].stride()); };
    };
    const std::size_t r = m.refs->entry(index), d = m.dists->entry(index);
    m.refs->upload(r, host_planes(ref), cudaMemcpyHostToDevice, stream, "uploading the reference picture");
    m.dists->upload(d, host_planes(dist), cudaMemcpyHostToDevice, stream, "uploading the distorted picture");
    m.enqueue(s, index, m.refs->picture(r), m.dists->picture(d));
}

void GpuScorer::submit_device(unsigned index, const DevicePicture& ref, const DevicePicture& dist) {
    Impl& m = *impl_;
    const unsigned s = m.acquire(index);
    cudaStream_t stream = m.streams[s]->get();
    const auto device_planes = [](const DevicePicture& pic) {
        return [&pic](int p) {
            return std::pair<const void*, std::size_t>(pic.planes[p].data, static_cast<std::size_t>(pic.planes[p].pitch));
        };
    };
    // Twins with history find previous pictures in the rings: copy a picture there (device to
    // device) only when some twin keeps that video's history.
    DevicePicture ref_used = ref, dist_used = dist;
    const std::size_t r = m.refs->entry(index), d = m.dists->entry(index);
    if (m.history.refs) {
        m.refs->upload(r, device_planes(ref), cudaMemcpyDeviceToDevice, stream, "copying the reference picture");
        ref_used = m.refs->picture(r);
    }
    if (m.history.dists) {
        m.dists->upload(d, device_planes(dist), cudaMemcpyDeviceToDevice, stream, "copying the distorted picture");
        dist_used = m.dists->picture(d);
    }
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
    for (auto& t : impl_->twins) t.twin->flush(impl_->table);
    return impl_->table;
}

std::size_t GpuScorer::device_bytes() const { return impl_->refs->bytes() + impl_->dists->bytes(); }

}  // namespace vmafx
