#!/usr/bin/env bash
# Builds the CUDA backend here (nvcc, sm_90) and gathers what a GPU machine without vmafx's
# Debian libraries needs into .devcarry/ (ignored by git): the programs, the shared libraries
# they load, and the reference material (compressed fixtures, golden values). On the GPU
# machine, scripts/device_check.sh runs the GPU tests, the parity gate and the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
# With FFmpeg's libraries (opened at run time, never linked): the GPU machine has none, so the
# bundle carries the minimal FFmpeg 5.1 of scripts/build_ffmpeg_nvdec.sh (NVDEC, H.264/HEVC/AV1,
# about 2 MB packed), which device_check.sh puts on LD_LIBRARY_PATH.
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DVMAFX_CUDA=ON -DVMAFX_LIBAV=ON >/dev/null
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
# FIXTURES=0 leaves the fixtures (39 MB) out, for a call that needs none (device_check.sh decode):
# the carry's 64 MiB cannot hold them with the benchmarks and the decoding rate clips.
if [ -d ../shared/fixtures ]; then
  cp -r ../shared/golden ../shared/tools .devcarry/shared/
  [ "${FIXTURES:-1}" = 0 ] || cp -r ../shared/fixtures .devcarry/shared/
fi
# FFmpeg with NVDEC for --decode gpu and ffmpeg's own -hwaccel cuda rate (device_check.sh decode).
# Where it cannot be built (exit 77: no deb-src entry, offline, no ffnvcodec headers) the bundle
# goes without it: compressed input then fails on the GPU machine, naming the missing libraries.
# FFMPEG=0 leaves it out, for a call that decodes nothing: with BENCH=1 and the fixtures the
# carry's 64 MiB cannot hold it too.
ffmpeg_rc=0
if [ "${FFMPEG:-1}" = 0 ]; then
  ffmpeg_rc=77
else
  scripts/build_ffmpeg_nvdec.sh build-device/ffmpeg-nvdec build-device/ffmpeg-work || ffmpeg_rc=$?
fi
if [ "$ffmpeg_rc" -eq 0 ]; then
  tar -C build-device -cf - ffmpeg-nvdec | xz -9 -T0 >.devcarry/ffmpeg.tar.xz
elif [ "$ffmpeg_rc" -ne 77 ]; then
  exit "$ffmpeg_rc"
fi
# DECODE=1: the decoding checks' clips and the CPU's values for them (device_check.sh decode);
# DECODE=rates adds the 600-frame rate pairs. Encoded here (the GPU machine has no encoder) by a
# build with Debian's FFmpeg, whose CPU decoders (libdav1d for AV1) give the reference values.
if [ "${DECODE:-0}" != 0 ]; then
  [ -f .fixtures/canopee_3840x2160_420p8/ref.y4m ] || python3 ../shared/fixtures/prepare.py --out .fixtures --y4m >/dev/null
  cmake -S . -B build-decode-ref -G Ninja -DCMAKE_BUILD_TYPE=Release -DVMAFX_CUDA=OFF -DVMAFX_LIBAV=ON >/dev/null
  cmake --build build-decode-ref --target vmafx
  scripts/make_decode_clips.sh build-decode-ref/vmafx .fixtures .devcarry/decode $([ "$DECODE" = rates ] && echo --rates)
fi
du -sh .devcarry
