#!/usr/bin/env bash
# Whole runs on compressed 1920x1080 video: vmafx decoding the files itself against the two-step
# way (ffmpeg decodes both to .yuv, then vmafx scores the .yuv), all cores.
#
#   scripts/bench_decode.sh VMAFX [FRAMES] [RUNS] [CODECS]
#
# The videos are made once, in a temporary folder, from the fixture autumn_1920x1080_420p8
# (.fixtures, 6 frames, looped to FRAMES, default 120): the reference is an H.264 encode at
# crf 12 (a mezzanine), the distorted ones H.264 at crf 30 (x264 preset fast) and AV1 (SVT-AV1
# preset 10, crf 40; decoded by libdav1d). Each codec's pair is timed RUNS times (default 3),
# the two ways interleaved; the median wall time of each way is printed with frames per second
# (frames / wall seconds of the whole way: decoding, writing and reading the .yuv, scoring).
# CODECS: "h264 av1" by default. The .yuv files of the two-step way go to the same folder
# (page cache: as fast as the disk allows).
set -euo pipefail
vmafx=$(readlink -f "${1:?usage: scripts/bench_decode.sh VMAFX [FRAMES] [RUNS] [CODECS]}")
frames=${2:-120}
runs=${3:-3}
codecs=${4:-h264 av1}
cd "$(dirname "$0")/.."
fixture=.fixtures/autumn_1920x1080_420p8
[ -f "$fixture/ref.yuv" ] || { echo "no $fixture/ref.yuv (unpack ../shared's fixtures)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/vmafx-bench-decode.XXXXXX")
trap 'rm -rf "$work"' EXIT
ff() { SVT_LOG=1 ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
raw=(-f rawvideo -pix_fmt yuv420p -s 1920x1080 -stream_loop -1)

echo "making $frames frames of 1920x1080 (H.264 reference crf 12; distorted: $codecs)" >&2
ff "${raw[@]}" -i "$fixture/ref.yuv" -frames:v "$frames" -c:v libx264 -preset fast -crf 12 "$work/ref.mp4"
for c in $codecs; do
  case $c in
    h264) ff "${raw[@]}" -i "$fixture/dist.yuv" -frames:v "$frames" -c:v libx264 -preset fast -crf 30 "$work/dist_h264.mp4" ;;
    av1) ff "${raw[@]}" -i "$fixture/dist.yuv" -frames:v "$frames" -c:v libsvtav1 -preset 10 -crf 40 "$work/dist_av1.mkv" ;;
    *) echo "unknown codec $c (h264, av1)"; exit 1 ;;
  esac
done

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf "%-6s %-34s %10s %10s\n" codec way "seconds" "fps"
for c in $codecs; do
  dist=$(ls "$work"/dist_"$c".*)
  direct=() twostep=()
  for ((i = 0; i < runs; i++)); do
    t0=$(now)
    "$vmafx" -r "$work/ref.mp4" -d "$dist" -q -o "$work/direct.xml"
    t1=$(now)
    ff -i "$work/ref.mp4" -f rawvideo "$work/ref.yuv"
    ff -i "$dist" -f rawvideo "$work/dist.yuv"
    "$vmafx" -r "$work/ref.yuv" -d "$work/dist.yuv" -w 1920 -h 1080 -p 420 -b 8 -q -o "$work/twostep.xml"
    t2=$(now)
    rm -f "$work/ref.yuv" "$work/dist.yuv"
    direct+=("$(awk "BEGIN { print $t1 - $t0 }")")
    twostep+=("$(awk "BEGIN { print $t2 - $t1 }")")
    # The same scores both ways (the decoded pictures are the same).
    cmp -s <(grep -v 'fps=' "$work/direct.xml") <(grep -v 'fps=' "$work/twostep.xml") || {
      echo "the two ways' scores differ"; diff <(grep -v 'fps=' "$work/direct.xml") <(grep -v 'fps=' "$work/twostep.xml") | head; exit 1; }
  done
  d=$(printf "%s\n" "${direct[@]}" | median)
  t=$(printf "%s\n" "${twostep[@]}" | median)
  printf "%-6s %-34s %10.2f %10.1f\n" "$c" "vmafx -r ref.mp4 -d dist" "$d" "$(awk "BEGIN { print $frames / $d }")"
  printf "%-6s %-34s %10.2f %10.1f\n" "$c" "ffmpeg to .yuv x2, then vmafx" "$t" "$(awk "BEGIN { print $frames / $t }")"
done
