#!/usr/bin/env python3
"""The CLI gives the same bits from a fixture's .y4m copy as from its raw .yuv, and from
--threads 2 as from --threads 1: for every fixture, vmafx runs three times (yuv/1 thread,
yuv/2 threads, y4m/2 threads) with the default model, and every per-frame and pooled value
must be the same double. Exit 77 (skipped) when the unpacked fixtures are absent.

  cli_equivalence.py BIN [--frames N] [FIXTURE ...]    (default: every fixture, every frame)

--frames N scores the first N frames of each (--frame_cnt N): the sanitized builds' setting,
where the Release build has compared every frame already."""
import configparser, json, os, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skip_missing import missing  # noqa: E402
FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))


def fixture_args(fx):
    ini = configparser.ConfigParser()
    with open(os.path.join(fx, "fixture.ini")) as fh:
        ini.read_string("[f]\n" + fh.read())
    pf = ini["f"]["pix_fmt"]
    depth = pf[7:-2] if pf.endswith("le") else "8"
    return ["-w", ini["f"]["width"], "-h", ini["f"]["height"], "-p", pf[3:6], "-b", depth]


def run(binary, args, out, extra):
    p = subprocess.run([binary] + args + extra + ["--json", "-o", out, "--precision", "max", "-q"],
                       capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"FAIL: {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    with open(out) as fh:
        d = json.load(fh)
    return {"frames": [(f["frameNum"], {k: struct.pack('<d', v) for k, v in f["metrics"].items()})
                       for f in d["frames"]],
            "pooled": {k: {m: struct.pack('<d', v) for m, v in p.items()} for k, p in d["pooled_metrics"].items()}}


def main():
    binary, rest = sys.argv[1], sys.argv[2:]
    extra = []
    if rest[:1] == ["--frames"]:
        extra, rest = ["--frame_cnt", rest[1]], rest[2:]
    if not os.path.isdir(FIXTURES):
        return missing(f"fixtures not unpacked in {FIXTURES}")
    names = sorted(n for n in os.listdir(FIXTURES) if os.path.isfile(os.path.join(FIXTURES, n, "ref.y4m")))
    if rest:
        names = [n for n in names if n in rest]
    if not names:
        return missing(f"no .y4m fixtures in {FIXTURES} (prepare.py --y4m)")
    failed = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            fx = os.path.join(FIXTURES, n)
            yuv = ["-r", os.path.join(fx, "ref.yuv"), "-d", os.path.join(fx, "dist.yuv")] + fixture_args(fx)
            y4m = ["-r", os.path.join(fx, "ref.y4m"), "-d", os.path.join(fx, "dist.y4m")]
            base = run(binary, yuv + ["--threads", "1"], os.path.join(tmp, "a.json"), extra)
            for label, args in (("yuv --threads 2", yuv + ["--threads", "2"]),
                                ("y4m --threads 2", y4m + ["--threads", "2"])):
                other = run(binary, args, os.path.join(tmp, "b.json"), extra)
                if other != base:
                    failed += 1
                    print(f"FAIL {n}: {label} differs from yuv --threads 1")
                else:
                    passed += 1
                    print(f"ok   {n}: {label} identical to yuv --threads 1 ({len(base['frames'])} frames)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
