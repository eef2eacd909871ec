#!/usr/bin/env python3
"""Compiles every shared-arithmetic header (src/feature/*/*_math.hpp and src/gpu/*_core.hpp,
each of which must include base/shared_math.hpp) as GLSL 4.60 with glslc: a compute shader per
header that defines VMAFX_GLSL, enables the explicit arithmetic types and includes it
(psnr_hvs_math.hpp also under its planted contraction policy). Exits 1 when any compilation
fails (its messages printed), when such a header is outside the subset (it does not include
base/shared_math.hpp: every *_math.hpp that a twin uses is in the subset, docs/design.md), or
when no header is found.

Usage: glsl_compile.py --glslc GLSLC --src SRC_DIR --work WORK_DIR
"""
import argparse
import pathlib
import subprocess
import sys

PRELUDE = """#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
"""

# Compile-time policies a header also compiles under (header -> defines).
POLICIES = {"feature/psnr_hvs/psnr_hvs_math.hpp": ["VMAFX_PSNR_HVS_PLANT_CONTRACTION"]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--glslc", required=True)
    ap.add_argument("--src", required=True, type=pathlib.Path)
    ap.add_argument("--work", required=True, type=pathlib.Path)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    headers = sorted(args.src.glob("feature/*/*_math.hpp")) + sorted(args.src.glob("gpu/*_core.hpp"))
    compiled, failed, outside = 0, 0, []
    for header in headers:
        rel = header.relative_to(args.src).as_posix()
        if '#include "base/shared_math.hpp"' not in header.read_text():
            outside.append(rel)
            continue
        for policy in [None] + POLICIES.get(rel, []):
            name = rel.replace("/", "_").replace(".", "_") + (f"_{policy}" if policy else "")
            comp = args.work / f"{name}.comp"
            text = PRELUDE + (f"#define {policy} 1\n" if policy else "")
            text += f'#include "{rel}"\nlayout(local_size_x = 1) in;\nvoid main() {{}}\n'
            comp.write_text(text)
            r = subprocess.run([args.glslc, "--target-env=vulkan1.2", "-I", str(args.src), "-o",
                                str(args.work / f"{name}.spv"), str(comp)], capture_output=True, text=True)
            label = rel + (f" ({policy})" if policy else "")
            if r.returncode != 0:
                failed += 1
                print(f"FAILED {label}:\n{r.stdout}{r.stderr}")
            else:
                compiled += 1
                print(f"ok     {label}")
    for rel in outside:
        print(f"FAILED {rel}: not in the shared-arithmetic subset (it does not include base/shared_math.hpp)")
    print(f"{compiled} compiled, {failed} failed, {len(outside)} outside the subset")
    return 1 if failed or outside or compiled == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
