// vmafx: score a distorted video against its reference, with upstream libvmaf's `vmaf` flags.
//
// Exit status: 0 success (also --help and --version); 2 a usage error, anything wrong with the
// command line itself (vmafx::UsageError, CLI11's parse errors); 1 every other error (files,
// model files, decoding, output, internal).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "base/build_info.hpp"
#include "base/trace.hpp"
#include "engine/engine.hpp"
#include "engine/presets.hpp"
#include "feature/corners.hpp"
#include "feature/registry.hpp"
#include "gpu/device_api.hpp"
#include "gpu/twin.hpp"
#include "io/av_reader.hpp"
#include "io/video_reader.hpp"
#include "output/output_target.hpp"
#include "output/progress.hpp"
#include "output/writers.hpp"
#include "html_report.hpp"
#include "multi_gpu.hpp"

namespace {

/// The progress bar of a run on a terminal (none with -q or when standard error is not one).
std::optional<vmafx::ProgressBar> progress_bar;

/// "\n" while a progress line is on the terminal without its newline (an error message then
/// starts on a line of its own), else "".
const char* after_progress() { return progress_bar && progress_bar->open() ? "\n" : ""; }

constexpr int kExitError = 1;  ///< files, model files, decoding, output, internal errors
constexpr int kExitUsage = 2;  ///< anything wrong with the command line itself

/// A CLI11 check that a value is a whole number in lo..hi, read as upstream's parse_unsigned
/// and CLI11 read it (C's strtoul with base 0: decimal, 0x hexadecimal, leading 0 octal) but
/// without the sign strtoul accepts and wraps around ("-1" would become 4294967295, and
/// CLI11 takes "-18446744073709551615" as 1) and without wrapping values above hi.
CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            const auto wrong = [&] { return fmt::format("expected a whole number {}..{}, not \"{}\"", lo, hi, text); };
            if (text.empty() || text[0] < '0' || text[0] > '9') return wrong();
            errno = 0;
            char* end = nullptr;
            const unsigned long long v = std::strtoull(text.c_str(), &end, 0);
            if (*end != '\0') return wrong();
            if (errno == ERANGE || v < lo || v > hi) return fmt::format("{} is out of range {}..{}", text, lo, hi);
            return {};
        },
        fmt::format("{}..{}", lo, hi));
}

/// The command line as given: CLI11 fills these, then to_job() checks and converts them.
struct CliArgs {
    std::string ref, dist, pix_fmt, output, html, precision, backend = "cpu", align = "frames", gpu;
    unsigned width = 0, height = 0, bit_depth = 0, cpumask = 0;
    std::vector<std::string> model_args, feature_args, aom_ctc, nflx_ctc;
    vmafx::RunConfig cfg;  ///< the plain numbers and flags go straight here
    bool xml = false, json = false, csv = false, sub = false, quiet = false, version = false;
    bool list_option_corners = false;  ///< hidden: print the option corners and exit
};

