// The Vulkan backend as its twins see it (src/feature/NAME/NAME_vulkan.cpp): compute kernels of
// embedded SPIR-V dispatched on a GpuQueue, device buffers, fills and copies back to the host.
// The device plumbing behind it (src/vulkan/device.cpp) knows no metric: instance, device
// choice, memory, buffers, pipelines, command buffers, timeline semaphores; gpu/device_api.hpp's
// table for the backend-neutral scheduler (src/vulkan/device_api.cpp).
//
// Memory model. Device memory is addressed as the CUDA backend's is, by a 64-bit address: each
// allocation is a VkBuffer with VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, and the `void*` that
// DeviceApi::alloc_device returns (and DevicePlane::data holds) is its buffer device address
// (VK_KHR_buffer_device_address, core in Vulkan 1.2). Shaders receive addresses in their push
// constants and read them through GL_EXT_buffer_reference; the host never dereferences them.
//
// Queues. A GpuQueue of this backend records commands into a command buffer of its own, which is
// submitted to the device's one compute queue when an event is recorded on it (or the host waits
// for it), signalling the GpuQueue's timeline semaphore; an event is a (timeline, value) pair.
// Every command is preceded by a full memory barrier, so a queue's work runs in order as a CUDA
// stream's does. Copies from host memory are staged at enqueue time (the host memory is read
// before the call returns); copies to host memory land in staging memory and are copied out when
// the host learns the work is done (DeviceApi::host_wait, or the next enqueue that finds it done).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gpu/device_api.hpp"
#include "gpu/twin.hpp"

namespace vmafx::vulkan {

/// The buffer device address of device memory `p` (an address DeviceApi::alloc_device returned,
/// or inside such an allocation), as a shader's buffer_reference reads it.
inline std::uint64_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

/// The Vulkan backend's device API (registered in gpu/twin_registry.cpp).
const DeviceApi& api();

/// A compute pipeline of one SPIR-V module (entry point "main"), whose only interface is a push
/// constant block of `push_bytes` bytes (at most 128, the least every device offers): buffers are
/// passed as device addresses. The pipeline is built once per module and process (the first
/// Kernel of it compiles; the others share it); dispatch() may be called from any thread.
class Kernel {
public:
    /// `spirv`: the module's words (embedded at build time by vmafx_vulkan_shader in
    /// CMakeLists.txt, every float operation NoContraction); `what` names it in errors. Throws
    /// Error when no Vulkan device is usable or the driver refuses the module.
    Kernel(std::span<const std::uint32_t> spirv, std::uint32_t push_bytes, const char* what);
    ~Kernel();
    Kernel(const Kernel&) = delete;
    Kernel& operator=(const Kernel&) = delete;

    /// Records a dispatch of groups_x x groups_y x groups_z workgroups on `queue` with the
    /// push constants `push` (push_bytes bytes). Throws Error for a group count of 0 or above the
    /// device's limits.
    void dispatch(GpuQueue* queue, std::uint32_t groups_x, std::uint32_t groups_y, std::uint32_t groups_z,
                  const void* push) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Records on `queue` the filling of `bytes` bytes (a multiple of 4) of device memory at `device`
/// with the 32-bit word `value` (vkCmdFillBuffer).
void fill(GpuQueue* queue, void* device, std::size_t bytes, std::uint32_t value);

/// Copies `bytes` bytes of host memory `host` to device memory at `device` now (a twin's tables
/// and plans at creation; the copy is done when the call returns). `what` names it in errors.
/// Throws Error on Vulkan errors.
void upload(void* device, const void* host, std::size_t bytes, const char* what);

/// Records on `queue` the copy of `bytes` bytes of device memory at `device` to host memory
/// `host`, which holds them once the host has waited for an event recorded after it.
void copy_to_host(GpuQueue* queue, void* host, const void* device, std::size_t bytes, const char* what);

/// Device memory for `count` elements of T (uninitialized), freed with the object.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : data_(api().alloc_device(count * sizeof(T))), count_(count) {}
    ~DeviceBuffer() { api().free_device(data_); }
    DeviceBuffer(DeviceBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(count_, o.count_);
        return *this;
    }
    /// The device address of element i.
    void* at(std::size_t i) const { return static_cast<unsigned char*>(data_) + i * sizeof(T); }
    std::uint64_t address(std::size_t i = 0) const { return vulkan::address(at(i)); }
    std::size_t size() const { return count_; }

private:
    void* data_ = nullptr;
    std::size_t count_ = 0;
};

/// The Vulkan devices of this machine that can run the twins (every one the loader lists, with
/// why it cannot where it cannot), for `vmafx --version`; empty when there is no Vulkan loader.
struct DeviceListing {
    std::string name;
    std::string why_not;  ///< empty when usable
};
std::vector<DeviceListing> list_devices();

}  // namespace vmafx::vulkan
