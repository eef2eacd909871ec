#!/usr/bin/env python3
"""Compressed input (src/io/av_reader.cpp): videos encoded by the `ffmpeg` command during the
test, in a temporary folder, scored by vmafx directly and compared with the scores of the raw
pictures they hold.

  compressed_input.py VMAFX [--fixtures DIR] [--only REGEX] [--keep]

The clip is the first 5 frames of the fixture path_576x324_420p8 (../shared), cropped to
320x180 (so that sanitized builds stay quick), and other formats made from it by ffmpeg
(-pix_fmt). Every comparison is of whole JSON outputs at --precision max (%.17g: every
frame's and every pooled value, bit for bit), VMAF and PSNR (so that chroma counts):

  lossless   FFV1 and x264 -qp 0 at 4:2:0, 4:2:2, 4:4:4, 8 and 10 bits; raw video in NUT as
             yuv420p10be (vmafx swaps the bytes) and as nv12 (converted by libswscale, with a
             notice): the same scores as the raw .yuv pair
  lossy      H.264 (x264), HEVC (x265, 8 and 10 bits), AV1 (libaom and SVT-AV1), VP9 (libvpx),
             FFV1 grey (converted to 4:2:0): the same scores as the video decoded by
             `ffmpeg -f rawvideo` (with -pix_fmt where vmafx converts) and scored as .yuv; the
             reference raw (-w -h -p -b beside a compressed distorted video) or compressed
  scale      a half-size H.264 encode with --scale-dist bicubic (and lanczos; 10-bit bicubic):
             the scores of `ffmpeg -vf scale=W:H:flags=...` to .yuv scored
  options    --frame_skip_dist, --frame_cnt, --subsample on compressed input: as on the .yuv
  pipe       a Matroska file on standard input (-d -): as from the file
  align      --align pts on a distorted video that lost a frame (timestamps kept): the scores of
             the raw pairs without that frame, and a warning counting it; raw input refused
  loading    FFmpeg's libraries opened only by runs that need them (never for a raw .yuv pair;
             Matroska and MP4 misnamed .yuv still decoded); unloadable libraries: compressed
             input fails naming them, raw .yuv still scores
  errors     lengths, sizes, a truncated MP4, a text file, an audio-only file, an MP4 index at
             its end on a pipe, a bad --scale-dist: exit status 1 (2 for the option), the files
             and the problem named, no output file written

Exit 77 (skipped) when ffmpeg, the fixtures or vmafx's FFmpeg libraries are absent; an encoder
that this ffmpeg lacks skips its cases, saying so."""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skip_missing import missing  # noqa: E402
FIXTURE = "path_576x324_420p8"
SRC_W, SRC_H = 576, 324
W, H, FRAMES = 320, 180, 5
SKIP = 77


def run(cmd, check=True, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return p


class Suite:
    def __init__(self, vmafx, work):
        self.vmafx, self.work = vmafx, work
        self.failures, self.passed, self.skipped = [], 0, []
        self.encoders = run(["ffmpeg", "-hide_banner", "-encoders"]).stdout

    def path(self, name):
        return os.path.join(self.work, name)

    def has(self, encoder):
        if re.search(r"\s" + re.escape(encoder) + r"\s", self.encoders):
            return True
        self.skipped.append(encoder)
        return False

    def ffmpeg(self, *args):
        run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *args])

    def raw_input(self, yuv, pix_fmt, w=W, h=H):
        return ["-f", "rawvideo", "-pix_fmt", pix_fmt, "-s", f"{w}x{h}", "-i", self.path(yuv)]

    def score(self, ref, dist, extra=(), raw=None, stdin=None):
        """vmafx's JSON output as a dict of frames and pooled values (and its stderr)."""
        out = self.path("score.json")
        if os.path.exists(out):
            os.remove(out)
        cmd = [self.vmafx, "-r", ref, "-d", dist, "--json", "-o", out, "--precision", "max", "-q",
               "--feature", "psnr", "--threads", "2", *extra]
        if raw:
            cmd += ["-w", str(raw[0]), "-h", str(raw[1]), "-p", raw[2], "-b", str(raw[3])]
        p = run(cmd, stdin=stdin)
        with open(out) as f:
            j = json.load(f)
        return {"frames": j["frames"], "pooled": j["pooled_metrics"]}, p.stderr

    def check(self, name, fn):
        t0 = time.time()
        try:
            fn()
            self.passed += 1
            print(f"ok    {name} ({time.time() - t0:.1f} s)", flush=True)
        except Exception as e:  # noqa: BLE001 -- a failed case is reported, the others still run
            self.failures.append(name)
            print(f"FAIL  {name}: {e}", flush=True)

    def same(self, a, b, what):
        if a != b:
            for fa, fb in zip(a["frames"], b["frames"]):
                for k in fa["metrics"]:
                    if fa["metrics"][k] != fb["metrics"].get(k):
                        raise AssertionError(f"{what}: frame {fa['frameNum']} {k}: {fa['metrics'][k]!r} != "
                                             f"{fb['metrics'].get(k)!r}")
            raise AssertionError(f"{what}: outputs differ ({len(a['frames'])} and {len(b['frames'])} frames)")
        if not a["frames"]:
            raise AssertionError(f"{what}: no frames")


