#!/usr/bin/env python3
"""Marks every floating-point arithmetic result of a SPIR-V module NoContraction.

The shared-arithmetic subset (docs/design.md) needs each a * b + c rounded twice, as the CPU
(-ffp-contract=off) and CUDA (--fmad=false) round it. A Vulkan driver may fuse an OpFMul into
the OpFAdd that uses it unless the result is decorated NoContraction; GLSL's `precise` adds the
decoration only along the def-use chains of precise variables and return values (not through
out parameters), so this pass decorates every OpFAdd, OpFSub, OpFMul, OpFDiv, OpFNegate,
OpVectorTimesScalar and OpDot of the module instead: the whole shader contracts nothing.

Usage: spirv_no_contraction.py IN.spv OUT.spv  (needs spirv-dis, spirv-as and spirv-val on PATH;
exits non-zero with their message on any failure).
"""
import re
import subprocess
import sys

FLOAT_OPS = ("OpFAdd", "OpFSub", "OpFMul", "OpFDiv", "OpFNegate", "OpVectorTimesScalar", "OpDot")


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst = sys.argv[1], sys.argv[2]
    text = subprocess.run(["spirv-dis", "--raw-id", src], check=True, capture_output=True, text=True).stdout
    lines = text.splitlines()
    result = re.compile(r"^\s*(%\w+)\s*=\s*(\w+)\b")
    decorated = set(re.findall(r"OpDecorate (%\w+) NoContraction", text))
    targets = []
    for line in lines:
        m = result.match(line)
        if m and m.group(2) in FLOAT_OPS and m.group(1) not in decorated:
            targets.append(m.group(1))
    # Decorations belong in the annotation section: after the last existing decoration, else
    # before the first type declaration.
    at = None
    for i, line in enumerate(lines):
        if re.match(r"^\s*Op(Member)?Decorate", line):
            at = i + 1
    if at is None:
        at = next(i for i, line in enumerate(lines) if re.match(r"^\s*%\w+\s*=\s*OpType", line))
    out = lines[:at] + [f"OpDecorate {t} NoContraction" for t in targets] + lines[at:]
    subprocess.run(["spirv-as", "--preserve-numeric-ids", "--target-env", "vulkan1.2", "-o", dst, "-"],
                   input="\n".join(out) + "\n", check=True, text=True)
    subprocess.run(["spirv-val", "--target-env", "vulkan1.2", dst], check=True)
    print(f"{dst}: {len(targets)} float operations marked NoContraction")
    return 0


if __name__ == "__main__":
    sys.exit(main())
