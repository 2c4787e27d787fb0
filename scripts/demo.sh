#!/usr/bin/env bash
# Installs what is missing, builds, and runs the project's main job on an
# example: parse, verify and print a Mamba-2 decode step.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build
build/bin/ssd-opt examples/mamba2-decode.mlir
