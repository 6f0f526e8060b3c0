#!/usr/bin/env python3
"""Transposes that move the innermost dim (TransposeKernel.h: 16 x 16
register blocks, the edges as loops) end to end, exactly equal to
numpy.transpose (the definition; onnxruntime's Transpose is a copy too).

Models, one Transpose each: BERT's K split-heads [1,128,12,64] perm
(0,2,3,1); a channels-last edge [1,64,56,56] (0,2,3,1) (partial blocks
of 8 columns: masked loads) and back [1,56,56,64] (0,3,1,2) (masked
stores); [75,70] (1,0) (partial blocks on both dims and a corner); odd
dims [3,37,5,50] (0,3,2,1) and [33,47] (1,0), whose blocks would be
mostly padding, which stay loops; exact blocks [2,16,3,32] (0,3,2,1);
int32 [20,40] (1,0); dims below a block [2,3,4] (2,0,1), loops. Each for the host, x86-64-v4 (where the host has
AVX-512) and x86-64-v3, also on 2 threads for the host.

Prints one line per check and ends with 'N passed, N failed, N not run on
this host'; exit status 1 when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/transpose_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_ort  # noqa: E402
from conv_checks import Checks, parse_args, save_model, checked_run  # noqa: E402

CASES = [
    ("k_split_heads", [1, 128, 12, 64], [0, 2, 3, 1], TensorProto.FLOAT),
    ("to_nhwc", [1, 64, 56, 56], [0, 2, 3, 1], TensorProto.FLOAT),
    ("to_nchw", [1, 56, 56, 64], [0, 3, 1, 2], TensorProto.FLOAT),
    ("odd", [3, 37, 5, 50], [0, 3, 2, 1], TensorProto.FLOAT),
    ("matrix", [33, 47], [1, 0], TensorProto.FLOAT),
    ("matrix_edges", [75, 70], [1, 0], TensorProto.FLOAT),
    ("exact_blocks", [2, 16, 3, 32], [0, 3, 2, 1], TensorProto.FLOAT),
    ("int32", [20, 40], [1, 0], TensorProto.INT32),
    ("small", [2, 3, 4], [2, 0, 1], TensorProto.FLOAT),
]


def make_model(path, shape, perm, dtype):
    out = [shape[p] for p in perm]
    graph = helper.make_graph(
        [helper.make_node("Transpose", ["x"], ["y"], perm=perm, name="transpose")],
        "transpose", [helper.make_tensor_value_info("x", dtype, shape)],
        [helper.make_tensor_value_info("y", dtype, out)])
    return save_model(graph, path)


def main():
    args = parse_args(__doc__.splitlines()[0], "kiln-transpose-")
    check = Checks()
    rng = np.random.default_rng(3)
    configs = [("native", ["--cpu=native"]), ("x86-64-v4", ["--cpu=x86-64-v4"]),
               ("x86-64-v3", ["--cpu=x86-64-v3"])]
    for name, shape, perm, dtype in CASES:
        model = make_model(os.path.join(args.workdir, name + ".onnx"), shape, perm, dtype)
        if dtype == TensorProto.INT32:
            x = rng.integers(-2**31, 2**31 - 1, shape, dtype=np.int32)
        else:
            x = rng.normal(0, 1, shape).astype(np.float32)
        want = np.transpose(x, perm)
        for label, flags in configs:
            tag = f"{name} {label}"
            _, got = checked_run(check, args, model, flags, tag, {"x": x}, ["y"])
            if got is None:
                continue
            y = got.get("y")
            check(y is not None and y.shape == want.shape and np.array_equal(y, want),
                  f"[{tag}] y {want.shape}: equal to the transpose")
            if label == "native":
                artifact = os.path.join(args.workdir, tag.replace(" ", "_") + ".kiln")
                got2 = compare_with_ort.run_kiln(args.kiln, artifact, {"x": x}, ["y"],
                                                 artifact + "_out2", threads=2)
                y2 = got2.get("y")
                check(y2 is not None and np.array_equal(y2, want),
                      f"[{tag} 2 threads] y: equal to the transpose")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
