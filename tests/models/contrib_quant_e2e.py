"""onnxruntime's remaining quantized com.microsoft ops, and every op its
quantization tool writes for the test models, run by Kiln.

Each model is built here (seeded; nothing is downloaded), compiled by
kilnc, run by `kiln run` and by onnxruntime on the same inputs:

  ops:     QLinearWhere (int8 / uint8, broadcasting, different scales) and
           QLinearReduceMean (keepdims 0 / 1, several and negative axes),
           each f32 -> QuantizeLinear -> op -> DequantizeLinear -> f32.
           onnxruntime has no CPU kernel for QLinearReduceMean, so its
           reference is the op's schema definition run by onnxruntime:
           DequantizeLinear -> ReduceMean -> QuantizeLinear. Bound: one unit
           of the output scale + 1e-6.
  attention: onnxruntime's fused Attention (the op its transformer
           optimizer writes) built in-script and quantized by
           quantize_dynamic into DynamicQuantizeLinear + QAttention: no
           mask, raw 2-D and 3-D masks, 1-D end and end/start positions,
           unidirectional with a mask, an explicit scale, per-column uint8
           weights. f32 output; bound 1e-4 + 1e-3 max|ort|, and the QKV
           projection must be an integer contraction (the uint8 weights'
           per-column zero points included).
  lstm:    quantize_dynamic on the bidirectional test LSTM
           (make_real_models.lstm) and on a reverse LSTM with per-column
           weight scales that exposes Y, Y_h and Y_c. Kiln runs the f32 LSTM
           on the dequantized weights (docs/precision.md): checked at 1e-4 +
           1e-3 max|ort| against onnxruntime's LSTM on those weights, and,
           at 5% of the output's largest value, against onnxruntime's
           DynamicQuantizeLSTM, which also quantizes X and every hidden state
           (the difference is 1.3-1.9% here).
  tool:    quantize_static (QOperator and QDQ; uint8 activations, int8
           weights) and quantize_dynamic on each test model
           (make_real_models.MODELS), the op types each writes listed; every
           quantized model must compile, or kilnc must refuse it naming a
           node. The set of com.microsoft ops seen must be ones Kiln imports.

Usage: contrib_quant_e2e.py --kilnc KILNC --kiln KILN [--workdir DIR]
The Bazel test is //tests/models:contrib_quant_e2e.
"""

import argparse
import collections
import logging
import os
import re
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
import qoperator_e2e as qo  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import compare_with_ort  # noqa: E402
import onnxruntime as ort  # noqa: E402
from onnxruntime import quantization as q  # noqa: E402

MS = "com.microsoft"
F, I32, BOOL = TensorProto.FLOAT, TensorProto.INT32, TensorProto.BOOL
# com.microsoft ops Kiln imports (compiler/onnx/ContribQuantConverters.cpp).
IMPORTED = {"QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax",
            "QLinearGlobalAveragePool", "QLinearAveragePool", "QLinearConcat", "QGemm",
            "QLinearReduceMean", "QLinearWhere", "QAttention", "DynamicQuantizeLSTM"}


