#!/usr/bin/env bash
# Sets up (Debian packages), builds vmafx, and scores the shipped sample pair with the
# built-in default model (vmaf_v0.6.1), printing the pooled VMAF score.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target vmafx
build/vmafx -r samples/path_576x324_ref.y4m -d samples/path_576x324_dist.y4m --json -o build/sample.json -q
echo "per-frame scores: build/sample.json"
build/vmafx -r samples/path_576x324_ref.y4m -d samples/path_576x324_dist.y4m -q
