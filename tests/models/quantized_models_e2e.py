"""Quantized ONNX models from onnxruntime's quantization tool, run by Kiln.

Builds two small fp32 models with seeded random weights (onnx.helper):

  cnn:         Conv 3->8 (3x3) + Relu, MaxPool 2x2, depthwise Conv (8 groups)
               + Relu, Conv 1x1 8->16, GlobalAveragePool, Flatten, Gemm 16->10
  transformer: single-head self-attention (MatMul q/k/v, Q.K^T, Softmax,
               .V, output projection, residual) and an MLP (MatMul + bias,
               Relu, MatMul + bias)

and quantizes each with onnxruntime.quantization:

  qdq:       quantize_static, QuantFormat.QDQ (uint8 activations, int8
             weights), calibrated on seeded random inputs
  qdq_per_channel_u8: the same with per-channel uint8 weights (a zero
             point per output channel; every conv must be integer)
  qoperator: quantize_static, QuantFormat.QOperator (QLinearConv,
             QLinearMatMul, uint8 MaxPool and Flatten, and onnxruntime's
             com.microsoft QLinearGlobalAveragePool, QLinearAdd,
             QLinearSoftmax and QGemm)
  dynamic:   quantize_dynamic (DynamicQuantizeLinear, MatMulInteger,
             ConvInteger; uint8 weights for the CNN, whose ConvInteger
             onnxruntime runs only on uint8)

Each quantized model is compiled by kilnc, run by `kiln run` and by
onnxruntime on the same seeded input, and every output compared:

  - an output produced by DequantizeLinear (qdq, qoperator): |kiln - ort|
    <= its scale (one unit of the output's quantization) + 1e-6;
  - any other output (dynamic: f32 from integer accumulators):
    |kiln - ort| <= 1e-4 + 1e-3 * max|ort| (the integer parts are exact;
    only f32 scale products may be rounded differently).

It also checks that kilnc formed integer contractions: the dumped Kiln IR
(`--emit=kiln`) of every qdq/qoperator model contains `kiln.matmul` or
`kiln.conv` on i8 operands.

Usage: quantized_models_e2e.py --kilnc KILNC --kiln KILN [--workdir DIR]
The Bazel test is //tests/models:quantized_models_e2e.
"""

import argparse
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

import onnxruntime as ort  # noqa: E402
from onnxruntime import quantization as q  # noqa: E402


def _init(inits, name, array):
    inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
    return name


def make_cnn(path, seed=1):
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def w(name, shape, scale):
        return _init(inits, name, rng.normal(0, scale, shape).astype(np.float32))

    nodes += [
        helper.make_node("Conv", ["input", w("w1", (8, 3, 3, 3), 0.3), w("b1", (8,), 0.1)],
                         ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2],
                         name="pool1"),
        helper.make_node("Conv", ["p1", w("w2", (8, 1, 3, 3), 0.4), w("b2", (8,), 0.1)],
                         ["c2"], pads=[1, 1, 1, 1], group=8, name="depthwise"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Conv", ["r2", w("w3", (16, 8, 1, 1), 0.3), w("b3", (16,), 0.1)],
                         ["c3"], name="pointwise"),
        helper.make_node("GlobalAveragePool", ["c3"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", w("w4", (10, 16), 0.3), w("b4", (10,), 0.1)],
                         ["logits"], transB=1, name="fc"),
    ]
    vi = helper.make_tensor_value_info
    graph = helper.make_graph(nodes, "small_cnn",
                              [vi("input", TensorProto.FLOAT, [1, 3, 16, 16])],
                              [vi("logits", TensorProto.FLOAT, [1, 10])], inits)
    return _save(graph, path)


def make_transformer(path, seed=2, seq=8, dim=16, hidden=32):
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def w(name, shape):
        return _init(inits, name, rng.normal(0, 1 / np.sqrt(shape[0]), shape).astype(np.float32))

    scale = _init(inits, "attn_scale", np.array(1 / np.sqrt(dim), np.float32))
    nodes += [
        helper.make_node("MatMul", ["x", w("wq", (dim, dim))], ["q"], name="q_proj"),
        helper.make_node("MatMul", ["x", w("wk", (dim, dim))], ["k"], name="k_proj"),
        helper.make_node("MatMul", ["x", w("wv", (dim, dim))], ["v"], name="v_proj"),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1], name="k_t"),
        helper.make_node("MatMul", ["q", "kt"], ["s"], name="scores"),
        helper.make_node("Mul", ["s", scale], ["ss"], name="scale"),
        helper.make_node("Softmax", ["ss"], ["p"], axis=-1, name="softmax"),
        helper.make_node("MatMul", ["p", "v"], ["a"], name="attend"),
        helper.make_node("MatMul", ["a", w("wo", (dim, dim))], ["o"], name="o_proj"),
        helper.make_node("Add", ["o", "x"], ["h"], name="residual"),
        helper.make_node("MatMul", ["h", w("w1", (dim, hidden))], ["m1"], name="fc1"),
        helper.make_node("Add", ["m1", w("b1", (hidden,))], ["m1b"], name="fc1_bias"),
        helper.make_node("Relu", ["m1b"], ["m1r"], name="fc1_relu"),
        helper.make_node("MatMul", ["m1r", w("w2", (hidden, dim))], ["m2"], name="fc2"),
        helper.make_node("Add", ["m2", w("b2", (dim,))], ["y"], name="fc2_bias"),
    ]
    vi = helper.make_tensor_value_info
    graph = helper.make_graph(nodes, "small_transformer",
                              [vi("x", TensorProto.FLOAT, [1, seq, dim])],
                              [vi("y", TensorProto.FLOAT, [1, seq, dim])], inits)
    return _save(graph, path)


def _save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="kiln-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


