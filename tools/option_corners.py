#!/usr/bin/env python3
"""Option corners: every option of every vmafx metric at its limits and at the values that
pick another code path, scored by upstream libvmaf 3.2.0 (the oracle) and by vmafx, compared
bit for bit. The golden files (../shared/golden) hold the option sets the models use; this
covers the rest.

  option_corners.py generate --oracle BIN [--fixtures DIR] [--out FILE]
      Runs the oracle on every corner and writes the reference values (tests/data/
      option_corners.json). BIN is an upstream `vmaf` 3.2.0 tool built locally whose
      output prints every score with %.17g; it is called with the corner's command line
      plus `--precision max`, which a wrapper around it drops. Where the oracle fails
      (non-zero exit or a signal), the corner is recorded as refused with its message.
  option_corners.py annotate --data FILE --oracle-note TEXT [--other LABEL=FILE ...]
      Sets the data file's description of its oracle, and marks each corner where another
      upstream build's values (a data file made by generate from the same corners, e.g. with
      `--cpumask` limiting upstream to its AVX2 or C code paths) differ: "differs_in" lists
      those builds. These are the corners where upstream's own code paths disagree.
  option_corners.py merge --add FILE [--data FILE]
      Adds the corners of FILE (made by generate --match for a new metric's corners) to the data
      file, replacing corners of the same fixture and feature text, in the order of CORNERS; the
      fixtures' checksums must agree. Corners no longer in CORNERS are dropped.
  option_corners.py check --bin BIN [--fixtures DIR] [--data FILE] [--verbose]
  (generate and check take --match REGEX: only the corners whose feature text matches)
      Runs BIN on every corner: each value recorded must be the same double (null where the
      oracle wrote null), the output names the same, and a refused corner must fail cleanly
      (exit 1 or 2, a message, no signal, no output file). Exit 77 (skipped) when the
      fixtures are absent.

Fixtures come from ../shared/fixtures (prepare.py --out .fixtures); the data file records
each fixture's sha256 so that a changed fixture is noticed.
"""
import argparse, configparser, hashlib, json, math, os, re, shlex, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from skip_missing import missing  # noqa: E402
FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))
DATA = os.path.join(ROOT, "tests", "data", "option_corners.json")

# (fixture, frames scored): 8-bit 4:2:0, 10-bit 4:2:2, 12-bit 4:4:4, 16-bit 4:2:0.
FIXTURES_USED = [("path_576x324_420p8", 6), ("fallenleaf_1280x720_422p10", 2),
                 ("cups_960x540_444p12", 2), ("honeywave_1280x720_420p16", 2)]


def adm_corners():
    c = []
    for opt in ["adm_csf_scale=0", "adm_csf_scale=50", "adm_csf_diag_scale=0", "adm_csf_diag_scale=50",
                "adm_dlm_weight=0", "adm_dlm_weight=1", "adm_dlm_weight=0.7",
                "adm_enhn_gain_limit=1", "adm_enhn_gain_limit=1.2",
                "adm_norm_view_dist=0.75", "adm_norm_view_dist=1.5", "adm_norm_view_dist=6",
                "adm_norm_view_dist=24",
                "adm_ref_display_height=1", "adm_ref_display_height=720", "adm_ref_display_height=2160",
                "adm_ref_display_height=4320",
                "adm_noise_weight=0", "adm_noise_weight=0.5", "adm_noise_weight=1500",
                "adm_skip_aim=true", "adm_skip_scale0=true", "adm_skip_aim=true:adm_skip_scale0=true",
                "adm_min_val=0.5", "adm_min_val=1",
                "adm_norm_view_dist=24:adm_ref_display_height=4320"]:
        c.append(opt)
    # Barten (mode 1): its own scales, and viewing conditions far from the default.
    for opt in ["", ":adm_csf_scale=0", ":adm_csf_scale=0.5", ":adm_csf_scale=50", ":adm_csf_diag_scale=50",
                ":adm_csf_scale=10:adm_csf_diag_scale=10", ":adm_norm_view_dist=24:adm_ref_display_height=4320",
                ":adm_norm_view_dist=0.75:adm_ref_display_height=4320"]:
        c.append("adm_csf_mode=1" + opt)
    # Blend tables (modes 2 and 3): every (height, distance) with a table, and some without.
    for mode in (2, 3):
        for rdh, nvd in [(1080, 3), (1080, 5), (2160, 1.5), (2160, 3), (2160, 5), (720, 5),
                         (1080, 6), (1080, 4), (4320, 3), (720, 4.5)]:
            c.append(f"adm_csf_mode={mode}:adm_ref_display_height={rdh}:adm_norm_view_dist={nvd}")
    c.append("adm_csf_mode=2:adm_norm_view_dist=6:adm_skip_scale0=true")
    c.append("adm_csf_mode=3:adm_ref_display_height=720:adm_norm_view_dist=4.5:adm_enhn_gain_limit=1")
    return ["adm=debug=true"] + [f"adm={o}:debug=true" for o in c]


