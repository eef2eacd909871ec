// Temporal pooling of per-frame scores, as upstream's vmaf_feature_score_pooled.
#pragma once

#include <optional>
#include <string>

#include "base/scores.hpp"

namespace vmafx {

/// Pooling methods of upstream libvmaf, in its output order.
enum class PoolMethod { kMin, kMax, kMean, kHarmonicMean };

/// "min", "max", "mean", "harmonic_mean".
const char* pool_method_name(PoolMethod m);

/// Pools score `name` over frames [0, frames) of `table`, taking only frames whose index is a
/// multiple of `subsample` (1: every frame). Same arithmetic and order as upstream
/// (libvmaf.c vmaf_feature_score_pooled): a running double sum in frame order, mean = sum / n,
/// harmonic mean = n / sum(1 / (s + 1)) - 1. Returns nullopt when a wanted frame has no score
/// (upstream then leaves the method out of its output) or when no frame is wanted.
std::optional<double> pool_score(const ScoreTable& table, const std::string& name, PoolMethod method,
                                 unsigned frames, unsigned subsample);

/// Pools score `name` over frames low..high (inclusive) as upstream's vmaf_feature_score_pooled
/// does for an index range: only indices that are multiples of `subsample` count, min and max
/// start from the first index's value. Returns nullopt when a counted frame has no score, no
/// frame counts, or low > high. pool_score() is this on 0..frames-1.
std::optional<double> pool_score_range(const ScoreTable& table, const std::string& name, PoolMethod method,
                                       unsigned low, unsigned high, unsigned subsample);

}  // namespace vmafx
