"""The HTML report (vmafx.report, the command's --html; python/vmafx/report.py): its numbers are
the run's, its worst frames the lowest scores, its pictures the inputs' frames, the command's
page is the package's, and headless Chromium (Debian's) draws it. Every file goes to pytest's
tmp_path; Chromium runs with its profile there and is stopped by its process group."""
import base64
import html
import importlib
import io
import json
import os
import re
import shutil
import signal
import subprocess

import numpy as np
import pytest
from PIL import Image

import vmafx

report_module = importlib.import_module("vmafx.report")  # the module (vmafx.report is its function)

from common import CLI, DIST, REF, fixture, read_raw, read_y4m

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def pictures_of(page):
    """The PNG thumbnails of a page, decoded, in page order."""
    out = []
    for uri in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page):
        out.append(np.asarray(Image.open(io.BytesIO(base64.b64decode(uri))).convert("RGB")))
    return out


def test_the_page_holds_the_runs_values_worst_frames_and_pictures(tmp_path):
    result = vmafx.score(REF, DIST, features="psnr", skip_ref=1, skip_dist=1, progress=False)
    out = tmp_path / "report.html"
    vmafx.report(result, out, worst=4, pictures=2)
    page = out.read_text(encoding="utf-8")
    # Self-contained: plotly.js inside, nothing loaded from elsewhere.
    assert "plotly.js v" in page
    assert not re.search(r"<script\b[^>]*\bsrc\s*=", page) and not re.search(r"<link\b[^>]*\bhref\s*=", page)
    # Every pooled value, exactly, in the tooltips (%.17g parses back to the run's double).
    for name, row in result.pooled.iterrows():
        for method in ("mean", "min", "max", "harmonic_mean"):
            assert f'title="{row[method]:.17g}"' in page, (name, method)
    # The worst frames: the four lowest vmaf scores, lowest first.
    table = page.split("Worst frames (lowest vmaf)")[1].split("</table>")[0]
    listed = [int(f) for f in re.findall(r"<tr><td>\d+</td><td>(\d+)</td>", table)]
    assert listed == list(result.frames["vmaf"].sort_values(kind="stable").index[:4])
    # The pictures of the two worst: the reference's and the distorted's frame (skip 1: the
    # input's frame f + 1), as the test's own reader gives them, converted for display.
    ref, dist = read_y4m(REF), read_y4m(DIST)
    pics = pictures_of(page)
    assert len(pics) == 4
    for k, f in enumerate(listed[:2]):
        assert pics[2 * k].shape == (162, 288, 3)
        np.testing.assert_array_equal(pics[2 * k], report_module._rgb(tuple(p[f + 1] for p in ref), 8))
        np.testing.assert_array_equal(pics[2 * k + 1], report_module._rgb(tuple(p[f + 1] for p in dist), 8))
    assert not np.array_equal(pics[0], pics[1])  # the distorted picture is not the reference's
    # Provenance: the model's SHA-256 and each metric's backend.
    assert result.provenance["models"][0]["sha256"] in page
    for feature in result.backends["feature"]:
        assert f">{html.escape(feature)}</td><td class=\"name\">cpu</td>" in page


def test_pictures_of_arrays_and_none_from_an_iterator(tmp_path):
    ref, dist = read_y4m(REF), read_y4m(DIST)
    from_arrays = vmafx.score(ref, dist, progress=False)
    vmafx.report(from_arrays, tmp_path / "a.html", pictures=1)
    page = (tmp_path / "a.html").read_text(encoding="utf-8")
    worst = int(from_arrays.frames["vmaf"].idxmin())
    pics = pictures_of(page)
    np.testing.assert_array_equal(pics[0], report_module._rgb(tuple(p[worst] for p in ref), 8))
    # Luma arrays alone: grey pictures of the same luma.
    luma = vmafx.score(ref[0], dist[0], progress=False)
    vmafx.report(luma, tmp_path / "l.html", pictures=1)
    grey = pictures_of((tmp_path / "l.html").read_text(encoding="utf-8"))[0]
    np.testing.assert_array_equal(grey, report_module._rgb((ref[0][worst],), 8))
    assert (grey[..., 0] == grey[..., 1]).all()
    # An iterator's frames are gone: the page says so and has no picture.
    it = vmafx.score(iter(list(zip(*ref))), iter(list(zip(*dist))), progress=False)
    vmafx.report(it, tmp_path / "i.html")
    page = (tmp_path / "i.html").read_text(encoding="utf-8")
    assert pictures_of(page) == [] and "No pictures: the reference video cannot be read again" in page


