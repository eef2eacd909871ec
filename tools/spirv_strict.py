#!/usr/bin/env python3
"""Makes a SPIR-V module's float arithmetic the CPU's: no contraction, and the float controls.

1. Every floating-point arithmetic result is marked NoContraction.

The shared-arithmetic subset (docs/design.md) needs each a * b + c rounded twice, as the CPU
(-ffp-contract=off) and CUDA (--fmad=false) round it. A Vulkan driver may fuse an OpFMul into
the OpFAdd that uses it unless the result is decorated NoContraction; GLSL's `precise` adds the
decoration only along the def-use chains of precise variables and return values (not through
out parameters), so this pass decorates every OpFAdd, OpFSub, OpFMul, OpFDiv, OpFNegate,
OpVectorTimesScalar and OpDot of the module instead: the whole shader contracts nothing.

2. Every widening of a float to a double (OpFConvert) keeps subnormal floats: NVIDIA's Vulkan
driver converts them to zero (the start-up probe, src/vulkan/float_probe.cpp, found it on an
H200), so each conversion becomes a select between the plain conversion and, for |x| below
2^-126, the exact value from the float's bits (its magnitude bits as an integer, converted
exactly and scaled by 2^-149, the sign put back).

3. The entry point gets the float-control execution modes (SPIR-V 1.4's float controls) for
32-bit floats, and for 64-bit floats where the module has them: DenormPreserve (a driver may
otherwise flush subnormal operands and results to zero, as NVIDIA's does for 32-bit floats),
RoundingModeRTE (round to nearest even, as the CPU) and SignedZeroInfNanPreserve (no
optimization that assumes no signed zeros, infinities or NaNs). src/vulkan/device.cpp refuses a
device without the matching shader* properties of VkPhysicalDeviceFloatControlsProperties.

4. Float operations whose rounding the pass cannot make the CPU's are refused (exit 1, naming
them): GLSL.std.450's Fma (glslc -O makes one from a*b - c; NoContraction does not reach it) and
its functions that round inside or are not correctly rounded (mix, smoothstep, length, distance,
normalize, cross, reflect, refract, faceforward, pow, exp, exp2, log, log2, inversesqrt, the
trigonometric and hyperbolic functions, determinant, inverse), OpFMod and OpFRem (a division
inside), the matrix products and OpOuterProduct (sums of products NoContraction does not
decorate), and a float conversion of a vector or to a 16-bit float (convert each component on
its own). The shared-arithmetic subset writes none of them: a CPU-side function
(base/correctly_rounded.hpp, a table the host fills) stands where a twin needs one.

Usage: spirv_strict.py IN.spv OUT.spv [OUT.inc]  (needs spirv-dis, spirv-as and spirv-val
on PATH; exits non-zero with their message on any failure). OUT.inc: the module's 32-bit words
also written as a C++ initializer list (0x07230203, ...), which a Vulkan twin's source includes
inside `const std::uint32_t kSpirv[] = { ... };` to embed its shader.
"""
import re
import subprocess
import sys

FLOAT_OPS = ("OpFAdd", "OpFSub", "OpFMul", "OpFDiv", "OpFNegate", "OpVectorTimesScalar", "OpDot")
REFUSED_OPS = ("OpFMod", "OpFRem", "OpMatrixTimesScalar", "OpMatrixTimesVector", "OpVectorTimesMatrix",
               "OpMatrixTimesMatrix", "OpOuterProduct")
REFUSED_EXT = ("Fma", "FMix", "SmoothStep", "Length", "Distance", "Normalize", "Cross", "Reflect", "Refract",
               "FaceForward", "Pow", "Exp", "Exp2", "Log", "Log2", "InverseSqrt", "Sin", "Cos", "Tan", "Asin",
               "Acos", "Atan", "Atan2", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh", "Determinant",
               "MatrixInverse")


def refused(src: str, text: str) -> str:
    """Why the module `text` (disassembled) cannot be made strict (see the docstring, 4), or ""."""
    found = []
    for op in REFUSED_OPS:
        if re.search(rf"= {op}\b", text):
            found.append(op)
    for name in REFUSED_EXT:
        if re.search(rf"OpExtInst %\w+ %\w+ {name}\b", text):
            found.append(f"GLSL.std.450 {name}")
    if not found:
        return ""
    hint = (" (compile without -O, and write no fma() in a twin's arithmetic)" if "GLSL.std.450 Fma" in found
            else "")
    return (f"spirv_strict.py: {src} has float operations whose rounding is the driver's, not the CPU's: "
            f"{', '.join(found)}{hint}; the shared-arithmetic subset has none (docs/design.md)")


