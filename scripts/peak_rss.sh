#!/usr/bin/env bash
# Peak resident memory of vmafx against the length of the video (issue 11: the peak for a long
# video should stay within 1.2 times the peak for a short one; the per-frame scores, kept for
# pooling and the output, are the only thing that may grow with the frames). Scores the default
# model on the autumn 1920x1080 8-bit fixture repeated into SHORT and LONG frames, read two ways:
# from regular files (-r/-d paths) and from pipes (FIFOs in the work folder, each fed by `cat`),
# and reports each run's maximum resident set size (`/usr/bin/time -f %M`) and the ratio LONG/SHORT.
#
# Usage: scripts/peak_rss.sh VMAFX [LONG] [SHORT]
#   LONG (default 2000) and SHORT (default 100): frames.
#   env FIXTURES (default .fixtures), THREADS (default 0: all cores), WORK (default a new
#       temporary folder; the videos are written there, ~3 MB a frame and side, and the folder is
#       removed at the end, also on failure or interruption).
set -euo pipefail
bin=$1 long=${2:-2000} short=${3:-100}
fixtures=${FIXTURES:-.fixtures}
threads=${THREADS:-0}
fixture=$fixtures/autumn_1920x1080_420p8
w=1920 h=1080
frame_bytes=$(( w * h * 3 / 2 ))
work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/vmafx-rss.XXXXXX")}
mkdir -p "$work"
feeders=()
cleanup() {
  for p in "${feeders[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fixture_frames=$(( $(stat -c %s "$fixture/ref.yuv") / frame_bytes ))
# repeat SIDE N: the fixture's SIDE video repeated into exactly N frames, on standard output
# (in a subshell without pipefail: `head` ends the pipe early and its writer dies of SIGPIPE).
repeat() (
  set +o pipefail
  side=$1 n=$2
  for _ in $(seq $(( (n + fixture_frames - 1) / fixture_frames ))); do cat "$fixture/$side.yuv"; done |
    head -c $(( n * frame_bytes ))
)
# measure N: runs vmafx on N frames from files, then from FIFOs; prints "N file KB" and "N pipe KB".
measure() {
  local n=$1 side kb
  for side in ref dist; do repeat "$side" "$n" >"$work/$side.yuv"; done
  kb=$( { /usr/bin/time -f %M "$bin" -r "$work/ref.yuv" -d "$work/dist.yuv" -w $w -h $h -p 420 -b 8 \
            --threads "$threads" -q -o "$work/out.xml" >/dev/null; } 2>&1 | tail -1)
  echo "$n file $kb"
  rm -f "$work/ref.fifo" "$work/dist.fifo"
  mkfifo "$work/ref.fifo" "$work/dist.fifo"
  feeders=()
  for side in ref dist; do cat "$work/$side.yuv" >"$work/$side.fifo" & feeders+=($!); done
  kb=$( { /usr/bin/time -f %M "$bin" -r "$work/ref.fifo" -d "$work/dist.fifo" -w $w -h $h -p 420 -b 8 \
            --threads "$threads" -q -o "$work/out.xml" >/dev/null; } 2>&1 | tail -1)
  wait "${feeders[@]}" 2>/dev/null || true
  feeders=()
  echo "$n pipe $kb"
  rm -f "$work/ref.yuv" "$work/dist.yuv" "$work/ref.fifo" "$work/dist.fifo"
}
results=$work/results.txt
{ measure "$short"; measure "$long"; } | tee "$results"
grep -c '<frame ' "$work/out.xml" | sed 's/^/frames in the last output: /'
python3 - "$results" "$short" "$long" "$threads" <<'PY'
import sys
rss = {}
for line in open(sys.argv[1]):
    n, how, kb = line.split(); rss[(int(n), how)] = int(kb)
short, long = int(sys.argv[2]), int(sys.argv[3])
print(f"\nvmafx, default model, 1920x1080 8-bit, --threads {sys.argv[4]}: maximum resident set size\n")
print(f"| input | {short} frames (MiB) | {long} frames (MiB) | ratio {long}/{short} |")
print("|---|---:|---:|---:|")
for how in ("file", "pipe"):
    a, b = rss[(short, how)], rss[(long, how)]
    print(f"| {how} | {a / 1024:.1f} | {b / 1024:.1f} | {b / a:.3f} |")
PY
