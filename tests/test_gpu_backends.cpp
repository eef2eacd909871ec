// The backend-neutral GPU interface without a device: the registry's backends and twins by
// backend, the device API's registration, and the refusals of a backend that is not built or
// does not exist (they hold on every build; the CUDA-only answers are checked where CUDA is).
#include <gtest/gtest.h>

#include <string>

#include "engine/engine.hpp"
#include "engine/session.hpp"
#include "gpu/device_api.hpp"
#include "gpu/scheduler.hpp"
#include "gpu/twin.hpp"

namespace vmafx {
namespace {

TEST(GpuBackends, TheRegistryNamesCudaAndAnswersByBackend) {
    ASSERT_EQ(gpu_backends().size(), 1u);
    const GpuBackendInfo& cuda = gpu_backends()[0];
    EXPECT_STREQ(cuda.name, "cuda");
    EXPECT_STREQ(cuda.label, "CUDA");
    EXPECT_EQ(find_gpu_backend("cuda"), &cuda);
    EXPECT_EQ(find_gpu_backend(kCpuBackend), nullptr);
    EXPECT_EQ(find_gpu_backend("vulkan"), nullptr);
    EXPECT_EQ(backend_label("cuda"), "CUDA");
    EXPECT_EQ(backend_label(kCpuBackend), "CPU");
    // A built backend has a device API named as it is, and its twins; one not built has neither.
    const DeviceApi* api = device_api("cuda");
    EXPECT_EQ(api != nullptr, cuda.built);
    if (api) {
        EXPECT_STREQ(api->name, "cuda");
    }
    EXPECT_EQ(twin_registry("cuda").empty(), !cuda.built);
    EXPECT_EQ(twin_registry("cuda").size(), twin_registry().size());
    EXPECT_TRUE(twin_registry(kCpuBackend).empty());
    EXPECT_TRUE(twin_registry("vulkan").empty());
    EXPECT_EQ(device_api("vulkan"), nullptr);
    if (cuda.built) {
        EXPECT_NE(find_twin("vif", "cuda"), nullptr);
        EXPECT_STREQ(backend_of(*find_twin("vif", "cuda")), "cuda");
    }
    EXPECT_EQ(find_twin("vif", kCpuBackend), nullptr);
    EXPECT_EQ(find_twin("vif", "vulkan"), nullptr);
    EXPECT_EQ(find_twin("null", "cuda"), nullptr);  // upstream's do-nothing extractor: no twin
}

TEST(GpuBackends, AnUnknownOrUnbuiltBackendIsRefusedWithItsName) {
    EXPECT_EQ(gpu_unavailable_reason("vulkan"), "no GPU backend is named \"vulkan\"");
    gpu_prepare("vulkan");  // no effect, no throw
    if (!gpu_backends()[0].built) {
        EXPECT_EQ(gpu_unavailable_reason("cuda"), "this vmafx was built without the CUDA backend");
        Session s(SessionConfig{});
        EXPECT_THROW(s.use_gpu("cuda"), Error);
    }
    Session s(SessionConfig{});
    try {
        s.use_gpu("vulkan");
        ADD_FAILURE() << "a backend that does not exist was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "no GPU backend is named \"vulkan\"");
    }
    EXPECT_FALSE(s.uses_gpu());
}

}  // namespace
}  // namespace vmafx
