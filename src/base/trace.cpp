#include "base/trace.hpp"

#include <cstdio>
#include <cstdlib>

namespace vmafx::trace {

bool enabled() {
    static const bool on = std::getenv("VMAFX_TIMINGS") != nullptr;
    return on;
}

void phase(const std::string& what) {
    static const auto start = std::chrono::steady_clock::now();
    static const auto wall_start = std::chrono::system_clock::now();
    if (!enabled()) return;
    // The wall clock of the first call, once (a thread-safe static), so that a script can tell
    // the time before it (the process's start: loading the program and its libraries) from its
    // own clock.
    static const bool announced = [] {
        const auto since_epoch = std::chrono::duration_cast<std::chrono::microseconds>(wall_start.time_since_epoch());
        std::fprintf(stderr, "vmafx: timing: first call at %lld us since the Unix epoch\n",
                     static_cast<long long>(since_epoch.count()));
        return true;
    }();
    (void)announced;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "vmafx: timing: %9.2f ms %s\n", ms, what.c_str());
}

}  // namespace vmafx::trace
