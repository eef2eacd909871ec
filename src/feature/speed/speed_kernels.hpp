// The covariance sum of SpEED's est_params (speed_core.cpp): the scalar reference
// (covariance_sum_reference, in speed_core.cpp) and a SIMD version computing the same double
// (speed_simd.cpp, Google Highway with run-time dispatch). Internal: used by speed_core.cpp,
// speed_simd.cpp, tests/test_simd_kernels.cpp and the CUDA twins (speed_twin.hpp: the inline
// pieces are host/device functions).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/host_device.hpp"

namespace vmafx::speed {

/// The sum over the h x w samples (rows `stride` floats apart) of (x - mx) * (y - my) in
/// double, grouped as upstream's AVX-512 kernel (x86/speed_avx512.c compute_cov_kernel_avx512,
/// the one upstream dispatches to on AVX-512 machines) groups it: per row, runs of 16 samples
/// feed two 8-lane double chains of fused multiply-adds (lanes j..j+7 the first, j+8..j+15 the
/// second), a run of 8 the first chain, the rest a plain double sum (product, then add); at the
/// end the chains are added lane by lane, the 8 lanes reduced as _mm512_reduce_add_pd does
/// (halves, then quarters, then the pair), and the plain sum added last.
double covariance_sum_reference(const float* x, const float* y, int stride, int h, int w, double mx, double my);
/// The same double with SIMD lanes (the chains' lanes in vectors, std::fma as the target's
/// fused multiply-add); targets without a native FMA run the reference. Every call runs the
/// best target of those compiled that the CPU supports (hwy::SetSupportedTargetsForTest
/// narrows it).
double covariance_sum_simd(const float* x, const float* y, int stride, int h, int w, double mx, double my);
/// The Highway target (HWY_AVX2, ...) that covariance_sum_simd runs now.
std::int64_t simd_target();

/// The plain part of a row of the covariance sum: adds (x[j] - mx) * (y[j] - my) (a double
/// product, then an add) to `sum` for j in [from, w), in that order.
VMAFX_HOST_DEVICE inline void covariance_add_rest(const float* x, const float* y, int from, int w, double mx, double my,
                                double& sum) {
    for (int j = from; j < w; ++j) {
        const double p = (static_cast<double>(x[j]) - mx) * (static_cast<double>(y[j]) - my);
        sum += p;
    }
}

/// The end of the covariance sum: the two 8-lane chains added lane by lane, the 8 lanes reduced
/// as _mm512_reduce_add_pd does (halves, then quarters, then the pair), the plain sum added last.
VMAFX_HOST_DEVICE inline double covariance_reduce(const double acc0[8], const double acc1[8], double rest) {
    double a[8];
    for (int l = 0; l < 8; ++l) a[l] = acc0[l] + acc1[l];
    double q[4];
    for (int l = 0; l < 4; ++l) q[l] = a[l + 4] + a[l];
    const double h0 = q[2] + q[0], h1 = q[3] + q[1];
    return h0 + h1 + rest;
}

}  // namespace vmafx::speed
