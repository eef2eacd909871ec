#!/usr/bin/env python3
"""cambi and speed_chroma at the edges of what upstream scores, against the upstream oracle.

    cambi_speed_oracle.py --vmafx BIN [--oracle BIN] [--fixtures DIR] [--valgrind] [--match REGEX]

Runs vmafx and the oracle (upstream libvmaf 3.2.0's `vmaf` built locally with its output
printed with %.17g instead of %.6f; --oracle or $VMAFX_ORACLE) on each case and checks:
  - "same": both exit 0 and every per-frame value is the same double (the JSON numbers parse to
    the same float); with --valgrind the oracle also runs under valgrind without an error;
  - "refused": vmafx exits 1 or 2 with a message naming the metric and writes no output, and the
    oracle fails (a signal or an error exit), or, where upstream exits 0 after reading outside
    its buffers ("oob_read": cambi's empty band), valgrind reports an error (with --valgrind;
    without it such a case is counted as not verified).
The cases (below) are the sides of cambi's band of levels (tvi_threshold, cambi_vis_lum_threshold,
EOTF, max_log_contrast; at 8, 10, 12 and 16 bits on the fixtures), cambi's pictures below 216
wide, and speed_chroma's chroma planes below 80x80 at speed_prescale above 1. The synthetic
pictures are src/feature/cambi/cambi_test.cpp's pattern_picture and dark_pattern_picture and
src/feature/speed/speed_test.cpp's block_picture, written here as raw files.

Exit 0 when every case passes, 1 otherwise, 77 (skipped) without an oracle or the fixtures.
"""
import argparse, json, os, re, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skip_missing import missing  # noqa: E402

# --- synthetic pictures -------------------------------------------------------------------------


