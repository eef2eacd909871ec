"""The Python package (python/vmafx, issue 27) against the `vmafx` command: the same doubles, bit for
bit, and the same result files, on the shipped sample pair (samples/, 576x324 8-bit 4:2:0, always
present) and, where ../shared's fixtures are unpacked (.fixtures, or VMAFX_FIXTURES), on a 10-bit
4:2:2 one and on raw .yuv input; errors as Python exceptions naming the file or option, and no
file written by a failed write. Run by ctest (test `python`) with PYTHONPATH=build/python and
VMAFX_CLI_BIN=build/vmafx, under Debian's /usr/bin/python3. Every file goes to pytest's tmp_path."""
import json
import os
import re
import struct
import subprocess
import threading

import numpy as np
import pandas as pd
import pytest

import vmafx

from common import CLI, DIST, REF, ROOT, fixture, read_raw, read_y4m


def cli(tmp_path, args, fmt="json", precision="max"):
    """The CLI's output file of `args` (text) and its path."""
    out = tmp_path / f"cli.{fmt}"
    cmd = [CLI, *args, f"--{fmt}", "-o", str(out), "-q"]
    if precision is not None:
        cmd += ["--precision", precision]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(cmd)}: {r.stderr}"
    return out.read_text()


def bits(x):
    return struct.pack("<d", float(x))


def without_fps(text):
    """A result file without its run-time figure (the "fps" of JSON and XML): everything else
    must be the CLI's bytes."""
    return re.sub(r'("fps": |fps=")[0-9.]+', r"\1", text)


def assert_same_doubles(result, cli_json):
    """Every per-frame value and every pooled value of `result` is the CLI's double (its
    --precision max JSON, %.17g: parses back to the same double)."""
    doc = json.loads(cli_json)
    frames = doc["frames"]
    assert list(result.frames.index) == [f["frameNum"] for f in frames]
    assert result.frames.dtypes.eq(np.float64).all()
    for f in frames:
        assert set(f["metrics"]) == set(result.frames.columns)
        for name, value in f["metrics"].items():
            got = result.frames.at[f["frameNum"], name]
            assert bits(got) == bits(value), f"frame {f['frameNum']} {name}: {got!r} != CLI {value!r}"
    for name, methods in doc["pooled_metrics"].items():
        for method, value in methods.items():
            got = result.pooled.at[name, method]
            assert bits(got) == bits(value), f"pooled {name} {method}: {got!r} != CLI {value!r}"
    assert result.aggregate.keys() == doc.get("aggregate_metrics", {}).keys()
    for name, value in doc.get("aggregate_metrics", {}).items():
        assert bits(result.aggregate[name]) == bits(value), name


def test_default_model_matches_the_cli_bit_for_bit(tmp_path):
    result = vmafx.score(REF, DIST)
    assert_same_doubles(result, cli(tmp_path, ["-r", REF, "-d", DIST]))
    assert len(result.frames) == 10
    assert [m["name"] for m in result.models] == ["vmaf"]
    # The README's figure for this pair (vmaf_v0.6.1, pooled mean).
    assert f"{result.models[0]['mean']:.6f}" == "66.246113"
    assert result.pooled.at["vmaf", "mean"] == result.models[0]["mean"]
    assert list(result.backends["backend"]) == ["cpu"] * len(result.backends)
    assert result.format == {"width": 576, "height": 324, "bit_depth": 8, "pixel_format": "420"}


def test_result_files_are_the_clis_bytes(tmp_path):
    args = ["-r", REF, "-d", DIST, "--feature", "psnr=enable_apsnr=true", "--frame_cnt", "4"]
    result = vmafx.score(REF, DIST, features=["psnr=enable_apsnr=true"], frames=4)
    for fmt, method in (("json", result.to_json), ("xml", result.to_xml), ("csv", result.to_csv)):
        for precision, flag in ((None, None), (3, "3"), ("max", "max")):
            want = without_fps(cli(tmp_path, args, fmt, flag))
            assert without_fps(method(precision=precision)) == want, (fmt, precision)
            out = tmp_path / f"py.{fmt}"
            assert method(out, precision=precision) is None
            assert without_fps(out.read_text()) == want, (fmt, precision)
    # psnr's run-wide aggregates (apsnr) are in the files and in Result.aggregate.
    assert set(result.aggregate) == {"apsnr_y", "apsnr_cb", "apsnr_cr"}
    assert_same_doubles(result, cli(tmp_path, args))


