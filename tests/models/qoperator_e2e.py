"""onnxruntime's QOperator format (com.microsoft quantized ops), run by Kiln.

Two parts, each compiled by kilnc, run by `kiln run` and by onnxruntime on
the same seeded input, and compared as quantized_models_e2e.check does
(an output produced by DequantizeLinear: |kiln - ort| <= its scale, one unit
of the output's quantization, + 1e-6; any other: 1e-4 + 1e-3 max|ort|):

  models: the ResNet-18-style, MobileNetV2, MobileNetV3-small, BERT
          encoder and GPT-2 block test models (make_real_models.py, seeded
          random weights) quantized by onnxruntime's quantize_static with
          QuantFormat.QOperator (uint8 activations, int8 weights), calibrated
          on 4 seeded samples. The script asserts that together they use
          every com.microsoft op onnxruntime 1.23 writes for them (QGemm,
          QLinearAdd, QLinearMul, QLinearGlobalAveragePool, QLinearSoftmax)
          and uint8 MaxPool, and that kilnc formed integer contractions.
  ops:    one small hand-written graph per imported com.microsoft op, f32 in
          -> QuantizeLinear -> op -> DequantizeLinear -> f32 out, with the
          edge cases: broadcasting QLinearAdd / QLinearMul (int8 and
          uint8), QLinearGlobalAveragePool and QLinearAveragePool on NCHW
          and channels_last, QLinearSoftmax at opset 13 and opset 12 (the
          flattening axis), QLinearConcat of inputs with different scales,
          QLinearSigmoid, QLinearLeakyRelu, QGemm with transB and C, and with
          transA, alpha, per-column b_scale and a float output; plus uint8
          data moved by MaxPool (with padding), Pad (u8 pad value), Slice,
          Transpose, Concat and Gather.

Usage: qoperator_e2e.py --kilnc KILNC --kiln KILN [--workdir DIR]
The Bazel test is //tests/models:qoperator_e2e.
"""

import argparse
import collections
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_real_models  # noqa: E402
import quantized_models_e2e as qm  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import compare_with_ort  # noqa: E402
import onnxruntime as ort  # noqa: E402
from onnxruntime import quantization as q  # noqa: E402

MS = "com.microsoft"
U8, I8, I32, F = TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32, TensorProto.FLOAT
REAL_MODELS = ["resnet18_style.onnx", "mobilenet_v2.onnx", "mobilenet_v3_small.onnx",
               "bert_encoder.onnx", "gpt2_block.onnx"]
EXPECTED_OPS = {(MS, "QGemm"), (MS, "QLinearAdd"), (MS, "QLinearMul"),
                (MS, "QLinearGlobalAveragePool"), (MS, "QLinearSoftmax"), ("", "MaxPool")}


class RealReader(q.CalibrationDataReader):
    def __init__(self, model, count=4):
        self.samples = [make_real_models.random_inputs(model, seed=1000 + i) for i in range(count)]
        self.index = 0

    def get_next(self):
        if self.index >= len(self.samples):
            return None
        self.index += 1
        return self.samples[self.index - 1]


def real_models(workdir, kilnc, kiln):
    ok, seen = True, set()
    for filename in REAL_MODELS:
        path = os.path.join(workdir, filename)
        make_real_models.MODELS[filename](path)
        model = onnx.load(path)
        qpath = path.replace(".onnx", "_qoperator.onnx")
        q.quantize_static(path, qpath, RealReader(model), quant_format=q.QuantFormat.QOperator,
                          activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8)
        quantized = onnx.load(qpath)
        ops = collections.Counter((n.domain, n.op_type) for n in quantized.graph.node)
        print(f"{filename} QOperator: " + ", ".join(
            f"{d + '::' if d else ''}{t} x{c}" for (d, t), c in sorted(ops.items())
            if d == MS or t.startswith("QLinear") or t == "MaxPool"))
        seen |= set(ops)
        inputs = make_real_models.random_inputs(quantized, seed=0)
        label = filename[:-5] + "_qoperator"
        if not qm.check(qpath, kilnc, kiln, workdir, label, inputs=inputs, contraction=True):
            # Deep chains amplify one-unit ties (onnxruntime requantizes with
            # one multiplier, Kiln dequantizes and quantizes in f32): hold
            # every op to one unit where its inputs agree, and the whole
            # model to cosine >= 0.99.
            print(f"     {label}: over the output bound; checking each op instead")
            ok &= per_op_check(qpath, kilnc, kiln, workdir, label, inputs)
    missing = EXPECTED_OPS - seen
    if missing:
        print(f"FAIL: onnxruntime wrote none of {sorted(missing)} for the test models")
        ok = False
    return ok