def chroma_size(w, h, sub):
    return (w if sub == "444" else (w + 1) // 2, h if sub != "420" else (h + 1) // 2)


def write_frames(path, w, h, bits, sub, luma, chroma):
    """One raw frame per (luma, chroma) function pair: luma(x, y), chroma(p, x, y)."""
    fmt = "B" if bits == 8 else "<H"
    cw, ch = chroma_size(w, h, sub)
    with open(path, "wb") as f:
        for lu, cr in zip(luma, chroma):
            f.write(b"".join(struct.pack(fmt, lu(x, y)) for y in range(h) for x in range(w)))
            for p in (1, 2):
                f.write(b"".join(struct.pack(fmt, cr(p, x, y)) for y in range(ch) for x in range(cw)))


def pattern(w, h, bits, seed, dark=False):
    def luma(x, y):
        bump = (x * 7 + y * 13 + seed) % 53 == 0
        if dark and (x * 5 // w + y * 3 // h) % 2 == 0:
            v = 16 + bump
        else:
            v = ((x * 3) // (w // 7 + 1) + (y * 2) // (h // 5 + 1)) % 40 + 60 + bump
        return v << (bits - 8)
    return luma, (lambda p, x, y: 128 << (bits - 8))


def blocks(bits, seed):
    m = 0xFFFFFFFF

    def hh(x, y, p, s):
        v = ((x * 73856093) ^ (y * 19349663) ^ ((p + 1) * 83492791) ^ (s * 2654435761)) & m
        v ^= v >> 13
        v = (v * 0x5BD1E995) & m
        return v ^ (v >> 15)

    def sample(p, x, y):
        return (hh(x // 16, y // 16, p, 1) % 200 + hh(x, y, p, seed) % (8 if seed == 1 else 48)) << (bits - 8)
    return (lambda x, y: sample(0, x, y)), sample


# --- cases --------------------------------------------------------------------------------------

# (name, input, feature, expectation). Inputs: ("fixture", name, frames) or
# ("pattern"|"dark"|"blocks", w, h, bits, sub).
FIXTURES = {"path_576x324_420p8": (576, 324, "420", 8), "fallenleaf_1280x720_422p10": (1280, 720, "422", 10),
            "cups_960x540_444p12": (960, 540, "444", 12), "honeywave_1280x720_420p16": (1280, 720, "420", 16)}

# The band's sides, per (EOTF, tvi_threshold, max_log_contrast): the last threshold of a band of
# one level, the empty band, the wrapped band (cambi.cpp Band; docs/metrics.md gives the bounds).
BAND = [("cambi_vis_lum_threshold=83.8352", "levels"), ("cambi_vis_lum_threshold=83.8353", "empty"),
        ("cambi_vis_lum_threshold=84.2212", "wrapped"),
        ("tvi_threshold=0.7:cambi_vis_lum_threshold=0.0963", "levels"),
        ("tvi_threshold=0.7:cambi_vis_lum_threshold=0.0964", "empty"),
        ("tvi_threshold=0.7:cambi_vis_lum_threshold=27", "wrapped"),
        ("eotf=pq:tvi_threshold=0.7:cambi_vis_lum_threshold=0.0209", "levels"),
        ("eotf=pq:tvi_threshold=0.7:cambi_vis_lum_threshold=0.021", "empty"),
        ("eotf=pq:tvi_threshold=0.7:cambi_vis_lum_threshold=0.023", "wrapped"),
        ("eotf=pq:tvi_threshold=0.1:max_log_contrast=3:cambi_vis_lum_threshold=74.96", "levels"),
        ("eotf=pq:tvi_threshold=0.1:max_log_contrast=3:cambi_vis_lum_threshold=75.9", "wrapped"),
        ("max_log_contrast=0:cambi_vis_lum_threshold=2.93", "levels"),
        ("max_log_contrast=0:cambi_vis_lum_threshold=2.95", "empty"),
        ("max_log_contrast=0:cambi_vis_lum_threshold=3", "wrapped")]
# Wrapped bands upstream scores without writing outside (no masked level <= the band's top
# entering or leaving a window), per fixture: found with an upstream build counting its
# accesses outside the histograms; everywhere else on these fixtures it writes outside.
WRAPPED_CLEAN = {("path_576x324_420p8", "tvi_threshold=0.7:cambi_vis_lum_threshold=27"),
                 ("path_576x324_420p8", "eotf=pq:tvi_threshold=0.7:cambi_vis_lum_threshold=0.023"),
                 ("fallenleaf_1280x720_422p10", "tvi_threshold=0.7:cambi_vis_lum_threshold=27"),
                 ("fallenleaf_1280x720_422p10", "eotf=pq:tvi_threshold=0.7:cambi_vis_lum_threshold=0.023"),
                 ("fallenleaf_1280x720_422p10", "max_log_contrast=0:cambi_vis_lum_threshold=3"),
                 ("honeywave_1280x720_420p16", "tvi_threshold=0.7:cambi_vis_lum_threshold=27"),
                 ("honeywave_1280x720_420p16", "eotf=pq:tvi_threshold=0.7:cambi_vis_lum_threshold=0.023")}


def cases():
    c = []
    for fx in FIXTURES:
        for feature, side in BAND:
            if side == "levels" or (fx, feature) in WRAPPED_CLEAN:
                want = "same"
            else:
                want = "oob_read" if side == "empty" else "refused"
            c.append((f"{fx} {feature}", ("fixture", fx, 2), "cambi=" + feature, want))
    for feature, want in [("cambi=cambi_vis_lum_threshold=83.8352", "same"),
                          ("cambi=cambi_vis_lum_threshold=84.2211", "oob_read"),
                          ("cambi=cambi_vis_lum_threshold=84.2212", "refused"),
                          ("cambi=tvi_threshold=0.7:cambi_vis_lum_threshold=27", "same"),
                          ("cambi=eotf=pq:tvi_threshold=0.7:cambi_vis_lum_threshold=0.021", "oob_read")]:
        c.append((f"pattern 216x216 {feature}", ("pattern", 216, 216, 8, "420"), feature, want))
    c.append(("dark 216x216 wrapped", ("dark", 216, 216, 8, "420"),
              "cambi=tvi_threshold=0.7:cambi_vis_lum_threshold=27", "refused"))
    c.append(("dark 216x216 one level", ("dark", 216, 216, 8, "420"),
              "cambi=tvi_threshold=0.7:cambi_vis_lum_threshold=0.0963", "same"))
    for feature in ["cambi=cambi_vis_lum_threshold=84.2211", "cambi=cambi_vis_lum_threshold=84.2212"]:
        c.append((f"pattern 8x216 {feature}", ("pattern", 8, 216, 8, "444"), feature, "same"))
    # Below 216 wide, at least 216 high; and the sizes just outside.
    for w, h, bits, sub in [(214, 216, 8, "420"), (1, 216, 8, "444"), (2, 216, 8, "444"), (9, 216, 8, "444"),
                            (32, 216, 10, "444"), (64, 216, 10, "444"), (200, 400, 10, "444"), (24, 2000, 10, "444"),
                            (40, 1200, 10, "444"), (12, 2500, 10, "444"), (8, 1500, 8, "444")]:
        c.append((f"pattern {w}x{h} {bits}-bit", ("pattern", w, h, bits, sub), "cambi", "same"))
    c.append(("pattern 214x216 full_ref", ("pattern", 214, 216, 8, "420"), "cambi=full_ref=true", "same"))
    for w, h in [(214, 214), (215, 215)]:
        c.append((f"pattern {w}x{h}", ("pattern", w, h, 8, "444"), "cambi", "refused"))
    # speed_chroma below 80x80 chroma at speed_prescale above 1.
    for w, h, bits, sub, ps, want in [(40, 40, 8, "444", "4", "same"), (79, 79, 8, "444", "4", "same"),
                                      (20, 20, 8, "444", "4", "same"), (40, 40, 10, "420", "4", "same"),
                                      (80, 80, 8, "422", "2", "same"), (53, 53, 8, "444", "1.5", "same"),
                                      (60, 45, 10, "444", "2", "same"), (19, 20, 8, "444", "4", "refused"),
                                      (39, 40, 8, "420", "4", "refused"), (52, 53, 8, "444", "1.5", "refused")]:
        c.append((f"blocks {w}x{h} {sub} {bits}-bit ps {ps}", ("blocks", w, h, bits, sub),
                  f"speed_chroma=speed_prescale={ps}", want))
    for m in ["bilinear", "bicubic", "lanczos4"]:
        c.append((f"blocks 20x20 444 ps 4 {m}", ("blocks", 20, 20, 8, "444"),
                  f"speed_chroma=speed_prescale=4:speed_prescale_method={m}", "same"))
    return c


# --- running ------------------------------------------------------------------------------------

def inputs(spec, tmp, fixtures):
    """(ref, dist, extra arguments) for an input spec."""
    if spec[0] == "fixture":
        _, name, frames = spec
        w, h, sub, bits = FIXTURES[name]
        d = os.path.join(fixtures, name)
        return (os.path.join(d, "ref.yuv"), os.path.join(d, "dist.yuv"),
                ["-w", str(w), "-h", str(h), "-p", sub, "-b", str(bits), "--frame_cnt", str(frames)])
    kind, w, h, bits, sub = spec
    paths = []
    for seed in (1, 2):
        path = os.path.join(tmp, f"{kind}_{w}x{h}_{bits}_{sub}_{seed}.yuv")
        if not os.path.exists(path):
            if kind == "blocks":
                lu, cr = blocks(bits, seed)
            else:
                lu, cr = pattern(w, h, bits, seed, kind == "dark")
            write_frames(path, w, h, bits, sub, [lu], [cr])
        paths.append(path)
    return paths[0], paths[1], ["-w", str(w), "-h", str(h), "-p", sub, "-b", str(bits)]


def run(cmd, out):
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run(cmd, capture_output=True, text=True)
    values = None
    if os.path.exists(out) and os.path.getsize(out) > 0:
        try:
            values = [f["metrics"] for f in json.load(open(out))["frames"]]
        except (ValueError, KeyError):
            values = "unreadable"
    return p.returncode, p.stderr.strip(), values


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vmafx", required=True)
    ap.add_argument("--oracle", default=os.environ.get("VMAFX_ORACLE", ""))
    ap.add_argument("--fixtures", default=os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures")))
    ap.add_argument("--valgrind", action="store_true")
    ap.add_argument("--match", default="")
    a = ap.parse_args()
    if not a.oracle or not os.access(a.oracle, os.X_OK):
        print("skipped: no oracle (--oracle or $VMAFX_ORACLE: upstream vmaf printing %.17g)")
        return 77
    if not all(os.path.isdir(os.path.join(a.fixtures, f)) for f in FIXTURES):
        return missing(f"fixtures absent from {a.fixtures}")
    failed = unverified = passed = 0
    with tempfile.TemporaryDirectory(prefix="vmafx_cambi_speed_oracle_") as tmp:
        for name, spec, feature, want in cases():
            if a.match and not re.search(a.match, name + " " + feature):
                continue
            ref, dist, extra = inputs(spec, tmp, a.fixtures)
            base = ["-r", ref, "-d", dist] + extra + ["--no_prediction", "--feature", feature, "--json", "-q"]
            vout, uout = os.path.join(tmp, "vmafx.json"), os.path.join(tmp, "oracle.json")
            vrc, verr, vvals = run([a.vmafx] + base + ["-o", vout, "--precision", "max"], vout)
            urc, uerr, uvals = run([a.oracle] + base + ["-o", uout], uout)
            grind = None
            if a.valgrind and (want != "refused" or urc == 0):
                g = subprocess.run(["valgrind", "-q", "--error-exitcode=99", a.oracle] + base +
                                   ["-o", os.path.join(tmp, "grind.json")], capture_output=True, text=True)
                grind = g.returncode == 99 or "Invalid" in g.stderr
            metric = feature.split("=")[0]
            problems = []
            if want == "same":
                if vrc != 0 or urc != 0:
                    problems.append(f"exit vmafx {vrc}, oracle {urc}: {verr[:200]} {uerr[:200]}")
                elif vvals != uvals:
                    problems.append(f"values differ: vmafx {str(vvals)[:300]} oracle {str(uvals)[:300]}")
                if grind:
                    problems.append("valgrind reports an error in the oracle")
            else:
                if vrc not in (1, 2) or f"{metric}:" not in verr or vvals is not None:
                    problems.append(f"vmafx did not refuse cleanly: exit {vrc}, {verr[:200]!r}")
                if urc == 0:
                    if want != "oob_read":
                        problems.append("the oracle scored it")
                    elif grind is None:
                        unverified += 1
                    elif not grind:
                        problems.append("the oracle scored it, valgrind-clean")
            status = "FAIL" if problems else "ok"
            print(f"{status:4} {want:8} {name}: {feature}" + ("".join("\n     " + p for p in problems)))
            if problems:
                failed += 1
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed" +
          (f" ({unverified} oob_read cases not verified without --valgrind)" if unverified else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
