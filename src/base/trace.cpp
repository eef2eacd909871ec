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
    if (!enabled()) return;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "vmafx: timing: %9.2f ms %s\n", ms, what.c_str());
}

}  // namespace vmafx::trace
