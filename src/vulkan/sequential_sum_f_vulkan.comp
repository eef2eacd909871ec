// SequentialSum's passes (vulkan/sequential_sum.glsl) for float terms: vulkan/sequential_sum.hpp.
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
#define SEQ_ACC float
#define SEQ_BYTES 4
#define SEQ(name) name##_f
#include "vulkan/sequential_sum.glsl"
