#!/usr/bin/env python3
"""Option corners: every option of every vmafx metric at its limits and at the values that
pick another code path, scored by upstream libvmaf 3.2.0 (the oracle) and by vmafx, compared
bit for bit. The golden files (../shared/golden) hold the option sets the models use; this
covers the rest.

The corners come from the metrics' descriptors: `vmafx --list-option-corners` prints them
(src/feature/corners.hpp): each metric at its defaults, each option at the corners its type and
range give (a bool flipped; an int at min and max; a double at min, max and 30% of the way),
each value of special interest its option row declares (OptionSpec::also_at), and each
combination the descriptor declares (MetricDescriptor::corner_sets). The CLI presets are listed
here (preset_corners), as they are no metric's options.

  option_corners.py generate --oracle BIN [--missing] [--corners-from VMAFX] [--fixtures DIR] [--out FILE]
      Runs the oracle on every corner (--missing: only those tests/data/option_corners.json
      lacks) and writes the reference values (default: tests/data/option_corners.json). BIN is
      an upstream `vmaf` 3.2.0 tool built locally whose output prints every score with %.17g;
      it is called with the corner's command line plus `--precision max`, which a wrapper
      around it drops. Where the oracle fails (non-zero exit or a signal), the corner is
      recorded as refused with its message. VMAFX (default build/vmafx) lists the corners.
  option_corners.py annotate --data FILE --oracle-note TEXT [--other LABEL=FILE ...]
      Sets the data file's description of its oracle, and marks each corner where another
      upstream build's values (a data file made by generate from the same corners, e.g. with
      `--cpumask` limiting upstream to its AVX2 or C code paths) differ: "differs_in" lists
      those builds. These are the corners where upstream's own code paths disagree.
  option_corners.py merge --add FILE [--data FILE] [--corners-from VMAFX]
      Adds the corners of FILE (made by generate --missing or --match) to the data file,
      replacing corners of the same fixture and feature text, in the order VMAFX lists them;
      the fixtures' checksums must agree. Corners no longer listed are dropped.
  option_corners.py check --bin BIN [--fixtures DIR] [--data FILE] [--verbose]
  (generate and check take --match REGEX: only the corners whose feature text matches; check
  takes --one-fixture-each: each corner on one of the fixtures, in turn, as the sanitized build
  runs them: every corner and every fixture still scored, a quarter of the runs)
      Checks that the data file holds every corner BIN lists on every fixture and no other,
      then runs BIN on every corner: each value recorded must be the same double (null where the
      oracle wrote null), the output names the same, and a refused corner must fail cleanly
      (exit 1 or 2, a message, no signal, no output file). Exit 77 (skipped) when the
      fixtures are absent. Prints the number of corners and where they come from.

Fixtures come from ../shared/fixtures (prepare.py --out .fixtures); the data file records
each fixture's sha256 so that a changed fixture is noticed.
"""
import argparse, configparser, hashlib, json, math, os, re, shlex, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from skip_missing import missing  # noqa: E402
FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))
DATA = os.path.join(ROOT, "tests", "data", "option_corners.json")

# (fixture, frames scored): 8-bit 4:2:0, 10-bit 4:2:2, 12-bit 4:4:4, 16-bit 4:2:0.
FIXTURES_USED = [("path_576x324_420p8", 6), ("fallenleaf_1280x720_422p10", 2),
                 ("cups_960x540_444p12", 2), ("honeywave_1280x720_420p16", 2)]


def preset_corners():
    # The CLI presets with their models and features (engine/presets.hpp), and a preset replacing
    # a float_ssim given before it (--aom_ctc v7.0). Presets are no metric's options, so they are
    # listed here rather than in a descriptor.
    return ["--aom_ctc v1.0", "--aom_ctc v3.0", "--aom_ctc v6.0", "--aom_ctc v7.0", "--nflx_ctc v1.0",
            "--feature float_ssim=enable_lcs=true --aom_ctc v7.0 --feature psnr"]