def test_features_options_subsample_and_skips(tmp_path):
    args = ["-r", REF, "-d", DIST, "-n", "--feature", "float_ssim=enable_lcs=true", "--feature", "psnr_hvs",
            "--subsample", "3", "--frame_skip_ref", "1", "--frame_skip_dist", "1", "--threads", "2"]
    result = vmafx.score(REF, DIST, model=None, features=["float_ssim=enable_lcs=true", "psnr_hvs"], subsample=3,
                         skip_ref=1, skip_dist=1, threads=2)
    assert result.models == []
    assert list(result.frames.index) == [0, 3, 6]
    assert {"float_ssim", "float_ssim_l", "psnr_hvs", "psnr_hvs_y"} <= set(result.frames.columns)
    assert_same_doubles(result, cli(tmp_path, args))


def test_several_models_by_name_syntax_and_file(tmp_path):
    model_file = os.path.join(ROOT, "models", "vmaf_v0.6.1neg.json")
    models = ["vmaf_v0.6.1", "version=vmaf_4k_v0.6.1:name=vmaf_4k", "path=" + model_file + ":name=neg"]
    result = vmafx.score(REF, DIST, model=models, frames=3)
    args = ["-r", REF, "-d", DIST, "--frame_cnt", "3", "-m", "version=vmaf_v0.6.1"] + \
        [a for m in models[1:] for a in ("-m", m)]
    assert [m["name"] for m in result.models] == ["vmaf", "vmaf_4k", "neg"]
    assert_same_doubles(result, cli(tmp_path, args))
    # A model file by its path alone.
    alone = vmafx.score(REF, DIST, model=model_file, frames=2)
    assert [m["label"] for m in alone.models] == [model_file]
    assert_same_doubles(alone, cli(tmp_path, ["-r", REF, "-d", DIST, "--frame_cnt", "2", "-m", "path=" + model_file]))


def test_preset_replaces_the_default_model(tmp_path):
    result = vmafx.score(REF, DIST, aom_ctc="v7.0", frames=2)
    assert_same_doubles(result, cli(tmp_path, ["-r", REF, "-d", DIST, "--frame_cnt", "2", "--aom_ctc", "v7.0"]))
    doc = json.loads(cli(tmp_path, ["-r", REF, "-d", DIST, "--frame_cnt", "2", "--aom_ctc", "v7.0"]))
    assert list(result.frames.columns) == list(doc["frames"][0]["metrics"])


def test_raw_yuv_and_a_422_10_bit_fixture(tmp_path):
    path = fixture("fallenleaf_1280x720_422p10")
    ref, dist = os.path.join(path, "ref.yuv"), os.path.join(path, "dist.yuv")
    raw = dict(width=1280, height=720, pixel_format="422", bitdepth=10)
    result = vmafx.score(ref, dist, features=["psnr"], frames=2, **raw)
    args = ["-r", ref, "-d", dist, "-w", "1280", "-h", "720", "-p", "422", "-b", "10", "--feature", "psnr",
            "--frame_cnt", "2"]
    assert_same_doubles(result, cli(tmp_path, args))
    assert result.format == {"width": 1280, "height": 720, "bit_depth": 10, "pixel_format": "422"}
    if os.path.isfile(os.path.join(path, "ref.y4m")):  # the same pictures as .y4m: the same values
        y4m = vmafx.score(os.path.join(path, "ref.y4m"), os.path.join(path, "dist.y4m"), features=["psnr"], frames=2)
        pd.testing.assert_frame_equal(y4m.frames, result.frames, check_exact=True)


