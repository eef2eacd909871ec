// Option corners of a metric, derived from its descriptor: each option at the values its type
// and range give (a bool flipped; an int at min and max; a double at min, max and 30% of the
// way), the values of special interest its row declares (OptionSpec::also_at), and the
// combinations the descriptor declares (MetricDescriptor::corner_sets). One derivation for the
// two users: `vmafx --list-option-corners` (what tools/option_corners.py scores against
// upstream's values) and the parity gate (src/parity/gate.cpp, CPU against GPU twins).
#pragma once

#include <string>
#include <vector>

#include "feature/metric.hpp"

namespace vmafx {

/// Largest double corner taken from a range: an option unbounded in practice (psnr's min_sse,
/// up to DBL_MAX, which upstream's float option values turn into inf) is taken at this value
/// instead of its max.
inline constexpr double kLargestRangeCorner = 1e6;

/// The corners of option `spec` that its type and range give, as option text, without its
/// default: a bool flipped ("true"/"false"); an int at min and max ("%d"); a double at min, at
/// max (at most kLargestRangeCorner) and 30% of the way between them (printed "%.9g", then as
/// upstream stores option values: normalize_option_value); none of a string. No duplicates.
std::vector<std::string> range_corner_values(const OptionSpec& spec);

/// range_corner_values(spec), then the values the row declares (spec.extra_corners, split at
/// commas, used as written) that are not among them.
std::vector<std::string> corner_values(const OptionSpec& spec);

/// Every option corner of `metric` as `--feature` text: the metric at its defaults
/// (name[=corner_base]); then, option by option in table order, each of corner_values() alone
/// ("name=opt=value[:corner_base]"); then each declared corner set. corner_base's options are
/// appended except those the corner sets itself. No duplicates. E.g. adm: "adm=debug=true",
/// "adm=adm_csf_scale=0:debug=true", ... Throws Error for a declared corner that is not
/// "opt=value" pairs.
std::vector<std::string> option_corners(const MetricDescriptor& metric);

}  // namespace vmafx
