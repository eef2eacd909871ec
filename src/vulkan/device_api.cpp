// The Vulkan backend's device API (gpu/device_api.hpp) and the twins' calls of vulkan.hpp:
// device memory is buffers addressed by their device addresses, a GpuQueue is a vulkan::Queue,
// a GpuEvent a point (timeline semaphore, value) of one; pinning is not needed (uploads are
// staged at enqueue time) and does nothing.
#include <map>
#include <mutex>
#include <tuple>

#include <fmt/format.h>

#include "base/error.hpp"
#include "gpu/start_up.hpp"
#include "vulkan/device.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx::vulkan {

namespace {

/// A GpuEvent of this backend: value `value` of `queue`'s timeline (0: before any work).
struct Event {
    Queue* queue = nullptr;
    std::uint64_t value = 0;
};

Event& event_of(GpuEvent* e) { return *reinterpret_cast<Event*>(e); }

/// Vulkan's start-up: the loader, the instance and the device opened, its float arithmetic probed;
/// why none is usable.
std::string start_vulkan() {
    std::string why;
    const Device* d = open_device(&why);
    if (!d) return why;
    try {
        if (const std::string no = probe_float_arithmetic(); !no.empty())
            return fmt::format("the Vulkan device {} {}", d->name, no);
    } catch (const Error& e) {
        return fmt::format("the Vulkan device {} failed the start-up probe: {}", d->name, e.what());
    }
    return "";
}

gpu::StartUp start_up(start_vulkan);

void prepare() { start_up.start(); }
std::string usable() { return start_up.wait(); }

void* alloc_device(std::size_t bytes) {
    if (bytes == 0) return nullptr;
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(device().allocate(bytes, false).address));
}

void free_device(void* p) {
    if (!p) return;
    Device& d = device();
    d.wait_idle();  // work enqueued before may still read or write it
    d.release_at(address(p));
}

void pin_host(void*, std::size_t) {}
void unpin_host(void*) {}

GpuQueue* create_queue() { return reinterpret_cast<GpuQueue*>(new Queue(device())); }
void destroy_queue(GpuQueue* q) { delete &queue_of(q); }
GpuEvent* create_event() { return reinterpret_cast<GpuEvent*>(new Event); }
void destroy_event(GpuEvent* e) { delete &event_of(e); }

void record(GpuEvent* e, GpuQueue* q) {
    Event& ev = event_of(e);
    ev.queue = &queue_of(q);
    ev.value = ev.queue->flush();
}

void queue_wait(GpuQueue* q, GpuEvent* e) {
    const Event& ev = event_of(e);
    if (ev.queue) queue_of(q).wait_for(ev.queue->timeline(), ev.value);
}

void host_wait(GpuEvent* e) {
    const Event& ev = event_of(e);
    if (ev.queue) ev.queue->host_wait(ev.value);
}

void copy_2d_async(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t row_bytes,
                   std::size_t rows, CopyKind kind, GpuQueue* q, const char* what) {
    if (rows == 0 || row_bytes == 0) return;
    Device& d = device();
    Queue& queue = queue_of(q);
    const auto extent = [&](std::size_t pitch) { return (rows - 1) * pitch + row_bytes; };  // bytes a 2D range spans
    switch (kind) {
    case CopyKind::kHostToDevice: {
        const auto [buffer, offset] = d.locate(address(dst), extent(dst_pitch), what);
        queue.upload(buffer, offset, dst_pitch, src, src_pitch, row_bytes, rows);
        break;
    }
    case CopyKind::kDeviceToHost: {
        const auto [buffer, offset] = d.locate(address(src), extent(src_pitch), what);
        queue.download(dst, dst_pitch, buffer, offset, src_pitch, row_bytes, rows);
        break;
    }
    case CopyKind::kDeviceToDevice: {
        const auto [from, from_offset] = d.locate(address(src), extent(src_pitch), what);
        const auto [to, to_offset] = d.locate(address(dst), extent(dst_pitch), what);
        std::vector<VkBufferCopy> regions;
        for (std::size_t r = 0; r < rows; ++r)
            regions.push_back({from_offset + r * src_pitch, to_offset + r * dst_pitch, row_bytes});
        queue.record([&](VkCommandBuffer cmd) {
            vkCmdCopyBuffer(cmd, from, to, static_cast<std::uint32_t>(regions.size()), regions.data());
        });
        break;
    }
    }
}

void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t row_bytes,
             std::size_t rows, CopyKind kind, const char* what) {
    Queue queue(device());
    auto* q = reinterpret_cast<GpuQueue*>(&queue);
    copy_2d_async(dst, dst_pitch, src, src_pitch, row_bytes, rows, kind, q, what);
    queue.host_wait(queue.flush());
}

DeviceInfo device_info() {
    if (const std::string why = usable(); !why.empty()) throw Error("Vulkan: " + why);
    const Device& d = device();
    return {d.name, d.driver, "", d.emulated};
}

std::string select_device(int index) { return request_device(index); }

std::vector<std::string> listed_devices() {
    std::vector<std::string> out;
    for (const DeviceListing& d : list_devices())
        out.push_back(d.why_not.empty() ? d.name : d.name + " (unusable: " + d.why_not + ")");
    return out;
}

}  // namespace