def listed_corners(vmafx):
    """The corners to score: every metric's option corners as its descriptor derives and declares
    them (`vmafx --list-option-corners`, src/feature/corners.hpp), then the presets."""
    p = subprocess.run([vmafx, "--list-option-corners"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{vmafx} --list-option-corners: exit {p.returncode}: {p.stderr.strip()}")
    return [line for line in p.stdout.splitlines() if line] + preset_corners()


def fixture_args(name):
    ini = configparser.ConfigParser()
    with open(os.path.join(FIXTURES, name, "fixture.ini")) as fh:
        ini.read_string("[f]\n" + fh.read())
    pf = ini["f"]["pix_fmt"]
    depth = pf[7:-2] if pf.endswith("le") else "8"
    d = os.path.join(FIXTURES, name)
    return ["-r", os.path.join(d, "ref.yuv"), "-d", os.path.join(d, "dist.yuv"), "-w", ini["f"]["width"],
            "-h", ini["f"]["height"], "-p", pf[3:6], "-b", depth]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run(binary, fixture, frames, feature, workdir):
    out = os.path.join(workdir, "out.json")
    if os.path.exists(out):
        os.remove(out)
    # A corner is a --feature value (scored without a model), or a command-line fragment starting
    # with "--" (the presets, with their models).
    chosen = shlex.split(feature) if feature.startswith("--") else ["-n", "--feature", feature]
    args = fixture_args(fixture) + chosen + ["--frame_cnt", str(frames), "--json", "-o", out,
                                             "-q", "--precision", "max"]
    p = subprocess.run([binary] + args, capture_output=True, text=True)
    result = {"exit": p.returncode, "stderr": p.stderr.strip()[-400:], "output": os.path.exists(out)}
    if p.returncode == 0:
        with open(out) as fh:
            d = json.load(fh)
        result["frames"] = [f["metrics"] for f in sorted(d["frames"], key=lambda f: f["frameNum"])]
    return result


def generate(args):
    data = {"oracle": args.note,
            "made_by": "tools/option_corners.py generate --oracle BIN",
            "fixtures": {}, "corners": []}
    have = set()  # (fixture, feature) the data file already holds (--missing)
    if args.missing:
        with open(DATA) as fh:
            have = {(c["fixture"], c["feature"]) for c in json.load(fh)["corners"]}
    with tempfile.TemporaryDirectory() as work:
        for fixture, frames in FIXTURES_USED:
            data["fixtures"][fixture] = {"frames": frames,
                                         "ref_sha256": sha256(os.path.join(FIXTURES, fixture, "ref.yuv")),
                                         "dist_sha256": sha256(os.path.join(FIXTURES, fixture, "dist.yuv"))}
            for feature in listed_corners(args.corners_from):
                if args.match and not re.search(args.match, feature):
                    continue
                if (fixture, feature) in have:
                    continue
                r = run(args.oracle, fixture, frames, feature, work)
                entry = {"fixture": fixture, "feature": feature}
                if r["exit"] != 0 or "frames" not in r:
                    entry["refused"] = r["stderr"].splitlines()[-1] if r["stderr"] else f"exit {r['exit']}"
                else:
                    entry["frames"] = r["frames"]
                data["corners"].append(entry)
                print(fixture, feature, "refused" if "refused" in entry else "ok", flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(data, fh, indent=0, separators=(",", ":"))
        fh.write("\n")
    return 0


def annotate(args):
    with open(args.data) as fh:
        data = json.load(fh)
    data["oracle"] = args.oracle_note
    others = []
    for spec in args.other:
        label, _, path = spec.partition("=")
        with open(path) as fh:
            others.append((label, json.load(fh)["corners"]))
    for i, c in enumerate(data["corners"]):
        c.pop("differs_in", None)
        differs = []
        for label, corners in others:
            o = corners[i]
            if (o["fixture"], o["feature"]) != (c["fixture"], c["feature"]):
                raise SystemExit(f"{label}: corner {i} is not {c['fixture']} {c['feature']}")
            if o.get("frames") != c.get("frames") or ("refused" in o) != ("refused" in c):
                differs.append(label)
        if differs:
            c["differs_in"] = differs
    with open(args.data, "w") as fh:
        json.dump(data, fh, indent=0, separators=(",", ":"))
        fh.write("\n")
    for label, _ in others:
        print(f"{label}: {sum(label in c.get('differs_in', []) for c in data['corners'])} corners differ")
    return 0


def merge(args):
    with open(args.data) as fh:
        data = json.load(fh)
    with open(args.add) as fh:
        added = json.load(fh)
    for fixture, info in added["fixtures"].items():
        if fixture in data["fixtures"] and data["fixtures"][fixture] != info:
            raise SystemExit(f"{args.add}: fixture {fixture} differs from {args.data}'s (checksums or frames)")
        data["fixtures"][fixture] = info
    by_key = {(c["fixture"], c["feature"]): c for c in data["corners"]}
    by_key.update({(c["fixture"], c["feature"]): c for c in added["corners"]})
    order = {f: i for i, f in enumerate(listed_corners(args.corners_from))}
    fixtures = [f for f, _ in FIXTURES_USED]
    corners = [c for k, c in by_key.items() if k[1] in order and k[0] in fixtures]
    corners.sort(key=lambda c: (fixtures.index(c["fixture"]), order[c["feature"]]))
    data["corners"] = corners
    with open(args.data, "w") as fh:
        json.dump(data, fh, indent=0, separators=(",", ":"))
        fh.write("\n")
    print(f"{args.data}: {len(corners)} corners ({len(added['corners'])} from {args.add})")
    return 0


def bits(x):
    return struct.pack("<d", float(x))


def same(ref, ours):
    if ref is None:
        return ours is None
    if ours is None or isinstance(ours, bool) or not isinstance(ours, (int, float)):
        return False
    return bits(ref) == bits(ours)


def check(args):
    if not os.path.isdir(FIXTURES):
        return missing(f"fixtures not unpacked in {FIXTURES} (run ../shared/fixtures/prepare.py --out .fixtures)")
    with open(args.data) as fh:
        data = json.load(fh)
    for fixture, info in data["fixtures"].items():
        if not os.path.isfile(os.path.join(FIXTURES, fixture, "ref.yuv")):
            return missing(f"fixture {fixture} is not unpacked in {FIXTURES}")
    # The data must hold every listed corner on every fixture, and nothing else: a corner added
    # to a descriptor needs its oracle values (generate --missing, then merge).
    listed = listed_corners(args.bin)
    held = {(c["fixture"], c["feature"]) for c in data["corners"]}
    lacking = [(f, c) for f in data["fixtures"] for c in listed if (f, c) not in held]
    stale = sorted({c["feature"] for c in data["corners"]} - set(listed))
    for f, c in lacking[:20]:
        print(f"NO ORACLE VALUE {f} --feature {c} (option_corners.py generate --missing, then merge)")
    for c in stale[:20]:
        print(f"NOT LISTED {c}: in {args.data} but no descriptor declares it (merge drops it)")
    print(f"{len(listed)} corners ({len(listed) - len(preset_corners())} from the descriptors: "
          f"{args.bin} --list-option-corners; {len(preset_corners())} presets) on {len(data['fixtures'])} fixtures")
    passed = failed = 0
    fixtures = list(data["fixtures"])
    turn = {c: i % len(fixtures) for i, c in enumerate(listed)}
    with tempfile.TemporaryDirectory() as work:
        for c in data["corners"]:
            if args.match and not re.search(args.match, c["feature"]):
                continue
            if args.one_fixture_each and fixtures[turn.get(c["feature"], 0)] != c["fixture"]:
                continue
            frames = data["fixtures"][c["fixture"]]["frames"]
            r = run(args.bin, c["fixture"], frames, c["feature"], work)
            where = f"{c['fixture']} --feature {c['feature']}"
            problems = []
            if "refused" in c:
                if r["exit"] not in (1, 2) or not r["stderr"] or r["output"]:
                    problems.append(f"oracle refused ({c['refused']}) but vmafx gave exit {r['exit']}, "
                                    f"output file {'written' if r['output'] else 'absent'}")
            elif r["exit"] != 0:
                problems.append(f"vmafx failed: exit {r['exit']}: {r['stderr']}")
            else:
                ours = r["frames"]
                if len(ours) != len(c["frames"]):
                    problems.append(f"{len(ours)} frames, oracle {len(c['frames'])}")
                for i, (ref, got) in enumerate(zip(c["frames"], ours)):
                    if set(ref) != set(got):
                        problems.append(f"frame {i}: names differ: only oracle {sorted(set(ref) - set(got))}, "
                                        f"only vmafx {sorted(set(got) - set(ref))}")
                    for k, v in ref.items():
                        if k in got and not same(v, got[k]):
                            problems.append(f"frame {i} {k}: vmafx {got[k]!r}, oracle {v!r}")
            if problems:
                failed += 1
                print(f"FAIL {where}")
                for p in problems[: (None if args.verbose else 6)]:
                    print("    " + p)
            else:
                passed += 1
                if args.verbose:
                    print(f"ok   {where}")
    failed += len(lacking) + len(stale)
    if args.one_fixture_each:
        print("each corner on one fixture, in turn (--one-fixture-each)")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--oracle", required=True)
    g.add_argument("--out", default=DATA)
    g.add_argument("--missing", action="store_true",
                   help="only the corners the data file lacks (for merge --add)")
    g.add_argument("--note", default="upstream libvmaf 3.2.0, built locally, scores printed with %.17g",
                   help="what the oracle is (written to the data file)")
    a = sub.add_parser("annotate")
    a.add_argument("--data", default=DATA)
    a.add_argument("--oracle-note", required=True)
    a.add_argument("--other", action="append", default=[], help="LABEL=FILE")
    m = sub.add_parser("merge")
    m.add_argument("--add", required=True)
    m.add_argument("--data", default=DATA)
    c = sub.add_parser("check")
    c.add_argument("--bin", required=True)
    c.add_argument("--data", default=DATA)
    c.add_argument("--verbose", action="store_true")
    c.add_argument("--one-fixture-each", action="store_true",
                   help="each corner on one fixture, the corners dealt to the fixtures in turn")
    for p in (g, a, c):
        p.add_argument("--fixtures", default=None)
    for p in (g, m):
        p.add_argument("--corners-from", default=os.path.join(ROOT, "build", "vmafx"),
                       help="the vmafx whose --list-option-corners lists the corners (default build/vmafx)")
    for p in (g, c):
        p.add_argument("--match", default=None, help="only the corners whose --feature text matches this regex")
    args = ap.parse_args()
    global FIXTURES
    if getattr(args, "fixtures", None):
        FIXTURES = args.fixtures
    return {"generate": generate, "annotate": annotate, "merge": merge, "check": check}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
