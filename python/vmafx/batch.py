"""vmafx.batch: many pairs, and long titles in segments, scored on a Dask cluster, with every
value the one a single `vmafx` run of the pair gives, bit for bit.

    import vmafx
    table = vmafx.batch("ladder.csv", "out/")                       # a local cluster of processes
    table = vmafx.batch(df, "out/", client=Client("tcp://sched:8786"))  # an existing cluster
    # the command:  vmafx-batch ladder.csv --out out/ [--scheduler tcp://sched:8786] [--workers 8]

The manifest (CSV, JSONL, a pandas DataFrame or a list of dicts) has a row per pair: `pair_id`,
`ref`, `dist`, and optionally `model`, `features`, `aom_ctc`, `nflx_ctc` (one value, or several
separated by ";" or as a JSON list), `width`, `height`, `pixel_format`, `bitdepth` (raw .yuv),
`frames`, `skip_ref`, `skip_dist`, `subsample`, `backend`, and `options` (a JSON object of any
other vmafx.score() keyword). Every other column (title, rung, codec, ...) passes through to the
results.

How it runs:
  - one task per pair, the largest (in frames) first; a pair long enough to hold up the end of
    the run is split into segments of frames. A segment's run reads the frames its metrics need
    before and after it (vmafx._vmafx.temporal_context: derived from each metric's declared
    context, e.g. motion2 needs 1 and 1, the five-frame window and moving average more), keeps
    its own frames, and the driver stitches the segments in frame order and pools the stitched
    frames again (the engine's stitch_runs and pooling, never partial sums). A pair that cannot
    be split (a run-wide aggregate such as psnr's apsnr, --subsample, a video whose frame count
    is unknown without decoding it all, inputs of different lengths) is one task.
  - the driver is the only writer: each pair's result file (out/results/PAIR.json, the CLI's
    JSON at %.17g) is written to a temporary file and renamed into place, then a line is appended
    to out/journal.jsonl (flushed to disk). With resume=True, pairs whose journal line and
    result file exist (for the same row: the key is a digest of the row's inputs and options)
    are not computed again. A failed pair (a bad file, different sizes...) gets its row marked
    failed with the error, and the rest finish; failed rows are journaled too (resume keeps them:
    resume=False, or removing their lines, computes them again).
  - progress is counted in frames (a tqdm bar on standard error where it is a terminal).
  - out/results.csv: the summary table (the manifest's columns, status, error, frames, each
    model's pooled mean, the result file), also returned as a DataFrame.

Workers need the vmafx package and the input files at the same paths (shared storage). The
driver reads the inputs' frame counts (headers only) to plan the segments.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sys
import time
from typing import Optional, Sequence, Union

__all__ = ["batch"]

#: Manifest columns that are score() keywords.
_SCORE_COLUMNS = ("model", "features", "aom_ctc", "nflx_ctc", "width", "height", "pixel_format", "bitdepth",
                  "frames", "skip_ref", "skip_dist", "subsample", "backend", "threads", "gpu")
_LIST_COLUMNS = ("model", "features", "aom_ctc", "nflx_ctc")
_INT_COLUMNS = ("width", "height", "bitdepth", "frames", "skip_ref", "skip_dist", "subsample", "threads", "gpu")


# ---------------------------------------------------------------------------------------------
# The manifest


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or (isinstance(v, str) and v.strip() == "")


def _read_manifest(manifest):
    """The manifest as a list of dicts (file rows in order), naming the file on an error."""
    import pandas as pd

    from . import UsageError

    if isinstance(manifest, pd.DataFrame):
        return manifest.to_dict(orient="records"), "the manifest DataFrame"
    if isinstance(manifest, (list, tuple)):
        return [dict(r) for r in manifest], "the manifest list"
    path = os.fspath(manifest)
    name = os.fsdecode(path)
    try:
        if name.endswith(".jsonl") or name.endswith(".ndjson"):
            rows = []
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if line.strip():
                        try:
                            rows.append(json.loads(line))
                        except ValueError as e:
                            raise UsageError(f"{name}: line {n}: not JSON: {e}") from None
                        if not isinstance(rows[-1], dict):
                            raise UsageError(f"{name}: line {n}: expected a JSON object")
            return rows, name
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        return frame.to_dict(orient="records"), name
    except OSError as e:
        raise UsageError(f"{name}: cannot read the manifest: {e.strerror}") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise UsageError(f"{name}: not a CSV manifest: {e}") from None


#: Columns the summary writes (beside each model's pooled mean); a manifest cannot pass these.
_SUMMARY_COLUMNS = ("status", "error", "frames", "result")


def _score_keywords() -> set:
    """The keywords a row may give score() (its parameters but the inputs and the progress)."""
    import inspect

    from . import score

    return set(inspect.signature(score).parameters) - {"ref", "dist", "progress"}


def _list_value(v):
    if isinstance(v, (list, tuple)):
        return [str(x) for x in v]
    v = str(v).strip()
    if v.startswith("["):
        return [str(x) for x in json.loads(v)]
    return [x.strip() for x in v.split(";") if x.strip()]


def _pair_specs(rows, origin: str):
    """Each row as (pair_id, kwargs of score(), passthrough columns); refuses rows without the
    required columns, duplicate pair ids and values of the wrong kind, naming the row."""
    from . import UsageError

    specs, seen = [], set()
    for n, row in enumerate(rows, 1):
        where = f"{origin}: row {n}"
        for col in ("pair_id", "ref", "dist"):
            if _missing(row.get(col)):
                raise UsageError(f"{where}: no {col}")
        pair_id = str(row["pair_id"])
        if pair_id in seen:
            raise UsageError(f"{where}: pair_id {pair_id!r} is given twice")
        seen.add(pair_id)
        kwargs = {}
        try:
            for col in _SCORE_COLUMNS:
                v = row.get(col)
                if _missing(v):
                    continue
                if col in _LIST_COLUMNS:
                    kwargs[col] = _list_value(v)
                elif col in _INT_COLUMNS:
                    f = float(v)
                    if not f.is_integer():
                        raise ValueError(f"{col} {v!r} is not a whole number")
                    kwargs[col] = int(f)
                else:
                    kwargs[col] = str(v)
            if not _missing(row.get("options")):
                extra = row["options"] if isinstance(row["options"], dict) else json.loads(row["options"])
                if not isinstance(extra, dict):
                    raise ValueError("options must be a JSON object")
                kwargs.update(extra)
        except ValueError as e:
            raise UsageError(f"{where} ({pair_id}): {e}") from None
        unknown = sorted(set(kwargs) - _score_keywords())
        if unknown:
            raise UsageError(f"{where} ({pair_id}): options: {', '.join(map(repr, unknown))} is not a keyword of "
                             f"vmafx.score()")
        passthrough = {k: v for k, v in row.items()
                       if k not in ("pair_id", "ref", "dist", "options") and k not in _SCORE_COLUMNS}
        taken = sorted(set(passthrough) & set(_SUMMARY_COLUMNS))
        if taken:
            raise UsageError(f"{origin}: the column {taken[0]!r} is one the results write: rename it")
        specs.append((pair_id, str(row["ref"]), str(row["dist"]), kwargs, passthrough))
    return specs


def _key(pair_id: str, ref: str, dist: str, kwargs: dict) -> str:
    """The journal's key of a pair: a digest of its id, inputs (paths, sizes, modification
    times) and options, so that a changed row or file is computed again."""
    def stat(p):
        try:
            s = os.stat(p)
            return [s.st_size, s.st_mtime_ns]
        except OSError:
            return None
    text = json.dumps([pair_id, ref, dist, stat(ref), stat(dist), kwargs], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _file_name(pair_id: str) -> str:
    """The result file's name of a pair: its id where that is a safe file name, else the id made
    safe with a digest of the id (so that it depends on the id alone, never on the manifest's
    order, and two ids never share a file)."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", pair_id).strip("._")[:80] or "pair"
    if base == pair_id:
        return base + ".json"
    return f"{base}-{hashlib.sha256(pair_id.encode('utf-8', 'surrogateescape')).hexdigest()[:12]}.json"


