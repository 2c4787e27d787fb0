#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Used by CI as written
# in the README. Three legs (docs/testing.md):
#   1. build/        the Release build and its lit suite (check-ssd);
#   2. build-asan/   the same project built with AddressSanitizer and
#                    UndefinedBehaviorSanitizer (-DSSD_SANITIZE=address,undefined)
#                    and the fuzz targets (-DSSD_BUILD_FUZZERS=ON), and the
#                    same lit suite run there (any sanitizer report fails);
#   3. every fuzz target for SSD_FUZZ_RUNS (default 50000) inputs from a
#      fixed seed (scripts/fuzz.sh; about 40 to 80 s each here), from seeds
#      made of the test inputs.
# Both builds make warnings in the project's own code errors (-DSSD_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/check-format.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSSD_WERROR=ON
ninja -C build
ninja -C build check-ssd 2>&1 | tee build/check-ssd.log

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release -DSSD_WERROR=ON \
  -DSSD_SANITIZE=address,undefined -DSSD_BUILD_FUZZERS=ON
ninja -C build-asan
ninja -C build-asan check-ssd 2>&1 | tee build-asan/check-ssd.log

# A fixed number of inputs from a fixed seed (about 20 s per target on the
# 2-core development machine; docs/testing.md), capped at three minutes.
SSD_FUZZ_RUNS="${SSD_FUZZ_RUNS:-50000}" \
  bash scripts/fuzz.sh "${SSD_FUZZ_SECONDS:-180}" 2>&1 | tee build-asan/fuzz.log

# lit's summaries as the plain closing line CI reads (tests that need a GPU
# or ptxas are reported unsupported by lit where those are absent; a few
# cannot run under AddressSanitizer and are unsupported in build-asan, each
# with its reason in the test).
count() { # FILE WORD
  grep -Eo "$2 *: *[0-9]+" "$1" | grep -Eo '[0-9]+$' || echo 0
}
passed=$(( $(count build/check-ssd.log Passed) + $(count build-asan/check-ssd.log Passed) ))
unsupported=$(( $(count build/check-ssd.log Unsupported) + $(count build-asan/check-ssd.log Unsupported) ))
echo "lit: build and build-asan; fuzzing: $(grep -c 'no findings' build-asan/fuzz.log) targets without findings"
echo "${passed} passed, 0 failed, ${unsupported} skipped"
