// A CLI run on several GPUs: multi_gpu.hpp.
#include "multi_gpu.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "gpu/device_api.hpp"
#include "io/video_reader.hpp"

extern char** environ;

namespace vmafx::cli {

namespace {

constexpr const char* kPartVariable = "VMAFX_GPU_PART";
constexpr int kResultFd = 3;  ///< the part's end of the pipe its result goes through

/// A whole number 0..4095 of `text` (the CLI's --gpu N range), or -1.
int gpu_index(const std::string& text) {
    if (text.empty() || text.size() > 4) return -1;
    int v = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return -1;
        v = v * 10 + (c - '0');
    }
    return v <= 4095 ? v : -1;
}

/// Why `config` cannot be split into parts (empty: it can), and the frames to score after the
/// skips and the temporal context when it can.
std::string plan(const RunConfig& config, unsigned& frames, TemporalContext& context) {
    if (config.subsample != 1) return "--subsample scores every N-th frame of the whole run";
    if (config.align_pts) return "--align pts pairs frames by time over the whole videos";
    if (!config.scale_dist.empty()) return "--scale-dist";
    if (config.open_reference || config.open_distorted) return "a video read from memory";
    // Files the parts would each read (a model from a pipe can be read once) or each write
    // (cambi's heatmaps: one file per scale, every frame's rows at the frame's index).
    for (const ModelSpec& m : config.models) {
        struct stat st {};
        if (!m.path.empty() && (::stat(m.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)))
            return fmt::format("model file \"{}\" is not a regular file", m.path);
        for (const FeatureOverload& o : m.overloads)
            if (o.option == "heatmaps_path") return "cambi's heatmaps_path writes every frame's maps into one file";
    }
    for (const FeatureSpec& f : config.features)
        for (const auto& [name, value] : f.options)
            if (name == "heatmaps_path") return "cambi's heatmaps_path writes every frame's maps into one file";
    unsigned left[2] = {0, 0};
    const std::string* paths[2] = {&config.reference_path, &config.distorted_path};
    const unsigned skips[2] = {config.frame_skip_ref, config.frame_skip_dist};
    for (int i = 0; i < 2; ++i) {
        struct stat st {};
        if (*paths[i] != "-" && ::stat(paths[i]->c_str(), &st) != 0)
            return fmt::format("\"{}\" cannot be read: {}", *paths[i], std::strerror(errno));
        if (*paths[i] == "-" || !S_ISREG(st.st_mode))
            return fmt::format("\"{}\" is a stream (its frames can be read once only)", *paths[i]);
        const std::optional<FrameCount> count = open_video(*paths[i], config.raw_format)->frame_count();
        if (!count) return fmt::format("\"{}\"'s frame count is unknown without decoding it all", *paths[i]);
        if (!count->damage.empty()) return fmt::format("\"{}\" has a damaged tail", *paths[i]);
        if (count->whole <= skips[i])
            return fmt::format("\"{}\" has no frame{}", *paths[i], skips[i] ? " after the skip" : "");
        left[i] = count->whole - skips[i];
    }
    if (left[0] != left[1] && config.frame_count == 0) return "the videos have different frame counts";
    frames = std::min(left[0], left[1]);
    if (config.frame_count) frames = std::min(frames, config.frame_count);
    context = temporal_context(config);
    if (context.whole_run) return "a metric's value covers the whole run (psnr's aggregates)";
    return {};
}

// What a part writes to its pipe: messages of a tag byte, the payload's length (8 bytes, this
// machine's order: the same program reads them) and the payload.
constexpr char kProgressTag = 'P';  ///< the part's frames done (a 4-byte count)
constexpr char kResultTag = 'R';    ///< the part's run (serialize_run)
constexpr char kErrorTag = 'E';     ///< why the part failed (the message vmafx would print)
constexpr char kNoticeTag = 'N';    ///< a note of the first part's readers, for the run to print
constexpr std::size_t kHeader = 1 + sizeof(std::uint64_t);

/// Writes one message to the part's pipe, whole (progress and notes may come from different
/// threads of the run). Throws Error when the pipe cannot be written.
void send(char tag, const std::string& payload) {
    static std::mutex one_at_a_time;
    const std::lock_guard<std::mutex> lock(one_at_a_time);
    std::string bytes(kHeader, tag);
    const std::uint64_t size = payload.size();
    std::memcpy(bytes.data() + 1, &size, sizeof size);
    bytes += payload;
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(kResultFd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Error(fmt::format("--gpu: cannot hand the part's result on ({})", std::strerror(errno)));
        done += static_cast<std::size_t>(n);
    }
}

/// A started part: its process, the read end of its pipe, its bytes not yet taken as messages,
/// its last progress, its result or its error message.
struct Child {
    pid_t pid = -1;
    int fd = -1;
    std::string bytes, result, error;
    std::vector<std::string> notices;  ///< notes taken off `bytes`, not yet printed
    bool has_result = false, has_error = false;
    unsigned done_frames = 0;
    int status = 0;
    bool done = false;

