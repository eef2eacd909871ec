// The twin registry: gpu/twins.def's lines of the GPU backends this build has, and the GPU
// backends of the source tree. A backend registers itself here with a VMAFX_TWIN_<name> macro
// (its twins' entries when it is built, nothing when not) and a row of kBackends: the only
// place outside the backend's own folder (src/<name>/) that knows whether it is built.
#include <map>
#include <string>
#include <vector>

#include "gpu/device_api.hpp"
#include "gpu/twin.hpp"

namespace vmafx {

#define VMAFX_TWIN(ns, backend)                \
    namespace ns {                             \
    extern const TwinDescriptor backend##_twin; \
    }
#include "gpu/twins.def"
#undef VMAFX_TWIN

namespace {

}  // namespace

// The CUDA backend (src/cuda/): its twins' entries and its device API.
#ifdef VMAFX_HAVE_CUDA
namespace cuda {
extern const DeviceApi device_api;
}
#define VMAFX_TWIN_cuda(ns) {"cuda", &ns::cuda_twin},
constexpr const DeviceApi* kCudaApi = &cuda::device_api;
constexpr bool kCudaBuilt = true;
#else
#define VMAFX_TWIN_cuda(ns)
constexpr const DeviceApi* kCudaApi = nullptr;
constexpr bool kCudaBuilt = false;
#endif

// The Vulkan backend (src/vulkan/): the same.
#ifdef VMAFX_HAVE_VULKAN
namespace vulkan {
extern const DeviceApi device_api;
}
#define VMAFX_TWIN_vulkan(ns) {"vulkan", &ns::vulkan_twin},
constexpr const DeviceApi* kVulkanApi = &vulkan::device_api;
constexpr bool kVulkanBuilt = true;
#else
#define VMAFX_TWIN_vulkan(ns)
constexpr const DeviceApi* kVulkanApi = nullptr;
constexpr bool kVulkanBuilt = false;
#endif

namespace {

constexpr GpuBackendInfo kBackends[] = {
    {"cuda", "CUDA", kCudaBuilt, "configure with -DVMAFX_CUDA=ON where nvcc is installed"},
    {"vulkan", "Vulkan", kVulkanBuilt,
     "configure with -DVMAFX_VULKAN=ON where libvulkan-dev, libvulkan-volk-dev, glslc and spirv-tools are installed"},
};

struct Entry {
    const char* backend;
    const TwinDescriptor* twin;
};

#define VMAFX_TWIN(ns, backend) VMAFX_TWIN_##backend(ns)
const Entry kEntries[] = {
#include "gpu/twins.def"
    {nullptr, nullptr},  // the end (an array has at least one element)
};
#undef VMAFX_TWIN

/// The twins of every built backend, then per backend.
struct Lists {
    std::vector<const TwinDescriptor*> all;
    std::map<std::string, std::vector<const TwinDescriptor*>, std::less<>> by_backend;
    Lists() {
        for (const Entry& e : kEntries) {
            if (!e.twin) continue;
            all.push_back(e.twin);
            by_backend[e.backend].push_back(e.twin);
        }
    }
};

const Lists& lists() {
    static const Lists l;
    return l;
}

}  // namespace

std::span<const GpuBackendInfo> gpu_backends() { return kBackends; }

const GpuBackendInfo* find_gpu_backend(const std::string& name) {
    for (const GpuBackendInfo& b : kBackends)
        if (name == b.name) return &b;
    return nullptr;
}

std::string backend_label(const std::string& name) {
    if (name == kCpuBackend) return "CPU";
    const GpuBackendInfo* b = find_gpu_backend(name);
    return b ? b->label : name;
}

std::span<const TwinDescriptor* const> twin_registry() { return lists().all; }

std::span<const TwinDescriptor* const> twin_registry(const std::string& backend) {
    const auto& m = lists().by_backend;
    const auto it = m.find(backend);
    if (it == m.end()) return {};
    return it->second;
}

const TwinDescriptor* find_twin(const std::string& metric, const std::string& backend) {
    for (const TwinDescriptor* t : twin_registry(backend))
        if (metric == t->metric) return t;
    return nullptr;
}

const char* backend_of(const TwinDescriptor& twin) {
    for (const Entry& e : kEntries)
        if (e.twin == &twin) return e.backend;
    return nullptr;
}

const DeviceApi* device_api(const std::string& backend) {
    if (backend == "cuda") return kCudaApi;
    if (backend == "vulkan") return kVulkanApi;
    return nullptr;
}

const char* planted_defect_name(PlantedDefect d) {
    switch (d) {
    case PlantedDefect::kNone: return "none";
    case PlantedDefect::kContraction: return "contraction";
    case PlantedDefect::kMirrorShift: return "mirror_shift";
    case PlantedDefect::kRoundingConstant: return "rounding_constant";
    case PlantedDefect::kReductionOrder: return "reduction_order";
    }
    return "?";
}

}  // namespace vmafx
