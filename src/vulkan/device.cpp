// See device.hpp and vulkan.hpp. The loader is opened at run time through volk (Debian's
// libvulkan-volk-dev), so that vmafx starts, and runs on the CPU or CUDA, on machines without a
// Vulkan loader.
#define VOLK_IMPLEMENTATION
#include "vulkan/device.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "base/error.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx::vulkan {

namespace {

constexpr std::size_t kMinStaging = std::size_t{4} << 20;
constexpr std::uint64_t kPending = UINT64_MAX;  // staging of the batch being recorded

std::string result_name(VkResult r) {
    switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    default: return fmt::format("VkResult {}", static_cast<int>(r));
    }
}

/// What device `pd` lacks of what the twins need (empty: nothing), and its compute family.
std::string lacks(VkPhysicalDevice pd, std::uint32_t* family) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    if (props.apiVersion < VK_API_VERSION_1_2) return "Vulkan 1.2";
    VkPhysicalDeviceVulkan11Features f11{};
    f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    VkPhysicalDeviceVulkan12Features f12{};
    f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    f12.pNext = &f11;
    VkPhysicalDeviceFeatures2 f{};
    f.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f.pNext = &f12;
    vkGetPhysicalDeviceFeatures2(pd, &f);
    VkPhysicalDeviceVulkan12Properties p12{};
    p12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
    VkPhysicalDeviceProperties2 p{};
    p.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p.pNext = &p12;
    vkGetPhysicalDeviceProperties2(pd, &p);
    std::string missing;
    const auto need = [&](bool have, const char* what) {
        if (!have) missing += (missing.empty() ? "" : ", ") + std::string(what);
    };
    need(f.features.shaderInt64, "shaderInt64");
    need(f.features.shaderFloat64, "shaderFloat64");
    need(f.features.shaderInt16, "shaderInt16");
    need(f12.shaderInt8, "shaderInt8");
    need(f12.storageBuffer8BitAccess, "storageBuffer8BitAccess");
    need(f11.storageBuffer16BitAccess, "storageBuffer16BitAccess");
    need(f12.bufferDeviceAddress, "bufferDeviceAddress");
    need(f12.timelineSemaphore, "timelineSemaphore");
    // The CPU's arithmetic: round to nearest even, signed zeros, infinities and NaNs kept.
    need(p12.shaderRoundingModeRTEFloat32, "shaderRoundingModeRTEFloat32");
    need(p12.shaderRoundingModeRTEFloat64, "shaderRoundingModeRTEFloat64");
    need(p12.shaderSignedZeroInfNanPreserveFloat32, "shaderSignedZeroInfNanPreserveFloat32");
    need(p12.shaderSignedZeroInfNanPreserveFloat64, "shaderSignedZeroInfNanPreserveFloat64");
    std::uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    *family = UINT32_MAX;
    for (std::uint32_t i = 0; i < n && *family == UINT32_MAX; ++i)
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) *family = i;
    need(*family != UINT32_MAX, "a compute queue");
    return missing.empty() ? "" : "lacks " + missing;
}

struct Instance {
    std::string why;  // empty when the loader and an instance are there
    VkInstance instance = VK_NULL_HANDLE;
    std::vector<VkPhysicalDevice> devices;
};

const Instance& instance() {
    static const Instance inst = [] {
        Instance i;
        if (volkInitialize() != VK_SUCCESS) {
            i.why = "no Vulkan loader (libvulkan.so.1; Debian: libvulkan1, and a driver such as mesa-vulkan-drivers)";
            return i;
        }
        VkApplicationInfo app{};
        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
        app.pApplicationName = "vmafx";
        app.apiVersion = VK_API_VERSION_1_2;
        VkInstanceCreateInfo ici{};
        ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
        ici.pApplicationInfo = &app;
        if (VkResult r = vkCreateInstance(&ici, nullptr, &i.instance); r != VK_SUCCESS) {
            i.why = "no Vulkan instance (vkCreateInstance: " + result_name(r) + "; is a Vulkan driver installed?)";
            i.instance = VK_NULL_HANDLE;
            return i;
        }
        volkLoadInstance(i.instance);  // device calls through the loader: valid for any device
        std::uint32_t n = 0;
        vkEnumeratePhysicalDevices(i.instance, &n, nullptr);
        i.devices.resize(n);
        if (n) vkEnumeratePhysicalDevices(i.instance, &n, i.devices.data());
        i.devices.resize(n);
        if (n == 0) i.why = "no Vulkan device";
        return i;
    }();
    return inst;
}

