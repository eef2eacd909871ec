// The start-up probe of a Vulkan device's float arithmetic.
//
// The twins need IEEE 754's arithmetic with subnormal numbers kept, as the CPU keeps them (SSE
// without flush-to-zero). tools/spirv_strict.py asks for it in every shader (the DenormPreserve
// execution mode), but a device may only honour the request where it reports
// shaderDenormPreserveFloat32/64, and Mesa's lavapipe, the CI's device, reports neither while it
// keeps subnormals anyway (LLVM's x86 code without flush-to-zero). So Device::for_device drops
// the request where it cannot be made, and this probe runs on every device before the first twin:
// a shader (float_probe_vulkan.comp) makes subnormal products, sums, differences and conversions
// in float and double, and the device is refused unless each result is the CPU's bits. On NVIDIA's
// driver, which flushes 32-bit subnormals without the request, the request is honoured and the
// probe passes; a device that flushes and cannot be asked not to is not used.
#include <cstdint>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "vulkan/device.hpp"
#include "vulkan/vulkan.hpp"

namespace vmafx::vulkan {

namespace {

const std::uint32_t kSpirv[] = {
#include "float_probe_vulkan.spv.inc"
};

struct Push {
    std::uint64_t floats_in, floats_out, doubles_in, doubles_out;
};

constexpr int kInputs = 8, kOutputs = 7;

template <typename T>
std::uint64_t bits(T v) {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof v);
    return b;
}

/// The probe's operations on the host (float_probe_vulkan.comp, line for line). volatile: the
/// host's own arithmetic at run time, not the compiler's.
template <typename T>
void expected(const volatile T* in, T* out, float s_float, double narrowed) {
    const T x = in[0], h = in[1], s = in[2], t = in[3], u = in[4];
    out[0] = x * h;
    out[1] = s * t;
    out[2] = s + s;
    out[3] = x - s;
    out[4] = s * u;
    if constexpr (sizeof(T) == 4)
        out[5] = static_cast<float>(narrowed);
    else
        out[5] = static_cast<double>(s_float);
    const T p = x * h;
    out[6] = p - p * h;
}

}  // namespace

std::string probe_float_arithmetic() {
    const float f_in[kInputs] = {0x1p-126f, 0.5f, 0x3p-149f, 1.5f, 0x1p100f, 0.0f, 0.0f, 0.0f};
    const double d_in[kInputs] = {0x1p-1022, 0.5, 0x3p-1074, 1.5, 0x1p1000, 0x1.8p-140, 0.0, 0.0};
    float f_want[kOutputs];
    double d_want[kOutputs];
    expected<float>(f_in, f_want, 0.0f, d_in[5]);
    expected<double>(d_in, d_want, f_in[2], 0.0);
    const DeviceApi& a = api();
    DeviceBuffer<float> fi(kInputs), fo(kOutputs);
    DeviceBuffer<double> di(kInputs), dout(kOutputs);
    a.copy_2d(fi.at(0), sizeof f_in, f_in, sizeof f_in, sizeof f_in, 1, CopyKind::kHostToDevice, "the float probe");
    a.copy_2d(di.at(0), sizeof d_in, d_in, sizeof d_in, sizeof d_in, 1, CopyKind::kHostToDevice, "the float probe");
    const Kernel kernel(kSpirv, sizeof(Push), "the float probe");
    GpuQueue* q = a.create_queue();
    const Push push{fi.address(), fo.address(), di.address(), dout.address()};
    kernel.dispatch(q, 1, 1, 1, &push);
    GpuEvent* done = a.create_event();
    a.record(done, q);
    a.host_wait(done);
    a.destroy_event(done);
    a.destroy_queue(q);
    float f_got[kOutputs];
    double d_got[kOutputs];
    a.copy_2d(f_got, sizeof f_got, fo.at(0), sizeof f_got, sizeof f_got, 1, CopyKind::kDeviceToHost, "the float probe");
    a.copy_2d(d_got, sizeof d_got, dout.at(0), sizeof d_got, sizeof d_got, 1, CopyKind::kDeviceToHost, "the float probe");
    for (int k = 0; k < kOutputs; ++k) {
        if (bits(f_got[k]) != bits(f_want[k]))
            return fmt::format("does not keep subnormal floats (the start-up probe's float operation {} gave {:a}, "
                               "the CPU {:a})",
                               k, f_got[k], f_want[k]);
        if (bits(d_got[k]) != bits(d_want[k]))
            return fmt::format("does not keep subnormal doubles (the start-up probe's double operation {} gave {:a}, "
                               "the CPU {:a})",
                               k, d_got[k], d_want[k]);
    }
    return "";
}

}  // namespace vmafx::vulkan
