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
//  - read_pictures(path, raw, indices): frames of a video file as arrays (the report's pictures
//    of the worst frames), read by the readers the runs use.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/build_info.hpp"
#include "base/error.hpp"
#include "engine/engine.hpp"
#include "engine/pooling.hpp"
#include "engine/presets.hpp"
#include "io/video_reader.hpp"
#include "output/output_target.hpp"
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

/// Whether the interpreter is shutting down (read without the GIL). A daemon thread still scoring
/// then must not take the GIL again: the interpreter would end the thread inside this module's
/// frames (and the engine's worker threads), aborting the process.
bool finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing() != 0;
#else
    return _Py_IsFinalizing() != 0;
#endif
}

/// Frames held by Python: an iterator of (Y, Cb, Cr) tuples of 2D NumPy arrays (uint8 at 8 bits,
/// uint16 above; the planes' sizes the format's), or of 2D luma arrays alone (then a run that
/// needs chroma fails naming the video). Owned by run_scoring's frame on the Python side; read
/// by FrameReader under the GIL.
struct PythonFrames {
    std::string label;           ///< names the video in messages ("reference arrays", ...)
    VideoFormat format;
    py::object iterator;         ///< Python iterator of frames
    std::optional<unsigned> count;  ///< frames, when known (arrays); nullopt: a stream (an iterator)
    std::string identity;        ///< the stream identity of an iterator (two readers of one iterator clash)
};

/// A VideoReader over PythonFrames (RunConfig::open_reference / open_distorted): each read()
/// takes the GIL, asks the iterator for the next frame, checks its planes against the format
/// and copies them into the picture.
class FrameReader final : public VideoReader {
public:
    explicit FrameReader(PythonFrames& frames)
        : VideoReader(frames.label, frames.format, frames.count ? "" : frames.identity), frames_(frames) {}

    bool read(Picture& pic, PlaneSet which) override {
        if (finalizing()) throw Error(fmt::format("{}: frame {}: the Python interpreter is exiting", path(), index_));
        py::gil_scoped_acquire gil;
        py::object item;
        try {
            item = frames_.iterator.attr("__next__")();
        } catch (py::error_already_set& e) {
            if (e.matches(PyExc_StopIteration)) return false;
            throw Error(fmt::format("{}: frame {}: the frame iterator raised {}", path(), index_, e.what()));
        }
        if (!(pic.format == format())) pic = Picture(format());
        const int planes = which == PlaneSet::kLuma ? 1 : 3;
        py::sequence seq;
        if (py::isinstance<py::array>(item)) {
            if (planes == 3)
                throw Error(fmt::format("{}: frame {}: the run needs the chroma planes (Cb, Cr), but only luma "
                                        "arrays were given",
                                        path(), index_));
            copy_plane(py::reinterpret_borrow<py::array>(item), pic.planes[0], 0);
        } else {
            if (!py::isinstance<py::tuple>(item) && !py::isinstance<py::list>(item))
                throw Error(fmt::format("{}: frame {}: expected a (Y, Cb, Cr) tuple of arrays or a luma array, "
                                        "got {}",
                                        path(), index_, std::string(py::str(py::type::of(item).attr("__name__")))));
            seq = py::reinterpret_borrow<py::sequence>(item);
            if (seq.size() != 3)
                throw Error(fmt::format("{}: frame {}: expected 3 planes (Y, Cb, Cr), got {}", path(), index_,
                                        seq.size()));
            for (int p = 0; p < planes; ++p) {
                if (!py::isinstance<py::array>(seq[p]))
                    throw Error(fmt::format("{}: frame {}: plane {} is not a NumPy array", path(), index_, p));
                copy_plane(py::reinterpret_borrow<py::array>(seq[p]), pic.planes[p], p);
            }
        }
        ++index_;
        return true;
    }

