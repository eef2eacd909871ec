#include "output/output_target.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <charconv>
#include <climits>
#include <cstring>
#include <deque>
#include <random>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"

namespace vmafx {

namespace fs = std::filesystem;

namespace {

/// Symlinks followed before giving up with ELOOP (Linux's limit for one path lookup).
constexpr int kMaxSymlinks = 40;

/// The components of `text` that name something: "" (from "//") and "." are dropped.
std::deque<std::string> components(std::string_view text) {
    std::deque<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t slash = std::min(text.find('/', start), text.size());
        const std::string_view c = text.substr(start, slash - start);
        if (!c.empty() && c != ".") out.emplace_back(c);
        start = slash + 1;
    }
    return out;
}

/// Whether `text` ends in a component that can only name a directory ("x/", "x/.", "x/..").
bool names_directory(std::string_view text) {
    return text.ends_with('/') || text == "." || text == ".." || text.ends_with("/.") || text.ends_with("/..");
}

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Whether `dir` (absolute, free of symlinks) is a process's descriptor table in procfs:
/// /proc/PID/fd or /proc/PID/task/TID/fd. `pid` receives PID.
bool is_descriptor_dir(const fs::path& dir, std::string& pid) {
    std::vector<std::string> parts;
    for (const auto& p : dir) parts.push_back(p.string());  // "/", "proc", PID, ...
    const bool table = (parts.size() == 4 && parts[3] == "fd") ||
                       (parts.size() == 6 && parts[3] == "task" && all_digits(parts[4]) && parts[5] == "fd");
    if (!table || parts[1] != "proc" || !all_digits(parts[2])) return false;
    pid = parts[2];
    return true;
}

std::string read_link(const fs::path& link, int& err) {
    std::vector<char> buf(256);
    for (;;) {
        const ssize_t n = ::readlink(link.c_str(), buf.data(), buf.size());
        if (n < 0) {
            err = errno;
            return {};
        }
        if (static_cast<std::size_t>(n) < buf.size()) return std::string(buf.data(), static_cast<std::size_t>(n));
        buf.resize(buf.size() * 2);
    }
}

/// The temporary file a write() holds now, for the signal handler of
/// remove_temporary_file_on_signals(): its path, valid while `temporary_live` is set.
char temporary_path[PATH_MAX];
std::atomic<bool> temporary_live{false};
static_assert(std::atomic<bool>::is_always_lock_free, "read from a signal handler");

/// Closes a descriptor and removes a temporary file unless told they are done with.
struct TempFileGuard {
    int fd = -1;
    fs::path path;
    /// Publishes `path` to the signal handler (before the file is created).
    void publish() {
        const std::string& p = path.native();
        if (p.size() >= sizeof temporary_path) return;
        std::memcpy(temporary_path, p.c_str(), p.size() + 1);
        temporary_live = true;
    }
    ~TempFileGuard() {
        if (fd >= 0) ::close(fd);
        if (!path.empty()) ::unlink(path.c_str());
        temporary_live = false;
    }
};

void remove_temporary_and_reraise(int sig) {
    if (temporary_live) ::unlink(temporary_path);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

/// Whether `dir` is writable and searchable by this process.
bool writable_directory(const fs::path& dir) { return ::access(dir.c_str(), W_OK | X_OK) == 0; }

/// Whether existing file `file` must be written in place rather than replaced: its directory
/// is not writable but it is, or it is a mount point (another device than its directory).
bool in_place(const fs::path& file, const struct stat& st) {
    struct stat dir {};
    const fs::path parent = file.parent_path();
    if (::stat(parent.c_str(), &dir) == 0 && dir.st_dev != st.st_dev) return true;
    return !writable_directory(parent) && ::access(file.c_str(), W_OK) == 0;
}

}  // namespace

void OutputTarget::fail(const std::string& what, int err) const {
    throw Error(fmt::format("{}: cannot write the output file ({}: {}{})", path_, what, std::strerror(err),
                            err == EPIPE ? "; its reader went away" : ""));
}

OutputTarget OutputTarget::resolve(const std::string& path) {
    if (path == "-") {
        OutputTarget t(path, Kind::kDescriptor);
        t.fd_ = STDOUT_FILENO;
        return t;
    }
    if (path.empty()) throw Error("the output file's path is empty (\"-\" is standard output)");
    OutputTarget t(path, Kind::kFile);

    // Walk the path one component at a time, as the kernel does, so that a descriptor of
    // this process is recognized before its procfs link is followed.
    fs::path at = "/";
    if (path.front() != '/') {
        std::vector<char> cwd(PATH_MAX);
        if (!::getcwd(cwd.data(), cwd.size())) t.fail("the current directory", errno);
        at = cwd.data();
    }
    std::deque<std::string> todo = components(path);
    bool must_be_dir = names_directory(path);
    const std::string own_pid = std::to_string(::getpid());
    int links = 0;
    while (!todo.empty()) {
        const std::string c = std::move(todo.front());
        todo.pop_front();
        if (c == "..") {
            at = at.parent_path();  // `at` has no symlinks: its parent is the real one
            continue;
        }
        const bool last = todo.empty();
        const fs::path next = at / c;
        std::string pid;
        const bool in_table = is_descriptor_dir(at, pid);
        if (last && in_table && pid == own_pid && all_digits(c)) {
            t.kind_ = Kind::kDescriptor;
            int fd = -1;
            const auto [end, ec] = std::from_chars(c.data(), c.data() + c.size(), fd);
            t.fd_ = ec == std::errc() && end == c.data() + c.size() ? fd : -1;
            return t;
        }
        struct stat st {};
        if (::lstat(next.c_str(), &st) != 0) {
            const int err = errno;
            if (err == ENOENT && last && !must_be_dir) {  // a new file (also the target of a dangling link)
                t.resolved_ = next;
                return t;
            }
            // A parent that is not a directory is named itself.
            t.fail((err == ENOTDIR ? at : next).string(), err == ENOENT && last ? EISDIR : err);
        }
        if (S_ISLNK(st.st_mode)) {
            if (++links > kMaxSymlinks) t.fail(next.string(), ELOOP);
            int err = 0;
            const std::string target = read_link(next, err);
            if (err) t.fail(next.string(), err);
            if (last && in_table) {
                // Another process's descriptor: procfs names pipes and sockets "pipe:[N]", a
                // deleted file "PATH (deleted)". Follow only a path that leads to the same object.
                struct stat via {}, named {};
                const bool same = !target.empty() && target.front() == '/' && ::stat(next.c_str(), &via) == 0 &&
                                  ::stat(target.c_str(), &named) == 0 && via.st_dev == named.st_dev &&
                                  via.st_ino == named.st_ino;
                if (!same) {
                    t.kind_ = Kind::kStream;
                    t.resolved_ = next;
                    return t;
                }
            }
            if (!target.empty() && target.front() == '/') at = "/";
            if (last && names_directory(target)) must_be_dir = true;
            std::deque<std::string> expanded = components(target);
            todo.insert(todo.begin(), expanded.begin(), expanded.end());
            continue;
        }
        at = next;
        if (!last) continue;  // a file on the way fails at the next lstat, with ENOTDIR
        if (S_ISDIR(st.st_mode)) t.fail(next.string(), EISDIR);
        if (must_be_dir) t.fail(next.string(), ENOTDIR);
        t.kind_ = S_ISREG(st.st_mode) ? Kind::kFile : Kind::kStream;
        t.resolved_ = next;
        return t;
    }
    t.fail(at.string(), EISDIR);  // "/", "." or a path ending in ".."
}

void OutputTarget::check() const {
    switch (kind_) {
    case Kind::kDescriptor: {
        const std::string what = fmt::format("descriptor {}", fd_);
        if (fd_ < 0) fail(what, EBADF);
        const int flags = ::fcntl(fd_, F_GETFL);
        if (flags < 0) fail(what, errno);
        if ((flags & O_ACCMODE) == O_RDONLY || (flags & O_PATH)) fail(what + ", open for reading only", EBADF);
        return;
    }
    case Kind::kStream:
        if (::access(resolved_.c_str(), W_OK) != 0) fail(resolved_.string(), errno);
        return;
    case Kind::kFile: {
        const fs::path dir = resolved_.parent_path();
        struct stat file {}, parent {};
        const bool exists = ::lstat(resolved_.c_str(), &file) == 0;
        if (exists && in_place(resolved_, file)) return;  // written in place (see the class comment)
        if (::access(dir.c_str(), W_OK | X_OK) != 0) fail(dir.string(), errno);
        if (!exists) return;  // a new file
        if (::access(resolved_.c_str(), W_OK) != 0) fail(resolved_.string(), errno);
        // In a sticky directory (/tmp) only the owner of a file or of the directory may replace it.
        const uid_t me = ::geteuid();
        if (::stat(dir.c_str(), &parent) == 0 && (parent.st_mode & S_ISVTX) && me != 0 && file.st_uid != me &&
            parent.st_uid != me)
            fail(resolved_.string(), EPERM);
        return;
    }
    }
}

void OutputTarget::write(std::string_view content) const {
    switch (kind_) {
    case Kind::kDescriptor:
        if (fd_ < 0) fail(fmt::format("descriptor {}", fd_), EBADF);
        write_all(fd_, content);
        return;
    case Kind::kStream: write_stream(content); return;
    case Kind::kFile: write_file(content); return;
    }
}

void OutputTarget::write_all(int fd, std::string_view content) const {
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n > 0) {
            done += static_cast<std::size_t>(n);
            continue;
        }
        const int err = n == 0 ? EIO : errno;
        if (err == EINTR) continue;
        if (err == EAGAIN || err == EWOULDBLOCK) {  // a non-blocking descriptor: wait until it takes more
            pollfd p{fd, POLLOUT, 0};
            if (::poll(&p, 1, -1) < 0 && errno != EINTR) fail(fmt::format("poll on descriptor {}", fd), errno);
            continue;
        }
        fail(kind_ == Kind::kDescriptor ? fmt::format("descriptor {}", fd) : resolved_.string(), err);
    }
}

