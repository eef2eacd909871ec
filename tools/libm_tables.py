#!/usr/bin/env python3
"""Writes src/base/libm_tables.inc: the tables of vmafx's own powf, exp and log2 (src/base/libm.*).

The algorithms are Szabolcs Nagy's table-driven powf, exp and log2 (Arm's optimized-routines,
https://github.com/ARM-software/optimized-routines, MIT OR Apache-2.0 WITH LLVM-exception),
which glibc has shipped since 2.28 (sysdeps/ieee754/flt-32/e_powf.c, dbl-64/e_exp.c,
dbl-64/e_log2.c). vmafx reproduces the bits of glibc 2.36's FMA variants, so it needs the same
numbers. Two kinds of numbers go in:

- published constants of the algorithms, written below once: the minimax polynomial
  coefficients, the log tables' reciprocals 1/c (each chosen by a search around the centre of
  its subinterval, so not derivable by a formula) and the split constants of ln 2;
- derived tables, computed here with Python's decimal module at 60 digits and rounded to the
  nearest double by float(Decimal) (a correctly rounded conversion):
    * exp2f:  tab[i] = bits(2^(i/32)) - (i << 47), i = 0..31;
    * exp:    H = 2^(k/128), T = 2^(k/128)/H - 1 (each rounded), tab[2k] = bits(T),
              tab[2k+1] = bits(H) - (k << 45), k = 0..127;
    * powf's and log2's logc = log2(c) = -log2(invc), rounded (for log2, c = 1/invc is not
      exactly glibc's c, but the rounded logarithms are the same 64 doubles).
  Each derived value equals glibc 2.36's table entry (checked when this file was written; the
  tests of src/base/libm_test.cpp then prove the functions' results).

Usage: tools/libm_tables.py            prints the file
       tools/libm_tables.py --check F  exits 1 unless F is what this script prints (ctest libm_tables)
"""
import struct
import sys
from decimal import Decimal, getcontext

getcontext().prec = 60

# powf's log2: 1/c for the 16 subintervals of [0x1.66p-1, 0x1.66p0) (POWF_LOG2_TABLE_BITS = 4).
POWF_INVC = [
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0", "0x1.3c995b0b80385p+0",
    "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0", "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0",
    "0x1.0953f419900a7p+0", "0x1p+0", "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1",
    "0x1.b2036576afce6p-1", "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1",
]
# powf's log2(1 + r) ~= A0 r^5 + A1 r^4 + A2 r^3 + A3 r^2 + A4 r.
POWF_POLY = ["0x1.27616c9496e0bp-2", "-0x1.71969a075c67ap-2", "0x1.ec70a6ca7baddp-2",
             "-0x1.7154748bef6c8p-1", "0x1.71547652ab82bp+0"]
# powf's 2^r ~= C0 r^3 + C1 r^2 + C2 r + 1 (|r| <= 1/64).
EXP2F_POLY = ["0x1.c6af84b912394p-5", "0x1.ebfce50fac4f3p-3", "0x1.62e42ff0c52d6p-1"]
# exp: 128/ln 2, ln 2/128 split in two, and e^r ~= 1 + r + C2 r^2 + C3 r^3 + C4 r^4 + C5 r^5.
EXP_CONST = {"inv_ln2_n": "0x1.71547652b82fep+7", "neg_ln2_hi_n": "-0x1.62e42fefa0000p-8",
             "neg_ln2_lo_n": "-0x1.cf79abc9e3b3ap-47"}
EXP_POLY = ["0x1.ffffffffffdbdp-2", "0x1.555555555543cp-3", "0x1.55555cf172b91p-5",
            "0x1.1111167a4d017p-7"]
