// VMAFX_HOST_DEVICE marks the per-sample arithmetic that a metric's CPU reference and its CUDA
// twin share: __host__ __device__ when compiled by nvcc, nothing otherwise, so that each
// rounding, shift and mirror exists once.
#pragma once

#if defined(__CUDACC__)
#define VMAFX_HOST_DEVICE __host__ __device__
#else
#define VMAFX_HOST_DEVICE
#endif
