# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SSD"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ssd_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.ssd_tools_dir, config.llvm_tools_dir]
tools = ["ssd-opt", "ssd-run", "ssd-reference-test"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
config.substitutions.append(("%ssd_obj_root", config.ssd_obj_root))

# Test inputs are generated and outputs compared by utils/ssdgen.py, which
# needs numpy: Debian's python3-numpy serves /usr/bin/python3.
python_with_numpy = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
config.substitutions.append(
    ("%ssdgen", python_with_numpy + " " + os.path.join(config.ssd_src_root, "utils", "ssdgen.py")))
