// Where an output file goes (`-o PATH`): a regular file is replaced atomically; a stream or a
// device (FIFO, terminal, socket, a descriptor of this process) is written in place.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace vmafx {

/// The destination of an output file, resolved from the path a user gave. What the path
/// names decides how it is written:
///
/// - "-": standard output (descriptor 1).
/// - A descriptor of this process: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
///   /proc/thread-self/fd/N, /proc/PID/fd/N with this process's PID, named directly or
///   reached through symlinks (to the entry itself or to a directory on the way). Written to
///   descriptor N itself, from its current offset and never truncated, so that pipes,
///   sockets (which cannot be reopened by path) and redirected files all work (kDescriptor).
/// - A regular file, or a name that does not exist yet, reached through any symlinks
///   (resolved to the final target; a dangling symlink names the file it points to, which
///   is created there and the link kept): replaced atomically, complete or not at all. The
///   content goes to a temporary file in the directory of the final target, which is then
///   renamed over it; an existing file's permission bits are kept, and its owner and group
///   where the process may set them. An existing file the process may not write is refused,
///   as writing it in place would be (kFile). Where a replacement cannot be made, the existing
///   file is written in place instead (truncated, then written; not atomic): when its directory
///   is not writable but the file is, when the file is a mount point of its own (a single file
///   bind-mounted into a container: another device than its directory), and when the rename
///   fails with EBUSY (a bind mount on the same device).
/// - Anything else that exists (FIFO, character or block device, a Unix socket, a
///   descriptor of another process): opened (a socket: connected to, as a stream) and
///   written in place (kStream). Nothing is created or replaced.
///
/// A directory (also a path ending in "/"), a missing parent directory, a parent that is
/// not a directory, a symlink loop (more than 40 links) or an unsearchable directory on the
/// way are errors. Every error is an Error whose message names the path as given and the
/// real cause: the object and the strerror of the call that failed, e.g.
/// "out/x.json: cannot write the output file (out: No such file or directory)".
class OutputTarget {
public:
    /// How the target is written (see the class comment).
    enum class Kind { kFile, kStream, kDescriptor };

    /// Resolves `path` (relative paths from the current directory) by walking it one
    /// component at a time and following symlinks, without opening or creating anything.
    /// Throws Error for an empty path and for the errors in the class comment.
    static OutputTarget resolve(const std::string& path);

    /// Checks, before a long run, that write() can succeed, without creating or opening
    /// anything (opening a FIFO would block until a reader comes): kFile: the directory is
    /// writable and searchable (access(2) W_OK|X_OK) and an existing file writable, and not
    /// protected by a sticky directory; kStream: the object is writable (access(2) W_OK);
    /// kDescriptor: the descriptor is open for writing (fcntl(2) F_GETFL). Throws Error
    /// naming the path and the cause.
    void check() const;

    /// Writes `content`, the whole output file, in one go as the kind says (short writes
    /// and EINTR continued, a non-blocking descriptor waited on with poll(2)). kFile: the
    /// temporary file is synced (fsync(2)) before the rename and removed on any error, so the
    /// target holds either its old content or all of `content`. Throws Error naming the path
    /// and the failing call's strerror; a reader that went away gives EPIPE, "Broken pipe"
    /// (the CLI ignores SIGPIPE so that it gets the error instead of dying silently).
    void write(std::string_view content) const;

    /// Makes SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGXFSZ remove the temporary file a write()
    /// of a kFile target holds at that moment, then end the process as the signal's default
    /// action would (the handler is reset and the signal raised again). For programs such as
    /// the CLI; a library caller keeps its own handlers. Nothing to remove otherwise.
    static void remove_temporary_file_on_signals();

    /// Whether write() goes to descriptor 1 ("-", /dev/stdout, /proc/self/fd/1, ...): the
    /// CLI then prints its score summary on standard error instead.
    bool writes_to_standard_output() const { return kind_ == Kind::kDescriptor && fd_ == 1; }

    Kind kind() const { return kind_; }
    /// The path as given.
    const std::string& path() const { return path_; }
    /// kFile and kStream: the final target, absolute and free of symlinks (kStream: the
    /// procfs entry itself for another process's pipe or socket).
    const std::filesystem::path& resolved() const { return resolved_; }
    /// kDescriptor: the descriptor written to (-1 when the number given does not fit an int).
    int descriptor() const { return fd_; }

private:
    OutputTarget(std::string path, Kind kind) : path_(std::move(path)), kind_(kind) {}

    [[noreturn]] void fail(const std::string& what, int err) const;
    void write_file(std::string_view content) const;
    void write_in_place(std::string_view content) const;
    void write_stream(std::string_view content) const;
    void write_all(int fd, std::string_view content) const;

    std::string path_;
    Kind kind_;
    std::filesystem::path resolved_;
    int fd_ = -1;
};

}  // namespace vmafx
