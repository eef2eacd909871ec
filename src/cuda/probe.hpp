// A probe of the device's arithmetic under the flags every vmafx CUDA translation unit gets,
// and of the exact warp sums the twins use: tests compare its results with the host's.
#pragma once

#include <vector>

namespace vmafx::cuda {

/// Results of a*b+c (as written, two roundings), a/b and sqrt(a) for each operand triple, in
/// float and in double, computed on the device by a kernel compiled with vmafx's strict
/// flags. Inputs are the same length; throws Error when CUDA is unusable.
struct ProbeResults {
    std::vector<float> mul_add_f, div_f, sqrt_f;
    std::vector<double> mul_add_d, div_d, sqrt_d;
};
ProbeResults probe_arithmetic(const std::vector<float>& af, const std::vector<float>& bf, const std::vector<float>& cf,
                              const std::vector<double>& ad, const std::vector<double>& bd,
                              const std::vector<double>& cd);

/// Sums of `values` in groups of 32 (values.size() a multiple of 32), each group by the 32 lanes
/// of one warp with gpu::warp_sum_u64 (src/cuda/warp_sum.cuh), modulo 2^64: one result a group.
/// Throws Error when CUDA is unusable.
std::vector<unsigned long long> probe_warp_sums(const std::vector<unsigned long long>& values);

}  // namespace vmafx::cuda
