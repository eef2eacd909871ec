// Shared libraries opened at run time (dlopen), for dependencies that only some runs need:
// FFmpeg's libraries, which only compressed input and --scale-dist use (src/io/av_reader.cpp).
// Linking them would make every process load them and the ~130 libraries behind libavformat:
// tens of milliseconds of dynamic loading per run on Debian 12, as long as scoring a short clip
// of raw YUV takes (docs/performance.md, "Start-up of a CPU run").
#pragma once

#include <string>

namespace vmafx {

/// A shared library opened by its file name (a SONAME such as "libavformat.so.59", searched as
/// the dynamic loader searches: LD_LIBRARY_PATH, the cache, the default directories), symbols
/// bound at once, kept open for the process's life. Not copyable.
class SharedLibrary {
public:
    /// Opens `soname`. Throws vmafx::Error "<soname>: <the loader's reason>" when it cannot
    /// be opened (absent, wrong architecture, a missing dependency).
    explicit SharedLibrary(const std::string& soname);
    SharedLibrary(const SharedLibrary&) = delete;
    SharedLibrary& operator=(const SharedLibrary&) = delete;

    /// The address of the function or object `name` in this library (or the libraries it
    /// loaded). Throws vmafx::Error "<soname>: no symbol <name>" when it has none.
    void* symbol(const char* name) const;

private:
    std::string soname_;
    void* handle_ = nullptr;
};

}  // namespace vmafx
