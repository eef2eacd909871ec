// Developer timings of a run, printed on stderr when the environment variable VMAFX_TIMINGS is
// set (docs/performance.md uses them for the GPU start-up); silent otherwise.
#pragma once

#include <chrono>
#include <string>

namespace vmafx::trace {

/// Whether VMAFX_TIMINGS is set (read once).
bool enabled();

/// Prints "vmafx: timing: <ms> ms <what>": milliseconds since the first call in the process
/// (engine::run makes that call first, "run started"). Nothing when !enabled().
void phase(const std::string& what);

/// Seconds since `t` on the steady clock (for the busy times a stage adds up).
inline double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace vmafx::trace
