#!/usr/bin/env python3
"""--decode-sessions on streams built to trip the cutting (docs/input.md, "Several decoding
sessions per video"): every frame's scores with 3 sessions must be those of one decoder.

- H.264 Annex B in two parts of different quality whose third IDR picture of the second part
  brings parameter sets of id 1 while its slices use id 0's, sent only earlier: a session that
  started there without the sets seen before (CutPoints::Scan::prefix) decodes garbage;
- HEVC with a film grain characteristics SEI (persistent) in its first picture only: the
  cutting must stop there (FFmpeg applies the grain to every later picture);
- plain H.264 with IDR pictures every 20 frames: cut into segments (the provenance says so).

Usage: decode_sessions.py VMAFX. Exit 77 (skipped) without the ffmpeg command or FFmpeg's
libraries in this vmafx.
"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def run(*args):
    subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def nal_units(data):
    """The NAL units of an Annex B stream, without start codes or trailing zeros."""
    starts = [m.start() for m in re.finditer(b"\x00\x00\x01", data)]
    out = []
    for k, i in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(data)
        out.append(data[i + 3:end].rstrip(b"\x00"))
    return out


def annex_b(nals):
    return b"".join(b"\x00\x00\x00\x01" + n for n in nals)


def multi_id_stream(a, b, c):
    """Part a, then part b whose third IDR picture's SPS and PPS are replaced by c's (id 1)."""
    sps1 = next(n for n in c if n[0] & 0x1F == 7)
    pps1 = next(n for n in c if n[0] & 0x1F == 8)
    out, idrs, i = [], 0, 0
    while i < len(b):
        if b[i][0] & 0x1F == 7 and i + 1 < len(b) and b[i + 1][0] & 0x1F == 8:
            j = i + 2
            while b[j][0] & 0x1F not in (1, 5):
                j += 1
            if b[j][0] & 0x1F == 5:
                idrs += 1
                if idrs == 3:
                    out += [sps1, pps1] + b[i + 2:j]
                    i = j
                    continue
        out.append(b[i])
        i += 1
    return annex_b(a + out)


class Bits:
    def __init__(self):
        self.bits = []

    def u(self, n, v):
        self.bits += [(v >> i) & 1 for i in range(n - 1, -1, -1)]

    def ue(self, v):
        v += 1
        self.u(v.bit_length() - 1, 0)
        self.u(v.bit_length(), v)

    def se(self, v):
        self.ue(2 * v - 1 if v > 0 else -2 * v)

    def bytes(self):
        bits = self.bits + [1] + [0] * ((8 - (len(self.bits) + 1) % 8) % 8)  # with its stop bit
        return bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))


def film_grain_sei():
    """An HEVC prefix SEI NAL unit: film grain characteristics (H.274), luma only, persistent."""
    w = Bits()
    w.u(1, 0)  # film_grain_characteristics_cancel_flag
    w.u(2, 0)  # film_grain_model_id
    w.u(1, 0)  # separate_colour_description_present_flag
    w.u(2, 0)  # blending_mode_id
    w.u(4, 4)  # log2_scale_factor
    w.u(1, 1)  # comp_model_present_flag[0]
    w.u(1, 0)
    w.u(1, 0)
    w.u(8, 0)  # num_intensity_intervals_minus1
    w.u(3, 0)  # num_model_values_minus1
    w.u(8, 0)  # intensity_interval_lower_bound
    w.u(8, 255)  # intensity_interval_upper_bound
    w.se(200)  # comp_model_value
    w.u(1, 1)  # film_grain_characteristics_persistence_flag
    payload = w.bytes()
    rbsp = bytes([19, len(payload)]) + payload + b"\x80"
    escaped, zeros = bytearray(), 0
    for x in rbsp:
        if zeros >= 2 and x <= 3:
            escaped.append(3)
            zeros = 0
        escaped.append(x)
        zeros = zeros + 1 if x == 0 else 0
    return bytes([39 << 1, 1]) + bytes(escaped)


def main():
    vmafx = sys.argv[1]
    try:
        run("ffmpeg", "-version")
    except (OSError, subprocess.CalledProcessError):
        print("skipped: no ffmpeg command")
        return 77
    probe = subprocess.run([vmafx, "--version"], capture_output=True, text=True)
    if "libavformat" not in probe.stdout + probe.stderr:
        print("skipped: this vmafx has no FFmpeg libraries")
        return 77
    failures = 0
    with tempfile.TemporaryDirectory(prefix="vmafx-sessions-") as tmp:
        t = Path(tmp)
        src = t / "src.y4m"
        run("ffmpeg", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=25", "-frames:v", "120",
            "-pix_fmt", "yuv420p", src)

        def x264(out, start, qp, extra=""):
            run("ffmpeg", "-nostdin", "-y", "-i", src, "-vf", f"trim=start_frame={start}", "-frames:v", "60", "-c:v",
                "libx264", "-qp", str(qp), "-bf", "0", "-x264-params",
                "log-level=none:keyint=10:min-keyint=10:scenecut=0" + extra, out)
            return nal_units(out.read_bytes())

        parts = [x264(t / "a.h264", 0, 20), x264(t / "b.h264", 60, 40), x264(t / "c.h264", 60, 40, ":sps-id=1")]
        (t / "multi_id.h264").write_bytes(multi_id_stream(*parts))
        run("ffmpeg", "-nostdin", "-y", "-i", src, "-c:v", "libx265", "-x265-params",
            "log-level=error:keyint=20:min-keyint=20:scenecut=0:open-gop=0", t / "clean.hevc")
        nals = nal_units((t / "clean.hevc").read_bytes())
        first_picture = next(i for i, n in enumerate(nals) if (n[0] >> 1) & 0x3F < 32)
        (t / "grain.hevc").write_bytes(annex_b(nals[:first_picture] + [film_grain_sei()] + nals[first_picture:]))
        run("ffmpeg", "-nostdin", "-y", "-i", src, "-c:v", "libx264", "-x264-params",
            "log-level=none:keyint=20:min-keyint=20:scenecut=0", t / "plain.mp4")

        # Each: the stream, the frames scored, the segments expected with 3 sessions (None: any).
        for name, frames, segments in [("multi_id.h264", 120, None), ("grain.hevc", 120, 1), ("plain.mp4", 120, 6)]:
            results = []
            for sessions in (1, 3):
                out = t / f"{name}.{sessions}.json"
                r = subprocess.run([vmafx, "-r", src, "-d", t / name, "--feature", "psnr", "-n", "--precision", "max",
                                    "--json", "--provenance", "--threads", "1", "--frame_cnt", str(frames),
                                    "--decode-sessions", str(sessions), "-q", "-o", out],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"FAIL {name} with {sessions} sessions: exit {r.returncode}: {r.stderr.strip()}")
                    failures += 1
                    break
                results.append(json.loads(out.read_text()))
            if len(results) != 2:
                continue
            one, three = results
            differ = [i for i, (a, b) in enumerate(zip(one["frames"], three["frames"])) if a != b]
            cut = three["provenance"]["decoding"]["distorted"]["segments"]
            ok = len(one["frames"]) == frames and one["frames"] == three["frames"] and (segments is None or
                                                                                      cut == segments)
            failures += not ok
            print(f"{'PASS' if ok else 'FAIL'} {name}: {len(three['frames'])} frames, {cut} segments"
                  f"{'' if segments is None else f' (expected {segments})'}; differing frames: {differ[:10]}")
            if name == "multi_id.h264" and cut < 2:
                print(f"FAIL {name}: not cut, so the parameter sets were not put to the test")
                failures += 1
    print("decode_sessions:", "all passed" if failures == 0 else f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
