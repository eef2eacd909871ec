// The Vulkan backend's device plumbing, inside src/vulkan/ only (twins use vulkan.hpp): the one
// device, its memory, the queues' command recording and submission. Knows no metric.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#define VK_NO_PROTOTYPES
#include <volk.h>

#include "gpu/device_api.hpp"

namespace vmafx::vulkan {

/// Throws Error "<what>: VkResult <r>" unless r is VK_SUCCESS.
void check(VkResult r, const char* what);

/// A buffer and its memory. `mapped`: the host address of host-visible memory, else nullptr.
struct Allocation {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    std::uint64_t address = 0;
    void* mapped = nullptr;
};

/// The device the backend runs on, chosen and opened once (device()).
class Device {
public:
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    std::string name, driver;
    bool emulated = false;  ///< VK_PHYSICAL_DEVICE_TYPE_CPU (lavapipe)
    VkPhysicalDeviceLimits limits{};
    /// Whether the device can keep subnormal 32- and 64-bit floats on request
    /// (shaderDenormPreserveFloat32/64); where it cannot, the start-up probe shows it keeps them.
    bool denorm_preserve32 = false, denorm_preserve64 = false;

    /// `spirv` (tools/spirv_strict.py's output) as this device may run it: the DenormPreserve
    /// execution modes of the widths it cannot honour removed (and the capability, where none is
    /// left). Throws Error naming `what` on a malformed module.
    std::vector<std::uint32_t> for_device(std::span<const std::uint32_t> spirv, const char* what) const;

    /// A buffer of `bytes` bytes (at least 4) usable as storage, copy source and destination and
    /// by device address: device-local memory (host_visible false), or host-visible coherent
    /// memory, mapped (true: staging).
    Allocation allocate(std::size_t bytes, bool host_visible);
    void release(Allocation& a);
    /// Releases the device allocation that starts at `address` (nothing when there is none).
    void release_at(std::uint64_t address);
    /// The device buffer holding [address, address + bytes) and the offset of `address` in it.
    /// Throws Error naming `what` when no allocation of this device holds the whole range.
    std::pair<VkBuffer, VkDeviceSize> locate(std::uint64_t address, std::size_t bytes, const char* what) const;

    /// vkQueueSubmit under the device's lock (a VkQueue is externally synchronized); `fence`
    /// signalled at its end where given.
    void submit(const VkSubmitInfo& info, VkFence fence = VK_NULL_HANDLE);
    /// Waits until the device's queue has no work (vkQueueWaitIdle): before an object that
    /// submitted work may still use is destroyed (a buffer, a pipeline, a queue's timeline, which
    /// other queues' submissions may wait on), as cudaFree waits. Never throws.
    void wait_idle();

    ~Device();

private:
    friend const Device* open_device(std::string* why);
    std::uint32_t device_type_ = UINT32_MAX, host_type_ = UINT32_MAX;
    mutable std::mutex mutex_;
    std::map<std::uint64_t, Allocation> by_address_;  // device allocations, by address
};

/// The backend's device, opened on first use; nullptr with *why set when none is usable (no
/// loader, no instance, no device with what the twins need).
const Device* open_device(std::string* why);
/// Runs the start-up probe of the opened device's float arithmetic (float_probe.cpp): "" when
/// every result is the CPU's, else why the device cannot be used ("does not keep subnormal
/// floats (...)"). Throws Error where the device fails to run it.
std::string probe_float_arithmetic();
/// Asks open_device() for the device of index `index` among the loader's devices (before
/// VMAFX_VULKAN_DEVICE and the default choice). Returns empty, or why not: the device is
/// already open and is another.
std::string request_device(int index);
/// The opened device; throws Error with the reason when there is none.
Device& device();

/// A GpuQueue of the Vulkan backend: see vulkan.hpp, "Queues".
class Queue {
public:
    explicit Queue(Device& d);
    ~Queue();

    /// Records commands by calling `fn(command_buffer)` on the command buffer being recorded
    /// (begun on first use), after a full memory barrier that orders them after everything
    /// before them on this queue. Under the queue's lock.
    template <typename Fn>
    void record(Fn&& fn) {
        std::lock_guard lock(mutex_);
        fn(command());
    }
    /// Records a 2D copy from host memory (copied into staging memory now) into `dst` at `offset`:
    /// `rows` rows of `row_bytes`, `src_pitch` apart in the host memory, `dst_pitch` apart in the
    /// buffer.
    void upload(VkBuffer dst, VkDeviceSize offset, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                std::size_t row_bytes, std::size_t rows);
    /// Records a 2D copy from `src` at `offset` into staging memory, copied out to host memory
    /// `dst` once the host learns it is done (host_wait, or a later call that finds it done).
    void download(void* dst, std::size_t dst_pitch, VkBuffer src, VkDeviceSize offset, std::size_t src_pitch,
                  std::size_t row_bytes, std::size_t rows);
    /// Submits the commands recorded so far (if any) and returns the timeline value that marks
    /// their end (the last submitted value when none were recorded).
    std::uint64_t flush();
    /// Makes the next submission wait for `value` of `timeline`.
    void wait_for(VkSemaphore timeline, std::uint64_t value);
    /// Blocks until `value` of this queue's timeline is reached; then copies out the downloads
    /// done by then.
    void host_wait(std::uint64_t value);
    VkSemaphore timeline() const { return timeline_; }

private:
    struct Staging {
        Allocation memory;
        std::size_t used = 0;
        std::uint64_t busy_until = 0;  // the timeline value after which it is free
    };
    struct Download {
        std::uint64_t value;  // 0 until submitted
        const unsigned char* from;
        void* host;
        std::size_t host_pitch, row_bytes, rows;
    };
    /// The command buffer being recorded, after a full barrier (the lock held).
    VkCommandBuffer command();
    /// Copies out the downloads completed by timeline value `done` and recycles what is free.
    void collect(std::uint64_t done);
    std::uint64_t completed() const;
    /// `bytes` of staging memory in the current batch: (staging entry, offset).
    std::pair<Staging*, std::size_t> staging(std::size_t bytes);

    Device& d_;
    std::mutex mutex_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkSemaphore timeline_ = VK_NULL_HANDLE;
    std::uint64_t submitted_ = 0;
    VkCommandBuffer current_ = VK_NULL_HANDLE;
    std::vector<std::pair<VkCommandBuffer, std::uint64_t>> in_flight_;  // buffer, its end value
    std::vector<VkCommandBuffer> spare_;
    std::vector<std::pair<VkSemaphore, std::uint64_t>> waits_;
    std::vector<Staging> staging_;
    std::vector<Download> downloads_;
};

/// The Queue of a GpuQueue of this backend.
inline Queue& queue_of(GpuQueue* q) { return *reinterpret_cast<Queue*>(q); }

}  // namespace vmafx::vulkan
