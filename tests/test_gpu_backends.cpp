// The backend-neutral GPU interface without a device: the registry's backends and twins by
// backend, the device API's registration, and the refusals of a backend that is not built or
// does not exist (they hold on every build; a backend's own answers are checked where it is built).
#include <gtest/gtest.h>

#include <string>

#include "engine/engine.hpp"
#include "engine/session.hpp"
#include "gpu/device_api.hpp"
#include "gpu/scheduler.hpp"
#include "gpu/twin.hpp"

namespace vmafx {
namespace {

TEST(GpuBackends, TheRegistryNamesCudaAndVulkanAndAnswersByBackend) {
    ASSERT_EQ(gpu_backends().size(), 2u);
    const GpuBackendInfo& cuda = gpu_backends()[0];
    const GpuBackendInfo& vulkan = gpu_backends()[1];
    EXPECT_STREQ(cuda.name, "cuda");
    EXPECT_STREQ(cuda.label, "CUDA");
    EXPECT_STREQ(vulkan.name, "vulkan");
    EXPECT_STREQ(vulkan.label, "Vulkan");
    EXPECT_EQ(find_gpu_backend("cuda"), &cuda);
    EXPECT_EQ(find_gpu_backend("vulkan"), &vulkan);
    EXPECT_EQ(find_gpu_backend(kCpuBackend), nullptr);
    EXPECT_EQ(find_gpu_backend("metal"), nullptr);
    EXPECT_EQ(backend_label("cuda"), "CUDA");
    EXPECT_EQ(backend_label("vulkan"), "Vulkan");
    EXPECT_EQ(backend_label(kCpuBackend), "CPU");
#ifdef VMAFX_HAVE_CUDA
    EXPECT_TRUE(cuda.built);
#else
    EXPECT_FALSE(cuda.built);
#endif
#ifdef VMAFX_HAVE_VULKAN
    EXPECT_TRUE(vulkan.built);
#else
    EXPECT_FALSE(vulkan.built);
#endif
    // A built backend has a device API named as it is, and its twins; one not built has neither.
    std::size_t twins = 0;
    for (const GpuBackendInfo* b : {&cuda, &vulkan}) {
        SCOPED_TRACE(b->name);
        const DeviceApi* api = device_api(b->name);
        EXPECT_EQ(api != nullptr, b->built);
        if (api) EXPECT_STREQ(api->name, b->name);
        EXPECT_EQ(twin_registry(b->name).empty(), !b->built);
        for (const TwinDescriptor* t : twin_registry(b->name)) EXPECT_STREQ(backend_of(*t), b->name);
        twins += twin_registry(b->name).size();
    }
    EXPECT_EQ(twins, twin_registry().size());
    EXPECT_TRUE(twin_registry(kCpuBackend).empty());
    EXPECT_TRUE(twin_registry("metal").empty());
    EXPECT_EQ(device_api("metal"), nullptr);
    if (cuda.built) EXPECT_NE(find_twin("vif", "cuda"), nullptr);
    if (vulkan.built) EXPECT_NE(find_twin("psnr", "vulkan"), nullptr);
    if (cuda.built && vulkan.built) EXPECT_NE(find_twin("psnr", "cuda"), find_twin("psnr", "vulkan"));
    EXPECT_EQ(find_twin("vif", kCpuBackend), nullptr);
    EXPECT_EQ(find_twin("null", "cuda"), nullptr);  // upstream's do-nothing extractor: no twin
    EXPECT_EQ(find_twin("null", "vulkan"), nullptr);
}

TEST(GpuBackends, AnUnknownOrUnbuiltBackendIsRefusedWithItsName) {
    EXPECT_EQ(gpu_unavailable_reason("metal"), "no GPU backend is named \"metal\"");
    gpu_prepare("metal");  // no effect, no throw
    for (const GpuBackendInfo& b : gpu_backends()) {
        if (b.built) continue;
        EXPECT_EQ(gpu_unavailable_reason(b.name), std::string("this vmafx was built without the ") + b.label + " backend");
        Session s(SessionConfig{});
        EXPECT_THROW(s.use_gpu(b.name), Error);
    }
    Session s(SessionConfig{});
    try {
        s.use_gpu("metal");
        ADD_FAILURE() << "a backend that does not exist was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "no GPU backend is named \"metal\"");
    }
    EXPECT_FALSE(s.uses_gpu());
}

}  // namespace
}  // namespace vmafx