def test_arrays_and_iterators_give_the_files_values():
    ref, dist = read_y4m(REF), read_y4m(DIST)
    assert ref[0].shape == (10, 324, 576) and ref[1].shape == (10, 162, 288)
    features = ["psnr", "float_ssim", "psnr_hvs"]
    want = vmafx.score(REF, DIST, features=features)
    arrays = vmafx.score(ref, dist, features=features)
    pd.testing.assert_frame_equal(arrays.frames, want.frames, check_exact=True)
    pd.testing.assert_frame_equal(arrays.pooled, want.pooled, check_exact=True)
    assert arrays.to_json() .split("\n", 3)[3] == want.to_json().split("\n", 3)[3]  # all but version and fps
    # An iterator of frames (a generator: the frame count unknown until its end), against arrays.
    frames = vmafx.score((f for f in zip(*ref)), iter(list(zip(*dist))), features=features)
    pd.testing.assert_frame_equal(frames.frames, want.frames, check_exact=True)
    # Luma alone, for a model whose metrics read luma only.
    luma = vmafx.score(ref[0], dist[0])
    pd.testing.assert_frame_equal(luma.frames, vmafx.score(REF, DIST).frames, check_exact=True)
    # Non-contiguous views (every other frame) and a file against arrays.
    half = vmafx.score(tuple(p[::2] for p in ref), tuple(p[::2] for p in dist), model=None, features="psnr")
    assert list(half.frames.index) == [0, 1, 2, 3, 4]
    assert bits(half.frames.at[1, "psnr_y"]) == bits(want.frames.at[2, "psnr_y"])
    mixed = vmafx.score(REF, dist, features=features)
    pd.testing.assert_frame_equal(mixed.frames, want.frames, check_exact=True)


def test_arrays_of_a_10_bit_422_fixture():
    path = fixture("fallenleaf_1280x720_422p10")
    raw = dict(width=1280, height=720, pixel_format="422", bitdepth=10)
    want = vmafx.score(os.path.join(path, "ref.yuv"), os.path.join(path, "dist.yuv"), features=["psnr", "ciede"],
                       frames=2, **raw)
    ref = read_raw(os.path.join(path, "ref.yuv"), 1280, 720, "422", 10, 2)
    dist = read_raw(os.path.join(path, "dist.yuv"), 1280, 720, "422", 10, 2)
    got = vmafx.score(ref, dist, features=["psnr", "ciede"], bitdepth=10)
    pd.testing.assert_frame_equal(got.frames, want.frames, check_exact=True)
    assert got.format == {"width": 1280, "height": 720, "bit_depth": 10, "pixel_format": "422"}


def test_bad_arrays_are_refused_naming_the_video_and_frame():
    ref, dist = read_y4m(REF), read_y4m(DIST)
    with pytest.raises(ValueError, match="uint16 samples need bitdepth"):
        vmafx.score(tuple(p.astype(np.uint16) for p in ref), dist)
    with pytest.raises(ValueError, match="must be uint8 .8 bits. or uint16"):
        vmafx.score(tuple(p.astype(np.float32) for p in ref), dist)
    with pytest.raises(ValueError, match="fit no subsampling"):
        vmafx.score((ref[0], ref[1][:, :100], ref[2][:, :100]), dist)
    with pytest.raises(ValueError, match="different frame counts"):
        vmafx.score((ref[0], ref[1][:5], ref[2]), dist)
    # The same arrays on both sides are read twice (as the CLI reads one file twice); one iterator
    # cannot be.
    same = vmafx.score(ref, ref, model=None, features="psnr", frames=2)
    pd.testing.assert_frame_equal(same.frames, vmafx.score(REF, REF, model=None, features="psnr", frames=2).frames,
                                  check_exact=True)
    frames = zip(*ref)
    with pytest.raises(ValueError, match="same iterator"):
        vmafx.score(frames, frames)
    # Arrays that went through pickle (an equal dtype that is another object).
    import pickle
    pickled = pickle.loads(pickle.dumps(ref))
    pd.testing.assert_frame_equal(vmafx.score(pickled, dist, frames=2).frames, vmafx.score(REF, DIST, frames=2).frames,
                                  check_exact=True)
    with pytest.raises(vmafx.Error, match="different|frames"):
        vmafx.score(tuple(p[:9] for p in ref), dist)
    # The run needs chroma (psnr), the arrays have none.
    with pytest.raises(vmafx.Error, match="reference frames: frame 0: the run needs the chroma planes"):
        vmafx.score(ref[0], dist[0], model=None, features="psnr")
    # A frame of another shape in the middle of an iterator: the run fails naming the frame.
    bad = list(zip(*dist))
    bad[4] = (bad[4][0][:-2], bad[4][1], bad[4][2])
    with pytest.raises(vmafx.Error, match="distorted frames: frame 4: plane Y has shape"):
        vmafx.score(ref, iter(bad), model=None, features="psnr")

    def failing():
        yield tuple(p[0] for p in dist)
        raise RuntimeError("decoder broke")

    with pytest.raises(vmafx.Error, match="frame 1: the frame iterator raised.*decoder broke"):
        vmafx.score(tuple(p[:2] for p in ref), failing(), model=None, features="psnr")
    with pytest.raises(vmafx.Error, match="no frame"):
        vmafx.score(ref, iter([]))

    def broken():
        raise KeyError("boom")
        yield

    with pytest.raises(vmafx.Error, match="distorted frames: frame 0: the frame iterator raised KeyError"):
        vmafx.score(ref, broken())
    with pytest.raises(ValueError, match="expected a path"):
        vmafx.score(ref, 42)


