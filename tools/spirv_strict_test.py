#!/usr/bin/env python3
"""Tests of tools/spirv_strict.py on small compute shaders compiled by glslc (ctest spirv_strict):
the float arithmetic of an accepted module is marked NoContraction and gets the float controls,
a float-to-double widening becomes the exact one, and each kind of operation the pass cannot
make the CPU's is refused, naming it, with no output written.

Usage: spirv_strict_test.py --glslc GLSLC (spirv-dis, spirv-as and spirv-val on PATH)."""
import argparse
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spirv_strict.py")
HEAD = """#version 460
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer F { float v[]; };
layout(std430, binding = 1) buffer D { double w[]; };
void main() { """

# (name, body of main, the refusal's words, or None where the module is accepted)
CASES = [
    ("multiply_add", "v[0] = v[1] * v[2] + v[3];", None),
    ("widening", "w[0] = double(v[1]) * w[1];", None),
    ("fmod", "v[0] = mod(v[1], v[2]);", "OpFMod"),
    ("mix", "v[0] = mix(v[1], v[2], v[3]);", "GLSL.std.450 FMix"),
    ("fma", "v[0] = fma(v[1], v[2], v[3]);", "GLSL.std.450 Fma (compile without -O"),
    ("pow", "v[0] = pow(v[1], v[2]);", "GLSL.std.450 Pow"),
    ("length", "v[0] = length(vec2(v[1], v[2]));", "GLSL.std.450 Length"),
    ("matrix", "v[0] = (mat2(v[1], v[2], v[3], v[4]) * vec2(v[5], v[6])).x;", "OpMatrixTimesVector"),
    ("vector_widening", "w[0] = dvec2(vec2(v[1], v[2])).y;", "a conversion of a vector"),
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--glslc", required=True)
    args = parser.parse_args()
    failures = []
    with tempfile.TemporaryDirectory(prefix="vmafx_spirv_strict_") as work:
        for name, body, refusal in CASES:
            src = os.path.join(work, name + ".comp")
            raw = os.path.join(work, name + ".raw.spv")
            out = os.path.join(work, name + ".spv")
            with open(src, "w") as f:
                f.write(HEAD + body + " }\n")
            subprocess.run([args.glslc, "--target-env=vulkan1.2", "-o", raw, src], check=True)
            r = subprocess.run([sys.executable, TOOL, raw, out], capture_output=True, text=True)
            if refusal is not None:
                if r.returncode == 0 or refusal not in r.stderr or os.path.exists(out):
                    failures.append(f"{name}: expected a refusal naming '{refusal}' and no output, got exit "
                                    f"{r.returncode}: {r.stdout}{r.stderr}")
                continue
            if r.returncode != 0:
                failures.append(f"{name}: refused: {r.stderr}")
                continue
            dis = subprocess.run(["spirv-dis", "--raw-id", out], check=True, capture_output=True, text=True).stdout
            for want in ("NoContraction", "OpExecutionMode %", "DenormPreserve 32", "RoundingModeRTE 32",
                         "SignedZeroInfNanPreserve 32"):
                if want not in dis:
                    failures.append(f"{name}: the output lacks '{want}'")
            if name == "multiply_add" and dis.count("NoContraction") != 2:
                failures.append(f"{name}: {dis.count('NoContraction')} NoContraction decorations, expected 2")
            if name == "widening":
                for want in ("DenormPreserve 64", "OpULessThan", "1.4012984643248171e-45"):  # 2^-149
                    if want not in dis:
                        failures.append(f"{name}: the exact widening lacks '{want}'")
    for f in failures:
        print("FAIL", f)
    print(f"{len(CASES) - len(set(f.split(':')[0] for f in failures))} of {len(CASES)} cases passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
