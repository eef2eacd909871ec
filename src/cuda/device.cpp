#include "cuda/device.hpp"

#include <fmt/format.h>

namespace vmafx::cuda {

void check(cudaError_t err, const char* what) {
    if (err != cudaSuccess) throw Error(fmt::format("CUDA error in {}: {}", what, cudaGetErrorString(err)));
}

void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

std::string unavailable_reason() {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();  // clear the sticky error
        return cudaGetErrorString(err);
    }
    if (count == 0) return "no CUDA device found";
    return {};
}

}  // namespace vmafx::cuda
