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


# --------------------------------------------------------- the host CPU

def host_flags():
    """The CPU flags /proc/cpuinfo lists for this host (empty if unreadable)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


# What an artifact built for each --cpu level needs to run (kiln refuses it
# elsewhere: "artifact needs CPU features ...").
_LEVEL_FLAGS = {
    "x86-64-v3": {"avx2", "fma", "f16c", "bmi2"},
    "x86-64-v4": {"avx512f", "avx512bw", "avx512vl", "avx512dq"},
}


def host_runs(cpu):
    """Whether an artifact compiled with --cpu=CPU runs on this host ("native"
    always does); tests compile for the others and skip running them."""
    return cpu == "native" or _LEVEL_FLAGS.get(cpu, set()) <= host_flags()


def native_isa():
    """"avx512" or "avx2": what --cpu=native builds for on this host."""
    return "avx512" if "avx512f" in host_flags() else "avx2"


# ------------------------------------------- an exact int8 reference here
#
# onnxruntime's u8 x s8 integer kernels (MatMulInteger, QLinearConv,
# QLinearMatMul, QGemm, QAttention, DynamicQuantizeLSTM, and the QDQ
# patterns it fuses into them) are exact on CPUs with VNNI, but on AVX2
# without it MLAS sums pairs of u8 x s8 products with vpmaddubsw, which
# saturates at 32767: 255 * 127 * 2 does not fit, and such outputs come
# out wrong (on a Zen 3 host a quantize_static conv chain was 31 output
# units off, a MatMulInteger 86502 off). Its u8 x u8 kernels widen to i16
# and are exact. So where the probe finds u8 x s8 inexact, the reference
# model stores every int8 weight as the same value in uint8: w + 128 with
# zero point zp + 128, which is the same quantized tensor, exactly, and
# onnxruntime then runs its exact u8 x u8 kernels on the model's own ops.

_u8s8_exact = None


def ort_u8s8_exact():
    """Whether onnxruntime's u8 x s8 MatMulInteger is exact on this host
    (probed once, with pairs of 255 * 127 that saturate vpmaddubsw)."""
    global _u8s8_exact
    if _u8s8_exact is None:
        from onnx import helper, TensorProto
        a = np.full((16, 64), 255, np.uint8)
        b = np.full((64, 16), 127, np.int8)
        graph = helper.make_graph(
            [helper.make_node("MatMulInteger", ["a", "b"], ["y"])], "probe",
            [helper.make_tensor_value_info("a", TensorProto.UINT8, [16, 64])],
            [helper.make_tensor_value_info("y", TensorProto.INT32, [16, 16])],
            [onnx.numpy_helper.from_array(b, "b")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        got = session.run(None, {"a": a})[0]
        _u8s8_exact = bool(np.all(got == 255 * 127 * 64))
    return _u8s8_exact


# (op type, domain) -> [(weight input, its zero point input), ...]: the int8
# operands onnxruntime multiplies by a u8 activation.
_INT8_WEIGHTS = {
    ("DequantizeLinear", ""): [(0, 2)],
    ("QLinearConv", ""): [(3, 5)],
    ("QLinearMatMul", ""): [(3, 5)],
    ("MatMulInteger", ""): [(1, 3)],
    ("ConvInteger", ""): [(1, 3)],
    ("QGemm", "com.microsoft"): [(3, 5)],
    ("QAttention", "com.microsoft"): [(1, 7)],
    ("DynamicQuantizeLSTM", "com.microsoft"): [(1, 9), (2, 11)],
    ("MatMulIntegerToFloat", "com.microsoft"): [(1, 5)],
    ("DynamicQuantizeMatMul", "com.microsoft"): [(1, 3)],
}
# The activation input of the integer ops above, which must be uint8 for
# the weight to move to uint8 (onnxruntime has no s8 x u8 kernels; s8 x s8
# is exact anyway). DequantizeLinear (QDQ) has none: its fused pattern
# falls back to the float ops where no kernel exists. The dynamic ops
# quantize their activation to uint8 themselves.
_ACTIVATION = {
    "QLinearConv": 0, "QLinearMatMul": 0, "MatMulInteger": 0, "ConvInteger": 0,
    "QGemm": 0, "QAttention": 0, "MatMulIntegerToFloat": 0,
}


def _as_uint8(model):
    """A copy of `model` whose int8 weight initializers (and their zero
    points) are the same quantized values stored as uint8, value + 128."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    types = {i.name: i.data_type for i in graph.initializer}
    inferred = onnx.shape_inference.infer_shapes(model).graph
    for value in list(inferred.input) + list(inferred.value_info) + list(inferred.output):
        types.setdefault(value.name, value.type.tensor_type.elem_type)
    consumers = {}
    for node in graph.node:
        activation = _ACTIVATION.get(node.op_type)
        if activation is not None and types.get(node.input[activation]) != onnx.TensorProto.UINT8:
            continue
        for weight, zero in _INT8_WEIGHTS.get((node.op_type, node.domain or ""), []):
            if weight < len(node.input) and node.input[weight] in inits:
                consumers.setdefault(node.input[weight], []).append((node, zero))
    converted = {}

    def shifted(name):
        # The uint8 copy of int8 initializer `name`: value + 128.
        if name not in converted:
            values = onnx.numpy_helper.to_array(inits[name]).astype(np.int16) + 128
            converted[name] = name + "_as_u8"
            graph.initializer.append(
                onnx.numpy_helper.from_array(values.astype(np.uint8), converted[name]))
        return converted[name]

    for name, uses in consumers.items():
        if inits[name].data_type != onnx.TensorProto.INT8:
            continue
        # Every reader must take a zero point of the same type; an int8
        # weight read elsewhere (an op not listed) keeps its int8 copy.
        for node, zero in uses:
            if zero < len(node.input) and node.input[zero]:
                if node.input[zero] not in inits:
                    break  # a computed zero point: leave this weight alone
        else:
            for node, zero in uses:
                weight = next(w for w, z in _INT8_WEIGHTS[(node.op_type, node.domain or "")]
                              if z == zero)
                node.input[weight] = shifted(name)
                if zero < len(node.input) and node.input[zero]:
                    node.input[zero] = shifted(node.input[zero])
                else:
                    # No zero point (0): 128 in uint8, shaped like the scale
                    # (per tensor or per axis) for DequantizeLinear.
                    shape = ()
                    if node.op_type == "DequantizeLinear" and node.input[1] in inits:
                        shape = onnx.numpy_helper.to_array(inits[node.input[1]]).shape
                    zp_name = name + "_zero_as_u8"
                    if zp_name not in inits:
                        graph.initializer.append(onnx.numpy_helper.from_array(
                            np.full(shape, 128, np.uint8), zp_name))
                        inits[zp_name] = graph.initializer[-1]
                    while len(node.input) <= zero:
                        node.input.append("")
                    node.input[zero] = zp_name
    # The int8 originals no node reads any more (onnxruntime would warn).
    used = {name for node in graph.node for name in node.input}
    unused = [i for i in graph.initializer if i.name in converted and i.name not in used]
    for init in unused:
        graph.initializer.remove(init)
    return model


