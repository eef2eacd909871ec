# Sourced by the scripts that build FFmpeg from Debian's source package (build_ffmpeg_client.sh,
# build_ffmpeg_nvdec.sh).
#  ffmpeg_setup PREFIX WORKDIR: sets $prefix and $work (absolute; WORKDIR made, its record of a
#    skip removed) and defines skip MESSAGE: prints it, records it in WORKDIR/skipped, exits 77.
#  ffmpeg_source CACHE (after ffmpeg_setup): sets $dsc and $srcdir to Debian's FFmpeg 5.1 source (the .dsc and the
#    unpacked tree, Debian's patches applied by `apt-get source`), downloading it into CACHE once
#    and reusing it while present.
#  ffmpeg_configure BUILD WHAT FLAGS...: configures $srcdir in a new folder BUILD (left as the
#    current folder) with FLAGS; on failure prints the logs' ends and exits 1, naming WHAT.
#    Sets $t_configure (seconds).
#  ffmpeg_make [TARGET...]: make -j(cores) [TARGET...] in the current folder; on failure prints
#    the errors and exits 1. Sets $t_make (seconds) and $jobs.
ffmpeg_setup() {
  prefix=$(realpath -m "$1")
  work=$(realpath -m "$2")
  mkdir -p "$work"
  rm -f "$work/skipped"
}

skip() {
  echo "SKIPPED: $*"
  echo "$*" > "$work/skipped"
  exit 77
}

ffmpeg_source() {
  local src_cache=$1 version
  dsc=$(ls "$src_cache"/ffmpeg_5.1*.dsc 2>/dev/null | head -n 1 || true)
  srcdir=$(ls -d "$src_cache"/ffmpeg-5.1*/ 2>/dev/null | head -n 1 || true)
  if [ -z "$dsc" ] || [ -z "$srcdir" ] || [ ! -x "$srcdir/configure" ]; then
    command -v apt-get >/dev/null || skip "apt-get is absent: Debian's FFmpeg source cannot be fetched"
    command -v dpkg-source >/dev/null || skip "dpkg-source is absent (package dpkg-dev; scripts/install_deps.sh installs it)"
    version=$(apt-cache showsrc ffmpeg 2>/dev/null | sed -n 's/^Version: //p' | grep -E '^([0-9]+:)?5\.1' | head -n 1 || true)
    [ -n "$version" ] || skip "no ffmpeg 5.1 source package known to apt (add a deb-src entry and run apt-get update: scripts/install_deps.sh does)"
    rm -rf "$src_cache"
    mkdir -p "$src_cache"
    SECONDS=0
    # apt-get source runs dpkg-source -x, which applies Debian's patches.
    if ! (cd "$src_cache" && apt-get source -qq "ffmpeg=$version" > download.log 2>&1); then
      tail -n 5 "$src_cache/download.log" >&2
      rm -rf "$src_cache"
      skip "apt-get source ffmpeg=$version failed (offline, or no deb-src entry)"
    fi
    echo "download and unpack of ffmpeg $version: ${SECONDS} s" | tee -a "$work/times.log"
    dsc=$(ls "$src_cache"/ffmpeg_5.1*.dsc | head -n 1)
    srcdir=$(ls -d "$src_cache"/ffmpeg-5.1*/ | head -n 1)
  fi
  srcdir=${srcdir%/}
}

ffmpeg_configure() {
  local build=$1 what=$2
  shift 2
  rm -rf "$build"
  mkdir -p "$build"
  cd "$build"
  SECONDS=0
  if ! "$srcdir/configure" "$@" > configure.log 2>&1; then
    tail -n 20 configure.log >&2
    [ -f ffbuild/config.log ] && tail -n 30 ffbuild/config.log >&2
    echo "error: FFmpeg's configure failed $what (log: $build/configure.log)" >&2
    exit 1
  fi
  t_configure=$SECONDS
}

ffmpeg_make() {
  SECONDS=0
  jobs=$(nproc 2>/dev/null || echo 2)
  if ! make -j"$jobs" "$@" > make.log 2>&1; then
    grep -E 'error|Error' make.log | head -n 20 >&2
    echo "error: building FFmpeg failed (log: $PWD/make.log)" >&2
    exit 1
  fi
  t_make=$SECONDS
}
