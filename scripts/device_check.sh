#!/usr/bin/env bash
# On a GPU machine, after scripts/device_bundle.sh ran on the build machine and .devcarry
# travelled: unpacks the fixtures, runs the GPU tests, the parity gate and the benchmarks.
# Writes logs to $OUT (or ./device-out). Usage: scripts/device_check.sh [tests|vulkan|parity|golden|capi|presets|bench|cli|marginal|startup|ncu|kerneltimes|upstream|metrics|decode|multigpu|all]
# tests: the CUDA tests (GTEST_FILTER; TEST_JOBS=N runs N googletest shards of it at once).
# decode: NVDEC (needs DECODE=1 at bundling): each clip of scripts/make_decode_clips.sh scored with
# --backend cuda --decode gpu must give the CPU's values made at bundling, bit for bit, and name
# the GPU as its decoder (H.264 10-bit: the CPU, with the note); with DECODE=rates, each 600-frame
# pair timed three times with --decode gpu, once with --decode cpu on every core, and ffmpeg's own
# NVDEC decode-only rate of both videos at once (-hwaccel cuda -f null), and --decode-sessions 2
# and 4 (each run's frames compared with --decode cpu's), in one sitting.
# vulkan: the Vulkan backend on this machine's GPU driver (a Vulkan loader must be installed: the
# device tool's README shows how to carry libvulkan1): the devices vmafx sees, the shader checks of
# the shared arithmetic, the Vulkan tests and parity gate (VMAFX_REQUIRE_VULKAN=1: no device fails),
# and the golden command lines with --backend vulkan.
# presets: tests/gpu_presets.py, every built-in model and --aom_ctc/--nflx_ctc preset with --backend cuda
# against the CPU (every metric on the GPU, every value the CPU's bits).
# capi: the C API's CUDA calls (libvmaf_cuda.h): tests/capi/test_capi_cuda.c's error checks, then
# tests/capi/check_capi_cuda.py (host and device pictures against the CLI, bit for bit).
# golden: every golden command line with --backend cuda (upstream's CPU values from the GPU run;
# metrics without a twin run on the CPU in the same run).
# cli: the whole CLI, --backend cuda, on long .yuv files in memory (tmpfs, i.e. page cache)
# built by repeating fixtures: CLI_4K_REPEATS x 3 frames at 3840x2160 and CLI_HD_REPEATS x 6
# frames at 1920x1080 (8-bit), three runs each, wall time by bash's `time` (CLI_ARGS: more options for
# both backends, e.g. a model or a preset; CLI_CPU_FRAMES: the CPU run's frames, 64); with VMAFX_TIMINGS=1
# the CLI's phases too, whose first line (the wall clock on entering main) less the launch time
# printed before each run is the time the program took to load.
# startup: wall time of one-frame runs at 3840x2160, --backend cuda against the CPU (the GPU
# start-up: CUDA context, device and pinned buffers, kernels' first launch).
# metrics: scripts/bench_metrics_vs_upstream.sh on this machine's CPU, against the same carried
# upstream `vmaf` (METRICS, INPUTS as that script's; UPSTREAM_RUNS runs each).
# upstream: scripts/compare_upstream.sh on this machine's CPU, vmafx against an upstream `vmaf`
# carried in .devcarry/upstream/vmaf (built elsewhere, never committed), one thread and all
# threads (UPSTREAM_RUNS runs each, UPSTREAM_REPEAT as compare_upstream.sh's REPEAT for all threads).
# ncu: Nsight Compute's speed-of-light, occupancy and launch sections of the twins' kernels of
# vmaf_v0.6.1 at 3840x2160 8-bit (NCU_KERNELS, a regex; clocks left as they are).
# marginal: issue 28's marginal rate of the CLI (--backend cuda, vmaf_v0.6.1 unless CLI_ARGS,
# .yuv files in /dev/shm, i.e. page cache): frames added over time added between MARGINAL_SHORT
# (600) and the long run's frames (3840x2160: MARGINAL_LONG_4K, 1500; 1920x1080: MARGINAL_LONG_HD,
# 3000), MARGINAL_ROUNDS rounds (7) of a short and a long run in turn, after one unmeasured long
# run that touches the files' pages. Each run's whole wall (the launch to the exit, this
# script's clock) and its "frames scored" moment (VMAFX_TIMINGS, from the program's first timing
# call); per round a rate from each, and their medians (marginal.txt; every run in marginal.tsv).
# MARGINAL_BACKEND (cuda) tries the script elsewhere (cpu, vulkan). MARGINAL_VARIANTS: settings of
# the environment to compare in the same sitting, separated by spaces, e.g. "VMAFX_GPU_GRAPHS=1
# VMAFX_GPU_GRAPHS=0" (a variant of several settings joins them with commas); each round runs
# every variant's short and long runs in turn, and each variant gets its own medians.
# kerneltimes: every kernel's duration (Nsight Compute, one metric, kernels serialized) over the
# CLI's three-frame 3840x2160 8-bit run with --backend cuda and CLI_ARGS (default: the
# vmaf_v1.0.16_3d0h model): per kernel name, launches a frame and the time a frame, and the total.
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
out=${OUT:-device-out}
mkdir -p "$out"
# .devcarry/bin holds libvmaf.so.3 (packed with the programs), for the C API's test.
export LD_LIBRARY_PATH="$PWD/.devcarry/lib:$PWD/.devcarry/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VMAFX_SHARED="$PWD/.devcarry/shared" VMAFX_FIXTURES=/tmp/vmafx-fixtures
export VMAFX_CLI_BIN="$PWD/.devcarry/bin/vmafx"  # the CLI tests run the bundled program (tests/test_cli.cpp)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
if [ ! -d "$VMAFX_FIXTURES" ] && [ -d .devcarry/shared/fixtures ]; then  # device_bundle.sh FIXTURES=0: none
  python3 .devcarry/shared/fixtures/prepare.py --src .devcarry/shared/fixtures --out "$VMAFX_FIXTURES" >/dev/null
