// The error types every layer of vmafx throws (the ground floor: includes nothing of vmafx).
#pragma once

#include <stdexcept>

namespace vmafx {

/// Every error vmafx reports to a user: the message names the file or option and the problem.
/// The CLI exits with status 1 on it.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// An Error in what the caller asked for rather than in files or the machine: a malformed or
/// out-of-range value, a `-m`/`--feature` text that does not parse, an unknown feature,
/// feature option or built-in model. Seen from the command line, a usage error: the CLI
/// exits with status 2 on it.
class UsageError : public Error {
public:
    using Error::Error;
};

}  // namespace vmafx