def test_read_pictures_of_a_10_bit_422_raw_file():
    path = os.path.join(fixture("fallenleaf_1280x720_422p10"), "ref.yuv")
    want = read_raw(path, 1280, 720, "422", 10, 3)
    got = vmafx._vmafx.read_pictures(os.fsencode(path), (1280, 720, "422", 10), [2, 0])
    assert len(got) == 2  # in ascending order of frame
    for k, f in enumerate((0, 2)):
        for p in range(3):
            assert got[k][p].dtype == np.uint16
            np.testing.assert_array_equal(got[k][p], want[p][f])
    with pytest.raises(vmafx.Error, match=r"ref\.yuv: .*9999"):
        vmafx._vmafx.read_pictures(os.fsencode(path), (1280, 720, "422", 10), [9999])


def test_the_commands_page_is_the_packages(tmp_path):
    args = ["-r", REF, "-d", DIST, "--feature", "psnr", "--frame_skip_dist", "0"]
    r = subprocess.run([CLI, *args, "-q", "--html", str(tmp_path / "cli.html"), "--json", "-o",
                        str(tmp_path / "cli.json")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    result = vmafx.score(REF, DIST, features="psnr", progress=False)
    vmafx.report(result, tmp_path / "py.html")
    cli_page = (tmp_path / "cli.html").read_text(encoding="utf-8")
    py_page = (tmp_path / "py.html").read_text(encoding="utf-8")
    # The same page but for plotly's random element ids.
    assert UUID.sub("ID", cli_page) == UUID.sub("ID", py_page)
    assert len(pictures_of(cli_page)) == 6
    # A result file loaded back reports the same values, without pictures (no inputs known).
    loaded = vmafx.load(tmp_path / "cli.json")
    assert list(loaded.frames.columns) == list(result.frames.columns)
    vmafx.report(loaded, tmp_path / "loaded.html")
    assert "No pictures: the result was loaded from a file" in (tmp_path / "loaded.html").read_text(encoding="utf-8")


def test_report_errors_leave_no_file(tmp_path):
    result = vmafx.score(REF, DIST, progress=False)
    with pytest.raises(ValueError, match="no output 'nope'"):
        vmafx.report(result, tmp_path / "x.html", by="nope")
    with pytest.raises(ValueError, match="worst must be"):
        vmafx.report(result, tmp_path / "x.html", worst=-1)
    with pytest.raises(vmafx.Error, match=r"missing/x\.html: cannot write the output file"):
        vmafx.report(result, tmp_path / "missing" / "x.html")
    assert sorted(os.listdir(tmp_path)) == []
    # -o and --html naming one file: refused before the run.
    r = subprocess.run([CLI, "-r", REF, "-d", DIST, "-q", "--json", "-o", str(tmp_path / "same"), "--html",
                        str(tmp_path / "same")], capture_output=True, text=True)
    assert r.returncode == 2 and "are the same file" in r.stderr, r.stderr
    # The command refuses before scoring when the report cannot be made, naming why.
    for env, html_path, want in (({"VMAFX_PYTHON": str(tmp_path / "none")}, tmp_path / "y.html", "cannot run the Python"),
                                 ({}, tmp_path / "missing" / "y.html", "missing: No such file")):
        r = subprocess.run([CLI, "-r", REF, "-d", DIST, "-q", "--html", str(html_path)], capture_output=True, text=True,
                           env={**os.environ, **env})
        assert r.returncode == 1 and want in r.stderr, r.stderr
        assert "vmaf_v0.6.1:" not in r.stdout  # no run
    assert sorted(os.listdir(tmp_path)) == []
    with pytest.raises(vmafx.Error, match="not a JSON result file"):
        (tmp_path / "bad.json").write_text("{")
        vmafx.load(tmp_path / "bad.json")
    with pytest.raises(vmafx.Error, match="a result loaded from a file is not rendered again"):
        (tmp_path / "r.json").write_text(result.to_json())
        vmafx.load(tmp_path / "r.json").to_json()


def chromium():
    """Debian's Chromium, or a skip saying it is missing (a failure under VMAFX_TESTS_STRICT,
    where scripts/install_deps.sh installed it)."""
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("VMAFX_TESTS_STRICT") == "1":
            pytest.fail("chromium is not installed (VMAFX_TESTS_STRICT=1; scripts/install_deps.sh installs it)")
        pytest.skip("skipped: chromium is not installed (Debian: chromium)")
    return path


def run_chromium(tmp_path, *args):
    """Headless Chromium with its profile, cache and home in tmp_path; stopped, with every
    process it started, by its process group."""
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
           f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=15000", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=180)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    assert proc.returncode == 0, err.decode(errors="replace")[-2000:]
    return out.decode(errors="replace")


def test_chromium_draws_the_report(tmp_path):
    page = tmp_path / "report.html"
    r = subprocess.run([CLI, "-r", REF, "-d", DIST, "-q", "--feature", "psnr", "--html", str(page)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    url = page.as_uri()
    # The DOM after the scripts ran: plotly drew both charts, with one line per output.
    dom = run_chromium(tmp_path, "--dump-dom", url)
    assert dom.count('class="plot-container plotly"') == 2
    result = vmafx.score(REF, DIST, features="psnr", progress=False)
    assert dom.count('class="js-line"') == len(result.frames.columns)
    # A screenshot is not blank: the charts' colours and the pictures are there.
    shot = tmp_path / "shot.png"
    run_chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,2400", url)
    pixels = np.asarray(Image.open(shot).convert("RGB"))
    assert pixels.shape == (2400, 1200, 3)
    colours = np.unique(pixels.reshape(-1, 3), axis=0)
    assert len(colours) > 500
    assert (pixels.min(axis=2) < 240).mean() > 0.2  # not a white page: the charts and pictures fill it


def test_targets_names_and_loaded_files(tmp_path):
    """The page goes where -o would put it (a symlink's target, a FIFO in place); names from a
    result file cannot inject markup; a file without provenance is ranked by its vmaf; names
    that are not UTF-8 are shown, not fatal; frame lists give pictures; standard input none."""
    import threading

    result = vmafx.score(REF, DIST, progress=False)
    (tmp_path / "target.html").write_text("old")
    os.symlink(tmp_path / "target.html", tmp_path / "link.html")
    vmafx.report(result, tmp_path / "link.html", pictures=0)
    assert os.path.islink(tmp_path / "link.html") and "<!DOCTYPE html>" in (tmp_path / "target.html").read_text()
    os.mkfifo(tmp_path / "fifo")
    got = []
    reader = threading.Thread(target=lambda: got.append(open(tmp_path / "fifo", "rb").read()))
    reader.start()
    vmafx.report(result, tmp_path / "fifo", pictures=0)
    reader.join(timeout=60)
    assert got and got[0].startswith(b"<!DOCTYPE html>") and os.path.exists(tmp_path / "fifo")
    # A loaded file whose output name is markup: escaped everywhere, no script of its own.
    doc = json.loads(result.to_json(precision="max"))
    evil = "x</script><script>document.title='pwned'</script>"
    for f in doc["frames"]:
        f["metrics"][evil] = f["metrics"].pop("integer_adm2")
    doc["pooled_metrics"][evil] = doc["pooled_metrics"].pop("integer_adm2")
    (tmp_path / "evil.json").write_text(json.dumps(doc))
    loaded = vmafx.load(tmp_path / "evil.json")
    vmafx.report(loaded, tmp_path / "evil.html")
    page = (tmp_path / "evil.html").read_text(encoding="utf-8")
    assert "<script>document.title" not in page
    # Without provenance, the worst frames are the lowest vmaf.
    assert "Worst frames (lowest vmaf)" in page
    # A name that is not UTF-8 (bytes the file system holds) is shown replaced.
    bad = os.fsencode(str(tmp_path)) + b"/ref\xff.y4m"
    with open(REF, "rb") as src, open(bad, "wb") as dst:
        dst.write(src.read())
    r = subprocess.run([CLI.encode(), b"-r", bad, b"-d", DIST.encode(), b"-q", b"--html",
                        os.fsencode(str(tmp_path / "nb.html"))], capture_output=True)
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "nb.html").read_text(encoding="utf-8")
    assert "ref\ufffd.y4m" in page and len(pictures_of(page)) == 6
    # A list of 2D luma frames: pictures of those frames.
    ref, dist = read_y4m(REF), read_y4m(DIST)
    listed = vmafx.score(list(ref[0]), list(dist[0]), progress=False)
    vmafx.report(listed, tmp_path / "list.html", pictures=1)
    worst = int(listed.frames["vmaf"].idxmin())
    pics = pictures_of((tmp_path / "list.html").read_text(encoding="utf-8"))
    np.testing.assert_array_equal(pics[0], report_module._rgb((ref[0][worst],), 8))
    # A file gone since the run: the page says so.
    gone = tmp_path / "gone.y4m"
    gone.write_bytes(open(REF, "rb").read())
    run = vmafx.score(str(gone), DIST, progress=False)
    gone.write_bytes(b"")
    vmafx.report(run, tmp_path / "gone.html")
    assert "No pictures: " in (tmp_path / "gone.html").read_text(encoding="utf-8")
