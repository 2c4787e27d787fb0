#!/usr/bin/env bash
# The GPU check, in two halves.
#
#   bash scripts/gpu-check.sh pack DIR   on the build machine (MLIR/LLVM, no GPU
#                                        needed): generates the numeric grid,
#                                        compiles every kernel it needs ahead of
#                                        time into one executable, runs a few
#                                        grid cases and the mma, shuffle and
#                                        wgmma probes on the GPU emulator and keeps
#                                        their outputs, and writes a small
#                                        self-contained payload to DIR.
#   bash DIR/run.sh                      on the GPU machine (NVIDIA driver,
#                                        python3 with numpy; no MLIR, no LLVM):
#                                        runs the grid on the GPU against the
#                                        double-precision reference, compares
#                                        the emulator's outputs with the GPU's
#                                        (probes bit for bit, scans by their
#                                        max relative difference), then the
#                                        Mamba-2 mixer example (mixer-aot), the
#                                        prefill and decode benchmarks, the
#                                        torch op on CUDA tensors (with a CUDA
#                                        torch there), and prints a summary. About 2-4 minutes
#                                        on an H200.
#   bash scripts/gpu-check.sh            both, on a machine that has both.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# ssd-compile ARGS... LOG: runs ssd-compile with its messages appended to LOG;
# on failure prints LOG and stops.
compile() {
  local log="${@: -1}"
  if ! "$root/build/bin/ssd-compile" "${@:1:$#-1}" 2>> "$log"; then
    grep -E "error|ssd-compile:" "$log" | tail -20 >&2
    echo "gpu-check: ssd-compile ${*:1:$#-1} failed" >&2
    exit 1
  fi
}

# dtype_inputs DTYPE ENTRY...: sets the array `inputs` to `--inputs DIR` for
# each ENTRY (DTYPE:DIR) of that dtype, for one ssd-compile per dtype.
dtype_inputs() {
  local dtype="$1" entry
  shift
  inputs=()
  for entry in "$@"; do
    [ "${entry%%:*}" = "$dtype" ] && inputs+=(--inputs "${entry#*:}")
  done
  return 0
}

