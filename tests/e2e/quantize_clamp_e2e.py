#!/usr/bin/env python3
"""Relu / Clip folded into the next QuantizeLinear, exactly as onnxruntime.

kiln-fold-qdq drops a Relu or Clip whose lower bound quantizes to the
bottom of the output type (-128, i.e. uint8 0) and keeps at most an i8
clip for an upper bound below the top (QdqFolding.h,
foldClampIntoQuantize). Every model here is Relu/Clip -> QuantizeLinear,
alone or after an integer contraction (ConvInteger, depthwise ConvInteger,
MatMulInteger -> Cast -> Mul by a scale; a 0 among the depthwise weights, i.e. Kiln's
-128), so onnxruntime computes the same
f32 values op by op (ORT_DISABLE_ALL) and every (u)int8 output must equal
onnxruntime's exactly, on x86-64-v3 (vpmaddubsw / vpmaddwd) and native
builds. The inputs of the elementwise models are the hard cases: exact
ties k.5 of the scale, values just beside them, both clip bounds and their
neighbours, +-0, +-inf, +-1e30 and subnormals.

Each model also states what the fold must do, checked on `--emit=kiln`:
"gone" (no f32 relu/clip left), "i8 clip" (an i8 kiln.clip remains) or
"kept" (the f32 clamp stays: a zero point above the bottom, a per-channel
upper bound that differs between channels).

Prints one line per (model, configuration) and ends with
'N passed, N failed'; exit status 1 when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/quantize_clamp_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_ort  # noqa: E402

CONFIGS = [
    ("native", ["--cpu=native"]),
    ("x86-64-v3", ["--cpu=x86-64-v3"]),
]


def clamp_node(kind, src, dst, low=None, high=None):
    """A Relu, or a Clip with constant bounds (opset 13 inputs)."""
    if kind == "relu":
        return [helper.make_node("Relu", [src], [dst])], []
    inits, names = [], [src]
    for bound, tag in ((low, "lo"), (high, "hi")):
        if bound is None:
            names.append("")
            continue
        inits.append(numpy_helper.from_array(np.array(bound, np.float32), f"{dst}_{tag}"))
        names.append(f"{dst}_{tag}")
    while names[-1] == "":
        names.pop()
    return [helper.make_node("Clip", names, [dst])], inits


def quantize_node(src, scale, zero, dtype, axis=None):
    zero_np = np.array(zero, dtype)
    inits = [numpy_helper.from_array(np.array(scale, np.float32), "y_scale"),
             numpy_helper.from_array(zero_np, "y_zero")]
    attrs = {} if axis is None else {"axis": axis}
    node = helper.make_node("QuantizeLinear", [src, "y_scale", "y_zero"], ["y"], **attrs)
    return [node], inits


def elementwise(name, kind, low, high, scale, zero, dtype, shape, expect, axis=None):
    nodes, inits = clamp_node(kind, "x", "c", low, high)
    qn, qi = quantize_node("c", scale, zero, dtype, axis)
    out_type = TensorProto.UINT8 if dtype == np.uint8 else TensorProto.INT8
    graph = helper.make_graph(
        nodes + qn, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", out_type, shape)], inits + qi)
    return name, graph, "float", expect, (kind, low, high, scale, zero)


def contraction(name, op, x_shape, w_shape, group, kind, low, high, scale, zero,
                seed, expect):
    """An integer contraction -> Cast -> Mul by a per-tensor scale ->
    Relu/Clip -> QuantizeLinear (uint8). onnxruntime's ConvInteger takes
    uint8 operands only: x with a zero point of 128 and weights 0..255
    (Kiln's biased i8 -128..127, 0 among them); MatMulInteger takes int8."""
    rng = np.random.default_rng(seed)
    inits = [numpy_helper.from_array(np.array(0.0007, np.float32), "acc_scale")]
    if op == "conv":
        w = rng.integers(0, 256, size=w_shape).astype(np.uint8)
        w.flat[0], w.flat[1] = 0, 255
        k = w_shape[-1]
        inits += [numpy_helper.from_array(w, "w"),
                  numpy_helper.from_array(np.array(128, np.uint8), "x_zero")]
        contract = helper.make_node("ConvInteger", ["x", "w", "x_zero"], ["acc"],
                                    group=group, pads=[k // 2] * 4)
        y_shape = [x_shape[0], w_shape[0]] + x_shape[2:]
        x_type = TensorProto.UINT8
    else:
        w = rng.integers(-127, 128, size=w_shape).astype(np.int8)
        w.flat[0], w.flat[1] = 127, -127
        inits.append(numpy_helper.from_array(w, "w"))
        contract = helper.make_node("MatMulInteger", ["x", "w"], ["acc"])
        y_shape = [x_shape[0], w_shape[1]]
        x_type = TensorProto.INT8
    nodes = [contract,
             helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["accf", "acc_scale"], ["v"])]
    cn, ci = clamp_node(kind, "v", "c", low, high)
    qn, qi = quantize_node("c", scale, zero, np.uint8)
    graph = helper.make_graph(
        nodes + cn + qn, name,
        [helper.make_tensor_value_info("x", x_type, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, y_shape)],
        inits + ci + qi)
    return name, graph, "int", expect, None


def models():
    u8, i8 = np.uint8, np.int8
    s6 = 6.0 / 255.0
    shape = [1, 3, 16, 17]
    return [
        # Relu -> uint8 with zero point 0: q(0) is the bottom, no top.
        elementwise("relu_u8", "relu", None, None, 0.05, 0, u8, shape, "gone"),
        # ReLU6 -> the [0, 6] range: q(6) = 255, the whole clip goes.
        elementwise("clip6_u8", "clip", 0.0, 6.0, s6, 0, u8, shape, "gone"),
        # An upper bound inside the range stays as an i8 clip (q(2) = 85).
        elementwise("clip2_u8", "clip", 0.0, 2.0, s6, 0, u8, shape, "i8 clip"),
        # Clip without a max.
        elementwise("clip_low_only_u8", "clip", 0.0, None, 0.03, 0, u8, shape, "gone"),
        # int8 output: q(-1) = -128 at scale 1/128 (the top saturates too).
        elementwise("clip_pm1_i8", "clip", -1.0, 1.0, 1.0 / 128, 0, i8, shape, "gone"),
        # q(-1) = -127 at scale 1/127: the lower bound is real, kept.
        elementwise("clip_pm1_s127_i8", "clip", -1.0, 1.0, 1.0 / 127, 0, i8, shape, "kept"),
        # A zero point above the bottom: q(0) = 10, kept.
        elementwise("clip6_zp10_u8", "clip", 0.0, 6.0, 0.05, 10, u8, shape, "kept"),
        # Per-channel scales: every q(6) saturates, gone.
        elementwise("clip6_axis_u8", "clip", 0.0, 6.0, [s6, s6 / 2, s6 / 3], [0, 0, 0], u8,
                    shape, "gone", axis=1),
        # Per-channel: q(6) = 255, 127, 85 differ, kept.
        elementwise("clip6_axis_mixed_u8", "clip", 0.0, 6.0, [s6, 2 * s6, 3 * s6], [0, 0, 0],
                    u8, shape, "kept", axis=1),
        # In contraction epilogues (1x1 conv, depthwise 3x3 with a -128
        # weight, matmul with an odd K).
        contraction("conv1x1_relu", "conv", [1, 24, 9, 11], [40, 24, 1, 1], 1,
                    "relu", None, None, 0.02, 0, 3, "gone"),
        contraction("dw3x3_clip6", "conv", [1, 16, 13, 15], [16, 1, 3, 3], 16,
                    "clip", 0.0, 6.0, s6, 0, 4, "gone"),
        contraction("dw3x3_clip2", "conv", [1, 16, 13, 15], [16, 1, 3, 3], 16,
                    "clip", 0.0, 2.0, s6, 0, 5, "i8 clip"),
        contraction("matmul_clip6", "matmul", [37, 53], [53, 29], 1,
                    "clip", 0.0, 6.0, s6, 0, 6, "gone"),
    ]


def float_inputs(shape, params):
    """Ties, their neighbours, the clip bounds and special values first,
    then a random spread over twice the quantized range."""
    kind, low, high, scale, zero = params
    s = float(np.max(scale))
    rng = np.random.default_rng(7)
    specials = [0.0, -0.0, np.inf, -np.inf, 1e30, -1e30, 1e-45, -1e-45, 1e-39]
    for bound in (low, high):
        if bound is not None:
            b = np.float32(bound)
            specials += [b, np.nextafter(b, np.float32(-np.inf)), np.nextafter(b, np.float32(np.inf))]
    ties = (np.arange(-300, 300) + 0.5).astype(np.float32) * np.float32(s)
    values = np.concatenate([
        np.array(specials, np.float32), ties,
        np.nextafter(ties, np.float32(np.inf)), np.nextafter(ties, np.float32(-np.inf))])
    count = int(np.prod(shape))
    spread = rng.uniform(-300 * s, 300 * s, size=count).astype(np.float32)
    spread[: min(count, values.size)] = values[:count]
    return spread.reshape(shape)


def kiln_ir_clamps(kilnc, path, flags):
    proc = subprocess.run([kilnc, path, "--emit=kiln", "-o", "-"] + flags,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip()[-2000:]
    f32 = len(re.findall(r"kiln\.(?:relu|clip) [^\n]*tensor<[0-9x]*xf32>", proc.stdout))
    i8 = len(re.findall(r"kiln\.clip [^\n]*tensor<[0-9x]*xi8>", proc.stdout))
    return (f32, i8), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--workdir")
    args = parser.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="quantize_clamp_e2e_")
    os.makedirs(workdir, exist_ok=True)
    passed = failed = 0
    for name, graph, input_kind, expect, params in models():
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        path = os.path.join(workdir, name + ".onnx")
        onnx.save(model, path)
        dims = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim]
        if input_kind == "float":
            data = float_inputs(dims, params)
        else:
            dtype = (np.uint8 if graph.input[0].type.tensor_type.elem_type == TensorProto.UINT8
                     else np.int8)
            info = np.iinfo(dtype)
            rng = np.random.default_rng(11)
            data = rng.integers(info.min, info.max + 1, size=dims).astype(dtype)
            data.reshape(-1)[::5] = info.min
            data.reshape(-1)[1::5] = info.max
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        expected = session.run(None, {"x": data})[0]
        counts, error = kiln_ir_clamps(args.kilnc, path, ["--cpu=native"])
        problem = None
        if counts is None:
            problem = f"kilnc --emit=kiln failed: {error}"
        else:
            f32, i8 = counts
            got = "kept" if f32 else ("i8 clip" if i8 else "gone")
            if got != expect:
                problem = f"the fold left '{got}' (f32 clamps {f32}, i8 clips {i8}), expected '{expect}'"
        if problem:
            failed += 1
            print(f"FAIL {name} [fold]: {problem}")
        else:
            passed += 1
            print(f"ok   {name} [fold]: {expect}")
        for config, flags in CONFIGS:
            artifact = os.path.join(workdir, f"{name}.{config}.kiln")
            proc = subprocess.run([args.kilnc, path, "-o", artifact] + flags,
                                  capture_output=True, text=True)
            problem = None
            if proc.returncode != 0:
                problem = f"kilnc exited {proc.returncode}: {proc.stderr.strip()[-2000:]}"
            else:
                try:
                    outputs = compare_with_ort.run_kiln(
                        args.kiln, artifact, {"x": data}, ["y"],
                        os.path.join(workdir, f"{name}.{config}.out"))
                except compare_with_ort.KilnRunError as err:
                    problem = f"{err.summary}\n{err.detail}"
                else:
                    got = outputs.get("y")
                    if got is None:
                        problem = "no output"
                    elif got.shape != expected.shape or got.dtype != expected.dtype:
                        problem = (f"output {got.dtype}{list(got.shape)}, expected "
                                   f"{expected.dtype}{list(expected.shape)}")
                    elif not np.array_equal(got, expected):
                        bad = np.argwhere(got != expected)
                        first = tuple(bad[0])
                        problem = (f"{len(bad)} of {got.size} elements differ; first at {first}: "
                                   f"{got[first]} vs {expected[first]} (input {data[first]!r})")
            if problem:
                failed += 1
                print(f"FAIL {name} [{config}]: {problem}")
            else:
                passed += 1
                print(f"ok   {name} [{config}]: exact ({expected.size} outputs)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