void OutputTarget::write_stream(std::string_view content) const {
    TempFileGuard guard;  // only its descriptor: nothing is created
    struct stat st {};
    if (::stat(resolved_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) {
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        const std::string name = resolved_.string();
        if (name.size() >= sizeof addr.sun_path) fail(name, ENAMETOOLONG);
        std::memcpy(addr.sun_path, name.c_str(), name.size() + 1);
        guard.fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (guard.fd < 0) fail("socket", errno);
        if (::connect(guard.fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) fail(name, errno);
    } else {
        // Opening a FIFO waits for its reader; a terminal must not become the controlling one.
        do guard.fd = ::open(resolved_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
        while (guard.fd < 0 && errno == EINTR);
        if (guard.fd < 0) fail(resolved_.string(), errno);
    }
    write_all(guard.fd, content);
    const int fd = std::exchange(guard.fd, -1);
    if (::close(fd) != 0 && errno != EINTR) fail(resolved_.string(), errno);
}

void OutputTarget::write_in_place(std::string_view content) const {
    TempFileGuard guard;  // only its descriptor: nothing is created
    do guard.fd = ::open(resolved_.c_str(), O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
    while (guard.fd < 0 && errno == EINTR);
    if (guard.fd < 0) fail(resolved_.string(), errno);
    write_all(guard.fd, content);
    if (::fsync(guard.fd) != 0 && errno != EINVAL) fail(resolved_.string(), errno);
    if (::close(std::exchange(guard.fd, -1)) != 0 && errno != EINTR) fail(resolved_.string(), errno);
}

void OutputTarget::write_file(std::string_view content) const {
    const fs::path dir = resolved_.parent_path();
    struct stat old {};
    const bool replacing = ::lstat(resolved_.c_str(), &old) == 0 && S_ISREG(old.st_mode);
    if (replacing && ::access(resolved_.c_str(), W_OK) != 0) fail(resolved_.string(), errno);
    if (replacing && in_place(resolved_, old)) {
        write_in_place(content);
        return;
    }

    // A hidden temporary file beside the final target (the same file system, so that the
    // rename is atomic); its name is cut to stay within NAME_MAX.
    TempFileGuard temp;
    std::random_device random;
    for (int attempt = 0;; ++attempt) {
        temp.path = dir / fmt::format(".{}.vmafx-tmp-{:08x}", resolved_.filename().string().substr(0, 200), random());
        temp.publish();
        temp.fd = ::open(temp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (temp.fd >= 0) break;
        const int err = errno;
        if (err != EEXIST || attempt == 100) {
            temp.path.clear();
            fail(dir.string(), err);
        }
    }
    if (replacing) {
        // Owner and group as before where allowed (else the group alone), then the mode;
        // set-id bits only where the owner or group they refer to was kept.
        if (::fchown(temp.fd, old.st_uid, old.st_gid) != 0) (void)!::fchown(temp.fd, static_cast<uid_t>(-1), old.st_gid);
        struct stat now {};
        mode_t mode = old.st_mode & 07777;
        if (::fstat(temp.fd, &now) != 0) fail(temp.path.string(), errno);
        if (now.st_uid != old.st_uid) mode &= ~S_ISUID;
        if (now.st_gid != old.st_gid) mode &= ~S_ISGID;
        if (::fchmod(temp.fd, mode) != 0) fail(temp.path.string(), errno);
    }
    write_all(temp.fd, content);
    if (::fsync(temp.fd) != 0) fail(temp.path.string(), errno);
    if (::close(std::exchange(temp.fd, -1)) != 0 && errno != EINTR) fail(temp.path.string(), errno);
    if (::rename(temp.path.c_str(), resolved_.c_str()) != 0) {
        // A file bind-mounted on the same device: it cannot be replaced, only written.
        if (errno == EBUSY && replacing) {
            write_in_place(content);
            return;  // the guard removes the temporary file
        }
        fail(resolved_.string(), errno);
    }
    temp.path.clear();  // renamed: nothing to remove
}

void OutputTarget::remove_temporary_file_on_signals() {
    struct sigaction action {};
    action.sa_handler = remove_temporary_and_reraise;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ}) ::sigaction(sig, &action, nullptr);
}

}  // namespace vmafx