def run_both(model_path, kilnc, kiln, workdir, label, inputs, reference=None):
    """Kiln's outputs and onnxruntime's (of `reference` when given, else of
    the model itself), as two {name: array}; None after printing a FAIL."""
    artifact = os.path.join(workdir, label + ".kiln")
    proc = subprocess.run([kilnc, model_path, "-o", artifact], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL {label}: kilnc exited {proc.returncode}:\n{proc.stderr}")
        return None
    options = ort.SessionOptions()
    options.log_severity_level = 3  # not the unused-initializer notes
    session = compare_with_ort.ort_session(reference or model_path, options)
    names = [o.name for o in session.get_outputs()]
    want = dict(zip(names, session.run(None, inputs)))
    try:
        got = compare_with_ort.run_kiln(kiln, artifact, inputs, names,
                                        os.path.join(workdir, label + "_out"))
    except compare_with_ort.KilnRunError as e:
        print(f"FAIL {label}: {e.summary}\n{e.detail}")
        return None
    return got, want


def within(label, got, want, bound_of, what):
    ok = True
    for name, w in want.items():
        g = got.get(name)
        if g is None or g.shape != w.shape:
            print(f"FAIL {label}: output {name} missing or of shape "
                  f"{None if g is None else g.shape}, expected {w.shape}")
            ok = False
            continue
        diff = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64))))
        bound = bound_of(w)
        passed = diff <= bound
        ok &= passed
        print(f"{'ok  ' if passed else 'FAIL'} {label}: {name} max|kiln - ort| = {diff:.6g} "
              f"(bound {bound:.6g}: {what}; max|ort| = {float(np.max(np.abs(w))):.4g})")
    return ok


def f32_bound(w):
    return 1e-4 + 1e-3 * float(np.max(np.abs(w)))


def has_int8_contraction(kilnc, path):
    ir = subprocess.run([kilnc, path, "--emit=kiln", "-o", "-"], capture_output=True,
                        text=True).stdout
    return re.search(r"kiln\.matmul [^\n]*: tensor<[0-9x]+xi8>, tensor<[0-9x]+xi8>", ir)


# --- QLinearWhere and QLinearReduceMean ------------------------------------

def where(cond_shape, zp_type, z_param):
    def build(nodes, inits, qn):
        rng = np.random.default_rng(11)
        cond = qo._c(inits, "cond", rng.integers(0, 2, cond_shape).astype(bool))
        zs, zz = qo.out_params(inits, "where", z_param[0], zp_type(z_param[1]))
        nodes.append(helper.make_node("QLinearWhere", [cond, *qn["a"], *qn["b"], zs, zz], ["o"],
                                      domain=MS, name="qlinearwhere"))
        return "o", zs, zz
    return build


def reduce_mean(zp, **attrs):
    return qo.unary("QLinearReduceMean", 0.004, zp, **attrs)


OP_CASES = {
    # name: (inputs, build, output shape)
    "qlinearwhere_broadcast_u8": ({"a": ([2, 3, 4], 0.01, np.uint8(130)),
                                   "b": ([3, 1], 0.02, np.uint8(100))},
                                  where([1, 3, 4], np.uint8, (0.015, 120)),
                                  [2, 3, 4]),
    "qlinearwhere_i8": ({"a": ([4, 5], 0.01, np.int8(-3)), "b": ([4, 5], 0.005, np.int8(9))},
                        where([4, 5], np.int8, (0.008, -10)), [4, 5]),
    "qlinearreducemean_keepdims_u8": ({"x": ([2, 6, 5], 0.01, np.uint8(128))},
                                      reduce_mean(np.uint8(125), axes=[1], keepdims=1),
                                      [2, 1, 5]),
    "qlinearreducemean_axes_i8": ({"x": ([3, 4, 8], 0.01, np.int8(4))},
                                  reduce_mean(np.int8(-2), axes=[-1, 0], keepdims=0), [4]),
}


def schema_reference(path):
    """The model with each QLinearReduceMean replaced by its schema's
    definition: DequantizeLinear -> ReduceMean -> QuantizeLinear."""
    model = onnx.load(path)
    nodes = []
    for node in model.graph.node:
        if node.op_type != "QLinearReduceMean":
            nodes.append(node)
            continue
        x, xs, xz, ys, yz = node.input
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        nodes += [helper.make_node("DequantizeLinear", [x, xs, xz], [x + "_dq"]),
                  helper.make_node("ReduceMean", [x + "_dq"], [x + "_mean"], **attrs),
                  helper.make_node("QuantizeLinear", [x + "_mean", ys, yz], list(node.output))]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    reference = path.replace(".onnx", "_reference.onnx")
    onnx.save(model, reference)
    return reference