def per_op_check(path, kilnc, kiln, workdir, label, inputs):
    """Exposes every tensor a node writes as a graph output, runs both, and
    fails if a node whose inputs agree in Kiln and onnxruntime (8-bit ones
    equal, f32 ones within 1e-5 relative) writes an 8-bit output more than
    one unit apart, or the model's outputs have cosine < 0.99."""
    model = onnx.load(path)
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v.type.tensor_type.elem_type for v in
             list(inferred.graph.value_info) + list(inferred.graph.output)}
    finals = [o.name for o in model.graph.output]
    quantized = [o for n in model.graph.node for o in n.output
                 if types.get(o) in (U8, I8) and o not in finals]
    floats = [o for n in model.graph.node for o in n.output
              if types.get(o) == F and o not in finals]
    for name in quantized + floats:
        model.graph.output.append(helper.make_tensor_value_info(name, types[name], None))
    exposed = os.path.join(workdir, label + "_exposed.onnx")
    onnx.save(model, exposed)
    artifact = os.path.join(workdir, label + "_exposed.kiln")
    subprocess.run([kilnc, exposed, "-o", artifact], check=True)
    session = compare_with_ort.ort_session(exposed)
    names = [o.name for o in session.get_outputs()]
    want = dict(zip(names, session.run(None, inputs)))
    got = compare_with_ort.run_kiln(kiln, artifact, inputs, names,
                                    os.path.join(workdir, label + "_exposed_out"))
    same = set(inputs) | {i.name for i in model.graph.initializer} | {""}
    ok, checked, first = True, 0, None
    for node in model.graph.node:
        outs = [o for o in node.output if o in want]
        diffs = {o: int(np.max(np.abs(got[o].astype(np.int64) - want[o].astype(np.int64))))
                 for o in outs if o in quantized}
        if all(i in same for i in node.input) and diffs:
            checked += 1
            for o, d in diffs.items():
                if d > 1:
                    print(f"FAIL {label}: node {node.name} ({node.op_type}) output {o} is "
                          f"{d} units from onnxruntime with equal inputs")
                    ok = False
        for o in outs:
            # f32 values agree when equal up to rounding (1e-5 relative).
            if o in floats and np.allclose(got[o], want[o], rtol=1e-5, atol=1e-6):
                same.add(o)
        for o, d in diffs.items():
            if d == 0:
                same.add(o)
            elif first is None:
                first = f"{node.name} ({node.op_type}, {d} unit)"
    for name in finals:
        cos = compare_with_ort.cosine(got[name], want[name])
        if cos < 0.99:
            ok = False
        print(f"{'ok  ' if cos >= 0.99 else 'FAIL'} {label}: {name} cosine {cos:.6f} "
              f"(>= 0.99); {checked} nodes with equal inputs all within one unit; "
              f"first difference at {first}")
    return ok


# --- one graph per op ---------------------------------------------------

def _c(inits, name, array):
    inits.append(numpy_helper.from_array(np.asarray(array), name))
    return name