def reference_model(model):
    """The model onnxruntime's reference outputs come from: `model` itself,
    or (where its u8 x s8 kernels saturate) `model` with int8 weights held
    as the same values in uint8."""
    if isinstance(model, str):
        model = onnx.load(model)
    return model if ort_u8s8_exact() else _as_uint8(model)


def ort_session(model, options=None, providers=("CPUExecutionProvider",)):
    """An onnxruntime session on reference_model(model) (a path or a
    ModelProto)."""
    if ort_u8s8_exact():
        # As it is (a path keeps its external data next to it).
        source = model if isinstance(model, str) else model.SerializeToString()
    else:
        source = reference_model(model).SerializeToString()
    return ort.InferenceSession(source, options, providers=list(providers))


def qdq_reference(model, inputs, scales):
    """onnxruntime's outputs for a QDQ model: its fused session's (the
    int8 kernels after its QDQ fusion), unless on some output they are
    more than one unit of that output's scale (`scales`: name -> scale)
    away from its unfused graph (dequantize, f32 op, quantize: the ONNX
    definition); then the unfused outputs. onnxruntime 1.23.2's fused
    int8 convolutions on a Sapphire-Rapids-class Xeon (AMX) were off by up
    to 250 units, from a 1x1 conv with C*K = 13 on. Returns (outputs as
    name -> array, a note or None)."""
    session = ort_session(model)
    names = [o.name for o in session.get_outputs()]
    fused = dict(zip(names, session.run(None, inputs)))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    unfused = dict(zip(names, ort_session(model, options).run(None, inputs)))
    worst = 0.0
    for name in names:
        scale = scales.get(name)
        if scale:
            diff = np.max(np.abs(fused[name].astype(np.float64) -
                                 unfused[name].astype(np.float64)))
            worst = max(worst, float(diff) / scale)
    if worst <= 1 + 1e-6:
        return fused, None
    return unfused, (f"onnxruntime's fused int8 kernels differ from its unfused "
                     f"QDQ graph by {worst:.0f} units of the output scale on this "
                     f"host: the unfused graph is the reference")


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
    session = ort_session(model_path, options)
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
