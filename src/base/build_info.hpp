// What the build knows of itself, for the provenance of result files.
#pragma once

namespace vmafx {

/// The git commit vmafx was built from (`git describe --always --dirty --abbrev=12` at build
/// time, e.g. "a3b7e6e1f2c4" or "a3b7e6e1f2c4-dirty"), or "unknown" when it was not built from
/// a git checkout. Written by cmake/commit.cmake.
const char* build_commit();

}  // namespace vmafx
