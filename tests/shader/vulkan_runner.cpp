// See vulkan_runner.hpp.
#include "vulkan_runner.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "vulkan/device.hpp"  // the backend's device, and volk's entry points

namespace vmafx::shader_test {

namespace {

void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: VkResult " + std::to_string(r));
}

}  // namespace

struct VulkanRunner::Impl {
    vulkan::Device* d = nullptr;  // the Vulkan backend's device (src/vulkan/device.hpp)
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    std::uint32_t family = 0;

    /// A host-visible, host-coherent storage buffer of `bytes` bytes and its memory.
    struct Buffer {
        VkDevice device = VK_NULL_HANDLE;
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
        void* mapped = nullptr;
        ~Buffer() {
            if (mapped) vkUnmapMemory(device, memory);
            if (buffer) vkDestroyBuffer(device, buffer, nullptr);
            if (memory) vkFreeMemory(device, memory, nullptr);
        }
    };

    void make_buffer(Buffer& b, std::size_t bytes) {
        b.device = device;
        VkBufferCreateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
        info.size = bytes;
        info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        check(vkCreateBuffer(device, &info, nullptr, &b.buffer), "vkCreateBuffer");
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, b.buffer, &req);
        VkPhysicalDeviceMemoryProperties props;
        vkGetPhysicalDeviceMemoryProperties(physical, &props);
        const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        std::uint32_t type = props.memoryTypeCount;
        for (std::uint32_t i = 0; i < props.memoryTypeCount; ++i)
            if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want) {
                type = i;
                break;
            }
        if (type == props.memoryTypeCount) throw std::runtime_error("no host-visible coherent memory type");
        VkMemoryAllocateInfo alloc{};
        alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
        alloc.allocationSize = req.size;
        alloc.memoryTypeIndex = type;
        check(vkAllocateMemory(device, &alloc, nullptr, &b.memory), "vkAllocateMemory");
        check(vkBindBufferMemory(device, b.buffer, b.memory, 0), "vkBindBufferMemory");
        check(vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
    }
};

VulkanRunner::VulkanRunner() {
    // The device the Vulkan backend opens (its choice and its checks, src/vulkan/device.cpp): it
    // has every feature the tests' shaders use (64-bit floats and integers among them).
    std::string why;
    const vulkan::Device* d = vulkan::open_device(&why);
    if (!d) {
        why_ = why;
        return;
    }
    auto impl = std::make_unique<Impl>();
    impl->d = const_cast<vulkan::Device*>(d);
    impl->physical = d->physical;
    impl->device = d->device;
    impl->family = d->family;
    name_ = d->name;
    denorm_ = std::string("DenormPreserve 32 ") + (d->denorm_preserve32 ? "yes" : "no") + ", 64 " +
              (d->denorm_preserve64 ? "yes" : "no");
    impl_ = std::move(impl);
}

VulkanRunner::~VulkanRunner() = default;

