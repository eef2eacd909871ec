#include "html_report.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "output/writers.hpp"

extern char** environ;

namespace vmafx::cli {

namespace {

/// The interpreter: VMAFX_PYTHON, else the one the package was built for.
std::string python_executable() {
    const char* env = std::getenv("VMAFX_PYTHON");
    return env && *env ? env : VMAFX_PYTHON_EXECUTABLE_PATH;
}

/// The folder holding the vmafx package that belongs to this executable: the build tree's
/// python/ beside it, or the install's site folder under its prefix; empty when neither has it
/// (the interpreter's own path is then searched: a pip-installed package).
std::string package_folder() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    for (const std::filesystem::path& dir :
         {exe.parent_path() / "python", exe.parent_path().parent_path() / VMAFX_PYTHON_INSTALL_SUBDIR})
        if (std::filesystem::is_regular_file(dir / "vmafx" / "report.py", ec)) return dir.string();
    return {};
}

/// The environment of the interpreter: this one's, with the package's folder ahead on PYTHONPATH.
std::vector<std::string> child_environment() {
    std::vector<std::string> env;
    const std::string folder = package_folder();
    const char* old = std::getenv("PYTHONPATH");
    for (char** e = environ; *e; ++e)
        if (folder.empty() || std::strncmp(*e, "PYTHONPATH=", 11) != 0) env.emplace_back(*e);
    if (!folder.empty()) {
        std::string path = "PYTHONPATH=" + folder;
        if (old && *old) path.append(":").append(old);
        env.push_back(std::move(path));
    }
    return env;
}

struct ChildOutput {
    int status = 0;        ///< waitpid's status
    std::string out, err;  ///< what it wrote on standard output (and error, when captured)
};

/// Runs `python args...` with `input` on its standard input, collecting its standard output
/// (and its standard error when `capture_errors`; else it goes to this process's). Reads and
/// writes together (poll), so neither side waits on a full pipe.
ChildOutput run_python(const std::vector<std::string>& args, const std::string& input, bool capture_errors) {
    const std::string python = python_executable();
    int in[2], out[2], err[2] = {-1, -1};
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || (capture_errors && ::pipe2(err, O_CLOEXEC) != 0))
        throw Error(fmt::format("--html: cannot make a pipe ({})", std::strerror(errno)));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    if (capture_errors) posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    std::vector<std::string> argv_s{python};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s = child_environment();
    std::vector<char*> envp;
    for (std::string& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = 0;
    // posix_spawnp: a bare name (VMAFX_PYTHON=python3) is looked for on PATH.
    const int rc = ::posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    if (capture_errors) ::close(err[1]);
    if (rc != 0) {
        ::close(in[1]);
        ::close(out[0]);
        if (capture_errors) ::close(err[0]);
        throw Error(fmt::format("--html: cannot run the Python interpreter {} ({}; VMAFX_PYTHON names another)", python,
                                std::strerror(rc)));
    }
    ChildOutput result;
    std::size_t written = 0;
    int to_child = in[1];
    if (input.empty()) {
        ::close(to_child);
        to_child = -1;
    }
    int from_out = out[0], from_err = capture_errors ? err[0] : -1;
    char buf[1 << 16];
    while (to_child >= 0 || from_out >= 0 || from_err >= 0) {
        pollfd fds[3];
        int n = 0;
        if (to_child >= 0) fds[n++] = {to_child, POLLOUT, 0};
        if (from_out >= 0) fds[n++] = {from_out, POLLIN, 0};
        if (from_err >= 0) fds[n++] = {from_err, POLLIN, 0};
        if (::poll(fds, static_cast<nfds_t>(n), -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < n; ++i) {
            if (!fds[i].revents) continue;
            if (fds[i].fd == to_child) {
                const ssize_t w = ::write(to_child, input.data() + written, input.size() - written);
                if (w > 0) written += static_cast<std::size_t>(w);
                if ((w < 0 && errno != EINTR && errno != EAGAIN) || written == input.size()) {
                    ::close(to_child);  // done, or the child stopped reading (EPIPE): it says why
                    to_child = -1;
                }
            } else {
                int& fd = fds[i].fd == from_out ? from_out : from_err;
                const ssize_t r = ::read(fd, buf, sizeof buf);
                if (r > 0) {
                    (fd == from_out ? result.out : result.err).append(buf, static_cast<std::size_t>(r));
                } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
                    ::close(fd);
                    fd = -1;
                }
            }
        }
    }
    for (const int fd : {to_child, from_out, from_err})
        if (fd >= 0) ::close(fd);
    while (::waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
    }
    return result;
}

std::string describe(int status) {
    if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return fmt::format("signal {}", WTERMSIG(status));
    return "an unknown status";
}

}  // namespace

void check_html_report() {
    const ChildOutput r = run_python({"-c", "import vmafx.report, plotly, PIL"}, "", true);
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) return;
    std::string said = r.err;
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    if (const auto nl = said.rfind('\n'); nl != std::string::npos) said = said.substr(nl + 1);
    throw Error(fmt::format("--html needs Python 3 with the vmafx package, plotly and Pillow (Debian: python3-plotly, "
                            "python3-pil; VMAFX_PYTHON names another interpreter): {} ended with {}{}",
                            python_executable(), describe(r.status), said.empty() ? "" : ": " + said));
}

std::string render_html_report(RunResult& result, const RunConfig& cfg) {
    // The run's exact values and provenance, whatever the -o file's options.
    const bool print = result.provenance.print;
    result.provenance.print = true;
    NumberFormat exact;
    exact.max_precision = true;
    const std::string json = render_output(result, OutputFormat::kJson, exact);
    result.provenance.print = print;

    const VideoFormat& f = result.format;
    std::vector<std::string> args{"-m", "vmafx", "report", "--result=-", "--output=-", "--format",
                                  std::to_string(f.width), std::to_string(f.height), subsampling_name(f.subsampling),
                                  std::to_string(f.bit_depth), "--skip-ref=" + std::to_string(cfg.frame_skip_ref),
                                  "--skip-dist=" + std::to_string(cfg.frame_skip_dist),
                                  std::string("--align=") + (cfg.align_pts ? "pts" : "frames")};
    // The report reads the pictures of the worst frames again from these, where they are
    // regular files (python/vmafx/report.py).
    args.push_back("--reference=" + cfg.reference_path);
    args.push_back("--distorted=" + cfg.distorted_path);
    if (cfg.raw_format) {
        const VideoFormat& r = *cfg.raw_format;
        for (const std::string& a : {std::string("--raw"), std::to_string(r.width), std::to_string(r.height),
                                     std::string(subsampling_name(r.subsampling)), std::to_string(r.bit_depth)})
            args.push_back(a);
    }
    for (const std::string& w : result.warnings) args.push_back("--warning=" + w);
    ChildOutput r = run_python(args, json, false);
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0 || r.out.empty())
        throw Error(fmt::format("--html: the report was not made ({} -m vmafx report ended with {})", python_executable(),
                                describe(r.status)));
    return std::move(r.out);
}

}  // namespace vmafx::cli
