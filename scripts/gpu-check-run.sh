#!/usr/bin/env bash
# Second half of scripts/gpu-check.sh, run from the packed directory on the
# GPU machine: numeric grid on the GPU, then benchmarks, then a summary.
set -uo pipefail
cd "$(dirname "$0")"
python=
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import numpy' 2> /dev/null; then python=$candidate; break; fi
done
[ -n "$python" ] || { echo "gpu-check: needs python3 with numpy"; exit 1; }
start=$(date +%s)

echo "== numeric grid on the GPU (against the double-precision reference)"
./ssd-aot-run --cases cases.txt > grid.log 2>&1
if grep -q "no CUDA driver\|no CUDA device" grid.log; then
  grep -m1 "no CUDA" grid.log
  echo "gpu-check: no usable GPU here; nothing measured"
  exit 1
fi
passed=0; failed=0
while read -r name dtype form; do
  if line=$($python ssdgen.py check "cases/$name/in" "cases/$name/ref" "cases/$name/$form" --dtype "$dtype" 2>&1); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name $form: $line"
  fi
done < checks.txt
grep -v "^ssd-aot-run: \(cuda\|reference\) form=" grid.log | head -20

echo "== Mamba-2 mixer example on the GPU (ssd-compile --module mixer.mlir, bf16)"
grid_passed=$passed; grid_failed=$failed
# Default mix (prefill and decode, T=73), then long prefills across the scan's
# chunk boundaries with decodes.
mixer_runs=("--seed 1" "--seed 2 --seqlens 300,1,1,64,0,129,1")
for i in "${!mixer_runs[@]}"; do
  if ./mixer-aot ${mixer_runs[$i]} > "mixer-$i.log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL mixer-aot ${mixer_runs[$i]}:"
  fi
  cat "mixer-$i.log"
done
# The check is not vacuous: without the D skip in the expected output it must
# report FAIL (and not crash).
if ! ./mixer-aot --wrong-expected > mixer-wrong.log 2>&1 && grep -qx FAIL mixer-wrong.log; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL mixer-aot --wrong-expected did not report FAIL:"
  cat mixer-wrong.log
fi

echo "== prefill benchmark (Granite-4-H-Small SSM: H=128 P=64 N=128 G=1, bf16)"
./ssd-aot-run --bench prefill --like like/granite --dtype bf16 --form auto --chunk-size 256 --reps 3 2>&1 | tee prefill.log
echo "== decode benchmark (same model, f32 pool)"
./ssd-aot-run --bench decode --like like/granite --dtype bf16 --form auto --chunk-size 256 --reps 10 2>&1 | tee decode.log

echo "== summary"
echo "grid: $grid_passed passed, $grid_failed failed"
echo "mixer: $((passed - grid_passed)) passed, $((failed - grid_failed)) failed"
echo "time: $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