def vif_corners():
    c = ["vif_enhn_gain_limit=1", "vif_enhn_gain_limit=1.5", "vif_skip_scale0=true",
         "vif_enhn_gain_limit=1:vif_skip_scale0=true"]
    return ["vif=debug=true"] + [f"vif={o}:debug=true" for o in c]


def motion_corners():
    c = ["motion_force_zero=true", "motion_blend_factor=0", "motion_blend_factor=0.5",
         "motion_blend_offset=0", "motion_blend_offset=1000", "motion_blend_factor=0.5:motion_blend_offset=10",
         "motion_fps_weight=0", "motion_fps_weight=2.5", "motion_fps_weight=5",
         "motion_max_val=0", "motion_max_val=5", "motion_five_frame_window=true", "motion_moving_average=true",
         "motion_five_frame_window=true:motion_moving_average=true",
         "motion_force_zero=true:motion_five_frame_window=true"]
    return ["motion=debug=true"] + [f"motion={o}:debug=true" for o in c]


def float_ssim_corners():
    # The fixtures' automatic scales are 1 (576x324), 2 (960x540) and 3 (1280x720); explicit
    # scales 1..10 decimate every fixture (even and odd factors, odd decimated sizes).
    c = ["enable_lcs=true", "scale=0:enable_lcs=true", "scale=1:enable_lcs=true", "scale=2", "scale=3",
         "scale=4:enable_lcs=true", "scale=7", "scale=10:enable_lcs=true",
         "enable_db=true", "enable_db=true:clip_db=true", "clip_db=true",
         "enable_db=true:clip_db=true:enable_lcs=true:scale=5"]
    return [f"float_ssim={o}" for o in c]


def float_ms_ssim_corners():
    c = ["enable_lcs=true", "enable_db=true", "enable_db=true:clip_db=true", "clip_db=true",
         "enable_lcs=true:enable_db=true:clip_db=true"]
    return [f"float_ms_ssim={o}" for o in c]


def psnr_corners():
    # min_sse: the cap far above the scores (0.001, 1), near them and below them (1e7, 1e9 on
    # 8 bits; at 16 bits the peak is 257 times larger), and at the largest value upstream's
    # option parsing lets through (a float's largest: the cap far below zero).
    c = ["enable_chroma=false", "enable_mse=true", "enable_apsnr=true", "reduced_hbd_peak=true",
         "enable_chroma=false:enable_mse=true", "enable_chroma=false:enable_apsnr=true",
         "min_sse=0.001", "min_sse=1", "min_sse=1e7", "min_sse=1e9", "min_sse=1e12", "min_sse=3.4e38",
         "reduced_hbd_peak=true:min_sse=1e9", "reduced_hbd_peak=true:enable_mse=true:enable_apsnr=true",
         "enable_chroma=false:min_sse=1e9",
         "enable_chroma=true:enable_mse=true:enable_apsnr=true:reduced_hbd_peak=true:min_sse=0.5",
         "min_sse=-1", "min_sse=1e39"]
    return ["psnr"] + [f"psnr={o}" for o in c]


def float_psnr_corners():
    return ["float_psnr"]  # upstream's float_psnr has no options


def float_moment_corners():
    return ["float_moment"]  # upstream's float_moment has no options


