#!/usr/bin/env bash
# Builds a minimal FFmpeg 5.1 (Debian's source package) against an installed libvmaf-compatible
# library, for tests/ffmpeg_client.py (issue 12: a real client of the libvmaf C API).
#
#   scripts/build_ffmpeg_client.sh PREFIX WORKDIR [--require-library]
#
# PREFIX: the install prefix of the library (PREFIX/lib/pkgconfig/libvmaf.pc, version 3.x; without
#   one the build is skipped: the library is not installed there; with --require-library that
#   is an error, for a build whose install must hold the library).
# WORKDIR: a scratch folder (e.g. build/ffmpeg-client). The source package is downloaded once
#   into WORKDIR/source (`apt-get source`, Debian's patches applied) and reused while present;
#   FFmpeg is configured and built in WORKDIR/build, again only when the source, the library's
#   installed headers and libvmaf.pc, or this script's configure flags changed (a stamp holds
#   their hash). The program is WORKDIR/build/ffmpeg; it finds PREFIX's libvmaf.so through its
#   rpath, so a rebuilt library with the same headers is used without rebuilding FFmpeg.
#
# Exit status: 0 built (or up to date); 77 skipped (no deb-src entry, offline, or no FFmpeg 5.1
# in the archive: the reason is printed and written to WORKDIR/skipped); anything else a failure.
# The times of the download, configure and make are printed and appended to WORKDIR/times.log.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ] || { [ $# -eq 3 ] && [ "$3" != --require-library ]; }; then
  echo "usage: $0 PREFIX WORKDIR [--require-library]" >&2
  exit 2
fi
require_library=${3:-}
source "$(dirname "$0")/ffmpeg_source.sh"
ffmpeg_setup "$1" "$2"

# Only PREFIX's libvmaf.pc counts (lib/, lib64/ or a multiarch lib/<triplet>/), never the system's.
pc=$(ls "$prefix"/lib/pkgconfig/libvmaf.pc "$prefix"/lib64/pkgconfig/libvmaf.pc \
        "$prefix"/lib/*/pkgconfig/libvmaf.pc 2>/dev/null | head -n 1 || true)
if [ -z "$pc" ] && [ -n "$require_library" ]; then
  echo "error: no libvmaf.pc under $prefix/lib*: the install holds no libvmaf-compatible library" >&2
  exit 1
elif [ -z "$pc" ]; then
  skip "no libvmaf.pc under $prefix/lib*: no libvmaf-compatible library is installed there"
fi
export PKG_CONFIG_LIBDIR="$(dirname "$pc")"
unset PKG_CONFIG_PATH
if ! pkg-config --exists 'libvmaf >= 3.0.0'; then
  echo "error: $pc is not libvmaf >= 3.0.0 (pkg-config says: $(pkg-config --modversion libvmaf 2>&1))" >&2
  exit 1
fi
# Canonical paths (a relocatable libvmaf.pc gives ${pcfiledir}/../..-style ones): the rpath and
# the check that the program loads PREFIX's library use them.
libdir=$(realpath -m "$(pkg-config --variable=libdir libvmaf)")
includedir=$(realpath -m "$(pkg-config --variable=includedir libvmaf)")

# FFmpeg's configure, as issue 12 measured it, plus --disable-autodetect (no system library is
# linked by chance: the build is the same on every machine) and the rpath to PREFIX's library.
# The y4m demuxer decodes through rawvideo; wrapped_avframe carries the frames to the null muxer;
# scale and format are what the filter graph inserts when it converts a pixel format.
configure_flags=(--disable-everything --disable-doc --disable-programs --enable-ffmpeg
  --enable-libvmaf --enable-filter=libvmaf,scale,format,null
  --enable-demuxer=yuv4mpegpipe,rawvideo --enable-decoder=rawvideo,wrapped_avframe
  --enable-encoder=wrapped_avframe,rawvideo --enable-muxer=null --enable-protocol=file,pipe
  --disable-x86asm --disable-autodetect --disable-debug
  "--extra-ldflags=-Wl,-rpath,$libdir")

# 1. The source: Debian's ffmpeg source package (version 5.1.x on Debian 12).
ffmpeg_source "$work/source"

# 2. Configure and build, only when something they depend on changed.
stamp_text=$(
  echo "source: $(basename "$dsc")"
  echo "flags: ${configure_flags[*]}"
  echo "libvmaf: $(pkg-config --modversion libvmaf) $(pkg-config --cflags --libs libvmaf)"
  cat "$pc"
  find "$includedir/libvmaf" -type f -name '*.h' -print0 2>/dev/null | sort -z | xargs -0 -r sha256sum
)
stamp_hash=$(printf '%s\n' "$stamp_text" | sha256sum | cut -d' ' -f1)
build="$work/build"
if [ -x "$build/ffmpeg" ] && [ "$(cat "$build/stamp" 2>/dev/null)" = "$stamp_hash" ]; then
  echo "ffmpeg is up to date: $build/ffmpeg"
  exit 0
fi
ffmpeg_configure "$build" "against $prefix" "${configure_flags[@]}"
ffmpeg_make
echo "configure: ${t_configure} s, make -j$jobs: ${t_make} s ($(basename "$dsc"), libvmaf $(pkg-config --modversion libvmaf) in $prefix)" \
  | tee -a "$work/times.log"
# The program must load PREFIX's library, not one installed elsewhere on the system. (ldd's
# whole output first: `ldd | grep -q` fails under pipefail when grep stops reading early and
# ldd dies of SIGPIPE.)
libs=$(ldd ./ffmpeg)
if ! grep -q "$libdir/libvmaf.so" <<<"$libs"; then
  echo "$libs" >&2
  echo "error: $build/ffmpeg does not load $libdir/libvmaf.so" >&2
  exit 1
fi
echo "$stamp_hash" > stamp
echo "built $build/ffmpeg"
