#!/usr/bin/env bash
# Builds everything and runs all tests (unit tests, golden check against upstream libvmaf's
# values). The fixtures of ../shared are unpacked into .fixtures when ../shared is present;
# without it the tests that need them say they were skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
if [ -f ../shared/fixtures/prepare.py ]; then
  python3 ../shared/fixtures/prepare.py --out .fixtures --y4m >/dev/null
else
  echo "../shared is absent: tests that need fixtures and golden values will be skipped"
fi
cd build
ctest --output-on-failure -j "$(nproc)"