def float_vif_corners():
    c = ["vif_enhn_gain_limit=1", "vif_enhn_gain_limit=1.5", "vif_skip_scale0=true",
         "vif_kernelscale=0.5", "vif_kernelscale=1.5", "vif_kernelscale=3", "vif_kernelscale=3.7113402",
         "vif_kernelscale=0.3", "vif_prescale=0.5", "vif_prescale=1.5", "vif_prescale=0.1",
         "vif_scale1_min_val=1", "vif_scale2_min_val=0.5", "vif_scale3_min_val=1",
         "vif_sigma_nsq=0", "vif_sigma_nsq=5", "vif_sigma_nsq=0.5:vif_enhn_gain_limit=1",
         "vif_skip_scale0=true:vif_kernelscale=2:vif_prescale=0.5"]
    # vif_prescale_method: each scaler down and up, the name it adds at vif_prescale 1 (a copy),
    # and a method upstream refuses.
    c += [f"vif_prescale={p}:vif_prescale_method={m}"
          for m in ("nearest", "bilinear", "bicubic", "lanczos4") for p in ("0.5", "1.5")]
    c += ["vif_prescale_method=bilinear", "vif_prescale_method=area"]
    return ["float_vif=debug=true"] + [f"float_vif={o}:debug=true" for o in c]


def float_adm_corners():
    c = ["adm_enhn_gain_limit=1", "adm_enhn_gain_limit=1.2", "adm_norm_view_dist=0.75", "adm_norm_view_dist=24",
         "adm_noise_weight=0", "adm_noise_weight=1500", "adm_ref_display_height=1", "adm_ref_display_height=4320",
         "adm_csf_mode=1", "adm_csf_mode=1:adm_csf_scale=0:adm_csf_diag_scale=50", "adm_csf_mode=1:adm_csf_scale=50",
         "adm_csf_mode=2", "adm_csf_mode=2:adm_norm_view_dist=6:adm_ref_display_height=720", "adm_csf_mode=9",
         "adm_bypass_cm=1", "adm_adm3_apply_hm=true", "adm_p_norm=1", "adm_p_norm=2.5", "adm_p_norm=20",
         "adm_dlm_weight=0", "adm_dlm_weight=1", "adm_min_val=1",
         "adm_f1s0=0:adm_f2s0=0", "adm_f1s1=10:adm_f2s2=0.5:adm_f1s3=2", "adm_f2s3=10",
         "adm_skip_aim_scale=0", "adm_skip_aim_scale=3", "adm_skip_scale0=true",
         "adm_skip_scale0=true:adm_skip_aim_scale=0"]
    return ["float_adm=debug=true"] + [f"float_adm={o}:debug=true" for o in c]


def float_motion_corners():
    c = ["debug=false", "motion_force_zero=true", "motion_force_zero=true:debug=false",
         "motion_fps_weight=0", "motion_fps_weight=2.5", "motion_fps_weight=5",
         "motion_blend_factor=0", "motion_blend_factor=0.5:motion_blend_offset=10", "motion_blend_offset=0",
         "motion_blend_offset=1000", "motion_max_val=0", "motion_max_val=5",
         "motion_add_scale1=true", "motion_filter_size=1", "motion_filter_size=3", "motion_filter_size=0",
         "motion_filter_size=9", "motion_add_uv=true", "motion_add_uv=true:motion_filter_size=3",
         "motion_add_scale1=true:motion_fps_weight=2:motion_max_val=20"]
    return ["float_motion"] + [f"float_motion={o}" for o in c]


