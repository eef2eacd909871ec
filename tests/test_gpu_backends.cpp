// The backend-neutral GPU interface without a device: the registry's backends and twins by
// backend, the device API's registration, and the refusals of a backend that is not built or
// does not exist (they hold on every build; a backend's own answers are checked where it is built).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/engine.hpp"
#include "engine/session.hpp"
#include "gpu/device_api.hpp"
#include "gpu/scheduler.hpp"
#include "gpu/twin.hpp"

#ifdef VMAFX_HAVE_VULKAN
#include <cstdint>
#include <vector>

#include "base/error.hpp"
#include "vulkan/device.hpp"
#endif

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
        if (api) { EXPECT_STREQ(api->name, b->name); }
        EXPECT_EQ(twin_registry(b->name).empty(), !b->built);
        for (const TwinDescriptor* t : twin_registry(b->name)) EXPECT_STREQ(backend_of(*t), b->name);
        twins += twin_registry(b->name).size();
    }
    EXPECT_EQ(twins, twin_registry().size());
    EXPECT_TRUE(twin_registry(kCpuBackend).empty());
    EXPECT_TRUE(twin_registry("metal").empty());
    EXPECT_EQ(device_api("metal"), nullptr);
    if (cuda.built) { EXPECT_NE(find_twin("vif", "cuda"), nullptr); }
    if (vulkan.built) { EXPECT_NE(find_twin("psnr", "vulkan"), nullptr); }
    if (cuda.built && vulkan.built) { EXPECT_NE(find_twin("psnr", "cuda"), find_twin("psnr", "vulkan")); }
    EXPECT_EQ(find_twin("vif", kCpuBackend), nullptr);
    EXPECT_EQ(find_twin("null", "cuda"), nullptr);  // upstream's do-nothing extractor: no twin
    EXPECT_EQ(find_twin("null", "vulkan"), nullptr);
}

#ifdef VMAFX_HAVE_VULKAN
// Device::for_device: the DenormPreserve requests of tools/spirv_strict.py that a device cannot
// honour are taken out of a shader (and the capability where none is left); the other float
// controls stay; a malformed module is an error naming it. A hand-made module: the header, then
// OpCapability Shader and DenormPreserve, and the entry point %4's execution modes.
TEST(GpuBackends, VulkanShadersLoseOnlyTheDenormRequestsADeviceCannotHonour) {
    constexpr std::uint32_t kCapabilityOp = (2u << 16) | 17u, kModeOp = (4u << 16) | 16u;
    const std::vector<std::uint32_t> module = {
        0x07230203u, 0x00010500u, 0u, 10u, 0u,   // header (SPIR-V 1.5)
        kCapabilityOp, 1u,                      // OpCapability Shader
        kCapabilityOp, 4464u,                   // OpCapability DenormPreserve
        kModeOp, 4u, 4459u, 32u,                // OpExecutionMode %4 DenormPreserve 32
        kModeOp, 4u, 4459u, 64u,                // OpExecutionMode %4 DenormPreserve 64
        kModeOp, 4u, 4462u, 32u,                // OpExecutionMode %4 RoundingModeRTE 32
    };
    const auto count = [](const std::vector<std::uint32_t>& w, std::vector<std::uint32_t> instruction) {
        int n = 0;
        for (std::size_t i = 0; i + instruction.size() <= w.size(); ++i)
            n += std::equal(instruction.begin(), instruction.end(), w.begin() + static_cast<std::ptrdiff_t>(i));
        return n;
    };
    vulkan::Device d;
    d.denorm_preserve32 = d.denorm_preserve64 = true;
    EXPECT_EQ(d.for_device(module, "m"), module);
    d.denorm_preserve64 = false;
    std::vector<std::uint32_t> w = d.for_device(module, "m");
    EXPECT_EQ(w.size(), module.size() - 4);
    EXPECT_EQ(count(w, {kModeOp, 4u, 4459u, 32u}), 1);
    EXPECT_EQ(count(w, {kModeOp, 4u, 4459u, 64u}), 0);
    EXPECT_EQ(count(w, {kCapabilityOp, 4464u}), 1);
    d.denorm_preserve32 = false;
    w = d.for_device(module, "m");
    EXPECT_EQ(w.size(), module.size() - 10);
    EXPECT_EQ(count(w, {kCapabilityOp, 4464u}), 0);
    EXPECT_EQ(count(w, {kModeOp, 4u, 4462u, 32u}), 1);
    EXPECT_EQ(count(w, {kCapabilityOp, 1u}), 1);
    std::vector<std::uint32_t> cut(module.begin(), module.end() - 1);  // the last instruction cut short
    try {
        d.for_device(cut, "cut.spv");
        ADD_FAILURE() << "a malformed module was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cut.spv"), std::string::npos) << e.what();
    }
    EXPECT_THROW(d.for_device(std::vector<std::uint32_t>{1u, 2u, 3u}, "x"), Error);
}
#endif

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
