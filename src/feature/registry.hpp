// The registry of metrics: every MetricDescriptor, in a fixed order (feature/metrics.def).
#pragma once

#include <span>
#include <string>

#include "feature/metric.hpp"

namespace vmafx {

/// All metrics, in registry order.
std::span<const MetricDescriptor* const> metric_registry();
/// The metric called `name` (upstream's extractor name), or nullptr.
const MetricDescriptor* find_metric(const std::string& name);
/// The metric called `name`; throws UsageError listing the known ones when there is none.
const MetricDescriptor& metric_named(const std::string& name);
/// The names of all metrics, in registry order, for messages: "vif, adm, motion".
std::string metric_names();
/// The metric that provides upstream feature `feature` (e.g.
/// "VMAF_integer_feature_adm2_score"), or nullptr.
const MetricDescriptor* find_metric_by_feature(const std::string& feature);
/// Upstream's short output name of a feature (libvmaf feature/alias.c, as each descriptor
/// declares it), e.g. "VMAF_integer_feature_adm2_score" -> "integer_adm2"; other names unchanged.
std::string feature_alias(const std::string& feature);

}  // namespace vmafx