std::vector<unsigned char> VulkanRunner::run(const std::string& spv, const std::vector<unsigned char>& input,
                                             std::size_t output_bytes, std::uint32_t count) {
    if (!impl_) throw std::runtime_error("no Vulkan device: " + why_);
    VkDevice dev = impl_->device;
    std::ifstream file(spv, std::ios::binary);
    if (!file) throw std::runtime_error("cannot read " + spv);
    const std::vector<char> code((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (code.empty() || code.size() % 4 != 0) throw std::runtime_error(spv + " is not SPIR-V");
    std::vector<std::uint32_t> words(code.size() / 4);
    std::memcpy(words.data(), code.data(), code.size());
    words = impl_->d->for_device(words, spv.c_str());  // the float controls this device honours

    Impl::Buffer in, out;
    impl_->make_buffer(in, input.size());
    impl_->make_buffer(out, output_bytes);
    std::memcpy(in.mapped, input.data(), input.size());
    std::memset(out.mapped, 0, output_bytes);

    // Everything below is destroyed at the end of the run (in reverse order).
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkCommandPool cmd_pool = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    struct Cleanup {
        VkDevice d;
        VkShaderModule& m;
        VkDescriptorSetLayout& s;
        VkPipelineLayout& l;
        VkPipeline& p;
        VkDescriptorPool& dp;
        VkCommandPool& cp;
        VkFence& f;
        ~Cleanup() {
            if (f) vkDestroyFence(d, f, nullptr);
            if (cp) vkDestroyCommandPool(d, cp, nullptr);
            if (dp) vkDestroyDescriptorPool(d, dp, nullptr);
            if (p) vkDestroyPipeline(d, p, nullptr);
            if (l) vkDestroyPipelineLayout(d, l, nullptr);
            if (s) vkDestroyDescriptorSetLayout(d, s, nullptr);
            if (m) vkDestroyShaderModule(d, m, nullptr);
        }
    } cleanup{dev, module, set_layout, layout, pipeline, pool, cmd_pool, fence};

    VkShaderModuleCreateInfo smi{};
    smi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    smi.codeSize = words.size() * sizeof(std::uint32_t);
    smi.pCode = words.data();
    check(vkCreateShaderModule(dev, &smi, nullptr, &module), "vkCreateShaderModule");

    VkDescriptorSetLayoutBinding bindings[2]{};
    for (std::uint32_t b = 0; b < 2; ++b) {
        bindings[b].binding = b;
        bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        bindings[b].descriptorCount = 1;
        bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo dsl{};
    dsl.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    dsl.bindingCount = 2;
    dsl.pBindings = bindings;
    check(vkCreateDescriptorSetLayout(dev, &dsl, nullptr, &set_layout), "vkCreateDescriptorSetLayout");
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(std::uint32_t)};
    VkPipelineLayoutCreateInfo pli{};
    pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &set_layout;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &push;
    check(vkCreatePipelineLayout(dev, &pli, nullptr, &layout), "vkCreatePipelineLayout");
    VkComputePipelineCreateInfo cpi{};
    cpi.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpi.stage.module = module;
    cpi.stage.pName = "main";
    cpi.layout = layout;
    check(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, nullptr, &pipeline), "vkCreateComputePipelines");

    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo dpi{};
    dpi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    dpi.maxSets = 1;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &size;
    check(vkCreateDescriptorPool(dev, &dpi, nullptr, &pool), "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo dsa{};
    dsa.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    dsa.descriptorPool = pool;
    dsa.descriptorSetCount = 1;
    dsa.pSetLayouts = &set_layout;
    VkDescriptorSet set;
    check(vkAllocateDescriptorSets(dev, &dsa, &set), "vkAllocateDescriptorSets");
    VkDescriptorBufferInfo infos[2] = {{in.buffer, 0, VK_WHOLE_SIZE}, {out.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet writes[2]{};
    for (int b = 0; b < 2; ++b) {
        writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        writes[b].dstSet = set;
        writes[b].dstBinding = static_cast<std::uint32_t>(b);
        writes[b].descriptorCount = 1;
        writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[b].pBufferInfo = &infos[b];
    }
    vkUpdateDescriptorSets(dev, 2, writes, 0, nullptr);

    VkCommandPoolCreateInfo cpci{};

    cpci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    cpci.queueFamilyIndex = impl_->family;
    check(vkCreateCommandPool(dev, &cpci, nullptr, &cmd_pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo cba{};
    cba.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cba.commandPool = cmd_pool;
    cba.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cba.commandBufferCount = 1;
    VkCommandBuffer cmd;
    check(vkAllocateCommandBuffers(dev, &cba, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof count, &count);
    vkCmdDispatch(cmd, (count + 63) / 64, 1, 1);
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
    check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkFenceCreateInfo fci{};
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    check(vkCreateFence(dev, &fci, nullptr, &fence), "vkCreateFence");
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    impl_->d->submit(submit, fence);
    check(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");

    std::vector<unsigned char> result(output_bytes);
    std::memcpy(result.data(), out.mapped, output_bytes);
    return result;
}

}  // namespace vmafx::shader_test
