#!/usr/bin/env bash
# Builds everything and runs all tests, in three parts:
#  1. the Release build (build/): unit tests, golden check against upstream libvmaf's values,
#     option corners, CLI checks (ctest);
#  2. the same code built with AddressSanitizer (LeakSanitizer included) and
#     UndefinedBehaviorSanitizer (build-asan/, GCC, no CUDA): the same tests (but three Vulkan
#     sweeps and two host checks of CUDA kernels, below); the golden command lines on the first
#     three frames of the fixtures up to 1280x720, each option corner on one fixture, each case of a
#     Vulkan twin's option corners at one format (part 1 has compared them all: docs/reliability.md,
#     "CI's parts");
#  3. every libFuzzer harness (build-fuzz/, clang): its saved regression inputs, then 30 s of
#     fuzzing each on a copy of its seed corpus (scripts/fuzz.sh; VMAFX_FUZZ_SECONDS changes it).
# The fixtures of ../shared are unpacked into .fixtures when ../shared is present, and then
# VMAFX_TESTS_STRICT=1: a test that misses a fixture or golden file fails, naming it, instead of
# skipping (tests/test_support.hpp, tests/skip_missing.py); without ../shared the tests that need
# them say they were skipped. VMAFX_TEST_PARTS="1 2 3" picks the parts.
set -euo pipefail
cd "$(dirname "$0")/.."
parts=${VMAFX_TEST_PARTS:-1 2 3}
scripts/install_deps.sh
if [ -f ../shared/fixtures/prepare.py ]; then
  python3 ../shared/fixtures/prepare.py --out .fixtures --y4m >/dev/null
  export VMAFX_TESTS_STRICT=1
else
  echo "../shared is absent: tests that need fixtures and golden values will be skipped"
fi
# lavapipe (mesa-vulkan-drivers, installed above) is a Vulkan device on every machine: the
# shader tests of the shared-arithmetic subset (tests/shader/) must then run, not skip.
if ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1; then export VMAFX_REQUIRE_VULKAN=1; fi
jobs=$(nproc)
SECONDS=0

if [[ " $parts " == *" 1 "* ]]; then
  echo "== 1. Release build and tests"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build
  (cd build && ctest --output-on-failure -j "$jobs")
  echo "== part 1 done at ${SECONDS} s"
fi

if [[ " $parts " == *" 2 "* ]]; then
  echo "== 2. AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVMAFX_CUDA=OFF -DVMAFX_BUILD_BENCH=OFF \
    -DVMAFX_SANITIZE=address,undefined >/dev/null
  cmake --build build-asan
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp  # lavapipe's own allocations (the file says why)
  # Three Vulkan sweeps that part 1 runs are left out here: under the sanitizers they spend their
  # time in lavapipe (uninstrumented) and took 7 to 16 minutes each on a 2-core AMD EPYC
  # (docs/reliability.md, "CI's parts"); the same twins' host code runs here in their other tests.
  # So are two value checks of float_ssim's CUDA kernels run on the host, on the fixtures and with
  # planted defects (132 and 113 s here, 10 and 6 in part 1): the same kernel functions run here
  # at every odd size, depth and option in FloatSsimCuda.KernelDecompositionOnTheHostIsTheCpu.
  asan_skip='^(Registry/Twin\.SizesBitDepthsAndSubsamplings/adm_vulkan|ParityGate/Backend\.(RandomOddSizesEveryBitDepth|Fixtures)/vulkan'
  asan_skip+='|FloatSsimCuda\.KernelDecompositionOnTheFixtures|FloatSsimCudaPlanted\..*)( |$)'
  (cd build-asan && ctest --output-on-failure -j "$jobs" -E "$asan_skip")
  unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
  echo "== part 2 done at ${SECONDS} s"
fi

if [[ " $parts " == *" 3 "* ]]; then
  echo "== 3. Fuzzing harnesses: regression inputs, then ${VMAFX_FUZZ_SECONDS:-30} s each"
  scripts/fuzz.sh "${VMAFX_FUZZ_SECONDS:-30}" --jobs "$jobs"
  echo "== part 3 done at ${SECONDS} s"
fi
echo "== all tests passed (parts: $parts) in ${SECONDS} s"
