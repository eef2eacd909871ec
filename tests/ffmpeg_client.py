#!/usr/bin/env python3
"""A real client of the libvmaf C API: FFmpeg 5.1's libvmaf filter, built by
scripts/build_ffmpeg_client.sh against an installed libvmaf-compatible library, scores fixtures
and must give upstream libvmaf 3.2.0's golden values (../shared/golden) as upstream prints them.

  ffmpeg_client.py WORKDIR [--cli BIN] [FIXTURE ...]

WORKDIR is the build script's folder (the program is WORKDIR/build/ffmpeg). Each fixture's
.y4m pair runs five times through `ffmpeg -i dist.y4m -i ref.y4m -lavfi libvmaf=... -f null -`
(the filter's first input is the distorted video, its second the reference):

  default    no model option (FFmpeg's default: version=vmaf_v0.6.1), JSON log
  neg+psnr   model='version=vmaf_v0.6.1:name=vmaf|version=vmaf_v0.6.1neg:name=vmaf_neg',
             feature='name=psnr', n_threads=2, JSON log
  subsample  n_subsample=3, XML log
  csv        n_threads=4, pool=min (the "VMAF score" line is the minimum), CSV log
  path+sub   model='path=../shared/models/vmaf_v0.6.1neg.json:name=vmaf_neg' (the model read
             from its JSON file), subtitle log

On path_576x324_420p8, the CASES below (two models of one name, a model named like a feature
output, model_path= with enable_conf_interval=1 or beside a named model, feature=name=null) check
the log's names in upstream's order, their values and the "VMAF score" lines against what FFmpeg
printed and wrote on upstream's library (as upstream, a model's scores are stored only when the
client asks for them, and a name keeps its first value).

Bad options reach the library's error returns: an unknown model version, an unknown feature
and a missing model file must each make FFmpeg stop with its own message for that call's error
(exit status 1, no crash), as with upstream.

The golden run (one per fixture: every model and feature, all frames, one thread) holds every
value these runs print: thread counts do not change upstream's values, and with n_subsample=N
upstream computes the spatial features only on frames i % N == 0 (the motion features, which
read the previous frame, on all of them) and prints those frames, whose values are the golden
run's; their pooled values are recomputed here from the golden per-frame doubles in upstream's
order of operations (the same order also reproduces every golden pooled value of the full runs,
which is checked). Checked per run: the set of frames; the set of metrics (those upstream writes
for these models and features); every per-frame value; every pooled value (min, max, mean,
harmonic_mean) in the JSON and XML logs; and each "VMAF score: %f" line FFmpeg prints (one per
model, in order). A value passes when its text is the golden double printed as upstream prints it
(%.6f, or %.16f below 1e-6) or, from a library that prints every digit, when it is that double
exactly. On fixtures whose golden values leave the chroma out (odd sizes: see the golden file's
not_compared), psnr_cb and psnr_cr are not compared.

FFmpeg 5.1's filter takes 8- and 10-bit 4:2:0, 4:2:2 and 4:4:4 only (other depths would be
converted by FFmpeg before scoring), so the fixtures are 8- and 10-bit ones. Above 8 bits,
FFmpeg 5.1 (Debian's 5.1.9 included) hands the library a different picture than the video:
its copy_picture_data copies w bytes of each row where a row of 2-byte samples holds 2*w, so
the library scores pictures whose rows hold their first w bytes followed by the zeros of
vmaf_picture_alloc's zeroed buffer (later FFmpeg releases were not checked). No golden run scores
those pictures: for a >8-bit fixture the reference values are the CLI's (--cli BIN, the
build's vmafx, bit-exact with upstream; run with --precision max) on .yuv files holding exactly
those pictures, with both models and psnr, all frames; the checks are the same. A library that
does not zero the pictures it allocates fails there.

Exit 77 (skipped) when ../shared, the fixtures or the FFmpeg build (WORKDIR/skipped says why)
are absent. Default fixtures: tiny_64x36_420p8, path_576x324_420p8, odd_853x481_420p8 and
fallenleaf_1280x720_422p10 (8 and 10 bits, 4:2:0 and 4:2:2, an odd size; 4 s in all).
VMAFX_CLI_PRECISION_ARGS (default "--precision max") are the CLI's arguments for printing
every digit ("" for a CLI that already does)."""
import configparser, json, os, re, subprocess, sys, tempfile, time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skip_missing import missing  # noqa: E402
FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))
GOLDEN = os.environ.get("VMAFX_GOLDEN", os.path.join(os.path.dirname(ROOT), "shared", "golden"))
DEFAULT_FIXTURES = ["tiny_64x36_420p8", "path_576x324_420p8", "odd_853x481_420p8",
                    "fallenleaf_1280x720_422p10"]
