// Internal: ciede's CUDA twin (ciede_cuda.cu) with another widening of the device's library
// results, for the tests (ciede_cuda_test.cpp) that drive every pixel down the host path.
#pragma once

#include <memory>

#include "gpu/twin.hpp"
#include "picture/picture.hpp"

namespace vmafx::ciede {

/// The CUDA twin of ciede with default options for `format` and `slots` result slots, each
/// library result widened by `relative_slack` times its magnitude (the twin's own: 2^-49).
/// A larger slack sends more pixels to the host path; any slack at least the twin's gives the
/// same values. Throws Error as the registered twin's factory does.
std::unique_ptr<GpuTwin> make_twin_with_slack(const VideoFormat& format, unsigned slots, double relative_slack);

}  // namespace vmafx::ciede
