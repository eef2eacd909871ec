// The device API of a GPU backend: the few calls the backend-neutral GPU scheduler
// (gpu/scheduler.hpp) needs of a device, as a table of functions (as libplacebo's pl_gpu_fns):
// device and pinned memory, 2D copies, queues and events. Each backend implements it in its own
// folder (CUDA: src/cuda/device_api.cpp) and registers it in gpu/twin_registry.cpp. No
// backend's types: queues and events are opaque pointers, device memory is `void*` addresses of
// the backend's. Every call throws Error naming what failed on the backend's error, except the
// release calls, which never throw.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpu/twin.hpp"
#include "picture/surface.hpp"

namespace vmafx {

/// An event of a GPU backend (CUDA: a cudaEvent_t): a point in a queue's work that the host or
/// another queue can wait for. Opaque, as GpuQueue.
struct GpuEvent;

/// A frame's device work recorded once and launched as one unit (CUDA: a cudaGraphExec_t that
/// each frame's capture updates). Opaque, as GpuQueue.
struct GpuGraph;

/// The direction of a copy.
enum class CopyKind { kHostToDevice, kDeviceToDevice, kDeviceToHost };

/// A GPU backend's device API. All sizes in bytes; a 2D copy moves `rows` rows of `row_bytes`
/// bytes from rows `src_pitch` apart to rows `dst_pitch` apart.
/// The device a backend runs on, for the provenance of a run's results.
struct DeviceInfo {
    std::string name;                ///< e.g. "NVIDIA H200"
    std::string driver;              ///< the driver as the backend reports it, e.g. "CUDA driver 13.0"
    std::string compute_capability;  ///< e.g. "9.0" (CUDA); empty where the backend has none
    /// The device is an emulation on the CPU (Vulkan's VK_PHYSICAL_DEVICE_TYPE_CPU: Mesa's
    /// lavapipe), some hundred times slower than a GPU: the twin suites keep their largest
    /// pictures smaller there (tests/test_twins.cpp), a real GPU runs them whole.
    bool emulated = false;
};

struct DeviceApi {
    const char* name;  ///< the backend's name ("cuda"), as gpu_backends() lists it
    /// Starts, on a thread of its own, what the first device call would otherwise wait for
    /// (driver start-up, context creation). Idempotent; never throws.
    void (*prepare)();
    /// Empty when a device is usable; else why not. Waits for prepare()'s work (starting it).
    std::string (*unavailable_reason)();

    void* (*alloc_device)(std::size_t bytes);  ///< device memory (nullptr for 0 bytes)
    void (*free_device)(void* p);
    /// Page-locks host memory [p, p + bytes) so that copies from it are truly asynchronous.
    void (*pin_host)(void* p, std::size_t bytes);
    void (*unpin_host)(void* p);

    GpuQueue* (*create_queue)();
    void (*destroy_queue)(GpuQueue* q);  ///< after waiting for its work
    GpuEvent* (*create_event)();
    void (*destroy_event)(GpuEvent* e);
    /// Records `e` at the current end of `q`'s work.
    void (*record)(GpuEvent* e, GpuQueue* q);
    /// Makes `q`'s later work wait until `e` has happened (the host does not wait).
    void (*queue_wait)(GpuQueue* q, GpuEvent* e);
    /// Blocks the host until `e` has happened.
    void (*host_wait)(GpuEvent* e);

    /// Enqueues a 2D copy on `q` (asynchronous: the host memory of an upload from pageable
    /// memory is read before the call returns; pinned memory later, until the copy is done).
    void (*copy_2d_async)(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                          std::size_t row_bytes, std::size_t rows, CopyKind kind, GpuQueue* q, const char* what);
    /// A 2D copy that has completed when the call returns (and waits for the device's work
    /// that was enqueued on the backend's default queue before it).
    void (*copy_2d)(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t row_bytes,
                    std::size_t rows, CopyKind kind, const char* what);
    /// The device the backend's work runs on (the current device). Throws Error when none is
    /// usable.
    DeviceInfo (*device_info)();
    /// Every device of the backend on this machine, in the backend's order (the index a device
    /// choice names), each as "NAME" or "NAME (unusable: WHY)", for `vmafx --version`; empty when
    /// the backend's driver is missing. Never throws.
    std::vector<std::string> (*list_devices)();
    /// Chooses the device the backend will run on by its index in list_devices()'s order (the
    /// CLI's --gpu N), for the rest of the process; call it before the backend starts (prepare(),
    /// unavailable_reason()). Returns empty, or why not (the backend already started on another
    /// device). An index beyond the devices is reported by unavailable_reason(), naming it.
    std::string (*select_device)(int index);

    /// libav's hardware device type of the backend's GPUs, for decoding on them (NVDEC: "cuda";
    /// io/video_reader.hpp, GpuDecode), or nullptr where the backend decodes nothing.
    const char* decode_device_type = nullptr;
    /// Enqueues on `q` the unpacking of decoder surface `from` (device addresses of this
    /// backend) into device picture `to` of `format` (its planes `planes`, pitch in bytes), as
    /// unpack_surface_host (picture/surface.hpp) unpacks on the host; nullptr where
    /// decode_device_type is. Throws Error on the backend's errors.
    void (*unpack_surface)(const DeviceSurface& from, const VideoFormat& format, const DevicePicture& to,
                           PlaneSet planes, GpuQueue* q) = nullptr;

    /// Recording a frame's work and launching it as one unit (CUDA graphs: stream capture,
    /// cudaGraphExecUpdate, cudaGraphLaunch), which costs the host less than launching each
    /// operation; all four nullptr where the backend records nothing (its twins' work is then
    /// enqueued directly). create_graph() makes an empty holder of an executable graph;
    /// destroy_graph() frees it (never throws).
    GpuGraph* (*create_graph)() = nullptr;
    void (*destroy_graph)(GpuGraph* g) = nullptr;
    /// From now until end_capture(), work enqueued on `q` by this thread is recorded, not run;
    /// `q`'s earlier work (uploads, waits for events) runs as before. Work of other threads is
    /// not affected.
    void (*begin_capture)(GpuQueue* q) = nullptr;
    /// Ends the recording begun on `q`. `launch`: makes the recorded work `g`'s (updating the
    /// executable graph in place where the work has the same shape as the last, else building it
    /// anew) and enqueues it on `q`; throws Error on the backend's errors (the capture is ended
    /// either way). Not `launch`: discards the recording (after a twin threw); never throws.
    void (*end_capture)(GpuGraph* g, GpuQueue* q, bool launch) = nullptr;
};

/// The device API of GPU backend `backend`, or nullptr when it is unknown or not built
/// (gpu/twin_registry.cpp).
const DeviceApi* device_api(const std::string& backend);

}  // namespace vmafx