    /// Takes the whole messages off `bytes`; false where one is not a part's message.
    bool take_messages() {
        std::size_t at = 0;
        while (bytes.size() - at >= kHeader) {
            std::uint64_t size = 0;
            std::memcpy(&size, bytes.data() + at + 1, sizeof size);
            if (size > bytes.size() - at - kHeader) break;
            const char tag = bytes[at];
            const std::string_view payload(bytes.data() + at + kHeader, static_cast<std::size_t>(size));
            if (tag == kProgressTag && size == sizeof(std::uint32_t)) {
                std::uint32_t frames = 0;
                std::memcpy(&frames, payload.data(), sizeof frames);
                done_frames = frames;
            } else if (tag == kResultTag && !has_result) {
                result.assign(payload);
                has_result = true;
            } else if (tag == kErrorTag) {
                error.assign(payload);
                has_error = true;
            } else if (tag == kNoticeTag) {
                notices.emplace_back(payload);
            } else {
                return false;
            }
            at += kHeader + static_cast<std::size_t>(size);
        }
        bytes.erase(0, at);
        return true;
    }
};

/// Stops every part still running (SIGTERM, by its process id) and waits for each.
void stop_all(std::vector<Child>& children) {
    for (Child& c : children)
        if (c.pid > 0 && !c.done) ::kill(c.pid, SIGTERM);
    for (Child& c : children) {
        if (c.fd >= 0) ::close(c.fd);
        c.fd = -1;
        if (c.pid > 0 && !c.done) {
            while (::waitpid(c.pid, &c.status, 0) < 0 && errno == EINTR) {
            }
            c.done = true;
        }
    }
}

std::string status_text(int status) {
    if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return fmt::format("signal {}", WTERMSIG(status));
    return "an unknown status";
}

}  // namespace

