#!/usr/bin/env python3
"""Differential test of vmafx's CPU reference against upstream libvmaf 3.2.0 on generated inputs.

For each case (a picture size, bit depth, chroma subsampling and content, drawn from a seed),
writes a raw reference/distorted pair of a few frames, scores it with vmafx
(`-n --csv --precision max --threads 1`, one run with every feature) and with upstream through
scripts/upstream_scores.c (upstream's public API, default SIMD dispatch, one run a feature, every
output vmafx wrote asked for by name), and compares every output of every frame as the same
double (NaN equal to NaN only, inf to inf). The golden files cover the fixtures' sizes and
formats; this covers the sizes between (SIMD tails at every width, odd heights), the bit depths
9..16 and synthetic content (flat, extremes, stripes, identical pictures). Any metric the upstream
build has can be asked for (--feature); the default is the integer vif, adm and motion. Metrics
that read the chroma get whole chroma samples (even sizes where subsampled): at odd sizes
upstream's pictures hold one chroma column or row fewer than the file, by design of vmafx.

Usage:
  tools/diff_upstream.py [--upstream-scores BIN] --vmafx BIN [--cases N] [--seed S]
                         [--feature SPEC ...] [--fixtures DIR] [--keep DIR]
  SPEC: upstream's feature syntax, NAME[:OPT=VAL...] (default: vif, adm and motion, debug=true).
  --allow-refusals: a case vmafx refuses and upstream scores is counted, with vmafx's message,
  instead of failing (for metrics whose refusals are by design, e.g. float_ssim at 9 bits, where
  upstream reads 16-bit words as bytes: docs/metrics.md).
  BIN of --upstream-scores: scripts/upstream_scores.c built against a local upstream libvmaf
  3.2.0 (its header says how; never part of vmafx). --fixtures: unpacked fixtures, whose
  path_576x324_420p8 luma gives a real-content crop as one of the contents.
Exit status: 0 when every value is equal, 1 when one differs or a side fails where the other
scores, 2 on a usage error, 77 (skipped) without an upstream_scores (--upstream-scores or
VMAFX_UPSTREAM_SCORES). A case upstream refuses (its init or extraction fails) is counted
and skipped; vmafx then must refuse too.
"""
import argparse
import csv
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

import numpy as np

# Sizes around the SIMD kernels' widths (16, 32, 64 samples and their tails) and the metrics'
# smallest accepted pictures (adm 33x33), plus a few odd large ones.
SPECIAL_SIDES = [33, 34, 35, 47, 48, 49, 63, 64, 65, 95, 96, 97, 127, 128, 129, 255, 256, 257, 511, 513, 1023, 1025]
# Metrics that read the chroma planes: their cases get whole chroma samples (even widths, and
# even heights at 4:2:0). At odd sizes upstream's picture holds floor(w / 2) chroma columns while
# vmafx scores ceil(w / 2), the file's (docs/metrics.md, odd-size chroma): a difference by design.
CHROMA_FEATURES = {"psnr", "ciede", "psnr_hvs", "speed_chroma"}
CONTENTS = ["noise", "gradient", "stripes", "extremes", "flat_ref", "identical", "real"]


def chroma_size(w, h, fmt):
    return {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h), "444": (w, h)}[fmt]