def cambi_corners():
    c = ["", "cambi_max_val=0", "cambi_max_val=0.5",
         "enc_width=180", "enc_width=480:enc_height=270", "enc_width=7680:enc_height=7680",
         "enc_width=180:enc_height=150", "enc_width=300:enc_height=150",
         "enc_bitdepth=6", "enc_bitdepth=8", "enc_bitdepth=16",
         "src_width=320:src_height=200", "full_ref=true", "full_ref=true:src_width=320:src_height=200",
         "full_ref=true:enc_width=480:enc_height=270:src_width=320:src_height=200",
         "full_ref=true:src_width=7680:src_height=200",
         "window_size=15", "window_size=127", "window_size=127:enc_width=300:enc_height=150",
         "topk=0.0001", "topk=1", "cambi_topk=0.2", "topk=0.3:cambi_topk=0.9",
         "tvi_threshold=0.0001", "tvi_threshold=1", "tvi_threshold=0.1",
         "cambi_vis_lum_threshold=0.06", "cambi_vis_lum_threshold=10", "cambi_vis_lum_threshold=300",
         "max_log_contrast=0", "max_log_contrast=5", "max_log_contrast=5:tvi_threshold=0.0001",
         "eotf=pq", "cambi_eotf=pq", "eotf=pq:cambi_eotf=bt1886", "eotf=hlg", "cambi_eotf=pq:eotf=hlg",
         "eotf=pq:cambi_vis_lum_threshold=300", "full_ref=true:cambi_eotf=pq:max_log_contrast=3",
         "cambi_high_res_speedup=1080", "cambi_high_res_speedup=2160", "cambi_high_res_speedup=100",
         "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17",
         # The band of levels (cambi.cpp Band): one level; wrapped, where some fixtures are
         # scored (0) and others make upstream write outside its histograms (refused).
         "cambi_vis_lum_threshold=83.8352", "tvi_threshold=0.7:cambi_vis_lum_threshold=27",
         "eotf=pq:tvi_threshold=0.7:cambi_vis_lum_threshold=0.023",
         "max_log_contrast=0:cambi_vis_lum_threshold=3"]
    return ["cambi" + ("=" + o if o else "") for o in c]


def speed_chroma_corners():
    c = ["speed_kernelscale=0.5", "speed_kernelscale=1.5", "speed_kernelscale=2", "speed_kernelscale=3",
         "speed_kernelscale=0.3", "speed_prescale=0.5", "speed_prescale=2", "speed_prescale=0.1",
         "speed_prescale=1.0005", "speed_prescale=0.5:speed_kernelscale=2", "speed_prescale=4",
         "speed_sigma_nn=0.1", "speed_sigma_nn=2", "speed_nn_floor=0.5", "speed_nn_floor=1",
         "speed_max_val=0", "speed_max_val=5"] + [f"speed_weight_var_mode={m}" for m in (1, 2, 3, 4, 6)]
    return ["speed_chroma"] + [f"speed_chroma={o}" for o in c]


def speed_temporal_corners():
    c = ["speed_kernelscale=0.5", "speed_kernelscale=3", "speed_kernelscale=0.3", "speed_prescale=0.5",
         "speed_prescale=0.1", "speed_prescale=2", "speed_sigma_nn=0.1", "speed_sigma_nn=2",
         "speed_nn_floor=1", "speed_max_val=0", "speed_use_ref_diff=true",
         "speed_use_ref_diff=true:speed_nn_floor=0.1:speed_sigma_nn=0.19"]
    return ["speed_temporal"] + [f"speed_temporal={o}" for o in c]


def speed_prescale_method_corners():
    c = []
    for m in ("nearest", "bilinear", "bicubic", "lanczos4"):
        c += [f"speed_chroma=speed_prescale=0.5:speed_prescale_method={m}",
              f"speed_chroma=speed_prescale=1.5:speed_prescale_method={m}",
              f"speed_temporal=speed_prescale=0.6:speed_prescale_method={m}"]
    return c + ["speed_chroma=speed_prescale_method=bilinear", "speed_chroma=speed_prescale_method=area",
                "speed_chroma=speed_prescale=0.6:speed_prescale_method=bilinear:speed_nn_floor=0.1:"
                "speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45.0"]


def preset_corners():
    # The CLI presets with their models and features (engine/presets.hpp), and a preset replacing
    # a float_ssim given before it (--aom_ctc v7.0).
    return ["--aom_ctc v1.0", "--aom_ctc v3.0", "--aom_ctc v6.0", "--aom_ctc v7.0", "--nflx_ctc v1.0",
            "--feature float_ssim=enable_lcs=true --aom_ctc v7.0 --feature psnr"]


# One line per metric (the order of tests/data/option_corners.json).
CORNER_FUNCTIONS = [
    adm_corners, vif_corners, motion_corners,
    psnr_corners, float_psnr_corners, float_moment_corners,
    float_ssim_corners, float_ms_ssim_corners,
    float_vif_corners, float_adm_corners, float_motion_corners,
    cambi_corners,
    speed_chroma_corners, speed_temporal_corners, speed_prescale_method_corners,
    preset_corners,
]
CORNERS = [c for f in CORNER_FUNCTIONS for c in f()]


