#!/usr/bin/env bash
# Installs vmafx's build and test dependencies from Debian's packages (uses sudo when not root).
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config python3 xz-utils
          libsvm-dev nlohmann-json3-dev libcli11-dev libfmt-dev libtbb-dev libhwy-dev
          libssl-dev  # SHA-256 of the models in result files (OpenSSL libcrypto)
          libgtest-dev libgmock-dev libbenchmark-dev
          # Compressed input (src/io/av_reader.cpp): FFmpeg's libraries; the ffmpeg command makes
          # the encodes of tests/compressed_input.py and scripts/bench_decode.sh.
          libavformat-dev libavcodec-dev libavutil-dev libswscale-dev ffmpeg
          # scripts/fuzz.sh: clang-14 with libFuzzer and the ASan/UBSan runtimes (libclang-rt-14-dev,
          # only recommended by clang, so named here), llvm-symbolizer for readable stacks (llvm-14).
          # GCC's own sanitizer runtimes (VMAFX_SANITIZE) come with g++ (libasan8, libubsan1).
          clang libclang-rt-14-dev llvm-14
          # tests/ffmpeg_client.py: FFmpeg 5.1 from Debian's source package (apt-get source needs
          # dpkg-dev and a deb-src entry, added below), built with gcc and make.
          dpkg-dev gcc make
          # scripts/build_ffmpeg_nvdec.sh (tests/ffmpeg_nvdec.sh; the GPU machine's FFmpeg, carried by
          # scripts/device_bundle.sh): the ffnvcodec headers through which FFmpeg reaches NVDEC
          # (libffmpeg-nvenc-dev) and nasm for its x86 assembly.
          libffmpeg-nvenc-dev nasm
          # The Vulkan backend (src/vulkan/, --backend vulkan) and the shared-arithmetic subset's
          # checks (tests/shader/, docs/design.md): glslc compiles the twins' shaders and each
          # *_math.hpp as GLSL (glslang-tools: glslangValidator, the same front end), spirv-tools
          # disassembles, reassembles and validates the SPIR-V to mark every float operation
          # NoContraction (tools/spirv_strict.py); the Vulkan headers (libvulkan-dev) and
          # volk (libvulkan-volk-dev), which opens the loader at run time; mesa-vulkan-drivers
          # provides lavapipe, the Vulkan device on the CPU that the Vulkan twins' tests run on in
          # CI (vulkan-tools: vulkaninfo, to see a device's features).
          glslc glslang-tools spirv-tools libvulkan-dev libvulkan-volk-dev mesa-vulkan-drivers vulkan-tools
          # The Python package (python/vmafx, src/python/module.cpp; docs/python.md): pybind11 builds
          # the native module against Debian's Python 3 headers (python3-dev); numpy and pandas
          # hold the results, matplotlib plots them, tqdm draws the progress bar, pytest runs
          # tests/python.
          python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pandas python3-matplotlib python3-tqdm
          python3-pytest
          # The HTML report (python/vmafx/report.py, vmafx --html): plotly draws the interactive
          # charts (its plotly.js goes inside the page), Pillow encodes the PNG thumbnails;
          # tests/python/test_report.py loads the page in Debian's headless Chromium.
          python3-plotly python3-pil chromium
          # Batch and segment-parallel scoring (python/vmafx/batch.py, vmafx-batch): Dask's
          # distributed scheduler and workers (tests/python/test_batch.py starts a real cluster).
          python3-distributed
          # `pip install --no-build-isolation .` (setup.py, pyproject.toml) and its test.
          python3-pip python3-setuptools python3-wheel)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
updated=0
# Debian's own source archive for `apt-get source ffmpeg`: when no deb-src entry exists, a second
# file repeats the system's binary entries as deb-src (deb822 debian.sources, else sources.list).
if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  added=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed -E 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      | $sudo tee /etc/apt/sources.list.d/vmafx-deb-src.sources >/dev/null
    added=/etc/apt/sources.list.d/vmafx-deb-src.sources
  elif grep -qsE '^deb ' /etc/apt/sources.list; then
    grep -E '^deb ' /etc/apt/sources.list | sed -E 's/^deb /deb-src /' \
      | $sudo tee /etc/apt/sources.list.d/vmafx-deb-src.list >/dev/null
    added=/etc/apt/sources.list.d/vmafx-deb-src.list
  fi
  if [ -n "$added" ]; then
    echo "added Debian's source archive (deb-src, $added) for apt-get source ffmpeg"
    # Offline, the FFmpeg client test says it was skipped; the other dependencies may be there.
    if $sudo apt-get update -qq; then updated=1; else echo "warning: apt-get update failed"; fi
  fi
fi
missing=()
for p in "${packages[@]}"; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *"install ok installed"* ]] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "installing: ${missing[*]}"
[ "$updated" -eq 1 ] || $sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
