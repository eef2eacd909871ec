#!/usr/bin/env python3
"""The order of the outputs against upstream's. Upstream's JSON writer lists its feature
collector in order of first write, and the order depends only on which extractors and models
run (the command line's flags, less what the size refuses) and on whether a second frame exists
(docs/metrics.md, "Output order"), not on the pictures. So for each distinct golden command
line of ../shared (flags and refusals; on its smallest fixture) this runs the vmafx CLI on the
first two frames and requires frame 0's metric names and the pooled metrics' names in exactly
the golden file's order (names a golden file leaves out, as the odd size's chroma metrics, are
left out of the comparison). The first is run again with --threads 2, which must not change the
order. Extra arguments are fixture names (default: as above). Exit 77 (skipped) when ../shared
or .fixtures is absent."""
import glob, json, os, shlex, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skip_missing import missing  # noqa: E402
SHARED = os.environ.get("VMAFX_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))


def golden_check_args(command):
    """The -m and --feature flags of a golden command line, as one string."""
    args = shlex.split(command)
    keep = [f"{a} {b}" for a, b in zip(args, args[1:]) if a in ("-m", "--feature")]
    return " ".join(keep)


def main():
    tools = os.path.join(SHARED, "tools")
    if not os.path.isfile(os.path.join(tools, "golden_check.py")):
        return missing(f"{SHARED} (golden values) is absent")
    if not os.path.isdir(FIXTURES):
        return missing(f"fixtures not unpacked in {FIXTURES}")
    sys.path.insert(0, tools)
    import golden_check  # shared/tools: the golden command lines with the fixtures' paths

    binary, names = sys.argv[1], sys.argv[2:]
    files = sorted(glob.glob(os.path.join(SHARED, "golden", "*.json")))
    if names:
        files = [f for f in files if os.path.basename(f)[:-5] in names]
    else:
        # The order depends on the command line's metrics and models and on which of them the
        # size refuses, not on the pictures: each distinct (flags, refusals) once, on its smallest
        # fixture (10 of the 12 golden files share one command line).
        groups = {}
        for f in files:
            gold = json.load(open(f))
            args = golden_check_args(gold["command"])
            key = (args, tuple(sorted(r["name"] for r in gold.get("refused", []))))
            w, h = (int(x) for x in gold["fixture"].split("_")[1].split("x"))
            if key not in groups or w * h < groups[key][0]:
                groups[key] = (w * h, f)
        files = sorted(f for _, f in groups.values())
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="vmafx-order-") as work:
        runs = [(f, "--frame_cnt 2") for f in files] + [(files[0], "--frame_cnt 2 --threads 2")]
        for path, extra in runs:
            gold = json.load(open(path))
            label = f"{gold['fixture']} ({extra})"
            try:
                ours = golden_check.run_one(binary, gold, FIXTURES, extra, None, work)
            except golden_check.Failure as e:
                print(f"FAIL {label}: {e}")
                failed += 1
                continue
            for what, theirs, mine in (
                ("frame 0's metrics", list(gold["result"]["frames"][0]["metrics"]), list(ours["frames"][0]["metrics"])),
                ("pooled metrics", list(gold["result"]["pooled_metrics"]), list(ours["pooled_metrics"])),
            ):
                # The golden file of the odd size leaves out the chroma metrics it cannot compare
                # (its "note"): their names are not in its order.
                known = set(theirs)
                mine = [n for n in mine if n in known]
                if theirs == mine:
                    passed += 1
                    continue
                failed += 1
                at = next((i for i, (a, b) in enumerate(zip(theirs, mine)) if a != b), min(len(theirs), len(mine)))
                print(f"FAIL {label}: {what} in another order from position {at}:\n"
                      f"  upstream: {theirs[at:at + 6]}\n  vmafx:    {mine[at:at + 6]}")
    print(f"{passed} passed, {failed} failed")
    return 0 if passed and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