CLI_PRECISION = os.environ.get("VMAFX_CLI_PRECISION_ARGS", "--precision max").split()

# What upstream 3.2.0 writes for these models and features (libvmaf's feature names as printed).
VMAF_FEATURES = {"integer_adm2", "integer_aim", "integer_adm3", "integer_adm_scale0",
                 "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3",
                 "integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2",
                 "integer_vif_scale3", "integer_motion2", "integer_motion3",
                 "VMAF_integer_feature_motion_sad_score"}
NEG_FEATURES = {f + "_egl_1" for f in VMAF_FEATURES if "_adm" in f or "_aim" in f or "_vif" in f}
PSNR = {"psnr_y", "psnr_cb", "psnr_cr"}
MOTION = {f for f in VMAF_FEATURES if "motion" in f}
NEG_MODEL_FILE = os.path.join(os.path.dirname(GOLDEN), "models", "vmaf_v0.6.1neg.json")

RUNS = [
    # name, filter options, log format, n_subsample, metrics, models (VMAF score lines, in order),
    # the pool method of those lines
    ("default", "", "json", 1, VMAF_FEATURES | {"vmaf"}, ["vmaf"], "mean"),
    ("neg+psnr", "model='version=vmaf_v0.6.1\\:name=vmaf|version=vmaf_v0.6.1neg\\:name=vmaf_neg'"
                 ":feature='name=psnr':n_threads=2", "json", 1,
     VMAF_FEATURES | NEG_FEATURES | PSNR | {"vmaf", "vmaf_neg"}, ["vmaf", "vmaf_neg"], "mean"),
    ("subsample", "n_subsample=3", "xml", 3, VMAF_FEATURES | {"vmaf"}, ["vmaf"], "mean"),
    ("csv", "n_threads=4:pool=min", "csv", 1, VMAF_FEATURES | {"vmaf"}, ["vmaf"], "min"),
    ("path+sub", f"model='path={NEG_MODEL_FILE}\\:name=vmaf_neg'", "sub", 1,
     NEG_FEATURES | MOTION | {"vmaf_neg"}, ["vmaf_neg"], "mean"),
]
POOL_METHODS = ("min", "max", "mean", "harmonic_mean")


def leading_zeros(x):
    """The count of zeros after the decimal point before the first nonzero digit, as upstream's
    output.c counts them (its choice between %.6f and %.16f)."""
    x = abs(x)
    frac = x - int(x)
    n = 0
    while frac < 1.0 and frac != 0:
        frac *= 10
        n += 1
    return n


def upstream_text(v):
    """A value as upstream libvmaf 3.2.0 writes it in its logs."""
    return ("%.6f" if leading_zeros(v) <= 6 else "%.16f") % v


def same(text, golden):
    """'printed' when text is golden as upstream prints it, 'exact' when text parses to the
    golden double itself (a library printing every digit), None otherwise."""
    if text == upstream_text(golden):
        return "printed"
    try:
        if float(text) == golden:
            return "exact"
    except (TypeError, ValueError):
        pass
    return None


