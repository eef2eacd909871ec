"""vmafx.batch and vmafx-batch on a real Dask cluster (python/vmafx/batch.py): a scheduler and two
worker processes started here on 127.0.0.1, and stopped here by their process groups. Every
pair's result file must be the CLI's (--precision max JSON, but for the run's fps), whole or
split into segments; a worker killed mid-run, the driver killed and resumed and a poisoned pair
must not change that. The stitching is tested, not assumed: for every split of a short title,
the derived temporal context gives the whole run's values and one frame less of it does not.
Every file goes to pytest's tmp_path (the workers' spill folders too)."""
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

import vmafx
from vmafx import _vmafx

from common import CLI, DIST, REF, read_y4m

batch_module = sys.modules["vmafx.batch"]


def write_y4m(path, planes, order):
    """An 8-bit 4:2:0 y4m file of the frames `order` of (Y, Cb, Cr) arrays."""
    h, w = planes[0].shape[1:]
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C420jpeg\n".encode())
        for i in order:
            f.write(b"FRAME\n")
            for p in planes:
                f.write(np.ascontiguousarray(p[i]).tobytes())


@pytest.fixture(scope="module")
def title(tmp_path_factory):
    """A 40-frame title from the sample pair (its frames forth, back, forth, back)."""
    folder = tmp_path_factory.mktemp("title")
    order = list(range(10)) + list(range(9, -1, -1)) + list(range(10)) + list(range(9, -1, -1))
    ref, dist = folder / "ref.y4m", folder / "dist.y4m"
    write_y4m(ref, read_y4m(REF), order)
    write_y4m(dist, read_y4m(DIST), order)
    return str(ref), str(dist)