fi
bin=.devcarry/bin
[ -d "$bin" ] || tar -C .devcarry -xJf .devcarry/bin.tar.xz  # device_bundle.sh packs the programs
# FFmpeg's libraries with NVDEC (scripts/build_ffmpeg_nvdec.sh), which vmafx opens at run time.
if [ -f .devcarry/ffmpeg.tar.xz ]; then
  [ -d .devcarry/ffmpeg-nvdec ] || tar -C .devcarry -xJf .devcarry/ffmpeg.tar.xz
  export LD_LIBRARY_PATH="$PWD/.devcarry/ffmpeg-nvdec/lib:$LD_LIBRARY_PATH"
fi
status=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  jobs=${TEST_JOBS:-1}
  if [ "$jobs" -le 1 ]; then
    "$bin/vmafx_tests" --gtest_filter="${GTEST_FILTER:-*Cuda*:*_cuda:*/cuda:ParityGate*}" 2>&1 | tee "$out/tests.txt" | tail -40
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  else
    # TEST_JOBS=N: N googletest shards of the filter at once on the one GPU (each test in one
    # shard), each logged to tests.K.txt as it runs; the status is every shard's.
    pids=()
    for ((k = 0; k < jobs; k++)); do
      GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$k "$bin/vmafx_tests" \
        --gtest_filter="${GTEST_FILTER:-*Cuda*:*_cuda:*/cuda:ParityGate*}" >"$out/tests.$k.txt" 2>&1 &
      pids+=("$!")
    done
    for ((k = 0; k < jobs; k++)); do
      wait "${pids[$k]}" || status=1
      echo "shard $k of $jobs:"
      grep -E '^\[  (PASSED|FAILED|SKIPPED) +\]' "$out/tests.$k.txt" | tail -20
    done
  fi
