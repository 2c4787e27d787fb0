#!/usr/bin/env bash
# Second half of scripts/gpu-check.sh, run from the packed directory on the
# GPU machine: numeric grid on the GPU, the GPU emulator's outputs (computed
# at pack time) against the GPU's, the mixer, benchmarks, then a summary.
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
# A fourth field: the pool's flags of ssdgen check (compressed pools).
while read -r name dtype form pool; do
  if line=$($python ssdgen.py check "cases/$name/in" "cases/$name/ref" "cases/$name/$form" --dtype "$dtype" $pool 2>&1); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name $form: $line"
  fi
done < checks.txt
grep -v "^ssd-aot-run: \(cuda\|reference\) form=" grid.log | head -20
grid_passed=$passed; grid_failed=$failed

echo "== invariant mode: the GPU's bits against the CPU's (packed at pack time)"
# Every output file of the invariant serial kernel must equal, byte for
# byte, what `ssd-run --target cpu --invariant` wrote on the build machine.
before_inv_passed=$passed; before_inv_failed=$failed
while read -r name dtype; do
  differ=""
  for f in cases/"$name"/cpu-inv/*.npy; do
    cmp -s "$f" "cases/$name/inv/$(basename "$f")" || differ="$differ $(basename "$f")"
  done
  if [ -z "$differ" ]; then
    passed=$((passed + 1))
    echo "$name ($dtype): bit-identical to the CPU"
  else
    failed=$((failed + 1))
    echo "FAIL invariant $name ($dtype): differs from the CPU in$differ"
    $python - "cases/$name/cpu-inv" "cases/$name/inv" $differ <<'PY'
import os, sys
import numpy as np
cpu, gpu = sys.argv[1], sys.argv[2]
for f in sys.argv[3:]:
    a, b = np.load(os.path.join(cpu, f)), np.load(os.path.join(gpu, f))
    if a.shape != b.shape or a.dtype != b.dtype:
        print("  %s: %s %s vs %s %s" % (f, a.dtype, a.shape, b.dtype, b.shape))
        continue
    ua = a.view(np.uint16 if a.itemsize == 2 else np.uint32).ravel()
    ub = b.view(np.uint16 if b.itemsize == 2 else np.uint32).ravel()
    bad = np.flatnonzero(ua != ub)
    i = bad[0]
    print("  %s: %d of %d words differ, first at %d: cpu 0x%x (%r) gpu 0x%x (%r)"
          % (f, bad.size, ua.size, i, ua[i], a.ravel()[i], ub[i], b.ravel()[i]))
PY
  fi
done < inv-checks.txt
inv_passed=$((passed - before_inv_passed)); inv_failed=$((failed - before_inv_failed))

echo "== GPU emulator vs GPU (same kernels; emulator outputs from pack time)"
# Probes: mma and shfl use inputs that make every result exact (small
# integers, integers), so the hardware must agree bit for bit. mma-round
# runs the mma kernel on values whose sums round: the PTX ISA leaves the
# accumulation's order and rounding to the hardware, so the GPU must be
# within probes.py's bound of the exact sum (two orders of 17 f32
# roundings), and its difference from the emulator (k order,
# round-to-nearest) is reported in units in the last place: a measurement.
# wgmma (sm_90a: skipped on older GPUs) compares the D words bit for bit;
# its last word, where the GPU put dynamic shared memory, is reported.
# wgmma-round is to wgmma what mma-round is to mma.
emu_summary=""
compute_cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1)
for probe in mma mma-round shfl wgmma wgmma-round; do
  if [ "${probe%-round}" = wgmma ] && [ -n "$compute_cap" ] && [ "${compute_cap%%.*}" -lt 9 ]; then
    echo "$probe probe: skipped (compute capability $compute_cap; it needs sm_90a)"
    emu_summary="$emu_summary, $probe skipped"
    continue
  fi
  bytes=$($python probes.py bytes "$probe")
  ok=0
  if ./ssd-aot-run --call "module:${probe%-round}_probe" --input "probes/$probe.in" \
       --output "probes/$probe.gpu" --output-bytes "$bytes" > "probe-$probe.log" 2>&1; then
    if [ "$probe" = mma-round ] || [ "$probe" = wgmma-round ]; then
      $python probes.py diff "$probe" "probes/$probe.in" "probes/$probe.expected" "probes/$probe.gpu" \
        > "probe-$probe-exact.txt" && ok=1
      vs_emu=$($python probes.py diff "$probe" "probes/$probe.in" "probes/$probe.emu" "probes/$probe.gpu" | grep -m1 round)
    elif [ "$probe" = wgmma ]; then
      $python probes.py diff "$probe" "probes/$probe.in" "probes/$probe.emu" "probes/$probe.gpu" \
        > "probe-$probe-diff.txt" && ok=1
      cat "probe-$probe-diff.txt"
    else
      cmp -s "probes/$probe.emu" "probes/$probe.gpu" && ok=1
    fi
  fi
  if [ "$ok" -eq 1 ]; then
    passed=$((passed + 1))
    if [ "$probe" = mma-round ] || [ "$probe" = wgmma-round ]; then
      emu_summary="$emu_summary, $probe within bound (vs emulator: ${vs_emu#"$probe": })"
      echo "$probe probe: within the bound of the exact sum; emulator vs GPU: ${vs_emu#"$probe": }"
    else
      emu_summary="$emu_summary, $probe bit-identical"
      echo "$probe probe: bit-identical"
    fi
  else
    failed=$((failed + 1))
    emu_summary="$emu_summary, $probe DIFFERS"
    echo "FAIL $probe probe: emulator and GPU differ"
    cat "probe-$probe.log"
    [ -f "probe-$probe-exact.txt" ] && cat "probe-$probe-exact.txt"
    [ -f "probes/$probe.gpu" ] && {
      echo "  emulator vs GPU:"; $python probes.py diff "$probe" "probes/$probe.in" "probes/$probe.emu" "probes/$probe.gpu"
      echo "  PTX ISA (probes.py) vs GPU:"; $python probes.py diff "$probe" "probes/$probe.in" "probes/$probe.expected" "probes/$probe.gpu"
    }
  fi
done
# Scans: the same kernels, so the outputs differ only where the hardware
# and the emulator compute an instruction differently: the emulator computes
# the .approx functions (ex2, lg2) exactly where the GPU is within about
# 2 ulp (PTX ISA), and accumulates mma.sync in k order with round-to-nearest
# where the GPU's order and rounding are its own (the mma-round probe
# above measures them). FMA contraction is the same on both. Report the max
# relative difference (ssdgen check: max |diff| / max |emulator|) and fail
# above a bound per form and dtype:
#   serial f32    5e-5: the decay exp(dt A) differs by <= 2 ulp (2.4e-7)
#                 per token and compounds along a sequence; the grid's
#                 sequences are at most 150 tokens: 150 x 2.4e-7 = 3.6e-5.
#   chunked f32   1e-4: each decay exp(cum_i - cum_j) is computed once (no
#                 compounding), but every output is a sum over a chunk
#                 (64 here) through mma accumulators rounded per k-step:
#                 about (64 / 16 + 16) x 2^-23 of the terms' magnitude,
#                 times the cancellation of the sum (up to ~40 in the grid).
#   bf16          8e-3: one bf16 unit (2^-7 relative at the bottom of a
#                 binade) where the f32 values straddle a rounding point.
#   f16           2e-3: one f16 unit (2^-10) plus the f32 difference of the
#                 chunked form.
# A failure says the reasoning above is wrong for this GPU, not
# necessarily the kernel: the grid against the reference decides that.
declare -A emu_max
while read -r name dtype form; do
  case "$form $dtype" in
    "serial f32") tol=5e-5 ;;
    "chunked f32") tol=1e-4 ;;
    *" f16") tol=2e-3 ;;
    *) tol=8e-3 ;;
  esac
  line=$($python ssdgen.py check "cases/$name/in" "cases/$name/emu-$form" "cases/$name/$form" --dtype "$dtype" --tol "$tol" 2>&1)
  status=$?
  y=$(sed -n 's/.*y_err=\([^ ]*\).*/\1/p' <<< "$line")
  pool=$(sed -n 's/.*pool_err=\([^ ]*\).*/\1/p' <<< "$line")
  echo "$name $form ($dtype): y max rel diff ${y:-?}, pool ${pool:-?} (bound $tol)"
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL emulator vs GPU $name $form: $line"
  fi
  key="$form $dtype"
  if [ -n "$y" ]; then
    prev=${emu_max[$key]:-0}
    emu_max[$key]=$($python -c "print('%.2e' % max(float('$prev'), float('$y')))")
  else
    emu_max[$key]="?"
  fi