def _digest(path: str) -> Optional[str]:
    """SHA-256 of a file's bytes, None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


# ---------------------------------------------------------------------------------------------
# Planning: frame counts, temporal context, segments


def _plan(ref: str, dist: str, kwargs: dict):
    """(frames to score or None when unknown, temporal context (before, after) or None): None
    for either when the pair must be one task. Errors (a missing file...) are left to the run,
    which reports them as the CLI does."""
    from . import DEFAULT_MODEL, _model_arg, _names, _path, _vmafx

    try:
        if kwargs.get("subsample", 1) != 1 or kwargs.get("align", "frames") != "frames" or kwargs.get("scale_dist"):
            return None, None
        raw = None
        if all(k in kwargs for k in ("width", "height", "pixel_format", "bitdepth")):
            raw = (kwargs["width"], kwargs["height"], str(kwargs["pixel_format"]), kwargs["bitdepth"])
        counts = [_vmafx.frame_count(_path(p, "input"), raw) for p in (ref, dist)]
        if None in counts or any(damaged for _, damaged in counts):
            return None, None  # unknown without decoding, or a damaged tail: the run says what it does
        left = [counts[0][0] - kwargs.get("skip_ref", 0), counts[1][0] - kwargs.get("skip_dist", 0)]
        if min(left) <= 0:
            return None, None
        if left[0] != left[1] and not kwargs.get("frames"):
            return None, None  # the run's own error (different frame counts)
        n = min(left) if not kwargs.get("frames") else min(min(left), kwargs["frames"])
        presets = _names(kwargs.get("aom_ctc"), "aom_ctc"), _names(kwargs.get("nflx_ctc"), "nflx_ctc")
        # score()'s rule: the default model unless a preset names the models.
        models = _names(kwargs["model"], "model") if "model" in kwargs else [] if presets[0] or presets[1] \
            else [DEFAULT_MODEL]
        context = _vmafx.temporal_context([_model_arg(m) for m in models], _names(kwargs.get("features"), "features"),
                                          list(presets[0]), list(presets[1]),
                                          not (models or presets[0] or presets[1]))
        return n, context
    except Exception:  # noqa: BLE001  the run itself will report what is wrong
        return None, None


def _segment_run(a: int, b: int, n: int, context) -> tuple:
    """The run that scores segment [a, b) of a pair of n frames with its temporal context
    (before, after): (start, end, first, keep): frames [start, end) are read and scored, and
    frames [first, first + keep) of that run are the segment's (the engine's segment_run, which the
    CLI's runs on several GPUs use too)."""
    from . import _vmafx

    return _vmafx.segment_run(a, b, n, *context)