fi
if [ "$what" = vulkan ] || [ "$what" = all ]; then
  export VMAFX_REQUIRE_VULKAN=1
  "$bin/vmafx" --version 2>&1 | tee "$out/vulkan.txt"
  if [ -x "$bin/vmafx_shader_tests" ]; then
    VMAFX_SHADER_DIR="$bin/spv" "$bin/vmafx_shader_tests" 2>&1 | tee -a "$out/vulkan.txt" | tail -8
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  fi
  "$bin/vmafx_tests" --gtest_filter="${VULKAN_FILTER:-*Vulkan*:*_vulkan:*/vulkan}" 2>&1 | tee -a "$out/vulkan.txt" | tail -25
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  "$bin/vmafx-parity" --backends cpu,vulkan --fixtures "$VMAFX_FIXTURES" --random 2 --hard 2>&1 | tee -a "$out/vulkan.txt" | tail -12
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  python3 .devcarry/shared/tools/golden_check.py --bin "$bin/vmafx" --fixtures "$VMAFX_FIXTURES" \
    --golden .devcarry/shared/golden --refusals --extra '--backend vulkan' 2>&1 | tee "$out/golden_vulkan.txt" | tail -8
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  unset VMAFX_REQUIRE_VULKAN
fi
if [ "$what" = parity ] || [ "$what" = all ]; then
  "$bin/vmafx-parity" --backends cpu,cuda --fixtures "$VMAFX_FIXTURES" --random 2 --hard 2>&1 | tee "$out/parity.txt" | tail -60
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$what" = golden ] || [ "$what" = all ]; then
  python3 .devcarry/shared/tools/golden_check.py --bin "$bin/vmafx" --fixtures "$VMAFX_FIXTURES" \
    --golden .devcarry/shared/golden --refusals --extra '--backend cuda' 2>&1 | tee "$out/golden.txt" | tail -30
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$what" = capi ] || [ "$what" = all ]; then
  "$bin/vmafx_capi_cuda_test" errors 2>&1 | tee "$out/capi.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  python3 tests/capi/check_capi_cuda.py "$bin/vmafx_capi_cuda_test" "$bin/vmafx" 2>&1 | tee -a "$out/capi.txt" | tail -30
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$what" = presets ] || [ "$what" = all ]; then
  python3 tests/gpu_presets.py "$bin/vmafx" "${PRESETS_FIXTURE:-autumn_1920x1080_420p8}" "${PRESETS_FRAMES:-3}" 2>&1 \
    | tee "$out/presets.txt" | tail -30
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  "$bin/vmafx_bench" --benchmark_filter="${BENCH_FILTER:-Pipeline|Copy}" --benchmark_min_time=0.3 2>&1 | tee "$out/bench.txt" | tail -40
fi
if [ "$what" = cli ] || [ "$what" = all ]; then
  dir=${CLI_DIR:-/dev/shm/vmafx-cli}
  mkdir -p "$dir"
  df -h "$dir" | tail -1
  TIMEFORMAT='%R s wall'
  for spec in "canopee_3840x2160_420p8 3840 2160 ${CLI_4K_REPEATS:-200}" \
              "autumn_1920x1080_420p8 1920 1080 ${CLI_HD_REPEATS:-500}"; do
    set -- $spec
    name=$1 w=$2 h=$3 repeats=$4
    for which in ref dist; do
      f="$dir/$name.$which.yuv"
      [ -s "$f" ] || for _ in $(seq "$repeats"); do cat "$VMAFX_FIXTURES/$name/$which.yuv"; done >"$f"
    done
    frames=$(( $(stat -c %s "$dir/$name.ref.yuv") / (w * h * 3 / 2) ))
    for run in 1 2 3; do
      echo "cli $name cuda ${CLI_ARGS:-}: $frames frames, run $run, launched at $(( $(date +%s%N) / 1000 )) us since the Unix epoch" \
        | tee -a "$out/cli.txt"
      { time "$bin/vmafx" -r "$dir/$name.ref.yuv" -d "$dir/$name.dist.yuv" -w "$w" -h "$h" -p 420 -b 8 \
          --backend cuda ${CLI_ARGS:-} -q --json -o "$dir/cli_$name.json" ; } 2>&1 | tee -a "$out/cli.txt"
    done
    echo "cli $name cpu, all threads: first ${CLI_CPU_FRAMES:-64} frames ${CLI_ARGS:-}" | tee -a "$out/cli.txt"
    { time "$bin/vmafx" -r "$dir/$name.ref.yuv" -d "$dir/$name.dist.yuv" -w "$w" -h "$h" -p 420 -b 8 \
        --frame_cnt ${CLI_CPU_FRAMES:-64} ${CLI_ARGS:-} -q --json -o "$dir/cpu.json" ; } 2>&1 | tee -a "$out/cli.txt"
  done
