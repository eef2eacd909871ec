// Result files in upstream libvmaf's layouts (libvmaf src/output.c): XML, JSON, CSV, SUB.
#pragma once

#include <string>

#include "engine/engine.hpp"

namespace vmafx {

/// Output file layouts, as upstream's --xml/--json/--csv/--sub.
enum class OutputFormat { kXml, kJson, kCsv, kSub };

/// How numbers are printed. Default (`digits` < 0): as upstream, "%.6f", or "%.16f" for values
/// with more than six leading zeros after the decimal point. `digits` >= 0: "%.<digits>f".
/// `max_precision`: "%.17g", which parses back to the same double.
struct NumberFormat {
    int digits = -1;
    bool max_precision = false;
};

/// Formats one score as NumberFormat says; NaN and infinities print as "null", as upstream's
/// JSON writer prints them (its XML, CSV and SUB writers print them with printf: "inf", "nan",
/// which render_output writes there).
std::string format_number(double value, const NumberFormat& nf);

/// The whole output file of `result` in `format`: per-frame scores (every `result.subsample`-th
/// frame), pooled min/max/mean/harmonic_mean of every score, and the aggregate metrics (XML and
/// JSON), every number as `nf` says (upstream's output.c prints the aggregates as it prints the
/// scores); non-finite values are null in JSON and as printf writes them in XML, CSV and SUB.
std::string render_output(const RunResult& result, OutputFormat format, const NumberFormat& nf);

/// Writes render_output(result, format, nf) to `path` in one go, where and how
/// OutputTarget::resolve(path) says: a regular file (new, or existing, reached through any
/// symlinks) is replaced atomically, so it holds either its old content or the whole new file
/// and no temporary file is left; a FIFO, device or socket is written in place; "-" and a
/// descriptor of this process (/dev/stdout, /proc/self/fd/N, ...) get the bytes on that
/// descriptor. Throws Error naming `path` and the cause (strerror of the failing call) when it
/// cannot be written.
void write_output(const RunResult& result, const std::string& path, OutputFormat format,
                  const NumberFormat& nf);

}  // namespace vmafx