/// Declares every flag of upstream's `vmaf` tool (and vmafx's own) on `app`, bound to `a`.
void add_flags(CLI::App& app, CliArgs& a) {
    using namespace vmafx;
    app.set_help_flag("--help", "print this help and exit");
    app.footer("Exit status: 0 success; 1 an error (files, model files, decoding, output); 2 a usage error "
               "(anything wrong with the command line itself).");
    app.add_option("-r,--reference", a.ref, "reference video: .y4m, raw .yuv with -w -h -p -b, or any file "
                                            "FFmpeg's libraries decode (.mp4, .mkv, ...); - for standard input");
    app.add_option("-d,--distorted", a.dist, "distorted video: .y4m, raw .yuv with -w -h -p -b, or any file "
                                             "FFmpeg's libraries decode (.mp4, .mkv, ...); - for standard input");
    app.add_option("--align", a.align, "how frames are paired: frames (by position, the default) or pts (by "
                                       "presentation time, within half a frame; frames without a partner are "
                                       "dropped with a warning; decoded video only)")
        ->check(CLI::IsMember({"frames", "pts"}));
    app.add_option("--scale-dist", a.cfg.scale_dist,
                   "scale a distorted video of another size to the reference's with libswscale, as ffmpeg "
                   "-vf scale=W:H:flags=ALGO does: bicubic, bilinear, lanczos, spline, neighbor, area, gauss, "
                   "sinc, fast_bilinear, bicublin (+accurate_rnd, ... may follow)");
    app.add_option("-w,--width", a.width, "width of raw .yuv input, in luma samples")
        ->check(whole_number(1, kMaxVideoSide));
    app.add_option("-h,--height", a.height, "height of raw .yuv input, in luma samples")
        ->check(whole_number(1, kMaxVideoSide));
    app.add_option("-p,--pixel_format", a.pix_fmt, "chroma subsampling of raw .yuv input: 420, 422 or 444");
    app.add_option("-b,--bitdepth", a.bit_depth, "bits per sample of raw .yuv input: 8 to 16 "
                                                 "(little-endian 16-bit words above 8)")
        ->check(whole_number(8, 16));
    app.add_option("-m,--model", a.model_args,
                   "model: version=NAME (built-in) or path=FILE.json, then :name=ALIAS, :disable_clip, "
                   ":enable_transform, :EXTRACTOR.OPTION=VALUE; repeatable (default: version=vmaf_v0.6.1)");
    app.add_option("--feature", a.feature_args, "extra feature extractor: NAME or NAME=opt=val:opt=val; repeatable");
    app.add_option("-o,--output", a.output, "output file: a regular file is replaced atomically (whole or not at "
                                            "all); a FIFO, device or socket is written in place; - is standard output");
    app.add_flag("--xml", a.xml, "write the output file as XML (default)");
    app.add_flag("--json", a.json, "write the output file as JSON");
    app.add_flag("--csv", a.csv, "write the output file as CSV");
    app.add_flag("--sub", a.sub, "write the output file as subtitles");
    app.add_option("--precision", a.precision,
                   "decimals of printed scores: N, or max (%.17g: parses back to the same double); "
                   "default: as libvmaf (6 decimals, 16 for tiny values)");
    std::vector<std::string> backends{vmafx::kCpuBackend};  // the CPU, then the twin registry's
    for (const vmafx::GpuBackendInfo& b : vmafx::gpu_backends()) backends.emplace_back(b.name);
    app.add_option("--backend", a.backend, "where the metrics run: cpu (the reference), or cuda or vulkan (GPU "
                                           "twins, bit-identical to the CPU; metrics without one run on the CPU); "
                                           "--gpu N picks the device")
        ->check(CLI::IsMember(backends));
    app.add_option("--gpu", a.gpu,
                   "with --backend cuda or vulkan: the GPU to run on, by its index in the backend's device list "
                   "(vmafx --version lists them; default: the backend's choice, vulkan: VMAFX_VULKAN_DEVICE=N where "
                   "set); or several, \"0,1\" or all: the frames are split into one contiguous part per GPU, each "
                   "scored by a process of its own with the frames its metrics need around it, and the parts are "
                   "joined, every value the one-GPU run's (files whose frame count is known: raw, y4m)");
    app.add_option("--decode", a.cfg.decode,
                   "where compressed videos decode with a GPU backend: cpu (the default), gpu (the GPU's "
                   "decoder, NVDEC with cuda, where it takes the stream; else the CPU, with a warning), auto "
                   "(the GPU's where the run is wholly on the GPU and the stream is supported, else the CPU)")
        ->transform(CLI::CheckedTransformer(
            std::map<std::string, vmafx::RunConfig::Decode>{{"cpu", vmafx::RunConfig::Decode::kCpu},
                                                            {"gpu", vmafx::RunConfig::Decode::kGpu},
                                                            {"auto", vmafx::RunConfig::Decode::kAuto}},
            CLI::ignore_case));
    app.add_option("--decode-sessions", a.cfg.decode_sessions,
                   "decoders of each compressed H.264 or HEVC file at once, each decoding its own segments "
                   "(cut at IDR pictures) of the video, on the GPU or the CPU; the frames and scores are one "
                   "decoder's (default 1)")
        ->check(whole_number(1, 16));
    app.add_option("--threads", a.cfg.threads, "worker threads, 0 (the default) for all cores; output does not "
                                               "depend on it")
        ->check(whole_number(0, kMaxThreads));
    app.add_option("--cpumask", a.cpumask, "accepted for libvmaf compatibility: vmafx's output does not depend "
                                           "on the CPU's instruction sets")
        ->check(whole_number(0, UINT_MAX));
    app.add_option("--frame_cnt", a.cfg.frame_count, "score at most N frames (the common prefix of both videos); "
                                                     "0: all")
        ->check(whole_number(0, UINT_MAX));
    app.add_option("--frame_skip_ref", a.cfg.frame_skip_ref, "skip the first N frames of the reference")
        ->check(whole_number(0, UINT_MAX));
    app.add_option("--frame_skip_dist", a.cfg.frame_skip_dist, "skip the first N frames of the distorted video")
        ->check(whole_number(0, UINT_MAX));
    app.add_option("--subsample", a.cfg.subsample, "score every N-th frame only")->check(whole_number(1, UINT_MAX));
    app.add_option("--aom_ctc", a.aom_ctc, "AOM common test conditions: adds their models and features "
                                           "(v1.0 .. v7.0, as libvmaf)");
    app.add_option("--nflx_ctc", a.nflx_ctc, "Netflix common test conditions: adds their models and features "
                                             "(v1.0, as libvmaf)");
    app.add_flag("-n,--no_prediction", a.cfg.no_prediction, "extract features only, no model");
    app.add_flag("--provenance", a.cfg.provenance,
                 "also in a CPU run's JSON/XML: vmafx's version and commit, each model's SHA-256, each "
                 "metric's backend and contract (a GPU run's files always carry them, with the device)");
    app.add_option("--html", a.html, "also write the run's HTML report to this file (interactive per-frame "
                                      "charts, the worst frames' pictures, provenance; made by the Python "
                                      "package vmafx's report, docs/python.md)");
    app.add_flag("-q,--quiet", a.quiet, "no progress bar");
    app.add_flag("-v,--version", a.version, "print the version and exit");
    // Hidden (no help line): tools/option_corners.py reads the corners it scores from here.
    app.add_flag("--list-option-corners", a.list_option_corners,
                 "print every option corner of every metric whose oracle is libvmaf, one --feature "
                 "value a line (feature/corners.hpp), and exit")
        ->group("");
}

