// The option rows speed_chroma and speed_temporal share (upstream speed.c declares the same rows
// in both tables, options_chroma[] and options[]), bound to a member of either's Settings.
#pragma once

#include "base/options.hpp"

namespace vmafx::speed {

/// Upstream's defaults (speed.c DEFAULT_SPEED_*).
inline constexpr double kDefaultSigmaNn = 0.29;
inline constexpr double kDefaultMaxVal = 1000.0;

template <typename S>
constexpr OptionSpec kernelscale_row() {
    return option<&S::kernelscale>("speed_kernelscale", "ks", 1.0, 0.1, 4.0, OptionRole::kFeatureParameter,
                                   "scaling factor for the gaussian kernel (2.0 means multiplying the standard "
                                   "deviation by 2 and enlarge the kernel size accordingly");
}
template <typename S>
constexpr OptionSpec prescale_row() {
    return option<&S::prescale>("speed_prescale", "ps", 1.0, 0.1, 4.0, OptionRole::kFeatureParameter,
                                "scaling factor for the frame (2.0 means making the image twice as large on each "
                                "dimension)");
}
template <typename S>
constexpr OptionSpec prescale_method_row() {
    return option<&S::prescale_method>("speed_prescale_method", "psm", "nearest", OptionRole::kFeatureParameter,
                                       "scaling method for the frame, supported options: [nearest, bilinear, "
                                       "bicubic, lanczos4]");
}
template <typename S>
constexpr OptionSpec sigma_nn_row() {
    return option<&S::sigma_nn>("speed_sigma_nn", "snn", kDefaultSigmaNn, 0.1, 2.0, OptionRole::kFeatureParameter,
                                "standard deviation of neural noise");
}
template <typename S>
constexpr OptionSpec nn_floor_row() {
    return option<&S::nn_floor>("speed_nn_floor", "nnf", 0.0, 0.0, 1.0, OptionRole::kFeatureParameter,
                                "neural noise floor, expressed in percentage of sigma_nn");
}
template <typename S>
constexpr OptionSpec max_val_row() {
    return option<&S::max_val>("speed_max_val", "mxv", kDefaultMaxVal, 0.0, 1000.0, OptionRole::kFeatureParameter,
                               "maximum value allowed; larger values will be clipped to this value");
}

}  // namespace vmafx::speed
