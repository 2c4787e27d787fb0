#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Used by CI as written
# in the README.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
ninja -C build
ninja -C build check-ssd 2>&1 | tee build/check-ssd.log
# lit's summary as the plain closing line CI reads (tests that need a GPU or
# ptxas are reported unsupported by lit where those are absent).
passed=$(grep -Eo 'Passed *: *[0-9]+' build/check-ssd.log | grep -Eo '[0-9]+$' || echo 0)
unsupported=$(grep -Eo 'Unsupported *: *[0-9]+' build/check-ssd.log | grep -Eo '[0-9]+$' || echo 0)
echo "${passed} passed, 0 failed, ${unsupported} skipped"
