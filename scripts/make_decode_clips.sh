#!/usr/bin/env bash
# Encodes the clips of the GPU decoding checks (issue 28: `--decode gpu` against the CPU's
# decoding) from the fixtures, and scores each pair here with the CPU's decoders and metrics,
# the values a GPU run must reproduce bit for bit. scripts/device_bundle.sh runs it (DECODE=1);
# scripts/device_check.sh decode compares.
#
#   scripts/make_decode_clips.sh VMAFX FIXTURES OUT [--rates]
#
# VMAFX: a vmafx built with FFmpeg's libraries (Debian's: libx264/libx265 encoders in the ffmpeg
#   command, libdav1d decoding AV1 on the CPU). FIXTURES: the unpacked fixtures (.fixtures).
# OUT/NAME.ref.EXT, OUT/NAME.dist.EXT: each clip's reference and distorted encodes;
#   OUT/NAME.cpu.json: vmafx's CPU run on them (vmaf_v0.6.1 and psnr, which reads the chroma, at
#   --precision max); OUT/clips.txt: NAME EXT, one a line.
#   The clips: H.264 8-bit and HEVC 8-bit 4:2:0 (1920x1080), HEVC 10-bit 4:2:0 (1920x1080),
#   HEVC 8-bit and 12-bit 4:4:4 (960x540: NVDEC's planar surfaces), AV1 8-bit (576x324) and
#   10-bit (1920x1080), and H.264 10-bit, which NVDEC does not decode (the fallback's note).
# --rates: also the decode-inclusive rate pairs: 60-frame HEVC 8-bit 3840x2160 and H.264 8-bit
#   1920x1080 Annex B streams (device_check.sh concatenates each ten times: 600 frames), listed in
#   OUT/rates.txt (NAME EXT W H). Needs the fixtures' .y4m files (prepare.py --y4m).
set -euo pipefail
if [ $# -lt 3 ] || [ $# -gt 4 ] || { [ $# -eq 4 ] && [ "$4" != --rates ]; }; then
  echo "usage: $0 VMAFX FIXTURES OUT [--rates]" >&2
  exit 2
fi
vmafx=$(realpath "$1") fixtures=$(realpath "$2") out=$3 rates=${4:-}
mkdir -p "$out"
: >"$out/clips.txt"

# encode NAME EXT FIXTURE PIX_FMT_IN FRAMES SIZE ENCODER_ARGS...: both videos of FIXTURE.
encode() {
  local name=$1 ext=$2 fixture=$3 pix_in=$4 frames=$5 size=$6
  shift 6
  for which in ref dist; do
    # Looped to FRAMES (the fixtures hold a few); SVT-AV1 prints its settings on stderr.
    ffmpeg -nostdin -hide_banner -loglevel error -y -stream_loop -1 -f rawvideo -pix_fmt "$pix_in" -s "$size" -r 24 \
      -i "$fixtures/$fixture/$which.yuv" -frames:v "$frames" "$@" "$out/$name.$which.$ext" 2>"$out/encode.log" ||
      { cat "$out/encode.log" >&2; exit 1; }
  done
  "$vmafx" -r "$out/$name.ref.$ext" -d "$out/$name.dist.$ext" --feature psnr --precision max -q --json \
    -o "$out/$name.cpu.json"
  echo "$name $ext" >>"$out/clips.txt"
  echo "$name: $(du -ch "$out/$name".{ref,dist}."$ext" | tail -1 | cut -f1)"
}
x265_quiet=(-x265-params log-level=error)
encode h264_420p8 mp4 autumn_1920x1080_420p8 yuv420p 24 1920x1080 -c:v libx264 -preset veryfast -crf 20
encode hevc_420p8 mp4 autumn_1920x1080_420p8 yuv420p 24 1920x1080 -c:v libx265 -preset ultrafast -crf 22 "${x265_quiet[@]}"
encode hevc_420p10 mkv volna_1920x1080_420p10 yuv420p10le 12 1920x1080 -c:v libx265 -preset ultrafast -crf 22 \
  "${x265_quiet[@]}" -pix_fmt yuv420p10le
encode hevc_444p8 mkv cups_960x540_444p12 yuv444p12le 8 960x540 -c:v libx265 -preset ultrafast -crf 22 \
  "${x265_quiet[@]}" -pix_fmt yuv444p
encode hevc_444p12 mkv cups_960x540_444p12 yuv444p12le 8 960x540 -c:v libx265 -preset ultrafast -crf 22 \
  "${x265_quiet[@]}" -pix_fmt yuv444p12le
encode av1_420p8 mkv path_576x324_420p8 yuv420p 24 576x324 -c:v libsvtav1 -preset 12 -crf 35
encode av1_420p10 mkv volna_1920x1080_420p10 yuv420p10le 12 1920x1080 -c:v libsvtav1 -preset 12 -crf 35 \
  -pix_fmt yuv420p10le
encode h264_420p10 mkv volna_1920x1080_420p10 yuv420p10le 4 1920x1080 -c:v libx264 -preset ultrafast -crf 20 \
  -pix_fmt yuv420p10le

if [ "$rates" = --rates ]; then
  # 60 frames panning across a fixture's first picture (real motion and residuals, as a camera
  # pan: a looped fixture of three pictures would encode to almost nothing), as raw Annex B
  # streams, which device_check.sh concatenates ten times into 600-frame videos (each copy
  # starts with its parameter sets and an IDR picture: one stream to the decoder).
  : >"$out/rates.txt"
  # rate NAME EXT FIXTURE W H ENCODER_ARGS...: the reference at 16 Mb/s, the distorted at 6 (about
  # 2 and 0.7 MB: the device tool's carry holds 64 MiB in all).
  rate() {
    local name=$1 ext=$2 fixture=$3 w=$4 h=$5
    shift 5
    local pan="scale=$((w * 7 / 6)):$((h * 7 / 6)),crop=$w:$h:x='mod(n*9\,$((w / 6)))':y='mod(n*5\,$((h / 6)))',format=yuv420p"
    for which in ref:16M dist:6M; do
      ffmpeg -nostdin -hide_banner -loglevel error -y -stream_loop -1 -i "$fixtures/$fixture/ref.y4m" -vf "$pan" \
        -r 60 -frames:v 60 "$@" -b:v "${which#*:}" "$out/$name.${which%:*}.$ext" 2>"$out/encode.log" ||
        { cat "$out/encode.log" >&2; exit 1; }
    done
    echo "$name $ext $w $h" >>"$out/rates.txt"
    echo "$name: $(du -ch "$out/$name".{ref,dist}."$ext" | tail -1 | cut -f1) (60 frames each)"
  }
  rate hevc_2160p8 hevc canopee_3840x2160_420p8 3840 2160 -c:v libx265 -preset ultrafast "${x265_quiet[@]}"
  rate h264_1080p8 h264 autumn_1920x1080_420p8 1920 1080 -c:v libx264 -preset veryfast
fi