    void skip(unsigned n) override {
        Picture scratch;
        for (unsigned i = 0; i < n; ++i)
            if (!read(scratch, PlaneSet::kLuma))
                throw Error(fmt::format("{}: cannot skip {} frames: it has only {}", path(), n, i));
    }

    std::optional<FrameCount> frame_count() const override {
        if (!frames_.count) return std::nullopt;
        return FrameCount{*frames_.count, ""};
    }

private:
    /// Copies the 2D array `a` into plane p of the picture, after checking its type and shape.
    void copy_plane(const py::array& a, Plane& plane, int p) const {
        static const char* const kNames[3] = {"Y", "Cb", "Cr"};
        const bool wide = format().bit_depth > 8;
        if (a.ndim() != 2 || a.shape(0) != plane.height() || a.shape(1) != plane.width())
            throw Error(fmt::format("{}: frame {}: plane {} has shape {}, expected ({}, {})", path(), index_, kNames[p],
                                    std::string(py::str(py::tuple(a.attr("shape")))), plane.height(), plane.width()));
        // By kind, size and byte order (an equal dtype need not be the same object: a pickled
        // array's is not); big-endian words are refused.
        const py::dtype t = a.dtype();
        const bool native = t.byteorder() == '=' || t.byteorder() == '|' || t.byteorder() == '<';
        const bool u8 = t.kind() == 'u' && t.itemsize() == 1;
        const bool u16 = t.kind() == 'u' && t.itemsize() == 2 && native;
        if (wide ? !u16 : !u8)
            throw Error(fmt::format("{}: frame {}: plane {} is {}, expected {} at {} bits", path(), index_, kNames[p],
                                    std::string(py::str(a.dtype())), wide ? "uint16" : "uint8", format().bit_depth));
        const std::size_t bytes = wide ? 2 : 1;
        const auto* base = static_cast<const unsigned char*>(a.data());
        for (int y = 0; y < plane.height(); ++y) {
            unsigned char* row = plane.row<unsigned char>(y);
            const unsigned char* src = base + y * a.strides(0);
            if (a.strides(1) == static_cast<py::ssize_t>(bytes)) {
                std::memcpy(row, src, bytes * static_cast<std::size_t>(plane.width()));
            } else {
                for (int x = 0; x < plane.width(); ++x)
                    std::memcpy(row + bytes * static_cast<std::size_t>(x), src + x * a.strides(1), bytes);
            }
        }
    }

    PythonFrames& frames_;
    unsigned index_ = 0;  ///< the next frame's number
};