def fixture_args(name):
    ini = configparser.ConfigParser()
    with open(os.path.join(FIXTURES, name, "fixture.ini")) as fh:
        ini.read_string("[f]\n" + fh.read())
    pf = ini["f"]["pix_fmt"]
    depth = pf[7:-2] if pf.endswith("le") else "8"
    d = os.path.join(FIXTURES, name)
    return ["-r", os.path.join(d, "ref.yuv"), "-d", os.path.join(d, "dist.yuv"), "-w", ini["f"]["width"],
            "-h", ini["f"]["height"], "-p", pf[3:6], "-b", depth]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run(binary, fixture, frames, feature, workdir):
    out = os.path.join(workdir, "out.json")
    if os.path.exists(out):
        os.remove(out)
    # A corner is a --feature value (scored without a model), or a command-line fragment starting
    # with "--" (the presets, with their models).
    chosen = shlex.split(feature) if feature.startswith("--") else ["-n", "--feature", feature]
    args = fixture_args(fixture) + chosen + ["--frame_cnt", str(frames), "--json", "-o", out,
                                             "-q", "--precision", "max"]
    p = subprocess.run([binary] + args, capture_output=True, text=True)
    result = {"exit": p.returncode, "stderr": p.stderr.strip()[-400:], "output": os.path.exists(out)}
    if p.returncode == 0:
        with open(out) as fh:
            d = json.load(fh)
        result["frames"] = [f["metrics"] for f in sorted(d["frames"], key=lambda f: f["frameNum"])]
    return result


