// vmafx._vmafx: the Python binding's native module (pybind11). It calls the one scoring core
// (engine/engine.hpp run(), the function the CLI and the C API call), so its values are theirs;
// python/vmafx/__init__.py builds the user-facing API (vmafx.score, Result) on top of it.
//
// Exposed:
//  - run(reference, distorted, models, features, ...) -> RunHandle: one scoring run, the GIL
//    released while it runs; errors become vmafx._vmafx.UsageError (a ValueError: a bad argument)
//    or vmafx._vmafx.Error (a RuntimeError: files, decoding, devices), each message naming the
//    file or option and the problem (the engine's own).
//  - RunHandle: the run's values as plain Python and NumPy objects (per-frame scores by printed
//    name, pooled values, aggregates, models, backends, provenance, warnings) and render(format,
//    precision) -> str, the CLI's output file byte for byte (output/writers.hpp render_output),
//    and write(path, format, precision), which writes it as the CLI's -o does (atomic
//    replacement: a file holds its old content or the whole new one).
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/build_info.hpp"
#include "base/error.hpp"
#include "engine/engine.hpp"
#include "engine/pooling.hpp"
#include "engine/presets.hpp"
#include "io/video_reader.hpp"
#include "output/writers.hpp"

namespace py = pybind11;

namespace vmafx::python {

namespace {

/// The name a score is printed under in the result files (RunResult::printed_names).
std::string printed_name(const RunResult& r, const std::string& name) {
    const auto it = r.printed_names.find(name);
    return it == r.printed_names.end() ? name : it->second;
}

OutputFormat format_of(const std::string& format) {
    if (format == "xml") return OutputFormat::kXml;
    if (format == "json") return OutputFormat::kJson;
    if (format == "csv") return OutputFormat::kCsv;
    if (format == "sub") return OutputFormat::kSub;
    throw UsageError("output format \"" + format + "\": expected xml, json, csv or sub");
}

/// precision: -1 upstream's default ("%.6f", more digits for tiny values), 0..17 decimals, or
/// 18 for "%.17g" (the CLI's --precision max).
NumberFormat numbers_of(int precision) {
    NumberFormat nf;
    if (precision == 18) nf.max_precision = true;
    else if (precision >= -1 && precision <= 17) nf.digits = precision;
    else throw UsageError("precision " + std::to_string(precision) + ": expected -1 (default), 0..17 or 18 (max)");
    return nf;
}

/// One finished run, as Python reads it.
class RunHandle {
public:
    explicit RunHandle(RunResult r) : r_(std::move(r)) {}

    /// The scored frames' indices (every subsample-th frame of the run).
    py::array_t<std::uint32_t> frame_indices() const {
        std::vector<std::uint32_t> idx;
        for (unsigned i = 0; i < r_.frames; i += r_.subsample) idx.push_back(i);
        return py::array_t<std::uint32_t>(static_cast<py::ssize_t>(idx.size()), idx.data());
    }

    /// (printed name, float64 array over frame_indices(); NaN where a frame has no value) per
    /// score, in the result files' order.
    std::vector<std::pair<std::string, py::array_t<double>>> scores() const {
        std::vector<std::pair<std::string, py::array_t<double>>> out;
        for (const std::string& name : r_.scores.names()) {
            std::vector<double> v;
            for (unsigned i = 0; i < r_.frames; i += r_.subsample)
                v.push_back(r_.scores.get(name, i).value_or(std::numeric_limits<double>::quiet_NaN()));
            out.emplace_back(printed_name(r_, name), py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data()));
        }
        return out;
    }

    /// (printed name, {"min", "max", "mean", "harmonic_mean"} -> value) per score, as the
    /// result files pool them (a method upstream leaves out is absent).
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> pooled() const {
        std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> out;
        for (const std::string& name : r_.scores.names()) {
            std::vector<std::pair<std::string, double>> methods;
            for (const PoolMethod m : {PoolMethod::kMin, PoolMethod::kMax, PoolMethod::kMean, PoolMethod::kHarmonicMean})
                if (const auto v = pool_score(r_.scores, name, m, r_.frames, r_.subsample))
                    methods.emplace_back(pool_method_name(m), *v);
            out.emplace_back(printed_name(r_, name), std::move(methods));
        }
        return out;
    }