def _segments(n: int, size: int):
    """[first, end) ranges of about `size` frames covering 0..n (sizes differ by one at most)."""
    count = max(1, -(-n // size))
    bounds = [n * k // count for k in range(count + 1)]
    return [(bounds[k], bounds[k + 1]) for k in range(count)]


# ---------------------------------------------------------------------------------------------
# The task (runs on a worker)


def _score_task(ref: str, dist: str, kwargs: dict, start: int, end: int, first: int, keep: int):
    """Scores frames [start, end) of the pair (the whole pair when end is None) and returns
    ("ok", RunHandle, first, keep, frames) or ("failed", message, ...): a vmafx error is the
    pair's failure, not the task's (so Dask does not retry it); anything else is raised."""
    import vmafx

    args = dict(kwargs)
    args["progress"] = False
    if end is not None:
        args["skip_ref"] = args.get("skip_ref", 0) + start
        args["skip_dist"] = args.get("skip_dist", 0) + start
        args["frames"] = end - start
    try:
        result = vmafx.score(ref, dist, **args)
    except (vmafx.Error, ValueError) as e:
        return ("failed", f"{type(e).__name__}: {e}", first, keep, 0)
    return ("ok", result._handle, first, keep if end is not None else len(result.frames), len(result.frames))


# ---------------------------------------------------------------------------------------------
# The driver


def _journal(out_dir: str):
    path = os.path.join(out_dir, "journal.jsonl")
    done = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a crash
                if isinstance(entry, dict) and "key" in entry:
                    done[entry["key"]] = entry
    except FileNotFoundError:
        pass
    return path, done


def _gpu_list(gpus) -> list:
    """The CUDA devices `gpus` names: "all" (every usable one this machine has), a count, or
    indices. Raises ValueError when none is usable or one is out of range."""
    from . import UsageError, _vmafx

    devices = _vmafx.gpu_devices("cuda")
    usable = [k for k, d in enumerate(devices) if "(unusable" not in d]
    if gpus == "all":
        chosen = usable
    elif isinstance(gpus, int) and not isinstance(gpus, bool):
        chosen = list(range(gpus))
    else:
        try:
            chosen = [int(g) for g in gpus]
        except (TypeError, ValueError):
            raise UsageError(f"gpus: expected 'all', a count or device indices, got {gpus!r}") from None
    if not chosen:
        raise UsageError(f"gpus={gpus!r}: no usable CUDA device"
                         + (f" (this machine has: {'; '.join(devices)})" if devices else " on this machine"))
    for g in chosen:
        if g < 0 or g >= len(devices) or g not in usable:
            raise UsageError(f"gpus: device {g} is not a usable CUDA device "
                             f"({'; '.join(devices) if devices else 'this machine has none'})")
    return chosen


def gpu_cluster(gpus, threads: int = 0):
    """A local Dask cluster (distributed.SpecCluster) of one worker process per CUDA device in
    `gpus` (indices): each sees its device alone (CUDA_VISIBLE_DEVICES, so it is device 0 there)
    and holds a "GPU" resource of 1, one task at a time; its CUDA context is made by its first
    task and kept for the next ones. Returns (cluster, client); close both."""
    from distributed import Client, Nanny, Scheduler, SpecCluster

    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.pathsep.join([package_parent] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    workers = {f"gpu{g}": {"cls": Nanny, "options": {"nthreads": 1, "resources": {"GPU": 1},
                                                      "env": {"CUDA_VISIBLE_DEVICES": str(g), "PYTHONPATH": path}}}
               for g in gpus}
    cluster = SpecCluster(workers=workers, scheduler={"cls": Scheduler, "options": {"dashboard": False}})
    return cluster, Client(cluster)


def batch(manifest, out_dir: Union[str, os.PathLike], client=None, segment: Union[str, int, None] = "auto",
          retries: int = 2, resume: bool = True, *, workers: Optional[int] = None, threads: int = 1,
          progress: Optional[bool] = None, gpus=None):
    """Scores every pair of `manifest` on Dask and writes out_dir/results/PAIR.json (the CLI's
    JSON at %.17g), out_dir/journal.jsonl and out_dir/results.csv (see the module's docstring).

    manifest: a CSV or JSONL file, a pandas DataFrame or a list of dicts (pair_id, ref, dist and
      the optional columns). client: a distributed.Client; None starts a LocalCluster of
      `workers` processes (default: the cores // `threads`), one thread each, stopped at the end.
    segment: "auto" (split a pair longer than the batch's frames over 4 x the workers, into
      pieces of about that size, at least 64 frames), a number of frames per segment, or None
      (never split). retries: Dask's retries of a task that failed for another reason than a
      vmafx error (a worker lost is rescheduled by Dask itself). resume: skip the pairs the
      journal holds. threads: vmafx's threads per task (score(threads=)), unless the row says.
    progress: a bar counted in frames on standard error (default: where it is a terminal).
    gpus: score on CUDA GPUs: "all", a count or device indices. Rows without a backend get
      backend="cuda", and every GPU row's task needs a "GPU" resource: with client=None a cluster
      of one worker per device is started (gpu_cluster); a client's workers must declare the
      resource themselves (dask-worker --resources GPU=1, each with its CUDA_VISIBLE_DEVICES).

    Returns the summary DataFrame (one row per pair, manifest order), with
    .attrs["computed"] the pair ids computed in this call. Raises ValueError for a bad manifest
    or argument (naming the row); a pair's own failure is its row's status, not an exception.
    """
    import pandas as pd

    from . import UsageError, _vmafx

    if segment not in ("auto", None) and (isinstance(segment, bool) or not isinstance(segment, int) or segment < 1):
        raise UsageError(f"segment: expected 'auto', a number of frames >= 1 or None, got {segment!r}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise UsageError(f"threads: expected a whole number >= 0, got {threads!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise UsageError(f"workers: expected a whole number >= 1, got {workers!r}")
    rows, origin = _read_manifest(manifest)
    specs = _pair_specs(rows, origin)
    gpu_ids = None
    if gpus is not None:
        gpu_ids = _gpu_list(gpus) if client is None else None
        for spec in specs:
            spec[3].setdefault("backend", "cuda")
            if client is None and spec[3]["backend"] == "cuda":
                spec[3].pop("gpu", None)  # each worker sees its device alone
    out = os.fspath(out_dir)
    try:
        os.makedirs(os.path.join(out, "results"), exist_ok=True)
    except OSError as e:
        raise UsageError(f"{os.fsdecode(out)}: cannot make the output folder: {e.strerror}") from None
    journal_path, done = _journal(out) if resume else (os.path.join(out, "journal.jsonl"), {})
    pairs = []
    for pair_id, ref, dist, kwargs, passthrough in specs:
        kwargs.setdefault("threads", threads)
        key = _key(pair_id, ref, dist, kwargs)
        file = _file_name(pair_id)
        entry = done.get(key)
        # Done: a failure journaled, or a result whose file still holds what was journaled.
        if entry and entry.get("status") == "failed" or (
                entry and entry.get("status") == "ok"
                and _digest(os.path.join(out, "results", file)) == entry.get("sha256")):
            pairs.append(dict(pair_id=pair_id, ref=ref, dist=dist, kwargs=kwargs, passthrough=passthrough, key=key,
                              file=file, entry=entry))
            continue
        n, context = _plan(ref, dist, kwargs)
        pairs.append(dict(pair_id=pair_id, ref=ref, dist=dist, kwargs=kwargs, passthrough=passthrough, key=key,
                          file=file, entry=None, n=n, context=context))

    todo = [p for p in pairs if p["entry"] is None]
    own_cluster = None
    if todo and client is None and gpu_ids is not None:
        own_cluster, client = gpu_cluster(gpu_ids)
    elif todo and client is None:
        from distributed import Client, LocalCluster

        n_workers = workers or max(1, (os.cpu_count() or 1) // max(1, threads))
        package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = {"PYTHONPATH": os.pathsep.join([package_parent] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
        own_cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, scheduler_kwargs={"dashboard": False}, env=env)
        client = Client(own_cluster)
    try:
        computed = _run(client, todo, out, journal_path, segment, retries, progress, gpus is not None)
    finally:
        if own_cluster is not None:
            client.close()
            own_cluster.close()

    # The summary table, in manifest order, from the journal's entries.
    _, done = _journal(out)
    table = []
    for p in pairs:
        e = done.get(p["key"], {})
        row = {"pair_id": p["pair_id"], "ref": p["ref"], "dist": p["dist"], **p["passthrough"],
               "status": e.get("status", "missing"), "error": e.get("error", ""), "frames": e.get("frames", 0)}
        for name, mean in e.get("scores", {}).items():  # a manifest column of that name keeps its own
            row[name if name not in row else f"{name} (vmafx)"] = mean
        row["result"] = os.path.join("results", p["file"]) if e.get("status") == "ok" else ""
        table.append(row)
    frame = pd.DataFrame(table, columns=None if table else ["pair_id", "ref", "dist", *_SUMMARY_COLUMNS])
    _vmafx.write_file(os.fsencode(os.path.join(out, "results.csv")), frame.to_csv(index=False).encode("utf-8"))
    frame.attrs["computed"] = computed
    return frame


def _run(client, todo, out: str, journal_path: str, segment, retries: int, progress, gpu_tasks: bool) -> list:
    """Submits the tasks, stitches and writes each pair as its last task ends; returns the pair
    ids computed."""
    from distributed import as_completed

    from . import Result, _vmafx

    if not todo:
        return []
    total_frames = sum(p["n"] or 0 for p in todo)
    n_workers = max(1, len(client.scheduler_info().get("workers", {})) or 1)
    if segment == "auto":
        size = max(64, -(-total_frames // (4 * n_workers))) if total_frames else None
    else:
        size = segment
    futures = {}
    for p in todo:
        n, context = p["n"], p["context"]
        if size and n and context is not None and n > size * (1 if segment != "auto" else 2):
            p["parts"] = _segments(n, size)
        else:
            p["parts"] = [None]
        p["results"] = [None] * len(p["parts"])
        p["pending"] = len(p["parts"])
        p["failed"] = None
        for k, part in enumerate(p["parts"]):
            if part is None:
                args = (p["ref"], p["dist"], p["kwargs"], 0, None, 0, 0)
                weight = n or 1
            else:
                a, b = part
                args = (p["ref"], p["dist"], p["kwargs"], *_segment_run(a, b, n, context))
                weight = b - a
            resources = {"GPU": 1} if gpu_tasks and p["kwargs"].get("backend", "cpu") != "cpu" else None
            fut = client.submit(_score_task, *args, key=f"vmafx-{p['key']}-{k}-{len(p['parts'])}",
                                priority=weight, retries=retries, pure=False, resources=resources)
            futures[fut] = (p, k, weight)
    bar = None
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", None) and sys.stderr.isatty())
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total_frames or None, unit="frame", desc="vmafx-batch")
    computed = []
    with open(journal_path, "a+b") as journal:
        # A line cut short by a crash is ended first, so that the next entry stands alone.
        if journal.tell() > 0:
            journal.seek(-1, os.SEEK_END)
            if journal.read(1) != b"\n":
                journal.write(b"\n")
        for fut in as_completed(list(futures)):
            p, k, weight = futures.pop(fut)
            try:
                status, value, first, keep, frames = fut.result()
            except Exception as e:  # noqa: BLE001  a task that failed beyond its retries
                status, value, first, keep, frames = "failed", f"{type(e).__name__}: {e}", 0, 0, 0
            if bar is not None:
                bar.update(weight if p["n"] else frames)
            if status == "failed":
                p["failed"] = p["failed"] or value
            else:
                p["results"][k] = (value, first, keep)
            p["pending"] -= 1
            if p["pending"]:
                continue  # the pair's other parts are still to come
            entry = {"key": p["key"], "pair_id": p["pair_id"]}
            if p["failed"]:
                entry.update(status="failed", error=p["failed"], frames=0)
            else:
                try:
                    if len(p["results"]) == 1:
                        handle = p["results"][0][0]
                    else:
                        handle = _vmafx.stitch(p["results"])
                    result = Result(handle)
                    data = result.to_json(precision="max").encode("utf-8")
                    # Replaced atomically, synced before the rename (output/output_target.hpp).
                    _vmafx.write_file(os.fsencode(os.path.join(out, "results", p["file"])), data)
                    entry.update(status="ok", error="", frames=len(result.frames),
                                 scores={m["name"]: m["mean"] for m in result.models},
                                 sha256=hashlib.sha256(data).hexdigest())
                except Exception as e:  # noqa: BLE001  a stitching or writing failure is the pair's
                    entry.update(status="failed", error=f"{type(e).__name__}: {e}", frames=0)
            journal.write((json.dumps(entry) + "\n").encode("utf-8"))
            journal.flush()
            os.fsync(journal.fileno())
            computed.append(p["pair_id"])
            p["results"] = []
    if bar is not None:
        bar.close()
    return computed


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`vmafx-batch MANIFEST --out DIR [--scheduler ADDRESS | --scheduler-file F] [--workers N]
    [--threads N] [--segment auto|FRAMES|none] [--retries N] [--no-resume]`. Exit status 0 when
    every pair scored, 1 when any failed (the table says which), 2 for bad arguments."""
    import argparse

    from . import Error, UsageError

    ap = argparse.ArgumentParser(prog="vmafx-batch", description="Score the pairs of a manifest on Dask.")
    ap.add_argument("manifest", help="CSV or JSONL: pair_id, ref, dist [, model, features, options, ...]")
    ap.add_argument("--out", required=True, help="the output folder (results/, journal.jsonl, results.csv)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--scheduler", help="a Dask scheduler's address (tcp://host:8786)")
    where.add_argument("--scheduler-file", help="a Dask scheduler file")
    ap.add_argument("--workers", type=int, help="local worker processes (default: cores / threads)")
    ap.add_argument("--threads", type=int, default=1, help="vmafx threads per task (default 1)")
    ap.add_argument("--segment", default="auto", help="auto, frames per segment, or none")
    ap.add_argument("--retries", type=int, default=2)
    ap.add_argument("--gpus", help="score on CUDA GPUs: all, or device indices (0,1); one worker per GPU")
    ap.add_argument("--no-resume", action="store_true", help="compute every pair again")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)
    segment = None if a.segment == "none" else "auto" if a.segment == "auto" else None
    if a.segment not in ("none", "auto"):
        try:
            segment = int(a.segment)
        except ValueError:
            ap.error(f"--segment {a.segment!r}: expected auto, a number of frames or none")
    gpus = None
    if a.gpus is not None:
        try:
            gpus = "all" if a.gpus == "all" else [int(g) for g in a.gpus.split(",")]
        except ValueError:
            ap.error(f"--gpus {a.gpus!r}: expected all or device indices (0,1)")
    client = None
    try:
        if a.scheduler_file and not os.path.isfile(a.scheduler_file):
            raise UsageError(f"--scheduler-file {a.scheduler_file}: no such file (dask-scheduler --scheduler-file "
                             "writes it)")
        if a.scheduler or a.scheduler_file:
            from distributed import Client

            try:  # a scheduler that does not answer is an error, not a wait without end
                client = Client(a.scheduler, timeout=60) if a.scheduler else \
                    Client(scheduler_file=a.scheduler_file, timeout=60)
            except OSError as e:
                raise Error(f"cannot reach the Dask scheduler {a.scheduler or a.scheduler_file}: {e}") from None
        start = time.monotonic()
        table = batch(a.manifest, a.out, client=client, segment=segment, retries=a.retries, resume=not a.no_resume,
                      workers=a.workers, threads=a.threads, progress=False if a.quiet else None,
                      gpus=gpus)
    except (Error, ValueError, OSError) as e:
        print(f"vmafx-batch: error: {e}", file=sys.stderr)
        return 2 if isinstance(e, ValueError) else 1
    finally:
        if client is not None:
            client.close()
    failed = table[table["status"] != "ok"]
    print(f"vmafx-batch: {len(table) - len(failed)} of {len(table)} pairs scored "
          f"({len(table.attrs['computed'])} computed now, {time.monotonic() - start:.1f} s); "
          f"{os.path.join(a.out, 'results.csv')}", file=sys.stderr)
    for _, r in failed.iterrows():
        print(f"vmafx-batch: {r['pair_id']}: failed: {r['error']}", file=sys.stderr)
    return 1 if len(failed) else 0