std::uint32_t memory_type(VkPhysicalDevice pd, std::uint32_t bits, VkMemoryPropertyFlags want,
                          VkMemoryPropertyFlags prefer) {
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(pd, &props);
    std::uint32_t found = UINT32_MAX;
    for (std::uint32_t i = 0; i < props.memoryTypeCount; ++i) {
        const VkMemoryPropertyFlags f = props.memoryTypes[i].propertyFlags;
        if (!(bits & (1u << i)) || (f & want) != want) continue;
        if ((f & prefer) == prefer) return i;
        if (found == UINT32_MAX) found = i;
    }
    return found;
}

}  // namespace

void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw Error(fmt::format("Vulkan: {} failed: {}", what, result_name(r)));
}

std::vector<std::uint32_t> Device::for_device(std::span<const std::uint32_t> spirv, const char* what) const {
    // SPIR-V's binary form: a 5-word header, then instructions whose first word is
    // (word count << 16) | opcode. OpExecutionMode (16): entry point, mode, literals;
    // OpCapability (17): the capability.
    constexpr std::uint32_t kExecutionMode = 16, kCapability = 17, kModeDenormPreserve = 4459,
                            kCapabilityDenormPreserve = 4464;
    if (spirv.size() < 5 || spirv[0] != 0x07230203u) throw Error(fmt::format("Vulkan: {}: not a SPIR-V module", what));
    std::vector<std::uint32_t> out(spirv.begin(), spirv.begin() + 5);
    std::size_t capability_at = 0;  // where OpCapability DenormPreserve went in `out`
    bool any_kept = false;
    for (std::size_t i = 5; i < spirv.size();) {
        const std::uint32_t count = spirv[i] >> 16, opcode = spirv[i] & 0xffffu;
        if (count == 0 || i + count > spirv.size())
            throw Error(fmt::format("Vulkan: {}: a malformed SPIR-V instruction at word {}", what, i));
        bool keep = true;
        if (opcode == kExecutionMode && count == 4 && spirv[i + 2] == kModeDenormPreserve) {
            const std::uint32_t width = spirv[i + 3];
            keep = (width == 32 && denorm_preserve32) || (width == 64 && denorm_preserve64);
            any_kept = any_kept || keep;
        }
        if (opcode == kCapability && count == 2 && spirv[i + 1] == kCapabilityDenormPreserve) capability_at = out.size();
        if (keep) out.insert(out.end(), spirv.begin() + static_cast<std::ptrdiff_t>(i),
                             spirv.begin() + static_cast<std::ptrdiff_t>(i + count));
        i += count;
    }
    if (capability_at && !any_kept) out.erase(out.begin() + static_cast<std::ptrdiff_t>(capability_at),
                                              out.begin() + static_cast<std::ptrdiff_t>(capability_at + 2));
    return out;
}

std::vector<DeviceListing> list_devices() {
    std::vector<DeviceListing> out;
    const Instance& inst = instance();
    for (VkPhysicalDevice pd : inst.devices) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(pd, &props);
        std::uint32_t family = 0;
        out.push_back({props.deviceName, lacks(pd, &family)});
    }
    return out;
}

namespace {
/// request_device()'s index, -1 for none; the index open_device() chose, -1 before.
std::atomic<int> g_requested{-1};
std::atomic<int> g_opened{-1};
}  // namespace

std::string request_device(int index) {
    const int opened = g_opened.load();
    if (opened >= 0 && opened != index)
        return fmt::format("GPU index {} (--gpu): the Vulkan backend already runs on device {} in this process", index,
                           opened);
    g_requested = index;
    return "";
}