def real_luma(fixtures, w, h, rng):
    """A w x h crop of path_576x324_420p8's first reference luma (tiled where larger), 8-bit."""
    path = os.path.join(fixtures, "path_576x324_420p8", "ref.yuv")
    luma = np.fromfile(path, dtype=np.uint8, count=576 * 324).reshape(324, 576)
    tiled = np.tile(luma, (h // 324 + 2, w // 576 + 2))
    y, x = rng.randrange(324), rng.randrange(576)
    return tiled[y:y + h, x:x + w].astype(np.int64)


def make_plane(content, w, h, peak, rng, nprng, fixtures):
    """The reference plane of `content` (int64, 0..peak)."""
    if content == "gradient":
        ramp = np.add.outer(np.arange(h), np.arange(w)) * peak // max(1, w + h - 2)
        return ramp.astype(np.int64)
    if content == "stripes":
        slope = rng.randrange(3)  # vertical, diagonal or steeper one-sample stripes
        return np.where((np.arange(w)[None, :] + slope * np.arange(h)[:, None]) % 2, peak, 0).astype(np.int64)
    if content == "extremes":
        return nprng.choice([0, peak], size=(h, w)).astype(np.int64)
    if content == "flat_ref":
        return np.full((h, w), rng.randrange(peak + 1), np.int64)
    if content == "real" and fixtures:
        return real_luma(fixtures, w, h, rng) * peak // 255
    return nprng.integers(0, peak + 1, size=(h, w), dtype=np.int64)


def make_case(case_seed, fixtures, even_chroma):
    rng = random.Random(case_seed)
    nprng = np.random.default_rng(case_seed)
    side = lambda: rng.choice(SPECIAL_SIDES) if rng.random() < 0.4 else rng.randrange(33, 301)
    w, h = side(), side()
    bpc = rng.choice([8, 8, 8, 10, 10, 9, 12, 16])
    fmt = rng.choice(["420", "422", "444"])
    if even_chroma and fmt != "444":
        w += w % 2
        h += h % 2 if fmt == "420" else 0
    content = rng.choice(CONTENTS if fixtures else CONTENTS[:-1])
    frames = rng.randrange(2, 5)
    peak = (1 << bpc) - 1
    ref_frames, dist_frames = [], []
    for f in range(frames):
        planes_r, planes_d = [], []
        for p in range(3):
            pw, ph = (w, h) if p == 0 else chroma_size(w, h, fmt)
            r = make_plane(content, pw, ph, peak, rng, nprng, fixtures if p == 0 else None)
            r = np.roll(r, f, axis=1)  # motion between frames
            if content == "identical":
                d = r.copy()
            else:
                amp = max(1, peak // rng.choice([4, 16, 64, 256]))
                d = np.clip(r + nprng.integers(-amp, amp + 1, size=r.shape), 0, peak)
            planes_r.append(r)
            planes_d.append(d)
        ref_frames.append(planes_r)
        dist_frames.append(planes_d)
    return dict(seed=case_seed, w=w, h=h, bpc=bpc, fmt=fmt, content=content, frames=frames,
                ref=ref_frames, dist=dist_frames)


def write_yuv(path, frames, bpc):
    dtype = np.uint8 if bpc == 8 else np.dtype("<u2")
    with open(path, "wb") as f:
        for planes in frames:
            for plane in planes:
                f.write(plane.astype(dtype).tobytes())


def vmafx_scores(vmafx, ref, dist, case, features, work):
    """Every output of every frame, from vmafx's CSV (which, unlike JSON, keeps inf apart from NaN);
    (None, message) when vmafx refuses."""
    out = os.path.join(work, "vmafx.csv")
    cmd = [vmafx, "-r", ref, "-d", dist, "-w", str(case["w"]), "-h", str(case["h"]), "-p", case["fmt"],
           "-b", str(case["bpc"]), "-n", "--threads", "1", "--csv", "--precision", "max", "-q", "-o", out]
    for spec in features:
        name, _, opts = spec.partition(":")
        cmd += ["--feature", f"{name}={opts}" if opts else name]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr.strip()
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    names = [n for n in rows[0][1:] if n]
    return [{n: float(v) for n, v in zip(names, row[1:])} for row in rows[1:]], ""


def upstream_names(output):
    """The names upstream may store output `output` under: its own, and the stored names its
    alias table (alias.c) writes under a shorter one: PREFIX_feature_X_score as X, and
    VMAF_integer_feature_X_score as integer_X. Names with option suffixes are stored as written."""
    if output.startswith("integer_"):
        return [output, "VMAF_integer_feature_" + output[len("integer_"):] + "_score"]
    return [output] + [f"{prefix}_feature_{output}_score" for prefix in ("VMAF", "Cambi", "Speed_chroma", "Speed_temporal")]


def upstream_scores(binary, ref, dist, case, spec, outputs):
    """{(frame, output): value} of upstream's run of feature `spec`, an output present under any of
    its upstream_names; (None, message) when upstream refuses."""
    asked = {name: o for o in outputs for name in upstream_names(o)}
    cmd = [binary, ref, dist, str(case["w"]), str(case["h"]), str(case["bpc"]), case["fmt"], "0", spec, *asked]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr.strip() or f"exit {run.returncode}"
    values = {}
    for line in run.stdout.splitlines():
        frame, name, value = line.split(" ", 2)
        if value != "missing":
            values[(int(frame), asked[name])] = float(value)
    return values, ""


def same(a, b):
    if a is None or b is None:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return struct.pack("<d", a) == struct.pack("<d", b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--upstream-scores", default=os.environ.get("VMAFX_UPSTREAM_SCORES"),
                    help="default: $VMAFX_UPSTREAM_SCORES")
    ap.add_argument("--vmafx", required=True)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--feature", action="append", dest="features")
    ap.add_argument("--fixtures")
    ap.add_argument("--keep", help="folder to copy the pairs of differing cases to")
    ap.add_argument("--allow-refusals", action="store_true",
                    help="count a case vmafx refuses and upstream scores (a refusal by design, e.g. "
                         "9-bit float_ssim) instead of failing; the messages are listed")
    args = ap.parse_args()
    if not args.upstream_scores:
        print("diff_upstream: skipped: no upstream_scores (--upstream-scores or VMAFX_UPSTREAM_SCORES; "
              "scripts/upstream_scores.c says how to build it against a local upstream libvmaf)")
        return 77
    if args.fixtures and not os.path.isdir(os.path.join(args.fixtures, "path_576x324_420p8")):
        args.fixtures = None  # no real-content crops without the unpacked fixtures
    features = args.features or ["vif:debug=true", "adm:debug=true", "motion:debug=true"]
    for path in (args.upstream_scores, args.vmafx):
        if not os.access(path, os.X_OK):
            print(f"diff_upstream: {path}: not an executable program", file=sys.stderr)
            return 2
    even_chroma = any(spec.split(":")[0] in CHROMA_FEATURES for spec in features)
    counts = dict(cases=0, values=0, differing_cases=0, upstream_refused=0, vmafx_refused=0)
    refusals = set()
    with tempfile.TemporaryDirectory(prefix="vmafx-diff-") as work:
        ref, dist = os.path.join(work, "ref.yuv"), os.path.join(work, "dist.yuv")
        for i in range(args.cases):
            case = make_case(args.seed * 1_000_003 + i, args.fixtures, even_chroma)
            write_yuv(ref, case["ref"], case["bpc"])
            write_yuv(dist, case["dist"], case["bpc"])
            label = (f"case {i} (seed {case['seed']}): {case['w']}x{case['h']} {case['bpc']}-bit {case['fmt']} "
                     f"{case['content']}, {case['frames']} frames")
            counts["cases"] += 1
            ours, error = vmafx_scores(args.vmafx, ref, dist, case, features, work)
            problems = []
            refused = False
            outputs = sorted({k for fr in ours for k in fr}) if ours else []
            upstream = {}
            for spec in features:
                # Every output vmafx wrote is asked of every feature's run; a run answers "missing"
                # for the others' outputs.
                theirs, up_error = upstream_scores(args.upstream_scores, ref, dist, case, spec,
                                                   outputs or [spec.split(":")[0]])
                if theirs is None:
                    refused = True
                    break
                upstream.update(theirs)
            if not refused and ours is None and args.allow_refusals:
                counts["vmafx_refused"] += 1
                refusals.add(error.split(" (reference ")[0])
            elif not refused and ours is None:
                problems.append(f"vmafx failed where upstream scores: {error}")
            elif not refused:
                for frame, values in enumerate(ours):
                    for name, got in values.items():
                        counts["values"] += 1
                        want = upstream.get((frame, name))
                        if not same(want, got):
                            problems.append(f"frame {frame} {name}: upstream {want!r}, vmafx {got!r}")
                if len(ours) != case["frames"]:
                    problems.append(f"vmafx wrote {len(ours)} frames of {case['frames']}")
            if refused:
                counts["upstream_refused"] += 1
                if ours is not None:
                    problems.append(f"upstream refuses ({up_error}), vmafx scores")
            if problems:
                counts["differing_cases"] += 1
                print(f"DIFFERS {label}")
                for p in problems[:8]:
                    print(f"  {p}")
                if args.keep:
                    keep = os.path.join(args.keep, f"case{case['seed']}")
                    os.makedirs(keep, exist_ok=True)
                    for src in (ref, dist):
                        with open(src, "rb") as s, open(os.path.join(keep, os.path.basename(src)), "wb") as d:
                            d.write(s.read())
    for message in sorted(refusals):
        print(f"refused by vmafx, scored by upstream: {message}")
    print(f"{counts['cases']} cases, {counts['values']} values compared, {counts['differing_cases']} cases differ, "
          f"{counts['upstream_refused']} refused by upstream"
          + (f", {counts['vmafx_refused']} by vmafx alone" if args.allow_refusals else "")
          + f" (features: {' '.join(features)})")
    return 1 if counts["differing_cases"] else 0


if __name__ == "__main__":
    sys.exit(main())
