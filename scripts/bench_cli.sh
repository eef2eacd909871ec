#!/usr/bin/env bash
# Frames per second of whole CLI runs (vmaf_v0.6.1, .yuv in page cache, XML output) at
# 576x324, 1920x1080 and 3840x2160, 8 and 10 bits, one thread and all threads on the CPU, and
# with --backend cuda where asked. Inputs are fixtures repeated into longer videos in WORK; the
# 10-bit 576x324 video is the 8-bit fixture's samples times 4 (no 10-bit fixture has that size).
#
# Usage: scripts/bench_cli.sh VMAFX [BACKENDS] [RUNS]
#   BACKENDS: "cpu" (default) or "cpu,cuda"; RUNS: runs per case, the median is printed (3).
#   env FIXTURES (default .fixtures), WORK (default a new temporary folder, removed at the end),
#   REPEAT (default 1: more makes longer videos), THREADS (default "1 $(nproc)").
# Prints one markdown row per case: size, bits, backend, threads, frames, median wall s, fps.
set -euo pipefail
bin=$1 backends=${2:-cpu} runs=${3:-3}
fixtures=${FIXTURES:-.fixtures}
work=${WORK:-}
own=0
if [ -z "$work" ]; then work=$(mktemp -d "${TMPDIR:-/tmp}/vmafx-bench-cli.XXXXXX"); own=1; fi
repeat=${REPEAT:-1}
threads=${THREADS:-"1 $(nproc)"}
# name width height bits repeats (frames = fixture frames x repeats x REPEAT)
specs=("path_576x324_420p8 576 324 8 4" "path_576x324_420p8 576 324 10 4"
       "autumn_1920x1080_420p8 1920 1080 8 4" "volna_1920x1080_420p10 1920 1080 10 4"
       "canopee_3840x2160_420p8 3840 2160 8 2" "coldripple_3840x2160_420p10 3840 2160 10 2")
for spec in "${specs[@]}"; do
  set -- $spec
  name=$1 bits=$4
  for side in ref dist; do
    f=$work/$name.$bits.$side.yuv
    [ -s "$f" ] && continue
    src=$fixtures/$name/$side.yuv
    if [ "$bits" = 10 ] && [[ $name == *p8 ]]; then
      python3 - "$src" "$f.one" <<'PY'
import sys, array
data = open(sys.argv[1], 'rb').read()
out = array.array('H', (b << 2 for b in data))  # 8-bit samples as 10-bit, little-endian words
if sys.byteorder != 'little':
    out.byteswap()
open(sys.argv[2], 'wb').write(out.tobytes())
PY
      src=$f.one
    fi
    for _ in $(seq $(( $5 * repeat ))); do cat "$src"; done >"$f"
    rm -f "$f.one"
  done
done
echo "| size | bits | backend | threads | frames | wall s (median of $runs) | fps |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for spec in "${specs[@]}"; do
  set -- $spec
  name=$1 w=$2 h=$3 bits=$4
  bytes=$(( bits > 8 ? 2 : 1 ))
  frames=$(( $(stat -c %s "$work/$name.$bits.ref.yuv") / (w * h * 3 / 2 * bytes) ))
  for backend in ${backends//,/ }; do
    for t in $threads; do
      [ "$backend" = cuda ] && [ "$t" != 1 ] && continue  # the GPU path's threads: all of them
      walls=()
      for _ in $(seq "$runs"); do
        args=(-r "$work/$name.$bits.ref.yuv" -d "$work/$name.$bits.dist.yuv" -w "$w" -h "$h" -p 420 -b "$bits"
              -q -o "$work/out.xml")
        if [ "$backend" = cuda ]; then args+=(--backend cuda); else args+=(--threads "$t"); fi
        walls+=("$( { /usr/bin/time -f '%e' "$bin" "${args[@]}" >"$work/stdout.txt"; } 2>&1 | tail -1)")
      done
      median=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
      label=$t; [ "$backend" = cuda ] && label=all
      awk -v s="${w}x${h}" -v b="$bits" -v be="$backend" -v t="$label" -v n="$frames" -v m="$median" \
        'BEGIN {printf "| %s | %s | %s | %s | %d | %.2f | %.1f |\n", s, b, be, t, n, m, n / m}'
    done
  done
done
[ "$own" = 1 ] && rm -rf "$work"
exit 0
