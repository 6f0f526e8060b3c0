#!/usr/bin/env python3
"""Runs one model through onnxruntime and through `kiln run` on the same
seeded random inputs and reports the max absolute and relative error of each
output. Exit status 1 when an output differs beyond the tolerance (or is
missing), 2 on a tool failure.

usage: compare_with_ort.py MODEL.onnx MODEL.kiln --kiln PATH [--seed N]
       [--atol A] [--rtol R] [--workdir DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime as ort

NP_TYPES = {
    onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.FLOAT16: np.float16,
    onnx.TensorProto.INT64: np.int64, onnx.TensorProto.INT32: np.int32,
    onnx.TensorProto.INT8: np.int8, onnx.TensorProto.BOOL: np.bool_,
    onnx.TensorProto.DOUBLE: np.float64,
}


def safe_name(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


class KilnRunError(Exception):
    """`kiln run` failed: `summary` says how, `detail` has the command and its output."""

    def __init__(self, summary, detail):
        super().__init__(summary)
        self.summary = summary
        self.detail = detail


def run_kiln(kiln, artifact, inputs, names, outdir, threads=1, timeout=None):
    """Runs `kiln run ARTIFACT` and reads the outputs `names` back.

    `inputs` maps input names to arrays (saved as .npy files in `outdir`) or
    to paths of .npy files. Returns {name: array} for the outputs kiln wrote
    (a missing name was not written); raises KilnRunError when kiln run
    fails or runs longer than `timeout` seconds.
    """
    os.makedirs(outdir, exist_ok=True)
    cmd = [kiln, "run", artifact, "--output-dir", outdir, "--threads", str(threads)]
    for name, value in inputs.items():
        path = value
        if not isinstance(value, str):
            path = os.path.join(outdir, safe_name(name) + ".in.npy")
            np.save(path, value)
        cmd += ["--input", f"{name}={path}"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise KilnRunError(f"kiln run ran longer than {timeout:g} s", "    $ " + " ".join(cmd))
    if proc.returncode != 0:
        raise KilnRunError(f"kiln run exited {proc.returncode}",
                           "    $ " + " ".join(cmd) + "\n" + (proc.stderr + proc.stdout).strip())
    outputs = {}
    for name in names:
        path = os.path.join(outdir, safe_name(name) + ".npy")
        if os.path.exists(path):
            outputs[name] = np.load(path)
    return outputs


def make_inputs(model, seed, shapes):
    rng = np.random.default_rng(seed)
    initializers = {i.name for i in model.graph.initializer}
    inputs = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        dims = shapes.get(value.name) or [d.dim_value if d.HasField("dim_value") else 1
                                          for d in tensor_type.shape.dim]
        dtype = NP_TYPES[tensor_type.elem_type]
        if np.issubdtype(dtype, np.floating):
            data = rng.uniform(-1.0, 1.0, size=dims).astype(dtype)
        elif dtype == np.bool_:
            data = rng.integers(0, 2, size=dims).astype(np.bool_)
        else:
            data = rng.integers(0, 4, size=dims).astype(dtype)
        inputs[value.name] = data
    return inputs


def output_scales(model):
    """{output name: scale} of each graph output a DequantizeLinear with a
    constant scale produces (through Identity nodes): one unit of that scale
    is how far a quantized output may be from onnxruntime's."""
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    producers = {o: n for n in model.graph.node for o in n.output}
    scales = {}
    for out in model.graph.output:
        node = producers.get(out.name)
        while node is not None and node.op_type == "Identity":
            node = producers.get(node.input[0])
        if node is not None and node.op_type == "DequantizeLinear" and node.input[1] in inits:
            scales[out.name] = float(np.max(inits[node.input[1]]))
    return scales


def cosine(got, want):
    """Cosine similarity of two arrays (in f64); 1 for two all-zero arrays."""
    g = got.astype(np.float64).ravel()
    w = want.astype(np.float64).ravel()
    denom = np.linalg.norm(g) * np.linalg.norm(w)
    if denom == 0.0:
        return 1.0 if np.array_equal(g, w) else 0.0
    return float(g @ w / denom)


def compare(model_path, kiln_model, kiln, seed=0, atol=1e-4, rtol=1e-3,
            workdir=None, threads=1, inputs=None, quiet=False):
    model = onnx.load(model_path)
    if inputs is None:
        inputs = make_inputs(model, seed, {})
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(model_path, options,
                                   providers=["CPUExecutionProvider"])
    expected = session.run(None, inputs)
    names = [o.name for o in session.get_outputs()]
    workdir = workdir or tempfile.mkdtemp(prefix="kiln-e2e-")
    try:
        outputs = run_kiln(kiln, kiln_model, inputs, names, os.path.join(workdir, "out"),
                           threads)
    except KilnRunError as e:
        print(f"{e.summary}:\n{e.detail}")
        return None
    results = []
    for name, want in zip(names, expected):
        got = outputs.get(name)
        if got is None:
            results.append((name, None, None, False))
            continue
        want = np.asarray(want)
        if got.shape != want.shape:
            results.append((name, float("inf"), float("inf"), False))
            continue
        if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
            bad = int(np.sum(got != want))
            results.append((name, float(bad), 0.0, bad == 0))
            continue
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        both_nan = np.isnan(w) & np.isnan(g)
        diff = np.where(both_nan, 0.0, np.abs(g - w))
        diff = np.where(np.isinf(w) & (g == w), 0.0, diff)
        abs_err = float(np.max(diff)) if diff.size else 0.0
        rel_err = float(np.max(diff / (np.abs(w) + 1e-6))) if diff.size else 0.0
        ok = bool(np.all(diff <= atol + rtol * np.abs(np.nan_to_num(w))))
        results.append((name, abs_err, rel_err, ok))
    return results


def report(results):
    """Prints one line per output of compare()'s results; True when all match."""
    ok = True
    for name, abs_err, rel_err, good in results:
        if abs_err is None:
            print(f"{name}: MISSING")
        else:
            print(f"{name}: max abs err {abs_err:.3g}, max rel err {rel_err:.3g} "
                  f"{'ok' if good else 'MISMATCH'}")
        ok &= bool(good)
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("onnx_model")
    parser.add_argument("kiln_model")
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--workdir")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    results = compare(args.onnx_model, args.kiln_model, args.kiln, args.seed,
                      args.atol, args.rtol, args.workdir, args.threads)
    if results is None:
        return 2
    return 0 if report(results) else 1


if __name__ == "__main__":
    sys.exit(main())