def pooled(values):
    """Upstream's pooling (vmaf_feature_score_pooled): the doubles in frame order."""
    total = inv = 0.0
    lo = hi = values[0]
    for s in values:
        total += s
        inv += 1.0 / (s + 1.0)
        lo = min(lo, s)
        hi = max(hi, s)
    return {"min": lo, "max": hi, "mean": total / len(values), "harmonic_mean": len(values) / inv - 1.0}


def parse_log(path, fmt):
    """(frames {index: {metric: text}}, pooled {metric: {method: text}}) of a log as written."""
    with open(path) as fh:
        text = fh.read()
    if fmt == "json":
        d = json.loads(text, parse_float=str, parse_int=str, parse_constant=str)
        frames = {int(f["frameNum"]): f["metrics"] for f in d["frames"]}
        return frames, d["pooled_metrics"]
    if fmt == "xml":
        root = ET.fromstring(text)
        frames = {}
        for f in root.find("frames"):
            a = dict(f.attrib)
            frames[int(a.pop("frameNum"))] = a
        pool = {}
        for m in root.find("pooled_metrics"):
            a = dict(m.attrib)
            pool[a.pop("name")] = a
        return frames, pool
    if fmt == "csv":
        lines = text.splitlines()
        header = lines[0].rstrip(",").split(",")
        if header[0] != "Frame":
            raise ValueError(f"CSV header does not start with Frame: {lines[0]!r}")
        frames = {}
        for line in lines[1:]:
            cells = line.rstrip(",").split(",")
            if len(cells) != len(header):
                raise ValueError(f"CSV row of {len(cells)} cells under {len(header)} names: {line!r}")
            frames[int(cells[0])] = dict(zip(header[1:], cells[1:]))
        return frames, None
    if fmt == "sub":
        frames = {}
        for line in text.splitlines():
            m = re.fullmatch(r"\{(\d+)\}\{(\d+)\}frame: (\d+)\|(.*)\|", line)
            if not m or int(m[2]) != int(m[1]) + 1 or m[3] != m[1]:
                raise ValueError(f"not a subtitle log line: {line!r}")
            frames[int(m[1])] = dict(cell.split(": ", 1) for cell in m[4].split("|"))
        return frames, None
    raise ValueError(fmt)


def fixture_format(fx):
    """(width, height, '420'|'422'|'444', bits) from the fixture's fixture.ini."""
    ini = configparser.ConfigParser()
    with open(os.path.join(FIXTURES, fx, "fixture.ini")) as fh:
        ini.read_string("[f]\n" + fh.read())
    pf = ini["f"]["pix_fmt"]
    bits = int(pf[7:-2]) if pf.endswith("le") else 8
    return int(ini["f"]["width"]), int(ini["f"]["height"]), pf[3:6], bits


def ffmpeg51_pictures(src, dst, w, h, sub):
    """Writes the >8-bit pictures FFmpeg 5.1 gives the library: each row's first w bytes of the
    plane, then zeros to the row's 2*w bytes."""
    cw = w if sub == "444" else (w + 1) // 2
    ch = (h + 1) // 2 if sub == "420" else h
    planes = [(w, h), (cw, ch), (cw, ch)]
    frame_bytes = sum(2 * pw * ph for pw, ph in planes)
    with open(src, "rb") as fi, open(dst, "wb") as fo:
        while True:
            frame = fi.read(frame_bytes)
            if not frame:
                break
            if len(frame) != frame_bytes:
                raise ValueError(f"{src}: a partial frame")
            off = 0
            for pw, ph in planes:
                for _ in range(ph):
                    fo.write(frame[off:off + pw] + bytes(pw))
                    off += 2 * pw


