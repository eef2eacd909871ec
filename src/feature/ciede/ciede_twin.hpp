// Internal: ciede's CUDA twin (ciede_cuda.cu) with another widening of the device's library
// results, for the tests (ciede_cuda_test.cpp) that drive every pixel down the host path.
#pragma once

#include <cstddef>
#include <memory>

#include "gpu/twin.hpp"
#include "picture/picture.hpp"

namespace vmafx::ciede {

/// The CUDA twin of ciede with default options for `format` and `slots` result slots, each
/// library result widened by `relative_slack` times its magnitude (the twin's own: 2^-49).
/// A larger slack sends more pixels to the host path; any slack at least the twin's gives the
/// same values. Throws Error as the registered twin's factory does.
std::unique_ptr<GpuTwin> make_twin_with_slack(const VideoFormat& format, unsigned slots, double relative_slack);

/// The library functions DeviceMath widens, as the device computes them: out[i] = f(x[i], y[i])
/// for f = pow (function 0), atan2(x, y) (1), sin(x) (2), cos(x) (3), exp(x) (4); host arrays
/// of n values. For the test that measures the device's distance from the CPU's libm against
/// the widening's assumption. Throws Error on CUDA errors and for another function.
void device_library_values(int function, const double* x, const double* y, double* out, std::size_t n);

}  // namespace vmafx::ciede
