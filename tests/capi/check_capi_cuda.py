#!/usr/bin/env python3
"""libvmaf_cuda.h against the CLI, bit for bit: runs tests/capi/test_capi_cuda.c's `run` mode with
no CUDA state (cpu), with an imported state and host pictures (host: the `--backend cuda` path)
and with DEVICE preallocated pictures filled by cudaMemcpy2D (device), with the models and
features of check_capi.py (and once with vmaf_v1.0.16_3d0h in place of vmaf_v0.6.1), ciede (a twin
reading all three planes) and null (no twin: the CPU half, from downloaded device pictures),
and compares every per-frame value, every pooled value and the model and collection pools with
`vmafx --backend cuda` and with the CPU CLI (the twins are exact, docs/parity.md; metrics
without a twin run on the CPU in both).

usage: check_capi_cuda.py TEST_PROGRAM VMAFX
Exit 77 (skipped) when the fixtures are absent or CUDA is unusable (the test program exits 77)."""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_capi import FIXTURES, compare, fixture_format, missing  # noqa: E402

# (fixture, threads, model): 8-bit 4:2:0, 12-bit 4:4:4 with worker threads, 10-bit 4:2:2; and
# vmaf_v1.0.16_3d0h (cambi and SpEED among its features: FFmpeg's libvmaf_cuda filter with a
# v1.0.16 model fails upstream for want of their CUDA extractors).
CASES = [("path_576x324_420p8", 0, "vmaf_v0.6.1"), ("cups_960x540_444p12", 3, "vmaf_v0.6.1"),
         ("fallenleaf_1280x720_422p10", 0, "vmaf_v0.6.1"), ("path_576x324_420p8", 2, "vmaf_v1.0.16_3d0h")]


def main():
    test_program, vmafx = sys.argv[1], sys.argv[2]
    absent = sorted({c[0] for c in CASES if not os.path.isfile(os.path.join(FIXTURES, c[0], "ref.yuv"))})
    if absent:
        return missing(f"fixtures {', '.join(absent)} not unpacked in {FIXTURES}")
    # CUDA usable here? (The CLI's --backend cuda would fail without it.)
    probe = subprocess.run([test_program, "errors"], capture_output=True, text=True)
    if probe.returncode == 77:
        print(probe.stdout.strip())
        return 77
    failures = 0
    for fixture, threads, model in CASES:
        w, h, sub, bpc = fixture_format(fixture)
        ref, dist = (os.path.join(FIXTURES, fixture, n) for n in ("ref.yuv", "dist.yuv"))
        with tempfile.TemporaryDirectory(prefix="vmafx_capi_cuda_") as tmp:
            base = [vmafx, "-r", ref, "-d", dist, "-w", str(w), "-h", str(h), "-p", sub, "-b", str(bpc), "-q",
                    "-m", f"version={model}:name=vmaf", "-m", "version=vmaf_b_v0.6.3:name=vmaf_b",
                    "--feature", "psnr", "--feature", "float_ssim", "--feature", "ciede", "--feature", "null",
                    "--precision", "max",
                    "--json"]
            cli = {}
            for backend in ("cuda", "cpu"):
                path = os.path.join(tmp, f"cli_{backend}.json")
                subprocess.run(base + ["--backend", backend, "-o", path], check=True)
                cli[backend] = json.load(open(path))
            names = []
            for fr in cli["cuda"]["frames"]:
                for n in fr["metrics"]:
                    if n not in names:
                        names.append(n)
            names_file = os.path.join(tmp, "names.txt")
            open(names_file, "w").write("\n".join(names) + "\n")
            for mode in ("cpu", "host", "device"):
                run = subprocess.run([test_program, "run", mode, ref, dist, str(w), str(h), sub, str(bpc), str(threads),
                                      names_file, model], capture_output=True, text=True)
                if run.returncode == 77:
                    print(run.stdout.strip())
                    return 77
                if run.returncode != 0:
                    failures += 1
                    print(f"{fixture} {mode}: exit {run.returncode}: {run.stderr.strip()}")
                    continue
                for backend in ("cuda", "cpu"):
                    case = f"{fixture} threads={threads} {model}: C API {mode} against the CLI --backend {backend}"
                    bad, checked = compare(case, cli[backend], run.stdout)
                    failures += bad
                    print(f"{case}: {checked} values compared", flush=True)
    print("FAILED" if failures else "all equal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