# log2: 1/c for the 64 subintervals of [0x1.6p-1, 0x1.6p0) (LOG2_TABLE_BITS = 6).
LOG2_INVC = [
    "0x1.724286bb1acf8p+0", "0x1.6e1f766d2cca1p+0", "0x1.6a13d0e30d48ap+0", "0x1.661ec32d06c85p+0",
    "0x1.623fa951198f8p+0", "0x1.5e75ba4cf026cp+0", "0x1.5ac055a214fb8p+0", "0x1.571ed0f166e1ep+0",
    "0x1.53909590bf835p+0", "0x1.5014fed61adddp+0", "0x1.4cab88e487bd0p+0", "0x1.49539b4334feep+0",
    "0x1.460cbdfafd569p+0", "0x1.42d664ee4b953p+0", "0x1.3fb01111dd8a6p+0", "0x1.3c995b70c5836p+0",
    "0x1.3991c4ab6fd4ap+0", "0x1.3698e0ce099b5p+0", "0x1.33ae48213e7b2p+0", "0x1.30d191985bdb1p+0",
    "0x1.2e025cab271d7p+0", "0x1.2b404cf13cd82p+0", "0x1.288b02c7ccb50p+0", "0x1.25e2263944de5p+0",
    "0x1.234563d8615b1p+0", "0x1.20b46e33eaf38p+0", "0x1.1e2eefdcda3ddp+0", "0x1.1bb4a580b3930p+0",
    "0x1.19453847f2200p+0", "0x1.16e06c0d5d73cp+0", "0x1.1485f47b7e4c2p+0", "0x1.12358ad0085d1p+0",
    "0x1.0fef00f532227p+0", "0x1.0db2077d03a8fp+0", "0x1.0b7e6d65980d9p+0", "0x1.0953efe7b408dp+0",
    "0x1.07325cac53b83p+0", "0x1.05197e40d1b5cp+0", "0x1.03091c1208ea2p+0", "0x1.0101025b37e21p+0",
    "0x1.fc07ef9caa76bp-1", "0x1.f4465d3f6f184p-1", "0x1.ecc079f84107fp-1", "0x1.e573a99975ae8p-1",
    "0x1.de5d6f0bd3de6p-1", "0x1.d77b681ff38b3p-1", "0x1.d0cb5724de943p-1", "0x1.ca4b2dc0e7563p-1",
    "0x1.c3f8ee8d6cb51p-1", "0x1.bdd2b4f020c4cp-1", "0x1.b7d6c006015cap-1", "0x1.b20366e2e338fp-1",
    "0x1.ac57026295039p-1", "0x1.a6d01bc2731ddp-1", "0x1.a16d3bc3ff18bp-1", "0x1.9c2d14967feadp-1",
    "0x1.970e4f47c9902p-1", "0x1.920fb3982bcf2p-1", "0x1.8d30187f759f1p-1", "0x1.886e5ebb9f66dp-1",
    "0x1.83c97b658b994p-1", "0x1.7f405ffc61022p-1", "0x1.7ad22181415cap-1", "0x1.767dcf99eff8cp-1",
]
# log2: 1/ln 2 split in two; log2(1 + r) - r/ln 2 ~= r^2 (A0 + A1 r + ... + A5 r^5) for
# |r| < 1/128, and ~= r^2 (B0 + B1 r + ... + B9 r^9) near 1 (x in 1 - 0x1.5b51p-5 .. 1 + 0x1.6ab2p-5).
LOG2_INV_LN2 = {"inv_ln2_hi": "0x1.7154765200000p+0", "inv_ln2_lo": "0x1.705fc2eefa200p-33"}
LOG2_POLY = ["-0x1.71547652b8339p-1", "0x1.ec709dc3a04bep-2", "-0x1.7154764702ffbp-2",
             "0x1.2776c50034c48p-2", "-0x1.ec7b328ea92bcp-3", "0x1.a6225e117f92ep-3"]
LOG2_POLY1 = ["-0x1.71547652b82fep-1", "0x1.ec709dc3a03f7p-2", "-0x1.71547652b7c3fp-2",
              "0x1.2776c50f05be4p-2", "-0x1.ec709dd768fe5p-3", "0x1.a61761ec4e736p-3",
              "-0x1.7153fbc64a79bp-3", "0x1.484d154f01b4ap-3", "-0x1.289e4a72c383cp-3",
              "0x1.0b32f285aee66p-3"]


