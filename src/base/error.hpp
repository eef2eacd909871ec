// The error types every layer of vmafx throws (the ground floor: includes nothing of vmafx).
#pragma once

#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>

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

/// A failed allocation whose size comes from the input (a picture's planes): a std::bad_alloc
/// (so that callers mapping out-of-memory, as the C API's -ENOMEM, still see one) that says
/// how many bytes were asked for and what for. The engine adds the videos' names and format
/// (run(): "... out of memory: 1610612736 bytes asked for a 16384x16384 plane ...").
class OutOfMemory : public std::bad_alloc {
public:
    OutOfMemory(std::size_t bytes, const std::string& what_for)
        : message_(std::to_string(bytes) + " bytes asked for " + what_for), bytes_(bytes) {}
    const char* what() const noexcept override { return message_.c_str(); }
    std::size_t bytes() const { return bytes_; }

private:
    std::string message_;
    std::size_t bytes_;
};

}  // namespace vmafx