def cli_json(tmp_path, ref, dist, args=()):
    """The CLI's --precision max JSON of a pair, without its fps."""
    out = tmp_path / "cli.json"
    r = subprocess.run([CLI, "-r", ref, "-d", dist, *args, "--json", "-o", str(out), "-q", "--precision", "max"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return without_fps(out.read_text())


def without_fps(text):
    return re.sub(r'"fps": [0-9.e+-]+', '"fps": 0', text)


@contextlib.contextmanager
def dask_cluster(folder, workers=2):
    """A scheduler and `workers` worker processes (no nanny: a killed worker stays dead) on
    127.0.0.1; yields (client, scheduler file, worker processes); stops them all."""
    from distributed import Client

    folder.mkdir(parents=True, exist_ok=True)
    scheduler_file = folder / "scheduler.json"
    env = {**os.environ, "DASK_TEMPORARY_DIRECTORY": str(folder), "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    procs = []

    def start(module, *args, log):
        p = subprocess.Popen([sys.executable, "-m", module, *args], stdout=open(folder / log, "wb"),
                             stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=folder)
        procs.append(p)
        return p

    client = None
    try:
        start("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(scheduler_file), log="scheduler.log")
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert scheduler_file.exists(), (folder / "scheduler.log").read_text()
        worker_procs = [start("distributed.cli.dask_worker", "--scheduler-file", str(scheduler_file), "--nthreads", "1",
                              "--no-nanny", "--no-dashboard", "--host", "127.0.0.1", "--name", f"w{k}",
                              "--local-directory", str(folder / f"w{k}"), log=f"worker{k}.log")
                        for k in range(workers)]
        client = Client(scheduler_file=str(scheduler_file), timeout=60)
        client.wait_for_workers(workers, timeout=60)
        yield client, str(scheduler_file), worker_procs
    finally:
        if client is not None:
            client.close()
        for p in reversed(procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with dask_cluster(tmp_path_factory.mktemp("cluster")) as c:
        yield c


# Sixteen pairs: the sample with the CLI's options, and the title; expected: the CLI's file.
PAIRS = [
    ("default", (), {}),
    ("psnr", ("--feature", "psnr"), {"features": "psnr"}),
    ("ssim_lcs", ("--feature", "float_ssim=enable_lcs=true"), {"features": "float_ssim=enable_lcs=true"}),
    ("neg", ("-m", "version=vmaf_v0.6.1neg"), {"model": "vmaf_v0.6.1neg"}),
    ("two_models", ("-m", "version=vmaf_v0.6.1", "-m", "version=vmaf_4k_v0.6.1:name=vmaf4k"),
     {"model": "vmaf_v0.6.1;version=vmaf_4k_v0.6.1:name=vmaf4k"}),
    ("b_model", ("-m", "version=vmaf_b_v0.6.3"), {"model": "vmaf_b_v0.6.3"}),
    ("float", ("-m", "version=vmaf_float_v0.6.1"), {"model": "vmaf_float_v0.6.1"}),
    ("v1016", ("-m", "version=vmaf_v1.0.16_3d0h"), {"model": "vmaf_v1.0.16_3d0h"}),
    ("mffw", ("-n", "--feature", "motion=motion_five_frame_window=true:motion_moving_average=true"),
     {"options": json.dumps({"model": None}), "features": "motion=motion_five_frame_window=true:motion_moving_average=true"}),
    ("speed", ("-n", "--feature", "speed_temporal"), {"options": json.dumps({"model": None}), "features": "speed_temporal"}),
    ("skips", ("--frame_skip_ref", "2", "--frame_skip_dist", "2"), {"skip_ref": 2, "skip_dist": 2}),
    ("frame_cnt", ("--frame_cnt", "7"), {"frames": 7}),
    ("subsample", ("--subsample", "3"), {"subsample": 3}),
    ("apsnr", ("--feature", "psnr=enable_apsnr=true"), {"features": "psnr=enable_apsnr=true"}),
    ("ciede", ("--feature", "ciede", "--feature", "psnr_hvs"), {"features": "ciede;psnr_hvs"}),
]


def manifest_rows(title):
    rows = []
    for k, (pair_id, _, cols) in enumerate(PAIRS):
        rows.append({"pair_id": pair_id, "ref": REF, "dist": DIST, "rung": k, **cols})
    rows.append({"pair_id": "title", "ref": title[0], "dist": title[1], "rung": 99,
                 "features": "float_motion;motion=motion_moving_average=true"})
    return rows


def check_results(tmp_path, out, title):
    """Every ok pair's file is the CLI's; returns the summary table."""
    table = pd.read_csv(os.path.join(out, "results.csv"), keep_default_na=False)
    for pair_id, args, _ in PAIRS:
        row = table[table["pair_id"] == pair_id].iloc[0]
        assert row["status"] == "ok", (pair_id, row["error"])
        got = without_fps(open(os.path.join(out, row["result"])).read())
        assert got == cli_json(tmp_path, REF, DIST, args), pair_id
    row = table[table["pair_id"] == "title"].iloc[0]
    got = without_fps(open(os.path.join(out, row["result"])).read())
    assert got == cli_json(tmp_path, *title, ("--feature", "float_motion", "--feature",
                                              "motion=motion_moving_average=true")), "title"
    return table


def test_sixteen_pairs_and_a_title_in_eight_segments_equal_single_runs(tmp_path, cluster, title):
    client, _, _ = cluster
    rows = manifest_rows(title)
    # segment=5: the 40-frame title in 8 segments; the sample's 10 frames in 2 (apsnr and
    # subsample whole).
    planned = []
    real_segments = batch_module._segments

    def spy(n, size):
        planned.append((n, size))
        return real_segments(n, size)

    batch_module._segments = spy
    try:
        table = vmafx.batch(pd.DataFrame(rows), tmp_path / "out", client=client, segment=5)
    finally:
        batch_module._segments = real_segments
    assert (40, 5) in planned and len(real_segments(40, 5)) == 8
    assert len(table) == 16 and list(table["pair_id"]) == [r["pair_id"] for r in rows]
    assert list(table["rung"]) == [r["rung"] for r in rows]  # columns pass through
    assert sorted(table.attrs["computed"]) == sorted(r["pair_id"] for r in rows)
    check_results(tmp_path, str(tmp_path / "out"), title)
    # The summary's model means are the files' (exact doubles through CSV and JSON).
    doc = json.load(open(tmp_path / "out" / "results" / "default.json"))
    assert table.loc[0, "vmaf"] == doc["pooled_metrics"]["vmaf"]["mean"]
    # Resumed: nothing computed again.
    again = vmafx.batch(pd.DataFrame(rows), tmp_path / "out", client=client, segment=5)
    assert again.attrs["computed"] == []
    pd.testing.assert_frame_equal(again, table)


def test_a_poisoned_pair_fails_alone(tmp_path, cluster):
    client, _, _ = cluster
    (tmp_path / "short.yuv").write_bytes(b"\0" * 1000)
    rows = [{"pair_id": "good", "ref": REF, "dist": DIST},
            {"pair_id": "missing", "ref": REF, "dist": str(tmp_path / "none.y4m")},
            {"pair_id": "bad_size", "ref": str(tmp_path / "short.yuv"), "dist": str(tmp_path / "short.yuv"),
             "width": 576, "height": 324, "pixel_format": "420", "bitdepth": 8},
            {"pair_id": "bad_model", "ref": REF, "dist": DIST, "model": "vmaf_v9"}]
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    table = vmafx.batch(manifest, tmp_path / "out", client=client)
    status = dict(zip(table["pair_id"], table["status"]))
    assert status == {"good": "ok", "missing": "failed", "bad_size": "failed", "bad_model": "failed"}
    errors = dict(zip(table["pair_id"], table["error"]))
    assert "none.y4m" in errors["missing"] and "No such file" in errors["missing"]
    assert "short.yuv" in errors["bad_size"]
    assert "vmaf_v9" in errors["bad_model"]
    assert os.listdir(tmp_path / "out" / "results") == ["good.json"]


def test_damaged_inputs_fail_as_the_cli_whatever_the_segments(tmp_path, cluster):
    """A raw file whose size is not a whole number of frames (wrong geometry) and a y4m cut
    inside a frame: the CLI fails them, so does every split (the pair is one run)."""
    client, _, _ = cluster
    title = read_y4m(REF)
    write_y4m(tmp_path / "long.y4m", title, list(range(10)) * 3)
    data = (tmp_path / "long.y4m").read_bytes()
    (tmp_path / "cut.y4m").write_bytes(data[:len(data) - 1000])
    yuv = tmp_path / "ref.yuv"
    with open(yuv, "wb") as f:  # the sample's 10 frames as raw 576x324 4:2:0
        for k in range(10):
            for plane in title:
                f.write(plane[k].tobytes())
    rows = [{"pair_id": "cut", "ref": str(tmp_path / "cut.y4m"), "dist": str(tmp_path / "cut.y4m")},
            {"pair_id": "geometry", "ref": str(yuv), "dist": str(yuv), "width": 576, "height": 322,
             "pixel_format": "420", "bitdepth": 8}]
    for segment in (2, None):
        table = vmafx.batch(rows, tmp_path / f"out{segment}", client=client, segment=segment)
        assert list(table["status"]) == ["failed", "failed"], table["error"]
        assert "truncated" in table.loc[0, "error"] and "cut.y4m" in table.loc[0, "error"]
        assert "ref.yuv" in table.loc[1, "error"]


def test_resume_follows_the_rows_and_files(tmp_path, cluster):
    """A row changed and changed back, ids that sanitize alike, a journal line cut short by a
    crash: each result file holds its own row's run, and resume computes what does not match."""
    client, _, _ = cluster
    out = tmp_path / "out"

    def run(rows):
        return vmafx.batch(rows, out, client=client)

    a = {"pair_id": "a/b", "ref": REF, "dist": DIST, "frames": 2}
    b = {"pair_id": "a_b", "ref": REF, "dist": DIST, "frames": 3}
    first = run([a, b])
    second = run([b, a])
    assert second.attrs["computed"] == []
    files = dict(zip(second["pair_id"], second["result"]))
    assert files["a/b"] != files["a_b"]
    for pair_id, frames in (("a/b", 2), ("a_b", 3)):
        doc = json.load(open(out / files[pair_id]))
        assert len(doc["frames"]) == frames, pair_id
    assert list(first["frames"]) == [2, 3]
    p = {"pair_id": "p", "ref": REF, "dist": DIST, "frames": 2}
    assert run([p]).attrs["computed"] == ["p"]
    assert run([{**p, "frames": 3}]).attrs["computed"] == ["p"]
    back = run([p])  # the file holds the 3-frame run now: computed again
    assert back.attrs["computed"] == ["p"] and len(json.load(open(out / "results" / "p.json"))["frames"]) == 2
    with open(out / "journal.jsonl", "a") as f:
        f.write('{"key": "deadbeef", "pair_id": "zz", "sta')  # a crash inside an append
    c = {"pair_id": "c", "ref": REF, "dist": DIST, "frames": 2}
    assert run([c]).attrs["computed"] == ["c"]
    table = run([c])
    assert table.attrs["computed"] == [] and list(table["status"]) == ["ok"]


def test_the_command_on_a_local_cluster(tmp_path):
    """vmafx-batch without a scheduler: its own cluster of worker processes (which import the
    command's script again), an empty manifest, bad arguments."""
    script = os.path.join(os.path.dirname(CLI), "vmafx-batch")
    command = [script] if os.path.exists(script) else [sys.executable, "-m", "vmafx", "batch"]
    env = {**os.environ, "DASK_TEMPORARY_DIRECTORY": str(tmp_path)}
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"pair_id,ref,dist,frames\none,{REF},{DIST},3\n")
    r = subprocess.run([*command, str(manifest), "--out", str(tmp_path / "out"), "--workers", "1", "-q"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert "1 of 1 pairs scored" in r.stderr
    assert len(json.load(open(tmp_path / "out" / "results" / "one.json"))["frames"]) == 3
    manifest.write_text("pair_id,ref,dist\n")
    r = subprocess.run([*command, str(manifest), "--out", str(tmp_path / "empty"), "-q"], capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 0 and "0 of 0 pairs scored" in r.stderr, r.stderr
    for args, want in ((["--workers", "0"], "workers"), (["--scheduler-file", str(tmp_path / "none.json")],
                                                        "no such file")):
        manifest.write_text(f"pair_id,ref,dist\none,{REF},{DIST}\n")
        r = subprocess.run([*command, str(manifest), "--out", str(tmp_path / "o"), *args], capture_output=True,
                           text=True, timeout=120, env=env)
        assert r.returncode == 2 and want in r.stderr, r.stderr


def test_bad_manifests_name_the_row(tmp_path):
    with pytest.raises(ValueError, match=r"row 2: no dist"):
        vmafx.batch([{"pair_id": "a", "ref": REF, "dist": DIST}, {"pair_id": "b", "ref": REF}], tmp_path / "o")
    with pytest.raises(ValueError, match=r"row 2: pair_id 'a' is given twice"):
        vmafx.batch([{"pair_id": "a", "ref": REF, "dist": DIST}] * 2, tmp_path / "o")
    with pytest.raises(ValueError, match=r"row 1 \(a\): frames '1.5' is not a whole number"):
        vmafx.batch([{"pair_id": "a", "ref": REF, "dist": DIST, "frames": "1.5"}], tmp_path / "o")
    with pytest.raises(ValueError, match=r"nothing.csv: cannot read the manifest"):
        vmafx.batch(tmp_path / "nothing.csv", tmp_path / "o")
    with pytest.raises(ValueError, match="segment"):
        vmafx.batch([], tmp_path / "o", segment=0)
    with pytest.raises(ValueError, match=r"row 1 \(a\): options: 'frams' is not a keyword of vmafx.score"):
        vmafx.batch([{"pair_id": "a", "ref": REF, "dist": DIST, "options": '{"frams": 3}'}], tmp_path / "o")
    with pytest.raises(ValueError, match="the column 'status' is one the results write"):
        vmafx.batch([{"pair_id": "a", "ref": REF, "dist": DIST, "status": "x"}], tmp_path / "o")
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="file: cannot make the output folder"):
        vmafx.batch([{"pair_id": "a", "ref": REF, "dist": DIST}], tmp_path / "file")


def test_every_split_of_a_short_title_needs_the_derived_context():
    """Two segments [0, k) and [k, n) for every k, each run with the derived (before, after)
    around it, stitched: the whole run's values. With one frame less before (or after, where
    the context has any), some split differs: the context is needed, and no more is read than
    needed for these metrics."""
    n = 10
    configs = [
        ({}, (1, 1)),  # vmaf_v0.6.1: motion2
        ({"model": None, "features": ["motion=motion_five_frame_window=true:motion_moving_average=true"]}, (4, 2)),
        ({"model": None, "features": ["motion=motion_five_frame_window=true"]}, (3, 2)),
        ({"model": None, "features": ["motion=motion_moving_average=true"]}, (2, 1)),
        ({"model": None, "features": ["float_motion"]}, (1, 1)),
        ({"model": None, "features": ["speed_temporal"]}, (1, 0)),
        ({"model": None, "features": ["psnr", "float_ssim"]}, (0, 0)),
    ]
    for kwargs, want in configs:
        _, context = batch_module._plan(REF, DIST, dict(kwargs))
        assert context == want, kwargs
        whole = vmafx.score(REF, DIST, progress=False, **kwargs)

        def stitched(ctx, k):
            parts = []
            for a, b in ((0, k), (k, n)):
                start, end, first, keep = batch_module._segment_run(a, b, n, ctx)
                status, handle, first, keep, _ = batch_module._score_task(REF, DIST, kwargs, start, end, first, keep)
                assert status == "ok", handle
                parts.append((handle, first, keep))
            return vmafx.Result(_vmafx.stitch(parts))

        for k in range(1, n):
            got = stitched(context, k)
            pd.testing.assert_frame_equal(got.frames, whole.frames, check_exact=True)
            pd.testing.assert_frame_equal(got.pooled, whole.pooled, check_exact=True)
            assert got.to_json(precision="max").split("\n", 3)[3] == whole.to_json(precision="max").split("\n", 3)[3]
        for less in ((context[0] - 1, context[1]), (context[0], context[1] - 1)):
            if min(less) < 0:
                continue
            assert any(not stitched(less, k).frames.equals(whole.frames) for k in range(1, n)), (kwargs, less)


def test_stitch_refuses_parts_that_do_not_fit():
    a = vmafx.score(REF, DIST, progress=False, frames=5)
    b = vmafx.score(REF, DIST, progress=False, features="psnr", frames=5)
    with pytest.raises(vmafx.Error, match="part 1 has other outputs"):
        _vmafx.stitch([(a._handle, 0, 5), (b._handle, 0, 5)])
    with pytest.raises(vmafx.Error, match="part 0 keeps frames 3..9 of a run of 5"):
        _vmafx.stitch([(a._handle, 3, 6)])
    apsnr = vmafx.score(REF, DIST, progress=False, features="psnr=enable_apsnr=true", frames=5)
    with pytest.raises(vmafx.Error, match="aggregates"):
        _vmafx.stitch([(apsnr._handle, 0, 5)])
    with pytest.raises(vmafx.Error, match="no part"):
        _vmafx.stitch([])


def journal_keys(out):
    path = os.path.join(out, "journal.jsonl")
    if not os.path.exists(path):
        return []
    keys = []
    for line in open(path):
        with contextlib.suppress(ValueError):
            keys.append(json.loads(line)["key"])
    return keys


def test_a_worker_killed_mid_run(tmp_path, title):
    """SIGKILL one of two workers once the first pairs are in: the run completes on the other,
    with the same bits, each pair journaled once."""
    rows = manifest_rows(title)
    out = str(tmp_path / "out")
    with dask_cluster(tmp_path / "cluster") as (client, _, workers):
        killed = []

        def killer():
            deadline = time.monotonic() + 120
            while len(journal_keys(out)) < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            os.killpg(workers[1].pid, signal.SIGKILL)
            killed.append(len(journal_keys(out)))

        t = threading.Thread(target=killer)
        t.start()
        table = vmafx.batch(pd.DataFrame(rows), out, client=client, segment=5)
        t.join()
        assert workers[1].wait(timeout=30) == -signal.SIGKILL
    assert killed and killed[0] < len(rows), "the batch ended before the worker was killed"
    keys = journal_keys(out)
    assert len(keys) == len(set(keys)) == len(rows)
    assert (table["status"] == "ok").all(), table[table["status"] != "ok"]
    check_results(tmp_path, out, title)


def test_the_driver_killed_and_resumed(tmp_path, cluster, title):
    """vmafx-batch killed (SIGKILL) once some pairs are journaled; run again, it computes only
    the pairs the journal lacks, and the results are whole."""
    _, scheduler_file, _ = cluster
    rows = manifest_rows(title)
    manifest = tmp_path / "ladder.csv"
    pd.DataFrame(rows).to_csv(manifest, index=False)
    out = str(tmp_path / "out")
    command = [sys.executable, "-m", "vmafx", "batch", str(manifest), "--out", out, "--scheduler-file",
               scheduler_file, "--segment", "5", "-q"]
    driver = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(journal_keys(out)) < 3 and time.monotonic() < deadline and driver.poll() is None:
            time.sleep(0.02)
        os.killpg(driver.pid, signal.SIGKILL)
    finally:
        driver.wait()
    before = set(journal_keys(out))
    assert 3 <= len(before) < len(rows), f"{len(before)} pairs journaled when the driver was killed"
    r = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"({len(rows) - len(before)} computed now" in r.stderr, r.stderr
    keys = journal_keys(out)
    assert len(keys) == len(set(keys)) == len(rows) and before <= set(keys)
    check_results(tmp_path, out, title)


def test_a_local_cluster_when_no_client_is_given(tmp_path):
    import dask

    with dask.config.set({"temporary-directory": str(tmp_path)}):
        table = vmafx.batch([{"pair_id": "a", "ref": REF, "dist": DIST, "features": "psnr"}], tmp_path / "out",
                            workers=1)
    assert list(table["status"]) == ["ok"]
    assert without_fps((tmp_path / "out" / "results" / "a.json").read_text()) == \
        cli_json(tmp_path, REF, DIST, ("--feature", "psnr"))
    # The build's vmafx-batch command (the installed one has the same script).
    script = os.path.join(os.path.dirname(CLI), "vmafx-batch")
    if os.path.exists(script):
        r = subprocess.run([script, "--help"], capture_output=True, text=True)
        assert r.returncode == 0 and "--scheduler" in r.stdout


def test_gpu_workers_see_one_device_each_and_hold_a_gpu_resource(tmp_path):
    """gpus=: one worker per CUDA device, each with CUDA_VISIBLE_DEVICES of its own and a "GPU"
    resource that every GPU row's task needs. Shown on any machine (the workers start without
    a device); without CUDA the rows fail naming it, and nothing else runs them."""
    import dask

    with dask.config.set({"temporary-directory": str(tmp_path)}):
        cluster, client = batch_module.gpu_cluster([0, 1])
        try:
            client.wait_for_workers(2, timeout=60)
            seen = client.run(lambda: __import__("os").environ.get("CUDA_VISIBLE_DEVICES"))  # in each worker
            assert sorted(seen.values()) == ["0", "1"]
            resources = {w["name"]: w["resources"] for w in client.scheduler_info()["workers"].values()}
            assert resources == {"gpu0": {"GPU": 1}, "gpu1": {"GPU": 1}}
            if _vmafx.gpu_devices("cuda"):
                pytest.skip("skipped: this machine has CUDA devices (the GPU run is tests/python on the GPU machine)")
            table = vmafx.batch([{"pair_id": "a", "ref": REF, "dist": DIST}], tmp_path / "out", client=client,
                                gpus="all")
            assert list(table["status"]) == ["failed"]
            assert "cuda" in table.loc[0, "error"].lower()
        finally:
            client.close()
            cluster.close()
    with pytest.raises(ValueError, match="no usable CUDA device|is not a usable CUDA device"):
        vmafx.batch([{"pair_id": "a", "ref": REF, "dist": DIST}], tmp_path / "o2", gpus=[5])