def dbl(text):
    return float.fromhex(text)


def bits(value):
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def hexd(value):
    """A C++ hexadecimal floating literal that reads back as `value` exactly."""
    return value.hex()


def neg_log2(invc):
    return float(-(Decimal(invc).ln() / Decimal(2).ln()))


def render():
    out = ["// Generated by tools/libm_tables.py: do not edit (ctest libm_tables checks it).",
           "// The tables of vmafx's own powf, exp and log2 (src/base/libm.cpp); the script says which",
           "// numbers are published constants of the algorithms and which are derived, and how.",
           ""]
    out.append("// powf: {1/c, log2(c)} per subinterval, then the log2 polynomial A0..A4.")
    out.append("constexpr InvcLogc kPowfLog2Table[16] = {")
    for text in POWF_INVC:
        invc = dbl(text)
        out.append(f"    {{{hexd(invc)}, {hexd(neg_log2(invc))}}},")
    out.append("};")
    out.append("constexpr double kPowfLog2Poly[5] = {" + ", ".join(hexd(dbl(t)) for t in POWF_POLY) + "};")
    out.append("")
    out.append("// powf: bits(2^(i/32)) - (i << 47), and the exp2 polynomial C0..C2.")
    out.append("constexpr uint64_t kExp2fTable[32] = {")
    row = []
    for i in range(32):
        row.append(f"0x{(bits(float(Decimal(2) ** (Decimal(i) / 32))) - (i << 47)) % 2**64:016x}")
        if len(row) == 4:
            out.append("    " + ", ".join(row) + ",")
            row = []
    out.append("};")
    out.append("constexpr double kExp2fPoly[3] = {" + ", ".join(hexd(dbl(t)) for t in EXP2F_POLY) + "};")
    out.append("")
    out.append("// exp: {bits(T), bits(H) - (k << 45)} with 2^(k/128) ~= H (1 + T), the constants, C2..C5.")
    out.append("constexpr uint64_t kExpTable[256] = {")
    for k in range(128):
        exact = Decimal(2) ** (Decimal(k) / 128)
        high = float(exact)
        tail = float(exact / Decimal(high) - 1)
        out.append(f"    0x{bits(tail):016x}, 0x{(bits(high) - (k << 45)) % 2**64:016x},")
    out.append("};")
    for name, text in EXP_CONST.items():
        camel = "k" + "".join(part.capitalize() for part in name.split("_"))
        out.append(f"constexpr double {camel} = {hexd(dbl(text))};")
    out.append("constexpr double kExpPoly[4] = {" + ", ".join(hexd(dbl(t)) for t in EXP_POLY) + "};")
    out.append("")
    out.append("// log2: {1/c, log2(c)} per subinterval, 1/ln 2 in two parts, A0..A5, B0..B9.")
    out.append("constexpr InvcLogc kLog2Table[64] = {")
    for text in LOG2_INVC:
        invc = dbl(text)
        out.append(f"    {{{hexd(invc)}, {hexd(neg_log2(invc))}}},")
    out.append("};")
    for name, text in LOG2_INV_LN2.items():
        camel = "k" + "".join(part.capitalize() for part in name.split("_"))
        out.append(f"constexpr double {camel} = {hexd(dbl(text))};")
    out.append("constexpr double kLog2Poly[6] = {" + ", ".join(hexd(dbl(t)) for t in LOG2_POLY) + "};")
    out.append("constexpr double kLog2PolyNearOne[10] = {" + ", ".join(hexd(dbl(t)) for t in LOG2_POLY1) + "};")
    return "\n".join(out) + "\n"


def main():
    text = render()
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        with open(sys.argv[2], encoding="utf-8") as handle:
            if handle.read() != text:
                print(f"{sys.argv[2]} differs from what tools/libm_tables.py writes", file=sys.stderr)
                return 1
        print(f"{sys.argv[2]}: as generated")
        return 0
    if len(sys.argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