    const std::vector<std::pair<std::string, double>>& aggregates() const { return r_.scores.aggregates(); }

    py::list models() const {
        py::list out;
        for (const ModelSummary& m : r_.models) {
            py::dict d;
            d["label"] = m.label;
            d["name"] = m.name;
            d["mean"] = m.mean;
            if (m.bootstrap) {
                d["bagging"] = m.bagging;
                d["ci_lo"] = m.ci_lo;
                d["ci_hi"] = m.ci_hi;
                d["stddev"] = m.stddev;
            }
            out.append(std::move(d));
        }
        return out;
    }

    py::list backends() const {
        py::list out;
        for (const MetricBackend& b : r_.backends) {
            py::dict d;
            d["metric"] = b.metric;
            d["feature"] = b.feature;
            d["backend"] = b.backend;
            d["note"] = b.note;
            d["contract"] = b.contract;
            out.append(std::move(d));
        }
        return out;
    }

    py::dict provenance() const {
        const Provenance& p = r_.provenance;
        py::dict d;
        d["vmafx_version"] = p.version;
        d["commit"] = p.commit;
        d["libvmaf"] = p.libvmaf;
        py::list models;
        for (const ModelSource& m : p.models) {
            py::dict md;
            md["name"] = m.name;
            md["label"] = m.label;
            md["sha256"] = m.sha256;
            models.append(std::move(md));
        }
        d["models"] = std::move(models);
        if (p.device) {
            py::dict dev;
            dev["name"] = p.device->name;
            dev["driver"] = p.device->driver;
            dev["compute_capability"] = p.device->compute_capability;
            dev["emulated"] = p.device->emulated;
            d["device"] = std::move(dev);
        } else {
            d["device"] = py::none();
        }
        return d;
    }

    py::dict format() const {
        py::dict d;
        d["width"] = r_.format.width;
        d["height"] = r_.format.height;
        d["bit_depth"] = r_.format.bit_depth;
        d["pixel_format"] = subsampling_name(r_.format.subsampling);
        return d;
    }

    std::string render(const std::string& format, int precision) const {
        return render_output(r_, format_of(format), numbers_of(precision));
    }

    void write(const std::string& path, const std::string& format, int precision) const {
        write_output(r_, path, format_of(format), numbers_of(precision));
    }

    const RunResult& result() const { return r_; }

private:
    RunResult r_;
};

/// The models and features of the arguments with the presets', in the CLI's order (the presets
/// after the models and features given by name; tools/vmafx_main.cpp orders them by the command
/// line).
RunHandle run_scoring(const std::string& reference, const std::string& distorted,
                      const std::vector<std::string>& models, const std::vector<std::string>& features,
                      const std::vector<std::string>& aom_ctc, const std::vector<std::string>& nflx_ctc,
                      const std::optional<std::tuple<int, int, std::string, int>>& raw, const std::string& backend,
                      unsigned threads, unsigned subsample, unsigned frame_count, unsigned frame_skip_ref,
                      unsigned frame_skip_dist, bool no_prediction, int gpu, bool provenance,
                      const std::string& align, const std::string& scale_dist,
                      const std::function<void(unsigned, unsigned)>& progress) {
    RunConfig cfg;
    cfg.reference_path = reference;
    cfg.distorted_path = distorted;
    if (raw) {
        VideoFormat f;
        f.width = std::get<0>(*raw);
        f.height = std::get<1>(*raw);
        if (!parse_subsampling(std::get<2>(*raw), f.subsampling))
            throw UsageError("unknown pixel format \"" + std::get<2>(*raw) + "\" (expected 420, 422 or 444)");
        f.bit_depth = std::get<3>(*raw);
        try {
            validate_video_format(f, "raw .yuv input (width, height, bit depth)");
        } catch (const UsageError&) {
            throw;
        } catch (const Error& e) {
            throw UsageError(e.what());
        }
        cfg.raw_format = f;
    }
    ModelAndFeatureArgs args{models, features};
    for (const std::string& v : aom_ctc) apply_preset(Preset::kAomCtc, v, args);
    for (const std::string& v : nflx_ctc) apply_preset(Preset::kNflxCtc, v, args);
    for (const std::string& m : args.models) cfg.models.push_back(parse_model_spec(m));
    for (const std::string& f : args.features) cfg.features.push_back(parse_feature_spec(f));
    cfg.no_prediction = no_prediction;
    cfg.backend = backend;
    cfg.threads = threads;
    cfg.subsample = subsample;
    cfg.frame_count = frame_count;
    cfg.frame_skip_ref = frame_skip_ref;
    cfg.frame_skip_dist = frame_skip_dist;
    cfg.gpu = gpu;
    cfg.provenance = provenance;
    if (align != "frames" && align != "pts") throw UsageError("align \"" + align + "\": expected frames or pts");
    cfg.align_pts = align == "pts";
    cfg.scale_dist = scale_dist;
    if (progress) {
        // Called on the engine's reading thread: take the GIL for the Python callable.
        cfg.progress = [progress](unsigned done, unsigned total) {
            py::gil_scoped_acquire gil;
            progress(done, total);
        };
    }
    RunResult result;
    {
        py::gil_scoped_release nogil;
        result = run(cfg);
    }
    return RunHandle(std::move(result));
}

}  // namespace

}  // namespace vmafx::python

