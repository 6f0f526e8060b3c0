#!/usr/bin/env python3
"""//examples/custom_op:doc_test: docs/custom-ops.md cannot rot.

The page uses the markers of examples/custom_pass/doc_test.py (included
regions must equal the example's files; run blocks run from a copy of the
repository root with the built tools under bazel-bin/; output blocks must
equal what the run block before printed). This runs that checker with the
files this page uses.

usage: custom_op_doc_test.py --doc docs/custom-ops.md --root DIR
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "custom_pass"))
import doc_test  # noqa: E402  (examples/custom_pass/doc_test.py)

doc_test.SOURCES = [
    "examples/custom_op/BUILD",
    "examples/custom_op/make_swish_model.py",
    "examples/custom_op/run_swish.cc",
    "examples/custom_op/swish_kernel.c",
    "examples/custom_op/swish_kernel_library.c",
    "examples/custom_op/swish_kernel_plugin.cpp",
    "examples/custom_op/swish_lowering_plugin.cpp",
    "examples/custom_op/swish_shape.h",
]
doc_test.BUILT = [
    "examples/custom_op/libSwishKernelPlugin.so",
    "examples/custom_op/libSwishLoweringPlugin.so",
    "examples/custom_op/libswish_kernels.so",
    "tools/kilnc/kilnc",
    "tools/kiln/kiln",
]

if __name__ == "__main__":
    doc_test.main()
