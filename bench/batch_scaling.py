#!/usr/bin/python3
"""vmafx.batch on Dask: how the rate grows with the workers, and what segmenting costs (issue 27's
targets: N CPU workers at least 0.8 N times one worker's rate, for N up to cores / threads per
task; a title in segments on one worker at most 1.05 times its unsegmented time).

  scaling    32 equal pairs of 1920x1080 8-bit (vmaf_v0.6.1, FRAMES frames each: the fixture
             autumn_1920x1080_420p8's 6 frames repeated, .y4m in page cache), scored with
             resume=False on a LocalCluster of N worker processes (one thread each, vmafx
             threads=1 per task) for N = 1 .. cores, the Ns interleaved in each round;
  segments   one title of TITLE frames of the same pair on one worker: whole, and in 8 segments
             (each reading its temporal context, then stitched), interleaved.
The clusters are started before the rounds and their start is not timed. Prints the medians and
the ratios. A benchmark, not a test: its figures go to docs/performance.md with the machine and
this command line.

usage: PYTHONPATH=build/python bench/batch_scaling.py FIXTURES_DIR [FRAMES [ROUNDS [TITLE]]]"""
import os
import shutil
import statistics
import sys
import tempfile
import time

import dask
from distributed import Client, LocalCluster

import vmafx


def write_title(src, folder, frames, w=1920, h=1080):
    """ref.y4m and dist.y4m of `frames` frames: the fixture's frames repeated."""
    frame_bytes = w * h * 3 // 2
    out = []
    for which in ("ref", "dist"):
        raw = open(os.path.join(src, f"{which}.yuv"), "rb").read()
        have = len(raw) // frame_bytes
        path = os.path.join(folder, f"{which}_{frames}.y4m")
        with open(path, "wb") as f:
            f.write(f"YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C420jpeg\n".encode())
            for k in range(frames):
                f.write(b"FRAME\n" + raw[(k % have) * frame_bytes:(k % have + 1) * frame_bytes])
        out.append(path)
    return out


def print_table(title, columns, times, extra):
    """Prints a Markdown table: a row per key of `times` (its runs' seconds) with the median, the
    best and extra(key, median)'s cells."""
    print(title)
    print("| " + " | ".join([columns[0], "median", "best", *columns[1:]]) + " |")
    print("|" + " --- |" * (len(columns) + 2))
    for key, ts in times.items():
        m = statistics.median(ts)
        print("| " + " | ".join([str(key), f"{m:.2f} s", f"{min(ts):.2f} s", *extra(key, m)]) + " |")


def main():
    fixtures = sys.argv[1]
    frames = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    title_frames = int(sys.argv[4]) if len(sys.argv) > 4 else 96
    cores = os.cpu_count() or 1
    tmp = tempfile.mkdtemp(prefix="vmafx-batchbench-")
    clusters = {}
    try:
        with dask.config.set({"temporary-directory": tmp}):
            src = os.path.join(fixtures, "autumn_1920x1080_420p8")
            ref, dist = write_title(src, tmp, frames)
            tref, tdist = write_title(src, tmp, title_frames)
            pairs = [{"pair_id": f"p{k:02d}", "ref": ref, "dist": dist} for k in range(32)]
            title = [{"pair_id": "title", "ref": tref, "dist": tdist}]
            for n in range(1, cores + 1):
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
                clusters[n] = (cluster, Client(cluster))
            times = {n: [] for n in clusters}
            seg = {"whole": [], "8 segments": []}
            vmafx.batch(pairs[:2], os.path.join(tmp, "warm"), client=clusters[1][1], resume=False)  # page cache, imports
            for r in range(rounds):
                for n, (_, client) in clusters.items():
                    t = time.perf_counter()
                    table = vmafx.batch(pairs, os.path.join(tmp, f"out{n}"), client=client, resume=False)
                    times[n].append(time.perf_counter() - t)
                    assert (table["status"] == "ok").all()
                for name, segment in (("whole", None), ("8 segments", -(-title_frames // 8))):
                    t = time.perf_counter()
                    table = vmafx.batch(title, os.path.join(tmp, f"title_{segment}"), client=clusters[1][1],
                                        segment=segment, resume=False)
                    seg[name].append(time.perf_counter() - t)
                    assert (table["status"] == "ok").all()
                print(f"round {r + 1}/{rounds} done", file=sys.stderr)
        one = statistics.median(times[1])
        total = 32 * frames
        whole = statistics.median(seg["whole"])
        print_table(f"scaling: 32 pairs x {frames} frames of 1920x1080 8-bit, vmaf_v0.6.1, {rounds} rounds",
              ["workers", "frames/s", "speed-up", "speed-up / workers"], times,
              lambda n, m: [f"{total / m:.1f}", f"{one / m:.2f}", f"{one / m / n:.2f}"])
        print_table(f"\nsegments: one title of {title_frames} frames on one worker", ["run", "to whole"], seg,
              lambda name, m: [f"{m / whole:.3f}"])
    finally:
        for cluster, client in clusters.values():
            client.close()
            cluster.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
