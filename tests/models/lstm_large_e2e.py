#!/usr/bin/env python3
"""End-to-end check of a kernel whose scratch exceeds the kernel stack.

Writes a 2-layer ONNX LSTM (hidden 512, input 512, seq 64, batch 1; seeded
random weights, built with onnx.helper), compiles it with `kilnc --time`,
runs it with `kiln run` and with onnxruntime on the same seeded inputs and
compares every output (atol 1e-3 + rtol 1e-2, as real_models_e2e.py).

Each layer's input projection (x [seq*batch, 512] @ W^T [512, 2048],
accumulated into the biases, which are an input of the kernel) runs as one
workgroup that needs a 64x2048 f32 accumulator: 512 KiB of scratch, more
than the kernel stack budget. It comes from a scratch binding that the host
plan places in the arena (docs/design.md, "The CPU back end, as built").
Before that binding existed, kilnc refused the model ("needs 524288 bytes of
scratch inside one workgroup, more than the kernel stack allows"). With seq
16 the accumulator is 128 KiB and fits the stack, hence seq 64.

Usage (with the test venv that scripts/setup.sh creates):

    ~/.cache/kiln/venv/bin/python tests/models/lstm_large_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln

The Bazel test is //tests/models:lstm_large_e2e.
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import compare_with_ort  # noqa: E402

SEQ, BATCH, INPUT, HIDDEN, LAYERS = 64, 1, 512, 512, 2


def make_model(path, seed=512):
    """Two stacked unidirectional LSTM nodes, as torch.nn.LSTM(512, 512, 2) exports."""
    rng = np.random.default_rng(seed)
    s = 1 / math.sqrt(HIDDEN)
    nodes, inits = [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    x = "input"
    outputs = []
    for layer in range(LAYERS):
        width = INPUT if layer == 0 else HIDDEN
        w = init(f"W_{layer}", rng.uniform(-s, s, (1, 4 * HIDDEN, width)).astype(np.float32))
        r = init(f"R_{layer}", rng.uniform(-s, s, (1, 4 * HIDDEN, HIDDEN)).astype(np.float32))
        b = init(f"B_{layer}", rng.uniform(-s, s, (1, 8 * HIDDEN)).astype(np.float32))
        h0 = init(f"h0_{layer}", rng.uniform(-0.5, 0.5, (1, BATCH, HIDDEN)).astype(np.float32))
        c0 = init(f"c0_{layer}", rng.uniform(-0.5, 0.5, (1, BATCH, HIDDEN)).astype(np.float32))
        last = layer == LAYERS - 1
        y, y_h, y_c = (("Y", "Y_h", "Y_c") if last else
                       (f"y_{layer}", f"y_h_{layer}", f"y_c_{layer}"))
        nodes.append(helper.make_node("LSTM", [x, w, r, b, "", h0, c0], [y, y_h, y_c],
                                      name=f"lstm_{layer}", hidden_size=HIDDEN))
        if not last:
            # Y is [seq, num_directions, batch, hidden]: drop the direction axis.
            axes = init(f"axes_{layer}", np.array([1], np.int64))
            x = f"x_{layer + 1}"
            nodes.append(helper.make_node("Squeeze", [y, axes], [x], name=f"squeeze_{layer}"))
    vi = helper.make_tensor_value_info
    graph = helper.make_graph(
        nodes, "lstm_2x512", [vi("input", TensorProto.FLOAT, [SEQ, BATCH, INPUT])],
        [vi("Y", TensorProto.FLOAT, [SEQ, 1, BATCH, HIDDEN]),
         vi("Y_h", TensorProto.FLOAT, [1, BATCH, HIDDEN]),
         vi("Y_c", TensorProto.FLOAT, [1, BATCH, HIDDEN])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="kiln-tests")
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--atol", type=float, default=1e-3)
    parser.add_argument("--rtol", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workdir", help="keep the model and artifact here (default: a temp dir)")
    args = parser.parse_args()

    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-lstm-large-")
    os.makedirs(workdir, exist_ok=True)
    model = make_model(os.path.join(workdir, "lstm_2x512.onnx"))
    artifact = os.path.join(workdir, "lstm_2x512.kiln")
    proc = subprocess.run([args.kilnc, model, "-o", artifact, "--time"],
                          capture_output=True, text=True, errors="replace")
    sys.stdout.write(proc.stdout)
    sys.stdout.write(proc.stderr)
    if proc.returncode != 0:
        print(f"FAIL: kilnc exited {proc.returncode}")
        return 1
    os.makedirs(os.path.join(workdir, "run"), exist_ok=True)
    # Which kernels got a scratch binding, and how large (for the log; the
    # mechanism itself is checked by tests/lit/codegen/cpu-codegen-scratch.mlir).
    llvm = subprocess.run([args.kilnc, model, "--emit=llvm", "-o", "-"],
                          capture_output=True, text=True, errors="replace")
    scratch = re.findall(r'kiln.kernel = "(\w+)".*?kiln.scratch_bytes = (\d+)', llvm.stdout)
    for kernel, size in scratch:
        print(f"{kernel}: scratch binding of {size} bytes")
    if not scratch:
        print("note: no kernel uses a scratch binding (this test no longer exercises it)")
    results = compare_with_ort.compare(model, artifact, args.kiln, seed=args.seed,
                                       atol=args.atol, rtol=args.rtol,
                                       workdir=os.path.join(workdir, "run"),
                                       threads=args.threads)
    if results is None:
        print("FAIL: kiln run failed")
        return 1
    ok = compare_with_ort.report(results)
    print("OK: matches onnxruntime" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