fi
if [ "$what" = marginal ]; then
  dir=${CLI_DIR:-/dev/shm/vmafx-cli}
  short=${MARGINAL_SHORT:-600} rounds=${MARGINAL_ROUNDS:-7}
  mkdir -p "$dir"
  printf 'size\tvariant\tround\tframes\twall_s\tscored_ms\n' >"$out/marginal.tsv"
  for spec in "canopee_3840x2160_420p8 3840 2160 ${MARGINAL_LONG_4K:-1500}" \
              "autumn_1920x1080_420p8 1920 1080 ${MARGINAL_LONG_HD:-3000}"; do
    set -- $spec
    name=$1 w=$2 h=$3 long=$4
    fixture_frames=$(( $(stat -c %s "$VMAFX_FIXTURES/$name/ref.yuv") / (w * h * 3 / 2) ))
    for which in ref dist; do  # the fixture repeated to at least the long run's frames
      for _ in $(seq $(( (long + fixture_frames - 1) / fixture_frames ))); do cat "$VMAFX_FIXTURES/$name/$which.yuv"; done \
        >"$dir/$name.$which.yuv"
    done
    for run in warm $(seq "$rounds"); do
      for variant in ${MARGINAL_VARIANTS:--}; do
        for n in $short $long; do
          [ "$run" = warm ] && [ "$n" = "$short" ] && continue
          t0=$(date +%s%N)
          # shellcheck disable=SC2086
          env $([ "$variant" = - ] || echo "$variant" | tr , " ") VMAFX_TIMINGS=1 "$bin/vmafx" \
            -r "$dir/$name.ref.yuv" -d "$dir/$name.dist.yuv" -w "$w" -h "$h" -p 420 -b 8 --frame_cnt "$n" \
            --backend "${MARGINAL_BACKEND:-cuda}" ${CLI_ARGS:-} -q --json -o "$dir/marginal.json" 2>"$dir/timings.txt" || status=1
          t1=$(date +%s%N)
          scored=$(awk '/ ms frames scored$/ {print $3}' "$dir/timings.txt")
          [ "$run" = warm ] || printf '%sx%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$h" "$variant" "$run" "$n" \
            "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", (b - a) / 1e9}')" "${scored:-nan}" >>"$out/marginal.tsv"
          [ "$run" = warm ] || [ "$n" = "$short" ] || grep -h 'host time enqueuing' "$dir/timings.txt" \
            | sed "s/^/$w x $h $variant round $run: /" >>"$out/marginal_enqueue.txt"
        done
      done
    done
    rm -f "$dir/$name.ref.yuv" "$dir/$name.dist.yuv"  # /dev/shm holds half the memory
  done
  python3 - "$out/marginal.tsv" <<'PY' | tee "$out/marginal.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
for size, variant in dict.fromkeys((r["size"], r["variant"]) for r in rows):
    runs = {}
    for r in rows:
        if (r["size"], r["variant"]) == (size, variant):
            runs.setdefault(r["round"], {})[int(r["frames"])] = (float(r["wall_s"]), float(r["scored_ms"]) / 1e3)
    if variant != "-":
        size = f"{size} {variant}"
    wall_rates, scored_rates = [], []
    for rnd, by in runs.items():
        (n0, (w0, s0)), (n1, (w1, s1)) = sorted(by.items())
        wall_rates.append((n1 - n0) / (w1 - w0))
        scored_rates.append((n1 - n0) / (s1 - s0))
        print(f"{size} round {rnd}: {n0} frames {w0:.3f} s wall, {s0:.3f} s scored; {n1} frames {w1:.3f} s wall, "
              f"{s1:.3f} s scored; marginal {wall_rates[-1]:,.0f} fps (walls), {scored_rates[-1]:,.0f} fps (frames scored)")
    print(f"{size}: median marginal rate over {len(runs)} rounds: {statistics.median(wall_rates):,.0f} fps (walls; "
          f"{min(wall_rates):,.0f} to {max(wall_rates):,.0f}), {statistics.median(scored_rates):,.0f} fps (frames scored; "
          f"{min(scored_rates):,.0f} to {max(scored_rates):,.0f})")
