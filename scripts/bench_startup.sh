#!/usr/bin/env bash
# Start-up of a CPU run: the wall time of one-frame runs (default model, 576x324 8-bit raw .yuv
# in page cache, XML output), of each program given, interleaved (A, B, ..., A, B, ...), and the
# median over ROUNDS rounds of BATCH runs each. Programs may be vmafx builds or upstream's `vmaf`
# (the same flags).
#
# Usage: scripts/bench_startup.sh PROGRAM... ; env ROUNDS (default 7), BATCH (default 20),
#   FIXTURES (default .fixtures), EXTRA (more flags for every run, e.g. "--threads 1")
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 PROGRAM..." >&2; exit 2; }
fixtures=${FIXTURES:-.fixtures}
src=$fixtures/path_576x324_420p8
rounds=${ROUNDS:-7} batch=${BATCH:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/vmafx-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT
results=$work/results.txt
: >"$results"
for bin in "$@"; do  # each program once, its messages shown: a failing one stops the benchmark here
  # shellcheck disable=SC2086
  "$bin" -r "$src/ref.yuv" -d "$src/dist.yuv" -w 576 -h 324 -p 420 -b 8 --frame_cnt 1 -q -o "$work/out.xml" \
    ${EXTRA:-} >/dev/null || { echo "$bin failed (status $?)" >&2; exit 1; }
done
for round in $(seq "$rounds"); do
  for bin in "$@"; do
    start=$(date +%s%N)
    for _ in $(seq "$batch"); do
      # shellcheck disable=SC2086
      "$bin" -r "$src/ref.yuv" -d "$src/dist.yuv" -w 576 -h 324 -p 420 -b 8 --frame_cnt 1 -q \
        -o "$work/out.xml" ${EXTRA:-} >/dev/null 2>&1
    done
    end=$(date +%s%N)
    echo "$bin $(( (end - start) / batch / 1000 ))" >>"$results"
  done
done
python3 - "$results" "$rounds" "$batch" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, us = line.rsplit(None, 1)
    rows[name].append(int(us) / 1000)
print(f"one-frame runs, median of {sys.argv[2]} rounds of {sys.argv[3]} (ms a run; each round's figures):")
for name, v in rows.items():
    print(f"  {statistics.median(v):6.1f} ms  {name}  ({' '.join(f'{x:.1f}' for x in v)})")
PY
