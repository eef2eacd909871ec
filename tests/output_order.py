#!/usr/bin/env python3
"""The order of the outputs against upstream's: for every golden file of ../shared, runs the vmafx
CLI with the golden's own command line on the first two frames (upstream's order depends only on
which extractors run and on whether a second frame exists: docs/metrics.md, "Output order") and
requires frame 0's metric names and the pooled metrics' names in exactly the golden file's order
(names a golden file leaves out, as the odd size's chroma metrics, are left out of the comparison)
(upstream's JSON writer lists its feature collector in order of first write). The first fixture
is run again with --threads 2, which must not change the order. Extra arguments are fixture
names (default: all). Exit 77 (skipped) when ../shared or .fixtures is absent."""
import glob, json, os, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("VMAFX_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))


def main():
    tools = os.path.join(SHARED, "tools")
    if not os.path.isfile(os.path.join(tools, "golden_check.py")):
        print(f"skipped: {SHARED} (golden values) is absent")
        return 77
    if not os.path.isdir(FIXTURES):
        print(f"skipped: fixtures not unpacked in {FIXTURES}")
        return 77
    sys.path.insert(0, tools)
    import golden_check  # shared/tools: the golden command lines with the fixtures' paths

    binary, names = sys.argv[1], sys.argv[2:]
    files = sorted(glob.glob(os.path.join(SHARED, "golden", "*.json")))
    if names:
        files = [f for f in files if os.path.basename(f)[:-5] in names]
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
