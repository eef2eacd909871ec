// A minimal Vulkan compute runner for the shader tests (tests/shader/shader_test.cpp): one
// device, one compute pipeline of a SPIR-V file with two storage buffers (binding 0 the input,
// binding 1 the output) and a push constant (the element count), dispatched over `count`
// elements in groups of 64.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vmafx::shader_test {

/// A Vulkan device able to run the tests' shaders (shaderFloat64 and shaderInt64), or the reason
/// why there is none.
class VulkanRunner {
public:
    /// Uses the device the Vulkan backend opens (src/vulkan/device.cpp: the first usable GPU, else
    /// the first usable device, lavapipe where it is the only one; it has 64-bit floats and
    /// integers). available() false with why_unavailable() set when there is none.
    VulkanRunner();
    ~VulkanRunner();
    VulkanRunner(const VulkanRunner&) = delete;
    VulkanRunner& operator=(const VulkanRunner&) = delete;

    bool available() const { return impl_ != nullptr; }
    const std::string& why_unavailable() const { return why_; }
    /// The device's name (VkPhysicalDeviceProperties::deviceName).
    const std::string& device_name() const { return name_; }
    /// Whether the device can be asked to keep subnormal 32- and 64-bit floats
    /// (shaderDenormPreserveFloat32/64), as "DenormPreserve 32 yes, 64 no".
    const std::string& denorm_preserve() const { return denorm_; }

    /// Runs the compute shader in the SPIR-V file `spv` (entry point main, local size 64) over
    /// `count` elements: `input` bytes in binding 0, `output_bytes` bytes of binding 1 returned
    /// (zeroed before the run). Throws std::runtime_error naming the failing call.
    std::vector<unsigned char> run(const std::string& spv, const std::vector<unsigned char>& input,
                                   std::size_t output_bytes, std::uint32_t count);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string why_;
    std::string name_;
    std::string denorm_;
};

}  // namespace vmafx::shader_test
