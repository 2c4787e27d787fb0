// Form, chip and format are enum options: the option parser rejects any
// other value and names the valid ones, before any pass runs, and a
// pipeline prints its enum values back by name.
// RUN: not ssd-opt %s --ssd-to-cpu="form=fast" 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not ssd-opt %s --ssd-to-nvvm="form=fast" 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not ssd-opt %s --ssd-to-nvvm="chip=sm_77" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not ssd-opt %s --ssd-to-gpu-emulator="chip=sm_77" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not ssd-opt %s --ssd-gpu-lower-to-emulator="chip=sm_77" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not ssd-opt %s --pass-pipeline="builtin.module(ssd-to-nvvm{format=ptx})" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not ssd-opt %s --ssd-to-gpu-emulator="format=isa" 2>&1 | FileCheck %s --check-prefix=EMU-FORMAT
// RUN: ssd-opt %s --ssd-to-gpu-emulator="chip=sm_86 form=serial" --dump-pass-pipeline -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PRINT
// RUN: ssd-opt %s --ssd-to-gpu-emulator="format=llvm" --dump-pass-pipeline -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PRINT-LLVM

// FORM: for the --form option: unknown value 'fast' (expected auto, chunked or serial)
// CHIP: for the --chip option: unknown value 'sm_77' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)
// FORMAT: for the --format option: unknown value 'ptx' (expected isa, bin or fatbin)
// EMU-FORMAT: for the --format option: unknown value 'isa' (expected bin or llvm)
// PRINT: ssd-select-form{chunk-size=256 form=serial
// PRINT: nvvm-attach-target{{.*}}chip=sm_86 {{.*}}features=+ptx71
// PRINT: gpu-module-to-binary{format=bin
// PRINT-LLVM: gpu-module-to-binary{format=llvm

func.func @empty() {
  return
}