/// A checked command line: the run, where its output goes and how numbers print.
struct CliJob {
    vmafx::RunConfig cfg;
    std::optional<vmafx::OutputTarget> target;
    std::optional<vmafx::OutputTarget> html;  ///< --html's file
    vmafx::OutputFormat format = vmafx::OutputFormat::kXml;
    vmafx::NumberFormat numbers;
    bool quiet = false;
    std::vector<int> gpus;  ///< --gpu with several GPUs (one: cfg.gpu)
    std::optional<vmafx::cli::GpuPart> part;  ///< this process scores a part of a run on several GPUs
    char** argv = nullptr;  ///< the command line, for the parts of a run on several GPUs
};

/// The raw-input format of -w -h -p -b, when any is given (all are then needed).
std::optional<vmafx::VideoFormat> raw_format_of(const CliArgs& a, const CLI::App& app) {
    using namespace vmafx;
    const bool raw_given = app.count("--width") || app.count("--height") || app.count("--pixel_format") ||
                           app.count("--bitdepth");
    if (!raw_given) return std::nullopt;
    if (!(a.width && a.height && !a.pix_fmt.empty() && a.bit_depth))
        throw UsageError("raw .yuv input needs all of --width/-w, --height/-h, --pixel_format/-p, --bitdepth/-b");
    VideoFormat f;
    f.width = static_cast<int>(a.width);
    f.height = static_cast<int>(a.height);
    if (!parse_subsampling(a.pix_fmt, f.subsampling))
        throw UsageError(fmt::format("unknown pixel format \"{}\" (-p takes 420, 422 or 444)", a.pix_fmt));
    f.bit_depth = static_cast<int>(a.bit_depth);
    try {
        validate_video_format(f, "raw .yuv input (-w, -h, -b)");
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    return f;
}

/// --precision: N decimals 0..17, or max.
vmafx::NumberFormat number_format_of(const std::string& precision) {
    vmafx::NumberFormat nf;
    if (precision == "max") {
        nf.max_precision = true;
    } else if (!precision.empty()) {
        const auto [end, ec] = std::from_chars(precision.data(), precision.data() + precision.size(), nf.digits);
        if (ec != std::errc() || end != precision.data() + precision.size() || precision.front() == '-' ||
            nf.digits > 17)
            throw vmafx::UsageError(
                fmt::format("--precision \"{}\": expected a number of decimals 0..17 or max", precision));
    }
    return nf;
}

/// The -m and --feature values with the presets' models and features, in command-line order
/// (upstream's CLI applies each flag where it stands: a preset's models follow the -m before it).
vmafx::ModelAndFeatureArgs models_and_features_in_order(const CliArgs& a, const CLI::App& app) {
    using namespace vmafx;
    ModelAndFeatureArgs args;
    std::size_t model = 0, feature = 0, aom = 0, nflx = 0;
    for (const CLI::Option* opt : app.parse_order()) {
        if (opt->check_lname("model") && model < a.model_args.size()) {
            args.models.push_back(a.model_args[model++]);
        } else if (opt->check_lname("feature") && feature < a.feature_args.size()) {
            args.features.push_back(a.feature_args[feature++]);
        } else if (opt->check_lname("aom_ctc") && aom < a.aom_ctc.size()) {
            apply_preset(Preset::kAomCtc, a.aom_ctc[aom++], args);
        } else if (opt->check_lname("nflx_ctc") && nflx < a.nflx_ctc.size()) {
            apply_preset(Preset::kNflxCtc, a.nflx_ctc[nflx++], args);
        }
    }
    // Values given several to one flag (-m A B) follow in their order.
    args.models.insert(args.models.end(), a.model_args.begin() + model, a.model_args.end());
    args.features.insert(args.features.end(), a.feature_args.begin() + feature, a.feature_args.end());
    for (; aom < a.aom_ctc.size(); ++aom) apply_preset(Preset::kAomCtc, a.aom_ctc[aom], args);
    for (; nflx < a.nflx_ctc.size(); ++nflx) apply_preset(Preset::kNflxCtc, a.nflx_ctc[nflx], args);
    return args;
}

/// Checks everything on the command line before the run (a usage error exits with 2) and
/// turns it into the job: models, features, raw format, output target (a bad -o fails now,
/// not after hours of scoring; nothing is created or opened yet).
CliJob to_job(CliArgs& a, const CLI::App& app, bool gpu_part) {
    using namespace vmafx;
    if (a.ref.empty()) throw UsageError("the reference video (-r/--reference) is required");
    if (a.dist.empty()) throw UsageError("the distorted video (-d/--distorted) is required");
    if (app.count("--output") && a.output.empty()) throw UsageError("-o/--output needs a path (- for standard output)");
    CliJob job;
    job.cfg = a.cfg;
    job.cfg.raw_format = raw_format_of(a, app);
    job.numbers = number_format_of(a.precision);
    if (a.xml + a.json + a.csv + a.sub > 1) throw UsageError("choose one of --xml, --json, --csv, --sub");
    job.format = a.json ? OutputFormat::kJson : a.csv ? OutputFormat::kCsv : a.sub ? OutputFormat::kSub : OutputFormat::kXml;
    job.cfg.backend = a.backend;
    // A part of a run on several GPUs takes its GPU from the run that started it (cli::GpuPart),
    // and lists no devices itself: CUDA's runtime, once started, keeps every device visible.
    if (app.count("--gpu") && !gpu_part) {
        if (a.backend == kCpuBackend) throw UsageError("--gpu N needs a GPU backend (--backend cuda or vulkan)");
        std::vector<int> gpus = cli::parse_gpu_list(a.gpu, a.backend);
        if (gpus.size() == 1)
            job.cfg.gpu = gpus[0];
        else
            job.gpus = std::move(gpus);
    }
    job.cfg.align_pts = a.align == "pts";
    job.cfg.reference_path = a.ref;
    job.cfg.distorted_path = a.dist;
    const ModelAndFeatureArgs given = models_and_features_in_order(a, app);
    // Upstream's -n skips prediction only: the -m and preset models are still loaded and their
    // features extracted and written; the default model is added only when predicting.
    std::vector<std::string> model_args = given.models;
    if (model_args.empty() && !job.cfg.no_prediction) model_args.push_back("version=vmaf_v0.6.1");
    for (const auto& m : model_args) job.cfg.models.push_back(parse_model_spec(m));
    for (const auto& f : given.features) job.cfg.features.push_back(parse_feature_spec(f));
    if (!a.output.empty()) {
        job.target = OutputTarget::resolve(a.output);
        job.target->check();
    }
    if (app.count("--html") && !gpu_part) {
        if (a.html.empty()) throw UsageError("--html needs a path (- for standard output)");
        job.html = OutputTarget::resolve(a.html);
        job.html->check();
        if (job.target && job.target->kind() == job.html->kind() &&
            (job.html->kind() == OutputTarget::Kind::kDescriptor ? job.target->descriptor() == job.html->descriptor()
                                                                  : job.target->resolved() == job.html->resolved()))
            throw UsageError(fmt::format("-o {} and --html {} are the same file", a.output, a.html));
        vmafx::cli::check_html_report();
    }
    job.quiet = a.quiet;
    return job;
}

/// Prints each model's pooled score (upstream's "NAME: score" lines) on `to`.
void print_summary(const vmafx::RunResult& result, const vmafx::NumberFormat& nf, std::FILE* to) {
    using vmafx::format_number;
    for (const auto& m : result.models) {
        std::fprintf(to, "%s: %s\n", m.label.c_str(), format_number(m.mean, nf).c_str());
        if (m.bootstrap)
            std::fprintf(to, "%s: bagging %s, ci.p95: [%s, %s], stddev: %s\n", m.label.c_str(),
                         format_number(m.bagging, nf).c_str(), format_number(m.ci_lo, nf).c_str(),
                         format_number(m.ci_hi, nf).c_str(), format_number(m.stddev, nf).c_str());
    }
    if (std::fflush(to) != 0)
        throw vmafx::Error(fmt::format("cannot print the scores on standard {} ({})", to == stdout ? "output" : "error",
                                       std::strerror(errno)));
}

/// With --backend cuda: one line on standard error naming the backend of every metric (those
/// without a twin run on the CPU in the same run).
void print_backends(const vmafx::RunResult& result) {
    std::string line;
    for (const auto& b : result.backends)
        line += fmt::format("{}{} {}{}", line.empty() ? "" : ", ", b.feature, b.backend,
                            b.note.empty() ? "" : " (" + b.note + ")");
    for (const auto& d : result.decoding)
        line += fmt::format("; {} decoded on {}{}", d.video, d.decoder == vmafx::kCpuBackend ? "the CPU" : d.decoder,
                            d.sessions > 1 ? fmt::format(" by {} sessions ({} segments)", d.sessions, d.segments) : "");
    std::fprintf(stderr, "vmafx: backends: %s\n", line.c_str());
}

/// Runs the job: progress line on a terminal, the run, warnings, the output file, the summary.
int run_job(CliJob& job) {
    using namespace vmafx;
    // When the output file goes to standard output, the score summary goes to standard error.
    const bool output_on_stdout = (job.target && job.target->writes_to_standard_output()) ||
                                  (job.html && job.html->writes_to_standard_output());
    std::FILE* const summary = output_on_stdout ? stderr : stdout;
    job.cfg.notice = [](const std::string& n) {
        // A bar on screen is redrawn on the next line (its lines start with a carriage return).
        std::fprintf(stderr, "%svmafx: note: %s\n", after_progress(), n.c_str());
    };
    if (job.part) {
        // A part of a run on several GPUs (cli::run_on_gpus): its progress, its result or its
        // error go to the run that started this process, which draws the bar, writes the
        // outputs and prints the error.
        return cli::run_gpu_part(job.cfg, *job.part);
    }
    if (!job.quiet && isatty(STDERR_FILENO)) {
        progress_bar.emplace(stderr);
        job.cfg.progress = [](unsigned done, unsigned total) { progress_bar->update(done, total); };
    }
    // Several GPUs: the parts' processes score and report their frames to the bar; a run that
    // cannot be split runs here on the first GPU.
    std::optional<RunResult> on_gpus;
    if (!job.gpus.empty()) {
        on_gpus = cli::run_on_gpus(job.cfg, job.gpus, job.argv, job.cfg.notice);
        if (!on_gpus) job.cfg.gpu = job.gpus[0];
    }
    RunResult result = on_gpus ? std::move(*on_gpus) : run(job.cfg);
    if (progress_bar) progress_bar->finish(true);
    progress_bar.reset();
    for (const auto& w : result.warnings) std::fprintf(stderr, "vmafx: warning: %s\n", w.c_str());
    if (job.target) job.target->write(render_output(result, job.format, job.numbers));
    vmafx::trace::phase("output written");
    if (job.html) job.html->write(vmafx::cli::render_html_report(result, job.cfg));
    if (!job.quiet && result.backend != vmafx::kCpuBackend) print_backends(result);
    if (!job.quiet || !job.target) print_summary(result, job.numbers, summary);
    vmafx::trace::phase("summary printed");
    return 0;
}

/// The command line: parse, then run.
int run_cli(int argc, char** argv) {
    CLI::App app{"vmafx: perceptual video quality (VMAF), bit-identical to libvmaf 3.2.0", "vmafx"};
    CliArgs args;
    add_flags(app, args);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // CLI11 prints its message (or the help, whose code is 0) and says its own code.
        return app.exit(e) == 0 ? 0 : kExitUsage;
    }
    if (args.list_option_corners) {
        for (const vmafx::MetricDescriptor* m : vmafx::metric_registry())
            if (m->oracle.is_libvmaf())
                for (const std::string& corner : vmafx::option_corners(*m)) std::printf("%s\n", corner.c_str());
        return 0;
    }
    if (args.version) {
        std::printf("vmafx %s (commit %s; scores of libvmaf 3.2.0)\n", VMAFX_VERSION, vmafx::build_commit());
        std::string libav;
        try {
            libav = vmafx::libav_versions();
            libav = libav.empty() ? "not built (reads .y4m and raw YUV only)" : "FFmpeg's " + libav;
        } catch (const vmafx::Error& e) {
            libav = std::string("unavailable: ") + e.what();
        }
        std::printf("compressed input: %s\n", libav.c_str());
        // Which metrics each GPU backend computes on the GPU; the others run on the CPU.
        for (const vmafx::GpuBackendInfo& b : vmafx::gpu_backends()) {
            const std::string name = b.label;
            std::string twins;
            for (const vmafx::TwinDescriptor* t : vmafx::twin_registry(b.name))
                twins += std::string(twins.empty() ? "" : " ") + t->metric;
            if (!b.built || twins.empty())
                std::printf("%s backend: not built (--backend %s is refused)\n", name.c_str(), b.name);
            else
                std::printf("%s twins (--backend %s; other metrics run on the CPU): %s\n", name.c_str(), b.name,
                            twins.c_str());
            if (const vmafx::DeviceApi* api = vmafx::device_api(b.name)) {
                const std::vector<std::string> devices = api->list_devices();
                if (devices.empty())
                    std::printf("%s devices: none (%s)\n", name.c_str(), api->unavailable_reason().c_str());
                else
                    std::printf("%s devices:\n", name.c_str());
                for (std::size_t i = 0; i < devices.size(); ++i) std::printf("  %zu: %s\n", i, devices[i].c_str());
            }
        }
        return 0;
    }
    std::optional<vmafx::cli::GpuPart> part = vmafx::cli::gpu_part_from_environment();
    CliJob job = to_job(args, app, part.has_value());
    job.part = part;
    job.argv = argv;
    return run_job(job);
}

}  // namespace

