"""vmafx.report: one self-contained HTML page a person reads about one run.

    result = vmafx.score("ref.y4m", "dist.y4m")
    vmafx.report(result, "report.html")
    # or from the command line, through this same code:  vmafx -r ref.y4m -d dist.y4m --html report.html

The page holds, with nothing fetched from elsewhere (plotly.js, the pictures and the styles are
inside it, so it opens offline and can be mailed or archived as one file):
  - the models' per-frame scores as an interactive plotly chart, each with its pooled mean, and
    every other output (the metrics' features) as a grid of small charts on the same frame axis;
  - the pooled values (min, max, mean, harmonic mean) of every output, at full precision in
    the cells' tooltips;
  - the worst frames (lowest score of the first model, or of `by`), and for the few worst the
    reference and distorted pictures side by side (PNG thumbnails, read again from the inputs);
  - the run's provenance: vmafx's version and commit, libvmaf's, each model's SHA-256, each
    metric's backend and contract, the device, the picture format, warnings.

`python3 -m vmafx report` is the entry point the `vmafx` command's --html calls (see main()).
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
from typing import Optional, Sequence, Union

__all__ = ["report"]

#: Thumbnails are at most this many samples wide (a 3840x2160 picture becomes 480x270).
THUMBNAIL_WIDTH = 480


def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def _shown(name) -> str:
    """A path as the page shows it: its bytes as UTF-8, undecodable ones replaced (a name the OS
    took with os.fsdecode's surrogate escapes cannot be written as UTF-8 otherwise)."""
    return os.fsencode(name).decode("utf-8", "replace") if isinstance(name, (str, bytes)) else str(name)


def _num(value: float, digits: int = 6) -> str:
    """A value as the table shows it ("%.6f"), its exact double ("%.17g") in the tooltip."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "<td>-</td>"
    return f'<td title="{value:.17g}">{value:.{digits}f}</td>'


def _rgb(planes, bit_depth: int):
    """A (height, width, 3) uint8 RGB picture of (Y, Cb, Cr) sample planes (or luma alone:
    grey), for display only: limited-range BT.709 (BT.601 below 720 lines), chroma repeated to
    the luma's size, then box-averaged down to at most THUMBNAIL_WIDTH samples wide."""
    import numpy as np

    y = np.asarray(planes[0], dtype=np.float32)
    h, w = y.shape
    scale = float(1 << (bit_depth - 8))
    yn = (y / scale - 16.0) / 219.0
    if len(planes) == 3:
        def up(c):
            c = np.asarray(c, dtype=np.float32)
            c = np.repeat(np.repeat(c, -(-h // c.shape[0]), axis=0), -(-w // c.shape[1]), axis=1)[:h, :w]
            return (c / scale - 128.0) / 224.0
        cb, cr = up(planes[1]), up(planes[2])
        kr, kb = (0.2126, 0.0722) if h >= 720 else (0.299, 0.114)
        kg = 1.0 - kr - kb
        r = yn + 2.0 * (1.0 - kr) * cr
        b = yn + 2.0 * (1.0 - kb) * cb
        g = (yn - kr * r - kb * b) / kg
        rgb = np.stack([r, g, b], axis=-1)
    else:
        rgb = np.repeat(yn[:, :, None], 3, axis=2)
    f = max(1, -(-w // THUMBNAIL_WIDTH))
    if f > 1:
        hh, ww = -(-h // f) * f, -(-w // f) * f
        rgb = np.pad(rgb, ((0, hh - h), (0, ww - w), (0, 0)), mode="edge")
        rgb = rgb.reshape(hh // f, f, ww // f, f, 3).mean(axis=(1, 3))
    return (np.clip(rgb, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)


def _png(rgb) -> str:
    """A data: URI of the picture as PNG (Pillow, which matplotlib itself uses)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _frame_pictures(source, raw, skip: int, indices: Sequence[int], bit_depth: int):
    """Frame pictures (by the run's frame number) of one input: a regular file read again by
    the native readers, or the NumPy arrays the run was given. None where the input cannot be
    read again (an iterator, a pipe or standard input, whose frames are gone: opening a FIFO
    again would wait for a writer)."""
    import numpy as np

    from . import _vmafx, _path

    wanted = [skip + int(i) for i in indices]
    if isinstance(source, (str, bytes, os.PathLike)):
        if os.fspath(source) in ("-", b"-") or not os.path.isfile(source):
            return None  # standard input, a pipe: its frames are gone
        read = _vmafx.read_pictures(_path(source, "report picture"), raw, wanted)
        by_index = dict(zip(sorted(set(wanted)), read))
        return [by_index[i] for i in wanted]
    if isinstance(source, np.ndarray):
        return [(source[i],) for i in wanted]
    if isinstance(source, (tuple, list)):
        if len(source) == 3 and all(isinstance(p, np.ndarray) and p.ndim == 3 for p in source):
            return [tuple(p[i] for p in source) for i in wanted]  # (Y, Cb, Cr) arrays
        # A list of frames: each a (Y, Cb, Cr) tuple or a 2D luma array.
        return [(source[i],) if isinstance(source[i], np.ndarray) else tuple(source[i]) for i in wanted]
    return None


def _figure_html(fig, first: bool) -> str:
    import plotly.io as pio

    return pio.to_html(fig, include_plotlyjs=first, full_html=False,
                       config={"displaylogo": False, "responsive": True})


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 1200px; padding: 0 16px; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f4f4f4; } td.name, th.name { text-align: left; font-family: monospace; }
.lede { color: #555; } .pair { display: flex; gap: 12px; flex-wrap: wrap; margin: 0.6em 0 1.2em; }
figure { margin: 0; } figcaption { font-size: 0.85em; color: #555; } .warn { color: #a40; }
"""


def report(result, path: Union[str, os.PathLike], *, by: Optional[str] = None, worst: int = 10,
           pictures: int = 3, title: Optional[str] = None) -> None:
    """Writes the HTML report of `result` (a vmafx.Result: from vmafx.score, or vmafx.load of a
    CLI result file) to `path`, replaced atomically (a failed report leaves the old file or
    none, never part of one).

    by: the output whose lowest per-frame values are the worst frames (default: the first
      model's score, or the first output of a run without a model); worst: how many worst frames
      the table lists; pictures: for how many of them the reference and distorted pictures are
      shown (0 for none; they are read again from the run's inputs: regular files, or the arrays
      or frame lists given to score(); where they cannot be, an iterator's frames, standard
      input, a pipe, a file gone or cut since the run, the page says why instead); title: the
      page's heading (default "ref vs dist").

    Raises ValueError for an unknown `by` or bad counts, vmafx.Error when the file cannot be
    written (naming it). `path` is written as the command's -o writes: a regular file replaced
    atomically, a FIFO or device written in place, a symlink's target written.
    """
    from . import _path, _vmafx

    target = _path(path, "report")  # a bad path is refused before the work
    # As the command's -o and --html write (output/output_target.hpp): a regular file replaced
    # atomically, a FIFO or device written in place, a symlink's target written.
    _vmafx.write_file(target, _render(result, by, worst, pictures, title))


def _render(result, by: Optional[str], worst: int, pictures: int, title: Optional[str]) -> bytes:
    """The report's HTML page (see report())."""
    import numpy as np
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from . import UsageError

    for name, v in (("worst", worst), ("pictures", pictures)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise UsageError(f"report: {name} must be a whole number >= 0, got {v!r}")
    frames = result.frames
    model_names = [m["name"] for m in result.models if m["name"] in frames.columns]
    if by is None:
        by = model_names[0] if model_names else (frames.columns[0] if len(frames.columns) else None)
    elif by not in frames.columns:
        raise UsageError(f"report: no output {by!r} (the run has {', '.join(frames.columns)})")
    sources = getattr(result, "_sources", None) or {}
    ref_name = _shown(sources.get("reference_name", "reference"))
    dist_name = _shown(sources.get("distorted_name", "distorted"))
    heading = title or f"{os.path.basename(ref_name)} vs {os.path.basename(dist_name)}"
    fmt = result.format or {}
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<title>vmafx report: {_esc(heading)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>vmafx report: {_esc(heading)}</h1>"]
    fmt_text = (f"{fmt['width']}x{fmt['height']}, {fmt['bit_depth']}-bit {fmt['pixel_format'][0]}:"
                f"{fmt['pixel_format'][1]}:{fmt['pixel_format'][2]}, " if fmt else "")
    parts.append(f"<p class=\"lede\">reference <code>{_esc(ref_name)}</code><br>distorted "
                 f"<code>{_esc(dist_name)}</code><br>{_esc(fmt_text)}{len(frames)} frames scored</p>")
    if result.models:
        rows = "".join(f"<tr><td class=\"name\">{_esc(m['name'])}</td>"
                       + "".join(_num(result.pooled.at[m["name"], c]) if m["name"] in result.pooled.index
                                 else "<td>-</td>" for c in ("mean", "min", "max", "harmonic_mean")) + "</tr>"
                       for m in result.models)
        parts.append("<table><tr><th class=\"name\">model</th><th>mean</th><th>min</th><th>max</th>"
                     f"<th>harmonic mean</th></tr>{rows}</table>")

    # The per-frame curves: the models on one chart, every other output on its own small chart.
    x = np.asarray(frames.index)
    first = True
    if model_names:
        fig = go.Figure()
        for name in model_names:
            mean = result.pooled.at[name, "mean"] if name in result.pooled.index else float("nan")
            fig.add_trace(go.Scatter(x=x, y=frames[name].to_numpy(), mode="lines", name=f"{_esc(name)} (mean {mean:.6f})",
                                     hovertemplate="frame %{x}<br>%{y:.6f}<extra>" + _esc(name) + "</extra>"))
        if len(x) <= 20:
            fig.update_xaxes(dtick=1)
        fig.update_layout(height=420, margin=dict(l=50, r=20, t=40, b=40), title="models, per frame",
                          xaxis_title="frame", yaxis_title="score", legend=dict(orientation="h", y=-0.18))
        parts.append("<h2>Scores per frame</h2>" + _figure_html(fig, first))
        first = False
    others = [c for c in frames.columns if c not in model_names]
    if others:
        cols = 2 if len(others) > 1 else 1
        rows_n = -(-len(others) // cols)
        titles = [f"{_esc(c)} (mean {result.pooled.at[c, 'mean']:.6g})" if c in result.pooled.index else _esc(c)
                  for c in others]
        fig = make_subplots(rows=rows_n, cols=cols, shared_xaxes=True, subplot_titles=titles,
                            vertical_spacing=min(0.08, 0.25 / rows_n))
        for k, c in enumerate(others):
            fig.add_trace(go.Scatter(x=x, y=frames[c].to_numpy(), mode="lines", name=_esc(c), showlegend=False,
                                     hovertemplate="frame %{x}<br>%{y:.6f}<extra>" + _esc(c) + "</extra>"),
                          row=k // cols + 1, col=k % cols + 1)
        fig.update_annotations(font_size=11)
        if len(x) <= 20:
            fig.update_xaxes(dtick=1)
        fig.update_layout(height=max(260, 170 * rows_n), margin=dict(l=50, r=20, t=40, b=30))
        parts.append("<h2>Metrics per frame</h2>" + _figure_html(fig, first))
        first = False

    rows = "".join(f"<tr><td class=\"name\">{_esc(name)}</td>"
                   + "".join(_num(result.pooled.at[name, c]) for c in ("mean", "min", "max", "harmonic_mean"))
                   + "</tr>" for name in result.pooled.index)
    parts.append("<h2>Pooled values</h2><table><tr><th class=\"name\">output</th><th>mean</th><th>min</th>"
                 f"<th>max</th><th>harmonic mean</th></tr>{rows}</table>")
    if result.aggregate:
        rows = "".join(f"<tr><td class=\"name\">{_esc(k)}</td>{_num(v)}</tr>" for k, v in result.aggregate.items())
        parts.append(f"<table><tr><th class=\"name\">aggregate</th><th>value</th></tr>{rows}</table>")

    # The worst frames, and the pictures of the first few.
    if by is not None and worst > 0:
        series = frames[by].dropna()
        order = series.sort_values(kind="stable").index[:worst]
        head = "".join(f"<th>{_esc(c)}</th>" for c in model_names if c != by)
        rows = "".join(f"<tr><td>{i + 1}</td><td>{int(f)}</td>{_num(series[f])}"
                       + "".join(_num(frames.at[f, c]) for c in model_names if c != by) + "</tr>"
                       for i, f in enumerate(order))
        parts.append(f"<h2>Worst frames (lowest {_esc(by)})</h2><table><tr><th>rank</th><th>frame</th>"
                     f"<th>{_esc(by)}</th>{head}</tr>{rows}</table>")
        shown = [int(f) for f in order[:pictures]]
        if shown:
            parts.append(_pictures_html(result, sources, shown, by, series))
    parts.append(_provenance_html(result))
    parts.append("</body></html>\n")
    return "".join(parts).encode("utf-8")


def _pictures_html(result, sources, shown, by, series) -> str:
    from . import Error

    if not sources or sources.get("align") == "pts":
        why = ("the frames were paired by timestamp (align='pts')" if sources.get("align") == "pts"
               else "the result was loaded from a file without its inputs")
        return f"<p class=\"warn\">No pictures: {_esc(why)}.</p>"
    bit_depth = (result.format or {}).get("bit_depth", 8)
    got = {}
    for which in ("reference", "distorted"):
        skip = sources.get("skip_ref" if which == "reference" else "skip_dist", 0)
        try:
            pics = _frame_pictures(sources[which], sources.get("raw"), skip, shown, bit_depth)
        except Error as e:  # the file is gone or changed since the run: the page says so
            return f"<p class=\"warn\">No pictures: {_esc(_shown(str(e)))}</p>"
        if pics is None:
            return (f"<p class=\"warn\">No pictures: the {which} video cannot be read again (frames from an "
                    "iterator, a pipe or standard input).</p>")
        got[which] = pics
    out = []
    for k, f in enumerate(shown):
        ref, dist = got["reference"][k], got["distorted"][k]
        depth_r = bit_depth if ref[0].dtype.itemsize > 1 else 8
        depth_d = bit_depth if dist[0].dtype.itemsize > 1 else 8
        out.append(f"<h3>frame {f}: {_esc(by)} {series[f]:.6f}</h3><div class=\"pair\">"
                   f"<figure><img alt=\"reference frame {f}\" src=\"{_png(_rgb(ref, depth_r))}\">"
                   f"<figcaption>reference</figcaption></figure>"
                   f"<figure><img alt=\"distorted frame {f}\" src=\"{_png(_rgb(dist, depth_d))}\">"
                   f"<figcaption>distorted</figcaption></figure></div>")
    return "".join(out)


def _provenance_html(result) -> str:
    p = result.provenance or {}
    rows = [("vmafx", p.get("vmafx_version", "")), ("commit", p.get("commit", "")),
            ("scores of libvmaf", p.get("libvmaf", ""))]
    dev = p.get("device")
    if dev:
        rows.append(("device", ", ".join(f"{k} {v}" for k, v in dev.items() if v not in ("", None))))
    for m in p.get("models", []):
        rows.append((f"model {m.get('name', '')}", f"{m.get('label', '')} (SHA-256 {m.get('sha256', '')})"))
    out = ["<h2>Provenance</h2><table>"]
    out += [f"<tr><th class=\"name\">{_esc(k)}</th><td class=\"name\">{_esc(v)}</td></tr>" for k, v in rows]
    out.append("</table>")
    b = result.backends
    if len(b):
        out.append("<table><tr><th class=\"name\">metric</th><th class=\"name\">backend</th>"
                   "<th class=\"name\">contract</th><th class=\"name\">note</th></tr>")
        for _, r in b.iterrows():
            out.append(f"<tr><td class=\"name\">{_esc(r['feature'])}</td><td class=\"name\">{_esc(r['backend'])}</td>"
                       f"<td class=\"name\">{_esc(r['contract'])}</td><td class=\"name\">{_esc(r['note'])}</td></tr>")
        out.append("</table>")
    for w in result.warnings:
        out.append(f"<p class=\"warn\">warning: {_esc(w)}</p>")
    return "".join(out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python3 -m vmafx report`: the report of a run the `vmafx` command made (its --html runs
    this, with the run's JSON result file at --precision max with provenance, and its inputs to
    read the pictures from). Exit status 0, 1 for a failure (its message on standard error, the
    report not written), 2 for bad arguments."""
    import argparse
    import sys

    from . import Error, _load_document, load

    ap = argparse.ArgumentParser(prog="python3 -m vmafx report",
                                 description="Write the HTML report of a vmafx JSON result file.")
    ap.add_argument("--result", required=True, help="the run's JSON result file (vmafx --json), - for standard input")
    ap.add_argument("--reference", help="the reference video (for the pictures of the worst frames)")
    ap.add_argument("--distorted", help="the distorted video")
    ap.add_argument("--raw", nargs=4, metavar=("WIDTH", "HEIGHT", "PIXEL_FORMAT", "BITDEPTH"),
                    help="the raw .yuv inputs' geometry")
    ap.add_argument("--format", nargs=4, metavar=("WIDTH", "HEIGHT", "PIXEL_FORMAT", "BITDEPTH"),
                    help="the scored pictures' format")
    ap.add_argument("--skip-ref", type=int, default=0)
    ap.add_argument("--skip-dist", type=int, default=0)
    ap.add_argument("--align", choices=("frames", "pts"), default="frames")
    ap.add_argument("--warning", action="append", default=[], help="a warning of the run (repeatable)")
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--pictures", type=int, default=3)
    ap.add_argument("-o", "--output", required=True, help="the HTML file to write, - for standard output")
    a = ap.parse_args(argv)
    try:
        result = (_load_document(sys.stdin.buffer.read(), "standard input") if a.result == "-"
                  else load(a.result))
        if a.format:
            w, h, pix, bits = a.format
            result.format = {"width": int(w), "height": int(h), "bit_depth": int(bits), "pixel_format": pix}
        result.warnings = list(a.warning)
        if a.reference and a.distorted:
            raw = None
            if a.raw:
                w, h, pix, bits = a.raw
                raw = (int(w), int(h), pix, int(bits))
            result._sources = {"reference": a.reference, "distorted": a.distorted, "reference_name": a.reference,
                               "distorted_name": a.distorted, "raw": raw, "skip_ref": a.skip_ref,
                               "skip_dist": a.skip_dist, "align": a.align}
        if a.output == "-":
            page = _render(result, None, a.worst, a.pictures, None)
            sys.stdout.buffer.write(page)
            sys.stdout.buffer.flush()
        else:
            report(result, a.output, worst=a.worst, pictures=a.pictures)
    except (Error, ValueError) as e:
        print(f"vmafx: error: the HTML report: {e}", file=sys.stderr)
        return 1
    return 0

