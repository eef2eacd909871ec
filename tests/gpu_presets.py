#!/usr/bin/env python3
"""Every built-in model and every preset wholly on the GPU, with the CPU's values (issue 25,
item 4). For each of the built-in models (models/*.json: vmaf_v0.6.1 ... vmaf_v1.0.16_*) and
each of `--aom_ctc v1.0 .. v7.0` and `--nflx_ctc v1.0`, runs the CLI on a fixture with
`--backend cpu` and `--backend cuda` (`--precision max --json`) and checks:
  - the GPU run's provenance names backend "cuda" for every metric instance (none left on the
    CPU for want of a twin);
  - every per-frame value and every pooled value of the GPU run has the CPU run's bits.
Prints one line per run ("cuda: all" or the metrics left on the CPU; values compared; mismatches),
then "passed" or "FAILED". Exit 77 (skipped) without a usable CUDA device or without the fixture.

usage: gpu_presets.py VMAFX [FIXTURE_NAME] [FRAMES]   (default autumn_1920x1080_420p8, 3 frames)
VMAFX_FIXTURES names the unpacked fixtures' folder (default: the checkout's .fixtures)."""
import json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skip_missing import SKIP, missing  # noqa: E402

FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))
PRESETS = [["--aom_ctc", f"v{v}.0"] for v in range(1, 8)] + [["--nflx_ctc", "v1.0"]]


def fixture_args(name):
    ini = dict(l.strip().split("=", 1) for l in open(os.path.join(FIXTURES, name, "fixture.ini")) if "=" in l)
    pf = ini["pix_fmt"]  # e.g. yuv420p, yuv422p10le
    bits = pf[7:-2] if pf.endswith("le") else "8"
    d = os.path.join(FIXTURES, name)
    return ["-r", os.path.join(d, "ref.yuv"), "-d", os.path.join(d, "dist.yuv"), "-w", ini["width"], "-h",
            ini["height"], "-p", pf[3:6], "-b", bits]


def values(result):
    """{(frame or 'pooled', name[, statistic]): value} of a JSON result (values as parsed: doubles
    printed %.17g parse back to the same bits)."""
    out = {}
    for f in result["frames"]:
        for n, v in f["metrics"].items():
            out[(f["frameNum"], n)] = v
    for n, stats in result.get("pooled_metrics", {}).items():
        for s, v in stats.items():
            out[("pooled", n, s)] = v
    return out


def main():
    vmafx = sys.argv[1]
    fixture = sys.argv[2] if len(sys.argv) > 2 else "autumn_1920x1080_420p8"
    frames = sys.argv[3] if len(sys.argv) > 3 else "3"
    if not os.path.isfile(os.path.join(FIXTURES, fixture, "ref.yuv")):
        return missing(f"fixture {fixture} not unpacked in {FIXTURES}")
    base = [vmafx, *fixture_args(fixture), "--frame_cnt", frames, "-q", "--precision", "max", "--json"]
    models = sorted(n[:-5] for n in os.listdir(os.path.join(ROOT, "models")) if n.endswith(".json"))
    runs = [["-m", f"version={m}"] for m in models] + PRESETS
    failures = 0
    with tempfile.TemporaryDirectory(prefix="vmafx_gpu_presets_") as tmp:
        probe = subprocess.run([vmafx, *fixture_args(fixture), "--frame_cnt", "1", "-q", "--backend", "cuda",
                                "--json", "-o", os.path.join(tmp, "probe.json")], capture_output=True, text=True)
        if probe.returncode != 0:
            print("skipped: --backend cuda refused here:", probe.stderr.strip().splitlines()[-1:])
            return SKIP
        for args in runs:
            label = " ".join(args)
            got = {}
            for backend in ("cpu", "cuda"):
                path = os.path.join(tmp, f"{backend}.json")
                r = subprocess.run(base + args + ["--backend", backend, "-o", path], capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"{label} --backend {backend}: exit {r.returncode}: {r.stderr.strip()}")
                    failures += 1
                    break
                got[backend] = json.load(open(path))
            if len(got) < 2:
                continue
            on_cpu = [m for m, p in got["cuda"]["provenance"]["metrics"].items() if p["backend"] != "cuda"]
            cpu, gpu = values(got["cpu"]), values(got["cuda"])
            bad = [k for k in cpu if k not in gpu or gpu[k] != cpu[k]] + [k for k in gpu if k not in cpu]
            failures += len(on_cpu) + len(bad)
            print(f"{label}: cuda: {'all' if not on_cpu else 'NOT ' + ', '.join(on_cpu) + ' (on the CPU)'}; "
                  f"{len(cpu)} values compared, {len(bad)} differ" + (f" (first: {bad[:3]})" if bad else ""),
                  flush=True)
    print("FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