def depth_of(pix_fmt):
    m = re.search(r"p(\d+)(le|be)$", pix_fmt)
    return int(m.group(1)) if m else 8


def sub_of(pix_fmt):
    return re.match(r"yuv(\d{3})p", pix_fmt).group(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vmafx")
    ap.add_argument("--fixtures", default=os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures")))
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    vmafx = os.path.abspath(args.vmafx)
    src = os.path.join(args.fixtures, FIXTURE)
    if not shutil.which("ffmpeg"):
        print("skipped: no ffmpeg command (Debian package ffmpeg)")
        return SKIP
    if not all(os.path.exists(os.path.join(src, v + ".yuv")) for v in ("ref", "dist")):
        return missing(f"fixture {src} absent (../shared)")
    version = run([vmafx, "--version"]).stdout
    if "compressed input: FFmpeg" not in version:
        print("skipped: this vmafx was built without FFmpeg's libraries")
        return SKIP

    work = tempfile.mkdtemp(prefix="vmafx-compressed-")
    t_start = time.time()
    try:
        s = Suite(vmafx, work)
        P = s.path
        # The clip: 5 frames cropped to 320x180, 4:2:0 8-bit, then the other formats.
        for v in ("ref", "dist"):
            s.ffmpeg("-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", f"{SRC_W}x{SRC_H}",
                     "-i", os.path.join(src, v + ".yuv"), "-frames:v", str(FRAMES),
                     "-vf", f"crop={W}:{H}:64:32", "-f", "rawvideo", P(f"{v}_yuv420p.yuv"))
        formats = ["yuv420p", "yuv422p", "yuv444p", "yuv420p10le", "yuv422p10le", "yuv444p10le"]
        for fmt in formats[1:]:
            for v in ("ref", "dist"):
                s.ffmpeg(*s.raw_input(f"{v}_yuv420p.yuv", "yuv420p"), "-pix_fmt", fmt, "-f", "rawvideo",
                         P(f"{v}_{fmt}.yuv"))
        raw_scores = {}

        def raw_score(fmt):
            if fmt not in raw_scores:
                raw_scores[fmt] = s.score(P(f"ref_{fmt}.yuv"), P(f"dist_{fmt}.yuv"),
                                          raw=(W, H, sub_of(fmt), depth_of(fmt)))[0]
            return raw_scores[fmt]

        def encode_pair(fmt, codec_args, ext, tag):
            out = []
            for v in ("ref", "dist"):
                name = P(f"{v}_{tag}.{ext}")
                s.ffmpeg(*s.raw_input(f"{v}_{fmt}.yuv", fmt), *codec_args, name)
                out.append(name)
            return out

        def lossless(fmt, codec_args, ext, tag, notice=None):
            def case():
                ref, dist = encode_pair(fmt, codec_args, ext, tag)
                got, err = s.score(ref, dist)
                s.same(got, raw_score(fmt), tag)
                if notice and notice not in err:
                    raise AssertionError(f"{tag}: no notice \"{notice}\" on stderr: {err!r}")
                if not notice and "note:" in err:
                    raise AssertionError(f"{tag}: unexpected notice: {err!r}")
            return case

        cases = []
        if s.has("ffv1"):
            for fmt in ("yuv420p", "yuv422p10le"):
                cases.append((f"lossless ffv1 {fmt}", lossless(fmt, ["-c:v", "ffv1"], "mkv", f"ffv1_{fmt}")))
        if s.has("libx264"):
            for fmt in formats:
                cases.append((f"lossless x264 -qp 0 {fmt}",
                              lossless(fmt, ["-c:v", "libx264", "-qp", "0", "-preset", "ultrafast"], "mp4",
                                       f"x264_{fmt}")))
        cases.append(("lossless rawvideo yuv420p10be in NUT (bytes swapped)",
                      lossless("yuv420p10le", ["-pix_fmt", "yuv420p10be", "-c:v", "rawvideo"], "nut", "raw_be")))
        cases.append(("lossless rawvideo nv12 in NUT (converted, notice)",
                      lossless("yuv420p", ["-pix_fmt", "nv12", "-c:v", "rawvideo"], "nut", "raw_nv12",
                               notice="decoded as nv12, which vmafx does not score: converted to yuv420p")))

        def lossy(fmt, codec_args, ext, tag, ref_raw=True, decode_fmt=None, notice=None):
            def case():
                dist = P(f"dist_{tag}.{ext}")
                s.ffmpeg(*s.raw_input(f"dist_{fmt}.yuv", fmt), *codec_args, dist)
                decoded = P(f"dist_{tag}_decoded.yuv")
                out_fmt = decode_fmt or fmt
                s.ffmpeg("-i", dist, "-f", "rawvideo", "-pix_fmt", out_fmt, decoded)
                raw = (W, H, sub_of(out_fmt), depth_of(out_fmt))
                if ref_raw:
                    ref = P(f"ref_{out_fmt}.yuv")
                    got, err = s.score(ref, dist, raw=raw)
                else:
                    ref = P(f"ref_{tag}.mkv")
                    s.ffmpeg(*s.raw_input(f"ref_{out_fmt}.yuv", out_fmt), "-c:v", "ffv1", ref)
                    got, err = s.score(ref, dist)
                want, _ = s.score(P(f"ref_{out_fmt}.yuv"), decoded, raw=raw)
                s.same(got, want, tag)
                if notice and notice not in err:
                    raise AssertionError(f"{tag}: no notice \"{notice}\" on stderr: {err!r}")
            return case

        if s.has("libx264"):
            cases.append(("lossy h264 (reference raw)", lossy("yuv420p", ["-c:v", "libx264", "-crf", "35"], "mp4", "h264")))
            cases.append(("lossy h264 4:2:2 10-bit (reference ffv1)",
                          lossy("yuv422p10le", ["-c:v", "libx264", "-crf", "30"], "mkv", "h264_422p10", ref_raw=False)))
        if s.has("libx265"):
            x265 = ["-c:v", "libx265", "-preset", "ultrafast", "-crf", "32", "-x265-params", "log-level=error"]
            cases.append(("lossy hevc", lossy("yuv420p", x265, "mp4", "hevc")))
            cases.append(("lossy hevc 10-bit", lossy("yuv420p10le", x265, "mkv", "hevc10")))
        if s.has("libaom-av1"):
            cases.append(("lossy av1 (libaom)", lossy("yuv420p", ["-c:v", "libaom-av1", "-cpu-used", "8", "-crf", "40",
                                                                  "-row-mt", "1"], "mkv", "aom")))
        if s.has("libsvtav1"):
            cases.append(("lossy av1 (svt-av1)", lossy("yuv420p", ["-c:v", "libsvtav1", "-preset", "12", "-crf", "45"],
                                                       "mkv", "svt")))
        if s.has("libvpx-vp9"):
            cases.append(("lossy vp9", lossy("yuv420p", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
                                                         "-crf", "40", "-b:v", "0"], "webm", "vp9")))
        if s.has("ffv1"):
            cases.append(("gray ffv1 (converted like -pix_fmt yuv420p, notice)",
                          lossy("yuv420p", ["-pix_fmt", "gray", "-c:v", "ffv1"], "mkv", "gray",
                                notice="decoded as gray, which vmafx does not score: converted to yuv420p")))

        def scaled(fmt, flags):
            def case():
                tag = f"half_{fmt}_{flags}"
                half = P(f"{tag}.mkv")
                codec = ["-c:v", "libx264", "-crf", "30"] if fmt == "yuv420p" else ["-c:v", "ffv1"]
                s.ffmpeg(*s.raw_input(f"dist_{fmt}.yuv", fmt), "-vf", f"scale={W // 2}:{H // 2}", *codec, half)
                up = P(f"{tag}_up.yuv")
                s.ffmpeg("-i", half, "-vf", f"scale={W}:{H}:flags={flags}", "-f", "rawvideo", "-pix_fmt", fmt, up)
                raw = (W, H, sub_of(fmt), depth_of(fmt))
                got, _ = s.score(P(f"ref_{fmt}.yuv"), half, extra=["--scale-dist", flags], raw=raw)
                want, _ = s.score(P(f"ref_{fmt}.yuv"), up, raw=raw)
                s.same(got, want, tag)
            return case

        if s.has("libx264"):
            cases.append(("scale-dist bicubic (h264 at half size)", scaled("yuv420p", "bicubic")))
            cases.append(("scale-dist lanczos (h264 at half size)", scaled("yuv420p", "lanczos")))
        if s.has("ffv1"):
            cases.append(("scale-dist bicubic 10-bit (ffv1 at half size)", scaled("yuv420p10le", "bicubic")))

        def options():
            ref, dist = P("ref_ffv1_yuv420p.mkv"), P("dist_ffv1_yuv420p.mkv")
            if not os.path.exists(ref):
                encode_pair("yuv420p", ["-c:v", "ffv1"], "mkv", "ffv1_yuv420p")
            opts = ["--frame_skip_dist", "1", "--frame_cnt", "3", "--subsample", "2"]
            got, _ = s.score(ref, dist, extra=opts)
            want, _ = s.score(P("ref_yuv420p.yuv"), P("dist_yuv420p.yuv"), extra=opts, raw=(W, H, "420", 8))
            s.same(got, want, "options")
            with open(dist, "rb") as f:
                piped, _ = s.score(ref, "-", stdin=f)
            s.same(piped, raw_score("yuv420p"), "pipe")

        if s.has("ffv1"):
            cases.append(("--frame_skip_dist --frame_cnt --subsample, and a pipe", options))

        def fails(cmd, parts, status=1, stdin=None, env=None):
            out = P("error_out.json")
            p = run([vmafx, *cmd, "-q", "--json", "-o", out], check=False, stdin=stdin, env=env)
            if p.returncode != status:
                raise AssertionError(f"{cmd}: exit status {p.returncode}, expected {status}: {p.stderr!r}")
            for part in parts:
                if part not in p.stderr:
                    raise AssertionError(f"{cmd}: message {p.stderr!r} lacks {part!r}")
            if os.path.exists(out):
                raise AssertionError(f"{cmd}: an output file was written")
            if "Sanitizer" in p.stderr or "internal error" in p.stderr:
                raise AssertionError(f"{cmd}: {p.stderr!r}")

        def errors():
            ref = P("ref_ffv1_yuv420p.mkv")
            if not os.path.exists(ref):
                encode_pair("yuv420p", ["-c:v", "ffv1"], "mkv", "ffv1_yuv420p")
            short = P("short.mkv")
            s.ffmpeg(*s.raw_input("dist_yuv420p.yuv", "yuv420p"), "-frames:v", "4", "-c:v", "ffv1", short)
            fails(["-r", ref, "-d", short], [f'"{ref}" has 5 frames', f'"{short}" has 4'])
            half = P("half_small.mkv")
            s.ffmpeg(*s.raw_input("dist_yuv420p.yuv", "yuv420p"), "-vf", f"scale={W // 2}:{H // 2}", "-c:v", "ffv1",
                     half)
            fails(["-r", ref, "-d", half], [ref, f"{W}x{H}", half, f"{W // 2}x{H // 2}", "--scale-dist"])
            fails(["-r", ref, "-d", half, "--scale-dist", "nonsense"], ["--scale-dist", "nonsense"], status=2)
            fails(["-r", ref, "-d", half, "--scale-dist", "bicubic+lanczos"], ["--scale-dist", "one of them"],
                  status=2)
            mp4 = P("whole.mp4")
            s.ffmpeg(*s.raw_input("dist_yuv420p.yuv", "yuv420p"), "-c:v", "libx264" if s.has("libx264") else "mpeg4",
                     mp4)
            with open(mp4, "rb") as f:
                data = f.read()
            trunc = P("truncated.mp4")
            with open(trunc, "wb") as f:
                f.write(data[: len(data) // 2])
            fails(["-r", ref, "-d", trunc], [trunc, "moov atom not found", "-w, -h, -p and -b"])
            text = P("notes.txt")
            with open(text, "w") as f:
                f.write("not a video\n" * 20)
            fails(["-r", text, "-d", ref], [text, "FFmpeg's libraries do not read it as a video", "-w, -h, -p and -b"])
            audio = P("audio.m4a")
            s.ffmpeg("-f", "lavfi", "-i", "sine=duration=0.3", "-c:a", "aac", audio)
            fails(["-r", ref, "-d", audio], [audio, "no video stream", "audio"])
            # An MP4 whose index follows its samples, larger than what libavformat buffers, on a pipe.
            big = P("big.mp4")
            s.ffmpeg(*s.raw_input("dist_yuv444p10le.yuv", "yuv444p10le"), "-c:v", "libx264", "-qp", "0",
                     "-preset", "ultrafast", big)
            cat = subprocess.Popen(["cat", big], stdout=subprocess.PIPE)
            try:
                fails(["-r", ref, "-d", "-"], ["standard input", "-movflags +faststart"], stdin=cat.stdout)
            finally:
                cat.stdout.close()
                cat.wait()
            # Corrupt samples in the middle of an H.264 stream in MP4: an error or a score, never
            # a crash (the decoder conceals what it can).
            bad = bytearray(data)
            for i in range(len(bad) // 3, len(bad) // 3 + 2000, 7):
                bad[i] ^= 0x5A
            corrupt = P("corrupt.mp4")
            with open(corrupt, "wb") as f:
                f.write(bytes(bad))
            p = run([vmafx, "-r", ref, "-d", corrupt, "-q"], check=False)
            if p.returncode not in (0, 1) or "Sanitizer" in p.stderr or "internal error" in p.stderr:
                raise AssertionError(f"corrupt mp4: exit status {p.returncode}: {p.stderr!r}")

        def raw_beside_ts():
            # A raw reference (-w -h -p -b) beside an MPEG-TS distorted video: the .ts is decoded
            # (its name and a certain probe), not read as raw bytes, and scores as ffmpeg decodes it.
            ts, yuv = P("dist.ts"), P("dist_from_ts.yuv")
            s.ffmpeg(*s.raw_input("dist_yuv420p.yuv", "yuv420p"), "-c:v", "mpeg2video", "-q:v", "4", ts)
            s.ffmpeg("-i", ts, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", yuv)
            raw = (W, H, "420", 8)
            got, _ = s.score(P("ref_yuv420p.yuv"), ts, raw=raw)
            want, _ = s.score(P("ref_yuv420p.yuv"), yuv, raw=raw)
            s.same(got, want, "raw reference, MPEG-TS distorted")

        def stream_choice():
            # Two video streams, the smaller first, both marked default: vmafx takes the one the
            # ffmpeg program maps (the largest; without the marks, the default one), so it scores as
            # that stream alone.
            ref = P("ref_ffv1_yuv420p.mkv")
            if not os.path.exists(ref):
                encode_pair("yuv420p", ["-c:v", "ffv1"], "mkv", "ffv1_yuv420p")
            full, small, both = P("full_stream.mkv"), P("small_stream.mkv"), P("two_streams.mkv")
            s.ffmpeg(*s.raw_input("dist_yuv420p.yuv", "yuv420p"), "-c:v", "ffv1", full)
            s.ffmpeg(*s.raw_input("dist_yuv420p.yuv", "yuv420p"), "-vf", f"scale={W // 2}:{H // 2}", "-c:v", "ffv1",
                     small)
            s.ffmpeg("-i", small, "-i", full, "-map", "0:v", "-map", "1:v", "-c", "copy", "-disposition:v:0", "default",
                     "-disposition:v:1", "default", both)
            got, _ = s.score(ref, both)
            want, _ = s.score(ref, full)
            s.same(got, want, "two video streams")

        def damaged_tail():
            # A fragmented MP4 cut inside a fragment: the packet cut short does not decode. vmafx
            # skips it as the ffmpeg program does, so it has ffmpeg's frames (-fps_mode
            # passthrough: no frame duplicated), says so, and --frame_cnt scores them.
            if not s.has("libx264"):
                return
            ref = P("ref_ffv1_yuv420p.mkv")
            if not os.path.exists(ref):
                encode_pair("yuv420p", ["-c:v", "ffv1"], "mkv", "ffv1_yuv420p")
            frag = P("frag.mp4")
            s.ffmpeg(*s.raw_input("dist_yuv420p.yuv", "yuv420p"), "-c:v", "libx264", "-g", "2", "-movflags",
                     "frag_keyframe+empty_moov", frag)
            with open(frag, "rb") as f:
                data = f.read()
            frame = W * H * 3 // 2
            tried = []
            for percent in (60, 70, 80, 90):
                cut, yuv = P(f"cut{percent}.mp4"), P(f"cut{percent}.yuv")
                with open(cut, "wb") as f:
                    f.write(data[: len(data) * percent // 100])
                s.ffmpeg("-i", cut, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", yuv)
                n = os.path.getsize(yuv) // frame
                tried.append(n)
                if not 0 < n < 5:
                    continue
                fails(["-r", ref, "-d", cut], [f'"{ref}" has 5 frames', f'"{cut}" has {n}', "could not be decoded",
                                              "skipped"])
                got, _ = s.score(ref, cut, ["--frame_cnt", str(n)])
                want, _ = s.score(ref, yuv, ["--frame_cnt", str(n)], raw=(W, H, "420", 8))
                s.same(got, want, f"{cut}, its first {n} frames")
                return
            raise AssertionError(f"no cut left between 1 and 4 decodable frames (ffmpeg decoded {tried})")

        def align_pts():
            # The distorted video lost frame 2 (timestamps kept): by position the lengths differ;
            # by time, reference frame 2 is dropped and the rest pair as they should.
            ref, dist = P("ref_ffv1_yuv420p.mkv"), P("dist_dropped.mkv")
            if not os.path.exists(ref):
                encode_pair("yuv420p", ["-c:v", "ffv1"], "mkv", "ffv1_yuv420p")
            s.ffmpeg(*s.raw_input("dist_yuv420p.yuv", "yuv420p"), "-vf", "select='not(eq(n\\,2))'",
                     "-fps_mode", "passthrough", "-c:v", "ffv1", dist)
            fails(["-r", ref, "-d", dist], [f'"{ref}" has 5 frames', f'"{dist}" has 4'])
            frame = W * H * 3 // 2
            for v in ("ref", "dist"):
                with open(P(f"{v}_yuv420p.yuv"), "rb") as f:
                    data = f.read()
                with open(P(f"{v}_without2.yuv"), "wb") as f:
                    f.write(data[: 2 * frame] + data[3 * frame:])
            got, err = s.score(ref, dist, extra=["--align", "pts"])
            want, _ = s.score(P("ref_without2.yuv"), P("dist_without2.yuv"), raw=(W, H, "420", 8))
            s.same(got, want, "align pts")
            if "--align pts: 1 frame of reference" not in err or "0 of distorted" not in err:
                raise AssertionError(f"align pts: no warning counting the dropped frame: {err!r}")
            fails(["-r", P("ref_yuv420p.yuv"), "-d", P("dist_yuv420p.yuv"), "-w", str(W), "-h", str(H), "-p", "420",
                   "-b", "8", "--align", "pts"], ["--align pts", "ref_yuv420p.yuv", "no timestamps"])
            # A raw H.264 stream has no timestamps: its frames are spaced by its frame rate from 0
            # (as the ffmpeg program spaces them), so by time they pair as by position.
            if s.has("libx264"):
                bare = P("dist.h264")
                s.ffmpeg(*s.raw_input("dist_yuv420p.yuv", "yuv420p"), "-c:v", "libx264", "-f", "h264", bare)
                by_time, _ = s.score(ref, bare, extra=["--align", "pts"])
                by_position, _ = s.score(ref, bare)
                s.same(by_time, by_position, "align pts, raw H.264")

        def loading():
            # FFmpeg's libraries are opened when a run first needs them (src/io/shared_library.hpp):
            # never for a raw .yuv pair, for a compressed video and for a raw file of another
            # name (probed for a container). When one cannot be opened, compressed input fails
            # naming the video and the library, a raw .yuv pair still scores and --version says so.
            ref = P("ref_ffv1_yuv420p.mkv")
            if not os.path.exists(ref):
                encode_pair("yuv420p", ["-c:v", "ffv1"], "mkv", "ffv1_yuv420p")
            raw = ["-w", str(W), "-h", str(H), "-p", "420", "-b", "8"]
            yuv_pair = ["-r", P("ref_yuv420p.yuv"), "-d", P("dist_yuv420p.yuv"), *raw]
            shutil.copyfile(P("dist_yuv420p.yuv"), P("dist_yuv420p.raw"))

            def libraries(cmd, env=None):
                """The sonames of FFmpeg's libraries a successful run loaded (LD_DEBUG=libs)."""
                p = run([vmafx, *cmd, "-q", "-o", P("loading.xml")], env=dict(env or os.environ, LD_DEBUG="libs"))
                return set(re.findall(r"\b(lib(?:avutil|avcodec|avformat|swscale)\.so\.\d+)", p.stderr))

            if libraries(yuv_pair):
                raise AssertionError("a raw .yuv pair opened FFmpeg's libraries")
            probed = libraries(["-r", P("ref_yuv420p.yuv"), "-d", P("dist_yuv420p.raw"), *raw])
            sonames = libraries(["-r", ref, "-d", ref])
            if len(sonames) != 4 or probed != sonames:
                raise AssertionError(f"libraries opened: {sonames} for a .mkv pair, {probed} for a .raw file")
            # Containers misnamed .yuv (Matroska; MP4 where this ffmpeg has an H.264 encoder) start
            # as containers do: probed and decoded as under their own names, with -w -h -p -b.
            misnamed = [(ref, "mkv")]
            if s.has("libx264"):
                mp4 = P("loading.mp4")
                s.ffmpeg(*s.raw_input("dist_yuv420p.yuv", "yuv420p"), "-c:v", "libx264", mp4)
                misnamed.append((mp4, "mp4"))
            for video, kind in misnamed:
                as_yuv = P(f"{kind}_misnamed.yuv")
                shutil.copyfile(video, as_yuv)
                got, _ = s.score(P("ref_yuv420p.yuv"), as_yuv, raw=(W, H, "420", 8))
                want, _ = s.score(P("ref_yuv420p.yuv"), video, raw=(W, H, "420", 8))
                s.same(got, want, f"{kind} named .yuv")
            # Every one of them replaced by a file that is no library.
            bogus = P("bogus-libs")
            os.makedirs(bogus, exist_ok=True)
            for soname in sonames:
                with open(os.path.join(bogus, soname), "wb") as f:
                    f.write(b"x" * 256)
            env = dict(os.environ, LD_LIBRARY_PATH=bogus)
            avutil = next(n for n in sonames if n.startswith("libavutil"))
            fails(["-r", ref, "-d", ref], [ref, "FFmpeg's libraries cannot be loaded", avutil], env=env)
            fails(["-r", P("ref_yuv420p.yuv"), "-d", P("dist_yuv420p.raw"), *raw],
                  [P("dist_yuv420p.raw"), "FFmpeg's libraries cannot be loaded"], env=env)
            with open(P("dist_yuv420p.raw"), "rb") as stdin:
                fails(["-r", P("ref_yuv420p.yuv"), "-d", "-", *raw],
                      ["standard input: FFmpeg's libraries cannot be loaded"], env=env, stdin=stdin)
            run([vmafx, *yuv_pair, "-q", "-o", P("loading.xml")], env=env)
            version = run([vmafx, "--version"], env=env).stdout
            if "compressed input: unavailable: FFmpeg's libraries cannot be loaded" not in version:
                raise AssertionError(f"--version with the libraries unloadable: {version!r}")

        if s.has("ffv1"):
            cases.append(("FFmpeg's libraries opened only when needed", loading))
            cases.append(("--align pts", align_pts))
        cases.append(("errors", errors))
        cases.append(("a damaged tail skipped as ffmpeg skips it", damaged_tail))
        if s.has("ffv1"):
            cases.append(("of two video streams, the one ffmpeg maps", stream_choice))
        if s.has("mpeg2video"):
            cases.append(("a raw reference beside an MPEG-TS", raw_beside_ts))

        for name, fn in cases:
            if args.only and not re.search(args.only, name):
                continue
            s.check(name, fn)
        if s.skipped:
            print(f"encoders this ffmpeg lacks (their cases were left out): {', '.join(sorted(set(s.skipped)))}")
        print(f"{s.passed} passed, {len(s.failures)} failed in {time.time() - t_start:.1f} s")
        return 1 if s.failures else 0
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
