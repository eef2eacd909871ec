#!/usr/bin/env bash
# The minimal FFmpeg that the GPU machine decodes with (scripts/build_ffmpeg_nvdec.sh, carried by
# scripts/device_bundle.sh): it builds from Debian's source package, vmafx loads it in place of
# Debian's libraries when it is first on LD_LIBRARY_PATH (a VP9 video, whose decoder it leaves
# out, then fails naming the codec), and H.264 and HEVC videos score there, decoded on the CPU,
# bit for bit as with Debian's libraries. (Its NVDEC path runs on the GPU machine:
# scripts/device_check.sh decode.)
#
#   tests/ffmpeg_nvdec.sh VMAFX BUILD_DIR
#
# Exit 77 (skipped) where the build script skips (no deb-src entry, offline, no ffnvcodec
# headers, no nasm) or the ffmpeg command lacks libx264, libx265 or libvpx-vp9.
set -uo pipefail
vmafx=$1 build=$2
here=$(cd "$(dirname "$0")/.." && pwd)
prefix=$build/ffmpeg-nvdec
"$here/scripts/build_ffmpeg_nvdec.sh" "$prefix" "$build/ffmpeg-nvdec-work"
rc=$?
[ $rc -eq 0 ] || exit $rc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
encoders=$(ffmpeg -hide_banner -encoders 2>/dev/null)  # whole: grep -q on a pipe would cut it short
for enc in libx264 libx265 libvpx-vp9; do
  grep -q " $enc " <<<"$encoders" || { echo "SKIPPED: ffmpeg has no $enc"; exit 77; }
done
encode() {  # encode NAME ENCODER_ARGS...: a reference and a distorted encode of a test pattern
  local name=$1
  shift
  for crf in 12 36; do
    ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=96x64:rate=25 -frames:v 6 "$@" \
      -crf $crf "$work/$name.$crf.mkv" || exit 1
  done
}
encode h264 -c:v libx264 -preset ultrafast -pix_fmt yuv420p
encode hevc -c:v libx265 -preset ultrafast -x265-params log-level=error -pix_fmt yuv420p10le
encode vp9 -c:v libvpx-vp9 -b:v 0 -deadline realtime -pix_fmt yuv420p
for name in h264 hevc; do
  args=(-r "$work/$name.12.mkv" -d "$work/$name.36.mkv" --feature psnr --precision max -q --json)
  "$vmafx" "${args[@]}" -o "$work/$name.debian.json" || { echo "FAIL: $name with Debian's libraries"; fail=1; continue; }
  LD_LIBRARY_PATH="$prefix/lib" "$vmafx" "${args[@]}" -o "$work/$name.nvdec.json" ||
    { echo "FAIL: $name with $prefix/lib"; fail=1; continue; }
  if /usr/bin/python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(a["frames"] != b["frames"] or not a["frames"])' \
       "$work/$name.debian.json" "$work/$name.nvdec.json"; then
    echo "PASS: $name scores bit for bit as with Debian's libraries"
  else
    echo "FAIL: $name scores differ between Debian's libraries and $prefix/lib"
    fail=1
  fi
done
vp9=(-r "$work/vp9.12.mkv" -d "$work/vp9.36.mkv" -q --json -o "$work/vp9.json")
if "$vmafx" "${vp9[@]}" && ! LD_LIBRARY_PATH="$prefix/lib" "$vmafx" "${vp9[@]}" 2>"$work/vp9.err" &&
   grep -q "no decoder for vp9" "$work/vp9.err"; then
  echo "PASS: vmafx loads $prefix/lib first on LD_LIBRARY_PATH (VP9, which it leaves out, fails naming the codec)"
else
  echo "FAIL: with LD_LIBRARY_PATH=$prefix/lib vmafx did not load the minimal libraries: $(cat "$work/vp9.err" 2>/dev/null)"
  fail=1
fi
exit $fail