def cli_reference(cli, fx, tmp):
    """A golden-like dict {'result': {'frames', 'pooled_metrics'}} from the CLI run on the
    pictures FFmpeg 5.1 gives the library for a >8-bit fixture."""
    w, h, sub, bits = fixture_format(fx)
    paths = {}
    for which in ("ref", "dist"):
        paths[which] = os.path.join(tmp, f"{fx}.{which}.ffmpeg51.yuv")
        ffmpeg51_pictures(os.path.join(FIXTURES, fx, f"{which}.yuv"), paths[which], w, h, sub)
    out = os.path.join(tmp, f"{fx}.cli.json")
    cmd = [cli, "-r", paths["ref"], "-d", paths["dist"], "-w", str(w), "-h", str(h), "-p", sub,
           "-b", str(bits), "-m", "version=vmaf_v0.6.1:name=vmaf", "-m", "version=vmaf_v0.6.1neg:name=vmaf_neg",
           "--feature", "psnr", "--json", "-o", out, "-q"] + CLI_PRECISION
    p = subprocess.run(cmd, capture_output=True, text=True)
    for path in paths.values():
        os.remove(path)
    if p.returncode:
        raise RuntimeError(f"the CLI exited {p.returncode}: {p.stderr.strip()}\n  command: {cmd}")
    with open(out) as fh:
        return {"result": json.load(fh), "not_compared": []}


class Check:
    def __init__(self):
        self.failures = []
        self.counts = {"printed": 0, "exact": 0}

    def value(self, where, text, golden):
        how = same(text, golden)
        if how:
            self.counts[how] += 1
        else:
            self.failures.append(f"{where}: {text} where upstream prints {upstream_text(golden)} "
                                 f"(golden {golden!r})")


def check_run(ffmpeg, fx, golden, run, tmp):
    name, options, fmt, n, metrics, models, pool_method = run
    log = os.path.join(tmp, f"{name}.{fmt}")
    opts = ":".join(o for o in (options, f"log_path={log}", f"log_fmt={fmt}") if o)
    cmd = [ffmpeg, "-nostdin", "-hide_banner", "-i", os.path.join(FIXTURES, fx, "dist.y4m"),
           "-i", os.path.join(FIXTURES, fx, "ref.y4m"), "-lavfi", f"libvmaf={opts}", "-f", "null", "-"]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.monotonic() - t0
    c = Check()
    if p.returncode:
        c.failures.append(f"ffmpeg exited {p.returncode}: {p.stderr.strip()[-2000:]}\n  command: {cmd}")
        return c, secs
    gframes = [f["metrics"] for f in golden["result"]["frames"]]
    chroma_left_out = any(e.get("name", "").startswith("psnr (cb, cr)") for e in golden.get("not_compared", []))
    skipped = {"psnr_cb", "psnr_cr"} if chroma_left_out else set()
    indices = [i for i in range(len(gframes)) if i % n == 0]
    try:
        frames, pool = parse_log(log, fmt)
    except (OSError, ValueError, ET.ParseError, KeyError) as e:
        c.failures.append(f"{name}: the {fmt} log cannot be read: {e!r}")
        return c, secs
    if sorted(frames) != indices:
        c.failures.append(f"{name}: frames {sorted(frames)}, expected {indices}")
        return c, secs
    for i in indices:
        if set(frames[i]) != metrics:
            c.failures.append(f"{name} frame {i}: metrics {sorted(frames[i])}, expected {sorted(metrics)}")
            continue
        for m in sorted(metrics - skipped):
            c.value(f"{name} frame {i} {m}", frames[i][m], float(gframes[i][m]))
    expected_pool = {m: pooled([float(gframes[i][m]) for i in indices]) for m in metrics - skipped}
    if n == 1:
        # The recomputation must give every golden pooled double (it checks this harness).
        for m, p_ in expected_pool.items():
            g = golden["result"]["pooled_metrics"][m]
            for k in POOL_METHODS:
                if p_[k] != g[k]:
                    c.failures.append(f"harness: pooled {k} of {m} recomputed {p_[k]!r}, golden {g[k]!r}")
    if pool is not None:
        if set(pool) != metrics:
            c.failures.append(f"{name}: pooled metrics {sorted(pool)}, expected {sorted(metrics)}")
        else:
            for m in sorted(metrics - skipped):
                for k in POOL_METHODS:
                    c.value(f"{name} pooled {m} {k}", pool[m].get(k, "(absent)"), expected_pool[m][k])
    scores = re.findall(r"VMAF score: (\S+)", p.stderr)
    want = ["%f" % expected_pool[m][pool_method] for m in models]
    if scores != want:
        c.failures.append(f"{name}: FFmpeg printed VMAF score {scores}, expected {want} (models {models}, {pool_method})")
    return c, secs


