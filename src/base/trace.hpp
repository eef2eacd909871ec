// Developer timings of a run, printed on stderr when the environment variable VMAFX_TIMINGS is
// set (docs/performance.md uses them for the GPU start-up); silent otherwise.
#pragma once

#include <chrono>
#include <string>

namespace vmafx::trace {

/// Whether VMAFX_TIMINGS is set (read once).
bool enabled();

/// Prints "vmafx: timing: <ms> ms <what>": milliseconds since the first call in the process
/// (the CLI makes it on entering main, "main entered"; else engine::run's "run started"), and
/// before the first line the wall-clock time of that first call in microseconds since the Unix
/// epoch. Nothing when !enabled(). Not thread-safe before its first call.
void phase(const std::string& what);

/// Seconds since `t` on the steady clock (for the busy times a stage adds up).
inline double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace vmafx::trace
