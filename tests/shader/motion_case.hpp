// One test case of motion_math.hpp, written in the shared-arithmetic subset so that the shader
// (motion.comp) and the C++ side of tests/shader/shader_test.cpp run the same calls: every
// function of the header on one case's inputs. The structs' layouts are the same in C++ and in
// GLSL's std430 (int32 members only).
#ifndef VMAFX_TESTS_SHADER_MOTION_CASE_HPP
#define VMAFX_TESTS_SHADER_MOTION_CASE_HPP

#include "feature/motion/motion_math.hpp"

VMAFX_NAMESPACE_BEGIN(motion)

/// Inputs: five rows' samples prev / cur (up to bit_depth bits); five vertically blurred values
/// y (any int32); mirror's index and size; lane_columns_end's width.
struct MotionCase {
    int32_t prev[5];
    int32_t cur[5];
    int32_t y[5];
    int32_t bit_depth;
    int32_t index;
    int32_t size;
    int32_t width;
    int32_t pad;
};

/// Outputs: one value of each function (v8 from the samples' low 8 bits at bit depth 8).
struct MotionResult {
    int32_t v8;
    int32_t v16;
    int32_t h_exact;
    int32_t h_lane;
    uint32_t mag;
    int32_t mirrored;
    int32_t lane_end;
    int32_t pad;
};

/// Every function of motion_math.hpp on case c.
VMAFX_FN MotionResult motion_case(VMAFX_IN(MotionCase, c)) {
    int32_t d[5];
    int32_t e[5];
    for (int k = 0; k < 5; ++k) {
        d[k] = sample_difference(c.prev[k], c.cur[k]);
        e[k] = sample_difference(c.prev[k] & 255, c.cur[k] & 255);
    }
    MotionResult r;
    r.v8 = vertical_blur_8(e[0], e[1], e[2], e[3], e[4], 8);
    r.v16 = vertical_blur_16(d[0], d[1], d[2], d[3], d[4], c.bit_depth);
    r.h_exact = horizontal_blur_exact(c.y[0], c.y[1], c.y[2], c.y[3], c.y[4]);
    r.h_lane = horizontal_blur_lane(c.y[0], c.y[1], c.y[2], c.y[3], c.y[4]);
    r.mag = magnitude(c.y[2]);
    r.mirrored = mirror(c.index, c.size);
    r.lane_end = lane_columns_end(c.width);
    r.pad = 0;
    return r;
}

VMAFX_NAMESPACE_END

#endif  // VMAFX_TESTS_SHADER_MOTION_CASE_HPP