def generate(args):
    data = {"oracle": args.note,
            "made_by": "tools/option_corners.py generate --oracle BIN",
            "fixtures": {}, "corners": []}
    with tempfile.TemporaryDirectory() as work:
        for fixture, frames in FIXTURES_USED:
            data["fixtures"][fixture] = {"frames": frames,
                                         "ref_sha256": sha256(os.path.join(FIXTURES, fixture, "ref.yuv")),
                                         "dist_sha256": sha256(os.path.join(FIXTURES, fixture, "dist.yuv"))}
            for feature in CORNERS:
                if args.match and not re.search(args.match, feature):
                    continue
                r = run(args.oracle, fixture, frames, feature, work)
                entry = {"fixture": fixture, "feature": feature}
                if r["exit"] != 0 or "frames" not in r:
                    entry["refused"] = r["stderr"].splitlines()[-1] if r["stderr"] else f"exit {r['exit']}"
                else:
                    entry["frames"] = r["frames"]
                data["corners"].append(entry)
                print(fixture, feature, "refused" if "refused" in entry else "ok", flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(data, fh, indent=0, separators=(",", ":"))
        fh.write("\n")
    return 0


def annotate(args):
    with open(args.data) as fh:
        data = json.load(fh)
    data["oracle"] = args.oracle_note
    others = []
    for spec in args.other:
        label, _, path = spec.partition("=")
        with open(path) as fh:
            others.append((label, json.load(fh)["corners"]))
    for i, c in enumerate(data["corners"]):
        c.pop("differs_in", None)
        differs = []
        for label, corners in others:
            o = corners[i]
            if (o["fixture"], o["feature"]) != (c["fixture"], c["feature"]):
                raise SystemExit(f"{label}: corner {i} is not {c['fixture']} {c['feature']}")
            if o.get("frames") != c.get("frames") or ("refused" in o) != ("refused" in c):
                differs.append(label)
        if differs:
            c["differs_in"] = differs
    with open(args.data, "w") as fh:
        json.dump(data, fh, indent=0, separators=(",", ":"))
        fh.write("\n")
    for label, _ in others:
        print(f"{label}: {sum(label in c.get('differs_in', []) for c in data['corners'])} corners differ")
    return 0


def merge(args):
    with open(args.data) as fh:
        data = json.load(fh)
    with open(args.add) as fh:
        added = json.load(fh)
    for fixture, info in added["fixtures"].items():
        if fixture in data["fixtures"] and data["fixtures"][fixture] != info:
            raise SystemExit(f"{args.add}: fixture {fixture} differs from {args.data}'s (checksums or frames)")
        data["fixtures"][fixture] = info
    by_key = {(c["fixture"], c["feature"]): c for c in data["corners"]}
    by_key.update({(c["fixture"], c["feature"]): c for c in added["corners"]})
    order = {f: i for i, f in enumerate(CORNERS)}
    fixtures = [f for f, _ in FIXTURES_USED]
    corners = [c for k, c in by_key.items() if k[1] in order and k[0] in fixtures]
    corners.sort(key=lambda c: (fixtures.index(c["fixture"]), order[c["feature"]]))
    data["corners"] = corners
    with open(args.data, "w") as fh:
        json.dump(data, fh, indent=0, separators=(",", ":"))
        fh.write("\n")
    print(f"{args.data}: {len(corners)} corners ({len(added['corners'])} from {args.add})")
    return 0


def bits(x):
    return struct.pack("<d", float(x))


def same(ref, ours):
    if ref is None:
        return ours is None
    if ours is None or isinstance(ours, bool) or not isinstance(ours, (int, float)):
        return False
    return bits(ref) == bits(ours)


def check(args):
    if not os.path.isdir(FIXTURES):
        return missing(f"fixtures not unpacked in {FIXTURES} (run ../shared/fixtures/prepare.py --out .fixtures)")
    with open(args.data) as fh:
        data = json.load(fh)
    for fixture, info in data["fixtures"].items():
        if not os.path.isfile(os.path.join(FIXTURES, fixture, "ref.yuv")):
            return missing(f"fixture {fixture} is not unpacked in {FIXTURES}")
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        for c in data["corners"]:
            if args.match and not re.search(args.match, c["feature"]):
                continue
            frames = data["fixtures"][c["fixture"]]["frames"]
            r = run(args.bin, c["fixture"], frames, c["feature"], work)
            where = f"{c['fixture']} --feature {c['feature']}"
            problems = []
            if "refused" in c:
                if r["exit"] not in (1, 2) or not r["stderr"] or r["output"]:
                    problems.append(f"oracle refused ({c['refused']}) but vmafx gave exit {r['exit']}, "
                                    f"output file {'written' if r['output'] else 'absent'}")
            elif r["exit"] != 0:
                problems.append(f"vmafx failed: exit {r['exit']}: {r['stderr']}")
            else:
                ours = r["frames"]
                if len(ours) != len(c["frames"]):
                    problems.append(f"{len(ours)} frames, oracle {len(c['frames'])}")
                for i, (ref, got) in enumerate(zip(c["frames"], ours)):
                    if set(ref) != set(got):
                        problems.append(f"frame {i}: names differ: only oracle {sorted(set(ref) - set(got))}, "
                                        f"only vmafx {sorted(set(got) - set(ref))}")
                    for k, v in ref.items():
                        if k in got and not same(v, got[k]):
                            problems.append(f"frame {i} {k}: vmafx {got[k]!r}, oracle {v!r}")
            if problems:
                failed += 1
                print(f"FAIL {where}")
                for p in problems[: (None if args.verbose else 6)]:
                    print("    " + p)
            else:
                passed += 1
                if args.verbose:
                    print(f"ok   {where}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--oracle", required=True)
    g.add_argument("--out", default=DATA)
    g.add_argument("--note", default="upstream libvmaf 3.2.0, built locally, scores printed with %.17g",
                   help="what the oracle is (written to the data file)")
    a = sub.add_parser("annotate")
    a.add_argument("--data", default=DATA)
    a.add_argument("--oracle-note", required=True)
    a.add_argument("--other", action="append", default=[], help="LABEL=FILE")
    m = sub.add_parser("merge")
    m.add_argument("--add", required=True)
    m.add_argument("--data", default=DATA)
    c = sub.add_parser("check")
    c.add_argument("--bin", required=True)
    c.add_argument("--data", default=DATA)
    c.add_argument("--verbose", action="store_true")
    for p in (g, a, c):
        p.add_argument("--fixtures", default=None)
    for p in (g, c):
        p.add_argument("--match", default=None, help="only the corners whose --feature text matches this regex")
    args = ap.parse_args()
    global FIXTURES
    if getattr(args, "fixtures", None):
        FIXTURES = args.fixtures
    return {"generate": generate, "annotate": annotate, "merge": merge, "check": check}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
