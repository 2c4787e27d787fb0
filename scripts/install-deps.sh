#!/usr/bin/env bash
# Installs, as root on Debian 12, whatever the build and the tests need and the
# machine lacks. Does nothing (and needs no network) when all is present.
set -euo pipefail

packages=(
  cmake ninja-build
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 lld-22
  libomp-22-dev   # OpenMP runtime for the CPU pipeline's parallel loops
  libclang-rt-22-dev   # compiler-rt: builtins linked into emulated GPU kernels,
                       # the sanitizer and libFuzzer runtimes (build-asan)
  libboost-context-dev # fibers: one per GPU thread in the GPU emulator
  libgtest-dev    # GoogleTest: the unit tests of unittests/ (check-ssd)
  python3-numpy   # test input generation and comparison (/usr/bin/python3)
  python3-torch libtorch-dev # the PyTorch op and ssd_torch (docs/python.md;
                             # about 800 MB): TorchConfig.cmake, the library
  python3-pytest  # the ssd_torch test suite (test/python)
  clang-format-22 # scripts/check-format.sh: the C++ in LLVM style
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages and not root; run as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
