// The model files embedded in the binary at build time (models/*.json).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace vmafx {

/// One embedded model file: `version` is its file name without ".json" (e.g. "vmaf_v0.6.1"),
/// as upstream's `-m version=NAME` takes it; `json` its whole text.
struct BuiltinModel {
    const char* version;
    const char* json;
    std::size_t size;
    std::string_view text() const { return {json, size}; }
};

/// Every built-in model, sorted by version.
const std::vector<BuiltinModel>& builtin_models();

}  // namespace vmafx
