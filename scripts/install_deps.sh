#!/usr/bin/env bash
# Installs vmafx's build and test dependencies from Debian's packages (uses sudo when not root).
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config python3 xz-utils
          libsvm-dev nlohmann-json3-dev libcli11-dev libfmt-dev libtbb-dev
          libgtest-dev libgmock-dev libbenchmark-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
