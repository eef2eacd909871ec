#include "engine/pooling.hpp"

#include <cstdint>

namespace vmafx {

const char* pool_method_name(PoolMethod m) {
    switch (m) {
    case PoolMethod::kMin: return "min";
    case PoolMethod::kMax: return "max";
    case PoolMethod::kMean: return "mean";
    case PoolMethod::kHarmonicMean: return "harmonic_mean";
    }
    return "?";
}

std::optional<double> pool_score(const ScoreTable& table, const std::string& name, PoolMethod method,
                                 unsigned frames, unsigned subsample) {
    if (frames == 0) return std::nullopt;
    return pool_score_range(table, name, method, 0, frames - 1, subsample);
}

std::optional<double> pool_score_range(const ScoreTable& table, const std::string& name, PoolMethod method,
                                       unsigned low, unsigned high, unsigned subsample) {
    if (subsample == 0) subsample = 1;
    if (low > high) return std::nullopt;
    unsigned count = 0;
    double min = 0.0, max = 0.0, sum = 0.0, inverse_sum = 0.0;
    // A 64-bit index: high may be the largest unsigned.
    for (std::uint64_t j = low; j <= high; ++j) {
        const auto i = static_cast<unsigned>(j);
        if (subsample > 1 && i % subsample) continue;
        const std::optional<double> s = table.get(name, i);
        if (!s) return std::nullopt;
        ++count;
        sum += *s;
        inverse_sum += 1.0 / (*s + 1.0);
        if (i == low || *s < min) min = *s;
        if (i == low || *s > max) max = *s;
    }
    if (count == 0) return std::nullopt;
    switch (method) {
    case PoolMethod::kMin: return min;
    case PoolMethod::kMax: return max;
    case PoolMethod::kMean: return sum / count;
    case PoolMethod::kHarmonicMean: return count / inverse_sum - 1.0;
    }
    return std::nullopt;
}

}  // namespace vmafx