PYBIND11_MODULE(_vmafx, m) {
    using namespace vmafx::python;
    namespace vx = vmafx;
    m.doc() = "vmafx's native scoring core (use the vmafx package: vmafx.score)";
    // vmafx._vmafx.Error: a failed run (files, decoding, devices); UsageError: a bad argument
    // (also a ValueError, as Python's convention for bad arguments).
    static py::exception<vx::Error> error(m, "Error", PyExc_RuntimeError);
    static py::object usage_error = py::reinterpret_steal<py::object>(PyErr_NewException(
        "vmafx._vmafx.UsageError", py::make_tuple(error, py::handle(PyExc_ValueError)).ptr(), nullptr));
    m.attr("UsageError") = usage_error;
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const vx::UsageError& e) {
            PyErr_SetString(usage_error.ptr(), e.what());
        } catch (const vx::Error& e) {
            PyErr_SetString(error.ptr(), e.what());
        } catch (const vx::OutOfMemory& e) {
            PyErr_SetString(PyExc_MemoryError, e.what());
        }
    });
    m.attr("__version__") = VMAFX_VERSION;
    m.attr("commit") = vx::build_commit();

    py::class_<RunHandle>(m, "RunHandle", "One finished scoring run (vmafx.Result wraps it)")
        .def_property_readonly("frames", [](const RunHandle& h) { return h.result().frames; })
        .def_property_readonly("subsample", [](const RunHandle& h) { return h.result().subsample; })
        .def_property_readonly("backend", [](const RunHandle& h) { return h.result().backend; })
        .def_property_readonly("fps", [](const RunHandle& h) { return h.result().fps; })
        .def_property_readonly("warnings", [](const RunHandle& h) { return h.result().warnings; })
        .def("frame_indices", &RunHandle::frame_indices)
        .def("scores", &RunHandle::scores)
        .def("pooled", &RunHandle::pooled)
        .def("aggregates", &RunHandle::aggregates)
        .def("models", &RunHandle::models)
        .def("backends", &RunHandle::backends)
        .def("provenance", &RunHandle::provenance)
        .def("format", &RunHandle::format)
        .def("render", &RunHandle::render, py::arg("format"), py::arg("precision") = -1)
        .def("write", &RunHandle::write, py::arg("path"), py::arg("format"), py::arg("precision") = -1);

    m.def("run", &run_scoring, py::arg("reference"), py::arg("distorted"), py::arg("models"), py::arg("features"),
          py::arg("aom_ctc"), py::arg("nflx_ctc"), py::arg("raw"), py::arg("backend"), py::arg("threads"),
          py::arg("subsample"), py::arg("frame_count"), py::arg("frame_skip_ref"), py::arg("frame_skip_dist"),
          py::arg("no_prediction"), py::arg("gpu"), py::arg("provenance"), py::arg("align"), py::arg("scale_dist"),
          py::arg("progress"),
          "One scoring run (engine/engine.hpp run()); the GIL is released while it runs. Raises UsageError "
          "(a ValueError) for bad arguments and Error for failed runs, naming the file or option.");
}
