#!/usr/bin/env bash
# The GPU check, in two halves.
#
#   bash scripts/gpu-check.sh pack DIR   on the build machine (MLIR/LLVM, no GPU
#                                        needed): generates the numeric grid,
#                                        compiles every kernel it needs ahead of
#                                        time into one executable, and writes a
#                                        small self-contained payload to DIR.
#   bash DIR/run.sh                      on the GPU machine (NVIDIA driver,
#                                        python3 with numpy; no MLIR, no LLVM):
#                                        runs the grid on the GPU against the
#                                        double-precision reference, then the
#                                        Mamba-2 mixer example (mixer-aot), the
#                                        prefill and decode benchmarks, and
#                                        prints a summary. About 2-4 minutes
#                                        on an H200.
#   bash scripts/gpu-check.sh            both, on a machine that has both.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

pack() {
  local out="$1"
  local build="$root/build"
  local gen="/usr/bin/python3 $root/utils/ssdgen.py"
  for tool in ssd-compile ssd-run; do
    [ -x "$build/bin/$tool" ] || { echo "gpu-check: build first (bash scripts/test.sh or ninja -C build)" >&2; exit 1; }
  done
  rm -rf "$out"
  mkdir -p "$out/cases" "$out/like"
  local chunk=64

  # The grid: dtypes, group counts, sequence lengths around the chunk size,
  # masks, cache-index layouts, padding, optional operands, tree speculation,
  # decode, realistic head dims. name|dtype|ssdgen flags
  local grid=(
    "f32-base|f32|--H 4 --P 16 --N 32 --G 2 --seqlens 0,1,63,64,65,150 --seed 1"
    "bf16-base|bf16|--H 4 --P 16 --N 32 --G 2 --seqlens 0,1,63,64,65,150 --seed 2"
    "f16-base|f16|--H 4 --P 16 --N 32 --G 2 --seqlens 0,1,63,64,65,150 --seed 3"
    "f32-g1|f32|--H 4 --P 16 --N 32 --G 1 --seqlens 5,70,130 --seed 4"
    "f32-g-eq-h|f32|--H 4 --P 16 --N 32 --G 4 --seqlens 5,70,130 --seed 5"
    "bf16-no-d-no-bias|bf16|--H 4 --P 16 --N 32 --G 2 --seqlens 3,66,129 --no-D --no-dt-bias --seed 6"
    "f32-ci-row-uint32|f32|--H 4 --P 16 --N 32 --G 2 --seqlens 3,66,129 --ci-shape 2d --ci-dtype uint32 --seed 7"
    "f32-padding|f32|--H 4 --P 16 --N 32 --G 2 --seqlens 3,66,129,8 --padding 1 --initial all --update all --seed 8"
    "bf16-tree|bf16|--H 4 --P 16 --N 32 --G 2 --seqlens 4,4,4,4,4 --tree --seed 9"
    "f32-masks-absent|f32|--H 4 --P 16 --N 32 --G 2 --seqlens 1,65,200 --initial absent --update absent --seed 10"
    "f32-odd-dims|f32|--H 6 --P 12 --N 20 --G 3 --seqlens 2,64,99 --seed 11"
    "bf16-mamba2-like|bf16|--H 8 --P 64 --N 128 --G 1 --seqlens 1,100,300 --slots 4 --seed 12"
    "bf16-codestral-like|bf16|--H 16 --P 64 --N 128 --G 8 --seqlens 17,64,250 --slots 4 --seed 13"
    "bf16-decode|bf16|--H 4 --P 64 --N 128 --G 1 --seqlens 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 --slots 18 --initial all --seed 14"
    "f32-softplus-passthrough|f32|--H 4 --P 16 --N 32 --G 2 --seqlens 9,70 --large-dt 0.25 --seed 15"
  )
  : > "$out/cases.txt"
  : > "$out/checks.txt"
  local compile_args=()
  for entry in "${grid[@]}"; do
    IFS='|' read -r name dtype flags <<< "$entry"
    $gen gen "$out/cases/$name/in" $flags > /dev/null
    compile_args+=("$dtype:$out/cases/$name/in")
    # The reference runs there too (plain C++ in the same executable), so
    # the payload carries inputs only.
    echo "--inputs cases/$name/in --outputs cases/$name/ref --dtype $dtype --target reference" >> "$out/cases.txt"
    for form in serial chunked auto; do
      echo "--inputs cases/$name/in --outputs cases/$name/$form --dtype $dtype --target cuda --form $form --chunk-size $chunk" >> "$out/cases.txt"
      echo "$name $dtype $form" >> "$out/checks.txt"
    done
  done

  # Benchmark signature: Granite-4-H-Small's SSM (H=128 P=64 N=128 G=1), bf16,
  # f32 pool, D and dt_bias, has_initial_state.
  $gen gen "$out/like/granite" --H 128 --P 64 --N 128 --G 1 --seqlens 1 --slots 1 --initial all --update absent > /dev/null

  # Cubins when ptxas is here (fast loading), else PTX for the driver's JIT.
  local format=isa
  if command -v ptxas > /dev/null || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" ]; then
    format=bin
    export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
  fi
  local objects=()
  for dtype in f32 f16 bf16; do
    local inputs=()
    for entry in "${compile_args[@]}"; do
      [ "${entry%%:*}" = "$dtype" ] && inputs+=(--inputs "${entry#*:}")
    done
    [ ${#inputs[@]} -eq 0 ] && continue
    "$build/bin/ssd-compile" "${inputs[@]}" --dtype "$dtype" --forms serial,chunked,auto \
      --chunk-size "$chunk" --chip sm_90a --format "$format" -o "$out/grid-$dtype.o" 2> "$out/compile-$dtype.log"
    objects+=("$out/grid-$dtype.o")
  done
  "$build/bin/ssd-compile" --inputs "$out/like/granite" --dtype bf16 --forms auto,chunked,serial \
    --chunk-size 256 --chip sm_90a --format "$format" -o "$out/bench.o" 2> "$out/compile-bench.log"
  objects+=("$out/bench.o")
  /usr/lib/llvm-22/bin/clang++ "${objects[@]}" "$build/lib/libSSDAotRunner.a" \
    "$build/lib/libSSDCudaRuntime.a" "$build/lib/libSSDRunner.a" -ldl -o "$out/ssd-aot-run"

  # The Mamba-2 mixer example (examples/mamba2-mixer/mixer.mlir, bf16 as
  # written) as a whole module: its scan kernels and gating kernel, linked with
  # the mixer's GPU main, which checks it against the double reference. The
  # gating's exp is a libdevice call, linked from CUDA_HOME.
  [ -f "$build/lib/libSSDMixerAotMain.a" ] || { echo "gpu-check: build the mixer example first (SSD_BUILD_EXAMPLES=ON)" >&2; exit 1; }
  CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" "$build/bin/ssd-compile" \
    --module "$root/examples/mamba2-mixer/mixer.mlir" --chip sm_90a --format "$format" \
    -o "$out/mixer.o" 2> "$out/compile-mixer.log"
  if strings "$out/mixer.o" | grep -q '^\.extern \.func.*__nv_'; then
    echo "gpu-check: the mixer's PTX calls libdevice unresolved; set CUDA_HOME to a CUDA toolkit" >&2
    exit 1
  fi
  /usr/lib/llvm-22/bin/clang++ "$out/mixer.o" "$build/lib/libSSDMixerAotMain.a" \
    "$build/lib/libSSDCudaRuntime.a" "$build/lib/libSSDRunner.a" -ldl -o "$out/mixer-aot"
  rm -f "$out"/*.o
  cp "$root/utils/ssdgen.py" "$out/ssdgen.py"
  cp "$root/scripts/gpu-check-run.sh" "$out/run.sh"
  echo "gpu-check: packed $(du -sh "$out" | cut -f1) into $out ($format kernels); run: bash $out/run.sh"
}

case "${1:-all}" in
  pack) pack "${2:?usage: gpu-check.sh pack DIR}" ;;
  all)
    dir="$(mktemp -d)/gpu-check"
    pack "$dir"
    bash "$dir/run.sh"
    ;;
  *) echo "usage: gpu-check.sh [pack DIR]" >&2; exit 2 ;;
esac
