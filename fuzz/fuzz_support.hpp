// What the libFuzzer harnesses share: an in-memory file that vmafx opens by path, and the
// rule that a harness lets only vmafx::Error pass (any other exception escapes to libFuzzer,
// which reports it as a crash).
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace vmafx::fuzz {

/// A file in memory (memfd_create), opened by vmafx through /proc/self/fd/N like any regular
/// file: no disk writes, no temporary names left behind by a crashing run.
class MemFile {
public:
    explicit MemFile(const char* name) : fd_(::memfd_create(name, MFD_CLOEXEC)) {
        if (fd_ < 0) std::abort();
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    MemFile(const MemFile&) = delete;
    MemFile& operator=(const MemFile&) = delete;

    /// Replaces the file's contents with `size` bytes at `data`.
    void set(const std::uint8_t* data, std::size_t size) {
        if (::ftruncate(fd_, 0) != 0) std::abort();
        std::size_t done = 0;
        while (done < size) {
            const ssize_t n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) std::abort();
            done += static_cast<std::size_t>(n);
        }
    }
    const std::string& path() const { return path_; }

private:
    int fd_;
    std::string path_;
};

/// The same bytes as a stream: a pipe holding them, its write end closed, opened by vmafx
/// through /proc/self/fd/N (a stream, read once in order). Inputs must fit the pipe (up to
/// 1 MiB; the harnesses' -max_len is far below).
class MemPipe {
public:
    MemPipe(const std::uint8_t* data, std::size_t size) {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) std::abort();
        read_fd_ = fds[0];
        if (size > 65536 && ::fcntl(fds[1], F_SETPIPE_SZ, static_cast<int>(size)) < 0) std::abort();
        std::size_t done = 0;
        while (done < size) {
            const ssize_t n = ::write(fds[1], data + done, size - done);
            if (n <= 0) std::abort();
            done += static_cast<std::size_t>(n);
        }
        ::close(fds[1]);
        path_ = "/proc/self/fd/" + std::to_string(read_fd_);
    }
    ~MemPipe() { ::close(read_fd_); }
    MemPipe(const MemPipe&) = delete;
    MemPipe& operator=(const MemPipe&) = delete;
    const std::string& path() const { return path_; }

private:
    int read_fd_;
    std::string path_;
};

/// Stops the run as a finding when `cond` is false (an invariant vmafx promises).
inline void check(bool cond) {
    if (!cond) std::abort();
}

}  // namespace vmafx::fuzz
