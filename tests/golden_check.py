#!/usr/bin/env python3
"""Runs ../shared/tools/golden_check.py on the vmafx CLI with every golden file's own command line
(all upstream CPU metrics and the models of the golden files), with --refusals: every per-frame
and pooled value bit for bit, and every refusal upstream makes must be a clean refusal here.
Extra arguments are fixture names (default: all). Exit 77 (skipped) when ../shared or .fixtures
is absent."""
import os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("VMAFX_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))


def main():
    tool = os.path.join(SHARED, "tools", "golden_check.py")
    if not os.path.isfile(tool):
        print(f"skipped: {SHARED} (golden values) is absent")
        return 77
    if not os.path.isdir(FIXTURES):
        print(f"skipped: fixtures not unpacked in {FIXTURES} (run {SHARED}/fixtures/prepare.py --out .fixtures --y4m)")
        return 77
    cmd = [sys.executable, tool, "--bin", sys.argv[1], "--fixtures", FIXTURES, "--refusals"] + sys.argv[2:]
    print(" ".join(cmd), flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
