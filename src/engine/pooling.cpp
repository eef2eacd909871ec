#include "engine/pooling.hpp"

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
    if (subsample == 0) subsample = 1;
    unsigned count = 0;
    double min = 0.0, max = 0.0, sum = 0.0, inverse_sum = 0.0;
    for (unsigned i = 0; i < frames; ++i) {
        if (subsample > 1 && i % subsample) continue;
        const std::optional<double> s = table.get(name, i);
        if (!s) return std::nullopt;
        ++count;
        sum += *s;
        inverse_sum += 1.0 / (*s + 1.0);
        if (i == 0 || *s < min) min = *s;
        if (i == 0 || *s > max) max = *s;
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