def op_model(path, inputs, build, output_shape, opset=13):
    """f32 `inputs` {name: (shape, scale, zp np scalar)} quantized, then
    `build(nodes, inits, quantized_names)` returning (node output, its
    scale, its zero point), dequantized to the f32 graph output 'y'."""
    nodes, inits, qnames = [], [], {}
    for name, (shape, scale, zp) in inputs.items():
        nodes.append(helper.make_node(
            "QuantizeLinear", [name, _c(inits, name + "_s", np.float32(scale)),
                               _c(inits, name + "_z", zp)], [name + "_q"], name="q_" + name))
        qnames[name] = (name + "_q", name + "_s", name + "_z")
    out, scale, zp = build(nodes, inits, qnames)
    if scale is None:
        nodes.append(helper.make_node("Identity", [out], ["y"], name="out"))
    else:
        nodes.append(helper.make_node("DequantizeLinear", [out, scale, zp], ["y"], name="dq_y"))
    vi = helper.make_tensor_value_info
    graph = helper.make_graph(nodes, os.path.basename(path)[:-5],
                              [vi(n, F, s) for n, (s, _, _) in inputs.items()],
                              [vi("y", F, output_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                    helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def out_params(inits, name, scale, zp):
    return _c(inits, name + "_ys", np.float32(scale)), _c(inits, name + "_yz", zp)


def binary(op, zp_type):
    def build(nodes, inits, qn):
        ys, yz = out_params(inits, op, 0.02, zp_type(3))
        nodes.append(helper.make_node(op, [*qn["a"], *qn["b"], ys, yz], ["o"], domain=MS,
                                      name=op.lower()))
        return "o", ys, yz
    return build


def unary(op, scale, zp, **attrs):
    def build(nodes, inits, qn):
        ys, yz = out_params(inits, op, scale, zp)
        nodes.append(helper.make_node(op, [*qn["x"], ys, yz], ["o"], domain=MS,
                                      name=op.lower(), **attrs))
        return "o", ys, yz
    return build


def concat(nodes, inits, qn):
    ys, yz = out_params(inits, "concat", 0.015, np.uint8(120))
    nodes.append(helper.make_node("QLinearConcat", [ys, yz, *qn["a"], *qn["b"]], ["o"],
                                  domain=MS, axis=1, name="qconcat"))
    return "o", ys, yz


def qgemm_transb_c(nodes, inits, qn):
    rng = np.random.default_rng(5)
    b = _c(inits, "B", rng.integers(-127, 128, (6, 16)).astype(np.int8))  # [N, K]
    bs, bz = _c(inits, "B_s", np.float32(0.01)), _c(inits, "B_z", np.int8(0))
    c = _c(inits, "C", rng.integers(-3000, 3000, (6,)).astype(np.int32))
    ys, yz = out_params(inits, "qgemm", 0.05, np.uint8(128))
    nodes.append(helper.make_node("QGemm", [*qn["a"], b, bs, bz, c, ys, yz], ["o"], domain=MS,
                                  transB=1, name="qgemm"))
    return "o", ys, yz


def qgemm_transa_alpha(nodes, inits, qn):
    rng = np.random.default_rng(6)
    b = _c(inits, "B", rng.integers(-127, 128, (16, 5)).astype(np.int8))  # [K, N]
    bs = _c(inits, "B_s", rng.uniform(0.005, 0.02, (5,)).astype(np.float32))
    bz = _c(inits, "B_z", np.zeros((5,), np.int8))
    c = _c(inits, "C", rng.integers(-3000, 3000, (3, 5)).astype(np.int32))
    nodes.append(helper.make_node("QGemm", [*qn["a"], b, bs, bz, c], ["o"], domain=MS,
                                  transA=1, alpha=0.5, name="qgemm"))
    return "o", None, None


def moves(nodes, inits, qn):
    """uint8 data through Pad (pad value: the zero point), MaxPool with
    padding, Slice, Transpose, Concat and Gather."""
    x, xs, xz = qn["x"]
    pads = _c(inits, "pads", np.array([0, 0, 1, 0, 0, 0, 0, 1], np.int64))
    nodes += [
        helper.make_node("Pad", [x, pads, xz], ["padded"], mode="constant", name="pad"),
        helper.make_node("MaxPool", ["padded"], ["pooled"], kernel_shape=[3, 3],
                         strides=[2, 2], pads=[1, 1, 1, 1], name="maxpool"),
        helper.make_node("Slice", ["pooled", _c(inits, "st", np.array([1], np.int64)),
                                   _c(inits, "en", np.array([3], np.int64)),
                                   _c(inits, "ax", np.array([1], np.int64))], ["sliced"],
                         name="slice"),
        helper.make_node("Transpose", ["sliced"], ["t"], perm=[0, 1, 3, 2], name="transpose"),
        helper.make_node("Concat", ["t", "t"], ["cat"], axis=1, name="concat"),
        helper.make_node("Gather", ["cat", _c(inits, "idx", np.array([3, 0, 2], np.int64))],
                         ["g"], axis=1, name="gather"),
    ]
    return "g", xs, xz


OP_CASES = {
    # name: (inputs, build, output shape, opset)
    "qlinearadd_broadcast_u8": ({"a": ([2, 3, 4, 5], 0.01, np.uint8(130)),
                                 "b": ([1, 3, 1, 5], 0.02, np.uint8(100))},
                                binary("QLinearAdd", np.uint8), [2, 3, 4, 5], 13),
    "qlinearadd_scalar_i8": ({"a": ([4, 6], 0.01, np.int8(-5)), "b": ([1], 0.008, np.int8(7))},
                             binary("QLinearAdd", np.int8), [4, 6], 13),
    "qlinearmul_broadcast_u8": ({"a": ([2, 8, 3], 0.01, np.uint8(128)),
                                 "b": ([8, 1], 0.009, np.uint8(120))},
                                binary("QLinearMul", np.uint8), [2, 8, 3], 13),
    "qlinearmul_i8": ({"a": ([3, 7], 0.01, np.int8(2)), "b": ([3, 7], 0.012, np.int8(-3))},
                      binary("QLinearMul", np.int8), [3, 7], 13),
    "qlineargap_nchw": ({"x": ([2, 4, 5, 6], 0.01, np.uint8(128))},
                        unary("QLinearGlobalAveragePool", 0.002, np.uint8(125)), [2, 4, 1, 1], 13),
    "qlineargap_channels_last": ({"x": ([2, 5, 6, 4], 0.01, np.uint8(128))},
                                 unary("QLinearGlobalAveragePool", 0.002, np.uint8(125),
                                       channels_last=1), [2, 1, 1, 4], 13),
    "qlinearavgpool_pads": ({"x": ([1, 3, 7, 7], 0.01, np.uint8(128))},
                            unary("QLinearAveragePool", 0.006, np.uint8(128), kernel_shape=[3, 3],
                                  strides=[2, 2], pads=[1, 1, 1, 1]), [1, 3, 4, 4], 13),
    "qlinearavgpool_channels_last": ({"x": ([1, 7, 7, 3], 0.01, np.uint8(128))},
                                     unary("QLinearAveragePool", 0.006, np.uint8(128),
                                           kernel_shape=[3, 3], strides=[2, 2],
                                           pads=[1, 1, 1, 1], count_include_pad=1,
                                           channels_last=1), [1, 4, 4, 3], 13),
    "qlinearsoftmax_opset13": ({"x": ([2, 3, 8], 0.05, np.uint8(128))},
                               unary("QLinearSoftmax", 1 / 256, np.uint8(0), opset=13, axis=-1),
                               [2, 3, 8], 13),
    "qlinearsoftmax_opset12_axis1": ({"x": ([2, 3, 4], 0.05, np.uint8(128))},
                                     unary("QLinearSoftmax", 1 / 256, np.uint8(0), opset=12,
                                           axis=1), [2, 3, 4], 13),
    "qlinearsigmoid_u8": ({"x": ([3, 10], 0.03, np.uint8(128))},
                          unary("QLinearSigmoid", 1 / 256, np.uint8(0)), [3, 10], 13),
    "qlinearleakyrelu_i8": ({"x": ([3, 10], 0.01, np.int8(0))},
                            unary("QLinearLeakyRelu", 0.008, np.int8(-20), alpha=0.2), [3, 10], 13),
    "qlinearconcat_u8": ({"a": ([2, 3, 4], 0.01, np.uint8(128)),
                          "b": ([2, 2, 4], 0.004, np.uint8(90))}, concat, [2, 5, 4], 13),
    "qgemm_transb_c_u8": ({"a": ([3, 16], 0.01, np.uint8(128))}, qgemm_transb_c, [3, 6], 13),
    "qgemm_transa_alpha_f32": ({"a": ([16, 3], 0.01, np.uint8(120))}, qgemm_transa_alpha,
                               [3, 5], 13),
    "u8_data_movement": ({"x": ([1, 4, 7, 7], 0.01, np.uint8(100))}, moves, [1, 3, 4, 4], 13),
}


def op_graphs(workdir, kilnc, kiln):
    ok = True
    for name, (inputs, build, shape, opset) in OP_CASES.items():
        path = op_model(os.path.join(workdir, name + ".onnx"), inputs, build, shape, opset)
        ok &= qm.check(path, kilnc, kiln, workdir, name, contraction=name.startswith("qgemm"))
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-qoperator-")
    os.makedirs(workdir, exist_ok=True)
    ok = op_graphs(workdir, args.kilnc, args.kiln)
    ok &= real_models(workdir, args.kilnc, args.kiln)
    print("all QOperator models match onnxruntime" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