/// The video `source`: a path (a str), or a PythonFrames spec from vmafx/__init__.py (a tuple:
/// label, (width, height, pixel_format, bit_depth), iterator, frame count or None).
std::optional<PythonFrames> frames_of(const py::object& source) {
    if (py::isinstance<py::bytes>(source) || py::isinstance<py::str>(source)) return std::nullopt;
    const auto spec = source.cast<std::tuple<std::string, std::tuple<int, int, std::string, int>, py::object,
                                             std::optional<unsigned>>>();
    PythonFrames f;
    f.label = std::get<0>(spec);
    const auto& [w, h, pix, bits] = std::get<1>(spec);
    f.format.width = w;
    f.format.height = h;
    if (!parse_subsampling(pix, f.format.subsampling))
        throw UsageError(f.label + ": unknown pixel format \"" + pix + "\" (expected 420, 422 or 444)");
    f.format.bit_depth = bits;
    try {
        validate_video_format(f.format, f.label);
    } catch (const UsageError&) {
        throw;
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    f.iterator = std::get<2>(spec);
    f.count = std::get<3>(spec);
    f.identity = fmt::format("python:{}", static_cast<const void*>(f.iterator.ptr()));
    return f;
}

/// Puts the models and features of the arguments with the presets' into `cfg`, in the CLI's
/// order (the presets after the models and features given by name).
void configure_metrics(RunConfig& cfg, const std::vector<std::string>& models, const std::vector<std::string>& features,
                       const std::vector<std::string>& aom_ctc, const std::vector<std::string>& nflx_ctc,
                       bool no_prediction) {
    ModelAndFeatureArgs args{models, features};
    for (const std::string& v : aom_ctc) apply_preset(Preset::kAomCtc, v, args);
    for (const std::string& v : nflx_ctc) apply_preset(Preset::kNflxCtc, v, args);
    for (const std::string& m : args.models) cfg.models.push_back(parse_model_spec(m));
    for (const std::string& f : args.features) cfg.features.push_back(parse_feature_spec(f));
    cfg.no_prediction = no_prediction;
}

/// The temporal context (engine.hpp temporal_context) of a run of these models and features:
/// (before, after), or None when no segment can be scored apart.
py::object context_of(const std::vector<std::string>& models, const std::vector<std::string>& features,
                      const std::vector<std::string>& aom_ctc, const std::vector<std::string>& nflx_ctc,
                      bool no_prediction) {
    RunConfig cfg;
    configure_metrics(cfg, models, features, aom_ctc, nflx_ctc, no_prediction);
    const TemporalContext c = temporal_context(cfg);
    if (c.whole_run) return py::none();
    return py::make_tuple(c.before, c.after);
}

/// The raw format of run()'s `raw` argument.
std::optional<VideoFormat> raw_format_of(const std::optional<std::tuple<int, int, std::string, int>>& raw) {
    if (!raw) return std::nullopt;
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
    return f;
}

/// (whole frames, damaged) of the video at `path` (raw geometry as run()'s): damaged when a
/// damaged frame follows the whole ones (a cut or malformed tail); None where the count is not
/// known without decoding it all (a stream, a compressed video: its container's count is an
/// estimate). Raises Error naming the file when it cannot be opened.
py::object frame_count_of(const std::string& path, const std::optional<std::tuple<int, int, std::string, int>>& raw) {
    const std::optional<VideoFormat> format = raw_format_of(raw);
    std::optional<FrameCount> count;
    {
        py::gil_scoped_release release;
        count = open_video(path, format)->frame_count();
    }
    if (!count) return py::none();
    return py::make_tuple(count->whole, !count->damage.empty());
}

/// The models and features of the arguments with the presets', in the CLI's order (the presets
/// after the models and features given by name; tools/vmafx_main.cpp orders them by the command
/// line).
RunHandle run_scoring(const py::object& reference, const py::object& distorted,
                      const std::vector<std::string>& models, const std::vector<std::string>& features,
                      const std::vector<std::string>& aom_ctc, const std::vector<std::string>& nflx_ctc,
                      const std::optional<std::tuple<int, int, std::string, int>>& raw, const std::string& backend,
                      unsigned threads, unsigned subsample, unsigned frame_count, unsigned frame_skip_ref,
                      unsigned frame_skip_dist, bool no_prediction, int gpu, bool provenance,
                      const std::string& align, const std::string& scale_dist,
                      const std::function<void(unsigned, unsigned)>& progress) {
    RunConfig cfg;
    // Frames held by Python (arrays, iterators), read under the GIL; they outlive the run, and
    // no Python object is copied while the GIL is released (the readers hold references to
    // these).
    std::optional<PythonFrames> ref_frames = frames_of(reference), dist_frames = frames_of(distorted);
    cfg.reference_path = ref_frames ? ref_frames->label : reference.cast<std::string>();
    cfg.distorted_path = dist_frames ? dist_frames->label : distorted.cast<std::string>();
    if (ref_frames) cfg.open_reference = [&ref_frames] { return std::make_unique<FrameReader>(*ref_frames); };
    if (dist_frames) cfg.open_distorted = [&dist_frames] { return std::make_unique<FrameReader>(*dist_frames); };
    cfg.raw_format = raw_format_of(raw);
    configure_metrics(cfg, models, features, aom_ctc, nflx_ctc, no_prediction);
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
            if (finalizing()) throw Error("the Python interpreter is exiting");
            py::gil_scoped_acquire gil;
            progress(done, total);
        };
    }
    RunResult result;
    std::exception_ptr failure;
    PyThreadState* const state = PyEval_SaveThread();  // the GIL released while the run goes
    try {
        result = run(cfg);
    } catch (...) {
        failure = std::current_exception();
    }
    // A daemon thread whose run ends while the interpreter exits never takes the GIL again (see
    // finalizing()): it waits here until the process is gone.
    while (finalizing()) std::this_thread::sleep_for(std::chrono::hours(1));
    PyEval_RestoreThread(state);
    if (failure) std::rethrow_exception(failure);
    return RunHandle(std::move(result));
}

