#!/usr/bin/env python3
"""Runs ../shared/tools/golden_check.py on the vmafx CLI with every golden file's own command line
(all upstream CPU metrics and the models of the golden files), with --refusals: every per-frame
and pooled value bit for bit, and every refusal upstream makes must be a clean refusal here.
Extra arguments are fixture names (default: all). Exit 77 (skipped) when ../shared or .fixtures
is absent.

  golden_check.py BIN [--frames N] [FIXTURE ...]

--frames N (the sanitized builds' setting, where the Release build has compared every frame and
pooled value already) runs each golden command line on the first N frames (--frame_cnt N) and
requires every golden metric, and its values bit for bit on the frames before the last (whose
temporal features look one frame ahead), then the refusals."""
import json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skip_missing import missing  # noqa: E402
SHARED = os.environ.get("VMAFX_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))


def first_frames(binary, names, frames):
    """The golden command lines on the first `frames` frames; returns the exit status."""
    sys.path.insert(0, os.path.join(SHARED, "tools"))
    import golden_check  # shared/tools: the golden command lines with the fixtures' paths

    golden_dir = os.path.join(SHARED, "golden")
    files = sorted(f[:-5] for f in os.listdir(golden_dir) if f.endswith(".json"))
    if names:
        files = [f for f in files if f in names]
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="vmafx-golden-") as work:
        for name in files:
            gold = json.load(open(os.path.join(golden_dir, name + ".json")))
            try:
                ours = golden_check.run_one(binary, gold, FIXTURES, f"--frame_cnt {frames}", None, work)
            except golden_check.Failure as e:
                print(f"FAIL {name}: {e}")
                failed += 1
                continue
            ref = gold["result"]["frames"][:frames - 1]
            mine = ours["frames"][:frames - 1]
            bad = [f"{r['frameNum']}:{k}" for r, m in zip(ref, mine) for k, v in r["metrics"].items()
                   if k not in m["metrics"] or not golden_check.same_value(m["metrics"][k], v, 0)[0]]
            bad += [] if len(mine) == len(ref) else [f"{len(mine)} frames, not {len(ref)}"]
            if bad:
                print(f"FAIL {name}: {len(bad)} values differ or are missing, e.g. {bad[:5]}")
                failed += 1
            else:
                print(f"ok   {name}: the first {len(ref)} frames' {sum(len(r['metrics']) for r in ref)} values")
                passed += 1
            rows = []
            p, f = golden_check.check_refusals(binary, gold, FIXTURES, work, rows)
            for row in rows:
                print(row)
            passed += p
            failed += f
    print(f"{passed} passed, {failed} failed")
    return 0 if passed and not failed else 1


def main():
    tool = os.path.join(SHARED, "tools", "golden_check.py")
    if not os.path.isfile(tool):
        return missing(f"{SHARED} (golden values) is absent")
    if not os.path.isdir(FIXTURES):
        return missing(f"fixtures not unpacked in {FIXTURES} (run {SHARED}/fixtures/prepare.py --out .fixtures --y4m)")
    binary, rest = sys.argv[1], sys.argv[2:]
    if rest[:1] == ["--frames"]:
        return first_frames(binary, rest[2:], int(rest[1]))
    cmd = [sys.executable, tool, "--bin", binary, "--fixtures", FIXTURES, "--refusals"] + rest
    print(" ".join(cmd), flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
