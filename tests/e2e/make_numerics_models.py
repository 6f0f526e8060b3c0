#!/usr/bin/env python3
"""Small ONNX models with odd shapes for the code generation numerics test
(//tests/e2e:codegen_numerics, numerics_test.py).

Each model exercises one contraction (MatMul, batched / broadcast MatMul,
Gemm, Conv) or one contraction plus the elementwise / reduction ops that get
fused after it, on shapes that do not divide the register and workgroup
tiles: 1-sized dims, K = 1, odd M/N/K, K past 4096, odd spatial sizes,
depthwise and grouped convolutions, batch 2. Models named *_f64 are the same
in f64 (checked at a tolerance only f64 arithmetic meets), and
folded_gather_scatter checks the import-time folders of the gathers and
scatters.

Weights and inputs are seeded (numpy default_rng), so the models and the
inputs are the same on every run. Nothing here is committed as .onnx: the
test writes the models into its temporary directory.

    python make_numerics_models.py OUTDIR      # writes OUTDIR/*.onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 20  # Gelu is an ONNX op from opset 20.
FLOAT = TensorProto.FLOAT


class Spec:
    """One test model: its graph builder, the contraction depth K that scales
    the tolerance, and whether the (slow) scalar strategy is also run on it."""

    def __init__(self, name, build, k, scalar=False):
        self.name = name
        self.build = build
        self.k = k
        self.scalar = scalar
        # f64 models are checked at a tolerance f32 arithmetic cannot meet.
        self.f64 = name.endswith("_f64")


def _rng(name):
    # A seed per model, stable across Python runs (hash() is salted).
    return np.random.default_rng(sum(ord(c) * 31 ** i for i, c in enumerate(name)) % (2 ** 32))


def _w(rng, name, shape):
    return numpy_helper.from_array(rng.uniform(-1.0, 1.0, size=shape).astype(np.float32), name)


def _vi(name, shape):
    return helper.make_tensor_value_info(name, FLOAT, list(shape))


def _model(name, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="kiln-numerics")
    model.ir_version = 9
    onnx.checker.check_model(model, full_check=True)
    return model


# ---------------------------------------------------------------- MatMul
def matmul(m, k, n, const_b):
    def build(name):
        rng = _rng(name)
        inits = [_w(rng, "B", (k, n))] if const_b else []
        inputs = [_vi("A", (m, k))] + ([] if const_b else [_vi("B", (k, n))])
        return _model(name, [helper.make_node("MatMul", ["A", "B"], ["Y"])],
                      inputs, [_vi("Y", (m, n))], inits)
    return build


def batched_matmul(a_shape, b_shape, y_shape, const_b):
    def build(name):
        rng = _rng(name)
        inits = [_w(rng, "B", b_shape)] if const_b else []
        inputs = [_vi("A", a_shape)] + ([] if const_b else [_vi("B", b_shape)])
        return _model(name, [helper.make_node("MatMul", ["A", "B"], ["Y"])],
                      inputs, [_vi("Y", y_shape)], inits)
    return build


# ---------------------------------------------------------------- Gemm
def gemm(m, k, n, trans_b, alpha, beta, c_shape):
    def build(name):
        rng = _rng(name)
        b_shape = (n, k) if trans_b else (k, n)
        inits = [_w(rng, "B", b_shape)]
        if c_shape is not None:
            inits.append(_w(rng, "C", c_shape))
        node = helper.make_node("Gemm", ["A", "B"] + (["C"] if c_shape is not None else []),
                                ["Y"], transB=trans_b, alpha=alpha, beta=beta)
        return _model(name, [node], [_vi("A", (m, k))], [_vi("Y", (m, n))], inits)
    return build


# ---------------------------------------------------------------- Conv
def _conv_out(size, kernel, stride, pad):
    return (size + 2 * pad - kernel) // stride + 1


def conv(n, c, h, w, oc, kernel, stride=1, pad=0, group=1, bias=False, relu=False):
    def build(name):
        rng = _rng(name)
        inits = [_w(rng, "W", (oc, c // group, kernel, kernel))]
        ins = ["X", "W"]
        if bias:
            inits.append(_w(rng, "Bc", (oc,)))
            ins.append("Bc")
        oh, ow = _conv_out(h, kernel, stride, pad), _conv_out(w, kernel, stride, pad)
        conv_out = "C" if relu else "Y"
        nodes = [helper.make_node("Conv", ins, [conv_out], kernel_shape=[kernel, kernel],
                                  strides=[stride, stride], pads=[pad] * 4, group=group)]
        if relu:
            nodes.append(helper.make_node("Relu", ["C"], ["Y"]))
        return _model(name, nodes, [_vi("X", (n, c, h, w))], [_vi("Y", (n, oc, oh, ow))], inits)
    return build


# ---------------------------------------------------------------- epilogues
def matmul_epilogue(m, k, n, tail):
    """MatMul by a constant weight, then `tail`: 'relu' / 'gelu' / 'gelu_erf'
    (bias add + activation), 'softmax', or 'layernorm' (bias add + LN)."""
    def build(name):
        rng = _rng(name)
        inits = [_w(rng, "W", (k, n)), _w(rng, "bias", (n,))]
        nodes = [helper.make_node("MatMul", ["A", "W"], ["mm"])]
        if tail == "softmax":
            nodes.append(helper.make_node("Softmax", ["mm"], ["Y"], axis=-1))
            inits.pop()
        else:
            nodes.append(helper.make_node("Add", ["mm", "bias"], ["z"]))
            if tail == "relu":
                nodes.append(helper.make_node("Relu", ["z"], ["Y"]))
            elif tail == "gelu":
                nodes.append(helper.make_node("Gelu", ["z"], ["Y"]))
            elif tail == "gelu_erf":
                # The form exporters emit: x * 0.5 * (1 + erf(x / sqrt(2))).
                inits += [numpy_helper.from_array(np.array(np.sqrt(2.0), np.float32), "sqrt2"),
                          numpy_helper.from_array(np.array(1.0, np.float32), "one"),
                          numpy_helper.from_array(np.array(0.5, np.float32), "half")]
                nodes += [helper.make_node("Div", ["z", "sqrt2"], ["t0"]),
                          helper.make_node("Erf", ["t0"], ["t1"]),
                          helper.make_node("Add", ["t1", "one"], ["t2"]),
                          helper.make_node("Mul", ["z", "t2"], ["t3"]),
                          helper.make_node("Mul", ["t3", "half"], ["Y"])]
            elif tail == "layernorm":
                inits += [_w(rng, "gamma", (n,)), _w(rng, "beta", (n,))]
                nodes.append(helper.make_node("LayerNormalization", ["z", "gamma", "beta"], ["Y"],
                                              axis=-1, epsilon=1e-5))
            else:
                raise ValueError(tail)
        return _model(name, nodes, [_vi("A", (m, k))], [_vi("Y", (m, n))], inits)
    return build


def concat(piece_shapes, axis, const_piece=None):
    """Relu of each input (so every piece comes from another dispatch), then
    Concat along `axis`; `const_piece` adds a constant piece of that shape."""
    def build(name):
        rng = _rng(name)
        nodes, pieces, inputs, inits = [], [], [], []
        for i, shape in enumerate(piece_shapes):
            inputs.append(_vi(f"X{i}", shape))
            nodes.append(helper.make_node("Relu", [f"X{i}"], [f"r{i}"]))
            pieces.append(f"r{i}")
        if const_piece is not None:
            inits.append(_w(rng, "C", const_piece))
            pieces.insert(1, "C")
        out = list(piece_shapes[0])
        out[axis] = sum(s[axis] for s in piece_shapes) + (const_piece[axis] if const_piece else 0)
        nodes.append(helper.make_node("Concat", pieces, ["Y"], axis=axis))
        return _model(name, nodes, inputs, [_vi("Y", out)], inits)
    return build


def as_f64(build):
    """The f32 model `build` makes, with every float tensor (inputs, outputs,
    weights) in f64: Kiln must compute it in f64 (the CPU register-tile
    kernels are f32-only, so contractions take the loop-order strategy)."""
    def build_f64(name):
        model = build(name)
        graph = model.graph
        for value in list(graph.input) + list(graph.output) + list(graph.value_info):
            if value.type.tensor_type.elem_type == FLOAT:
                value.type.tensor_type.elem_type = TensorProto.DOUBLE
        for i, init in enumerate(graph.initializer):
            if init.data_type == FLOAT:
                array = numpy_helper.to_array(init).astype(np.float64)
                graph.initializer[i].CopyFrom(numpy_helper.from_array(array, init.name))
        onnx.checker.check_model(model, full_check=True)
        return model
    return build_f64


def folded_indexing(name):
    """Gathers and scatters whose operands are all constants: kilnc folds
    them at import (as it does for the shape sub-graphs exporters write), so
    this checks the folders against onnxruntime. Each result is added to a
    graph input so that the model computes something at run time."""
    c = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.25 - 1.0
    inits = [numpy_helper.from_array(c, "C"),
             numpy_helper.from_array(np.array([[3, 0], [-1, 2], [1, 1]], np.int64), "ei"),
             numpy_helper.from_array(np.array([[0, 1], [2, -1], [-3, 0]], np.int64), "ni"),
             numpy_helper.from_array(np.array([[1], [-1]], np.int64), "si"),
             numpy_helper.from_array(np.array([[5, 6, 7, 8], [-1, -2, -3, -4]], np.float32), "su"),
             numpy_helper.from_array(np.array([[9, -9], [0.5, 4], [-7, 2]], np.float32), "eu"),
             numpy_helper.from_array(np.array([[0], [2]], np.int64), "bi")]
    nodes = [
        helper.make_node("GatherElements", ["C", "ei"], ["ge"], axis=1),
        helper.make_node("GatherND", ["C", "ni"], ["gn"]),
        helper.make_node("GatherND", ["C", "bi"], ["gb"], batch_dims=0),
        helper.make_node("ScatterND", ["C", "si", "su"], ["sn"], reduction="add"),
        helper.make_node("ScatterElements", ["C", "ei", "eu"], ["se"], axis=1, reduction="max"),
        helper.make_node("ScatterND", ["C", "bi", "su"], ["sp"]),
        helper.make_node("Add", ["X32", "ge"], ["Y_ge"]),
        helper.make_node("Add", ["X3", "gn"], ["Y_gn"]),
        helper.make_node("Add", ["X24", "gb"], ["Y_gb"]),
        helper.make_node("Add", ["X34", "sn"], ["Y_sn"]),
        helper.make_node("Add", ["X34", "se"], ["Y_se"]),
        helper.make_node("Add", ["X34", "sp"], ["Y_sp"]),
    ]
    inputs = [_vi("X32", (3, 2)), _vi("X3", (3,)), _vi("X24", (2, 4)), _vi("X34", (3, 4))]
    outputs = [_vi("Y_ge", (3, 2)), _vi("Y_gn", (3,)), _vi("Y_gb", (2, 4)),
               _vi("Y_sn", (3, 4)), _vi("Y_se", (3, 4)), _vi("Y_sp", (3, 4))]
    return _model(name, nodes, inputs, outputs, inits)


# (200, 600, 136): several workgroups along M and N over K blocks, whose
# constant B the AVX2 data tiling packs in 16-lane panels (136 = 8 panels
# and a half, the last panel's tile half-width), and whose computed B
# (inputB, 544-byte rows) AVX2 copies into lane panels per K block;
# (100, 300, 1000): a computed B with 4000-byte rows, copied, lanes
# ending in a half tile; (24, 1024, 40): few rows, a lane split across
# workgroups; (65, 4097, 1024) and (72, 40, 1040): a computed B with rows a
# page or more apart, packed into lane panels by a dispatch of its own
# before the contraction (DataTiling.cpp, packsAtRunTime), 65 rows (a
# ragged last row tile), K = 4097 (K blocks and a tail of 1), and 1040 =
# 65 panels (an odd panel count: AVX-512's 32-lane tiles end in one).
MATMUL_DIMS = [(1, 1, 1), (1, 7, 1000), (37, 4097, 45), (64, 64, 64), (65, 33, 129),
               (3, 1, 5), (130, 17, 250), (200, 600, 136), (100, 300, 1000), (24, 1024, 40),
               (65, 4097, 1024), (72, 40, 1040)]
# The scalar strategy is slow: run it on the small MatMuls only.
SCALAR_MATMULS = {(1, 1, 1), (3, 1, 5), (65, 33, 129)}


def _specs():
    specs = []
    for m, k, n in MATMUL_DIMS:
        for const_b in (False, True):
            specs.append(Spec(f"matmul_{m}x{k}x{n}_{'constB' if const_b else 'inputB'}",
                              matmul(m, k, n, const_b), k,
                              scalar=(m, k, n) in SCALAR_MATMULS))
    specs += [
        Spec("bmm_2x3x7x19x33_inputB",
             batched_matmul((2, 3, 7, 19), (2, 3, 19, 33), (2, 3, 7, 33), False), 19, scalar=True),
        Spec("bmm_2x3x7x19x33_constB",
             batched_matmul((2, 3, 7, 19), (2, 3, 19, 33), (2, 3, 7, 33), True), 19),
        Spec("bmm_bcast_2x1x7x19_by_3x19x33",
             batched_matmul((2, 1, 7, 19), (3, 19, 33), (2, 3, 7, 33), False), 19, scalar=True),
        Spec("matmul_3d_by_2d_4x13x96_by_96x40",
             batched_matmul((4, 13, 96), (96, 40), (4, 13, 40), True), 96),
        # Size-1 dims everywhere, and K = 1 in a batched MatMul.
        Spec("bmm_size1_1x1x1x5_by_1x1x5x1",
             batched_matmul((1, 1, 1, 5), (1, 1, 5, 1), (1, 1, 1, 1), False), 5, scalar=True),
        Spec("bmm_k1_2x3x9x1_by_2x3x1x17",
             batched_matmul((2, 3, 9, 1), (2, 3, 1, 17), (2, 3, 9, 17), True), 1, scalar=True),
        Spec("matmul_dot_1x300_by_300x1", matmul(1, 300, 1, True), 300),
        Spec("gemm_transB_bias_23x31x45",
             gemm(23, 31, 45, 1, 0.7, 1.3, (45,)), 31, scalar=True),
        Spec("gemm_transB_fullC_1x64x19",
             gemm(1, 64, 19, 1, -1.5, 0.25, (1, 19)), 64),
        Spec("gemm_transB_k1_5x1x7", gemm(5, 1, 7, 1, 2.0, 0.5, (7,)), 1),
        Spec("conv1x1_s1_1x8x9x11_oc16", conv(1, 8, 9, 11, 16, 1), 8),
        # A 1x1 conv whose input rows (14 x 13 = 182 f32) lie off the
        # 64-byte lines: AVX2 copies them into lane panels.
        Spec("conv1x1_s1_1x40x14x13_oc50", conv(1, 40, 14, 13, 50, 1, bias=True, relu=True), 40),
        # Filters of 37 and 70 rows (no multiple of 8 or 6): the data tiling
        # stores them in row panels (DataTiling.cpp, findRowCandidate), the
        # last panel part padding; batch 2.
        Spec("conv3x3_p1_s1_2x9x11x10_oc37", conv(2, 9, 11, 10, 37, 3, 1, 1, bias=True, relu=True), 81),
        Spec("conv3x3_p1_s2_1x16x15x15_oc70", conv(1, 16, 15, 15, 70, 3, 2, 1, bias=True), 144),
        Spec("conv3x3_p1_s1_1x5x17x13_oc11", conv(1, 5, 17, 13, 11, 3, 1, 1), 45, scalar=True),
        Spec("conv3x3_p1_s2_1x5x17x13_oc11", conv(1, 5, 17, 13, 11, 3, 2, 1), 45, scalar=True),
        Spec("conv7x7_s2_p3_1x3x23x19_oc8", conv(1, 3, 23, 19, 8, 7, 2, 3), 147),
        Spec("conv_depthwise3x3_p1_1x12x15x9", conv(1, 12, 15, 9, 12, 3, 1, 1, group=12), 9,
             scalar=True),
        # Stride 2: register tiles read every other input column (odd
        # widths, so the last tile's last read is the row's last element).
        Spec("conv_depthwise3x3_s2_p1_1x16x37x35", conv(1, 16, 37, 35, 16, 3, 2, 1, group=16,
                                                       bias=True, relu=True), 9, scalar=True),
        Spec("conv_depthwise5x5_s2_p2_2x8x70x69", conv(2, 8, 70, 69, 8, 5, 2, 2, group=8), 25),
        Spec("conv_group2_3x3_p1_1x6x11x10_oc10", conv(1, 6, 11, 10, 10, 3, 1, 1, group=2), 27,
             scalar=True),
        Spec("conv_bias_relu_3x3_p1_1x7x13x13_oc9",
             conv(1, 7, 13, 13, 9, 3, 1, 1, bias=True, relu=True), 63),
        Spec("conv_batch2_bias_3x3_p1_2x4x10x7_oc6",
             conv(2, 4, 10, 7, 6, 3, 1, 1, bias=True), 36),
        Spec("conv1x1_k1_1x1x7x5_oc4", conv(1, 1, 7, 5, 4, 1), 1, scalar=True),
        # Concats split into workgroups over every dim but the axis.
        Spec("concat_axis1_1x8+16+5x13x11",
             concat([(1, 8, 13, 11), (1, 16, 13, 11), (1, 5, 13, 11)], 1), 1, scalar=True),
        Spec("concat_axis3_4x6x50x7+9", concat([(4, 6, 50, 7), (4, 6, 50, 9)], 3), 1),
        Spec("concat_axis0_3+5x4096", concat([(3, 4096), (5, 4096)], 0), 1),
        Spec("concat_const_axis1_2x4+3+6x64",
             concat([(2, 4, 64), (2, 6, 64)], 1, const_piece=(2, 3, 64)), 1),
        Spec("concat_axis1_1x64+64x56x56",
             concat([(1, 64, 56, 56), (1, 64, 56, 56)], 1), 1),
        Spec("matmul_bias_relu_19x47x33", matmul_epilogue(19, 47, 33, "relu"), 47, scalar=True),
        Spec("matmul_bias_gelu_19x47x33", matmul_epilogue(19, 47, 33, "gelu"), 47),
        Spec("matmul_bias_gelu_erf_19x47x33", matmul_epilogue(19, 47, 33, "gelu_erf"), 47),
        Spec("matmul_softmax_21x40x67", matmul_epilogue(21, 40, 67, "softmax"), 40, scalar=True),
        Spec("matmul_bias_layernorm_21x40x67", matmul_epilogue(21, 40, 67, "layernorm"), 40,
             scalar=True),
        Spec("folded_gather_scatter", folded_indexing, 1),
        # f64 end to end (DOUBLE inputs, weights and outputs).
        Spec("matmul_65x33x129_constB_f64", as_f64(matmul(65, 33, 129, True)), 33),
        Spec("bmm_2x3x7x19x33_inputB_f64",
             as_f64(batched_matmul((2, 3, 7, 19), (2, 3, 19, 33), (2, 3, 7, 33), False)), 19),
        Spec("gemm_transB_bias_23x31x45_f64", as_f64(gemm(23, 31, 45, 1, 0.7, 1.3, (45,))), 31),
        Spec("matmul_softmax_21x40x67_f64", as_f64(matmul_epilogue(21, 40, 67, "softmax")), 40),
        Spec("matmul_bias_layernorm_21x40x67_f64",
             as_f64(matmul_epilogue(21, 40, 67, "layernorm")), 40),
        # (onnxruntime has no f64 Conv or Erf kernel to compare with.)
        Spec("matmul_bias_relu_19x47x33_f64", as_f64(matmul_epilogue(19, 47, 33, "relu")), 47),
    ]
    return specs


SPECS = _specs()


def random_inputs(model, name):
    """Seeded uniform(-1, 1) values for every graph input."""
    rng = np.random.default_rng(_rng(name).integers(2 ** 32) ^ 0x5EED)
    inputs = {}
    for value in model.graph.input:
        dims = [d.dim_value for d in value.type.tensor_type.shape.dim]
        dtype = np.float64 if value.type.tensor_type.elem_type == TensorProto.DOUBLE else np.float32
        inputs[value.name] = rng.uniform(-1.0, 1.0, size=dims).astype(dtype)
    return inputs


def write_models(outdir, names=None):
    """Writes every model (or those named) into outdir; returns [(spec, path)]."""
    os.makedirs(outdir, exist_ok=True)
    written = []
    for spec in SPECS:
        if names and spec.name not in names:
            continue
        path = os.path.join(outdir, spec.name + ".onnx")
        onnx.save(spec.build(spec.name), path)
        written.append((spec, path))
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for spec, path in write_models(sys.argv[1]):
        print(path)
