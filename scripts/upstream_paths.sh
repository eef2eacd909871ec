#!/usr/bin/env bash
# Upstream's own code paths against each other and against vmafx on small crops of a fixture:
# integer ADM's scale 3 (the feature where they part at some widths) with upstream's default
# dispatch (AVX-512 where the CPU has it), with AVX-512 masked off (--cpumask 16: AVX2) and
# with every SIMD path masked off (--cpumask 255: C), and vmafx. The golden values come from
# upstream's AVX-512 path, which vmafx follows (docs/design.md, "Exactness").
#
# Usage: scripts/upstream_paths.sh UPSTREAM_VMAF VMAFX [FIXTURES]
#   UPSTREAM_VMAF: an upstream libvmaf 3.2.0 `vmaf` tool you built (never part of vmafx);
#   FIXTURES: the unpacked fixtures (default .fixtures); SIZES: WxH crops (default below).
set -euo pipefail
up=$1 ours=$2 fixtures=${3:-.fixtures}
sizes=${SIZES:-"40x64 72x64 80x48 80x64 104x64 136x64 168x64 200x120 264x64"}
work=$(mktemp -d "${TMPDIR:-/tmp}/vmafx-paths.XXXXXX")
trap 'rm -rf "$work"' EXIT
grep -o -m1 -w 'avx512f' /proc/cpuinfo >/dev/null && echo "CPU has AVX-512" || echo "CPU has no AVX-512 (the default dispatch is then AVX2)"
printf '%-9s %-22s %-22s %-22s %-22s\n' size upstream-default upstream-avx2 upstream-c vmafx
for spec in $sizes; do
  w=${spec%x*} h=${spec#*x}
  # The top-left w x h of the first two frames of path_576x324_420p8 (8-bit 4:2:0).
  python3 - "$fixtures/path_576x324_420p8" "$work" "$w" "$h" <<'PY'
import sys
src_dir, work, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
W, H = 576, 324
for which in ('ref', 'dist'):
    data = open(f'{src_dir}/{which}.yuv', 'rb').read()
    size = W * H * 3 // 2
    out = bytearray()
    for f in range(2):
        frame = data[f * size:(f + 1) * size]
        y, u, v = frame[:W * H], frame[W * H:W * H * 5 // 4], frame[W * H * 5 // 4:]
        for r in range(h): out += y[r * W:r * W + w]
        for p in (u, v):
            for r in range(h // 2): out += p[r * (W // 2):r * (W // 2) + w // 2]
    open(f'{work}/{which}.yuv', 'wb').write(out)
PY
  scale3() {  # the first frame's integer_adm_scale3 from a CSV file
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "integer_adm_scale3") c = i } NR == 2 { print $c }' "$1"
  }
  row=()
  for mask in default 16 255; do
    extra=(); [ "$mask" = default ] || extra=(--cpumask "$mask")
    "$up" -r "$work/ref.yuv" -d "$work/dist.yuv" -w "$w" -h "$h" -p 420 -b 8 --feature adm=debug=true \
      "${extra[@]}" --csv -o "$work/up.csv" -q >/dev/null 2>&1
    row+=("$(scale3 "$work/up.csv")")
  done
  "$ours" -r "$work/ref.yuv" -d "$work/dist.yuv" -w "$w" -h "$h" -p 420 -b 8 --feature adm=debug=true \
    --precision 17 --csv -o "$work/ours.csv" -q >/dev/null 2>&1
  row+=("$(scale3 "$work/ours.csv")")
  printf '%-9s %-22s %-22s %-22s %-22s\n' "$spec" "${row[@]}"
done
