#!/usr/bin/python3
"""The Python package's cost over the `vmafx` command (issue 27's target: at most 2 % at 1920x1080):
vmaf_v0.6.1 on a 1920x1080 8-bit pair of FRAMES frames (the fixture autumn_1920x1080_420p8's 6
frames repeated, written to a temporary folder as .y4m, in page cache), in interleaved rounds:
  cli     the command, `vmafx -r ref.y4m -d dist.y4m -q --json -o out.json` (a process: its start
          and the models' loading included);
  file    vmafx.score("ref.y4m", "dist.y4m") in this process, then Result.to_json();
  arrays  vmafx.score on the same pixels as NumPy arrays (read beforehand), then to_json().
Prints each form's median and best wall time and the ratios to the command. A benchmark, not a
test: its figures go to docs/performance.md with the machine and this command line.

usage: PYTHONPATH=build/python bench/python_overhead.py BUILD/vmafx FIXTURES_DIR [FRAMES [ROUNDS [THREADS]]]"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import vmafx


def y4m_planes(path, w, h, frames):
    """The frames of an 8-bit 4:2:0 raw file as (Y, Cb, Cr) arrays."""
    cw, ch = (w + 1) // 2, (h + 1) // 2
    size = w * h + 2 * cw * ch
    data = np.fromfile(path, np.uint8, count=size * frames).reshape(frames, size)
    return (data[:, :w * h].reshape(frames, h, w), data[:, w * h:w * h + cw * ch].reshape(frames, ch, cw),
            data[:, w * h + cw * ch:].reshape(frames, ch, cw))


def main():
    cli, fixtures = sys.argv[1], sys.argv[2]
    frames = int(sys.argv[3]) if len(sys.argv) > 3 else 48
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    w, h = 1920, 1080
    src = os.path.join(fixtures, "autumn_1920x1080_420p8")
    tmp = tempfile.mkdtemp(prefix="vmafx-pybench-")
    try:
        frame_bytes = w * h * 3 // 2
        arrays = {}
        paths = {}
        for which in ("ref", "dist"):
            raw = open(os.path.join(src, f"{which}.yuv"), "rb").read()
            have = len(raw) // frame_bytes
            chunks = [raw[(k % have) * frame_bytes:(k % have + 1) * frame_bytes] for k in range(frames)]
            paths[which] = os.path.join(tmp, f"{which}.y4m")
            with open(paths[which], "wb") as f:
                f.write(f"YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C420jpeg\n".encode())
                for c in chunks:
                    f.write(b"FRAME\n")
                    f.write(c)
            rawpath = os.path.join(tmp, f"{which}.yuv")
            with open(rawpath, "wb") as f:
                f.write(b"".join(chunks))
            arrays[which] = y4m_planes(rawpath, w, h, frames)
        out = os.path.join(tmp, "out.json")
        args = ["-q", "--json", "-o", out] + (["--threads", str(threads)] if threads else [])
        times = {"cli": [], "file": [], "arrays": []}
        vmafx.score(paths["ref"], paths["dist"], frames=2, threads=threads)  # warm: the models' first load
        for _ in range(rounds):
            t = time.perf_counter()
            subprocess.run([cli, "-r", paths["ref"], "-d", paths["dist"], *args], check=True)
            times["cli"].append(time.perf_counter() - t)
            t = time.perf_counter()
            vmafx.score(paths["ref"], paths["dist"], threads=threads).to_json()
            times["file"].append(time.perf_counter() - t)
            t = time.perf_counter()
            vmafx.score(arrays["ref"], arrays["dist"], threads=threads).to_json()
            times["arrays"].append(time.perf_counter() - t)
        base = statistics.median(times["cli"])
        print(f"vmaf_v0.6.1, {w}x{h} 8-bit 4:2:0, {frames} frames, {rounds} interleaved rounds, "
              f"threads {threads or 'all'} ({os.cpu_count()} cores)")
        for form, ts in times.items():
            med = statistics.median(ts)
            print(f"{form:7s} median {med:.3f} s  best {min(ts):.3f} s  {frames / med:.1f} fps  "
                  f"ratio to cli {med / base:.3f}")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
