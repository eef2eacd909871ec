#!/usr/bin/env bash
# Per-metric cost per frame, vmafx against upstream's `vmaf` tool, in one sitting: for every metric
# that both tools share (the list is src/feature/metrics.def, under upstream's `--feature` names),
# whole CLI runs with `--threads 1 --no_prediction --feature NAME`, interleaved (upstream, vmafx,
# upstream, vmafx, ...), on a 1920x1080 8-bit and a 1920x1080 10-bit fixture repeated into ~24
# frames of raw .yuv (in page cache: both tools read the same files). The figure is the whole run's
# user CPU time divided by the frames (nothing subtracted: start-up and reading are included, the
# same for both tools). Upstream is not part of vmafx: give a `vmaf` binary you built (libvmaf
# 3.2.0).
#
# Usage: scripts/bench_metrics_vs_upstream.sh UPSTREAM_VMAF VMAFX [RUNS]
#   RUNS (default 3): runs per tool, metric and fixture; the table shows the medians.
#   env FIXTURES (default .fixtures), WORK (default a new temporary folder, removed at the end),
#       METRICS (default: every metric of metrics.def; a space-separated list to measure fewer),
#       INPUTS (default "8 10": which fixtures, by bit depth).
# Each tool is first asked to score one frame with each metric; a metric that one of them refuses
# is skipped and named under the table. Prints one line per run (fixture, frames, metric, tool,
# wall s, user s), then a markdown table per fixture: metric, upstream ms/frame, vmafx ms/frame,
# ratio (upstream's time over vmafx's: above 1.0, vmafx is faster; marked rough where a median run
# takes under 50 ms of user time and not given at 0, as /usr/bin/time counts in 10 ms steps).
set -euo pipefail
up=$1 ours=$2 runs=${3:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
fixtures=${FIXTURES:-.fixtures}
work=${WORK:-}
own=0
if [ -z "$work" ]; then work=$(mktemp -d "${TMPDIR:-/tmp}/vmafx-metrics.XXXXXX"); own=1; fi
cleanup() { if [ "$own" = 1 ]; then rm -rf "$work"; fi; }
trap cleanup EXIT
if [ -n "${METRICS:-}" ]; then
  read -r -a metrics <<<"$METRICS"
else
  # VMAFX_METRIC(name) lines outside the test-only #ifdef (the example metric).
  mapfile -t metrics < <(awk '/^#if/ {skip=1} /^#endif/ {skip=0} !skip && /^VMAFX_METRIC\(/ {
      sub(/^VMAFX_METRIC\(/, ""); sub(/\).*/, ""); print }' "$here/src/feature/metrics.def")
fi
# fixture, width, height, bit depth, repeats (so that each input has ~24 frames)
all_specs=("autumn_1920x1080_420p8 1920 1080 8 4" "volna_1920x1080_420p10 1920 1080 10 5")
specs=()
for spec in "${all_specs[@]}"; do
  set -- $spec
  for b in ${INPUTS:-8 10}; do [ "$b" = "$4" ] && specs+=("$spec"); done
done
for spec in "${specs[@]}"; do
  set -- $spec
  for side in ref dist; do
    f=$work/$1.$side.yuv
    [ -s "$f" ] || for _ in $(seq "$5"); do cat "$fixtures/$1/$side.yuv"; done >"$f"
  done
done
score() {  # bin fixture w h bits metric [extra args]: one CLI run, output to WORK/out.xml
  local bin=$1 name=$2 w=$3 h=$4 b=$5 m=$6; shift 6
  "$bin" -r "$work/$name.ref.yuv" -d "$work/$name.dist.yuv" -w "$w" -h "$h" -p 420 -b "$b" \
    --threads 1 --no_prediction --feature "$m" -q -o "$work/out.xml" "$@" >/dev/null
}
# Which names both tools accept (one frame of the first fixture).
set -- ${specs[0]}
shared=() skipped=()
for m in "${metrics[@]}"; do
  lacks=""
  score "$up" "$1" "$2" "$3" "$4" "$m" --frame_cnt 1 2>/dev/null || lacks="upstream"
  score "$ours" "$1" "$2" "$3" "$4" "$m" --frame_cnt 1 2>/dev/null || lacks="${lacks:+$lacks and }vmafx"
  if [ -z "$lacks" ]; then shared+=("$m"); else skipped+=("$m ($lacks refused --feature $m)"); fi
done
results=$work/results.txt
: >"$results"
for run in $(seq "$runs"); do
  for spec in "${specs[@]}"; do
    set -- $spec
    name=$1 w=$2 h=$3 b=$4
    bytes=$(( b > 8 ? 2 : 1 ))
    frames=$(( $(stat -c %s "$work/$name.ref.yuv") / (w * h * 3 / 2 * bytes) ))
    for m in "${shared[@]}"; do
      for tool in upstream vmafx; do
        bin=$up; [ "$tool" = vmafx ] && bin=$ours
        t=$( { /usr/bin/time -f "%e %U" "$bin" -r "$work/$name.ref.yuv" -d "$work/$name.dist.yuv" \
                 -w "$w" -h "$h" -p 420 -b "$b" --threads 1 --no_prediction --feature "$m" -q \
                 -o "$work/out.xml" >/dev/null; } 2>&1 | tail -1)
        echo "$name $frames $m $tool $t" | tee -a "$results"
      done
    done
  done
done
python3 - "$results" "$runs" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(list); frames = {}; order = []
for line in open(sys.argv[1]):
    name, n, metric, tool, wall, user = line.split()
    rows[(name, metric, tool)].append(float(user)); frames[name] = int(n)
    if (name, metric) not in order: order.append((name, metric))
for name in frames:
    print(f"\n{name}, {frames[name]} frames, 1 thread, median user CPU time of {sys.argv[2]} runs per frame:\n")
    print("| metric | upstream ms/frame | vmafx ms/frame | ratio |")
    print("|---|---:|---:|---:|")
    for n, metric in order:
        if n != name: continue
        up_s, us_s = statistics.median(rows[(name, metric, 'upstream')]), statistics.median(rows[(name, metric, 'vmafx')])
        up, us = up_s * 1000 / frames[name], us_s * 1000 / frames[name]
        # /usr/bin/time counts user time in 10 ms steps: a ratio of runs that short is noise.
        if min(up_s, us_s) == 0: ratio = "n/a (a run under the timer's 10 ms step)"
        elif min(up_s, us_s) < 0.05: ratio = f"{up / us:.2f} (rough: a run under 50 ms)"
        else: ratio = f"{up / us:.2f}"
        print(f"| {metric} | {up:.1f} | {us:.1f} | {ratio} |")
PY
if [ "${#skipped[@]}" -gt 0 ]; then
  echo; echo "skipped:"; printf '  %s\n' "${skipped[@]}"
fi
exit 0
