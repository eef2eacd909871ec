// The CUDA backend's device API (gpu/device_api.hpp): queues are non-blocking streams, events
// are events without timing, pinning is cudaHostRegister; GpuQueue* and GpuEvent* are the
// cudaStream_t and cudaEvent_t themselves (cuda::stream_of).
#include "gpu/device_api.hpp"

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "base/trace.hpp"
#include "cuda/device.hpp"
#include "cuda/surface_unpack.hpp"
#include "gpu/start_up.hpp"

namespace vmafx::cuda {

namespace {

/// CUDA's start-up: why no device is usable, else the primary context created
/// (cudaFree(nullptr) is the documented way to create it).
std::string start_cuda() {
    std::string why = unavailable_reason();
    if (why.empty() && cudaFree(nullptr) != cudaSuccess) why = cudaGetErrorString(cudaGetLastError());
    trace::phase("CUDA start-up done (on its own thread)");
    return why;
}

gpu::StartUp start_up(start_cuda);
/// Whether the start-up was asked for (the CUDA runtime may then be initialized: a device
/// choice is too late), and select_device()'s index (-1: none).
std::atomic<bool> g_started{false};
std::atomic<int> g_selected{-1};
/// Whether list_devices() ran: the runtime then sees every device CUDA_VISIBLE_DEVICES allowed,
/// and only index 0 (its default device) can still be chosen.
std::atomic<bool> g_listed{false};

void prepare() {
    g_started = true;
    start_up.start();
}

std::string usable() {
    g_started = true;
    const std::string why = start_up.wait();
    if (why.empty() || g_selected < 0) return why;
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    return fmt::format("GPU index {} (--gpu) names no usable CUDA device (CUDA_VISIBLE_DEVICES={}; vmafx --version "
                       "lists the devices): {}",
                       g_selected.load(), visible ? visible : "", why);
}

/// The device of index `index` among those CUDA lists, made the only one the runtime sees
/// (CUDA_VISIBLE_DEVICES, read when the runtime initializes; an existing list is indexed), so
/// that every thread's current device is it without a cudaSetDevice per thread.
std::string select_device(int index) {
    if (g_selected == index) return "";
    if (g_started)
        return fmt::format("GPU index {} (--gpu): the CUDA backend has already started in this process", index);
    if (g_listed && index != 0)
        return fmt::format("GPU index {} (--gpu): the CUDA runtime has already started in this process (its devices "
                           "were listed) and can no longer be narrowed to one device",
                           index);
    std::string chosen = std::to_string(index);
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible && *visible) {
        std::vector<std::string> entries(1);
        for (const char* c = visible; *c; ++c) {
            if (*c == ',')
                entries.emplace_back();
            else
                entries.back() += *c;
        }
        if (index >= static_cast<int>(entries.size()))
            return fmt::format("GPU index {} (--gpu) names no CUDA device: CUDA_VISIBLE_DEVICES={} makes {} visible",
                               index, visible, entries.size());
        chosen = entries[static_cast<std::size_t>(index)];
    }
    setenv("CUDA_VISIBLE_DEVICES", chosen.c_str(), 1);
    g_selected = index;
    return "";
}

cudaEvent_t event_of(GpuEvent* e) { return reinterpret_cast<cudaEvent_t>(e); }

cudaMemcpyKind kind_of(CopyKind k) {
    switch (k) {
    case CopyKind::kHostToDevice: return cudaMemcpyHostToDevice;
    case CopyKind::kDeviceToDevice: return cudaMemcpyDeviceToDevice;
    case CopyKind::kDeviceToHost: return cudaMemcpyDeviceToHost;
    }
    return cudaMemcpyDefault;
}

void* alloc_device(std::size_t bytes) {
    void* p = nullptr;
    if (bytes) check(cudaMalloc(&p, bytes), "cudaMalloc");
    return p;
}

void free_device(void* p) {
    if (p) cudaFree(p);
}

void pin_host(void* p, std::size_t bytes) { check(cudaHostRegister(p, bytes, cudaHostRegisterDefault), "cudaHostRegister"); }
void unpin_host(void* p) { cudaHostUnregister(p); }

GpuQueue* create_queue() {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    return queue_of(s);
}

void destroy_queue(GpuQueue* q) {
    if (!q) return;
    cudaStreamSynchronize(stream_of(q));
    cudaStreamDestroy(stream_of(q));
}

GpuEvent* create_event() {
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    return reinterpret_cast<GpuEvent*>(e);
}

void destroy_event(GpuEvent* e) {
    if (e) cudaEventDestroy(event_of(e));
}

void record(GpuEvent* e, GpuQueue* q) { check(cudaEventRecord(event_of(e), stream_of(q)), "cudaEventRecord"); }
void queue_wait(GpuQueue* q, GpuEvent* e) { check(cudaStreamWaitEvent(stream_of(q), event_of(e), 0), "cudaStreamWaitEvent"); }
void host_wait(GpuEvent* e) { check(cudaEventSynchronize(event_of(e)), "waiting for a frame"); }

void copy_2d_async(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t row_bytes,
                   std::size_t rows, CopyKind kind, GpuQueue* q, const char* what) {
    check(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows, kind_of(kind), stream_of(q)), what);
}

