#!/usr/bin/env python3
"""Runs ../shared/tools/golden_check.py on the vmafx CLI with the command line of issue 2: every
integer VIF/ADM/motion value and the VMAF v0.6.1, NEG, 4K and bootstrap model scores of every
fixture, per frame and pooled, bit for bit. Exit 77 (skipped) when ../shared or .fixtures is absent."""
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
    cmd = [sys.executable, tool, "--bin", sys.argv[1], "--fixtures", FIXTURES,
           "--omit", "float|psnr|ssim|ciede|cambi|moment|speed|ansnr|v1.0.16",
           "--only", "^(integer_|VMAF_integer|vmaf$|vmaf_neg$|vmaf_4k$|vmaf_b)",
           "--skip", "_csf_2_|_mmxv_"] + sys.argv[2:]
    print(" ".join(cmd), flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
