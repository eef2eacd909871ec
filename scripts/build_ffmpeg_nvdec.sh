#!/usr/bin/env bash
# Builds a minimal FFmpeg 5.1 (Debian's source package) that decodes on NVIDIA GPUs (NVDEC), for
# the GPU machine, which has the NVIDIA driver (libcuda, libnvcuvid) but no FFmpeg libraries
# (issue 28: `vmafx --backend cuda --decode gpu`, and ffmpeg's own `-hwaccel cuda` decode-only
# rate beside it). Carried there by scripts/device_bundle.sh.
#
#   scripts/build_ffmpeg_nvdec.sh PREFIX WORKDIR
#
# PREFIX: where it installs: PREFIX/lib/libavformat.so.59, libavcodec.so.59, libavutil.so.57,
#   libswscale.so.6 (the SONAMEs of Debian 12's FFmpeg, which vmafx opens at run time), and
#   libavfilter and libswresample for PREFIX/bin/ffmpeg: run both with PREFIX/lib first on
#   LD_LIBRARY_PATH (FFmpeg's configure cannot be given a relocatable $ORIGIN rpath).
#   PREFIX/BUILD_INFO records the source package and the configure line.
# WORKDIR: a scratch folder; the source package is downloaded once into WORKDIR/source (shared
#   with build_ffmpeg_client.sh when given the same folder) and built in WORKDIR/build-nvdec,
#   again only when the source or these flags changed (a stamp holds their hash).
#
# What is in it: the demuxers of the usual containers (MP4/MOV, Matroska/WebM, MPEG-TS, IVF, raw
# H.264/HEVC/AV1 streams, y4m), the H.264, HEVC and AV1 parsers, and the H.264 and HEVC decoders
# with their NVDEC hardware acceleration (software decoding where NVDEC cannot, with the x86
# assembly: nasm), the AV1 decoder with NVDEC only (FFmpeg 5.1's own AV1 decoder has no software
# path; Debian's decodes AV1 on the CPU through libdav1d, which this build leaves out). NVDEC is
# reached through the driver's libraries at run time (the ffnvcodec headers, Debian's
# libffmpeg-nvenc-dev, load libcuda.so.1 and libnvcuvid.so.1 with dlopen): no CUDA toolkit is
# needed to build it, and it builds and decodes in software on a machine without a GPU.
#
# Exit status: 0 built (or up to date); 77 skipped (no deb-src entry, offline, no FFmpeg 5.1 in
# the archive, or no ffnvcodec headers: the reason is printed and written to WORKDIR/skipped).
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 PREFIX WORKDIR" >&2
  exit 2
fi
source "$(dirname "$0")/ffmpeg_source.sh"
ffmpeg_setup "$1" "$2"

pkg-config --exists ffnvcodec ||
  skip "no ffnvcodec headers (Debian package libffmpeg-nvenc-dev; scripts/install_deps.sh installs it)"
command -v nasm >/dev/null || skip "nasm is absent (FFmpeg's x86 assembly; scripts/install_deps.sh installs it)"

# --disable-autodetect: nothing of the build machine is linked by chance (no VA-API, no X11, no
# libdrm), so the libraries load on a bare Ubuntu as on Debian.
configure_flags=(--prefix="$prefix" --enable-shared --disable-static --disable-doc --disable-debug
  --disable-autodetect --disable-everything --disable-programs --enable-ffmpeg --disable-avdevice
  --enable-ffnvcodec --enable-nvdec --enable-cuda
  --enable-decoder=h264,hevc,av1,rawvideo,wrapped_avframe
  --enable-hwaccel=h264_nvdec,hevc_nvdec,av1_nvdec
  --enable-parser=h264,hevc,av1
  --enable-bsf=av1_frame_split,av1_frame_merge,h264_mp4toannexb,hevc_mp4toannexb
  --enable-demuxer=mov,matroska,mpegts,ivf,h264,hevc,obu,yuv4mpegpipe,rawvideo
  --enable-muxer=null,rawvideo,yuv4mpegpipe --enable-encoder=wrapped_avframe,rawvideo
  --enable-filter=null,format,scale,hwdownload --enable-protocol=file,pipe)

# 1. The source: Debian's ffmpeg source package (version 5.1.x on Debian 12).
ffmpeg_source "$work/source"

# 2. Configure, build and install, only when the source or the flags changed.
stamp_hash=$(printf 'source: %s\nflags: %s\nffnvcodec: %s\n' "$(basename "$dsc")" "${configure_flags[*]}" \
  "$(pkg-config --modversion ffnvcodec)" | sha256sum | cut -d' ' -f1)
build="$work/build-nvdec"
if [ -x "$prefix/bin/ffmpeg" ] && [ "$(cat "$build/stamp" 2>/dev/null)" = "$stamp_hash" ]; then
  echo "FFmpeg with NVDEC is up to date: $prefix"
  exit 0
fi
ffmpeg_configure "$build" "" "${configure_flags[@]}"
for want in CONFIG_NVDEC CONFIG_CUDA CONFIG_HEVC_NVDEC_HWACCEL CONFIG_H264_NVDEC_HWACCEL CONFIG_AV1_NVDEC_HWACCEL; do
  grep -q "^#define $want 1" config.h config_components.h ||
    { echo "error: configure left $want off (log: $build/configure.log)" >&2; exit 1; }
done
ffmpeg_make
t_build=$t_make
ffmpeg_make install
rm -rf "$prefix/share" "$prefix/include" "$prefix/lib/pkgconfig"  # the run needs only the libraries and ffmpeg
printf 'source package: %s\nconfigure: %s\n' "$(basename "$dsc")" "${configure_flags[*]}" > "$prefix/BUILD_INFO"
echo "$stamp_hash" > stamp
echo "configure: ${t_configure} s, make -j$jobs: ${t_build} s ($(basename "$dsc"))" | tee -a "$work/times.log"
# With PREFIX/lib on LD_LIBRARY_PATH it must run on its own libraries, and decode nothing with
# the system's.
libs=$(LD_LIBRARY_PATH="$prefix/lib" ldd "$prefix/bin/ffmpeg")
if ! grep -q "$prefix/lib/libavcodec.so" <<<"$libs" || grep -q "x86_64-linux-gnu/libav" <<<"$libs"; then
  echo "$libs" >&2
  echo "error: $prefix/bin/ffmpeg does not load $prefix/lib/libavcodec.so" >&2
  exit 1
fi
echo "installed $prefix ($(du -sh "$prefix" | cut -f1))"