class RandomReader(q.CalibrationDataReader):
    """Seeded random calibration samples, uniform in [-1, 1]."""

    def __init__(self, model_path, count=8, seed=7):
        model = onnx.load(model_path)
        rng = np.random.default_rng(seed)
        self.samples = []
        for _ in range(count):
            sample = {}
            for value in model.graph.input:
                dims = [d.dim_value for d in value.type.tensor_type.shape.dim]
                sample[value.name] = rng.uniform(-1, 1, dims).astype(np.float32)
            self.samples.append(sample)
        self.index = 0

    def get_next(self):
        if self.index >= len(self.samples):
            return None
        self.index += 1
        return self.samples[self.index - 1]


def quantize_variants(fp32_path, workdir, name, dynamic_weight_type):
    variants = {}
    qdq = os.path.join(workdir, f"{name}_qdq.onnx")
    q.quantize_static(fp32_path, qdq, RandomReader(fp32_path), quant_format=q.QuantFormat.QDQ,
                      activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8)
    variants["qdq"] = qdq
    # Per-channel uint8 weights: a zero point per output channel, which
    # kiln-fold-qdq folds as a run-time sum of the activation
    # (rowsum(a) * zw, window sums * zw) instead of leaving the op f32.
    pcu8 = os.path.join(workdir, f"{name}_qdq_per_channel_u8.onnx")
    q.quantize_static(fp32_path, pcu8, RandomReader(fp32_path), quant_format=q.QuantFormat.QDQ,
                      activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QUInt8,
                      per_channel=True)
    variants["qdq_per_channel_u8"] = pcu8
    qop = os.path.join(workdir, f"{name}_qoperator.onnx")
    q.quantize_static(fp32_path, qop, RandomReader(fp32_path),
                      quant_format=q.QuantFormat.QOperator,
                      activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8)
    variants["qoperator"] = qop
    dyn = os.path.join(workdir, f"{name}_dynamic.onnx")
    q.quantize_dynamic(fp32_path, dyn, weight_type=dynamic_weight_type)
    variants["dynamic"] = dyn
    return variants


def check(model_path, kilnc, kiln, workdir, label, inputs=None, contraction=None):
    """Compiles and runs `model_path`, compares with onnxruntime (bounds in
    the module doc); `inputs` defaults to compare_with_ort.make_inputs with
    seed 0, and the integer-contraction check runs when `contraction` is
    true (default: every model but the dynamic ones)."""
    artifact = os.path.join(workdir, label + ".kiln")
    proc = subprocess.run([kilnc, model_path, "-o", artifact], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL {label}: kilnc exited {proc.returncode}:\n{proc.stderr}")
        return False
    ok = True
    if contraction is None:
        contraction = not label.endswith("dynamic")
    if contraction:
        ir = subprocess.run([kilnc, model_path, "--emit=kiln", "-o", "-"],
                            capture_output=True, text=True).stdout
        if not re.search(r"kiln\.(matmul|conv) [^\n]*: tensor<[0-9x]+xi8>, tensor<[0-9x]+xi8>", ir):
            print(f"FAIL {label}: no integer contraction in the Kiln IR")
            ok = False
        # Per-channel uint8 weights: every weight contraction is integer
        # (only attention's activation x activation matmuls may stay f32).
        if label.endswith("per_channel_u8") and re.search(
                r"kiln\.conv [^\n]*xf32>, tensor<[0-9x]+xf32>", ir):
            print(f"FAIL {label}: a conv with per-channel uint8 weights stayed f32")
            ok = False
    model = onnx.load(model_path)
    if inputs is None:
        inputs = compare_with_ort.make_inputs(model, seed=0, shapes={})
    # (compare_with_ort.ort_session: where onnxruntime's u8 x s8 kernels
    # saturate, AVX2 without VNNI, the same weights held in uint8.)
    session = compare_with_ort.ort_session(model_path)
    names = [o.name for o in session.get_outputs()]
    expected = session.run(None, inputs)
    try:
        got = compare_with_ort.run_kiln(kiln, artifact, inputs, names,
                                        os.path.join(workdir, label + "_out"))
    except compare_with_ort.KilnRunError as e:
        print(f"FAIL {label}: {e.summary}\n{e.detail}")
        return False
    scales = compare_with_ort.output_scales(model)
    for name, want in zip(names, expected):
        have = got.get(name)
        if have is None or have.shape != want.shape:
            print(f"FAIL {label}: output {name} missing or of shape "
                  f"{None if have is None else have.shape}, expected {want.shape}")
            ok = False
            continue
        diff = float(np.max(np.abs(have.astype(np.float64) - want.astype(np.float64))))
        if name in scales:
            bound = scales[name] + 1e-6
            what = f"scale {scales[name]:.6g}"
        else:
            bound = 1e-4 + 1e-3 * float(np.max(np.abs(want)))
            what = "1e-4 + 1e-3 max|ort|"
        passed = diff <= bound
        ok &= passed
        print(f"{'ok  ' if passed else 'FAIL'} {label}: {name} max|kiln - ort| = {diff:.6g} "
              f"(bound {bound:.6g}: {what}; max|ort| = {float(np.max(np.abs(want))):.4g})")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-quantized-")
    os.makedirs(workdir, exist_ok=True)
    models = {
        "cnn": (make_cnn(os.path.join(workdir, "cnn.onnx")), q.QuantType.QUInt8),
        "transformer": (make_transformer(os.path.join(workdir, "transformer.onnx")),
                        q.QuantType.QInt8),
    }
    ok = True
    for name, (path, weight_type) in models.items():
        for variant, qpath in quantize_variants(path, workdir, name, weight_type).items():
            ok &= check(qpath, args.kilnc, args.kiln, workdir, f"{name}_{variant}")
    print("all quantized models match onnxruntime" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
