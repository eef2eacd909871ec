"""vmafx: perceptual video quality (VMAF and the metrics around it), bit-identical to upstream
Netflix libvmaf 3.2.0's CPU values, from Python.

    import vmafx
    result = vmafx.score("ref.y4m", "dist.y4m")          # the built-in vmaf_v0.6.1
    result.frames          # pandas DataFrame: one row per frame, one float64 column per output
    result.pooled          # pandas DataFrame: output x min/max/mean/harmonic_mean
    result.to_json()       # the bytes `vmafx -r ref.y4m -d dist.y4m --json -o FILE` writes

The scoring runs in vmafx's native core (the same function the `vmafx` command and the libvmaf
C API call), with the GIL released; every value is the command line's double, bit for bit.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Optional, Sequence, Union

from . import _vmafx

__all__ = ["score", "load", "report", "batch", "Result", "Error", "UsageError", "__version__"]

__version__ = _vmafx.__version__

#: A failed run: an unreadable or malformed file, a decoding error, no usable GPU... The message
#: names the file (or device) and the problem. Bad arguments raise ValueError instead (whose
#: vmafx subclass, vmafx.UsageError, is also an Error).
Error = _vmafx.Error
UsageError = _vmafx.UsageError

_PathLike = Union[str, os.PathLike]


def _path(value, what: str) -> bytes:
    """A file path for the native module, as the OS takes it (os.fsencode: any name the file
    system holds, UTF-8 or not). Raises ValueError for a NUL character, as open() does."""
    path = os.fspath(value)
    if (b"\0" if isinstance(path, bytes) else "\0") in path:
        raise UsageError(f"{what}: embedded null byte in the path {path!r}")
    return os.fsencode(path)


def _names(value, what: str) -> list:
    if value is None:
        return []
    if isinstance(value, str) or (what == "model" and isinstance(value, os.PathLike)):
        return [value]
    try:
        out = list(value)
    except TypeError:
        raise UsageError(f"{what}: expected a string or a sequence of strings, got {type(value).__name__}") from None
    for v in out:
        if not isinstance(v, str) and not (what == "model" and isinstance(v, os.PathLike)):
            raise UsageError(f"{what}: expected strings, got {type(v).__name__} {v!r}")
    return out


def _model_arg(model) -> bytes:
    """A model as the CLI's -m takes it: a built-in version ("vmaf_v0.6.1"), a model file's path
    (a path-like object, or a string ending in .json or holding a /), or the -m syntax itself
    ("version=...:name=...")."""
    if isinstance(model, os.PathLike):
        return b"path=" + _path(model, "model")
    if "=" in model:
        return _path(model, "model")
    if model.endswith(".json") or os.sep in model:
        return b"path=" + _path(model, "model")
    return _path("version=" + model, "model")


def _geometry(frame, which: str, bitdepth: Optional[int], pixel_format: Optional[str]):
    """(width, height, pixel_format, bit_depth) of one frame of arrays: a (Y, Cb, Cr) tuple of 2D
    arrays (the subsampling from the planes' shapes) or a 2D luma array (pixel_format, default
    "420", says what the video's chroma would be); uint8 is 8 bits, uint16 needs `bitdepth`."""
    import numpy as np

    planes = (frame,) if isinstance(frame, np.ndarray) else tuple(frame) if isinstance(frame, (tuple, list)) else None
    if planes is None or len(planes) not in (1, 3) or not all(isinstance(p, np.ndarray) for p in planes):
        raise UsageError(f"{which}: a frame must be a (Y, Cb, Cr) tuple of 2D NumPy arrays or a 2D luma array, "
                         f"got {type(frame).__name__}")
    for k, p in enumerate(planes):
        if p.ndim != 2:
            raise UsageError(f"{which}: plane {k} of a frame has {p.ndim} dimensions, expected 2 (height x width)")
    y = planes[0]
    height, width = y.shape
    if len(planes) == 3:
        ch, cw = planes[1].shape
        if planes[2].shape != planes[1].shape:
            raise UsageError(f"{which}: the Cb and Cr planes differ in shape: {planes[1].shape} and {planes[2].shape}")
        half_w, half_h = (width + 1) // 2, (height + 1) // 2
        shapes = {"444": (height, width), "422": (height, half_w), "420": (half_h, half_w)}
        fits = [pix for pix, shape in shapes.items() if shape == (ch, cw)]
        if not fits:
            raise UsageError(f"{which}: chroma planes of shape {(ch, cw)} fit no subsampling of a {height}x{width} "
                             f"luma plane (4:4:4 {shapes['444']}, 4:2:2 {shapes['422']}, 4:2:0 {shapes['420']})")
        if pixel_format is not None:
            if str(pixel_format) not in fits:
                raise UsageError(f"{which}: pixel_format {pixel_format!r} but the planes' shapes fit "
                                 f"{' or '.join(fits)}")
            pix = str(pixel_format)
        elif len(fits) > 1:  # e.g. one sample wide: 4:4:4 and 4:2:2 planes have one shape
            raise UsageError(f"{which}: the planes' shapes fit {' and '.join(fits)} alike: give pixel_format")
        else:
            pix = fits[0]
    else:
        pix = "420" if pixel_format is None else str(pixel_format)
    if y.dtype == np.uint8:
        if bitdepth not in (None, 8):
            raise UsageError(f"{which}: uint8 samples are 8 bits, but bitdepth={bitdepth}")
        bits = 8
    elif y.dtype == np.uint16:
        if bitdepth is None or not 9 <= bitdepth <= 16:
            raise UsageError(f"{which}: uint16 samples need bitdepth=9..16, got {bitdepth!r}")
        bits = bitdepth
    else:
        raise UsageError(f"{which}: samples must be uint8 (8 bits) or uint16 (9 to 16 bits), got {y.dtype}")
    return int(width), int(height), pix, int(bits)


def _video(source, which: str, bitdepth: Optional[int], pixel_format: Optional[str]):
    """What the native run reads for one video: a path (str), or the frames spec (label, geometry,
    iterator of frames, frame count or None) of NumPy arrays or a frame iterator."""
    import itertools

    import numpy as np

    if isinstance(source, (str, bytes, os.PathLike)):
        return _path(source, which)
    label = f"{which} frames"
    if isinstance(source, np.ndarray):  # luma alone, frames x height x width
        if source.ndim != 3:
            raise UsageError(f"{label}: a luma array must be frames x height x width, got shape {source.shape}")
        if source.shape[0] == 0:
            raise Error(f"{label}: no frame")
        return label, _geometry(source[0], label, bitdepth, pixel_format), iter(source), source.shape[0]
    if (isinstance(source, (tuple, list)) and len(source) == 3
            and all(isinstance(p, np.ndarray) and p.ndim == 3 for p in source)):
        counts = {p.shape[0] for p in source}
        if len(counts) != 1:
            raise UsageError(f"{label}: the Y, Cb and Cr arrays have different frame counts: "
                             f"{[p.shape[0] for p in source]}")
        count = counts.pop()
        if count == 0:
            raise Error(f"{label}: no frame")
        geometry = _geometry(tuple(p[0] for p in source), label, bitdepth, pixel_format)
        return label, geometry, zip(*source), count
    try:
        frames = iter(source)
    except TypeError:
        raise UsageError(f"{which}: expected a path, NumPy arrays or an iterable of frames, "
                         f"got {type(source).__name__}") from None
    try:
        first = next(frames, None)
    except Exception as e:
        raise Error(f"{label}: frame 0: the frame iterator raised {type(e).__name__}: {e}") from e
    if first is None:
        raise Error(f"{label}: the iterator gave no frame")
    return label, _geometry(first, label, bitdepth, pixel_format), itertools.chain([first], frames), None


def _label(video) -> str:
    """The name of a video as _video() gave it: its path, or its frames' label."""
    return os.fsdecode(video) if isinstance(video, bytes) else video[0]


def _count(value, what: str, lowest: int = 0, highest: int = 2**32 - 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{what}: expected a whole number, got {type(value).__name__} {value!r}")
    if value < lowest or value > highest:
        raise UsageError(f"{what}: {value} is out of range {lowest}..{highest}")
    return value


#: score()'s default model: vmaf_v0.6.1, as the CLI's, unless a preset (aom_ctc, nflx_ctc) names
#: the models, as the CLI adds its default only without -m and presets.
DEFAULT_MODEL = "vmaf_v0.6.1"


class _Default(str):
    """The model argument left at its default (DEFAULT_MODEL)."""


def score(
    ref: _PathLike,
    dist: _PathLike,
    model: Union[None, str, Sequence[str]] = _Default(DEFAULT_MODEL),
    features: Union[str, Sequence[str]] = (),
    *,
    backend: str = "cpu",
    threads: int = 0,
    subsample: int = 1,
    frames: Optional[int] = None,
    skip_ref: int = 0,
    skip_dist: int = 0,
    width: Optional[int] = None,
    height: Optional[int] = None,
    pixel_format: Optional[str] = None,
    bitdepth: Optional[int] = None,
    aom_ctc: Union[None, str, Sequence[str]] = None,
    nflx_ctc: Union[None, str, Sequence[str]] = None,
    gpu: Optional[int] = None,
    provenance: bool = False,
    align: str = "frames",
    scale_dist: Optional[str] = None,
    progress: Union[None, bool, Callable[[int, int], None]] = None,
) -> "Result":
    """Scores the distorted video `dist` against the reference `ref`.

    Each input is a file, as the `vmafx` command reads it: .y4m, raw .yuv (then `width`,
    `height`, `pixel_format` "420"/"422"/"444" and `bitdepth` 8..16 are all needed), or any
    container and codec FFmpeg decodes (where vmafx was built with FFmpeg's libraries). Or the
    pixels themselves:
      - a (Y, Cb, Cr) tuple of NumPy arrays, each frames x height x width (the chroma planes'
        shapes give the subsampling: 4:2:0 planes are ceil(h/2) x ceil(w/2), 4:2:2 h x ceil(w/2),
        4:4:4 h x w), uint8 at 8 bits or uint16 with `bitdepth` 9..16, samples as a raw .yuv file
        holds them;
      - a frames x height x width luma array alone (a run whose metrics read only luma, e.g.
        vmaf_v0.6.1; `pixel_format` names the chroma it would have, "420" by default);
      - an iterable of frames, each a (Y, Cb, Cr) tuple of 2D arrays or a 2D luma array, read
        one at a time (long videos: memory holds the frames in flight, not the video), e.g.
        a generator over a decoder's frames that yields each frame's three planes as arrays.
    The same pixels give the same values as the file, bit for bit.

    Arguments (the CLI's flags in brackets):
      model: built-in model versions ("vmaf_v0.6.1", "vmaf_4k_v0.6.1", "vmaf_v1.0.16_3d0h",
        ...), model file paths (.json), or the CLI's -m syntax ("version=vmaf_v0.6.1:name=v");
        one string or a sequence. None or () scores the features alone [-m, -n]. Left at its
        default (vmaf_v0.6.1) with a preset, the preset's models alone run, as in the CLI.
      features: extra metrics in the CLI's --feature syntax ("psnr", "float_ssim=enable_lcs=true").
      backend: "cpu" (the reference), "cuda" or "vulkan" (exact GPU twins; metrics without one
        run on the CPU in the same run) [--backend]; gpu: the device index [--gpu].
      threads: worker threads, 0 for all cores [--threads]; subsample: score every N-th frame
        [--subsample]; frames: score at most this many frame pairs [--frame_cnt]; skip_ref /
        skip_dist: frames skipped at the start [--frame_skip_ref, --frame_skip_dist].
      aom_ctc / nflx_ctc: the presets' versions ("v7.0", ...) [--aom_ctc, --nflx_ctc].
      align: "frames" (by position) or "pts" (by timestamp, decoded video) [--align];
      scale_dist: libswscale flags to scale a distorted video of another size ("bicubic")
        [--scale-dist]; provenance: put the run's provenance in the result files (a GPU run's
        always have it) [--provenance].
      progress: True for a progress bar (tqdm) on standard error, False for none, None (the
        default) for a bar where standard error is a terminal, as the CLI; or a callable
        progress(done, total) called as frame pairs are read (total 0 when unknown).

    Returns a Result. Raises ValueError (vmafx.UsageError) for a bad argument (an unknown model
    or feature, a bad option value, raw geometry incomplete) and vmafx.Error for a failed run
    (a missing or malformed file, different frame counts, no usable GPU), the message naming the
    file or option and the problem. Values are the CLI's doubles, bit for bit.
    """
    presets = _names(aom_ctc, "aom_ctc"), _names(nflx_ctc, "nflx_ctc")
    models = [] if isinstance(model, _Default) and (presets[0] or presets[1]) else _names(model, "model")
    feature_list = _names(features, "features")
    import numpy as np

    rereadable = (str, bytes, os.PathLike, np.ndarray, tuple, list)
    if ref is dist and not isinstance(ref, rereadable):
        raise UsageError("the reference and the distorted video are the same iterator: give each its own frames")
    ref_video = _video(ref, "reference", bitdepth, pixel_format)
    dist_video = _video(dist, "distorted", bitdepth, pixel_format)
    paths = isinstance(ref_video, bytes) or isinstance(dist_video, bytes)
    raw_given = [v is not None for v in (width, height, pixel_format, bitdepth)]
    if paths and any(raw_given) and not all(raw_given):
        raise UsageError("raw .yuv input needs all of width, height, pixel_format and bitdepth")
    for video in (ref_video, dist_video):
        if not isinstance(video, bytes) and (width, height) != (None, None) and (width, height) != video[1][:2]:
            raise UsageError(f"{video[0]}: width and height {width}x{height}, but the frames are "
                             f"{video[1][0]}x{video[1][1]}")
    raw = None
    if paths and all(raw_given):
        raw = (_count(width, "width", 1, 2**31 - 1), _count(height, "height", 1, 2**31 - 1), str(pixel_format),
               _count(bitdepth, "bitdepth", 1, 64))
    if backend not in ("cpu", "cuda", "vulkan"):
        raise UsageError(f'backend "{backend}": expected cpu, cuda or vulkan')
    if gpu is not None and backend == "cpu":
        raise UsageError("gpu needs a GPU backend (backend='cuda' or 'vulkan')")
    callback = None
    bar = None
    if not callable(progress) and not isinstance(progress, bool) and progress is not None:
        raise ValueError(f"progress: expected a bool or a callable, got {type(progress).__name__} {progress!r}")
    if progress is None:  # as the CLI: a bar where standard error is a terminal
        progress = bool(getattr(sys.stderr, "isatty", None) and sys.stderr.isatty())
    if callable(progress):
        callback = progress
    elif progress:
        from tqdm import tqdm  # only for the bar

        bar = tqdm(unit="frame", desc="vmafx")

        def callback(done: int, total: int) -> None:
            if total and bar.total != total:
                bar.total = total
            bar.update(done - bar.n)

    try:
        handle = _vmafx.run(
            ref_video, dist_video, [_model_arg(m) for m in models], feature_list,
            presets[0], presets[1], raw, backend,
            _count(threads, "threads"), _count(subsample, "subsample", 1),
            0 if frames is None else _count(frames, "frames", 1), _count(skip_ref, "skip_ref"),
            _count(skip_dist, "skip_dist"), not (models or presets[0] or presets[1]),
            -1 if gpu is None else _count(gpu, "gpu"),
            bool(provenance), align, scale_dist or "", callback)
    finally:
        if bar is not None:
            bar.close()
    result = Result(handle)
    # What the report needs to show the worst frames' pictures: the inputs as given (paths and
    # arrays can be read again; an iterator cannot, and the report says so).
    result._sources = {"reference": ref, "distorted": dist, "raw": raw, "skip_ref": skip_ref,
                       "skip_dist": skip_dist, "align": align,
                       "reference_name": _label(ref_video), "distorted_name": _label(dist_video)}
    return result


def load(path: _PathLike) -> "Result":
    """The Result of a JSON result file the `vmafx` command wrote (--json; --precision max gives
    back the run's exact doubles, the default "%.6f" rounded ones): frames, pooled, aggregate,
    and, where the file has its provenance (--provenance, or any GPU run), models, backends and
    provenance (without it, the output "vmaf", the built-in models' name, is taken as the
    model's where the file has it). Such a Result plots and reports (vmafx.report, without the
    worst frames' pictures: the file does not say where its inputs are); its
    to_json/to_xml/to_csv raise vmafx.Error (the file itself is its result file).

    Raises vmafx.Error naming the file when it cannot be read or is not a vmafx/libvmaf JSON
    result file."""
    name = os.fsdecode(_path(path, "result file"))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Error(f"{name}: cannot read the result file: {e.strerror}") from None
    return _load_document(data, name)


def _load_document(data: bytes, name: str) -> "Result":
    """load() of the bytes of a JSON result file; `name` names it in messages."""
    import json

    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise Error(f"{name}: not a JSON result file: {e}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("frames"), list):
        raise Error(f"{name}: not a JSON result file (no \"frames\" list)")
    return Result(None, doc=doc, origin=name)


class Result:
    """The scores of one run.

    Attributes:
      frames: pandas DataFrame, one row per scored frame (index "frame", the frame's number in
        the run), one float64 column per output under the result files' names (e.g. "vmaf",
        "integer_adm2", "psnr_y"); NaN where a frame has no value (e.g. psnr_hvs's chroma of a
        plane without an 8x8 block).
      pooled: pandas DataFrame, one row per output, columns min, max, mean, harmonic_mean
        (upstream's pooling, as in the result files).
      aggregate: dict of the run-wide metrics (e.g. psnr's apsnr_y), as the result files have them.
      models: list of dicts per model (label, name, pooled mean; bootstrap models also bagging,
        ci_lo, ci_hi, stddev).
      backends: pandas DataFrame, one row per metric instance: metric, feature, backend (where it
        ran), note, contract ("reference", "exact" or "bound B").
      provenance: dict (vmafx_version, commit, libvmaf, models with sha256, device).
      format: dict (width, height, bit_depth, pixel_format) of the scored pictures.
      warnings: list of what the run noticed but did not stop for.
      fps: frames scored per second of wall time.

    plot() draws the per-frame scores (matplotlib); report(path) writes the HTML report
    (vmafx.report); to_json(), to_xml() and to_csv() give the CLI's result files.
    """

    def __init__(self, handle, *, doc: Optional[dict] = None, origin: str = "") -> None:
        import pandas as pd

        self._handle = handle
        self._origin = origin
        self._sources = None
        if handle is None:
            self._from_document(doc, origin)
            return
        index = pd.Index(handle.frame_indices(), name="frame")
        self.frames = pd.DataFrame({name: values for name, values in handle.scores()}, index=index)
        pooled = {name: dict(methods) for name, methods in handle.pooled()}
        self.pooled = pd.DataFrame.from_dict(pooled, orient="index",
                                             columns=["min", "max", "mean", "harmonic_mean"])
        self.pooled.index.name = "output"
        self.aggregate = dict(handle.aggregates())
        self.models = handle.models()
        self.backends = pd.DataFrame(handle.backends(),
                                     columns=["metric", "feature", "backend", "note", "contract"])
        self.provenance = handle.provenance()
        self.format = handle.format()
        self.warnings = list(handle.warnings)
        self.fps = handle.fps

    def _from_document(self, doc: dict, origin: str) -> None:
        """The attributes from a parsed JSON result file (vmafx.load)."""
        import numpy as np
        import pandas as pd

        try:
            numbers = [int(f["frameNum"]) for f in doc["frames"]]
            if len(set(numbers)) != len(numbers):
                raise ValueError("a frameNum is given twice")
            columns: dict = {}
            for k, f in enumerate(doc["frames"]):
                for name, value in f["metrics"].items():
                    columns.setdefault(name, np.full(len(numbers), np.nan))[k] = np.nan if value is None else value
            self.frames = pd.DataFrame(columns, index=pd.Index(numbers, name="frame"), dtype=np.float64)
            pooled = {name: {m: (np.nan if v is None else float(v)) for m, v in methods.items()}
                      for name, methods in doc.get("pooled_metrics", {}).items()}
            self.pooled = pd.DataFrame.from_dict(pooled, orient="index",
                                                 columns=["min", "max", "mean", "harmonic_mean"], dtype=np.float64)
            self.pooled.index.name = "output"
            self.aggregate = {k: (np.nan if v is None else float(v))
                              for k, v in doc.get("aggregate_metrics", {}).items()}
            p = doc.get("provenance", {})
            if not isinstance(p, dict) or not isinstance(p.get("device") or {}, dict):
                raise ValueError("a provenance or device that is not an object")
            # Without provenance (the command's default JSON) the models are unknown: "vmaf", the
            # built-in models' output name, where the file has it.
            sources = p.get("models") if p else ([{"name": "vmaf", "source": "vmaf"}] if "vmaf" in columns else [])
            self.models = [{"label": str(m["source"]), "name": str(m["name"]),
                            "mean": self.pooled.at[m["name"], "mean"] if m["name"] in self.pooled.index else np.nan}
                           for m in sources]
            self.backends = pd.DataFrame(
                [{"metric": "", "feature": k, "backend": v.get("backend", ""), "note": "",
                  "contract": v.get("contract", "")} for k, v in p.get("metrics", {}).items()],
                columns=["metric", "feature", "backend", "note", "contract"])
            self.provenance = ({"vmafx_version": p.get("vmafx", ""), "commit": p.get("commit", ""),
                                "libvmaf": p.get("libvmaf", ""),
                                "models": [{"name": m["name"], "label": m["source"], "sha256": m.get("sha256", "")}
                                           for m in p.get("models", [])],
                                "device": p.get("device")} if p else {})
            self.fps = float(doc.get("fps", 0.0))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise Error(f"{origin}: not a vmafx JSON result file: {type(e).__name__} {e}") from None
        self.format = {}
        self.warnings = []

    def __repr__(self) -> str:
        means = ", ".join(f"{m['name']}={m['mean']:.6f}" for m in self.models)
        return (f"<vmafx.Result {len(self.frames)} frames, {self.frames.shape[1]} outputs"
                f"{', ' + means if means else ''}>")

    def plot(self, outputs: Union[None, str, Sequence[str]] = None, ax=None):
        """A matplotlib figure of per-frame scores: one line per output (default: each model's
        score, or every output of a run without a model) against the frame number, each labelled
        with its pooled mean. `ax`: draw on these matplotlib axes instead of a new figure.
        Returns the Figure. Raises ValueError for an output the run does not have."""
        if ax is None:
            from matplotlib.figure import Figure  # no pyplot: no global state, no window

            fig = Figure(figsize=(10, 4), layout="constrained")
            ax = fig.subplots()
        else:
            fig = ax.figure
        names = _names(outputs, "outputs") or [m["name"] for m in self.models] or list(self.frames.columns)
        for name in names:
            if name not in self.frames.columns:
                raise ValueError(f"plot: no output {name!r} (the run has {', '.join(self.frames.columns)})")
            mean = self.pooled.at[name, "mean"] if name in self.pooled.index else float("nan")
            ax.plot(self.frames.index, self.frames[name], label=f"{name} (mean {mean:.3f})", linewidth=1.2)
        ax.set_xlabel("frame")
        ax.set_ylabel("score")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")
        return fig

    def report(self, path: _PathLike, **options) -> None:
        """vmafx.report(self, path, **options): the run's HTML report."""
        report(self, path, **options)

    def _render(self, fmt: str, path: Optional[_PathLike], precision: Union[None, int, str]) -> Optional[str]:
        if precision is None:
            digits = -1
        elif precision == "max":
            digits = 18  # the native module's code for "%.17g"
        elif isinstance(precision, int) and not isinstance(precision, bool) and 0 <= precision <= 17:
            digits = precision
        else:
            raise ValueError(f"precision: expected None, 0..17 or 'max', got {precision!r}")
        if self._handle is None:
            raise Error(f"{self._origin}: a result loaded from a file is not rendered again (the file is its result)")
        if path is None:
            return self._handle.render(fmt, digits)
        self._handle.write(_path(path, "output"), fmt, digits)
        return None

    def to_json(self, path: Optional[_PathLike] = None, precision: Union[None, int, str] = None) -> Optional[str]:
        """The result file in upstream's JSON layout, the bytes `vmafx ... --json -o FILE` writes:
        returned as a str without `path`, else written to `path` (replaced atomically: it holds
        its old content or the whole new file) and None returned. precision: None for upstream's
        "%.6f", 0..17 decimals, or "max" ("%.17g", which parses back to the same double), as the
        CLI's --precision. Raises vmafx.Error naming the path when it cannot be written."""
        return self._render("json", path, precision)

    def to_xml(self, path: Optional[_PathLike] = None, precision: Union[None, int, str] = None) -> Optional[str]:
        """As to_json, in upstream's XML layout (the CLI's default, --xml)."""
        return self._render("xml", path, precision)

    def to_csv(self, path: Optional[_PathLike] = None, precision: Union[None, int, str] = None) -> Optional[str]:
        """As to_json, in upstream's CSV layout (--csv)."""
        return self._render("csv", path, precision)


from .report import report  # noqa: E402  (after Result and the helpers it imports)
from .batch import batch  # noqa: E402
