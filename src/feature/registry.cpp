#include "feature/registry.hpp"

#include <vector>

#include <fmt/format.h>

namespace vmafx {

#define VMAFX_METRIC(ns) \
    namespace ns {       \
    extern const MetricDescriptor descriptor; \
    }
#include "feature/metrics.def"
#undef VMAFX_METRIC

std::span<const MetricDescriptor* const> metric_registry() {
#define VMAFX_METRIC(ns) &ns::descriptor,
    static const MetricDescriptor* const registry[] = {
#include "feature/metrics.def"
    };
#undef VMAFX_METRIC
    return registry;
}

const MetricDescriptor* find_metric(const std::string& name) {
    for (const MetricDescriptor* m : metric_registry())
        if (name == m->name) return m;
    return nullptr;
}

const MetricDescriptor& metric_named(const std::string& name) {
    if (const MetricDescriptor* m = find_metric(name)) return *m;
    throw UsageError(fmt::format("unknown feature \"{}\" (available: {})", name, metric_names()));
}

std::string metric_names() {
    std::string names;
    for (const MetricDescriptor* m : metric_registry()) names += std::string(names.empty() ? "" : ", ") + m->name;
    return names;
}

const MetricDescriptor* find_metric_by_feature(const std::string& feature) {
    for (const MetricDescriptor* m : metric_registry())
        if (m->provides(feature)) return m;
    return nullptr;
}

std::string feature_alias(const std::string& feature) {
    for (const MetricDescriptor* m : metric_registry())
        for (const FeatureName& f : m->features)
            if (feature == f.name && f.alias) return f.alias;
    return feature;
}

}  // namespace vmafx