const Device* open_device(std::string* why) {
    static std::string reason;
    static const std::unique_ptr<Device> opened = []() -> std::unique_ptr<Device> {
        const Instance& inst = instance();
        if (!inst.why.empty()) {
            reason = inst.why;
            return nullptr;
        }
        // The device: VMAFX_VULKAN_DEVICE's index among the loader's devices, else the first usable
        // GPU, else the first usable device (lavapipe, a CPU device, where it is the only one).
        int chosen = -1;
        std::uint32_t family = 0;
        std::string refused;
        if (const int k = g_requested.load(); k >= 0) {
            if (k >= static_cast<int>(inst.devices.size())) {
                reason = fmt::format("GPU index {} (--gpu) names no Vulkan device (this machine has {}: "
                                     "vmafx --version lists them)",
                                     k, inst.devices.size());
                return nullptr;
            }
            if (const std::string l = lacks(inst.devices[static_cast<std::size_t>(k)], &family); !l.empty()) {
                reason = fmt::format("Vulkan device {} (--gpu) {}", k, l);
                return nullptr;
            }
            chosen = k;
        } else if (const char* env = std::getenv("VMAFX_VULKAN_DEVICE"); env && *env) {
            const std::string text = env;
            const bool digits = text.size() <= 4 && text.find_first_not_of("0123456789") == std::string::npos &&
                                (text.size() == 1 || text[0] != '0');
            const long k = digits ? std::stol(text) : -1;
            if (!digits || k >= static_cast<long>(inst.devices.size())) {
                reason = digits ? fmt::format("VMAFX_VULKAN_DEVICE={} names no device (this machine has {}: "
                                              "vmafx --version lists them)",
                                              text, inst.devices.size())
                                : fmt::format("VMAFX_VULKAN_DEVICE=\"{}\" is not a device index (0, 1, ...: "
                                              "vmafx --version lists them)",
                                              text);
                return nullptr;
            }
            if (const std::string l = lacks(inst.devices[k], &family); !l.empty()) {
                reason = fmt::format("Vulkan device {} (VMAFX_VULKAN_DEVICE) {}", k, l);
                return nullptr;
            }
            chosen = static_cast<int>(k);
        }
        for (int pass = 0; pass < 2 && chosen < 0; ++pass)
            for (std::size_t k = 0; k < inst.devices.size() && chosen < 0; ++k) {
                VkPhysicalDeviceProperties props;
                vkGetPhysicalDeviceProperties(inst.devices[k], &props);
                if (pass == 0 && props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) continue;
                const std::string l = lacks(inst.devices[k], &family);
                if (l.empty())
                    chosen = static_cast<int>(k);
                else if (pass == 1)
                    refused += fmt::format("{}{} {}", refused.empty() ? "" : "; ", props.deviceName, l);
            }
        if (chosen < 0) {
            reason = "no usable Vulkan device: " + refused;
            return nullptr;
        }
        g_opened = chosen;
        auto d = std::make_unique<Device>();
        d->instance = inst.instance;
        d->physical = inst.devices[static_cast<std::size_t>(chosen)];
        d->family = family;
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(d->physical, &props);
        d->name = props.deviceName;
        d->emulated = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
        d->limits = props.limits;
        VkPhysicalDeviceVulkan12Properties p12{};
        p12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
        VkPhysicalDeviceProperties2 p2{};
        p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        p2.pNext = &p12;
        vkGetPhysicalDeviceProperties2(d->physical, &p2);
        d->denorm_preserve32 = p12.shaderDenormPreserveFloat32;
        d->denorm_preserve64 = p12.shaderDenormPreserveFloat64;
        d->driver = fmt::format("Vulkan {}.{}, {} {}", VK_API_VERSION_MAJOR(props.apiVersion),
                                VK_API_VERSION_MINOR(props.apiVersion), p12.driverName, p12.driverInfo);

        VkPhysicalDeviceVulkan11Features f11{};
        f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
        f11.storageBuffer16BitAccess = VK_TRUE;
        VkPhysicalDeviceVulkan12Features f12{};
        f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
        f12.pNext = &f11;
        f12.shaderInt8 = VK_TRUE;
        f12.storageBuffer8BitAccess = VK_TRUE;
        f12.bufferDeviceAddress = VK_TRUE;
        f12.timelineSemaphore = VK_TRUE;
        VkPhysicalDeviceFeatures2 f{};
        f.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
        f.pNext = &f12;
        f.features.shaderInt64 = VK_TRUE;
        f.features.shaderFloat64 = VK_TRUE;
        f.features.shaderInt16 = VK_TRUE;
        const float priority = 1.0f;
        VkDeviceQueueCreateInfo qci{};
        qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
        qci.queueFamilyIndex = family;
        qci.queueCount = 1;
        qci.pQueuePriorities = &priority;
        VkDeviceCreateInfo dci{};
        dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
        dci.pNext = &f;
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &qci;
        if (VkResult r = vkCreateDevice(d->physical, &dci, nullptr, &d->device); r != VK_SUCCESS) {
            reason = fmt::format("vkCreateDevice failed on {}: {}", d->name, result_name(r));
            d->device = VK_NULL_HANDLE;
            return nullptr;
        }
        vkGetDeviceQueue(d->device, family, 0, &d->queue);
        return d;
    }();
    if (!opened && why) *why = reason;
    return opened.get();
}

