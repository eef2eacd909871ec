#include <string>

#include "gpu/twin.hpp"

namespace vmafx {

#ifdef VMAFX_HAVE_CUDA
#define VMAFX_TWIN(ns) \
    namespace ns {     \
    extern const TwinDescriptor twin; \
    }
#include "gpu/twins.def"
#undef VMAFX_TWIN
#endif

std::span<const TwinDescriptor* const> twin_registry() {
#ifdef VMAFX_HAVE_CUDA
#define VMAFX_TWIN(ns) &ns::twin,
    static const TwinDescriptor* const registry[] = {
#include "gpu/twins.def"
    };
#undef VMAFX_TWIN
    return registry;
#else
    return {};
#endif
}

const TwinDescriptor* find_twin(const std::string& metric) {
    for (const TwinDescriptor* t : twin_registry())
        if (metric == t->metric) return t;
    return nullptr;
}

const char* planted_defect_name(PlantedDefect d) {
    switch (d) {
    case PlantedDefect::kNone: return "none";
    case PlantedDefect::kContraction: return "contraction";
    case PlantedDefect::kMirrorShift: return "mirror_shift";
    case PlantedDefect::kRoundingConstant: return "rounding_constant";
    case PlantedDefect::kReductionOrder: return "reduction_order";
    }
    return "?";
}

}  // namespace vmafx
