// The command's --html FILE: the HTML report of a run, made by the Python package's report code
// (python/vmafx/report.py, the same function vmafx.report() runs), so that the command and the
// package write the same page.
#pragma once

#include <string>

#include "engine/engine.hpp"

namespace vmafx::cli {

/// Checks, before a run, that the report can be made: the Python interpreter (VMAFX_PYTHON in
/// the environment, else the one vmafx was built for, Debian's /usr/bin/python3) imports
/// vmafx.report and plotly, with the package found beside this executable (a build tree's
/// python/ folder, or the install's site folder) ahead of PYTHONPATH. Throws vmafx::Error
/// naming the interpreter and what it said when it cannot.
void check_html_report();

/// The report's page (HTML bytes) of `result`, a run of `cfg`: the run's JSON result file
/// (%.17g, with its provenance) goes to `python3 -m vmafx report` on a pipe with the inputs'
/// paths, raw geometry, skips and pairing (for the pictures of the worst frames), and the page
/// comes back on another. Throws vmafx::Error when the interpreter cannot be started or fails
/// (its own message, naming the file it could not read, is on standard error).
std::string render_html_report(RunResult& result, const RunConfig& cfg);

}  // namespace vmafx::cli