/// The pictures of frames `indices` (ascending, numbered from the video's first frame) of the
/// video at `path` (raw geometry as run()'s), each a (Y, Cb, Cr) tuple of 2D arrays (uint8 at
/// 8 bits, uint16 above): what the report shows of the worst frames. Reads the video once, in
/// order, the GIL released. Raises Error naming the video when it cannot be read or ends before
/// the last index.
py::list read_pictures(const std::string& path, const std::optional<std::tuple<int, int, std::string, int>>& raw,
                       std::vector<unsigned> indices) {
    const std::optional<VideoFormat> raw_format = raw_format_of(raw);
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    std::vector<Picture> pictures(indices.size());
    {
        py::gil_scoped_release release;
        const std::unique_ptr<VideoReader> reader = open_video(path, raw_format);
        unsigned next = 0;  // the frame the reader is at
        for (std::size_t k = 0; k < indices.size(); ++k) {
            if (indices[k] > next) reader->skip(indices[k] - next);
            if (!reader->read(pictures[k], PlaneSet::kAll))
                throw Error(fmt::format("{}: has no frame {} (it ends after {} frames)", reader->path(), indices[k],
                                        indices[k]));
            next = indices[k] + 1;
        }
    }
    py::list out;
    for (const Picture& pic : pictures) {
        py::tuple planes(3);
        for (int p = 0; p < 3; ++p) {
            const Plane& plane = pic.planes[p];
            const auto bytes = static_cast<std::size_t>(plane.bytes_per_sample());
            py::array a = bytes == 1 ? py::array(py::dtype::of<std::uint8_t>(), {plane.height(), plane.width()})
                                     : py::array(py::dtype::of<std::uint16_t>(), {plane.height(), plane.width()});
            auto* dst = static_cast<unsigned char*>(a.mutable_data());
            for (int y = 0; y < plane.height(); ++y)
                std::memcpy(dst + static_cast<std::size_t>(y) * plane.width() * bytes, plane.row<unsigned char>(y),
                            static_cast<std::size_t>(plane.width()) * bytes);
            planes[p] = std::move(a);
        }
        out.append(std::move(planes));
    }
    return out;
}

/// The run of a whole video from its segments' runs: (handle, first, count) per part, in order
/// (engine.hpp stitch_runs).
RunHandle stitch(const std::vector<std::tuple<const RunHandle*, unsigned, unsigned>>& parts) {
    std::vector<RunPart> p;
    for (const auto& [h, first, count] : parts) p.push_back({&h->result(), first, count});
    return RunHandle(stitch_runs(p));
}

