#include "cuda/gpu_scorer.hpp"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>

#include "cuda/device.hpp"

namespace vmafx {

std::string gpu_unavailable_reason() { return cuda::unavailable_reason(); }

namespace {
std::atomic<PlantedDefect> g_planted{PlantedDefect::kNone};
}

PlantedDefect planted_defect() { return g_planted.load(); }
void set_planted_defect(PlantedDefect d) { g_planted.store(d); }

struct GpuScorer::Impl {
    struct Twin {
        std::unique_ptr<GpuExtractor> twin;
        bool temporal = false;
    };

    VideoFormat format;
    unsigned slots = 0;
    unsigned subsample = 1;
    unsigned history = 0;
    std::size_t row_bytes = 0;
    std::size_t pitch = 0;
    std::vector<Twin> twins;

    // Luma of the reference: a ring of slots + history planes, so that the previous
    // references of a frame in flight are never overwritten; distorted luma: one per slot.
    std::vector<cuda::DeviceBuffer<std::uint8_t>> ref_ring, dist_planes;
    std::vector<std::unique_ptr<cuda::Event>> uploaded;  // per ring plane
    std::vector<std::unique_ptr<cuda::Stream>> streams;  // per slot
    std::vector<std::unique_ptr<cuda::Event>> done;      // per slot
    std::vector<long long> slot_frame;                   // frame in each slot, -1 when free
    std::vector<const void*> pinned;                     // host memory registered by pin()
    long long next = 0;     // next frame index expected
    long long finished = 0; // frames whose scores are stored
    ScoreTable table;
    FrameScores scratch;

    std::size_t ring_size() const { return slots + history; }

    void finish_slot(unsigned s) {
        cuda::check(cudaEventSynchronize(done[s]->get()), "waiting for a frame");
        const auto index = static_cast<unsigned>(slot_frame[s]);
        scratch.clear();
        for (auto& t : twins) {
            if (!t.temporal && subsample > 1 && index % subsample) continue;
            t.twin->finish(s, index, scratch);
        }
        for (const auto& [name, value] : scratch) table.set(name, index, value);
        slot_frame[s] = -1;
        ++finished;
    }

    /// Frees the slot of frame `index` (finishing the frame that was there) and returns it.
    unsigned acquire(long long index) {
        const auto s = static_cast<unsigned>(index % slots);
        if (slot_frame[s] >= 0) finish_slot(s);
        return s;
    }