def test_plot_draws_each_models_per_frame_scores(tmp_path):
    result = vmafx.score(REF, DIST, model=["vmaf_v0.6.1", "version=vmaf_v0.6.1neg:name=neg"], features="psnr")
    fig = result.plot()
    lines = fig.axes[0].get_lines()
    assert [l.get_label() for l in lines] == [f"{n} (mean {result.pooled.at[n, 'mean']:.3f})" for n in ("vmaf", "neg")]
    for line, name in zip(lines, ("vmaf", "neg")):
        assert list(line.get_xdata()) == list(range(10))
        assert [bits(v) for v in line.get_ydata()] == [bits(v) for v in result.frames[name]]
    assert [l.get_label().split()[0] for l in result.plot(["psnr_y", "psnr_cb"]).axes[0].get_lines()] == \
        ["psnr_y", "psnr_cb"]
    png = tmp_path / "scores.png"
    fig.savefig(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10000
    with pytest.raises(ValueError, match="no output 'nosuch'"):
        result.plot("nosuch")


def test_progress_callback_counts_the_frames():
    seen = []
    vmafx.score(REF, DIST, model=None, features="psnr", progress=lambda done, total: seen.append((done, total)))
    assert seen, "the callback was never called"
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert seen[-1] == (10, 10)


def test_progress_bar_on_standard_error(capsys):
    vmafx.score(REF, DIST, model=None, features="psnr", progress=True)
    err = capsys.readouterr().err
    assert "vmafx" in err and "10/10" in err, err
    with pytest.raises(ValueError, match="progress"):
        vmafx.score(REF, DIST, progress="yes")


def test_runs_in_threads_give_the_same_values():
    """Two runs at once from two Python threads (the GIL is released while each runs)."""
    results = [None, None]

    def work(k):
        results[k] = vmafx.score(REF, DIST, frames=4, threads=1)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pd.testing.assert_frame_equal(results[0].frames, results[1].frames, check_exact=True)


def test_errors_name_the_file_or_option(tmp_path):
    missing = str(tmp_path / "missing.y4m")
    with pytest.raises(vmafx.Error, match="missing.y4m"):
        vmafx.score(missing, DIST)
    garbage = tmp_path / "garbage.y4m"
    garbage.write_bytes(b"YUV4MPEG2 W-5 H3\n")
    with pytest.raises(vmafx.Error, match="garbage.y4m"):
        vmafx.score(str(garbage), DIST)
    with pytest.raises(ValueError, match="nosuch"):
        vmafx.score(REF, DIST, features=["nosuch"])
    with pytest.raises(ValueError, match="vmaf_v9"):
        vmafx.score(REF, DIST, model="vmaf_v9")
    with pytest.raises(ValueError, match="enable_lcs"):
        vmafx.score(REF, DIST, features=["float_ssim=enable_lcs=maybe"])
    with pytest.raises(ValueError, match="width, height, pixel_format and bitdepth"):
        vmafx.score(REF, DIST, width=64)
    with pytest.raises(ValueError, match="pixel format"):
        vmafx.score(REF, DIST, width=64, height=36, pixel_format="411", bitdepth=8)
    with pytest.raises(ValueError, match="backend"):
        vmafx.score(REF, DIST, backend="metal")
    with pytest.raises(ValueError, match="subsample"):
        vmafx.score(REF, DIST, subsample=0)
    with pytest.raises(ValueError, match="threads"):
        vmafx.score(REF, DIST, threads=-1)
    with pytest.raises(ValueError, match="gpu"):
        vmafx.score(REF, DIST, gpu=0)
    # A UsageError is a ValueError and a vmafx.Error.
    assert issubclass(vmafx.UsageError, ValueError) and issubclass(vmafx.UsageError, vmafx.Error)


def test_planes_one_sample_wide_need_the_pixel_format(tmp_path):
    """4:4:4 and 4:2:2 planes of a 1-wide picture have one shape: the caller says which, and
    the values are the CLI's for that format."""
    rng = np.random.default_rng(5)
    ref = tuple(rng.integers(0, 255, (2, 8, 1), np.uint8) for _ in range(3))
    dist = tuple(np.clip(p.astype(int) + rng.integers(-9, 9, p.shape), 0, 255).astype(np.uint8) for p in ref)
    with pytest.raises(ValueError, match="fit 444 and 422 alike: give pixel_format"):
        vmafx.score(ref, dist, model=None, features="ciede")
    for pix in ("444", "422"):
        got = vmafx.score(ref, dist, model=None, features="ciede", pixel_format=pix)
        files = []
        for name, video in (("ref", ref), ("dist", dist)):
            path = tmp_path / f"{name}_{pix}.yuv"
            path.write_bytes(b"".join(p[k].tobytes() for k in range(2) for p in video))
            files.append(str(path))
        want = cli(tmp_path, ["-r", files[0], "-d", files[1], "-w", "1", "-h", "8", "-p", pix, "-b", "8", "-n",
                              "--feature", "ciede"])
        assert_same_doubles(got, want)


def test_paths_the_os_takes(tmp_path):
    # A name that is not UTF-8 (as the CLI opens it), a path-like object and bytes.
    odd = os.path.join(os.fsencode(str(tmp_path)), b"r\xff.y4m")
    with open(REF, "rb") as src, open(odd, "wb") as dst:
        dst.write(src.read())
    want = vmafx.score(REF, DIST, frames=2).frames
    for ref in (os.fsdecode(odd), odd, __import__("pathlib").Path(os.fsdecode(odd))):
        pd.testing.assert_frame_equal(vmafx.score(ref, DIST, frames=2).frames, want, check_exact=True)
    with pytest.raises(vmafx.Error, match=r"missing\\xff.y4m"):
        vmafx.score(os.path.join(os.fsencode(str(tmp_path)), b"missing\xff.y4m"), DIST)
    # A NUL character is refused, not cut off.
    with pytest.raises(ValueError, match="null byte"):
        vmafx.score(REF + "\0junk", DIST)
    result = vmafx.score(REF, DIST, frames=1)
    with pytest.raises(ValueError, match="null byte"):
        result.to_json(str(tmp_path / "out.json") + "\0x")
    assert list(tmp_path.iterdir()) == [tmp_path / os.fsdecode(b"r\xff.y4m")]
    with pytest.raises(ValueError, match="model"):
        vmafx.score(REF, DIST, model=5)


def test_a_failed_write_names_the_path_and_leaves_no_file(tmp_path):
    result = vmafx.score(REF, DIST, model=None, features="psnr", frames=1)
    target = tmp_path / "no-such-folder" / "out.json"
    with pytest.raises(vmafx.Error, match="no-such-folder"):
        result.to_json(target)
    assert not target.parent.exists()
    with pytest.raises(ValueError, match="precision"):
        result.to_json(precision=18)
    # An existing file replaced by a successful write holds the whole new file.
    out = tmp_path / "out.xml"
    out.write_text("old")
    result.to_xml(out)
    assert out.read_text().startswith("<VMAF version=") and out.read_text().endswith("</VMAF>\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.xml"]
