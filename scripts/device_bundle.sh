#!/usr/bin/env bash
# Builds the CUDA backend here (nvcc, sm_90) and gathers what a GPU machine without vmafx's
# Debian libraries needs into .devcarry/ (ignored by git): the programs, the shared libraries
# they load, and the reference material (compressed fixtures, golden values). On the GPU
# machine, scripts/device_check.sh runs the GPU tests, the parity gate and the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
# Without FFmpeg's libraries (VMAFX_LIBAV=OFF): the GPU machine lacks them and the carry's 64 MiB
# could not hold them with their codec libraries; the bundle reads .y4m and raw YUV.
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DVMAFX_CUDA=ON -DVMAFX_LIBAV=OFF >/dev/null
cmake --build build-device --target vmafx vmafx_tests vmafx-parity vmafx_bench vmafx_libvmaf vmafx_capi_cuda_test
# The shared-arithmetic subset's shader checks, where the Vulkan backend is built (they run on the
# GPU's Vulkan driver there: device_check.sh vulkan).
shader_tests=0
if ninja -C build-device -t targets all 2>/dev/null | grep -q '^vmafx_shader_tests:'; then
  cmake --build build-device --target vmafx_shader_tests
  shader_tests=1
fi
rm -rf .devcarry
mkdir -p .devcarry/bin .devcarry/lib .devcarry/shared
# The benchmarks only with BENCH=1: with them and every fixture the carry passes the device
# tool's 64 MiB (working tree included).
cp build-device/vmafx build-device/vmafx_tests build-device/vmafx-parity .devcarry/bin/
# The C API's CUDA test and the library it links (device_check.sh capi); packed with the programs.
cp build-device/vmafx_capi_cuda_test .devcarry/bin/
if [ "$shader_tests" = 1 ]; then
  cp build-device/tests/shader/vmafx_shader_tests .devcarry/bin/
  mkdir -p .devcarry/bin/spv && cp build-device/tests/shader/*.spv .devcarry/bin/spv/
  rm -f .devcarry/bin/spv/*.raw.spv
fi
cp -L build-device/libvmaf.so.3 .devcarry/bin/
[ "${BENCH:-0}" = 1 ] && cp build-device/vmafx_bench .devcarry/bin/
strip .devcarry/bin/vmafx* .devcarry/bin/libvmaf.so.3  # the working tree and what it carries travel within 64 MiB
# Packed too (device_check.sh unpacks them): stripped programs take about 60 MB, xz -9 about 5 MB
# (the default level about 12: the carry's 64 MiB holds the working tree too).
tar -C .devcarry -cf - bin | xz -9 -T0 >.devcarry/bin.tar.xz && rm -rf .devcarry/bin
libs=(libtbb.so.12 libtbbmalloc.so.2 libsvm.so.3 libfmt.so.9 libhwy.so.1)
[ "${BENCH:-0}" = 1 ] && libs+=(libbenchmark.so.1debian)
for lib in "${libs[@]}"; do
  cp -L "/usr/lib/x86_64-linux-gnu/$lib" .devcarry/lib/
done
if [ -d ../shared/fixtures ]; then
  cp -r ../shared/fixtures ../shared/golden ../shared/tools .devcarry/shared/
fi
du -sh .devcarry
