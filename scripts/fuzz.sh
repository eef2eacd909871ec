#!/usr/bin/env bash
# Builds vmafx's libFuzzer harnesses (fuzz/, in build-fuzz/ with clang, ASan and UBSan) and runs
# each one: first once over its saved regression inputs (fuzz/regressions/<harness>/), then
# fuzzing for SECONDS_PER_HARNESS (default 30) on a copy of its committed seed corpus
# (fuzz/corpus/<harness>/) in a temporary directory; the repository's corpus is written only
# with --update-corpus (then the new inputs are merged into it, minimized). Prints, per harness,
# executions, exec/s, final coverage, corpus size and any finding (crash, leak, timeout,
# out-of-memory input saved by libFuzzer); exits 1 when there is a finding.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_HARNESS] [--only HARNESS]... [--jobs N] [--update-corpus]
#                        [--work DIR] [--no-build]
#   --only     run only this harness (repeatable): fuzz_y4m, fuzz_raw, fuzz_model, fuzz_options
#   --jobs     harnesses fuzzed at once (default 1)
#   --work     where corpora copies, logs and crash files go (default: a new temporary directory,
#              removed when nothing was found, else kept and printed at the end)
# Needs the Debian packages clang, libclang-rt-14-dev and llvm-14 (scripts/install_deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
only=()
jobs=1
update=0
work=""
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only+=("$2"); shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --update-corpus) update=1; shift ;;
    --work) work="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    [0-9]*) seconds="$1"; shift ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

harnesses=(fuzz_y4m fuzz_raw fuzz_model fuzz_options)
[ ${#only[@]} -gt 0 ] && harnesses=("${only[@]}")

# Largest input per harness: tiny y4m/raw frames suffice to reach every branch of the readers;
# a model file needs room for vmaf_v0.6.1.json (19 KB).
declare -A max_len=([fuzz_y4m]=16384 [fuzz_raw]=16384 [fuzz_model]=32768 [fuzz_options]=1024)
declare -A dict=([fuzz_y4m]=fuzz/y4m.dict [fuzz_raw]=fuzz/y4m.dict [fuzz_model]=fuzz/json.dict
                 [fuzz_options]=fuzz/options.dict)

if [ "$build" = 1 ]; then
  command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (scripts/install_deps.sh installs it)" >&2; exit 2; }
  start=$(date +%s)
  if [ ! -f build-fuzz/build.ninja ]; then
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVMAFX_FUZZ=ON \
      -DVMAFX_CUDA=OFF -DVMAFX_BUILD_TESTS=OFF -DVMAFX_BUILD_BENCH=OFF >/dev/null
  fi
  nice ninja -C build-fuzz "${harnesses[@]}"
  echo "fuzz.sh: harnesses built in $(( $(date +%s) - start )) s"
fi

own_work=0
if [ -z "$work" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/vmafx-fuzz.XXXXXX")
  own_work=1
fi
mkdir -p "$work"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
common=(-rss_limit_mb=2048 -timeout=10)

status=0
# 1. Regression inputs, each run once (also what a finding fixed before must keep passing).
for h in "${harnesses[@]}"; do
  inputs=(fuzz/regressions/"$h"/*)
  [ -e "${inputs[0]}" ] || continue
  if nice "build-fuzz/fuzz/$h" "${common[@]}" -artifact_prefix="$work/$h-regression-" "${inputs[@]}" \
      >"$work/$h-regressions.log" 2>&1; then
    echo "$h: ${#inputs[@]} regression inputs pass"
  else
    echo "$h: REGRESSION: an input of fuzz/regressions/$h fails; see $work/$h-regressions.log"
    status=1
  fi
done

# 2. Fuzzing, on a copy of the committed corpus.
fuzz_one() {
  local h=$1 dir="$work/$h" rc=0
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp fuzz/corpus/"$h"/* "$dir/corpus/" 2>/dev/null || true
  nice "build-fuzz/fuzz/$h" "${common[@]}" -max_total_time="$seconds" -max_len="${max_len[$h]}" \
    -dict="${dict[$h]}" -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "$dir/corpus" \
    >"$dir/fuzz.log" 2>&1 || rc=$?
  echo "$rc" >"$dir/rc"
}
running=0
for h in "${harnesses[@]}"; do
  fuzz_one "$h" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true

printf '%-13s %12s %8s %7s %7s %7s  %s\n' harness executions exec/s cov ft corpus findings
for h in "${harnesses[@]}"; do
  dir="$work/$h"
  log="$dir/fuzz.log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)  # none when it failed at once
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(find "$dir/corpus" -type f | wc -l)
  findings=$(find "$dir/artifacts" -type f | wc -l)
  rc=$(cat "$dir/rc")
  note=""
  if [ "$findings" -gt 0 ] || [ "$rc" != 0 ]; then
    status=1
    note="rc $rc, see $log: $(find "$dir/artifacts" -type f | tr '\n' ' ')"
  fi
  printf '%-13s %12s %8s %7s %7s %7s  %s\n' "$h" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "$corpus" \
    "$findings${note:+ ($note)}"
  if [ "$update" = 1 ] && [ "$rc" = 0 ]; then
    "build-fuzz/fuzz/$h" -merge=1 -max_len="${max_len[$h]}" fuzz/corpus/"$h" "$dir/corpus" >"$dir/merge.log" 2>&1
    echo "$h: merged new inputs into fuzz/corpus/$h ($(find fuzz/corpus/"$h" -type f | wc -l) files)"
  fi
done
if [ "$status" = 0 ] && [ "$own_work" = 1 ]; then
  rm -rf "$work"  # nothing found: the temporary folder goes (--work DIR keeps it)
else
  echo "fuzz.sh: logs, corpora and crash files in $work"
fi
exit $status
