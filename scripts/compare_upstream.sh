#!/usr/bin/env bash
# Side-by-side timing of whole CLI runs, vmafx against upstream's `vmaf` tool, in one sitting:
# interleaved runs (upstream, vmafx, upstream, vmafx, ...), the default model, raw .yuv in page
# cache, output to an XML file. Inputs are fixtures repeated into longer videos in WORK.
# Upstream is not part of vmafx: give a `vmaf` binary you built (libvmaf 3.2.0).
#
# Usage: scripts/compare_upstream.sh UPSTREAM_VMAF VMAFX [THREADS] [RUNS]
#   env FIXTURES (default .fixtures), WORK (default a new temporary folder, removed at the end),
#   REPEAT (default 1: each video is its fixture repeated REPEAT times the base count below;
#   more for many threads, so that start-up does not dominate), SIZES (a regex of the fixture
#   names to run, default all three)
# Prints one line per run: fixture, frames, tool, wall seconds, user seconds; then the median
# wall time per fixture and tool and vmafx's speed as a multiple of upstream's (frames per second).
set -euo pipefail
up=$1 ours=$2 threads=${3:-1} runs=${4:-3}
fixtures=${FIXTURES:-.fixtures}
work=${WORK:-}
own=0
if [ -z "$work" ]; then work=$(mktemp -d "${TMPDIR:-/tmp}/vmafx-compare.XXXXXX"); own=1; fi
specs=("path_576x324_420p8 576 324 3" "autumn_1920x1080_420p8 1920 1080 8" "canopee_3840x2160_420p8 3840 2160 4")
results=$work/results.txt
: >"$results"
repeat=${REPEAT:-1}
keep=()
for spec in "${specs[@]}"; do
  set -- $spec
  [[ $1 =~ ${SIZES:-.} ]] && keep+=("$spec")
done
specs=("${keep[@]}")
for spec in "${specs[@]}"; do
  set -- $spec
  name=$1
  for side in ref dist; do
    f=$work/$name.$side.yuv
    [ -s "$f" ] || for _ in $(seq $(( $4 * repeat ))); do cat "$fixtures/$name/$side.yuv"; done >"$f"
  done
done
for run in $(seq "$runs"); do
  for spec in "${specs[@]}"; do
    set -- $spec
    name=$1 w=$2 h=$3
    frames=$(( $(stat -c %s "$work/$name.ref.yuv") / (w * h * 3 / 2) ))
    for tool in upstream vmafx; do
      bin=$up; [ "$tool" = vmafx ] && bin=$ours
      t=$( { /usr/bin/time -f "%e %U" "$bin" -r "$work/$name.ref.yuv" -d "$work/$name.dist.yuv" -w "$w" -h "$h" \
               -p 420 -b 8 --threads "$threads" -q -o "$work/out.xml" >"$work/stdout.txt"; } 2>&1 | tail -1)
      echo "$name $frames $tool $t" | tee -a "$results"
    done
  done
done
echo "median wall seconds over $runs runs, $threads thread(s):"
python3 - "$results" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(list); frames = {}
for line in open(sys.argv[1]):
    name, n, tool, wall, user = line.split()
    rows[(name, tool)].append(float(wall)); frames[name] = int(n)
for name in frames:
    up, us = statistics.median(rows[(name, 'upstream')]), statistics.median(rows[(name, 'vmafx')])
    print(f"{name}: {frames[name]} frames, upstream {up:.2f} s ({frames[name]/up:.1f} fps), "
          f"vmafx {us:.2f} s ({frames[name]/us:.1f} fps): vmafx at {up/us:.2f}x upstream's speed")
PY
[ "$own" = 1 ] && rm -rf "$work"
exit 0