PY
fi
if [ "$what" = upstream ]; then
  lscpu | grep -E 'Model name|^CPU\(s\)' | tee "$out/upstream.txt"
  FIXTURES=$VMAFX_FIXTURES scripts/compare_upstream.sh .devcarry/upstream/vmaf "$bin/vmafx" 1 "${UPSTREAM_RUNS:-3}" 2>&1 \
    | tee -a "$out/upstream.txt" | tail -4
  FIXTURES=$VMAFX_FIXTURES REPEAT=${UPSTREAM_REPEAT:-8} scripts/compare_upstream.sh .devcarry/upstream/vmaf "$bin/vmafx" \
    "$(nproc)" "${UPSTREAM_RUNS:-3}" 2>&1 | tee -a "$out/upstream.txt" | tail -4
fi
if [ "$what" = metrics ]; then
  lscpu | grep -E 'Model name|^CPU\(s\)' | tee "$out/metrics.txt"
  FIXTURES=$VMAFX_FIXTURES scripts/bench_metrics_vs_upstream.sh .devcarry/upstream/vmaf "$bin/vmafx" \
    "${UPSTREAM_RUNS:-3}" 2>&1 | tee -a "$out/metrics.txt" | grep -E '^\||^[A-Za-z#]' | tail -60
fi
if [ "$what" = decode ] || [ "$what" = all ]; then
  clips=.devcarry/decode
  # NVDEC's library comes with the driver's video capability (a container may lack it).
  { ldconfig -p | grep -E 'libnvcuvid|libcuda\.so' || echo "no libnvcuvid or libcuda: NVDEC cannot open"; } \
    | tee "$out/decode.txt"
  if [ ! -f "$clips/clips.txt" ]; then
    echo "decode: no clips (bundle with DECODE=1)" | tee -a "$out/decode.txt"
    [ "$what" = decode ] && status=1
  else
    while read -r name ext; do
      "$bin/vmafx" -r "$clips/$name.ref.$ext" -d "$clips/$name.dist.$ext" --feature psnr --precision max --json \
        --backend cuda --decode gpu -o "$out/$name.gpu.json" >"$out/$name.log" 2>&1
      python3 - "$name" "$clips/$name.cpu.json" "$out/$name.gpu.json" "$out/$name.log" <<'PY' | tee -a "$out/decode.txt"
import json, sys
name, cpu, gpu, log = sys.argv[1:]
try:
    c, g = json.load(open(cpu)), json.load(open(gpu))
except Exception as e:
    print(f"FAIL {name}: {e}: {open(log).read()[-600:]}"); sys.exit(1)
dec = g["provenance"].get("decoding", {})
where = {v: d["decoder"] for v, d in dec.items()}
want = "cpu" if name == "h264_420p10" else "cuda"  # NVDEC has no H.264 10-bit
same = c["frames"] == g["frames"] and c["pooled_metrics"] == g["pooled_metrics"]
ok = same and set(where.values()) == {want}
print(f"{'PASS' if ok else 'FAIL'} {name}: {len(g['frames'])} frames, decoded on {where}, "
      f"scores {'equal to' if same else 'DIFFERENT from'} the CPU's; {[d['note'] for d in dec.values() if d['note']]}")