def widen_exactly(lines: list[str]) -> list[str]:
    """`lines` with every OpFConvert from float to double replaced by an exact widening of
    subnormal floats (see the module's docstring, 2)."""
    text = "\n".join(lines)
    f32 = re.search(r"^\s*(%\w+) = OpTypeFloat 32$", text, re.M)
    f64 = re.search(r"^\s*(%\w+) = OpTypeFloat 64$", text, re.M)
    converts = [i for i, line in enumerate(lines) if re.search(r"= OpFConvert ", line)]
    if not converts:
        return lines
    if not f32 or not f64:
        raise SystemExit("spirv_strict.py: an OpFConvert without both float types")
    f32, f64 = f32.group(1), f64.group(1)
    u32 = re.search(r"^\s*(%\w+) = OpTypeInt 32 0$", text, re.M)
    boolean = re.search(r"^\s*(%\w+) = OpTypeBool$", text, re.M)
    declare = []
    if u32:
        u32 = u32.group(1)
    else:
        u32 = "%vx_u32"
        declare.append(f"{u32} = OpTypeInt 32 0")
    if boolean:
        boolean = boolean.group(1)
    else:
        boolean = "%vx_bool"
        declare.append(f"{boolean} = OpTypeBool")
    declare += [f"%vx_magnitude = OpConstant {u32} 2147483647", f"%vx_normal = OpConstant {u32} 8388608",
                f"%vx_sign = OpConstant {u32} 2147483648", f"%vx_scale = OpConstant {f64} 0x1p-149"]
    out = []
    first_function = next(i for i, line in enumerate(lines) if re.match(r"^\s*%\w+ = OpFunction\b", line))
    for i, line in enumerate(lines):
        if i == first_function:
            out += declare
        m = re.match(r"^\s*(%\w+) = OpFConvert (%\w+) (%\w+)\s*$", line)
        if not m:
            out.append(line)
            continue
        r, to, x = m.groups()
        if to == f32:
            out.append(line)  # a narrowing: subnormal results are kept (the probe checks it)
            continue
        if to != f64:
            raise SystemExit("spirv_strict.py: a conversion of a vector or to a 16-bit float (dvecN(vecN), "
                             f"vecN(dvecN), float16_t): convert each float component on its own: {line.strip()}")
        n = f"%vx{r[1:]}"
        out += [f"{n}_bits = OpBitcast {u32} {x}",
                f"{n}_mag = OpBitwiseAnd {u32} {n}_bits %vx_magnitude",
                f"{n}_small = OpULessThan {boolean} {n}_mag %vx_normal",
                f"{n}_int = OpConvertUToF {f64} {n}_mag",
                f"{n}_pos = OpFMul {f64} {n}_int %vx_scale",
                f"{n}_neg = OpFNegate {f64} {n}_pos",
                f"{n}_minus = OpUGreaterThanEqual {boolean} {n}_bits %vx_sign",
                f"{n}_exact = OpSelect {f64} {n}_minus {n}_neg {n}_pos",
                f"{n}_plain = OpFConvert {f64} {x}",
                f"{r} = OpSelect {f64} {n}_small {n}_exact {n}_plain"]
    return out


CONTROLS = ("DenormPreserve", "RoundingModeRTE", "SignedZeroInfNanPreserve")


def float_controls(lines: list[str]) -> list[str]:
    """`lines` (disassembled, raw ids) with the float-control capabilities and execution modes."""
    text = "\n".join(lines)
    widths = [w for w in (32, 64) if re.search(rf"OpTypeFloat {w}\b", text)]
    entry = re.search(r"OpEntryPoint GLCompute (%\w+)", text)
    if not entry:
        raise SystemExit("spirv_strict.py: no GLCompute entry point")
    last_capability = max(i for i, line in enumerate(lines) if re.match(r"^\s*OpCapability\b", line))
    modes = [i for i, line in enumerate(lines) if re.match(r"^\s*OpExecutionMode\b", line)]
    at_mode = (max(modes) if modes else next(i for i, line in enumerate(lines)
                                              if re.match(r"^\s*OpEntryPoint\b", line))) + 1
    have = set(re.findall(r"OpCapability (\w+)", text))
    capabilities = [f"OpCapability {c}" for c in CONTROLS if c not in have]
    execution_modes = [f"OpExecutionMode {entry.group(1)} {c} {w}" for c in CONTROLS for w in widths]
    out = lines[:at_mode] + execution_modes + lines[at_mode:]
    return out[:last_capability + 1] + capabilities + out[last_capability + 1:]


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    src, dst = sys.argv[1], sys.argv[2]
    text = subprocess.run(["spirv-dis", "--raw-id", src], check=True, capture_output=True, text=True).stdout
    # glslc -O (spirv-opt) turns a*b - c into GLSL.std.450's Fma, which NoContraction does not
    # reach and NVIDIA's driver computes fused (and flushing subnormals): the shaders are compiled
    # without -O, and a module with an Fma (or another operation of the docstring's 4) is refused.
    if why := refused(src, text):
        raise SystemExit(why)
    lines = widen_exactly(text.splitlines())
    text = "\n".join(lines)
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
    out = float_controls(out)
    subprocess.run(["spirv-as", "--preserve-numeric-ids", "--target-env", "vulkan1.2", "-o", dst, "-"],
                   input="\n".join(out) + "\n", check=True, text=True)
    subprocess.run(["spirv-val", "--target-env", "vulkan1.2", dst], check=True)
    if len(sys.argv) == 4:
        data = open(dst, "rb").read()
        words = [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]
        lines_out = [", ".join(f"0x{w:08x}u" for w in words[i:i + 8]) + "," for i in range(0, len(words), 8)]
        with open(sys.argv[3], "w") as f:
            f.write(f"// {dst}, generated by tools/spirv_strict.py: do not edit\n")
            f.write("\n".join(lines_out) + "\n")
    print(f"{dst}: {len(targets)} float operations marked NoContraction; float controls set")
    return 0


if __name__ == "__main__":
    sys.exit(main())
