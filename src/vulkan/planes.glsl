// Reading a device plane's samples in the Vulkan twins' shaders: a plane is a buffer device
// address and a pitch in bytes (DevicePlane), its samples uint8 at 8 bits, uint16 above.
// Include after `#version 460` and the extensions GL_EXT_shader_explicit_arithmetic_types,
// GL_EXT_shader_8bit_storage, GL_EXT_shader_16bit_storage and GL_EXT_buffer_reference.
#ifndef VMAFX_VULKAN_PLANES_GLSL
#define VMAFX_VULKAN_PLANES_GLSL

layout(buffer_reference, std430, buffer_reference_align = 1) readonly buffer Bytes { uint8_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) readonly buffer Words { uint16_t v[]; };

/// The sample at row y, column x of the plane at `plane`, rows `pitch` bytes apart; `wide`:
/// 16-bit samples (above 8 bits).
int32_t sample_at(uint64_t plane, uint32_t pitch, int y, int x, bool wide) {
    const uint64_t row = plane + uint64_t(y) * uint64_t(pitch);
    return wide ? int32_t(Words(row).v[x]) : int32_t(Bytes(row).v[x]);
}

#endif  // VMAFX_VULKAN_PLANES_GLSL