# Filter set-ups whose outputs depend on when the library stores model scores (issue 23): as
# upstream, a model is scored only when the client asks for it (FFmpeg: vmaf_score_pooled for
# each `model=` entry, nothing for `model_path=`'s model or a collection), and a name keeps its
# first value. Each case: label, filter options, log format, the log's names in the order upstream
# writes them (FFmpeg 5.1 on upstream's library: VMAF_HEADER below), the golden name each "VMAF
# score" line pools (mean), the golden name of each log name (itself unless listed), and the
# "VMAF score" lines upstream printed. The names, their order and the printed lines were measured
# on path_576x324_420p8 with FFmpeg 5.1.9 (this script's build) run on upstream's library
# (master f85a8536, its release build) in place of vmafx's, e.g.
#   LD_LIBRARY_PATH=UPSTREAM/build/src WORKDIR/build/ffmpeg -nostdin -hide_banner \
#     -i path_576x324_420p8/dist.y4m -i path_576x324_420p8/ref.y4m \
#     -lavfi "libvmaf=model='version=vmaf_v0.6.1|version=vmaf_v0.6.1neg':log_path=out.json:log_fmt=json" -f null -
# (the options of each case in place of the model=... above); the per-frame and pooled values
# upstream wrote are the golden run's (checked here against the golden file, as the runs above).
CASES_FIXTURE = "path_576x324_420p8"
VMAF_HEADER = ["integer_adm2", "integer_aim", "integer_adm3", "integer_adm_scale0", "integer_adm_scale1",
               "integer_adm_scale2", "integer_adm_scale3", "VMAF_integer_feature_motion_sad_score",
               "integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2", "integer_vif_scale3",
               "integer_motion2", "integer_motion3"]
NEG_HEADER = [n + "_egl_1" for n in VMAF_HEADER[:7] + VMAF_HEADER[8:12]]
SHARED_MODELS = os.path.join(os.path.dirname(GOLDEN), "models")
CASES = [
    # Two models, both left named "vmaf": the first one asked for (v0.6.1) stores "vmaf"; the
    # second finds it and prints it again (upstream: 63.532647 twice; vmafx printed 61.059276,
    # vmaf_v0.6.1neg's, before).
    ("one name, two models", "model='version=vmaf_v0.6.1|version=vmaf_v0.6.1neg'", "json",
     VMAF_HEADER[:12] + NEG_HEADER + VMAF_HEADER[12:] + ["vmaf"], ["vmaf", "vmaf"], {}, ["63.532647", "63.532647"]),
    # A model named like a feature output: psnr_y holds psnr's values, which the model's pool reads.
    ("model named psnr_y", "model='version=vmaf_v0.6.1\\:name=psnr_y':feature='name=psnr'", "json",
     VMAF_HEADER[:12] + ["psnr_y", "psnr_cb", "psnr_cr"] + VMAF_HEADER[12:], ["psnr_y"], {}, ["30.044438"]),
    # The deprecated model_path with enable_conf_interval: a collection whose features are
    # extracted but whose scores FFmpeg never asks for (no member, _bagging, _stddev or interval).
    ("enable_conf_interval", f"model_path={SHARED_MODELS}/vmaf_b_v0.6.3.json:enable_conf_interval=1", "csv",
     VMAF_HEADER + ["vmaf"], ["vmaf"], {}, ["63.532647"]),
    # model_path= beside a named model=: model_path's model (named "vmaf") is never scored.
    ("model_path beside model", f"model='version=vmaf_v0.6.1\\:name=v061':model_path={SHARED_MODELS}/vmaf_v0.6.1neg.json",
     "json", NEG_HEADER[:7] + VMAF_HEADER[7:8] + NEG_HEADER[7:] + VMAF_HEADER[:7] + VMAF_HEADER[8:] + ["v061"], ["vmaf"], {"v061": "vmaf"}, ["63.532647"]),
    # The null extractor: registered, writes nothing.
    ("null feature", "feature='name=null'", "json", VMAF_HEADER + ["vmaf"], ["vmaf"], {}, ["63.532647"]),
]


