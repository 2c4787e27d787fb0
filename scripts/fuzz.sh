#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for SECONDS each (default 60):
#
#   bash scripts/fuzz.sh [SECONDS]
#
# The targets live in the sanitizer build (SSD_FUZZ_BUILD, default
# build-asan: -DSSD_SANITIZE=address,undefined -DSSD_BUILD_FUZZERS=ON),
# configured and built here if needed. Their seed corpora are written afresh
# from the test inputs (fuzz/make-seeds.py); what a run adds to the corpus
# is kept in BUILD/fuzz/corpus/<target> for the next run. Every input that
# made a target crash, hang (10 s), or use more than 2 GiB is written to
# BUILD/fuzz/findings/<target>/ and makes the script fail; the committed
# reproducers of earlier findings (fuzz/regressions/<target>/) run first.
# docs/testing.md says how to turn a finding into a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
build=${SSD_FUZZ_BUILD:-build-asan}
python=/usr/bin/python3
[ -x "$python" ] || python=python3

if [ ! -x "$build/bin/ssd-npy-fuzzer" ] || [ ! -x "$build/bin/ssd-pool-fuzzer" ] ||
   [ ! -x "$build/bin/ssd-ir-fuzzer" ] || [ ! -x "$build/bin/ssd-gpu-fuzzer" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSSD_SANITIZE=address,undefined -DSSD_BUILD_FUZZERS=ON > /dev/null
fi
ninja -C "$build" ssd-fuzzers > /dev/null

# As in the lit configuration of the sanitizer build: allocation failure is
# handled (reported as an error), so the allocator returns null.
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"

# SSD_FUZZ_RUNS=N: N inputs per target from a fixed random seed
# (SSD_FUZZ_SEED, default 1) instead of a timed run, SECONDS then only a
# cap. The test command uses it, so that the fuzzing leg does the same work
# on every machine rather than as much as the machine's speed allows (the
# mutations are the seed's; coverage still varies a little between runs,
# since MLIR's hash tables are keyed by pointers).
budget=""
if [ -n "${SSD_FUZZ_RUNS:-}" ]; then
  budget="-runs=$SSD_FUZZ_RUNS -seed=${SSD_FUZZ_SEED:-1}"
fi

work="$build/fuzz"
failed=0
for target in npy pool ir gpu; do
  fuzzer="$build/bin/ssd-$target-fuzzer"
  seeds="$work/seeds/$target" corpus="$work/corpus/$target"
  findings="$work/findings/$target" log="$work/$target.log"
  mkdir -p "$corpus" "$findings"
  # The gpu target starts from the ir target's seeds.
  "$python" fuzz/make-seeds.py "${target/gpu/ir}" "$seeds" > /dev/null

  # Earlier findings first: each must now pass.
  if [ -d "fuzz/regressions/$target" ] && [ -n "$(ls -A "fuzz/regressions/$target")" ]; then
    if ! "$fuzzer" -runs=1 fuzz/regressions/"$target"/* > "$work/$target-regressions.log" 2>&1; then
      echo "fuzz: ssd-$target-fuzzer fails on a committed regression input (see $work/$target-regressions.log)"
      failed=1
    fi
  fi

  before=$(ls "$findings" | wc -l)
  set +e
  "$fuzzer" "$corpus" "$seeds" -max_total_time="$seconds" $budget -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" > "$log" 2>&1
  status=$?
  set -e
  after=$(ls "$findings" | wc -l)
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo '?')
  if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
    echo "fuzz: ssd-$target-fuzzer FAILED after $runs runs (exit $status); findings in $findings, log $log:"
    grep -E 'ERROR|SUMMARY|property violated|Test unit written' "$log" | head -5 || true
    failed=1
  else
    echo "fuzz: ssd-$target-fuzzer ${seconds}s, $runs runs, $(ls "$corpus" | wc -l) corpus inputs, no findings"
  fi
done
exit "$failed"
