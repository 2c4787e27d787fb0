#!/usr/bin/env bash
# Installs what is missing, builds, and runs the project's main job on an
# example: a mixed prefill/decode launch at Mamba2-2.7B shapes (H=80 P=64
# N=128 G=1, bf16) compiled through --ssd-to-cpu and run on this CPU, then
# checked against the double-precision reference target.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 utils/ssdgen.py gen "$work/in" --H 80 --P 64 --N 128 --G 1 \
  --seqlens 1,1,1,1,37,300,0,5 --initial mixed --update mixed --seed 7 >/dev/null

echo "== the op ssd-run compiles (T and batch dynamic):"
build/bin/ssd-run --inputs "$work/in" --dtype bf16 --print-ir | grep 'ssd.chunk_scan_varlen'
echo "== run on the CPU, and on the reference:"
build/bin/ssd-run --inputs "$work/in" --outputs "$work/cpu" --dtype bf16 --target cpu
build/bin/ssd-run --inputs "$work/in" --outputs "$work/ref" --dtype bf16 --target reference
echo "== agreement with the reference (docs/overview.md tolerance for bf16: 3e-2):"
/usr/bin/python3 utils/ssdgen.py check "$work/in" "$work/ref" "$work/cpu" --dtype bf16

# On a machine with an NVIDIA GPU and driver, the same launch on the GPU.
if [ -e /dev/nvidiactl ] || command -v nvidia-smi > /dev/null 2>&1; then
  echo "== the same launch on the GPU (--ssd-to-nvvm, PTX JIT-loaded by the driver):"
  if build/bin/ssd-run --inputs "$work/in" --outputs "$work/gpu" --dtype bf16 --target cuda; then
    /usr/bin/python3 utils/ssdgen.py check "$work/in" "$work/ref" "$work/gpu" --dtype bf16
  fi
fi