def printed_scores(stderr):
    """The "VMAF score" values FFmpeg printed, in order; FFmpeg's log prints a line equal to the one
    before as "Last message repeated N times", which counts here as N more."""
    out = []
    last = None
    for line in stderr.splitlines():
        m = re.search(r"VMAF score: (\S+)", line)
        r = re.fullmatch(r"\s*Last message repeated (\d+) times?", line)
        if m:
            out.append(m[1])
            last = m[1]
        elif r and last is not None:
            out += [last] * int(r[1])
        else:
            last = None
    return out


def log_names(path, fmt):
    """The names of a log's per-frame values, in the order written (first frame)."""
    with open(path) as fh:
        text = fh.read()
    if fmt == "json":
        d = json.loads(text, parse_float=str, parse_int=str, parse_constant=str)
        return list(d["frames"][0]["metrics"]) if d["frames"] else []
    if fmt == "csv":
        return text.splitlines()[0].rstrip(",").split(",")[1:]
    raise ValueError(fmt)


def check_cases(ffmpeg, golden, tmp):
    """The CASES on CASES_FIXTURE: a list of (label, failures)."""
    out = []
    gframes = [f["metrics"] for f in golden["result"]["frames"]]
    for label, options, fmt, names, printed_from, alias, printed in CASES:
        failures = []
        log = os.path.join(tmp, f"case.{fmt}")
        if os.path.exists(log):
            os.remove(log)
        cmd = [ffmpeg, "-nostdin", "-hide_banner", "-i", os.path.join(FIXTURES, CASES_FIXTURE, "dist.y4m"),
               "-i", os.path.join(FIXTURES, CASES_FIXTURE, "ref.y4m"), "-lavfi",
               f"libvmaf={options}:log_path={log}:log_fmt={fmt}", "-f", "null", "-"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            out.append((label, [f"ffmpeg exited {p.returncode}: {p.stderr.strip()[-1500:]}\n  command: {cmd}"]))
            continue
        scores = printed_scores(p.stderr)
        if scores != printed:
            failures.append(f"FFmpeg printed VMAF score {scores}, upstream {printed}")
        want = ["%f" % golden["result"]["pooled_metrics"][g]["mean"] for g in printed_from]
        if want != printed:
            failures.append(f"harness: upstream's printed {printed} are not the golden means {want}")
        try:
            got = log_names(log, fmt)
            frames, _ = parse_log(log, fmt)
        except (OSError, ValueError, KeyError) as e:
            out.append((label, [f"the {fmt} log cannot be read: {e!r}"]))
            continue
        if got != names:
            failures.append(f"log names {got}, upstream wrote {names}")
        if fmt == "json":
            with open(log) as fh:
                pooled_names = list(json.load(fh)["pooled_metrics"])
            if pooled_names != names:
                failures.append(f"pooled names {pooled_names}, upstream wrote {names}")
        if sorted(frames) != list(range(len(gframes))):
            failures.append(f"frames {sorted(frames)}, expected 0..{len(gframes) - 1}")
        else:
            c = Check()
            for i in frames:
                for m in set(frames[i]) & set(names):
                    c.value(f"frame {i} {m}", frames[i][m], float(gframes[i][alias.get(m, m)]))
            failures += c.failures
        out.append((label, failures))
    return out


ERRORS = [
    # filter options, FFmpeg's message when the library returns an error
    ("model=version=vmaf_no_such_model", "could not load libvmaf model with version: vmaf_no_such_model"),
    ("feature=name=no_such_feature", "problem during vmaf_use_feature: no_such_feature"),
    ("model='path=/no/such/model.json'", "could not load libvmaf model with path: /no/such/model.json"),
]


def check_errors(ffmpeg, fx):
    """The library's error returns through FFmpeg: a list of failures."""
    failures = []
    for options, message in ERRORS:
        cmd = [ffmpeg, "-nostdin", "-hide_banner", "-i", os.path.join(FIXTURES, fx, "dist.y4m"),
               "-i", os.path.join(FIXTURES, fx, "ref.y4m"), "-lavfi", f"libvmaf={options}", "-f", "null", "-"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 1 or message not in p.stderr:
            failures.append(f"libvmaf={options}: exit {p.returncode} (expected 1 and FFmpeg's "
                            f"'{message}'): {p.stderr.strip()[-600:]}")
    return failures


def report(label, failures, ok_text):
    """Prints one check's outcome (at most 20 of its failures); True when it passed."""
    if not failures:
        print(f"ok   {label}: {ok_text}")
        return True
    print(f"FAIL {label} ({len(failures)} failed checks):")
    for f in failures[:20]:
        print("    " + f)
    return False


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    work = args.pop(0)
    cli = None
    if args[:1] == ["--cli"]:
        cli = args[1]
        args = args[2:]
    names = args or DEFAULT_FIXTURES
    ffmpeg = os.path.join(work, "build", "ffmpeg")
    if os.path.isfile(os.path.join(work, "skipped")):
        with open(os.path.join(work, "skipped")) as fh:
            print(f"skipped: FFmpeg was not built: {fh.read().strip()}")
        return 77
    if not os.path.isdir(GOLDEN):
        return missing(f"no golden values in {GOLDEN} (../shared is absent)")
    missing = [n for n in names if not os.path.isfile(os.path.join(FIXTURES, n, "ref.y4m"))]
    if missing:
        return missing(f"fixtures {missing} not unpacked as .y4m in {FIXTURES} (prepare.py --y4m)")
    if not os.access(ffmpeg, os.X_OK):
        print(f"FAIL: {ffmpeg} is absent (scripts/build_ffmpeg_client.sh builds it)")
        return 1
    tally = {True: 0, False: 0}
    with tempfile.TemporaryDirectory(prefix="ffmpeg_client.") as tmp:
        for fx in names:
            if fixture_format(fx)[3] > 8:
                try:
                    if not cli:
                        raise RuntimeError("a >8-bit fixture needs --cli (the reference values of FFmpeg 5.1's pictures)")
                    golden = cli_reference(cli, fx, tmp)
                except (OSError, RuntimeError, ValueError) as e:
                    tally[report(fx, [str(e)], "")] += 1
                    continue
                print(f"     {fx}: reference values from {os.path.basename(cli)} on FFmpeg 5.1's >8-bit pictures")
            else:
                with open(os.path.join(GOLDEN, fx + ".json")) as fh:
                    golden = json.load(fh)
            for run in RUNS:
                c, secs = check_run(ffmpeg, fx, golden, run, tmp)
                how = ", ".join(f"{v} {k}" for k, v in c.counts.items() if v)
                tally[report(f"{fx} {run[0]}", c.failures,
                             f"{how} values equal upstream's ({secs:.2f} s)")] += 1
        if CASES_FIXTURE in names:
            with open(os.path.join(GOLDEN, CASES_FIXTURE + ".json")) as fh:
                golden = json.load(fh)
            for label, failures in check_cases(ffmpeg, golden, tmp):
                tally[report(f"{CASES_FIXTURE} {label}", failures,
                             "the names, values and printed scores upstream writes")] += 1
        tally[report(f"{names[0]} bad options", check_errors(ffmpeg, names[0]),
                     f"{len(ERRORS)} errors returned, FFmpeg stopped with its message")] += 1
    passed, failed = tally[True], tally[False]
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