/// Raises `type` with `message`, decoded as UTF-8 with undecodable bytes (a path's) escaped.
void set_error(PyObject* type, const char* message) {
    PyObject* text = PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::strlen(message)), "backslashreplace");
    if (!text) return;  // the decoding's own error stays set
    PyErr_SetObject(type, text);
    Py_DECREF(text);
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
            set_error(usage_error.ptr(), e.what());
        } catch (const vx::Error& e) {
            set_error(error.ptr(), e.what());
        } catch (const vx::OutOfMemory& e) {
            set_error(PyExc_MemoryError, e.what());
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
        .def("write", &RunHandle::write, py::arg("path"), py::arg("format"), py::arg("precision") = -1)
        // Pickled as the engine's serialized run (doubles by their bits): a Dask worker's run
        // reaches the driver whole.
        .def(py::pickle([](const RunHandle& h) { return py::bytes(vx::serialize_run(h.result())); },
                        [](const py::bytes& b) { return RunHandle(vx::deserialize_run(std::string(b))); }));

    m.def("run", &run_scoring, py::arg("reference"), py::arg("distorted"), py::arg("models"), py::arg("features"),
          py::arg("aom_ctc"), py::arg("nflx_ctc"), py::arg("raw"), py::arg("backend"), py::arg("threads"),
          py::arg("subsample"), py::arg("frame_count"), py::arg("frame_skip_ref"), py::arg("frame_skip_dist"),
          py::arg("no_prediction"), py::arg("gpu"), py::arg("provenance"), py::arg("align"), py::arg("scale_dist"),
          py::arg("progress"),
          "One scoring run (engine/engine.hpp run()); the GIL is released while it runs. Raises UsageError "
          "(a ValueError) for bad arguments and Error for failed runs, naming the file or option.");
    m.def("stitch", &stitch, py::arg("parts"),
          "The run of a whole video from its segments' runs: a list of (RunHandle, first, count), in order; "
          "raises Error for parts that do not fit together.");
    m.def("temporal_context", &context_of, py::arg("models"), py::arg("features"), py::arg("aom_ctc"),
          py::arg("nflx_ctc"), py::arg("no_prediction"),
          "(before, after): the frames a segment's run must read around it for the whole video's values, or "
          "None when no segment can be scored apart (a run-wide aggregate).");
    m.def(
        "segment_run",
        [](unsigned first, unsigned end, unsigned frames, unsigned before, unsigned after) {
            if (first >= end || end > frames) throw vx::UsageError("segment_run: expected first < end <= frames");
            const vx::SegmentRun r = vx::segment_run(first, end, frames, vx::TemporalContext{before, after, false});
            return py::make_tuple(r.start, r.stop, r.keep_first, r.keep);
        },
        py::arg("first"), py::arg("end"), py::arg("frames"), py::arg("before"), py::arg("after"),
        "(start, end, first, keep): the run of segment [first, end) of a video of `frames` frames with its "
        "temporal context (engine.hpp segment_run): frames [start, end) are scored, and frames [first, first + "
        "keep) of that run are the segment's.");
    m.def("frame_count", &frame_count_of, py::arg("path"), py::arg("raw"),
          "(whole frames, damaged tail) of a video file, or None where only decoding it all would tell.");
    m.def(
        "write_file",
        [](const std::string& path, const py::bytes& content) {
            const std::string data(content);
            py::gil_scoped_release release;
            const vx::OutputTarget target = vx::OutputTarget::resolve(path);
            target.check();
            target.write(data);
        },
        py::arg("path"), py::arg("content"),
        "Writes a whole file as the command's -o does (output/output_target.hpp): a regular file replaced "
        "atomically, a FIFO, device or descriptor written in place, a symlink's target written; raises Error "
        "naming the path.");
    m.def(
        "gpu_devices", [](const std::string& backend) { return vx::gpu_devices(backend); }, py::arg("backend"),
        "The devices of GPU backend `backend` on this machine, in its order (the index gpu= names), each "
        "\"NAME\" or \"NAME (unusable: WHY)\"; empty where the backend or its driver is missing.");
    m.def("read_pictures", &read_pictures, py::arg("path"), py::arg("raw"), py::arg("indices"),
          "The (Y, Cb, Cr) arrays of frames `indices` of the video at `path` (the report's pictures); raises "
          "Error naming the video when it cannot be read or has fewer frames.");
}
