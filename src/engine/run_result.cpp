// RunResult's printed names (engine.hpp): the one place that asks the metric registry for the
// aliases the writers print.
#include "engine/engine.hpp"
#include "feature/registry.hpp"

namespace vmafx {

std::map<std::string, std::string> printed_names_of(const ScoreTable& scores) {
    std::map<std::string, std::string> out;
    for (const std::string& name : scores.names())
        if (std::string alias = feature_alias(name); alias != name) out.emplace(name, std::move(alias));
    return out;
}

}  // namespace vmafx