sys.exit(0 if ok else 1)
PY
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    done <"$clips/clips.txt"
  fi
  if [ -f "$clips/rates.txt" ]; then
    TIMEFORMAT='%R s wall'
    ff=.devcarry/ffmpeg-nvdec/bin/ffmpeg
    dir=${CLI_DIR:-/dev/shm/vmafx-cli}
    mkdir -p "$dir"
    while read -r name ext w h; do
      # 600 frames: the 60-frame stream ten times over, in memory (tmpfs, i.e. page cache).
      r=$dir/$name.ref.$ext d=$dir/$name.dist.$ext
      for which in ref dist; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do cat "$clips/$name.$which.$ext"; done >"$dir/$name.$which.$ext"
      done
      for run in 1 2 3; do
        echo "rate $name: --backend cuda --decode gpu, run $run" | tee -a "$out/rates.txt"
        { time "$bin/vmafx" -r "$r" -d "$d" --backend cuda --decode gpu -q --json -o "$out/rate.json" ; } 2>&1 | tee -a "$out/rates.txt"
        echo "rate $name: ffmpeg -hwaccel cuda decode only, both videos at once, run $run" | tee -a "$out/rates.txt"
        { time { "$ff" -nostdin -v error -hwaccel cuda -hwaccel_output_format cuda -i "$r" -f null - &
                 "$ff" -nostdin -v error -hwaccel cuda -hwaccel_output_format cuda -i "$d" -f null - ; wait; } ; } 2>&1 | tee -a "$out/rates.txt"
      done
      echo "rate $name: --backend cuda --decode cpu (all cores)" | tee -a "$out/rates.txt"
      { time "$bin/vmafx" -r "$r" -d "$d" --backend cuda --decode cpu -q --json -o "$out/rate_cpu.json" ; } 2>&1 | tee -a "$out/rates.txt"
      # Several NVDEC sessions per video (--decode-sessions: segments cut at the IDR pictures
      # starting each of the ten copies), twice each; every run's frames must be the CPU decode's.
      for sessions in 2 4 2 4; do
        echo "rate $name: --backend cuda --decode gpu --decode-sessions $sessions" | tee -a "$out/rates.txt"
        { time "$bin/vmafx" -r "$r" -d "$d" --backend cuda --decode gpu --decode-sessions "$sessions" -q --json \
            -o "$out/rate_s$sessions.json" ; } 2>&1 | tee -a "$out/rates.txt"
      done
      python3 - "$name" "$out/rate_cpu.json" "$out/rate.json" "$out/rate_s2.json" "$out/rate_s4.json" <<'PY' | tee -a "$out/decode.txt"
import json, sys
name, cpu, *gpu = sys.argv[1:]
c = json.load(open(cpu))
bad = 0
for g in gpu:
    try:
        j = json.load(open(g))
    except Exception as e:
        print(f"FAIL {name} {g}: {e}"); bad = 1; continue
    same = j["frames"] == c["frames"] and j["pooled_metrics"] == c["pooled_metrics"]
    dec = j["provenance"].get("decoding", {})
    bad |= not same
    print(f"{'PASS' if same else 'FAIL'} {name} {g.rsplit('/', 1)[-1]}: {len(j['frames'])} frames "
          f"{'equal to' if same else 'DIFFERENT from'} --decode cpu's; decoding {dec}")
sys.exit(bad)
PY
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      VMAFX_TIMINGS=1 "$bin/vmafx" -r "$r" -d "$d" --backend cuda --decode gpu -q --json -o "$out/rate.json" 2>&1 \
        | grep -E "stage busy|frames scored" | tee -a "$out/rates.txt"
      # How NVDEC scales with streams at once: ffmpeg's decode-only time of 1, 2 and 4 copies of
      # the reference decoded at once (what several sessions can gain at most).
      for copies in 1 2 4; do
        echo "rate $name: ffmpeg -hwaccel cuda decode only, $copies copies of the reference at once" | tee -a "$out/rates.txt"
        { time { for _ in $(seq "$copies"); do
                   "$ff" -nostdin -v error -hwaccel cuda -hwaccel_output_format cuda -i "$r" -f null - &
                 done; wait; } ; } 2>&1 | tee -a "$out/rates.txt"
      done
      # The same inputs in one ffmpeg process (one CUDA device context and stream for all, as in
      # vmafx), and vmafx's two sessions with 2 to 32 decoding threads.
      hw=(-hwaccel cuda -hwaccel_output_format cuda)
      for inputs in 1 2 4; do
        args=() maps=()
        for k in $(seq 0 $((inputs - 1))); do args+=("${hw[@]}" -i "$r"); maps+=(-map "$k:v" -f null -); done
        echo "rate $name: ffmpeg -hwaccel cuda decode only, $inputs inputs in one process" | tee -a "$out/rates.txt"
        { time "$ff" -nostdin -v error "${args[@]}" "${maps[@]}" ; } 2>&1 | tee -a "$out/rates.txt"
      done
      for threads in 2 4 16 32; do
        echo "rate $name: --decode-sessions 2 --threads $threads" | tee -a "$out/rates.txt"
        { time "$bin/vmafx" -r "$r" -d "$d" --backend cuda --decode gpu --decode-sessions 2 --threads "$threads" -q \
            --json -o "$out/rate_t.json" ; } 2>&1 | tee -a "$out/rates.txt"
      done
      # Where the sessions' time goes: each session's decoder, copies out of NVDEC's surfaces and
      # waits, and the run's waits for frames (VMAFX_TIMINGS).
      for sessions in 2 4; do
        echo "timings $name: --decode-sessions $sessions" | tee -a "$out/rates.txt"
        VMAFX_TIMINGS=1 "$bin/vmafx" -r "$r" -d "$d" --backend cuda --decode gpu --decode-sessions "$sessions" -q \
          --json -o "$out/rate.json" 2>&1 | grep -E "stage busy|frames scored|decoding session" | tee -a "$out/rates.txt"
      done
    done <"$clips/rates.txt"
  fi
