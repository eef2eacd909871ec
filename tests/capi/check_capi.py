#!/usr/bin/env python3
"""The libvmaf C API against the CLI, bit for bit: runs tests/capi/test_capi.c's `run` mode and
`vmafx` with the same models (vmaf_v0.6.1 as vmaf, the vmaf_b_v0.6.3 collection as vmaf_b) and
features (psnr, float_ssim) on fixtures at 8, 10 and 12 bits, 4:2:0, 4:2:2 and 4:4:4, with and
without threads and subsampling. Every per-frame value the CLI prints, every pooled value and
the model and collection pools must be the same doubles; the C API's XML, JSON, CSV and SUB
files must equal the CLI's but for the fps.

usage: check_capi.py TEST_PROGRAM VMAFX [sanitized]
Exit 77 (skipped) when the fixtures (.fixtures, from ../shared) are absent."""
import json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from skip_missing import missing  # noqa: E402
FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))
# (fixture, threads, subsample, compare the four output files too)
CASES = [("path_576x324_420p8", 0, 1, True), ("path_576x324_420p8", 2, 3, True), ("cups_960x540_444p12", 3, 1, False),
         ("fallenleaf_1280x720_422p10", 0, 2, False)]
# Sanitized builds run ten to twenty times slower: two cases (threads and subsampling, 12-bit 4:4:4).
SANITIZED_CASES = [CASES[1], CASES[2]]


def fixture_format(name):
    ini = dict(l.strip().split("=", 1) for l in open(os.path.join(FIXTURES, name, "fixture.ini")) if "=" in l)
    m = re.match(r"yuv(420|422|444)p(\d*)", ini["pix_fmt"])
    return int(ini["width"]), int(ini["height"]), m.group(1), int(m.group(2) or 8)


def compare(case, cli, out):
    """Compares a test program's printed values (capi_report.h's print_scores) with the CLI's
    JSON `cli` (--precision max): every per-frame and pooled value, the model's and the
    collection's pools. Prints each difference; returns (differences, values compared)."""
    frame, pooled, models = {}, {}, {}
    for line in out.splitlines():
        f = line.split()
        if f[0] == "frame":
            frame[(f[1], int(f[2]))] = None if f[3] == "none" else float(f[3])
        elif f[0] == "pooled":
            pooled[(f[1], f[2])] = float(f[3])
        else:
            models[(f[0], f[2])] = [float(x) for x in f[3:]]
    failures = checked = 0
    for fr in cli["frames"]:
        for n, v in fr["metrics"].items():
            got = frame.get((n, fr["frameNum"]))
            checked += 1
            if got is None or float(v) != got:
                failures += 1
                print(f"{case}: frame {fr['frameNum']} {n}: CLI {v!r}, C API {got!r}")
    for n, methods in cli["pooled_metrics"].items():
        for m, v in methods.items():
            checked += 1
            if pooled.get((n, m)) != float(v):
                failures += 1
                print(f"{case}: pooled {n} {m}: CLI {v!r}, C API {pooled.get((n, m))!r}")
            if n == "vmaf" and models.get(("model", m)) != [float(v)]:
                failures += 1
                print(f"{case}: vmaf_score_pooled {m}: CLI {v!r}, C API {models.get(('model', m))!r}")
    for m in ("min", "max", "mean", "harmonic_mean"):
        want = [float(cli["pooled_metrics"][f"vmaf_b_{k}"][m]) for k in ("bagging", "stddev", "ci_p95_lo", "ci_p95_hi")]
        if models.get(("collection", m)) != want:
            failures += 1
            print(f"{case}: vmaf_score_pooled_model_collection {m}: CLI {want}, C API {models.get(('collection', m))}")
    return failures, checked


def normalized(text):
    """An output file without its fps (the one value that depends on the clock)."""
    text = re.sub(r'fps="[^"]*"', 'fps=""', text)
    return re.sub(r'"fps": [^,\n]*', '"fps": 0', text)


def main():
    test_program, vmafx = sys.argv[1], sys.argv[2]
    cases = SANITIZED_CASES if sys.argv[3:] == ["sanitized"] else CASES
    absent = sorted({c[0] for c in cases if not os.path.isfile(os.path.join(FIXTURES, c[0], "ref.yuv"))})
    if absent:
        return missing(f"fixtures {', '.join(absent)} not unpacked in {FIXTURES}")
    failures = 0
    for fixture, threads, subsample, formats in cases:
        w, h, sub, bpc = fixture_format(fixture)
        ref, dist = (os.path.join(FIXTURES, fixture, n) for n in ("ref.yuv", "dist.yuv"))
        with tempfile.TemporaryDirectory(prefix="vmafx_capi_") as tmp:
            base = [vmafx, "-r", ref, "-d", dist, "-w", str(w), "-h", str(h), "-p", sub, "-b", str(bpc), "-q",
                    "-m", "version=vmaf_v0.6.1:name=vmaf", "-m", "version=vmaf_b_v0.6.3:name=vmaf_b",
                    "--feature", "psnr", "--feature", "float_ssim", "--threads", str(max(threads, 1)),
                    "--subsample", str(subsample)]
            exact = os.path.join(tmp, "cli_exact.json")
            subprocess.run(base + ["--json", "-o", exact, "--precision", "max"], check=True)
            formats = ("xml", "json", "csv", "sub") if formats else ()
            for fmt in formats:
                subprocess.run(base + [f"--{fmt}", "-o", os.path.join(tmp, f"cli.{fmt}")], check=True)
            cli = json.load(open(exact))
            names = []
            for fr in cli["frames"]:
                for n in fr["metrics"]:
                    if n not in names:
                        names.append(n)
            names_file = os.path.join(tmp, "names.txt")
            open(names_file, "w").write("\n".join(names) + "\n")
            outdir = os.path.join(tmp, "capi")
            os.mkdir(outdir)
            out = subprocess.run([test_program, "run", ref, dist, str(w), str(h), sub, str(bpc), str(threads),
                                  str(subsample), names_file, outdir], check=True, capture_output=True, text=True).stdout
            case = f"{fixture} threads={threads} subsample={subsample}"
            bad, checked = compare(case, cli, out)
            failures += bad
            for fmt in formats:
                a = normalized(open(os.path.join(tmp, f"cli.{fmt}")).read())
                b = normalized(open(os.path.join(outdir, f"out.{fmt}")).read())
                if a != b:
                    failures += 1
                    print(f"{case}: vmaf_write_output {fmt} differs from the CLI's --{fmt} file")
                    for la, lb in zip(a.splitlines(), b.splitlines()):
                        if la != lb:
                            print(f"  CLI:   {la}\n  C API: {lb}")
                            break
            print(f"{case}: {checked} values compared", flush=True)
    print("FAILED" if failures else "all equal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