Device& device() {
    std::string why;
    const Device* d = open_device(&why);
    if (!d) throw Error("Vulkan: " + why);
    return const_cast<Device&>(*d);
}

Device::~Device() {
    // Left to the process's end: the twins and queues that use it may outlive static
    // destruction order; the driver releases everything with the process.
}

Allocation Device::allocate(std::size_t bytes, bool host_visible) {
    Allocation a;
    a.size = std::max<std::size_t>(bytes, 4);
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = a.size;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vkCreateBuffer(device, &info, nullptr, &a.buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, a.buffer, &req);
    std::uint32_t& cached = host_visible ? host_type_ : device_type_;
    if (cached == UINT32_MAX)
        cached = host_visible ? memory_type(physical, req.memoryTypeBits,
                                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                            VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
                              : memory_type(physical, req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (cached == UINT32_MAX || !(req.memoryTypeBits & (1u << cached))) {
        vkDestroyBuffer(device, a.buffer, nullptr);
        throw Error("Vulkan: no memory type for a buffer on " + name);
    }
    VkMemoryAllocateFlagsInfo flags{};
    flags.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.pNext = &flags;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = cached;
    if (VkResult r = vkAllocateMemory(device, &alloc, nullptr, &a.memory); r != VK_SUCCESS) {
        vkDestroyBuffer(device, a.buffer, nullptr);
        check(r, host_visible ? "vkAllocateMemory (staging memory)" : "vkAllocateMemory (device memory)");
    }
    check(vkBindBufferMemory(device, a.buffer, a.memory, 0), "vkBindBufferMemory");
    VkBufferDeviceAddressInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    ai.buffer = a.buffer;
    a.address = vkGetBufferDeviceAddress(device, &ai);
    if (host_visible) {
        check(vkMapMemory(device, a.memory, 0, VK_WHOLE_SIZE, 0, &a.mapped), "vkMapMemory");
    } else {
        std::lock_guard lock(mutex_);
        by_address_[a.address] = a;
    }
    return a;
}

void Device::release(Allocation& a) {
    if (!a.buffer) return;
    if (!a.mapped) {
        std::lock_guard lock(mutex_);
        by_address_.erase(a.address);
    }
    vkDestroyBuffer(device, a.buffer, nullptr);
    vkFreeMemory(device, a.memory, nullptr);
    a = Allocation{};
}

void Device::release_at(std::uint64_t address) {
    Allocation a;
    {
        std::lock_guard lock(mutex_);
        const auto it = by_address_.find(address);
        if (it == by_address_.end()) return;
        a = it->second;
    }
    release(a);
}

std::pair<VkBuffer, VkDeviceSize> Device::locate(std::uint64_t address, std::size_t bytes, const char* what) const {
    std::lock_guard lock(mutex_);
    auto it = by_address_.upper_bound(address);
    if (it != by_address_.begin()) {
        --it;
        const Allocation& a = it->second;
        if (address >= a.address && address - a.address + bytes <= a.size) return {a.buffer, address - a.address};
    }
    throw Error(fmt::format("Vulkan: {}: device address {:#x} (+{} bytes) is in no buffer of the device", what,
                            address, bytes));
}

void Device::submit(const VkSubmitInfo& info, VkFence fence) {
    std::lock_guard lock(mutex_);
    check(vkQueueSubmit(queue, 1, &info, fence), "vkQueueSubmit");
}

void Device::wait_idle() {
    std::lock_guard lock(mutex_);
    vkQueueWaitIdle(queue);
}

// ---- Queue ----

Queue::Queue(Device& d) : d_(d) {
    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = d.family;
    check(vkCreateCommandPool(d.device, &pci, nullptr, &pool_), "vkCreateCommandPool");
    VkSemaphoreTypeCreateInfo type{};
    type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = 0;
    VkSemaphoreCreateInfo sci{};
    sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    sci.pNext = &type;
    if (VkResult r = vkCreateSemaphore(d.device, &sci, nullptr, &timeline_); r != VK_SUCCESS) {
        vkDestroyCommandPool(d.device, pool_, nullptr);
        check(r, "vkCreateSemaphore (timeline)");
    }
}

Queue::~Queue() {
    try {
        const std::uint64_t end = flush();
        host_wait(end);
    } catch (const Error&) {
    }
    d_.wait_idle();  // other queues' submissions may wait on this timeline
    for (Staging& s : staging_) d_.release(s.memory);
    vkDestroySemaphore(d_.device, timeline_, nullptr);
    vkDestroyCommandPool(d_.device, pool_, nullptr);  // frees its command buffers
}

VkCommandBuffer Queue::command() {
    if (!current_) {
        if (spare_.empty()) {
            VkCommandBufferAllocateInfo cba{};
            cba.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
            cba.commandPool = pool_;
            cba.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
            cba.commandBufferCount = 1;
            VkCommandBuffer cmd;
            check(vkAllocateCommandBuffers(d_.device, &cba, &cmd), "vkAllocateCommandBuffers");
            spare_.push_back(cmd);
        }
        current_ = spare_.back();
        spare_.pop_back();
        VkCommandBufferBeginInfo begin{};
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        check(vkBeginCommandBuffer(current_, &begin), "vkBeginCommandBuffer");
    }
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    vkCmdPipelineBarrier(current_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
    return current_;
}

std::uint64_t Queue::completed() const {
    std::uint64_t value = 0;
    check(vkGetSemaphoreCounterValue(d_.device, timeline_, &value), "vkGetSemaphoreCounterValue");
    return value;
}

void Queue::collect(std::uint64_t done) {
    std::erase_if(downloads_, [&](const Download& dl) {
        if (dl.value == 0 || dl.value > done) return false;
        auto* to = static_cast<unsigned char*>(dl.host);
        for (std::size_t r = 0; r < dl.rows; ++r) std::memcpy(to + r * dl.host_pitch, dl.from + r * dl.row_bytes, dl.row_bytes);
        return true;
    });
    std::erase_if(in_flight_, [&](const std::pair<VkCommandBuffer, std::uint64_t>& c) {
        if (c.second > done) return false;
        vkResetCommandBuffer(c.first, 0);
        spare_.push_back(c.first);
        return true;
    });
}

std::pair<Queue::Staging*, std::size_t> Queue::staging(std::size_t bytes) {
    bytes = (bytes + 15) / 16 * 16;
    for (Staging& s : staging_)  // room left in a buffer of this batch
        if (s.busy_until == kPending && s.used + bytes <= s.memory.size) {
            const std::size_t at = s.used;
            s.used += bytes;
            return {&s, at};
        }
    const std::uint64_t done = completed();
    collect(done);
    for (Staging& s : staging_)  // a buffer whose batch is done (and copied out)
        if (s.busy_until != kPending && s.busy_until <= done && bytes <= s.memory.size) {
            s.busy_until = kPending;
            s.used = bytes;
            return {&s, 0};
        }
    std::size_t size = kMinStaging;
    while (size < bytes) size *= 2;
    Staging s;
    s.memory = d_.allocate(size, true);
    s.busy_until = kPending;
    s.used = bytes;
    staging_.push_back(s);
    return {&staging_.back(), 0};
}

void Queue::upload(VkBuffer dst, VkDeviceSize offset, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                   std::size_t row_bytes, std::size_t rows) {
    if (rows == 0 || row_bytes == 0) return;
    std::lock_guard lock(mutex_);
    const auto [s, at] = staging(row_bytes * rows);
    auto* to = static_cast<unsigned char*>(s->memory.mapped) + at;
    const auto* from = static_cast<const unsigned char*>(src);
    for (std::size_t r = 0; r < rows; ++r) std::memcpy(to + r * row_bytes, from + r * src_pitch, row_bytes);
    std::vector<VkBufferCopy> regions;
    if (dst_pitch == row_bytes)
        regions.push_back({at, offset, row_bytes * rows});
    else
        for (std::size_t r = 0; r < rows; ++r) regions.push_back({at + r * row_bytes, offset + r * dst_pitch, row_bytes});
    vkCmdCopyBuffer(command(), s->memory.buffer, dst, static_cast<std::uint32_t>(regions.size()), regions.data());
}

void Queue::download(void* dst, std::size_t dst_pitch, VkBuffer src, VkDeviceSize offset, std::size_t src_pitch,
                     std::size_t row_bytes, std::size_t rows) {
    if (rows == 0 || row_bytes == 0) return;
    std::lock_guard lock(mutex_);
    const auto [s, at] = staging(row_bytes * rows);
    std::vector<VkBufferCopy> regions;
    if (src_pitch == row_bytes)
        regions.push_back({offset, at, row_bytes * rows});
    else
        for (std::size_t r = 0; r < rows; ++r) regions.push_back({offset + r * src_pitch, at + r * row_bytes, row_bytes});
    vkCmdCopyBuffer(command(), src, s->memory.buffer, static_cast<std::uint32_t>(regions.size()), regions.data());
    downloads_.push_back({0, static_cast<const unsigned char*>(s->memory.mapped) + at, dst, dst_pitch, row_bytes, rows});
}

std::uint64_t Queue::flush() {
    std::lock_guard lock(mutex_);
    if (!current_ && waits_.empty()) return submitted_;
    if (!current_) command();  // an empty batch that carries the waits
    // The batch's writes made visible to the host's reads after the wait.
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(current_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
    check(vkEndCommandBuffer(current_), "vkEndCommandBuffer");
    const std::uint64_t value = submitted_ + 1;
    std::vector<VkSemaphore> wait_semaphores;
    std::vector<std::uint64_t> wait_values;
    std::vector<VkPipelineStageFlags> wait_stages;
    for (const auto& [sem, v] : waits_) {
        wait_semaphores.push_back(sem);
        wait_values.push_back(v);
        wait_stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    }
    VkTimelineSemaphoreSubmitInfo ts{};
    ts.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    ts.waitSemaphoreValueCount = static_cast<std::uint32_t>(wait_values.size());
    ts.pWaitSemaphoreValues = wait_values.data();
    ts.signalSemaphoreValueCount = 1;
    ts.pSignalSemaphoreValues = &value;
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.pNext = &ts;
    submit.waitSemaphoreCount = static_cast<std::uint32_t>(wait_semaphores.size());
    submit.pWaitSemaphores = wait_semaphores.data();
    submit.pWaitDstStageMask = wait_stages.data();
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &current_;
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &timeline_;
    d_.submit(submit);
    submitted_ = value;
    in_flight_.push_back({current_, value});
    current_ = VK_NULL_HANDLE;
    waits_.clear();
    for (Staging& s : staging_)
        if (s.busy_until == kPending) s.busy_until = value;
    for (Download& dl : downloads_)
        if (dl.value == 0) dl.value = value;
    return value;
}

void Queue::wait_for(VkSemaphore timeline, std::uint64_t value) {
    if (timeline == timeline_ || value == 0) return;  // the queue's own order holds
    flush();  // the work before the wait need not wait
    std::lock_guard lock(mutex_);
    waits_.push_back({timeline, value});
}

void Queue::host_wait(std::uint64_t value) {
    if (value > 0) {
        VkSemaphoreWaitInfo wi{};
        wi.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
        wi.semaphoreCount = 1;
        wi.pSemaphores = &timeline_;
        wi.pValues = &value;
        // No timeout, as CUDA's event wait has none: a slow device (lavapipe at 16K takes minutes a
        // frame) is not a hung one, and a hung device is the driver's to detect (it reports
        // VK_ERROR_DEVICE_LOST, which check() turns into an error).
        check(vkWaitSemaphores(d_.device, &wi, UINT64_MAX), "vkWaitSemaphores");
    }
    std::lock_guard lock(mutex_);
    collect(completed());
}

}  // namespace vmafx::vulkan