std::vector<int> parse_gpu_list(const std::string& spec, const std::string& backend) {
    std::vector<int> gpus;
    if (spec == "all") {
        const DeviceApi* api = device_api(backend);
        const std::vector<std::string> devices = api ? api->list_devices() : std::vector<std::string>{};
        for (std::size_t i = 0; i < devices.size(); ++i)
            if (devices[i].find("(unusable") == std::string::npos) gpus.push_back(static_cast<int>(i));
        if (gpus.empty())
            throw Error(fmt::format("--gpu all: the {} backend has no usable device{}", backend,
                                    api ? " (" + api->unavailable_reason() + ")" : ""));
        return gpus;
    }
    std::size_t at = 0;
    for (;;) {
        const std::size_t comma = spec.find(',', at);
        const int gpu = gpu_index(spec.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
        if (gpu < 0)
            throw UsageError(fmt::format("--gpu \"{}\": expected all, a device index 0..4095, or indices separated "
                                         "by commas (0,1)",
                                         spec));
        gpus.push_back(gpu);
        if (comma == std::string::npos) return gpus;
        at = comma + 1;
    }
}

std::optional<GpuPart> gpu_part_from_environment() {
    const char* value = std::getenv(kPartVariable);
    if (!value) return std::nullopt;
    GpuPart part;
    unsigned notices = 0;
    long parent = 0;
    if (std::sscanf(value, "%d %u %u %u %ld", &part.gpu, &part.start, &part.count, &notices, &parent) != 5 ||
        part.count == 0)
        throw Error(fmt::format("{}=\"{}\": not a part of a multi-GPU run", kPartVariable, value));
    part.notices = notices != 0;
    // Stopped with the run that started it, should that one go away first (and not passed on to
    // what this process starts).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != static_cast<pid_t>(parent))
        throw Error(fmt::format("{} is set, but this process was not started by the run it names (process {})",
                                kPartVariable, parent));
    ::unsetenv(kPartVariable);
    return part;
}

int run_gpu_part(RunConfig config, const GpuPart& part) {
    config.gpu = part.gpu;
    config.frame_skip_ref += part.start;
    config.frame_skip_dist += part.start;
    config.frame_count = part.count;
    // The frames done, for the run's progress bar: at most every 50 ms, and the last frame.
    auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    config.progress = [&last](unsigned done, unsigned total) {
        const auto now = std::chrono::steady_clock::now();
        if (done != total && now - last < std::chrono::milliseconds(50)) return;
        last = now;
        const std::uint32_t count = done;
        send(kProgressTag, std::string(reinterpret_cast<const char*>(&count), sizeof count));
    };
    // The first part's notes go to the run, which prints them over its progress bar.
    config.notice = [notices = part.notices](const std::string& n) {
        if (notices) send(kNoticeTag, n);
    };
    std::string message;
    try {
        send(kResultTag, serialize_run(run(config)));
        ::close(kResultFd);
        return 0;
    } catch (const Error& e) {
        message = e.what();
    } catch (const std::exception& e) {
        message = std::string("internal error: ") + e.what();
    }
    send(kErrorTag, message);
    ::close(kResultFd);
    return 1;
}

std::optional<RunResult> run_on_gpus(const RunConfig& config, const std::vector<int>& gpus, char** argv,
                                     const std::function<void(const std::string&)>& notice) {
    std::string list;
    for (const int g : gpus) list += fmt::format("{}{}", list.empty() ? "" : ",", g);
    unsigned frames = 0;
    TemporalContext context;
    if (const std::string why = plan(config, frames, context); !why.empty()) {
        notice(fmt::format("--gpu {}: the run cannot be split into parts ({}); it runs on GPU {} alone", list, why,
                           gpus[0]));
        return std::nullopt;
    }
    const unsigned parts = static_cast<unsigned>(std::min<std::size_t>(gpus.size(), frames));
    if (parts < 2) {
        notice(fmt::format("--gpu {}: one frame to score; it runs on GPU {} alone", list, gpus[0]));
        return std::nullopt;
    }
    // A device index beyond the backend's devices fails here, once, not in every part.
    if (const DeviceApi* api = device_api(config.backend)) {
        const std::size_t devices = api->list_devices().size();
        for (const int g : gpus)
            if (static_cast<std::size_t>(g) >= devices)
                throw Error(fmt::format("--gpu {}: GPU index {} names no {} device ({} here; vmafx --version lists "
                                        "them)",
                                        list, g, config.backend, devices));
    }
    std::vector<SegmentRun> runs;
    std::string where;
    for (unsigned k = 0; k < parts; ++k) {
        const auto first = static_cast<unsigned>(std::uint64_t(frames) * k / parts);
        const auto end = static_cast<unsigned>(std::uint64_t(frames) * (k + 1) / parts);
        runs.push_back(segment_run(first, end, frames, context));
        where += fmt::format("{}{} on GPU {}", k == 0 ? "" : k + 1 == parts ? " and " : ", ",
                             end - first == 1 ? fmt::format("frame {}", first)
                                              : fmt::format("frames {} to {}", first, end - 1),
                             gpus[k]);
    }
    notice(fmt::format("--gpu {}: {} ({})", list, where,
                       context.before + context.after == 0
                           ? "no part needs frames around it"
                           : fmt::format("each part reads {} frame{} before and {} after it, as its metrics need",
                                         context.before, context.before == 1 ? "" : "s", context.after)));

    std::vector<std::string> env_text;
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, kPartVariable, std::strlen(kPartVariable)) != 0 ||
            (*e)[std::strlen(kPartVariable)] != '=')
            env_text.emplace_back(*e);
    const auto started = std::chrono::steady_clock::now();
    const std::function<void(unsigned, unsigned)>& progress = config.progress;
    std::vector<Child> children(parts);
    try {
        for (unsigned k = 0; k < parts; ++k) {
            int pipe_fds[2];
            if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
                throw Error(fmt::format("--gpu {}: cannot make a pipe ({})", list, std::strerror(errno)));
            children[k].fd = pipe_fds[0];
            std::vector<std::string> env = env_text;
            env.push_back(fmt::format("{}={} {} {} {} {}", kPartVariable, gpus[k], runs[k].start,
                                      runs[k].stop - runs[k].start, k == 0 ? 1 : 0, static_cast<long>(::getpid())));
            std::vector<char*> envp;
            for (std::string& e : env) envp.push_back(e.data());
            envp.push_back(nullptr);
            posix_spawn_file_actions_t actions;
            posix_spawn_file_actions_init(&actions);
            posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], kResultFd);  // dup2 clears O_CLOEXEC
            pid_t pid = -1;
            // This very program, even if its file was replaced or removed since it started.
            const int r = ::posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv, envp.data());
            posix_spawn_file_actions_destroy(&actions);
            ::close(pipe_fds[1]);
            if (r != 0) throw Error(fmt::format("--gpu {}: cannot start the part on GPU {} ({})", list, gpus[k],
                                                std::strerror(r)));
            children[k].pid = pid;
        }
        // Each part's result, read as it comes (a part blocked on a full pipe would never end).
        for (unsigned open = parts; open > 0;) {
            std::vector<pollfd> fds;
            for (const Child& c : children)
                if (c.fd >= 0) fds.push_back({c.fd, POLLIN, 0});
            if (::poll(fds.data(), fds.size(), -1) < 0) {
                if (errno == EINTR) continue;
                throw Error(fmt::format("--gpu {}: cannot wait for the parts ({})", list, std::strerror(errno)));
            }
            for (const pollfd& p : fds) {
                if (!p.revents) continue;
                Child& c = *std::find_if(children.begin(), children.end(), [&](const Child& x) { return x.fd == p.fd; });
                char buffer[65536];
                const ssize_t n = ::read(c.fd, buffer, sizeof buffer);
                if (n < 0 && errno == EINTR) continue;
                const auto k = static_cast<unsigned>(&c - children.data());
                const auto failed = [&](const std::string& why) {
                    return Error(fmt::format("--gpu {}: the part of frames {} to {} on GPU {} failed: {}", list,
                                             runs[k].start + runs[k].keep_first,
                                             runs[k].start + runs[k].keep_first + runs[k].keep - 1, gpus[k], why));
                };
                if (n > 0) {
                    c.bytes.append(buffer, static_cast<std::size_t>(n));
                    if (!c.take_messages()) throw failed("it wrote what no part writes");
                    for (const std::string& n : c.notices) notice(n);
                    c.notices.clear();
                    if (progress) {  // the frames each part has scored of those it keeps
                        unsigned done = 0;
                        for (unsigned x = 0; x < parts; ++x)
                            done += std::min(runs[x].keep, children[x].done_frames -
                                                               std::min(children[x].done_frames, runs[x].keep_first));
                        progress(done, frames);
                    }
                    continue;
                }
                ::close(c.fd);  // the end of the part's messages, or of the part
                c.fd = -1;
                --open;
                while (::waitpid(c.pid, &c.status, 0) < 0 && errno == EINTR) {
                }
                c.done = true;
                // The part's own message, once (every other part is stopped), else how it ended.
                if (c.has_error) throw failed(c.error.empty() ? "(an error without a message)" : c.error);
                if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 || !c.has_result || !c.bytes.empty())
                    throw failed(fmt::format("{}{}", status_text(c.status),
                                             c.has_result ? "" : ", before it handed on its result"));
            }
        }
    } catch (...) {
        stop_all(children);
        throw;
    }
    std::vector<RunResult> results;
    results.reserve(parts);
    for (const Child& c : children) results.push_back(deserialize_run(c.result));
    std::vector<RunPart> stitched;
    for (unsigned k = 0; k < parts; ++k) stitched.push_back({&results[k], runs[k].keep_first, runs[k].keep});
    RunResult result = stitch_runs(stitched);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    result.fps = seconds > 0 ? result.frames / seconds : 0.0;  // the parts ran at once
    return result;
}

}  // namespace vmafx::cli
