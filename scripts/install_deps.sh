#!/usr/bin/env bash
# Installs vmafx's build and test dependencies from Debian's packages (uses sudo when not root).
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config python3 xz-utils
          libsvm-dev nlohmann-json3-dev libcli11-dev libfmt-dev libtbb-dev libhwy-dev
          libgtest-dev libgmock-dev libbenchmark-dev
          # scripts/fuzz.sh: clang-14 with libFuzzer and the ASan/UBSan runtimes (libclang-rt-14-dev,
          # only recommended by clang, so named here), llvm-symbolizer for readable stacks (llvm-14).
          # GCC's own sanitizer runtimes (VMAFX_SANITIZE) come with g++ (libasan8, libubsan1).
          clang libclang-rt-14-dev llvm-14)
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