done < emu-checks.txt
for form in serial chunked; do
  parts=""
  for dtype in f32 f16 bf16; do
    [ -n "${emu_max[$form $dtype]:-}" ] && parts="$parts${parts:+, }$dtype ${emu_max[$form $dtype]}"
  done
  emu_summary="$emu_summary, $form y max rel diff $parts"
done
emu_summary=${emu_summary#, }
emu_passed=$((passed - grid_passed - inv_passed)); emu_failed=$((failed - grid_failed - inv_failed))

echo "== Mamba-2 mixer example on the GPU (ssd-compile --module mixer.mlir, bf16)"
before_mixer_passed=$passed; before_mixer_failed=$failed
# Default mix (prefill and decode, T=73), then long prefills across the scan's
# chunk boundaries with decodes.
mixer_runs=("--seed 1" "--seed 2 --seqlens 300,1,1,64,0,129,1")
[ -x ./mixer-aot ] || { echo "mixer-aot was not packed (no CUDA toolkit for its libdevice call at pack time): skipped"; mixer_runs=(); }
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
if [ ! -x ./mixer-aot ]; then
  :
elif ! ./mixer-aot --wrong-expected > mixer-wrong.log 2>&1 && grep -qx FAIL mixer-wrong.log; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL mixer-aot --wrong-expected did not report FAIL:"
  cat mixer-wrong.log
fi

mixer_passed=$((passed - before_mixer_passed)); mixer_failed=$((failed - before_mixer_failed))

# C·Bᵀ in the state blocks (cb-in-block) must write the bits of the C·Bᵀ
# tiles (the emulator's numeric/cb-in-block.test says so there).
before_cb_passed=$passed; before_cb_failed=$failed
if [ -d like/granite-check ]; then
  ./ssd-aot-run --inputs like/granite-check --outputs cb-tiles --dtype bf16 --form chunked --chunk-size 256 > cb-check.log 2>&1
  ./ssd-aot-run --inputs like/granite-check --outputs cb-in-block --dtype bf16 --form chunked --chunk-size 256 --cb-in-block >> cb-check.log 2>&1
  if cmp cb-tiles/y.npy cb-in-block/y.npy >> cb-check.log 2>&1 && cmp cb-tiles/ssm_pool.npy cb-in-block/ssm_pool.npy >> cb-check.log 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL cb-in-block's outputs differ from the C·Bᵀ tiles' (cb-check.log)"
  fi
  cat cb-check.log
fi
cb_passed=$((passed - before_cb_passed)); cb_failed=$((failed - before_cb_failed))

echo "== prefill benchmark (Granite-4-H-Small SSM: H=128 P=64 N=128 G=1, bf16)"
./ssd-aot-run --bench prefill --like like/granite --dtype bf16 --form auto --chunk-size 256 --reps 3 2>&1 | tee prefill.log
echo "== chunked form: one head per chunk-kernel block (the default), then two"
./ssd-aot-run --bench prefill --like like/granite --dtype bf16 --form chunked --chunk-size 256 --reps 3 --max-tokens 16384 2>&1 | tee prefill-one-head.log
./ssd-aot-run --bench prefill --like like/granite --dtype bf16 --form chunked --chunk-size 256 --reps 3 --max-tokens 16384 --heads-per-block 2 2>&1 | tee prefill-paired.log
echo "== chunked form: a double buffer (pipeline-stages 2) against the default ring of three stages above"
./ssd-aot-run --bench prefill --like like/granite --dtype bf16 --form chunked --chunk-size 256 --reps 3 --max-tokens 16384 --pipeline-stages 2 2>&1 | tee prefill-two-stages.log
echo "== chunked form: C·Bᵀ in the state blocks (cb-in-block) against the C·Bᵀ tiles (one head, above)"
./ssd-aot-run --bench prefill --like like/granite --dtype bf16 --form chunked --chunk-size 256 --reps 3 --max-tokens 16384 --cb-in-block 2>&1 | tee prefill-cb-in-block.log
# Where the chunk kernel's cycles go, with the ring of three stages (the
# default) and with a double buffer: Nsight Compute's stall reasons
# (WarpStateStats) beside the speed-of-light and scheduler figures, when
# ncu is installed (SSD_GPU_CHECK_NCU=0 skips it; each run is capped at
# four minutes).
ncu=$(command -v ncu || true)
[ -z "$ncu" ] && [ -x /usr/local/cuda/bin/ncu ] && ncu=/usr/local/cuda/bin/ncu
if [ "${SSD_GPU_CHECK_NCU:-1}" != 0 ] && [ -n "$ncu" ]; then
  echo "== Nsight Compute: chunked prefill, 8192 tokens, three stages then two"
  for stages in 3 2; do
    timeout 240 "$ncu" --launch-count 8 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
      --section Occupancy --section LaunchStats --page raw --csv \
      ./ssd-aot-run --bench prefill --like like/granite --dtype bf16 --form chunked --chunk-size 256 \
      --reps 1 --max-tokens 8192 --pipeline-stages "$stages" > "ncu-prefill-stages-$stages.csv" 2> "ncu-prefill-stages-$stages.log" \
      && echo "ncu-prefill-stages-$stages.csv written" \
      || echo "ncu (stages $stages) failed or timed out: ncu-prefill-stages-$stages.log"
  done
fi
echo "== decode benchmark (same model, f32 pool)"
./ssd-aot-run --bench decode --like like/granite --dtype bf16 --form auto --chunk-size 256 --reps 10 2>&1 | tee decode.log
echo "== invariant serial kernel (same model): decode, then prefill"
./ssd-aot-run --bench decode --like like/granite --dtype bf16 --form serial --chunk-size 256 --reps 10 --invariant 2>&1 | tee decode-invariant.log
./ssd-aot-run --bench prefill --like like/granite --dtype bf16 --form serial --chunk-size 256 --reps 2 --max-tokens 8192 --invariant 2>&1 | tee prefill-invariant.log

echo "== torch op on CUDA tensors (ssd_torch's Python path, the packed kernel library)"
# scripts/gpu-check-torch.py: the op against the reference (checkpoints,
# masks, an int8 pool with stochastic rounding), inside a CUDA graph, its
# one-line errors, and its times beside ssd-aot-run's above.
before_torch_passed=$passed; before_torch_failed=$failed
torch_summary="left out at pack time (no ptxas)"
if [ -d torch ]; then
  torch_python=
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then
      torch_python=$candidate; break
    fi
  done
  if [ -z "$torch_python" ]; then
    torch_summary="skipped (no python3 with a CUDA torch)"
    echo "$torch_summary"
  else
    SSD_TORCH_NO_EXTENSION=1 PYTHONPATH=torch "$torch_python" torch/gpu-check-torch.py \
      torch/libssd_kernels.so "$(cat torch/granite-key.txt)" prefill.log decode.log 2>&1 | tee torch.log
    tp=$(sed -n 's/^torch: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p' torch.log)
    tf=$(sed -n 's/^torch: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' torch.log)
    if [ -z "$tp" ]; then
      failed=$((failed + 1))
      echo "FAIL the torch leg did not finish (torch.log)"
    else
      passed=$((passed + tp)); failed=$((failed + tf))
    fi
    torch_summary="$((passed - before_torch_passed)) passed, $((failed - before_torch_failed)) failed"
  fi
fi

echo "== summary"
echo "grid: $grid_passed passed, $grid_failed failed"
echo "emulator vs GPU: $emu_summary ($emu_passed passed, $emu_failed failed)"
echo "invariant vs CPU bits: $inv_passed passed, $inv_failed failed"
echo "mixer: $mixer_passed passed, $mixer_failed failed"
echo "cb-in-block vs C·Bᵀ tiles bits: $cb_passed passed, $cb_failed failed"
echo "torch op on CUDA tensors: $torch_summary"
echo "time: $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