def op_graphs(workdir, kilnc, kiln):
    ok = True
    for name, (inputs, build, shape) in OP_CASES.items():
        path = qo.op_model(os.path.join(workdir, name + ".onnx"), inputs, build, shape, 13)
        if "reducemean" not in name:
            ok &= qm.check(path, kilnc, kiln, workdir, name, contraction=False)
            continue
        model = onnx.load(path)
        feeds = compare_with_ort.make_inputs(model, seed=0, shapes={})
        result = run_both(path, kilnc, kiln, workdir, name, feeds, schema_reference(path))
        scale = compare_with_ort.output_scales(model)["y"]
        ok &= result is not None and within(name, *result, lambda w: scale + 1e-6,
                                            f"scale {scale:.6g}")
    return ok


# --- QAttention -------------------------------------------------------------

BATCH, SEQ, HIDDEN, HEADS = 2, 7, 32, 4


def attention_model(path, mask_shape, seed, **attrs):
    rng = np.random.default_rng(seed)
    inits = [numpy_helper.from_array(rng.normal(0, 0.2, (HIDDEN, 3 * HIDDEN)).astype(np.float32),
                                     "w"),
             numpy_helper.from_array(rng.normal(0, 0.1, (3 * HIDDEN,)).astype(np.float32), "b")]
    inputs = [helper.make_tensor_value_info("x", F, [BATCH, SEQ, HIDDEN])]
    node_inputs = ["x", "w", "b"]
    if mask_shape is not None:
        inputs.append(helper.make_tensor_value_info("mask", I32, mask_shape))
        node_inputs.append("mask")
    graph = helper.make_graph(
        [helper.make_node("Attention", node_inputs, ["y"], domain=MS, num_heads=HEADS,
                          name="attention", **attrs)],
        "attention", inputs, [helper.make_tensor_value_info("y", F, [BATCH, SEQ, HIDDEN])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    onnx.save(model, path)


def attention_masks(kind, rng):
    if kind is None:
        return None
    if kind == "raw2d":
        mask = np.ones((BATCH, SEQ), np.int32)
        mask[1, 4:] = 0
        mask[0, 2] = 0
        return mask
    if kind == "raw3d":
        return rng.integers(0, 2, (BATCH, SEQ, SEQ)).astype(np.int32) | np.eye(SEQ, dtype=np.int32)
    if kind == "end":
        return np.array([SEQ, 4], np.int32)
    if kind == "end_start":
        return np.array([SEQ, 5, 0, 2], np.int32)
    raise ValueError(kind)


ATTENTION_CASES = {
    # name: (mask kind, mask shape, attributes, quantize_dynamic options)
    "qattention_nomask": (None, None, {}, {}),
    "qattention_raw2d": ("raw2d", [BATCH, SEQ], {}, {}),
    "qattention_raw3d": ("raw3d", [BATCH, SEQ, SEQ], {}, {}),
    "qattention_end": ("end", [BATCH], {}, {}),
    "qattention_end_start": ("end_start", [2 * BATCH], {}, {}),
    "qattention_unidirectional_raw2d": ("raw2d", [BATCH, SEQ], {"unidirectional": 1}, {}),
    "qattention_scale_perchannel_u8": (None, None, {"scale": 0.3},
                                       {"per_channel": True,
                                        "weight_type": q.QuantType.QUInt8}),
}


def attention(workdir, kilnc, kiln):
    ok = True
    for i, (name, (kind, shape, attrs, options)) in enumerate(ATTENTION_CASES.items()):
        path = os.path.join(workdir, name + "_f32.onnx")
        attention_model(path, shape, seed=20 + i, **attrs)
        qpath = os.path.join(workdir, name + ".onnx")
        q.quantize_dynamic(path, qpath, **({"weight_type": q.QuantType.QInt8} | options))
        ops = [n.op_type for n in onnx.load(qpath).graph.node]
        if "QAttention" not in ops:
            print(f"FAIL {name}: quantize_dynamic wrote {ops}, no QAttention")
            ok = False
            continue
        rng = np.random.default_rng(i)
        feeds = {"x": rng.normal(0, 1, (BATCH, SEQ, HIDDEN)).astype(np.float32)}
        mask = attention_masks(kind, rng)
        if mask is not None:
            feeds["mask"] = mask
        result = run_both(qpath, kilnc, kiln, workdir, name, feeds)
        ok &= result is not None and within(name, *result, f32_bound, "1e-4 + 1e-3 max|ort|")
        # uint8 weights carry per-column zero points, which kiln-fold-qdq
        # folds too (a run-time rowsum term; docs/design.md "INT8").
        if not has_int8_contraction(kilnc, qpath):
            print(f"FAIL {name}: the QKV projection is not an integer contraction")
            ok = False
    return ok


# --- DynamicQuantizeLSTM ------------------------------------------------------

def reverse_lstm(path):
    """A reverse LSTM (input 12, hidden 16, 5 steps, batch 3) exposing Y, Y_h
    and Y_c, with initial states and a bias."""
    rng = np.random.default_rng(31)
    hidden, size = 16, 12
    inits = [numpy_helper.from_array(rng.normal(0, 0.3, shape).astype(np.float32), name)
             for name, shape in [("W", (1, 4 * hidden, size)), ("R", (1, 4 * hidden, hidden)),
                                 ("B", (1, 8 * hidden)), ("h0", (1, 3, hidden)),
                                 ("c0", (1, 3, hidden))]]
    vi = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node("LSTM", ["x", "W", "R", "B", "", "h0", "c0"], ["Y", "Y_h", "Y_c"],
                          hidden_size=hidden, direction="reverse", name="lstm")],
        "reverse_lstm", [vi("x", F, [5, 3, size])],
        [vi("Y", F, [5, 1, 3, hidden]), vi("Y_h", F, [1, 3, hidden]), vi("Y_c", F, [1, 3, hidden])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    onnx.save(model, path)


def dequantized_lstm(qpath):
    """The quantized model with each DynamicQuantizeLSTM replaced by ONNX
    LSTM on its weights dequantized in NumPy (what Kiln computes)."""
    model = onnx.load(qpath)
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    nodes = []
    for node in model.graph.node:
        if node.op_type != "DynamicQuantizeLSTM":
            nodes.append(node)
            continue
        ins = list(node.input)
        for w, s, z in [(1, 8, 9), (2, 10, 11)]:
            scale, zp = inits[ins[s]], inits[ins[z]].astype(np.float32)
            if scale.ndim == 1:
                scale, zp = scale[:, None, None], zp[:, None, None]
            else:
                scale, zp = scale[:, None, :], zp[:, None, :]
            deq = ((inits[ins[w]].astype(np.float32) - zp) * scale).transpose(0, 2, 1)
            name = ins[w] + "_dequantized"
            model.graph.initializer.append(numpy_helper.from_array(deq.astype(np.float32), name))
            ins[w] = name
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        nodes.append(helper.make_node("LSTM", ins[:8], list(node.output), name=node.name, **attrs))
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    model.opset_import[0].version = max(model.opset_import[0].version, 14)
    reference = qpath.replace(".onnx", "_dequantized.onnx")
    onnx.save(model, reference)
    return reference


def lstm(workdir, kilnc, kiln):
    ok = True
    cases = [("lstm_bidirectional_dynamic", make_real_models.lstm, {}),
             ("lstm_reverse_perchannel_dynamic", reverse_lstm, {"per_channel": True})]
    for name, make, options in cases:
        path = os.path.join(workdir, name + "_f32.onnx")
        make(path)
        qpath = os.path.join(workdir, name + ".onnx")
        q.quantize_dynamic(path, qpath, **({"weight_type": q.QuantType.QInt8} | options))
        if "DynamicQuantizeLSTM" not in [n.op_type for n in onnx.load(qpath).graph.node]:
            print(f"FAIL {name}: quantize_dynamic wrote no DynamicQuantizeLSTM")
            ok = False
            continue
        feeds = make_real_models.random_inputs(onnx.load(qpath), seed=3)
        result = run_both(qpath, kilnc, kiln, workdir, name + "_def", feeds,
                          dequantized_lstm(qpath))
        ok &= result is not None and within(name + " vs LSTM(dequantized weights)", *result,
                                            f32_bound, "1e-4 + 1e-3 max|ort|")
        result = run_both(qpath, kilnc, kiln, workdir, name, feeds)
        # onnxruntime quantizes X and each step's hidden state to uint8 as
        # well; that rounding reaches 1.9% of the output's range here.
        ok &= result is not None and within(
            name + " vs onnxruntime's DynamicQuantizeLSTM", *result,
            lambda w: 0.05 * float(np.max(np.abs(w))), "0.05 max|ort|")
    return ok


# --- what the tool writes for the test models --------------------------------

class Reader(q.CalibrationDataReader):
    def __init__(self, model, count=2):
        self.samples = [make_real_models.random_inputs(model, seed=500 + i) for i in range(count)]

    def get_next(self):
        return self.samples.pop() if self.samples else None


def tool_outputs(workdir, kilnc):
    ok, microsoft = True, set()
    for filename, make in make_real_models.MODELS.items():
        path = os.path.join(workdir, "tool_" + filename)
        make(path)
        for form in ["qoperator", "qdq", "dynamic"]:
            out = path.replace(".onnx", f"_{form}.onnx")
            if form == "dynamic":
                q.quantize_dynamic(path, out, weight_type=q.QuantType.QInt8)
            else:
                fmt = q.QuantFormat.QOperator if form == "qoperator" else q.QuantFormat.QDQ
                q.quantize_static(path, out, Reader(onnx.load(path)), quant_format=fmt,
                                  activation_type=q.QuantType.QUInt8,
                                  weight_type=q.QuantType.QInt8)
            nodes = onnx.load(out).graph.node
            ops = collections.Counter((n.domain + "::" if n.domain else "") + n.op_type
                                      for n in nodes)
            microsoft |= {n.op_type for n in nodes if n.domain == MS}
            proc = subprocess.run([kilnc, out, "-o", out.replace(".onnx", ".kiln")],
                                  capture_output=True, text=True)
            label = f"{filename[:-5]} {form}"
            if proc.returncode == 0:
                status = "compiles"
            elif re.search(r"node '[^']+'", proc.stderr):
                status = "refused: " + proc.stderr.strip().splitlines()[0]
            else:
                status = f"FAIL: kilnc exited {proc.returncode} without naming a node"
                ok = False
                print(proc.stderr)
            print(f"{'FAIL' if status.startswith('FAIL') else 'ok  '} {label}: {status}\n"
                  f"     ops: " + ", ".join(f"{t} x{c}" for t, c in sorted(ops.items())))
    unknown = microsoft - IMPORTED
    print(f"com.microsoft ops written: {sorted(microsoft)}")
    if unknown:
        print(f"FAIL: the tool wrote com.microsoft ops Kiln does not import: {sorted(unknown)}")
        ok = False
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--parts", default="ops,attention,lstm,tool")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the quantization tool's advice
    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-contrib-quant-")
    os.makedirs(workdir, exist_ok=True)
    parts = {"ops": op_graphs, "attention": attention, "lstm": lstm,
             "tool": lambda w, c, k: tool_outputs(w, c)}
    ok = True
    for part in args.parts.split(","):
        ok &= parts[part](workdir, args.kilnc, args.kiln)
    print("all com.microsoft quantized models match onnxruntime" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
