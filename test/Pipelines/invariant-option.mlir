// Every pipeline takes `invariant` and hands it to ssd-select-form (false
// unless given).
// RUN: ssd-opt %s --ssd-to-cpu="invariant=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ON
// RUN: ssd-opt %s --ssd-to-gpu-emulator="invariant=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ON
// RUN: ssd-opt %s --ssd-to-nvvm="invariant=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ON
// RUN: ssd-opt %s --ssd-to-cpu --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: ssd-opt %s --ssd-to-nvvm --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF

// ON: ssd-select-form{{[{].*}} invariant=true
// OFF: ssd-select-form{{[{].*}} invariant=false

func.func @empty() {
  return
}
