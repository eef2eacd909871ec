// Shared CUDA plumbing of the GPU twins and the GPU pipeline: error checks, owned device and
// pinned host buffers, streams and events. Include only from .cu files and src/cuda/*.cpp
// (built when the CUDA backend is on).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "gpu/slot_frames.hpp"
#include "gpu/twin.hpp"

namespace vmafx::cuda {

/// The CUDA stream that a GpuQueue of the CUDA backend is: the backend's queues are its
/// streams, passed through the neutral layer as opaque pointers (cuda/device_api.cpp creates
/// them). A twin's enqueue() starts with `const cudaStream_t stream = cuda::stream_of(queue);`.
inline cudaStream_t stream_of(GpuQueue* queue) { return reinterpret_cast<cudaStream_t>(queue); }

/// The GpuQueue of CUDA stream `stream` (stream_of's inverse).
inline GpuQueue* queue_of(cudaStream_t stream) { return reinterpret_cast<GpuQueue*>(stream); }

/// Throws vmafx::Error "CUDA error in <what>: <CUDA's message>" unless `err` is cudaSuccess.
void check(cudaError_t err, const char* what);

/// Checks the last kernel launch (cudaGetLastError); throws like check() naming `kernel`.
void check_launch(const char* kernel);

/// Empty when a CUDA device can be used; otherwise why not ("no CUDA device", the driver's
/// complaint, ...), for the message of `--backend cuda`.
std::string unavailable_reason();

/// gpu/slot_frames.hpp's checks, the twin named "<twin> (CUDA)".
class SlotFrames : public vmafx::SlotFrames {
public:
    SlotFrames(const char* twin, unsigned slots) : vmafx::SlotFrames(std::string(twin) + " (CUDA)", slots) {}
};

/// `count` elements of T in device memory (cudaMalloc), freed on destruction. Move-only.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        if (count) check(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)), "cudaMalloc");
    }
    ~DeviceBuffer() { if (data_) cudaFree(data_); }
    DeviceBuffer(DeviceBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(count_, o.count_);
        return *this;
    }
    T* get() const { return data_; }
    std::size_t size() const { return count_; }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

/// `count` elements of T in pinned (page-locked) host memory (cudaMallocHost), for
/// asynchronous copies. Move-only.
template <typename T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t count) : count_(count) {
        if (count) check(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)), "cudaMallocHost");
    }
    ~PinnedBuffer() { if (data_) cudaFreeHost(data_); }
    PinnedBuffer(PinnedBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(count_, o.count_);
        return *this;
    }
    T* get() const { return data_; }
    T& operator[](std::size_t i) const { return data_[i]; }
    std::size_t size() const { return count_; }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

/// A non-blocking CUDA stream, destroyed with the object.
class Stream {
public:
    Stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
    ~Stream() { if (s_) cudaStreamDestroy(s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

/// A CUDA event without timing, destroyed with the object.
class Event {
public:
    Event() { check(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming), "cudaEventCreate"); }
    ~Event() { if (e_) cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_ = nullptr;
};

/// Blocks per grid for `n` items at `threads` per block.
inline unsigned blocks_for(std::size_t n, unsigned threads) {
    return static_cast<unsigned>((n + threads - 1) / threads);
}

}  // namespace vmafx::cuda