void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t row_bytes,
             std::size_t rows, CopyKind kind, const char* what) {
    check(cudaMemcpy2D(dst, dst_pitch, src, src_pitch, row_bytes, rows, kind_of(kind)), what);
}

/// An executable graph of a slot's recorded work (nullptr until the first frame's).
struct Graph {
    cudaGraphExec_t exec = nullptr;
};

Graph* graph_of(GpuGraph* g) { return reinterpret_cast<Graph*>(g); }

GpuGraph* create_graph() { return reinterpret_cast<GpuGraph*>(new Graph); }

void destroy_graph(GpuGraph* g) {
    if (!g) return;
    if (graph_of(g)->exec) cudaGraphExecDestroy(graph_of(g)->exec);
    delete graph_of(g);
}

// Thread-local capture: the engine's other threads (the read stage pins pictures with
// cudaHostRegister) are not bound by this thread's capture.
void begin_capture(GpuQueue* q) {
    check(cudaStreamBeginCapture(stream_of(q), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
}

void end_capture(GpuGraph* g, GpuQueue* q, bool launch) {
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_of(q), &graph);
    struct Recorded {  // the recorded graph goes once the executable one has what it needs
        cudaGraph_t g;
        ~Recorded() {
            if (g) cudaGraphDestroy(g);
        }
    } recorded{graph};
    if (!launch) {
        cudaGetLastError();  // a capture a failed launch invalidated leaves its error behind
        return;
    }
    check(ended, "recording a frame's work (cudaStreamEndCapture)");
    Graph& exec = *graph_of(g);
    if (exec.exec) {
        // Same nodes and kinds as the last frame's (the usual case: only the pictures'
        // addresses and the slot's buffers differ): the parameters are updated in place.
        cudaGraphExecUpdateResultInfo info{};
        if (cudaGraphExecUpdate(exec.exec, graph, &info) != cudaSuccess) {
            cudaGetLastError();
            cudaGraphExecDestroy(exec.exec);
            exec.exec = nullptr;
        }
    }
    if (!exec.exec) check(cudaGraphInstantiate(&exec.exec, graph, 0), "cudaGraphInstantiate");
    check(cudaGraphLaunch(exec.exec, stream_of(q)), "cudaGraphLaunch");
}

DeviceInfo device_info() {
    if (const std::string why = usable(); !why.empty()) throw Error(why);
    int device = 0, driver = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
    return {prop.name, fmt::format("CUDA driver {}.{}", driver / 1000, driver % 1000 / 10),
            fmt::format("{}.{}", prop.major, prop.minor), false};
}

std::vector<std::string> list_devices() {
    g_listed = true;
    std::vector<std::string> out;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return out;
    }
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, d) == cudaSuccess)
            out.push_back(fmt::format("{} (compute capability {}.{})", prop.name, prop.major, prop.minor));
    }
    return out;
}

}  // namespace

/// The CUDA backend's device API, registered in gpu/twin_registry.cpp.
extern const DeviceApi device_api;
const DeviceApi device_api{
    "cuda",      prepare,       usable,      alloc_device, free_device, pin_host, unpin_host,
    create_queue, destroy_queue, create_event, destroy_event, record,     queue_wait, host_wait,
    copy_2d_async, copy_2d,      device_info,   list_devices, select_device,
    "cuda",       unpack_surface,
    create_graph, destroy_graph, begin_capture, end_capture,
};

}  // namespace vmafx::cuda