int main(int argc, char** argv) {
    vmafx::trace::phase("main entered");  // VMAFX_TIMINGS: the clock's origin (the time before it: loading)
    // Standard output or error closed by the caller (">&-"): a file vmafx opens would take its
    // number and receive the score summary or messages. /dev/null holds the number instead.
    // (A closed standard input is left closed: "-" checks it and says so.)
    for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
        if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
        const int null = ::open("/dev/null", O_WRONLY);
        if (null < 0) return kExitError;
        if (null != fd) {
            if (::dup2(null, fd) < 0) return kExitError;
            ::close(null);
        }
    }
    // A reader that goes away (vmafx -o - ... | head) makes a write fail with EPIPE, which is
    // reported, instead of killing vmafx silently.
    std::signal(SIGPIPE, SIG_IGN);
    // Interrupted while an output file is written: its temporary file goes too.
    vmafx::OutputTarget::remove_temporary_file_on_signals();
    try {
        return run_cli(argc, argv);
    } catch (const vmafx::UsageError& e) {
        std::fprintf(stderr, "%svmafx: error: %s\nRun with --help for more information.\n",
                     after_progress(), e.what());
        return kExitUsage;
    } catch (const vmafx::Error& e) {
        std::fprintf(stderr, "%svmafx: error: %s\n", after_progress(), e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%svmafx: internal error: %s\n", after_progress(), e.what());
    }
    return kExitError;
}