/// Registered in gpu/twin_registry.cpp.
extern const DeviceApi device_api;
const DeviceApi device_api{
    "vulkan",     prepare,       usable,       alloc_device,  free_device, pin_host, unpin_host,
    create_queue, destroy_queue, create_event, destroy_event, record,      queue_wait, host_wait,
    copy_2d_async, copy_2d,      device_info,   listed_devices, select_device,
    nullptr,      nullptr,  // decodes nothing
};

const DeviceApi& api() { return device_api; }

// ---- the twins' calls ----

struct Kernel::Impl {
    Device* d = nullptr;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    std::uint32_t push_bytes = 0;
    std::string what;
};

namespace {

/// A module's compute pipeline and its layout.
struct Pipeline {
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
};

/// The pipeline of embedded module `spirv` with `push_bytes` of push constants on `d`, built on
/// first use and kept for the process, as the device is (Device::~Device): a twin created again
/// (every run, every case of the parity gate) compiles nothing, and destroying one waits for
/// nothing. Pipelines are immutable, so every Kernel of a module shares one. Throws Error naming
/// `what` where the driver refuses the module (nothing is kept then).
Pipeline pipeline_of(Device& d, std::span<const std::uint32_t> spirv, std::uint32_t push_bytes, const char* what) {
    static std::mutex mutex;
    static std::map<std::tuple<const std::uint32_t*, std::size_t, std::uint32_t>, Pipeline> built;
    std::lock_guard lock(mutex);
    const auto key = std::make_tuple(spirv.data(), spirv.size(), push_bytes);
    if (const auto it = built.find(key); it != built.end()) return it->second;
    const VkDevice dev = d.device;
    const std::vector<std::uint32_t> words = d.for_device(spirv, what);
    VkShaderModuleCreateInfo smi{};
    smi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    smi.codeSize = words.size() * sizeof(std::uint32_t);
    smi.pCode = words.data();
    VkShaderModule module = VK_NULL_HANDLE;
    check(vkCreateShaderModule(dev, &smi, nullptr, &module), what);
    Pipeline p;
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo pli{};
    pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pli.pushConstantRangeCount = push_bytes ? 1 : 0;
    pli.pPushConstantRanges = &push;
    VkResult r = vkCreatePipelineLayout(dev, &pli, nullptr, &p.layout);
    if (r == VK_SUCCESS) {
        VkComputePipelineCreateInfo cpi{};
        cpi.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
        cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        cpi.stage.module = module;
        cpi.stage.pName = "main";
        cpi.layout = p.layout;
        r = vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, nullptr, &p.pipeline);
        if (r != VK_SUCCESS) vkDestroyPipelineLayout(dev, p.layout, nullptr);
    }
    vkDestroyShaderModule(dev, module, nullptr);  // the pipeline keeps what it needs
    check(r, what);
    built.emplace(key, p);
    return p;
}

}  // namespace

Kernel::Kernel(std::span<const std::uint32_t> spirv, std::uint32_t push_bytes, const char* what)
    : impl_(std::make_unique<Impl>()) {
    impl_->d = &device();
    impl_->push_bytes = push_bytes;
    impl_->what = what;
    if (push_bytes > 128 || push_bytes % 4 != 0)
        throw Error(fmt::format("Vulkan: {}: {} bytes of push constants (at most 128, a multiple of 4)", what, push_bytes));
    const Pipeline p = pipeline_of(*impl_->d, spirv, push_bytes, what);
    impl_->layout = p.layout;
    impl_->pipeline = p.pipeline;
}

Kernel::~Kernel() = default;

void Kernel::dispatch(GpuQueue* queue, std::uint32_t x, std::uint32_t y, std::uint32_t z, const void* push) const {
    const auto& max = impl_->d->limits.maxComputeWorkGroupCount;
    if (x == 0 || y == 0 || z == 0 || x > max[0] || y > max[1] || z > max[2])
        throw Error(fmt::format("Vulkan: {}: {}x{}x{} workgroups (the device allows {}x{}x{})", impl_->what, x, y, z,
                                max[0], max[1], max[2]));
    queue_of(queue).record([&](VkCommandBuffer cmd) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, impl_->pipeline);
        if (impl_->push_bytes)
            vkCmdPushConstants(cmd, impl_->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, impl_->push_bytes, push);
        vkCmdDispatch(cmd, x, y, z);
    });
}

void fill(GpuQueue* queue, void* dst, std::size_t bytes, std::uint32_t value) {
    if (bytes == 0) return;
    if (bytes % 4 != 0) throw Error("Vulkan: a fill of a size that is not a multiple of 4");
    const auto [buffer, offset] = device().locate(address(dst), bytes, "filling device memory");
    queue_of(queue).record([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, buffer, offset, bytes, value); });
}

void upload(void* device, const void* host, std::size_t bytes, const char* what) {
    api().copy_2d(device, bytes, host, bytes, bytes, 1, CopyKind::kHostToDevice, what);
}

void copy_to_host(GpuQueue* queue, void* host, const void* dev, std::size_t bytes, const char* what) {
    copy_2d_async(host, bytes, dev, bytes, bytes, 1, CopyKind::kDeviceToHost, queue, what);
}

}  // namespace vmafx::vulkan
