#!/usr/bin/env bash
# The representative part of the numeric grid that check-ssd runs at each CPU
# feature level (cpu-level-*.test): every model dtype, both pool dtypes, both
# forms, JIT-compiled for the LLVM CPU $1 ("host" for the host itself), each
# against the double-precision reference; and a bf16 pool stored exactly
# (pool-bf16-rounding.test's problem: every stored state on or next to a bf16
# tie, checked with tolerance 0), since the rounding itself is code that
# differs by CPU; and draft trees (token_parents) in the serial form. Prints
# one PASS line per case (ssdgen's), or stops at the
# first failure.
#   cpu-level-grid.sh CPU WORKDIR SSD_RUN SSDGEN...
set -euo pipefail
cpu=$1 work=$2 ssd_run=$3
shift 3
ssdgen=("$@")
cpu_flag=()
[ "$cpu" = host ] || cpu_flag=(--cpu "$cpu")
rm -rf "$work" && mkdir -p "$work"
"${ssdgen[@]}" gen "$work/in" --seqlens 9,1,0,24,7,3 --initial mixed \
  --update mixed --padding 5 --seed 17 > /dev/null
# pool-bf16-rounding.test's exact problem, at this level.
edit_npy=("${ssdgen[0]}" "$(dirname "$0")/edit-npy.py")
"${ssdgen[@]}" gen "$work/exact" --seqlens '1*32' --H 2 --P 4 --N 16 --G 1 \
  --no-dt-bias --no-D --initial absent --update absent --seed 3 > /dev/null
"${edit_npy[@]}" "$work/exact" dt 'a[...] = 2.0 ** -30'
"${edit_npy[@]}" "$work/exact" x 'a[...] = 1'
"${edit_npy[@]}" "$work/exact" C 'a[...] = 1'
"${edit_npy[@]}" "$work/exact" B \
  'a[...] = 1 + (np.arange(a.size) % 512).reshape(a.shape) * 2.0 ** -9'
"$ssd_run" --inputs "$work/exact" --outputs "$work/exact-ref" \
  --target reference --pool-dtype bf16 > /dev/null
for form in serial chunked; do
  "$ssd_run" --inputs "$work/exact" --outputs "$work/exact-$form" \
    --form "$form" --chunk-size 8 --pool-dtype bf16 "${cpu_flag[@]}" > /dev/null
  echo -n "$cpu $form exact: "
  "${ssdgen[@]}" check "$work/exact" "$work/exact-ref" "$work/exact-$form" \
    --pool-dtype bf16 --tol 0
done

for pool in f32 bf16; do
  for dtype in f32 f16 bf16; do
    ref=$work/ref-$dtype-$pool
    "$ssd_run" --inputs "$work/in" --outputs "$ref" --target reference \
      --dtype "$dtype" --pool-dtype "$pool" > /dev/null
    for form in serial chunked; do
      out=$work/$form-$dtype-$pool
      "$ssd_run" --inputs "$work/in" --outputs "$out" --form "$form" \
        --chunk-size 8 --dtype "$dtype" --pool-dtype "$pool" \
        "${cpu_flag[@]}" > /dev/null
      echo -n "$cpu $form: "
      "${ssdgen[@]}" check "$work/in" "$ref" "$out" --dtype "$dtype" \
        --pool-dtype "$pool" --suite "cpu/$form"
    done
  done
done

# Draft trees (token_parents): the serial form's replay of a parent's path,
# breadth-first trees with a state per node, f16 model and bf16 pool.
"${ssdgen[@]}" gen "$work/tree" --seqlens 30,1,17,0,9 --parents tree \
  --initial mixed --checkpoint-interval 1 --seed 18 > /dev/null
"$ssd_run" --inputs "$work/tree" --outputs "$work/tree-ref" --target reference \
  --dtype f16 --pool-dtype bf16 --checkpoint-interval 1 > /dev/null
"$ssd_run" --inputs "$work/tree" --outputs "$work/tree-serial" --dtype f16 \
  --pool-dtype bf16 --checkpoint-interval 1 "${cpu_flag[@]}" > /dev/null
echo -n "$cpu tree: "
"${ssdgen[@]}" check "$work/tree" "$work/tree-ref" "$work/tree-serial" \
  --dtype f16 --pool-dtype bf16 --checkpoint-interval 1 --suite cpu/serial