    void enqueue(unsigned s, long long index, DevicePlane ref, DevicePlane dist) {
        cudaStream_t stream = streams[s]->get();
        GpuFrame f;
        f.index = static_cast<unsigned>(index);
        f.ref = ref;
        f.dist = dist;
        // Previous references: their planes in the ring, once their uploads are done.
        for (unsigned back = 1; back <= history && back <= index; ++back) {
            const std::size_t r = static_cast<std::size_t>(index - back) % ring_size();
            cuda::check(cudaStreamWaitEvent(stream, uploaded[r]->get(), 0), "cudaStreamWaitEvent");
            DevicePlane p{ref_ring[r].get(), static_cast<std::ptrdiff_t>(pitch)};
            (back == 1 ? f.prev_ref : f.prev_prev_ref) = p;
        }
        for (auto& t : twins) {
            if (!t.temporal && subsample > 1 && index % subsample) continue;
            t.twin->enqueue(f, s, stream);
        }
        cuda::check(cudaEventRecord(done[s]->get(), stream), "cudaEventRecord");
        slot_frame[s] = index;
        ++next;
    }
};

GpuScorer::GpuScorer(const std::vector<FeatureInstance>& features, const VideoFormat& format, unsigned slots,
                     unsigned subsample)
    : impl_(std::make_unique<Impl>()) {
    if (const std::string why = gpu_unavailable_reason(); !why.empty())
        throw Error(fmt::format("the CUDA backend cannot run: {}", why));
    Impl& m = *impl_;
    m.format = format;
    m.slots = std::max(1u, slots);
    m.subsample = std::max(1u, subsample);
    for (const auto& f : features) {
        if (!f.info->create_gpu) throw Error(fmt::format("feature \"{}\" has no CUDA twin yet", f.info->name));
        Impl::Twin t;
        t.twin = f.info->create_gpu(f.options, format, m.slots);
        t.temporal = t.twin->previous_refs() > 0;
        m.history = std::max(m.history, t.twin->previous_refs());
        m.twins.push_back(std::move(t));
    }
    m.row_bytes = static_cast<std::size_t>(format.width) * format.bytes_per_sample();
    m.pitch = (m.row_bytes + 255) / 256 * 256;
    const std::size_t plane_bytes = m.pitch * static_cast<std::size_t>(format.height);
    for (std::size_t r = 0; r < m.ring_size(); ++r) {
        m.ref_ring.emplace_back(plane_bytes);
        m.uploaded.push_back(std::make_unique<cuda::Event>());
    }
    for (unsigned s = 0; s < m.slots; ++s) {
        m.dist_planes.emplace_back(plane_bytes);
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

void GpuScorer::pin(const Plane& plane) {
    void* p = const_cast<std::uint8_t*>(plane.data());
    const std::size_t bytes = static_cast<std::size_t>(plane.stride()) * static_cast<std::size_t>(plane.height());
    if (std::find(impl_->pinned.begin(), impl_->pinned.end(), p) != impl_->pinned.end()) return;
    cuda::check(cudaHostRegister(p, bytes, cudaHostRegisterDefault), "cudaHostRegister");
    impl_->pinned.push_back(p);
}

void GpuScorer::submit(unsigned index, const Plane& ref_luma, const Plane& dist_luma) {
    Impl& m = *impl_;
    if (index != m.next) throw Error(fmt::format("internal: frame {} submitted, {} expected", index, m.next));
    const unsigned s = m.acquire(index);
    cudaStream_t stream = m.streams[s]->get();
    const std::size_t r = static_cast<std::size_t>(index) % m.ring_size();
    cuda::check(cudaMemcpy2DAsync(m.ref_ring[r].get(), m.pitch, ref_luma.data(), ref_luma.stride(), m.row_bytes,
                                  static_cast<std::size_t>(m.format.height), cudaMemcpyHostToDevice, stream),
                "uploading the reference luma");
    cuda::check(cudaEventRecord(m.uploaded[r]->get(), stream), "cudaEventRecord");
    cuda::check(cudaMemcpy2DAsync(m.dist_planes[s].get(), m.pitch, dist_luma.data(), dist_luma.stride(), m.row_bytes,
                                  static_cast<std::size_t>(m.format.height), cudaMemcpyHostToDevice, stream),
                "uploading the distorted luma");
    m.enqueue(s, index, {m.ref_ring[r].get(), static_cast<std::ptrdiff_t>(m.pitch)},
              {m.dist_planes[s].get(), static_cast<std::ptrdiff_t>(m.pitch)});
}

void GpuScorer::submit_device(unsigned index, DevicePlane ref_luma, DevicePlane dist_luma) {
    Impl& m = *impl_;
    if (index != m.next) throw Error(fmt::format("internal: frame {} submitted, {} expected", index, m.next));
    const unsigned s = m.acquire(index);
    cudaStream_t stream = m.streams[s]->get();
    // Temporal twins find previous references in the ring: copy the reference there
    // (device to device) only when some twin needs history.
    const std::size_t r = static_cast<std::size_t>(index) % m.ring_size();
    if (m.history) {
        cuda::check(cudaMemcpy2DAsync(m.ref_ring[r].get(), m.pitch, ref_luma.data, ref_luma.pitch, m.row_bytes,
                                      static_cast<std::size_t>(m.format.height), cudaMemcpyDeviceToDevice, stream),
                    "copying the reference luma");
        ref_luma = {m.ref_ring[r].get(), static_cast<std::ptrdiff_t>(m.pitch)};
    }
    cuda::check(cudaEventRecord(m.uploaded[r]->get(), stream), "cudaEventRecord");
    m.enqueue(s, index, ref_luma, dist_luma);
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
    for (auto& t : impl_->twins) t.twin->flush(impl_->table);
    return impl_->table;
}

std::size_t GpuScorer::device_bytes() const {
    std::size_t n = 0;
    for (const auto& b : impl_->ref_ring) n += b.size();
    for (const auto& b : impl_->dist_planes) n += b.size();
    return n;
}

}  // namespace vmafx
