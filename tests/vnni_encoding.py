#!/usr/bin/env python3
"""Checks the VNNI instructions in the built library (the ctest `vnni_encoding`).

Highway 1.0's AVX3_DL target, which CMakeLists.txt compiles (HWY_WANT_AVX3_DL), is dispatched on
CPUs with AVX-512 VNNI (Ice Lake, Sapphire Rapids, Zen 4 and later), but its target attributes
name `avxvnni`: the VEX-encoded 256-bit form that Zen 4 lacks. Code the compiler generated from
them could use that form and stop with an illegal instruction on such a CPU. This test
disassembles the library and fails on any VEX-encoded VNNI instruction (objdump prints them
as `{vex} vpdp...`); it also fails where the EVEX `vpdpwssd` of the kernels' pair products
(src/feature/common/simd_sum-inl.h) is missing, so that it cannot pass on a build without them.

Usage: vnni_encoding.py LIBRARY   (exit 77: skipped, no objdump or not an x86-64 build)
"""
import platform
import shutil
import subprocess
import sys


def main() -> int:
    library = sys.argv[1]
    if platform.machine() not in ("x86_64", "AMD64"):
        print("skipped: not an x86-64 machine")
        return 77
    objdump = shutil.which("objdump")
    if objdump is None:
        print("skipped: no objdump (binutils)")
        return 77
    listing = subprocess.run([objdump, "-d", "--no-show-raw-insn", library], check=True,
                             capture_output=True, text=True).stdout
    vex = [line.strip() for line in listing.splitlines() if "{vex} vpdp" in line]
    evex = sum(1 for line in listing.splitlines() if "vpdpwssd %zmm" in line)
    print(f"{library}: {evex} EVEX vpdpwssd (zmm), {len(vex)} VEX-encoded VNNI instructions")
    for line in vex[:20]:
        print("  VEX:", line)
    if vex:
        print("FAIL: VEX-encoded VNNI (AVX-VNNI) instructions would fault on AVX-512 CPUs without AVX-VNNI")
        return 1
    if evex == 0:
        print("FAIL: no vpdpwssd on zmm registers: the AVX3_DL pair products were not compiled")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
