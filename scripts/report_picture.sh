#!/usr/bin/env bash
# The picture of the HTML report in docs/python.md (docs/images/report.png): the report of the
# shipped sample pair with psnr, made by `vmafx --html`, screenshot by Debian's headless Chromium
# (its profile in a temporary folder, removed after), the top of the page.
# Usage: scripts/report_picture.sh [BUILD_DIR]   (default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/vmafx" -r samples/path_576x324_ref.y4m -d samples/path_576x324_dist.y4m --feature psnr -q \
  --html "$tmp/report.html" >/dev/null
HOME=$tmp XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache \
  chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile" \
  --virtual-time-budget=15000 --hide-scrollbars --window-size=1100,1500 --screenshot="$tmp/shot.png" \
  "file://$tmp/report.html" 2>/dev/null
/usr/bin/python3 -c "
from PIL import Image
Image.open('$tmp/shot.png').convert('P', palette=Image.ADAPTIVE, colors=128).save('docs/images/report.png', optimize=True)"
echo "docs/images/report.png"
