#!/usr/bin/env bash
# On a GPU machine, after scripts/device_bundle.sh ran on the build machine and .devcarry
# travelled: unpacks the fixtures, runs the GPU tests, the parity gate and the benchmarks.
# Writes logs to $OUT (or ./device-out). Usage: scripts/device_check.sh [tests|parity|bench|all]
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
out=${OUT:-device-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VMAFX_SHARED="$PWD/.devcarry/shared" VMAFX_FIXTURES=/tmp/vmafx-fixtures
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
if [ ! -d "$VMAFX_FIXTURES" ]; then
  python3 .devcarry/shared/fixtures/prepare.py --src .devcarry/shared/fixtures --out "$VMAFX_FIXTURES" >/dev/null
fi
bin=.devcarry/bin
status=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  "$bin/vmafx_tests" --gtest_filter="${GTEST_FILTER:-*Cuda*:ParityGate*:Defects*}" 2>&1 | tee "$out/tests.txt" | tail -40
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$what" = parity ] || [ "$what" = all ]; then
  "$bin/vmafx-parity" --backends cpu,cuda --fixtures "$VMAFX_FIXTURES" --random 2 2>&1 | tee "$out/parity.txt" | tail -60
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  "$bin/vmafx_bench" --benchmark_filter="${BENCH_FILTER:-Pipeline|Copy}" --benchmark_min_time=0.3 2>&1 | tee "$out/bench.txt" | tail -40
fi
exit $status