pack() {
  local out="$1"
  local build="$root/build"
  local python=/usr/bin/python3
  [ -x "$python" ] || python=python3
  local gen="$python $root/utils/ssdgen.py"
  local probes="$python $root/tools/ssd-aot-run/probes/probes.py"
  for tool in bin/ssd-compile bin/ssd-run lib/libSSDAotRunner.a lib/libSSDAotCudaDevice.a \
              lib/libSSDAotEmulatorDevice.a lib/libSSDGPUEmulatorRuntime.so \
              lib/libSSDAotKernelLibrary.a; do
    [ -e "$build/$tool" ] || { echo "gpu-check: build first (bash scripts/test.sh or ninja -C build): no $tool" >&2; exit 1; }
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
  # The same signature with sequences across chunks, for run.sh's check
  # that the cb-in-block variant writes the default's bits on the GPU.
  $gen gen "$out/like/granite-check" --H 128 --P 64 --N 128 --G 1 --seqlens 700,300,1 --slots 3 --initial all --update absent --seed 5 > /dev/null

  # With ptxas and fatbinary here: fat binaries for sm_80 and sm_90a, each
  # chip's cubin (fast loading) and its PTX (for newer GPUs' JIT), the runner
  # picking the chip by the GPU's compute capability. Else PTX for sm_90a,
  # for the driver's JIT, as the payload always was.
  local format=isa chips=sm_90a
  local toolkit="${CUDA_HOME:-/usr/local/cuda}/bin"
  if { command -v ptxas > /dev/null || [ -x "$toolkit/ptxas" ]; } &&
     { command -v fatbinary > /dev/null || [ -x "$toolkit/fatbinary" ]; }; then
    format=fatbin
    chips=sm_80,sm_90a
    export PATH="$toolkit:$PATH"
  fi
  local objects=() inputs=()
  for dtype in f32 f16 bf16; do
    dtype_inputs "$dtype" "${compile_args[@]}"
    [ ${#inputs[@]} -eq 0 ] && continue
    compile "${inputs[@]}" --dtype "$dtype" --forms serial,chunked,auto \
      --chunk-size "$chunk" --chip "$chips" --format "$format" -o "$out/grid-$dtype.o" "$out/compile-$dtype.log"
    objects+=("$out/grid-$dtype.o")
  done
  # Draft trees (token_parents): only the serial form serves them, so they
  # get variants of their own (serial and auto, which plans serial) and the
  # same checks against the reference as the grid.
  local tree_grid=(
    "bf16-draft-trees|bf16|--H 4 --P 64 --N 128 --G 1 --seqlens 16,16,16,16,9,1,0 --parents tree --parents-depth 4 --initial mixed --seed 16"
    "f32-draft-trees-dfs|f32|--H 4 --P 16 --N 32 --G 2 --seqlens 64,30,1 --parents tree --parents-order dfs --parents-chains 1 --tree --seed 17"
  )
  for entry in "${tree_grid[@]}"; do
    IFS='|' read -r name dtype flags <<< "$entry"
    $gen gen "$out/cases/$name/in" $flags > /dev/null
    echo "--inputs cases/$name/in --outputs cases/$name/ref --dtype $dtype --target reference" >> "$out/cases.txt"
    for form in serial auto; do
      echo "--inputs cases/$name/in --outputs cases/$name/$form --dtype $dtype --target cuda --form $form --chunk-size $chunk" >> "$out/cases.txt"
      echo "$name $dtype $form" >> "$out/checks.txt"
    done
    compile --inputs "$out/cases/$name/in" --dtype "$dtype" --forms serial,auto \
      --chunk-size "$chunk" --chip "$chips" --format "$format" -o "$out/$name.o" "$out/compile-$dtype.log"
    objects+=("$out/$name.o")
  done
  # Compressed pools (docs/overview.md "Compressed state pools"): each with
  # variants of its own (the pool type and rounding are in the key), serial,
  # chunked and auto against the reference; a fourth field of checks.txt
  # gives ssdgen check the pool's flags. name|dtype|ssdgen flags|pool flags
  local pool_grid=(
    "bf16-pool-i8|bf16|--H 4 --P 64 --N 128 --G 1 --seqlens 1,1,1,1,100,300 --initial mixed --pool-dtype i8 --seed 51|--pool-dtype i8"
    "f32-pool-f8e4m3|f32|--H 4 --P 16 --N 32 --G 2 --seqlens 0,1,63,64,65,150 --pool-dtype f8e4m3 --seed 52|--pool-dtype f8e4m3"
    "bf16-pool-f16-stochastic|bf16|--H 4 --P 64 --N 128 --G 1 --seqlens 1,1,9,130 --initial all --pool-dtype f16 --seed 53|--pool-dtype f16 --pool-rounding stochastic --rounding-seed 5"
    "bf16-pool-i8-stochastic|bf16|--H 4 --P 16 --N 32 --G 2 --seqlens 1,3,70 --initial all --pool-dtype i8 --seed 54|--pool-dtype i8 --pool-rounding stochastic --rounding-seed 6"
  )
  for entry in "${pool_grid[@]}"; do
    IFS='|' read -r name dtype flags pool <<< "$entry"
    $gen gen "$out/cases/$name/in" $flags > /dev/null
    echo "--inputs cases/$name/in --outputs cases/$name/ref --dtype $dtype --target reference $pool" >> "$out/cases.txt"
    for form in serial chunked auto; do
      echo "--inputs cases/$name/in --outputs cases/$name/$form --dtype $dtype --target cuda --form $form --chunk-size $chunk $pool" >> "$out/cases.txt"
      echo "$name $dtype $form ${pool/ --rounding-seed [0-9]*/}" >> "$out/checks.txt"
    done
    # ssd-compile takes the pool type and rounding; the seed is an operand.
    compile --inputs "$out/cases/$name/in" --dtype "$dtype" --forms serial,chunked,auto \
      ${pool/ --rounding-seed [0-9]*/} --chunk-size "$chunk" --chip "$chips" --format "$format" \
      -o "$out/$name.o" "$out/compile-$dtype.log"
    objects+=("$out/$name.o")
  done
  compile --inputs "$out/like/granite" --dtype bf16 --forms auto,chunked,serial \
    --chunk-size 256 --chip "$chips" --format "$format" -o "$out/bench.o" "$out/compile-bench.log"
  objects+=("$out/bench.o")
  # The chunked form again with two heads per chunk-kernel block (one is the
  # default): run.sh times both on the same launches.
  compile --inputs "$out/like/granite" --dtype bf16 --forms chunked --heads-per-block 2 \
    --chunk-size 256 --chip "$chips" --format "$format" -o "$out/bench-two-heads.o" "$out/compile-bench.log"
  objects+=("$out/bench-two-heads.o")
  # And with a double buffer (pipeline-stages 2) rather than the default
  # ring of three stages.
  compile --inputs "$out/like/granite" --dtype bf16 --forms chunked --pipeline-stages 2 \
    --chunk-size 256 --chip "$chips" --format "$format" -o "$out/bench-two-stages.o" "$out/compile-bench.log"
  objects+=("$out/bench-two-stages.o")
  # And with C·Bᵀ computed in the chunk kernel's state blocks (cb-in-block:
  # no C·Bᵀ blocks or waits; more tensor and shared-memory work a block).
  compile --inputs "$out/like/granite" --dtype bf16 --forms chunked --cb-in-block \
    --chunk-size 256 --chip "$chips" --format "$format" -o "$out/bench-cb-in-block.o" "$out/compile-bench.log"
  objects+=("$out/bench-cb-in-block.o")
  # Invariant mode across targets (docs/overview.md "Invariant mode"): the
  # invariant serial kernel on the GPU must write the bits the CPU writes.
  # The CPU's outputs are computed here and packed; run.sh compares bytes.
  # inv-nonfinite puts an infinite x into one head of one sequence, so its
  # states overflow and y becomes NaN: the stored NaN pattern (0x7FC00000,
  # and its 16-bit truncation in y) is part of the promise.
  local inv_grid=(
    "inv-f32|f32|--H 4 --P 16 --N 48 --G 2 --seqlens 9,1,23,130 --initial mixed --update all --seed 41"
    "inv-bf16|bf16|--H 4 --P 16 --N 48 --G 2 --seqlens 9,1,23,130 --initial mixed --update all --seed 42"
    "inv-f16|f16|--H 4 --P 16 --N 48 --G 2 --seqlens 9,1,23,130 --initial mixed --update all --seed 43"
    "inv-mamba2-like|bf16|--H 8 --P 64 --N 128 --G 1 --seqlens 1,100,300 --slots 4 --seed 44"
    "inv-decode|f32|--H 4 --P 64 --N 128 --G 1 --seqlens 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 --slots 18 --initial all --seed 45"
    "inv-nonfinite|bf16|--H 4 --P 16 --N 48 --G 2 --seqlens 9,1,23,130 --initial all --update all --seed 46"
  )
  : > "$out/inv-checks.txt"
  local inv_inputs=()
  for entry in "${inv_grid[@]}"; do
    IFS='|' read -r name dtype flags <<< "$entry"
    $gen gen "$out/cases/$name/in" $flags > /dev/null
    if [ "$name" = inv-nonfinite ]; then
      $python -c "import numpy as np, sys; p = sys.argv[1] + '/x.npy'; x = np.load(p); x[3, 1, :] = np.inf; np.save(p, x)" \
        "$out/cases/$name/in"
    fi
    "$build/bin/ssd-run" --inputs "$out/cases/$name/in" --outputs "$out/cases/$name/cpu-inv" \
      --dtype "$dtype" --target cpu --invariant > /dev/null
    inv_inputs+=("$dtype:$out/cases/$name/in")
    echo "--inputs cases/$name/in --outputs cases/$name/inv --dtype $dtype --target cuda --form serial --invariant" >> "$out/cases.txt"
    echo "$name $dtype" >> "$out/inv-checks.txt"
    # Finite cases are also held to the reference's tolerance.
    if [ "$name" != inv-nonfinite ]; then
      echo "--inputs cases/$name/in --outputs cases/$name/ref --dtype $dtype --target reference" >> "$out/cases.txt"
      echo "$name $dtype inv" >> "$out/checks.txt"
    fi
  done
  # One object per dtype: variants of equal signatures are compiled once.
  for dtype in f32 f16 bf16; do
    dtype_inputs "$dtype" "${inv_inputs[@]}"
    [ ${#inputs[@]} -eq 0 ] && continue
    compile "${inputs[@]}" --dtype "$dtype" --forms serial --invariant \
      --chip "$chips" --format "$format" -o "$out/inv-$dtype.o" "$out/compile-inv.log"
    objects+=("$out/inv-$dtype.o")
  done
  # The invariant kernel timed on the benchmark signature.
  compile --inputs "$out/like/granite" --dtype bf16 --forms serial --invariant \
    --chunk-size 256 --chip "$chips" --format "$format" -o "$out/bench-invariant.o" "$out/compile-bench.log"
  objects+=("$out/bench-invariant.o")
  # The probes (tools/ssd-aot-run/probes): hand-written kernels doing one
  # mma.sync m16n8k16 bf16 per warp and shfl.sync in all four modes on
  # registers from their input, run with --call.
  for probe in mma shfl; do
    compile --module "$root/tools/ssd-aot-run/probes/$probe-probe.mlir" \
      --chip "$chips" --format "$format" -o "$out/probe-$probe.o" "$out/compile-probes.log"
    objects+=("$out/probe-$probe.o")
  done
  # The wgmma probe: four wgmma.mma_async over a shared-memory image, each
  # operand through its own descriptor; sm_90a only.
  compile --module "$root/tools/ssd-aot-run/probes/wgmma-probe.mlir" \
    --chip sm_90a --format "$format" -o "$out/probe-wgmma.o" "$out/compile-probes.log"
  objects+=("$out/probe-wgmma.o")
  /usr/lib/llvm-22/bin/clang++ "${objects[@]}" "$build/lib/libSSDAotRunner.a" "$build/lib/libSSDAotCudaDevice.a" \
    "$build/lib/libSSDCudaRuntime.a" "$build/lib/libSSDRunner.a" -ldl -o "$out/ssd-aot-run"

  # The same programs on the GPU emulator, here: a few grid cases in both
  # forms (same chunk size as the GPU's) and the probes, compiled with
  # --target gpu-emu into an emulator runner that stays here; their outputs
  # go into the payload, and run.sh compares the GPU's with them. The probes'
  # emulator outputs must also equal what probes.py derives from the PTX ISA.
  local emu="$out/.emu"
  mkdir -p "$emu" "$out/probes"
  local emu_cases=(bf16-base f32-base f16-base bf16-mamba2-like)
  : > "$out/emu-checks.txt"
  : > "$emu/cases.txt"
  for name in "${emu_cases[@]}"; do
    local dtype
    dtype=$(awk -v n="$name" '$1 == n { print $2; exit }' "$out/checks.txt")
    compile --target gpu-emu --inputs "$out/cases/$name/in" --dtype "$dtype" \
      --forms serial,chunked --chunk-size "$chunk" -o "$emu/$name.o" "$out/compile-emu.log"
    for form in serial chunked; do
      echo "--inputs $out/cases/$name/in --outputs $out/cases/$name/emu-$form --dtype $dtype --form $form --chunk-size $chunk" >> "$emu/cases.txt"
      echo "$name $dtype $form" >> "$out/emu-checks.txt"
    done
  done
  for probe in mma shfl; do
    compile --target gpu-emu --module "$root/tools/ssd-aot-run/probes/$probe-probe.mlir" \
      -o "$emu/probe-$probe.o" "$out/compile-emu.log"
  done
  compile --target gpu-emu --chip sm_90a --module "$root/tools/ssd-aot-run/probes/wgmma-probe.mlir" \
    -o "$emu/probe-wgmma.o" "$out/compile-emu.log"
  /usr/lib/llvm-22/bin/clang++ "$emu"/*.o "$build/lib/libSSDAotRunner.a" "$build/lib/libSSDAotEmulatorDevice.a" \
    "$build/lib/libSSDGPUEmulatorRuntime.so" "$build/lib/libSSDRunner.a" -Wl,-rpath,"$build/lib" -o "$emu/ssd-aot-run"
  if ! "$emu/ssd-aot-run" --cases "$emu/cases.txt" > "$out/emu.log" 2>&1; then
    cat "$out/emu.log" >&2
    echo "gpu-check: the grid cases failed on the GPU emulator" >&2
    exit 1
  fi
  # What is shipped must itself be right: each against the reference.
  while read -r name dtype form; do
    [ -d "$emu/ref-$name" ] || "$build/bin/ssd-run" --inputs "$out/cases/$name/in" --outputs "$emu/ref-$name" \
      --dtype "$dtype" --target reference > /dev/null
    if ! $gen check "$out/cases/$name/in" "$emu/ref-$name" "$out/cases/$name/emu-$form" --dtype "$dtype" >> "$out/emu.log"; then
      cat "$out/emu.log" >&2
      echo "gpu-check: $name $form on the GPU emulator does not match the reference" >&2
      exit 1
    fi
  done < "$out/emu-checks.txt"
  # mma-round and wgmma-round run the mma and wgmma kernels on values whose
  # sums round.
  for probe in mma mma-round shfl wgmma wgmma-round; do
    $probes gen "$probe" "$out/probes/$probe.in"
    $probes expect "$probe" "$out/probes/$probe.in" "$out/probes/$probe.expected"
    "$emu/ssd-aot-run" --call "module:${probe%-round}_probe" --input "$out/probes/$probe.in" \
      --output "$out/probes/$probe.emu" --output-bytes "$($probes bytes "$probe")" >> "$out/emu.log"
    if ! $probes diff "$probe" "$out/probes/$probe.in" "$out/probes/$probe.expected" "$out/probes/$probe.emu" >> "$out/emu.log"; then
      cat "$out/emu.log" >&2
      echo "gpu-check: the GPU emulator's $probe probe disagrees with the PTX ISA (probes.py)" >&2
      exit 1
    fi
  done
  rm -rf "$emu"
  cp "$root/tools/ssd-aot-run/probes/probes.py" "$out/probes.py"

  # The Mamba-2 mixer example (examples/mamba2-mixer/mixer.mlir, bf16 as
  # written) as a whole module: its scan kernels and gating kernel, linked with
  # the mixer's GPU main, which checks it against the double reference. The
  # gating's exp is a libdevice call, linked from CUDA_HOME; without a CUDA
  # toolkit the mixer is left out (run.sh says so).
  [ -f "$build/lib/libSSDMixerAotMain.a" ] || { echo "gpu-check: build the mixer example first (SSD_BUILD_EXAMPLES=ON)" >&2; exit 1; }
  local mixer_note=""
  local cuda_home="${CUDA_HOME:-/usr/local/cuda}"
  if [ -d "$cuda_home/nvvm/libdevice" ]; then
    CUDA_HOME="$cuda_home" compile \
      --module "$root/examples/mamba2-mixer/mixer.mlir" --chip "$chips" --format "$format" \
      -o "$out/mixer.o" "$out/compile-mixer.log"
    # PTX text only with isa: a fat binary's PTX is compressed, but ptxas has
    # already refused an unresolved extern call when building its cubin.
    if [ "$format" = isa ] && strings "$out/mixer.o" | grep -q '^\.extern \.func.*__nv_'; then
      echo "gpu-check: the mixer's PTX calls libdevice unresolved; set CUDA_HOME to a CUDA toolkit" >&2
      exit 1
    fi
    /usr/lib/llvm-22/bin/clang++ "$out/mixer.o" "$build/lib/libSSDMixerAotMain.a" "$build/lib/libSSDAotCudaDevice.a" \
      "$build/lib/libSSDCudaRuntime.a" "$build/lib/libSSDRunner.a" -ldl -o "$out/mixer-aot"
  else
    mixer_note="; mixer left out: no libdevice under CUDA_HOME=$cuda_home for its exp"
    echo "gpu-check: no CUDA toolkit (no $cuda_home/nvvm/libdevice): the mixer example is left out" >&2
  fi
  # The torch leg (docs/python.md, "CUDA tensors"): ssd_torch's Python
  # files (not its compiled extension, which is built against this
  # machine's torch) and a kernel library for its checks and the
  # benchmark's signature, run by a CUDA torch there. Its kernels are fat
  # binaries, so without ptxas the leg is left out.
  local torch_note=""
  if [ "$format" = fatbin ]; then
    local granite_key
    granite_key=$(sed -n 's/^ssd-compile: \(.* form=auto chunk=256\) -> .*/\1/p' "$out/compile-bench.log" | head -1)
    mkdir -p "$out/torch/ssd_torch"
    cp "$root"/python/ssd_torch/{__init__,_aot,kernels}.py "$out/torch/ssd_torch/"
    cp "$root/test/python/reference.py" "$root/scripts/gpu-check-torch.py" "$out/torch/"
    echo "$granite_key" > "$out/torch/granite-key.txt"
    local sig="H=4 P=64 G=1 N=128 D=1 dt_bias=1 has_initial_state=1"
    if ! $python "$root/python/ssd_torch/kernels.py" build -o "$out/torch/libssd_kernels.so" \
         --target cuda --chip "$chips" --format "$format" --build-dir "$build" \
         --variant "dtype=bf16 $sig update_state=1 cache_indices=i32[batch] checkpoint_slots=i32[batch,4] checkpoint_offsets=1 checkpoint_interval=32 form=auto chunk=64" \
         --variant "dtype=bf16 $sig update_state=0 cache_indices=i32[batch] pool=i8 rounding=stochastic form=auto chunk=64" \
         --variant "$granite_key" > "$out/compile-torch.log" 2>&1; then
      cat "$out/compile-torch.log" >&2
      echo "gpu-check: building the torch leg's kernel library failed" >&2
      exit 1
    fi
  else
    torch_note="; torch leg left out: no ptxas for its fat binaries"
    echo "gpu-check: no ptxas/fatbinary: the torch leg is left out" >&2
  fi
  rm -f "$out"/*.o
  cp "$root/utils/ssdgen.py" "$root/utils/ssdgen_invariance.py" "$out/"
  cp "$root/scripts/gpu-check-run.sh" "$out/run.sh"
  echo "gpu-check: packed $(du -sh "$out" | cut -f1) into $out ($format kernels for $chips$mixer_note$torch_note); run: bash $out/run.sh"
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
