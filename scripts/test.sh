#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Used by CI as written
# in the README.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
ninja -C build
ninja -C build check-ssd