fi
# multigpu: --gpu with several GPUs (issue 29) on a generated 240-frame 3840x2160 8-bit pair in
# /dev/shm: the one-GPU run, then --gpu 0,0 (two processes sharing the one GPU: the parts and
# their joining, not a speed-up) and, where there are two GPUs or more, --gpu all; each run's
# frames must be the one-GPU run's.
if [ "$what" = multigpu ] || [ "$what" = all ]; then
  TIMEFORMAT='%R s wall'
  dir=${CLI_DIR:-/dev/shm/vmafx-cli}
  mkdir -p "$dir"
  python3 - "$dir" <<'PY'
import sys
import numpy as np
w, h, n = 3840, 2160, 240
x = np.arange(w, dtype=np.int32)[None, :]
y = np.arange(h, dtype=np.int32)[:, None]
rng = np.random.default_rng(7)
chroma = np.full(w * h // 2, 128, np.uint8).tobytes()
with open(f"{sys.argv[1]}/mg_ref.yuv", "wb") as r, open(f"{sys.argv[1]}/mg_dist.yuv", "wb") as d:
    for i in range(n):
        luma = ((x * 3 + y * 2 + 5 * i) % 251 + ((x // 64 + y // 64 + i // 8) % 2) * 4).astype(np.uint8)
        r.write(luma.tobytes()); r.write(chroma)
        noisy = np.clip(luma.astype(np.int16) + rng.integers(-6, 7, luma.shape, dtype=np.int16), 0, 255).astype(np.uint8)
        d.write(noisy.tobytes()); d.write(chroma)
PY
  pair=(-r "$dir/mg_ref.yuv" -d "$dir/mg_dist.yuv" -w 3840 -h 2160 -p 420 -b 8 --backend cuda --precision max --json)
  gpus=$(nvidia-smi -L | wc -l)
  for run in 1 2; do
    echo "multigpu run $run: one GPU" | tee -a "$out/multigpu.txt"
    { time "$bin/vmafx" "${pair[@]}" -q -o "$out/mg_one.json" ; } 2>&1 | tee -a "$out/multigpu.txt"
    echo "multigpu run $run: --gpu 0,0" | tee -a "$out/multigpu.txt"
    { time "$bin/vmafx" "${pair[@]}" --gpu 0,0 -o "$out/mg_00.json" >/dev/null ; } 2>&1 | tee -a "$out/multigpu.txt"
    if [ "$gpus" -ge 2 ]; then
      echo "multigpu run $run: --gpu all ($gpus GPUs)" | tee -a "$out/multigpu.txt"
      { time "$bin/vmafx" "${pair[@]}" --gpu all -o "$out/mg_all.json" >/dev/null ; } 2>&1 | tee -a "$out/multigpu.txt"
    fi
  done
  python3 - "$out/mg_one.json" "$out"/mg_00.json $([ "$gpus" -ge 2 ] && echo "$out/mg_all.json") <<'PY' | tee -a "$out/multigpu.txt"
import json, sys
one = json.load(open(sys.argv[1]))
bad = 0
for f in sys.argv[2:]:
    j = json.load(open(f))
    same = j["frames"] == one["frames"] and j["pooled_metrics"] == one["pooled_metrics"]
    bad |= not same
    print(f"{'PASS' if same else 'FAIL'} {f.rsplit('/', 1)[-1]}: {len(j['frames'])} frames "
          f"{'equal to' if same else 'DIFFERENT from'} the one-GPU run's")
sys.exit(bad)
PY
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  rm -f "$dir/mg_ref.yuv" "$dir/mg_dist.yuv"
fi
if [ "$what" = startup ] || [ "$what" = ncu ] || [ "$what" = kerneltimes ]; then
  f=$VMAFX_FIXTURES/canopee_3840x2160_420p8
  TIMEFORMAT='%R s wall'
fi
if [ "$what" = startup ]; then
  for run in 1 2 3; do
    for backend in cpu cuda; do
      echo "startup run $run, --backend $backend, 1 frame 3840x2160" | tee -a "$out/startup.txt"
      { time "$bin/vmafx" -r "$f/ref.yuv" -d "$f/dist.yuv" -w 3840 -h 2160 -p 420 -b 8 --frame_cnt 1 \
          --backend "$backend" -q --json -o "$out/startup.json" ; } 2>&1 | tee -a "$out/startup.txt"
    done
  done
  VMAFX_TIMINGS=1 "$bin/vmafx" -r "$f/ref.yuv" -d "$f/dist.yuv" -w 3840 -h 2160 -p 420 -b 8 --frame_cnt 1 \
    --backend cuda -q --json -o "$out/startup.json" 2>&1 | tee -a "$out/startup.txt"
fi
if [ "$what" = ncu ]; then
  ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      -k "regex:${NCU_KERNELS:-scale_kernel|level|cm|final|motion}" --launch-skip "${NCU_SKIP:-40}" \
      --launch-count "${NCU_COUNT:-16}" \
      "$bin/vmafx" -r "$f/ref.yuv" -d "$f/dist.yuv" -w 3840 -h 2160 -p 420 -b 8 --backend cuda -q \
      --json -o "$out/ncu.json" >"$out/ncu.txt" 2>&1
  grep -E '^  [a-z_]+.*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Shared Memory Config|Block Limit|Grid Size|Waves' "$out/ncu.txt" | head -150
fi
if [ "$what" = kerneltimes ]; then
  # shellcheck disable=SC2086
  ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw \
      "$bin/vmafx" -r "$f/ref.yuv" -d "$f/dist.yuv" -w 3840 -h 2160 -p 420 -b 8 --backend cuda \
      ${CLI_ARGS:--m version=vmaf_v1.0.16_3d0h} -q --json -o "$out/kerneltimes.json" >"$out/kerneltimes.csv" 2>&1
  [ "$?" -eq 0 ] || status=1
  python3 - "$out/kerneltimes.csv" "$out/kerneltimes.json" <<'PY' | tee "$out/kerneltimes.txt"
import csv, json, re, sys
frames = len(json.load(open(sys.argv[2]))["frames"])
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head = rows[0]
name, dur = head.index("Kernel Name"), head.index("gpu__time_duration.sum")
unit = rows[1][dur]  # the units row
scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}[unit]
per = {}
for r in rows[2:]:
    k = re.sub(r"^void ", "", r[name].replace("(anonymous namespace)::", "").replace("<unnamed>::", "").replace("unnamed>::", ""))
    while "<" in k.split("(")[0]:
        k = re.sub(r"<[^<>]*>", "", k)
    k = k.split("(")[0].replace("vmafx::", "")
    n, t = per.get(k, (0, 0.0))
    per[k] = (n + 1, t + float(r[dur].replace(",", "")) * scale)
total = sum(t for _, t in per.values())
print(f"{frames} frames; kernels serialized by the profiler; microseconds a frame")
print(f"{'kernel':60s} {'launches/frame':>14s} {'us/frame':>10s} {'share':>6s}")
for k, (n, t) in sorted(per.items(), key=lambda kv: -kv[1][1]):
    print(f"{k[:60]:60s} {n / frames:14.1f} {t / frames:10.1f} {100 * t / total:5.1f}%")
print(f"{'total':60s} {sum(n for n, _ in per.values()) / frames:14.1f} {total / frames:10.1f}")
PY
fi
exit $status
