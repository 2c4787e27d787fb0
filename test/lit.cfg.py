# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SSD"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ssd_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.ssd_tools_dir, config.llvm_tools_dir]
tools = ["ssd-opt", "ssd-run", "ssd-runner", "ssd-compile", "ssd-bench",
         "ssd-capi-test"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
config.substitutions.append(("%ssd_obj_root", config.ssd_obj_root))

# Kernels compiled for the GPU emulator are kept in the build tree
# (lib/Target/GPUEmulator/ObjectCache.h): the block-order variants of
# test/numeric's gpu-emu tests and the RUN lines that compile a signature
# again reuse them instead of running the host backend and the linker each
# time. The key includes the compiler binary's identity, so a rebuilt tool
# compiles afresh; objects unused for two days are pruned here.
import time

emulator_cache = os.path.join(config.ssd_obj_root, "test", "gpu-emulator-cache")
config.environment["SSD_GPU_EMULATOR_CACHE"] = emulator_cache
if os.path.isdir(emulator_cache):
    for entry in os.scandir(emulator_cache):
        try:
            if time.time() - entry.stat().st_mtime > 2 * 86400:
                os.remove(entry.path)
        except OSError:
            pass

# Test inputs are generated and outputs compared by utils/ssdgen.py, which
# needs numpy: Debian's python3-numpy serves /usr/bin/python3.
python_with_numpy = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
config.substitutions.append(
    ("%ssdgen", python_with_numpy + " " + os.path.join(config.ssd_src_root, "utils", "ssdgen.py")))
# %edit_npy DIR NAME STATEMENT: edit one array of an ssdgen input folder in
# place, for problems ssdgen does not generate (numeric/Inputs/edit-npy.py).
config.substitutions.append(
    ("%edit_npy", python_with_numpy + " " +
     os.path.join(config.ssd_src_root, "test", "numeric", "Inputs", "edit-npy.py")))
config.substitutions.append(("%python", python_with_numpy))

# test/embedding (docs/embedding.md): the stock mlir-opt with SSDPlugin.so,
# the Mamba-2 mixer example runner, and the CMake package consumed by
# examples/consumer (configured with cmake, built with ninja, with the
# compiler the project was built with).
import shutil

config.substitutions.append(("%ssd_src_root", config.ssd_src_root))

def _cmake_on(value):
    return str(value).upper() in ("ON", "1", "TRUE", "YES", "Y")

# Features for the targets this build was configured to produce, from the
# CMake options, not from the files: with SSD_BUILD_PLUGIN / SSD_BUILD_EXAMPLES
# on (the default) a test that needs SSDPlugin.so, mixer-run or the mixer's
# AOT main runs, and fails if the target is missing; only a build configured
# without them skips those tests.
stock_mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")
ssd_plugin = os.path.join(config.ssd_obj_root, "lib", "SSDPlugin.so")
if _cmake_on(config.ssd_build_plugin):
    config.available_features.add("ssd-plugin")
config.substitutions.append(("%stock_mlir_opt", stock_mlir_opt))
config.substitutions.append(("%ssd_plugin", ssd_plugin))
if _cmake_on(config.ssd_build_examples):
    config.available_features.add("mixer-run")
    config.available_features.add("mixer-aot")
llvm_config.add_tool_substitutions(["mixer-run"], [config.ssd_tools_dir])

# test/python: the ssd_torch package (docs/python.md), built when CMake
# found Torch; a build that has it runs the pytest suite with Debian's
# python3-torch and python3-pytest.
if _cmake_on(config.ssd_torch_built):
    config.available_features.add("torch")

# Sanitizer builds (-DSSD_SANITIZE=address,undefined, docs/testing.md): the
# feature `asan` marks the few tests that cannot run there, each with its
# reason in the test. Everything linked or built by a test (AOT executables,
# the examples/consumer project) gets the same -fsanitize flags, since the
# project's static libraries it links are instrumented. Allocation failure is
# an outcome the code handles (the reference, .npy reading), so the
# allocator returns null instead of reporting it; leaks are not checked (the
# tools exit without tearing down LLVM's and MLIR's global state).
ssd_sanitize = config.ssd_sanitize.strip()
sanitize_flags = ""
if ssd_sanitize:
    sanitize_flags = "-fsanitize=" + ssd_sanitize
    if "address" in ssd_sanitize.split(","):
        config.available_features.add("asan")
    config.environment["ASAN_OPTIONS"] = (
        "allocator_may_return_null=1:detect_leaks=0:abort_on_error=0")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    config.environment["CFLAGS"] = sanitize_flags
    config.environment["CXXFLAGS"] = sanitize_flags
    config.environment["LDFLAGS"] = sanitize_flags
    # test/numeric leaves out its gpu-emu tests and some of its cpu ones
    # (test/numeric/lit.local.cfg says why).

# CPU feature levels the numeric grid runs at besides the host
# (test/numeric/cpu-level-*.test): `x86_64` on an x86-64 host (the SSE2
# baseline runs on any of them), `x86-64-v3` when the host has every feature
# of that level (AVX2, FMA, BMI1/2, F16C, MOVBE; LZCNT is not always listed
# in /proc/cpuinfo, and ssd-run refuses a level the host lacks anyway).
import platform
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86_64")
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            flags = next((line.split(":", 1)[1].split()
                          for line in cpuinfo if line.startswith("flags")), [])
    except OSError:
        flags = []
    if {"avx2", "fma", "bmi1", "bmi2", "f16c", "movbe"} <= set(flags):
        config.available_features.add("x86-64-v3")

# The compilers CMake chose for the project; the tests that build something
# (consumer.test with cmake and ninja, the AOT executables) need it, and the
# build needs cmake and ninja: all required packages, so no feature guards
# them (a missing one fails those tests).
ssd_cxx_compiler = config.ssd_cxx_compiler
config.available_features.add("cmake-ninja")
config.substitutions.append(("%cmake", shutil.which("cmake") or "cmake"))
config.substitutions.append(("%ninja", shutil.which("ninja") or "ninja"))
config.substitutions.append(("%ssd_cxx_compiler", ssd_cxx_compiler))
# Its C compiler too (the consumer's C host links libSSDCAPI.so, which a
# sanitizer build instruments with that compiler's runtime).
config.substitutions.append(("%ssd_c_compiler", config.ssd_c_compiler))

# GPU features, detected: `cuda` when a CUDA driver with at least one device
# is present (the GPU numeric tests need it), `ptxas` when the CUDA toolkit's
# assembler is found (PTX assembly and register/spill checks need it). Tests
# needing either are reported unsupported elsewhere.
def _has_cuda_device():
    import ctypes
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        return lib.cuInit(0) == 0 and lib.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
    except OSError:
        return False

def _find_ptxas():
    import shutil
    for root in [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")] + ["/usr/local/cuda"]:
        if root and os.path.exists(os.path.join(root, "bin", "ptxas")):
            return os.path.join(root, "bin", "ptxas")
    return shutil.which("ptxas")

if _has_cuda_device():
    config.available_features.add("cuda")
_ptxas = _find_ptxas()
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
    # The toolkit's bin directory, for tools that find ptxas and fatbinary on
    # PATH (ssd-compile --format bin|fatbin); `fatbinary` when it is there too.
    _cuda_bin = os.path.dirname(_ptxas)
    config.substitutions.append(("%cuda_bin", _cuda_bin))
    if os.path.exists(os.path.join(_cuda_bin, "fatbinary")):
        config.available_features.add("fatbinary")
config.substitutions.append(
    ("%extract_ptx", python_with_numpy + " " + os.path.join(config.ssd_src_root, "utils", "extract-ptx.py")))
config.substitutions.append(
    ("%gpu_model", python_with_numpy + " " + os.path.join(config.ssd_src_root, "utils", "gpu-model.py")))
config.substitutions.append(
    ("%access_widths", python_with_numpy + " " + os.path.join(config.ssd_src_root, "utils", "access-widths.py")))

# Ahead-of-time executables are linked by the host C++ compiler the project
# was configured with (clang++ from LLVM 22 by default).
config.substitutions.append(("%ssd_lib", os.path.join(config.ssd_obj_root, "lib")))
_host_cxx = "/usr/lib/llvm-22/bin/clang++"
config.available_features.add("host-cxx")
config.substitutions.append(
    ("%host_cxx", _host_cxx + (" " + sanitize_flags if sanitize_flags else "")))


# The GPU emulator (docs/gpu.md): ssd-runner runs modules lowered by
# --ssd-gpu-lower-to-emulator or --ssd-to-gpu-emulator on it; the runner
# utilities give them printMemrefF32 and friends.
config.substitutions.append(
    ("%mlir_runner_utils", os.path.join(config.llvm_lib_dir, "libmlir_runner_utils.so")))
config.substitutions.append(
    ("%mlir_c_runner_utils", os.path.join(config.llvm_lib_dir, "libmlir_c_runner_utils.so")))
# Modules from --ssd-to-cpu with openmp=true call the OpenMP runtime.
config.substitutions.append(("%libomp", os.path.join(config.llvm_lib_dir, "libomp.so")))
config.substitutions.append(
    ("%ssd_emulator_runtime", os.path.join(config.ssd_obj_root, "lib", "libSSDGPUEmulatorRuntime.so")))
