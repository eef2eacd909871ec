// The CUDA backend's device API (gpu/device_api.hpp): queues are non-blocking streams, events
// are events without timing, pinning is cudaHostRegister; GpuQueue* and GpuEvent* are the
// cudaStream_t and cudaEvent_t themselves (cuda::stream_of).
#include "gpu/device_api.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "cuda/device.hpp"
#include "gpu/start_up.hpp"

namespace vmafx::cuda {

namespace {

/// CUDA's start-up: why no device is usable, else the primary context created
/// (cudaFree(nullptr) is the documented way to create it).
std::string start_cuda() {
    std::string why = unavailable_reason();
    if (why.empty() && cudaFree(nullptr) != cudaSuccess) why = cudaGetErrorString(cudaGetLastError());
    return why;
}

gpu::StartUp start_up(start_cuda);

void prepare() { start_up.start(); }
std::string usable() { return start_up.wait(); }

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

DeviceInfo device_info() {
    if (const std::string why = usable(); !why.empty()) throw Error(why);
    int device = 0, driver = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
    return {prop.name, fmt::format("CUDA driver {}.{}", driver / 1000, driver % 1000 / 10),
            fmt::format("{}.{}", prop.major, prop.minor)};
}

std::vector<std::string> list_devices() {
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
    copy_2d_async, copy_2d,      device_info,   list_devices,
};

}  // namespace vmafx::cuda
