#!/usr/bin/env python3
"""Numerics of the int8 contraction kernels end to end, checked against
onnxruntime (never against Kiln itself).

MatMulInteger and ConvInteger models (int8 or uint8 activations as graph
inputs, int8 weights as initializers, with and without zero points; odd
shapes: M = 1, K not a multiple of 4, N not a multiple of the vector width,
K long enough for K blocks, batched A; 3x3 convs and a depthwise one, uint8 as onnxruntime's
ConvInteger requires) are
compiled by kilnc under each configuration

    --cpu=native                 (AVX512-VNNI here: vpdpbusd on K quads)
    --cpu=x86-64-v4              (AVX-512 without VNNI: pmaddwd on K pairs)
    --cpu=x86-64-v3              (AVX2: pmaddubsw on K quads when the
                                  weights hold no -128, else pmaddwd on
                                  K pairs, ymm)
    --cpu=native --codegen=loop-order  (weights not packed)

run with `kiln run` on seeded inputs that span the whole 8-bit range, and
every int32 output must equal onnxruntime's exactly (where onnxruntime's
own u8 x s8 kernels saturate, on an AVX2 host without VNNI, its outputs for
the same weights held in uint8: compare_with_ort.reference_model). An
artifact the host cannot run (x86-64-v4 on AVX2) is compiled and its dump
checked, and reported as not run. For the native build
the script also checks that --dump-dispatches reports the VNNI path for
the MatMulInteger models when the host has AVX512-VNNI (or the AMX tile
path, on a host with AMX-INT8), and for the
x86-64-v3 build that exactly the models whose weights hold no -128 (as
onnxruntime's quantizer writes them: symmetric int8 is [-127, 127]) run
on "pmaddubsw". The "_sat" models are the saturation-prone cases of
vpmaddubsw, whose i16 pair sums saturate: weights of +-127 and inputs of
only the two extremes, in blocks of one sign, so that many pairs sum to
+-2 * 128 * 127 (see ContractionKernel.cpp).

Prints one line per (model, configuration) and ends with
'N passed, N failed'; exit status 1 when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/int8_kernels_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_ort  # noqa: E402

# (label, kilnc flags, the --cpu it builds for)
CONFIGS = [
    ("native", ["--cpu=native"], "native"),
    ("x86-64-v4", ["--cpu=x86-64-v4"], "x86-64-v4"),
    ("x86-64-v3", ["--cpu=x86-64-v3"], "x86-64-v3"),
    ("loop-order", ["--cpu=native", "--codegen=loop-order"], "native"),
]


def onnx_type(dtype):
    return TensorProto.UINT8 if dtype == np.uint8 else TensorProto.INT8


def extreme_weights(rng, shape, low, high):
    # Blocks of one sign along K (the first dim after the output one for a
    # conv, the first for a matmul): products of one sign fill whole pairs.
    signs = np.where(rng.random(shape) < 0.5, low, high)
    signs[: max(1, shape[0] // 2)] = high
    return signs


def matmul_integer(name, a_shape, n, a_dtype, a_zero=None, seed=0, narrow=False,
                   extreme=False):
    rng = np.random.default_rng(seed)
    k = a_shape[-1]
    if extreme:
        w = extreme_weights(rng, (k, n), -127, 127).astype(np.int8)
    elif narrow:
        w = rng.integers(-127, 128, size=(k, n)).astype(np.int8)
    else:
        w = rng.integers(-128, 128, size=(k, n)).astype(np.int8)
        w.flat[0] = -128
    inits = [numpy_helper.from_array(w, "w")]
    inputs = ["a", "w"]
    if a_zero is not None:
        inits.append(numpy_helper.from_array(np.array(a_zero, dtype=a_dtype), "a_zero"))
        inputs.append("a_zero")
    node = helper.make_node("MatMulInteger", inputs, ["y"])
    out_shape = list(a_shape[:-1]) + [n]
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info("a", onnx_type(a_dtype), list(a_shape))],
        [helper.make_tensor_value_info("y", TensorProto.INT32, out_shape)], inits)
    return graph


def conv_integer(name, x_shape, out_channels, kernel, group, a_dtype,
                 x_zero=None, seed=0, narrow=False, extreme=False):
    # onnxruntime's ConvInteger takes uint8 inputs and weights only. Kiln
    # holds u8 as the biased i8 value - 128: a weight of 0 is its -128,
    # so narrow weights are 1..255.
    rng = np.random.default_rng(seed)
    c = x_shape[1]
    shape = (out_channels, c // group, kernel, kernel)
    if extreme:
        w = np.moveaxis(extreme_weights(rng, np.moveaxis(np.zeros(shape), 1, 0).shape, 1, 255),
                        0, 1).astype(np.uint8)
    else:
        w = rng.integers(1 if narrow else 0, 256, size=shape).astype(np.uint8)
        if not narrow:
            w.flat[0] = 0
    inits = [numpy_helper.from_array(w, "w")]
    inputs = ["x", "w"]
    if x_zero is not None:
        inits.append(numpy_helper.from_array(np.array(x_zero, dtype=a_dtype), "x_zero"))
        inputs.append("x_zero")
    node = helper.make_node("ConvInteger", inputs, ["y"], group=group,
                            pads=[1, 1, 1, 1], kernel_shape=[kernel, kernel])
    out = [x_shape[0], out_channels, x_shape[2], x_shape[3]]
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info("x", onnx_type(a_dtype), list(x_shape))],
        [helper.make_tensor_value_info("y", TensorProto.INT32, out)], inits)
    return graph


def models():
    """(name, graph, is_matmul, narrow: weights hold no -128 (as Kiln's i8),
    extreme: inputs only at the two ends of their range)."""
    for name, graph, is_matmul in base_models():
        yield name, graph, is_matmul, False, False
    yield "mm_9x301x37_s8_narrow", matmul_integer(
        "mm_9x301x37_s8_narrow", (9, 301), 37, np.int8, narrow=True), True, True, False
    yield "mm_70x600x100_u8_zp_narrow", matmul_integer(
        "mm_70x600x100_u8_zp_narrow", (70, 600), 100, np.uint8, a_zero=131,
        narrow=True), True, True, False
    yield "mm_13x515x40_s8_sat", matmul_integer(
        "mm_13x515x40_s8_sat", (13, 515), 40, np.int8, extreme=True), True, True, True
    yield "mm_1x130x72_u8_sat", matmul_integer(
        "mm_1x130x72_u8_sat", (1, 130), 72, np.uint8, extreme=True), True, True, True
    yield "conv3x3_u8_narrow", conv_integer(
        "conv3x3_u8_narrow", (1, 5, 9, 11), 6, 3, 1, np.uint8, narrow=True), False, True, False
    yield "conv3x3_u8_sat", conv_integer(
        "conv3x3_u8_sat", (1, 16, 12, 13), 24, 3, 1, np.uint8, extreme=True), False, True, True


def base_models():
    yield "mm_1x7x5_s8", matmul_integer("mm_1x7x5_s8", (1, 7), 5, np.int8), True
    yield "mm_9x301x37_s8", matmul_integer("mm_9x301x37_s8", (9, 301), 37, np.int8), True
    yield "mm_70x600x100_s8_zp", matmul_integer(
        "mm_70x600x100_s8_zp", (70, 600), 100, np.int8, a_zero=3), True
    yield "mm_64x256x96_u8_zp", matmul_integer(
        "mm_64x256x96_u8_zp", (64, 256), 96, np.uint8, a_zero=131), True
    yield "mm_batched_2x5x33x20_u8", matmul_integer(
        "mm_batched_2x5x33x20_u8", (2, 5, 33), 20, np.uint8, a_zero=128), True
    # Shapes for the AMX tile kernel on AMX hosts (K a multiple of 64, M
    # and N >= 16): edges that are not multiples of 16 (clamped, overlapping
    # tiles), and a batch (an outer loop around the tiles).
    yield "mm_70x640x100_s8", matmul_integer("mm_70x640x100_s8", (70, 640), 100, np.int8), True
    yield "mm_batched_3x37x128x48_s8_zp", matmul_integer(
        "mm_batched_3x37x128x48_s8_zp", (3, 37, 128), 48, np.int8, a_zero=-5), True
    yield "conv3x3_u8", conv_integer("conv3x3_u8", (1, 5, 9, 11), 6, 3, 1, np.uint8), False
    yield "conv3x3_u8_zp", conv_integer(
        "conv3x3_u8_zp", (1, 4, 8, 8), 8, 3, 1, np.uint8, x_zero=120), False
    yield "depthwise3x3_u8_zp", conv_integer(
        "depthwise3x3_u8_zp", (1, 8, 14, 14), 8, 3, 8, np.uint8, x_zero=3), False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--workdir")
    args = parser.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="int8_e2e_")
    os.makedirs(workdir, exist_ok=True)
    passed = failed = skipped = 0
    vnni = "avx512_vnni" in compare_with_ort.host_flags()
    # With AMX-INT8 the matmuls with at least 16 rows and columns and K a
    # multiple of 64 take the tile kernel ("amx"), the others vpdpbusd.
    native_paths = (["amx", "vnni"] if "amx_int8" in compare_with_ort.host_flags()
                    else ["vnni"])
    # On AVX2 without VNNI (where --cpu=native builds the x86-64-v3 paths)
    # native shows what x86-64-v3 shows.
    avx2_native = (compare_with_ort.native_isa() == "avx2"
                   and "avx_vnni" not in compare_with_ort.host_flags())
    for name, graph, is_matmul, narrow, extreme in models():
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        path = os.path.join(workdir, name + ".onnx")
        onnx.save(model, path)
        rng = np.random.default_rng(1)
        value = model.graph.input[0]
        dims = [d.dim_value for d in value.type.tensor_type.shape.dim]
        dtype = np.uint8 if value.type.tensor_type.elem_type == TensorProto.UINT8 else np.int8
        info = np.iinfo(dtype)
        if extreme:
            # Whole rows of one extreme, then a random mix of both.
            data = np.where(rng.random(dims) < 0.5, info.min, info.max).astype(dtype)
            flat = data.reshape(-1, dims[-1])
            flat[0::3] = info.min
            flat[1::3] = info.max
        else:
            data = rng.integers(info.min, info.max + 1, size=dims).astype(dtype)
            data.flat[0] = info.min
            data.flat[-1] = info.max
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        # Exact integer arithmetic (ONNX's definition) from onnxruntime; on a
        # host where its u8 x s8 kernels saturate, on the same weights held
        # in uint8 (compare_with_ort.reference_model).
        session = compare_with_ort.ort_session(path, options)
        expected = session.run(None, {value.name: data})[0]
        for config, flags, cpu in CONFIGS:
            artifact = os.path.join(workdir, f"{name}.{config}.kiln")
            cmd = [args.kilnc, path, "-o", artifact, "--dump-dispatches"] + flags
            proc = subprocess.run(cmd, capture_output=True, text=True)
            problem = None
            if proc.returncode != 0:
                problem = f"kilnc exited {proc.returncode}: {proc.stderr.strip()[-2000:]}"
            elif (config == "native" and is_matmul and vnni
                  and not any(f'native = "{path}"' in proc.stderr
                              for path in native_paths)):
                problem = ("--dump-dispatches shows none of native = "
                           + " / ".join(f'"{p}"' for p in native_paths))
            elif ((config == "x86-64-v3" or (config == "native" and avx2_native))
                  and ('native = "pmaddubsw"' in proc.stderr) != narrow):
                problem = (f"--dump-dispatches {'does not show' if narrow else 'shows'} "
                           "native = \"pmaddubsw\"")
            elif not compare_with_ort.host_runs(cpu):
                skipped += 1
                print(f"skip {name} [{config}]: compiled, not run (this host cannot run "
                      f"{cpu} code)")
                continue
            else:
                try:
                    outputs = compare_with_ort.run_kiln(
                        args.kiln, artifact, {value.name: data}, ["y"],
                        os.path.join(workdir, f"{name}.{config}.out"))
                except compare_with_ort.KilnRunError as error:
                    problem = f"{error.summary}\n{error.detail}"
                else:
                    got = outputs.get("y")
                    if got is None:
                        problem = "no output"
                    elif got.shape != expected.shape or got.dtype != expected.dtype:
                        problem = f"output {got.dtype}{list(got.shape)}, expected {expected.dtype}{list(expected.shape)}"
                    elif not np.array_equal(got, expected):
                        bad = np.argwhere(got != expected)
                        first = tuple(bad[0])
                        problem = (f"{len(bad)} of {got.size} elements differ; first at "
                                   f"{first}: {got[first]} vs {expected[first]}")
            if problem:
                failed += 1
                print(f"FAIL {name} [{config}]: {problem}")
            else:
                passed += 1
                print(f"ok   {name} [{config}]: exact ({expected.size} int32 outputs)")
    print(f"{passed} passed, {failed} failed, {skipped} not run on this host")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
