// The GPU scheduler: uploads each frame's planes once (those the run's twins declare), runs every
// twin of the run on the device, keeps several frames in flight (one queue and result slot
// each) and the previous reference and distorted pictures the twins declare, and collects
// scores in frame order. Backend-neutral: it drives the backend's device API
// (gpu/device_api.hpp) and is compiled without any backend's headers. Used by the engine's
// scoring core (`--backend cuda`), the parity gate, tests and benchmarks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "feature/metric.hpp"
#include "gpu/device_api.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

/// Empty when GPU backend `backend` is built and a device of it is usable; else why not (an
/// unknown backend, one this vmafx was built without, no device). Waits for gpu_prepare()'s
/// work (starting it if no one did).
std::string gpu_unavailable_reason(const std::string& backend);

/// Starts, on a thread of its own, what the first device call of a run on `backend` would
/// otherwise wait for (CUDA: the driver's device query and the primary context, about 0.1 to
/// 0.3 s). Call it as soon as a run knows it uses the GPU, so that this start-up overlaps
/// loading the models and opening the inputs. Idempotent; no effect for a backend that is not
/// built. Never throws: a failure is what gpu_unavailable_reason() returns.
void gpu_prepare(const std::string& backend);

/// Chooses GPU backend `backend`'s device by its index among the backend's devices (`vmafx
/// --version`'s list; the CLI's --gpu N) before the backend starts (DeviceApi::select_device).
/// Throws Error naming the index when the backend is not built or already runs on another device.
void gpu_select_device(const std::string& backend, int index);

/// Copies the planes `planes` names of a device picture of backend `backend` and of `to`'s
/// format (pitch in bytes, samples as in Plane) into host picture `to` (waits for the copy and,
/// on CUDA, for the work before it on the legacy default stream). Throws Error when the backend
/// is not built or fails.
void download_picture(const std::string& backend, const DevicePicture& from, Picture& to, PlaneSet planes);

/// Scores frames on the GPU with the twins of `features`.
///
/// Frames are submitted in order (index 0, 1, ...). submit() uploads the planes the twins read
/// (asynchronously; host pictures stay referenced until their frame is finished, so the caller
/// must keep each submitted Picture alive and unchanged until drain() or until `slots` more
/// frames were submitted), enqueues every twin, and when all slots are busy first waits for
/// the oldest frame and stores its scores. Device memory is allocated once at construction:
/// `slots` frames in flight plus the previous pictures the twins declare.
class GpuScorer {
public:
    /// The twins of GPU backend `backend`. Throws Error when the backend is unusable
    /// (gpu_unavailable_reason()), a feature has no twin on it, or the format is one a metric
    /// refuses. `subsample` as the CPU engine: twins of metrics without history score every
    /// N-th frame only. `plant`: a defect planted in every twin that declares it (parity-gate
    /// tests only).
    GpuScorer(const std::vector<FeatureInstance>& features, const VideoFormat& format, const std::string& backend,
              unsigned slots = 4, unsigned subsample = 1, PlantedDefect plant = PlantedDefect::kNone);
    ~GpuScorer();
    GpuScorer(const GpuScorer&) = delete;
    GpuScorer& operator=(const GpuScorer&) = delete;

    /// The planes the run's twins read (what submit() uploads).
    PlaneSet planes() const;

    /// Registers the memory of `pic`'s planes that submit() uploads as pinned
    /// (DeviceApi::pin_host; CUDA: cudaHostRegister) so that its uploads are truly asynchronous; optional (unregistered
    /// memory is copied synchronously by the driver). Dropped when the scorer is destroyed.
    /// May run on another thread at the same time as submit() (the engine's read stage pins
    /// ring pictures as it first fills them), but not at the same time as another pin().
    void pin(const Picture& pic);

    /// Submits frame `index` (the next in order) from host pictures of the format.
    void submit(unsigned index, const Picture& ref, const Picture& dist);

    /// Submits frame `index` whose planes (those planes() names) are already in device memory
    /// (pitch in bytes, samples as in Plane). They must be complete when this is called (the
    /// scorer's queues do not wait for the caller's: synchronize the writing queue first),
    /// and the caller keeps them unchanged until the frame is finished.
    void submit_device(unsigned index, const DevicePicture& ref, const DevicePicture& dist);

    /// Waits for every submitted frame and stores its scores (no flush: more frames may follow).
    void wait_all();

    /// Waits for every submitted frame, stores its scores, then runs the twins' flush().
    /// Returns the scores of all frames (same names as the CPU extractors).
    ScoreTable& drain();

    /// Device memory held by the pipeline's picture buffers, in bytes (for the docs and
    /// benchmarks).
    std::size_t device_bytes() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace vmafx
