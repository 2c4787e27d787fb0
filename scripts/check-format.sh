#!/usr/bin/env bash
# Fails when any tracked C or C++ file differs from what clang-format (the
# LLVM style of .clang-format) would write. Run by scripts/test.sh before the
# build, so a formatting slip fails CI in seconds rather than after the tests.
# To fix: clang-format-22 -i FILE... (or scripts/check-format.sh --fix).
set -euo pipefail
cd "$(dirname "$0")/.."
format=clang-format-22
command -v "$format" >/dev/null || format=/usr/lib/llvm-22/bin/clang-format
mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h')
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
if ! "$format" --dry-run --Werror "${files[@]}"; then
  echo "check-format: the files above are not clang-formatted; run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
