#!/usr/bin/env python3
"""Writes the small ONNX models that kilnc's lit tests import.

Run with the test venv (scripts/setup.sh creates it):

    ~/.cache/kiln/venv/bin/python tests/onnx/make_test_models.py

The generated files are committed under tests/onnx/models/; rerun this
script after changing it. Besides valid models it writes broken ones, one per
error path of the importer (truncated file, unknown ops, external data
outside the model's folder, unsupported dtype and opset, ...).
"""

import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "models")
CUDA_OUT = os.path.join(HERE, "..", "cuda", "models")
F = TensorProto.FLOAT
I64 = TensorProto.INT64


def save(model, name, check=True, out=None):
    if check:
        onnx.checker.check_model(model)
    path = os.path.join(out or OUT, name)
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return path


def model(nodes, inputs, outputs, inits=(), opset=17, name="g", ir=8):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def simple_add():
    n = [helper.make_node("Add", ["x", "y"], ["z"], name="add0"),
         helper.make_node("Relu", ["z"], ["out"], name="relu0")]
    save(model(n, [vi("x", F, ["batch", 4]), vi("y", F, [4])],
               [vi("out", F, ["batch", 4])]), "simple_add.onnx")


def elementwise():
    x, y = vi("x", F, [2, 3]), vi("y", F, [3])
    b = vi("b", TensorProto.BOOL, [2, 3])
    i = vi("i", TensorProto.INT32, [2, 3])
    n = [
        helper.make_node("Sub", ["x", "y"], ["sub"], name="sub"),
        helper.make_node("Mul", ["sub", "y"], ["mul"], name="mul"),
        helper.make_node("Div", ["mul", "y"], ["div"], name="div"),
        helper.make_node("Pow", ["div", "y"], ["pow"], name="pow"),
        helper.make_node("Max", ["pow", "x", "y"], ["max"], name="max"),
        helper.make_node("Mean", ["max", "x"], ["mean"], name="mean"),
        helper.make_node("Sum", ["mean", "x", "x"], ["sum"], name="sum"),
        helper.make_node("Exp", ["sum"], ["exp"], name="exp"),
        helper.make_node("Sqrt", ["exp"], ["sqrt"], name="sqrt"),
        helper.make_node("Erf", ["sqrt"], ["erf"], name="erf"),
        helper.make_node("Less", ["erf", "x"], ["less"], name="less"),
        helper.make_node("And", ["less", "b"], ["and"], name="and"),
        helper.make_node("Not", ["and"], ["not"], name="not"),
        helper.make_node("Where", ["not", "erf", "x"], ["where"], name="where"),
        helper.make_node("Cast", ["where"], ["cast"], name="cast", to=TensorProto.INT32),
        helper.make_node("Mod", ["cast", "i"], ["mod"], name="mod"),
        helper.make_node("Mod", ["where", "x"], ["fmod"], name="fmod", fmod=1),
        helper.make_node("Clip", ["fmod", "lo", "hi"], ["clip"], name="clip"),
    ]
    inits = [const("lo", np.float32(-1)), const("hi", np.float32(1))]
    save(model(n, [x, y, b, i], [vi("clip", F, [2, 3]), vi("mod", TensorProto.INT32, [2, 3])],
               inits), "elementwise.onnx")


def activations():
    names = ["Elu", "Selu", "Celu", "LeakyRelu", "HardSigmoid", "HardSwish",
             "Softplus", "Softsign", "Mish", "ThresholdedRelu", "Shrink"]
    nodes, prev = [], "x"
    for k in names:
        nodes.append(helper.make_node(k, [prev], [k.lower()], name=k.lower()))
        prev = k.lower()
    nodes.append(helper.make_node("PRelu", [prev, "slope"], ["prelu"], name="prelu"))
    nodes.append(helper.make_node("Gelu", ["prelu"], ["gelu"], name="gelu",
                                  approximate="tanh"))
    save(model(nodes, [vi("x", F, [2, 4])], [vi("gelu", F, [2, 4])],
               [const("slope", np.full([4], 0.25, np.float32))], opset=20),
         "activations.onnx")


def initializers():
    """The same kinds of weights stored raw, in typed fields and externally."""
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    raw = numpy_helper.from_array(w, "w_raw")
    typed = helper.make_tensor("w_typed", F, [2, 3], w.flatten().tolist(), raw=False)
    f16 = helper.make_tensor("h_typed", TensorProto.FLOAT16, [3],
                             [1.0, 2.0, 3.0])  # make_tensor stores the f16 bits in int32_data
    bf16 = helper.make_tensor("bf_typed", TensorProto.BFLOAT16, [2],
                              [1.0, 2.0])  # stored as bf16 bits in int32_data
    i8 = helper.make_tensor("i8_typed", TensorProto.INT8, [3], [-1, 0, 127])
    b = helper.make_tensor("b_typed", TensorProto.BOOL, [2], [1, 0])
    i64 = helper.make_tensor("i64_typed", I64, [2], [-5, 1 << 40])
    ext = numpy_helper.from_array(w * 10, "w_ext")
    ext_dir = os.path.join(OUT, "initializers_ext")
    os.makedirs(ext_dir, exist_ok=True)
    with open(os.path.join(ext_dir, "weights.bin"), "wb") as f:
        f.write(b"\0" * 16)  # an offset, so that offset handling is tested
        f.write(ext.raw_data)
    ext.ClearField("raw_data")
    ext.data_location = TensorProto.EXTERNAL
    for k, v in [("location", "weights.bin"), ("offset", "16"), ("length", "24")]:
        e = ext.external_data.add()
        e.key, e.value = k, v
    n = [helper.make_node("Add", ["x", "w_raw"], ["a"], name="add_raw"),
         helper.make_node("Add", ["a", "w_typed"], ["b"], name="add_typed"),
         helper.make_node("Add", ["b", "w_ext"], ["c"], name="add_ext")]
    outs = [vi("c", F, [2, 3]), vi("h_typed", TensorProto.FLOAT16, [3]),
            vi("bf_typed", TensorProto.BFLOAT16, [2]), vi("i8_typed", TensorProto.INT8, [3]),
            vi("b_typed", TensorProto.BOOL, [2]), vi("i64_typed", I64, [2])]
    m = model(n, [vi("x", F, [2, 3])], outs, [raw, typed, f16, bf16, i8, b, i64, ext])
    path = os.path.join(ext_dir, "model.onnx")
    with open(path, "wb") as f:
        f.write(m.SerializeToString())


def external_bad(name, location, make_file=None):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    t = numpy_helper.from_array(np.ones([4], np.float32), "w")
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", location
    if make_file:
        make_file(d)
    n = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    m = model(n, [vi("x", F, [4])], [vi("y", F, [4])], [t])
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())


def bad_models():
    # Truncated: a valid model cut in the middle.
    n = [helper.make_node("Relu", ["x"], ["y"], name="r")]
    data = model(n, [vi("x", F, [64])], [vi("y", F, [64])],
                 [const("unused", np.ones([64], np.float32))]).SerializeToString()
    with open(os.path.join(OUT, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    # Unknown ops, two types over three nodes, plus a custom domain.
    n = [helper.make_node("NonMaxSuppression", ["x", "x"], ["a"], name="nms1"),
         helper.make_node("Relu", ["x"], ["r"], name="relu"),
         helper.make_node("NonMaxSuppression", ["x", "x"], ["b"], name="nms2"),
         helper.make_node("FancyOp", ["x"], ["c"], name="fancy", domain="com.example")]
    g = helper.make_graph(n, "g", [vi("x", F, [1, 4, 4])],
                          [vi("a", I64, None), vi("b", I64, None), vi("c", F, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                            helper.make_opsetid("com.example", 1)])
    save(m, "unknown_ops.onnx", check=False)
    # A UINT16 input (a dtype Kiln does not handle).
    n = [helper.make_node("Relu", ["x"], ["y"], name="r")]
    save(model(n, [vi("x", TensorProto.UINT16, [2])], [vi("y", TensorProto.UINT16, [2])]),
         "uint16_input.onnx", check=False)
    # Opset 5.
    save(model([helper.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", F, [2])],
               [vi("y", F, [2])], opset=5, ir=3), "opset5.onnx", check=False)
    # External data: escaping, absolute, missing, symlink escaping.
    external_bad("ext_escape", "../secret.bin")
    external_bad("ext_absolute", "/etc/passwd")
    external_bad("ext_missing", "missing.bin")

    def link(d):
        p = os.path.join(d, "link.bin")
        if os.path.lexists(p):
            os.remove(p)
        os.symlink("../simple_add.onnx", p)
    external_bad("ext_symlink", "link.bin", link)
    # A dynamic Reshape shape: the shape is a graph input.
    n = [helper.make_node("Reshape", ["x", "s"], ["y"], name="dyn_reshape")]
    save(model(n, [vi("x", F, [2, 3]), vi("s", I64, [2])], [vi("y", F, None)]),
         "dynamic_reshape.onnx", check=False)


def old_ir():
    """IR 3: initializers also listed as graph inputs."""
    w = const("w", rand(3, 4))
    n = [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    m = model(n, [vi("x", F, [2, 3]), vi("w", F, [3, 4])], [vi("y", F, [2, 4])], [w],
              opset=8, ir=3)
    save(m, "old_ir_initializer_inputs.onnx")


def shape_subgraph():
    """What exporters emit for x.view(x.size(0), -1): Shape, Gather,
    Unsqueeze, Concat, Reshape."""
    n = [
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "zero"], ["n"], name="gather", axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsqueeze"),
        helper.make_node("Concat", ["n1", "minus_one"], ["target"], name="concat", axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape"),
    ]
    inits = [const("zero", np.int64(0)), const("axes", np.array([0], np.int64)),
             const("minus_one", np.array([-1], np.int64))]
    save(model(n, [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 12])], inits, opset=13),
         "shape_subgraph.onnx")


def small_cnn():
    inits = [
        const("conv_w", rand(8, 3, 3, 3)), const("conv_b", rand(8, seed=1)),
        const("bn_s", np.ones(8, np.float32)), const("bn_b", np.zeros(8, np.float32)),
        const("bn_m", np.zeros(8, np.float32)), const("bn_v", np.ones(8, np.float32)),
        const("fc_w", rand(10, 8, seed=2)), const("fc_b", rand(10, seed=3)),
    ]
    n = [
        helper.make_node("Conv", ["x", "conv_w", "conv_b"], ["c"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization", ["c", "bn_s", "bn_b", "bn_m", "bn_v"], ["bn"],
                         name="bn1", epsilon=1e-5),
        helper.make_node("Relu", ["bn"], ["r"], name="relu1"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool1", kernel_shape=[3, 3],
                         strides=[2, 2], auto_pad="SAME_UPPER"),
        helper.make_node("AveragePool", ["p"], ["ap"], name="avg1", kernel_shape=[2, 2],
                         ceil_mode=1, count_include_pad=1),
        helper.make_node("GlobalAveragePool", ["ap"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], name="fc", transB=1,
                         alpha=1.0, beta=1.0),
    ]
    save(model(n, [vi("x", F, [1, 3, 16, 16])], [vi("y", F, [1, 10])], inits, opset=13),
         "small_cnn.onnx")


def cnn_body():
    """A CNN's body past its stem (8 input channels): conv + relu, a strided
    max pool, a 1x1 conv. Under --precision=bf16 all of it is 16-bit, where
    small_cnn's one conv (3 input channels: the image) stays f32."""
    inits = [const("w1", rand(16, 8, 3, 3, seed=7)), const("b1", rand(16, seed=8)),
             const("w2", rand(16, 16, 1, 1, seed=9))]
    n = [helper.make_node("Conv", ["x", "w1", "b1"], ["c"], name="conv1",
                          kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"], name="relu1"),
         helper.make_node("MaxPool", ["r"], ["p"], name="pool1", kernel_shape=[3, 3],
                          strides=[2, 2], pads=[1, 1, 1, 1]),
         helper.make_node("Conv", ["p", "w2"], ["y"], name="conv2", kernel_shape=[1, 1])]
    save(model(n, [vi("x", F, [1, 8, 32, 32])], [vi("y", F, [1, 16, 16, 16])], inits,
               opset=13), "cnn_body.onnx")


def attention_block():
    d, h = 8, 2
    inits = [const("ln_s", np.ones(d, np.float32)), const("ln_b", np.zeros(d, np.float32)),
             const("wq", rand(d, d, seed=4)), const("wk", rand(d, d, seed=5)),
             const("wv", rand(d, d, seed=6)), const("qkv_shape", np.array([0, 0, h, d // h], np.int64)),
             const("out_shape", np.array([0, 0, d], np.int64)),
             const("scale", np.float32(1 / np.sqrt(d // h)))]
    n = [helper.make_node("LayerNormalization", ["x", "ln_s", "ln_b"], ["ln"], name="ln",
                          axis=-1, epsilon=1e-5)]
    for k in "qkv":
        n += [helper.make_node("MatMul", ["ln", "w" + k], [k], name="proj_" + k),
              helper.make_node("Reshape", [k, "qkv_shape"], [k + "4"], name="split_heads_" + k),
              helper.make_node("Transpose", [k + "4"], [k + "t"], name="heads_first_" + k,
                               perm=[0, 2, 1, 3] if k != "k" else [0, 2, 3, 1])]
    n += [helper.make_node("MatMul", ["qt", "kt"], ["scores"], name="qk"),
          helper.make_node("Mul", ["scores", "scale"], ["scaled"], name="scale"),
          helper.make_node("Softmax", ["scaled"], ["probs"], name="softmax", axis=-1),
          helper.make_node("MatMul", ["probs", "vt"], ["ctx"], name="pv"),
          helper.make_node("Transpose", ["ctx"], ["ctx_t"], name="heads_last", perm=[0, 2, 1, 3]),
          helper.make_node("Reshape", ["ctx_t", "out_shape"], ["merged"], name="merge_heads"),
          helper.make_node("Gelu", ["merged"], ["y"], name="gelu")]
    save(model(n, [vi("x", F, [1, 4, d])], [vi("y", F, [1, 4, d])], inits, opset=20),
         "attention_block.onnx")


def opset_variants():
    for opset in (6, 13):
        if opset < 11:
            n = [helper.make_node("Clip", ["x"], ["y"], name="clip", min=0.0, max=6.0)]
            inits = []
        else:
            n = [helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="clip")]
            inits = [const("lo", np.float32(0)), const("hi", np.float32(6))]
        save(model(n, [vi("x", F, [4])], [vi("y", F, [4])], inits, opset=opset),
             "clip_opset%d.onnx" % opset)
    for opset in (11, 13):
        if opset < 13:
            n = [helper.make_node("Squeeze", ["x"], ["s"], name="squeeze", axes=[1]),
                 helper.make_node("Unsqueeze", ["s"], ["y"], name="unsqueeze", axes=[0])]
            inits = []
        else:
            n = [helper.make_node("Squeeze", ["x", "ax1"], ["s"], name="squeeze"),
                 helper.make_node("Unsqueeze", ["s", "ax0"], ["y"], name="unsqueeze")]
            inits = [const("ax1", np.array([1], np.int64)), const("ax0", np.array([0], np.int64))]
        save(model(n, [vi("x", F, [3, 1, 5])], [vi("y", F, [1, 3, 5])], inits, opset=opset),
             "squeeze_opset%d.onnx" % opset)
    for opset in (11, 13):
        n = [helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=1),
             helper.make_node("LogSoftmax", ["x"], ["z"], name="log_softmax", axis=1)]
        save(model(n, [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 3, 4]), vi("z", F, [2, 3, 4])],
                   opset=opset), "softmax_opset%d.onnx" % opset)
    for opset in (9, 13):
        if opset < 10:
            n = [helper.make_node("Slice", ["x"], ["y"], name="slice", starts=[1, -3],
                                  ends=[1000, -1], axes=[0, 1])]
            inits = []
        else:
            n = [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="slice")]
            inits = [const("st", np.array([1, -1], np.int64)),
                     const("en", np.array([2**63 - 1, -(2**63)], np.int64)),
                     const("ax", np.array([0, 1], np.int64)),
                     const("sp", np.array([1, -2], np.int64))]
        save(model(n, [vi("x", F, [4, 6])], [vi("y", F, None)], inits, opset=opset),
             "slice_opset%d.onnx" % opset, check=False)


def shape_ops():
    """Data-movement ops: Split, Pad, Expand, Tile, Transpose, DepthToSpace..."""
    inits = [const("split", np.array([1, 3], np.int64)),
             const("pads", np.array([0, 1, 0, 2], np.int64)),
             const("eshape", np.array([3, 1, 4], np.int64)),
             const("reps", np.array([2, 1], np.int64)),
             const("idx", np.array([[0, 2]], np.int64))]
    n = [
        helper.make_node("Split", ["x", "split"], ["s0", "s1"], name="split", axis=1),
        helper.make_node("Pad", ["s1", "pads"], ["p"], name="pad", mode="reflect"),
        helper.make_node("Expand", ["s0", "eshape"], ["e"], name="expand"),
        helper.make_node("Tile", ["x", "reps"], ["t"], name="tile"),
        helper.make_node("Transpose", ["t"], ["tt"], name="transpose"),
        helper.make_node("Gather", ["x", "idx"], ["g"], name="gather", axis=1),
        helper.make_node("ReduceSum", ["g"], ["rs"], name="reduce_sum", keepdims=0),
        helper.make_node("ReduceMean", ["x"], ["rm"], name="reduce_mean", axes=[1]),
        helper.make_node("Size", ["x"], ["size"], name="size"),
        helper.make_node("ConstantOfShape", ["eshape"], ["cos"], name="cos",
                         value=helper.make_tensor("v", F, [1], [2.5])),
        helper.make_node("Range", ["r0", "r1", "r2"], ["range"], name="range"),
        helper.make_node("Identity", ["p"], ["id"], name="identity"),
        helper.make_node("Dropout", ["id"], ["dr"], name="dropout"),
        helper.make_node("Constant", [], ["c"], name="const", value_ints=[1, 2, 3]),
    ]
    inits += [const("r0", np.int64(0)), const("r1", np.int64(10)), const("r2", np.int64(3))]
    outs = [vi(k, F, None) for k in ["p", "e", "tt", "rs", "rm", "cos", "dr"]] + \
        [vi("size", I64, None), vi("range", I64, None), vi("c", I64, None)]
    save(model(n, [vi("x", F, [2, 4])], outs, inits, opset=13), "shape_ops.onnx", check=False)
    n = [helper.make_node("DepthToSpace", ["x"], ["d"], name="d2s", blocksize=2, mode="CRD"),
         helper.make_node("SpaceToDepth", ["d"], ["y"], name="s2d", blocksize=2)]
    save(model(n, [vi("x", F, [1, 8, 2, 3])], [vi("y", F, [1, 8, 2, 3])], opset=13),
         "depth_space.onnx")


def recurrent():
    """LSTM, GRU and RNN: directions, layouts, optional inputs and outputs."""
    s, b, i, h = 5, 3, 4, 2
    # Bidirectional LSTM with bias, initial states, peepholes, all outputs.
    inits = [const("lw", rand(2, 4 * h, i, seed=10)), const("lr", rand(2, 4 * h, h, seed=11)),
             const("lb", rand(2, 8 * h, seed=12)), const("lp", rand(2, 3 * h, seed=13)),
             const("lens", np.full([b], s, np.int32))]
    n = [helper.make_node("LSTM", ["x", "lw", "lr", "lb", "lens", "h0", "c0", "lp"],
                          ["y", "y_h", "y_c"], name="lstm", direction="bidirectional",
                          hidden_size=h, clip=3.0)]
    save(model(n, [vi("x", F, [s, b, i]), vi("h0", F, [2, b, h]), vi("c0", F, [2, b, h])],
               [vi("y", F, None), vi("y_h", F, None), vi("y_c", F, None)], inits, opset=14),
         "lstm_bidirectional.onnx", check=False)
    # Batch-first LSTM (layout 1) with only Y_h used, no bias: opset 14.
    inits = [const("lw", rand(1, 4 * h, i, seed=14)), const("lr", rand(1, 4 * h, h, seed=15))]
    n = [helper.make_node("LSTM", ["x", "lw", "lr"], ["", "y_h"], name="lstm_bf",
                          hidden_size=h, layout=1)]
    save(model(n, [vi("x", F, [b, s, i])], [vi("y_h", F, None)], inits, opset=14),
         "lstm_layout1.onnx", check=False)
    # GRU, linear_before_reset, opset 7 (no layout attribute).
    inits = [const("gw", rand(1, 3 * h, i, seed=16)), const("gr", rand(1, 3 * h, h, seed=17)),
             const("gb", rand(1, 6 * h, seed=18))]
    n = [helper.make_node("GRU", ["x", "gw", "gr", "gb"], ["y"], name="gru",
                          hidden_size=h, linear_before_reset=1)]
    save(model(n, [vi("x", F, [s, b, i])], [vi("y", F, None)], inits, opset=7),
         "gru_opset7.onnx", check=False)
    # RNN, reverse, with explicit activations taking alpha/beta.
    inits = [const("rw", rand(1, h, i, seed=19)), const("rr", rand(1, h, h, seed=20))]
    n = [helper.make_node("RNN", ["x", "rw", "rr"], ["y", "y_h"], name="rnn",
                          hidden_size=h, direction="reverse", activations=["LeakyRelu"],
                          activation_alpha=[0.1])]
    save(model(n, [vi("x", F, ["seq", b, i])], [vi("y", F, None), vi("y_h", F, None)],
               inits, opset=22), "rnn_reverse.onnx", check=False)
    # sequence_lens computed by the graph: Kiln refuses it.
    inits = [const("rw", rand(1, h, i, seed=19)), const("rr", rand(1, h, h, seed=20))]
    n = [helper.make_node("RNN", ["x", "rw", "rr", "", "lens"], ["y"], name="rnn_lens",
                          hidden_size=h)]
    save(model(n, [vi("x", F, [s, b, i]), vi("lens", TensorProto.INT32, [b])],
               [vi("y", F, None)], inits, opset=14), "rnn_dynamic_lens.onnx", check=False)


def indexing():
    """ArgMax/ArgMin, TopK, CumSum, GatherElements, GatherND, scatters."""
    inits = [const("k", np.array([2], np.int64)), const("axis", np.int32(1)),
             const("gi", np.array([[0, 2], [1, 0], [3, 3]], np.int64)),
             const("ndi", np.array([[[1], [0]], [[2], [2]], [[0], [1]]], np.int64)),
             const("si", np.array([[0], [2]], np.int64)),
             const("su", np.ones([2, 4], np.float32))]
    n = [
        helper.make_node("ArgMax", ["x"], ["amax"], name="argmax", axis=1, keepdims=0,
                         select_last_index=1),
        helper.make_node("ArgMin", ["x"], ["amin"], name="argmin", axis=-1),
        helper.make_node("TopK", ["x", "k"], ["tv", "ti"], name="topk", largest=0),
        helper.make_node("CumSum", ["x", "axis"], ["cs"], name="cumsum", exclusive=1,
                         reverse=1),
        helper.make_node("GatherElements", ["x", "gi"], ["ge"], name="gather_elements",
                         axis=1),
        helper.make_node("GatherND", ["x", "ndi"], ["gnd"], name="gather_nd", batch_dims=1),
        helper.make_node("ScatterND", ["x", "si", "su"], ["snd"], name="scatter_nd",
                         reduction="add"),
        helper.make_node("ScatterElements", ["x", "gi", "ge"], ["se"],
                         name="scatter_elements", axis=1, reduction="max"),
    ]
    outs = [vi(k, I64, None) for k in ["amax", "amin", "ti"]] + \
        [vi(k, F, None) for k in ["tv", "cs", "ge", "gnd", "snd", "se"]]
    save(model(n, [vi("x", F, [3, 4])], outs, inits, opset=18), "indexing.onnx", check=False)
    # Opset 9: TopK's k is an attribute; ArgMax has no select_last_index.
    n = [helper.make_node("TopK", ["x"], ["tv", "ti"], name="topk9", k=3, axis=0),
         helper.make_node("ArgMax", ["x"], ["am"], name="argmax9")]
    save(model(n, [vi("x", F, [3, 4])], [vi("tv", F, None), vi("ti", I64, None),
                                         vi("am", I64, None)], opset=9),
         "indexing_opset9.onnx", check=False)


def resampling():
    """ConvTranspose (pads, output_shape, auto_pad), Resize and Upsample."""
    inits = [const("w", rand(4, 2, 3, 3, seed=21)), const("bias", rand(2, seed=22))]
    n = [helper.make_node("ConvTranspose", ["x", "w", "bias"], ["y0"], name="deconv_pads",
                          strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]),
         helper.make_node("ConvTranspose", ["x", "w"], ["y1"], name="deconv_shape",
                          strides=[2, 2], output_shape=[10, 9]),
         helper.make_node("ConvTranspose", ["x", "w"], ["y2"], name="deconv_same",
                          strides=[2, 2], auto_pad="SAME_UPPER")]
    save(model(n, [vi("x", F, [1, 4, 5, 5])], [vi(k, F, None) for k in ["y0", "y1", "y2"]],
               inits, opset=11), "conv_transpose.onnx", check=False)
    # Resize: scales (linear, opset 13), sizes (nearest, opset 11, with the
    # empty roi and scales exporters write), axes (cubic, opset 18).
    inits = [const("scales", np.array([1, 1, 2, 1.5], np.float32)),
             const("sizes", np.array([1, 3, 3, 5], np.int64)),
             const("empty", np.zeros([0], np.float32)),
             const("axes_sizes", np.array([7, 9], np.int64))]
    n = [helper.make_node("Resize", ["x", "", "scales"], ["lin"], name="resize_linear",
                          mode="linear", coordinate_transformation_mode="align_corners")]
    save(model(n, [vi("x", F, [1, 3, 4, 6])], [vi("lin", F, None)], inits[:1], opset=13),
         "resize_scales.onnx", check=False)
    n = [helper.make_node("Resize", ["x", "empty", "empty", "sizes"], ["near"],
                          name="resize_nearest", nearest_mode="floor",
                          coordinate_transformation_mode="asymmetric")]
    save(model(n, [vi("x", F, [1, 3, 4, 6])], [vi("near", F, None)], inits[1:3], opset=11),
         "resize_sizes.onnx", check=False)
    n = [helper.make_node("Resize", ["x", "", "", "axes_sizes"], ["cub"], name="resize_axes",
                          mode="cubic", axes=[2, 3], keep_aspect_ratio_policy="not_larger")]
    save(model(n, [vi("x", F, [1, 3, 4, 6])], [vi("cub", F, None)], inits[3:], opset=18),
         "resize_axes.onnx", check=False)
    n = [helper.make_node("Resize", ["x", "scales"], ["r10"], name="resize10")]
    save(model(n, [vi("x", F, [1, 3, 4, 6])], [vi("r10", F, None)], inits[:1], opset=10),
         "resize_opset10.onnx", check=False)
    n = [helper.make_node("Upsample", ["x", "scales"], ["up"], name="upsample", mode="linear")]
    save(model(n, [vi("x", F, [1, 3, 4, 6])], [vi("up", F, None)], inits[:1], opset=9),
         "upsample_opset9.onnx", check=False)
    n = [helper.make_node("Upsample", ["x"], ["up"], name="upsample7", scales=[1.0, 1.0, 2.0, 2.0])]
    save(model(n, [vi("x", F, [1, 3, 4, 6])], [vi("up", F, None)], opset=7),
         "upsample_opset7.onnx", check=False)


def composite():
    """Ops Kiln composes from several of its ops: OneHot, NonZero,
    GroupNormalization, LpPool, LRN, Hardmax, Einsum and Attention."""
    B = TensorProto.BOOL
    # OneHot: integer indices (may be negative) and float ones, two axes
    # (type combinations onnxruntime implements).
    inits = [const("depth", np.int64(5)), const("vals", np.array([0, 1], np.float32)),
             const("fdepth", np.float32(3)), const("fvals", np.array([-1, 7], np.float32))]
    n = [helper.make_node("OneHot", ["idx", "depth", "vals"], ["oh"], name="onehot", axis=1),
         helper.make_node("OneHot", ["fidx", "fdepth", "fvals"], ["ohf"], name="onehot_f")]
    save(model(n, [vi("idx", I64, [2, 3]), vi("fidx", F, [4])],
               [vi("oh", F, None), vi("ohf", F, None)], inits, opset=11),
         "onehot.onnx", check=False)
    # NonZero of a constant folds; of a graph input it is refused.
    n = [helper.make_node("NonZero", ["c"], ["nz"], name="nonzero")]
    save(model(n, [], [vi("nz", I64, None)],
               [const("c", np.array([[1, 0, 2], [0, 3, 0]], np.float32))], opset=13),
         "nonzero.onnx", check=False)
    n = [helper.make_node("NonZero", ["x"], ["nz"], name="nonzero_x")]
    save(model(n, [vi("x", F, [2, 3])], [vi("nz", I64, None)], opset=13),
         "nonzero_computed.onnx", check=False)
    # GroupNormalization: scale and bias per group (18) and per channel (21).
    for opset, params in ((18, 3), (21, 6)):
        n = [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                              name="group_norm", num_groups=3, epsilon=1e-3)]
        save(model(n, [vi("x", F, [2, 6, 4, 4])], [vi("y", F, None)],
                   [const("s", rand(params, seed=30)), const("b", rand(params, seed=31))],
                   opset=opset), "group_norm_opset%d.onnx" % opset, check=False)
    # LpPool: p = 1, 2 and 3; pads, auto_pad, ceil_mode and dilations (18).
    n = [helper.make_node("LpPool", ["x"], ["p1"], name="lp1", p=1, kernel_shape=[2, 2]),
         helper.make_node("LpPool", ["x"], ["p2"], name="lp2", kernel_shape=[3, 3],
                          strides=[2, 2], auto_pad="SAME_UPPER"),
         helper.make_node("LpPool", ["x"], ["p3"], name="lp3", p=3, kernel_shape=[2, 2],
                          strides=[2, 2], pads=[1, 1, 0, 0], ceil_mode=1, dilations=[2, 1])]
    save(model(n, [vi("x", F, [1, 2, 7, 7])], [vi(k, F, None) for k in ["p1", "p2", "p3"]],
               opset=18), "lppool.onnx", check=False)
    # LRN: an odd and an even window (onnxruntime only takes odd ones; the
    # ONNX reference implementation takes both).
    n = [helper.make_node("LRN", ["x"], ["y3"], name="lrn3", size=3, alpha=1e-3),
         helper.make_node("LRN", ["x"], ["y4"], name="lrn4", size=4, beta=0.5, bias=2.0)]
    save(model(n, [vi("x", F, [2, 5, 3, 4])], [vi("y3", F, None), vi("y4", F, None)],
               opset=13), "lrn.onnx", check=False)
    # Hardmax: one axis (13) and the input flattened at the axis (11).
    for opset in (11, 13):
        n = [helper.make_node("Hardmax", ["x"], ["y"], name="hardmax", axis=1)]
        save(model(n, [vi("x", F, [2, 3, 4])], [vi("y", F, None)], opset=opset),
             "hardmax_opset%d.onnx" % opset, check=False)
    # Einsum: the forms exporters emit, and two that Kiln refuses.
    forms = [("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]]),
             ("bhqd,bhkd->bhqk", [[1, 2, 3, 4], [1, 2, 5, 4]]),
             ("bhqk,bhkd->bhqd", [[1, 2, 3, 5], [1, 2, 5, 4]]),
             ("ij->ji", [[2, 3]]), ("ij->i", [[2, 3]]), ("ij->", [[2, 3]]),
             ("i,j->ij", [[2], [3]]), ("ij,ij->ij", [[2, 3], [2, 3]]),
             ("i,i->", [[4], [4]]), ("ij,jk", [[2, 3], [3, 4]]),
             ("...ij,...jk->...ik", [[2, 2, 3], [2, 3, 4]])]
    n, ins, outs = [], [], []
    for k, (eq, shapes) in enumerate(forms):
        names = ["e%d_%d" % (k, j) for j in range(len(shapes))]
        ins += [vi(name, F, shape) for name, shape in zip(names, shapes)]
        n.append(helper.make_node("Einsum", names, ["y%d" % k], name="einsum%d" % k,
                                  equation=eq))
        outs.append(vi("y%d" % k, F, None))
    save(model(n, ins, outs, opset=12), "einsum.onnx", check=False)
    n = [helper.make_node("Einsum", ["x"], ["y"], name="einsum_diag", equation="ii->i")]
    save(model(n, [vi("x", F, [3, 3])], [vi("y", F, None)], opset=12),
         "einsum_diagonal.onnx", check=False)
    n = [helper.make_node("Einsum", ["a", "b", "c"], ["y"], name="einsum_three",
                          equation="bn,anm,bm->ba")]
    save(model(n, [vi("a", F, [2, 3]), vi("b", F, [4, 3, 5]), vi("c", F, [2, 5])],
               [vi("y", F, None)], opset=12), "einsum_three.onnx", check=False)
    # Attention: 4-D with a causal and a boolean mask; 3-D grouped query
    # attention with a float mask and an explicit scale.
    n = [helper.make_node("Attention", ["q", "k", "v", "m"], ["y"], name="attn4d",
                          is_causal=1)]
    save(model(n, [vi("q", F, [2, 4, 3, 8]), vi("k", F, [2, 4, 5, 8]),
                   vi("v", F, [2, 4, 5, 6]), vi("m", B, [3, 5])], [vi("y", F, None)],
               opset=23, ir=10), "attention_4d.onnx", check=False)
    n = [helper.make_node("Attention", ["q", "k", "v", "m"], ["y"], name="attn3d",
                          q_num_heads=4, kv_num_heads=2, scale=0.125)]
    save(model(n, [vi("q", F, [2, 3, 32]), vi("k", F, [2, 5, 16]),
                   vi("v", F, [2, 5, 12]), vi("m", F, [2, 1, 3, 5])], [vi("y", F, None)],
               opset=23, ir=10), "attention_3d_gqa.onnx", check=False)
    n = [helper.make_node("Attention", ["q", "k", "v"], ["y", "pk"], name="attn_present")]
    save(model(n, [vi("q", F, [1, 2, 3, 4]), vi("k", F, [1, 2, 3, 4]),
                   vi("v", F, [1, 2, 3, 4])], [vi("y", F, None), vi("pk", F, None)],
               opset=23, ir=10), "attention_present.onnx", check=False)
    n = [helper.make_node("Attention", ["q", "k", "v"], ["y"], name="attn_softcap",
                          softcap=30.0)]
    save(model(n, [vi("q", F, [1, 2, 3, 4]), vi("k", F, [1, 2, 3, 4]),
                   vi("v", F, [1, 2, 3, 4])], [vi("y", F, None)], opset=23, ir=10),
         "attention_softcap.onnx", check=False)


def edge_semantics():
    """ONNX corner cases the node tests only reach through graph inputs:
    Clip with min > max, ReduceMax/ReduceMin of bools (opset 20), Dropout in
    training mode, and a ConvTranspose output_shape beyond the natural one."""
    B = TensorProto.BOOL
    n = [helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="clip_inverted")]
    save(model(n, [vi("x", F, [4])], [vi("y", F, [4])],
               [const("lo", np.float32(2)), const("hi", np.float32(1))], opset=13),
         "clip_min_greater_than_max.onnx")
    n = [helper.make_node("ReduceMax", ["b", "axes"], ["any"], name="reduce_any", keepdims=0),
         helper.make_node("ReduceMin", ["b", "axes"], ["all"], name="reduce_all")]
    save(model(n, [vi("b", B, [2, 3])], [vi("any", B, None), vi("all", B, None)],
               [const("axes", np.array([1], np.int64))], opset=20),
         "reduce_bool.onnx", check=False)
    for name, mode in (("dropout_training", True), ("dropout_inference", False)):
        n = [helper.make_node("Dropout", ["x", "ratio", "mode"], ["y"], name=name)]
        save(model(n, [vi("x", F, [4])], [vi("y", F, [4])],
                   [const("ratio", np.float32(0.5)), const("mode", np.bool_(mode))], opset=13),
             name + ".onnx")
    n = [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv_grown",
                          strides=[3, 2], output_shape=[10, 8])]
    save(model(n, [vi("x", F, [1, 1, 3, 3])], [vi("y", F, None)],
               [const("w", rand(1, 2, 3, 3, seed=40))], opset=13),
         "conv_transpose_output_shape.onnx", check=False)


def contradictions():
    """Models whose declared types contradict what their nodes compute."""
    n = [helper.make_node("Relu", ["x"], ["y"], name="relu0")]
    save(model(n, [vi("x", F, [2, 3])], [vi("y", F, [5])]), "declared_output_shape.onnx")
    n = [helper.make_node("Relu", ["x"], ["t"], name="relu0"),
         helper.make_node("Relu", ["t"], ["y"], name="relu1")]
    m = model(n, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])
    m.graph.value_info.append(vi("t", I64, [2, 3]))
    save(m, "declared_value_info_dtype.onnx", check=False)
    n = [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    save(model(n, [vi("x", F, [2, 3]), vi("w", F, [4, 5])], [vi("y", F, None)]),
         "matmul_mismatch.onnx", check=False)
    # Paddle's exporter writes -1 (not a dim_param) for "any size": it
    # contradicts nothing, on inputs (dynamic) and on outputs.
    n = [helper.make_node("Relu", ["x"], ["y"], name="relu0")]
    save(model(n, [vi("x", F, [-1, 3])], [vi("y", F, [-1, 3])]), "declared_negative_dims.onnx",
         check=False)


def normalization_extras():
    """Trilu (constant k, both directions, the mask over the last two dims),
    RMSNormalization (opset 23) and LayerNormalization's Mean and InvStdDev
    outputs."""
    n = [helper.make_node("Trilu", ["x"], ["u"], name="triu"),
         helper.make_node("Trilu", ["x", "k"], ["l"], name="tril", upper=0)]
    save(model(n, [vi("x", F, [2, 3, 4])], [vi("u", F, None), vi("l", F, None)],
               [const("k", np.int64(1))], opset=14), "trilu.onnx", check=False)
    n = [helper.make_node("Trilu", ["x"], ["u"], name="triu_dynamic")]
    save(model(n, [vi("x", F, [2, "n", 4])], [vi("u", F, None)], opset=14),
         "trilu_dynamic.onnx", check=False)
    n = [helper.make_node("RMSNormalization", ["x", "s"], ["y"], name="rms_norm",
                          axis=-2, epsilon=1e-6)]
    save(model(n, [vi("x", F, [2, 3, 4])], [vi("y", F, None)],
               [const("s", rand(3, 4, seed=50))], opset=23, ir=10),
         "rms_norm.onnx", check=False)
    n = [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y", "mean", "inv"],
                          name="layer_norm_stats", axis=1)]
    save(model(n, [vi("x", F, [2, 3, 4])],
               [vi("y", F, None), vi("mean", F, None), vi("inv", F, None)],
               [const("s", rand(3, 4, seed=51)), const("b", rand(3, 4, seed=52))],
               opset=17), "layer_norm_stats.onnx", check=False)


def frontend_breadth():
    D = TensorProto.DOUBLE
    B = TensorProto.BOOL
    # IsNaN and IsInf (both signs, one sign each, neither).
    n = [helper.make_node("IsNaN", ["x"], ["nan"], name="isnan"),
         helper.make_node("IsInf", ["x"], ["inf"], name="isinf"),
         helper.make_node("IsInf", ["x"], ["pos"], name="ispos", detect_negative=0),
         helper.make_node("IsInf", ["x"], ["neg"], name="isneg", detect_positive=0),
         helper.make_node("IsInf", ["x"], ["none"], name="isnone", detect_positive=0,
                          detect_negative=0)]
    save(model(n, [vi("x", F, [6])], [vi(k, B, [6]) for k in ["nan", "inf", "pos", "neg", "none"]],
               opset=20), "isnan_isinf.onnx")
    # f64 end to end: input, weights, MatMul, Add, ReduceSum.
    n = [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
         helper.make_node("Add", ["m", "b"], ["a"], name="add"),
         helper.make_node("ReduceSum", ["a", "axes"], ["y"], name="sum", keepdims=0)]
    save(model(n, [vi("x", D, [2, 3])], [vi("y", D, [2])],
               [const("w", np.arange(12, dtype=np.float64).reshape(3, 4) / 3.0),
                const("b", np.array([0.1, 0.2, 0.3, 0.4])), const("axes", np.array([1]))],
               opset=17), "f64_ops.onnx")
    # PRelu: opset 6 takes a [C] slope per channel (axis 1); opset 9 broadcasts
    # it one way, NumPy style, and refuses a slope that would grow the input.
    n = [helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu")]
    save(model(n, [vi("x", F, [2, 3, 4, 5])], [vi("y", F, [2, 3, 4, 5])],
               [const("slope", np.array([0.1, 0.2, 0.3], np.float32))], opset=6, ir=3),
         "prelu_opset6.onnx", check=False)
    save(model(n, [vi("x", F, [2, 3])], [vi("y", F, None)],
               [const("slope", np.ones((4, 3), np.float32))], opset=9),
         "prelu_bad_slope.onnx", check=False)
    # Shape operands computable at compile time: torch's `shape[2] = -1`
    # exports as ScatterND on the Shape; the Reshape folds.
    n = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
         helper.make_node("ScatterND", ["s", "idx", "upd"], ["s2"], name="patch"),
         helper.make_node("Gather", ["s2", "i0"], ["d0"], name="d0"),
         helper.make_node("Cast", ["d0"], ["d0f"], name="cast_f", to=F),
         helper.make_node("Mul", ["d0f", "three"], ["d0x3"], name="times3"),
         helper.make_node("Cast", ["d0x3"], ["n"], name="cast_i", to=I64),
         helper.make_node("Reshape", ["n", "one"], ["n1"], name="n1"),
         helper.make_node("Concat", ["n1", "minus1"], ["s3"], name="cat", axis=0),
         helper.make_node("Reshape", ["x", "s2"], ["y0"], name="reshape_y0"),
         helper.make_node("Reshape", ["y0", "s3"], ["y"], name="reshape_y")]
    save(model(n, [vi("x", F, [6, 2, 2])], [vi("y", F, None)],
               [const("idx", np.array([[2]])), const("upd", np.array([-1])),
                const("i0", np.array(0)), const("three", np.array(0.5, np.float32)),
                const("one", np.array([1])), const("minus1", np.array([-1]))]),
         "computed_shape.onnx", check=False)
    # Not computable: the shape depends on a graph input's value, or on a
    # node Kiln cannot evaluate at compile time (TopK).
    n = [helper.make_node("Add", ["s", "zero"], ["s2"], name="shift"),
         helper.make_node("Expand", ["x", "s2"], ["y"], name="expand_y")]
    save(model(n, [vi("x", F, [1, 3]), vi("s", I64, [2])], [vi("y", F, None)],
               [const("zero", np.array([0, 0]))]), "shape_from_input.onnx", check=False)
    n = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
         helper.make_node("TopK", ["s", "k"], ["top", "where"], name="topk_shape"),
         helper.make_node("Reshape", ["x", "top"], ["y"], name="reshape_y")]
    save(model(n, [vi("x", F, [2, 3])], [vi("y", F, None)], [const("k", np.array([2]))]),
         "shape_from_topk.onnx", check=False)
    # Out of scope: training losses, sequences, strings, optionals.
    S = TensorProto.STRING
    n = [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "labels"], ["loss"], name="sce"),
         helper.make_node("NegativeLogLikelihoodLoss", ["x", "labels"], ["nll"], name="nll"),
         helper.make_node("SequenceConstruct", ["x", "x"], ["seq"], name="seq"),
         helper.make_node("SequenceAt", ["seq", "zero"], ["x0"], name="seq_at"),
         helper.make_node("StringNormalizer", ["words"], ["norm"], name="strnorm",
                          case_change_action="LOWER"),
         helper.make_node("Optional", ["x"], ["opt"], name="optional")]
    save(model(n, [vi("x", F, [2, 3]), vi("labels", I64, [2]), vi("words", S, [2])],
               [vi("loss", F, None), vi("nll", F, None), vi("x0", F, None), vi("norm", S, None)],
               [const("zero", np.array(0))], opset=18), "out_of_scope_ops.onnx", check=False)


def quantized():
    """Quantized models: uint8 I/O, and the errors of unsupported types."""
    U8, I8 = TensorProto.UINT8, TensorProto.INT8
    # uint8 in, uint8 out: DequantizeLinear then QuantizeLinear with a new
    # scale and zero point (per tensor), and an int8 output per axis.
    n = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["f"], name="dq"),
         helper.make_node("QuantizeLinear", ["f", "ys", "yz"], ["y"], name="q"),
         helper.make_node("QuantizeLinear", ["f", "ps", "pz"], ["p"], axis=1, name="q_axis")]
    save(model(n, [vi("x", U8, [2, 3])], [vi("y", U8, [2, 3]), vi("p", I8, [2, 3])],
               [const("xs", np.float32(0.5)), const("xz", np.uint8(128)),
                const("ys", np.float32(0.25)), const("yz", np.uint8(10)),
                const("ps", np.array([1.0, 0.5, 0.25], np.float32)),
                const("pz", np.array([0, -1, 2], np.int8))], opset=13),
         "quant_uint8_io.onnx")
    # An int16 zero point: not an int8 quantization.
    n = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q16")]
    save(model(n, [vi("x", F, [4])], [vi("y", TensorProto.INT16, [4])],
               [const("s", np.float32(0.5)), const("z", np.int16(0))], opset=21),
         "quant_int16.onnx", check=False)
    # Block quantization.
    n = [helper.make_node("DequantizeLinear", ["x", "s"], ["y"], axis=1, block_size=2,
                          name="dq_blocked")]
    save(model(n, [vi("x", I8, [2, 4])], [vi("y", F, [2, 4])],
               [const("s", np.ones([2, 2], np.float32))], opset=21),
         "quant_blocked.onnx", check=False)
    # uint8 data read by an op that is not a quantized op.
    n = [helper.make_node("Relu", ["x"], ["y"], name="relu_u8")]
    save(model(n, [vi("x", U8, [4])], [vi("y", U8, [4])]), "quant_uint8_relu.onnx",
         check=False)


def qoperator():
    """onnxruntime's QOperator com.microsoft ops, uint8 data movement, and
    the errors of an unimported com.microsoft op and a uint8 Pad with ONNX's
    default pad value (0, which is not u8 0 biased)."""
    U8, I8, I32 = TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32
    MS = "com.microsoft"

    def ms_model(nodes, inputs, outputs, inits):
        m = model(nodes, inputs, outputs, inits, opset=13)
        m.opset_import.append(helper.make_opsetid(MS, 1))
        return m

    s = lambda name, v: const(name, np.float32(v))  # noqa: E731
    # Models only the lit tests read go beside them, outside models/ (whose
    # files seed fuzz_kilnc and are listed in tests/cuda/cuda_models.txt).
    inputs_dir = os.path.join(HERE, "..", "lit", "onnx", "Inputs")
    os.makedirs(inputs_dir, exist_ok=True)
    # QLinearAdd (b broadcast), QLinearMul, QLinearSigmoid, QLinearLeakyRelu.
    n = [helper.make_node("QLinearAdd", ["a", "as", "az", "b", "bs", "bz", "cs", "cz"], ["c"],
                          domain=MS, name="qadd"),
         helper.make_node("QLinearMul", ["c", "cs", "cz", "a", "as", "az", "ms", "mz"], ["m"],
                          domain=MS, name="qmul"),
         helper.make_node("QLinearSigmoid", ["m", "ms", "mz", "ss", "sz"], ["sg"],
                          domain=MS, name="qsigmoid"),
         helper.make_node("QLinearLeakyRelu", ["a", "as", "az", "cs"], ["lr"], domain=MS,
                          alpha=0.25, name="qleaky")]
    save(ms_model(n, [vi("a", U8, [2, 3]), vi("b", U8, [3])],
                  [vi("sg", U8, [2, 3]), vi("lr", U8, [2, 3])],
                  [s("as", 0.5), const("az", np.uint8(130)), s("bs", 0.25),
                   const("bz", np.uint8(128)), s("cs", 0.75), const("cz", np.uint8(120)),
                   s("ms", 2.0), const("mz", np.uint8(128)), s("ss", 1 / 256),
                   const("sz", np.uint8(0))]), "qop_elementwise.onnx", check=False)
    # QGemm with transB and an int32 C, quantized output; and one with
    # transA, alpha and a float output.
    n = [helper.make_node("QGemm", ["a", "as", "az", "w", "ws", "wz", "c", "ys", "yz"], ["y"],
                          domain=MS, transB=1, name="qgemm"),
         helper.make_node("QGemm", ["at", "as", "az", "w2", "ws", "wz"], ["f"],
                          domain=MS, transA=1, alpha=0.5, name="qgemm_f32")]
    save(ms_model(n, [vi("a", U8, [2, 4]), vi("at", U8, [4, 2])],
                  [vi("y", U8, [2, 3]), vi("f", F, [2, 3])],
                  [s("as", 0.5), const("az", np.uint8(128)),
                   const("w", np.arange(12, dtype=np.int8).reshape(3, 4)),
                   const("w2", np.arange(12, dtype=np.int8).reshape(4, 3)),
                   s("ws", 0.25), const("wz", np.int8(0)),
                   const("c", np.array([100, -100, 7], np.int32)),
                   s("ys", 2.0), const("yz", np.uint8(128))]), "qop_gemm.onnx", check=False)
    # Regression (fuzz_kilnc): a QGemm whose transB leaves B's shape
    # mismatched with A, next to a QGemm with a C operand. The failed matmul
    # must stop the converter with its error, not crash building on it.
    # Beside the lit test, not in models/ (whose files seed fuzz_kilnc).
    n = [helper.make_node("QGemm", ["a", "as", "az", "w", "ws", "wz", "c", "ys", "yz"], ["y"],
                          domain=MS, transB=0, name="qgemm_bad_shapes")]
    bad = ms_model(n, [vi("a", U8, [2, 4])], [vi("y", U8, [2, 3])],
                   [s("as", 0.5), const("az", np.uint8(128)),
                    const("w", np.arange(12, dtype=np.int8).reshape(3, 4)),
                    s("ws", 0.25), const("wz", np.int8(0)),
                    const("c", np.array([100, -100, 7], np.int32)),
                    s("ys", 2.0), const("yz", np.uint8(128))])
    with open(os.path.join(inputs_dir, "qgemm_bad_shapes.onnx"), "wb") as f:
        f.write(bad.SerializeToString())
    # Pooling, softmax and concat, and uint8 MaxPool / Transpose between them.
    n = [helper.make_node("QLinearGlobalAveragePool", ["x", "xs", "xz", "ys", "yz"], ["gap"],
                          domain=MS, channels_last=1, name="qgap_nhwc"),
         helper.make_node("QLinearAveragePool", ["x", "xs", "xz", "ys", "yz"], ["avg"],
                          domain=MS, channels_last=1, kernel_shape=[2, 2], strides=[2, 2],
                          name="qavgpool_nhwc"),
         helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 3, 1, 2], name="to_nchw"),
         helper.make_node("MaxPool", ["xt"], ["mp"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                          name="maxpool_u8"),
         helper.make_node("QLinearSoftmax", ["mp", "xs", "xz", "ys", "yz"], ["sm"],
                          domain=MS, opset=13, axis=1, name="qsoftmax"),
         helper.make_node("QLinearConcat", ["ys", "yz", "sm", "ys", "yz", "mp", "xs", "xz"],
                          ["cat"], domain=MS, axis=1, name="qconcat")]
    save(ms_model(n, [vi("x", U8, [1, 4, 4, 3])],
                  [vi("gap", U8, [1, 1, 1, 3]), vi("avg", U8, [1, 2, 2, 3]),
                   vi("cat", U8, [1, 6, 4, 4])],
                  [s("xs", 0.1), const("xz", np.uint8(128)), s("ys", 0.05),
                   const("yz", np.uint8(0))]), "qop_pool.onnx", check=False)
    # A com.microsoft op Kiln does not import (quantize_dynamic writes it
    # for onnxruntime's fused EmbedLayerNormalization).
    n = [helper.make_node("QEmbedLayerNormalization", ["ids", "a", "a", "as", "az"], ["y"],
                          domain=MS, name="qembed")]
    save(ms_model(n, [vi("ids", TensorProto.INT32, [1, 3]), vi("a", U8, [3])],
                  [vi("y", F, [1, 3, 3])],
                  [s("as", 0.5), const("az", np.uint8(128))]), "qop_unsupported.onnx",
         check=False)
    # QLinearWhere (int8 condition branches of two scales, broadcast) and
    # QLinearReduceMean.
    n = [helper.make_node("QLinearWhere", ["cond", "a", "as", "az", "b", "bs", "bz", "ys", "yz"],
                          ["w"], domain=MS, name="qwhere"),
         helper.make_node("QLinearReduceMean", ["a", "as", "az", "ys", "yz"], ["r"], domain=MS,
                          axes=[-1], keepdims=0, name="qreducemean")]
    save(ms_model(n, [vi("cond", TensorProto.BOOL, [2, 3]), vi("a", U8, [2, 3]),
                      vi("b", U8, [3])], [vi("w", U8, [2, 3]), vi("r", U8, [2])],
                  [s("as", 0.5), const("az", np.uint8(130)), s("bs", 0.25),
                   const("bz", np.uint8(128)), s("ys", 0.75), const("yz", np.uint8(120))]),
         "qop_where_reduce.onnx", check=False, out=inputs_dir)
    # QAttention (what quantize_dynamic writes for onnxruntime's fused
    # Attention): hidden 8, 2 heads, a raw [2, 3] mask, unidirectional.
    w = ((np.arange(8 * 24) % 7) - 3).astype(np.int8).reshape(8, 24)
    n = [helper.make_node("QAttention", ["x", "w", "b", "xs", "ws", "mask", "xz", "wz"], ["y"],
                          domain=MS, num_heads=2, unidirectional=1, name="qattention")]
    save(ms_model(n, [vi("x", U8, [2, 3, 8]), vi("mask", I32, [2, 3])], [vi("y", F, [2, 3, 8])],
                  [const("w", w), const("b", np.linspace(-1, 1, 24).astype(np.float32)),
                   s("xs", 0.05), s("ws", 0.02), const("xz", np.uint8(128)),
                   const("wz", np.int8(0))]), "qop_attention.onnx", check=False, out=inputs_dir)
    # DynamicQuantizeLSTM: forward, hidden 2, W [1, 3, 8] and R [1, 2, 8]
    # scaled per gate column.
    n = [helper.make_node("DynamicQuantizeLSTM", ["x", "w", "r", "", "", "", "", "", "ws", "wz",
                                                  "rs", "rz"], ["y", "y_h"], domain=MS,
                          hidden_size=2, name="qlstm")]
    save(ms_model(n, [vi("x", F, [4, 1, 3])], [vi("y", F, [4, 1, 1, 2]), vi("y_h", F, [1, 1, 2])],
                  [const("w", (np.arange(24) % 5 - 2).astype(np.int8).reshape(1, 3, 8)),
                   const("r", (np.arange(16) % 3 - 1).astype(np.int8).reshape(1, 2, 8)),
                   const("ws", np.linspace(0.1, 0.8, 8, dtype=np.float32).reshape(1, 8)),
                   const("wz", np.zeros((1, 8), np.int8)), const("rs", np.float32([0.5])),
                   const("rz", np.int8([1]))]), "qop_lstm.onnx", check=False, out=inputs_dir)
    # Bad input beside the lit test (not fuzz seeds): a QAttention mask of
    # an unsupported shape, a DynamicQuantizeLSTM weight scale of the wrong
    # shape, a QLinearReduceMean without keepdims; one file each, since the
    # importer stops at the first error.
    bad_inits = [const("w", w), const("b", np.zeros(24, np.float32)), s("xs", 0.05),
                 s("ws", 0.02), const("xz", np.uint8(128)),
                 const("lw", np.zeros((1, 3, 8), np.int8)),
                 const("lr", np.zeros((1, 2, 8), np.int8)), const("ls", np.ones((3,), np.float32)),
                 const("wz1", np.zeros((3,), np.int8)), const("rs", np.float32([0.5])),
                 const("rz", np.int8([0]))]
    bad = {
        "qattention_bad_mask": (
            helper.make_node("QAttention", ["x", "w", "b", "xs", "ws", "mask"], ["y"], domain=MS,
                             num_heads=2, name="qattention_bad_mask"),
            [vi("x", U8, [2, 3, 8]), vi("mask", I32, [3, 2])], [vi("y", F, [2, 3, 8])]),
        "qlstm_bad_scale": (
            helper.make_node("DynamicQuantizeLSTM", ["f", "lw", "lr", "", "", "", "", "", "ls",
                                                     "wz1", "rs", "rz"], ["y"], domain=MS,
                             hidden_size=2, name="qlstm_bad_scale"),
            [vi("f", F, [4, 1, 3])], [vi("y", F, [4, 1, 1, 2])]),
        "qreducemean_no_keepdims": (
            helper.make_node("QLinearReduceMean", ["x", "xs", "xz", "xs", "xz"], ["y"],
                             domain=MS, axes=[1], name="qreducemean_no_keepdims"),
            [vi("x", U8, [2, 3, 8])], [vi("y", U8, [2, 8])]),
    }
    for name, (node, ins, outs) in bad.items():
        with open(os.path.join(inputs_dir, name + ".onnx"), "wb") as f:
            f.write(ms_model([node], ins, outs, bad_inits).SerializeToString())
    # Pad of uint8 data without a pad value pads with 0, which Kiln would
    # write as u8 128: refused.
    n = [helper.make_node("Pad", ["x", "pads"], ["y"], mode="constant", name="pad_u8")]
    save(model(n, [vi("x", U8, [4])], [vi("y", U8, [6])],
               [const("pads", np.array([1, 1], np.int64))], opset=13),
         "quant_uint8_pad_default.onnx", check=False)


def gpu_kernels():
    """One input, one output per kind of CUDA kernel (tests/lit/cuda/Inputs): a
    softmax and a layer norm over rows of 256, a column sum (reduction over
    the outer axis), a row max, a transpose and an elementwise chain whose
    element count is a multiple of 4 (vector loads)."""
    x = vi("x", F, [64, 256])
    n = [helper.make_node("Softmax", ["x"], ["softmax"], axis=-1, name="softmax"),
         helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["layer_norm"],
                          axis=-1, epsilon=1e-5, name="layer_norm"),
         helper.make_node("ReduceSum", ["x", "axes0"], ["column_sum"], keepdims=0,
                          name="column_sum"),
         helper.make_node("ReduceMax", ["x"], ["row_max"], axes=[1], keepdims=0,
                          name="row_max"),
         helper.make_node("Transpose", ["x"], ["transposed"], perm=[1, 0], name="transpose"),
         helper.make_node("Add", ["x", "one"], ["t0"], name="add"),
         helper.make_node("Mul", ["t0", "half"], ["t1"], name="mul"),
         helper.make_node("Exp", ["t1"], ["chain"], name="exp")]
    inits = [const("gamma", rand(256, seed=1)), const("beta", rand(256, seed=2)),
             const("axes0", np.array([0], np.int64)),
             const("one", np.array(1.0, np.float32)), const("half", np.array(0.5, np.float32))]
    m = model(n, [x], [vi("softmax", F, [64, 256]), vi("layer_norm", F, [64, 256]),
                       vi("column_sum", F, [256]), vi("row_max", F, [64]),
                       vi("transposed", F, [256, 64]), vi("chain", F, [64, 256])], inits)
    onnx.checker.check_model(m)
    # Beside the lit test that reads it, not in models/ (whose files seed
    # fuzz_kilnc).
    path = os.path.join(HERE, "..", "lit", "cuda", "Inputs", "gpu_kernels.onnx")
    with open(path, "wb") as f:
        f.write(m.SerializeToString())


def cuda_gemm():
    """Contractions the cuda target turns into cuBLASLt GEMMs (tests/lit/cuda
    and tests/cuda; written to tests/cuda/models, outside the fuzzer's seed
    set): Gemm + bias + Relu, MatMul shapes (batch folded into M,
    batch_matmul, a broadcast matrix, Gemm with transA/transB/alpha/C),
    MatMul + bias + GELU (tanh: the epilogue; erf: a generated kernel), and
    convs lowered to GEMM (3x3 through im2col, 1x1 without)."""
    n = [helper.make_node("Gemm", ["x", "w", "b"], ["g"], name="fc", transB=1),
         helper.make_node("Relu", ["g"], ["y"], name="fc_relu")]
    save(model(n, [vi("x", F, [4, 16])], [vi("y", F, [4, 8])],
               [const("w", rand(8, 16, seed=4)), const("b", rand(8, seed=5))], opset=13),
         "gemm_bias_relu.onnx", out=CUDA_OUT)
    n = [helper.make_node("MatMul", ["a", "w"], ["folded"], name="mm_folded"),
         helper.make_node("MatMul", ["p", "q"], ["batched"], name="mm_batched"),
         helper.make_node("MatMul", ["r", "q"], ["broadcast"], name="mm_broadcast"),
         helper.make_node("Gemm", ["u", "v", "c"], ["gemm_t"], name="gemm_t",
                          transA=1, transB=1, alpha=2.0, beta=0.5)]
    save(model(n, [vi("a", F, [2, 3, 4, 5]), vi("p", F, [3, 4, 5]), vi("q", F, [3, 5, 6]),
                   vi("r", F, [4, 5]), vi("u", F, [5, 4]), vi("v", F, [6, 5])],
               [vi("folded", F, [2, 3, 4, 6]), vi("batched", F, [3, 4, 6]),
                vi("broadcast", F, [3, 4, 6]), vi("gemm_t", F, [4, 6])],
               [const("w", rand(5, 6, seed=6)), const("c", rand(4, 6, seed=7))], opset=13),
         "matmul_shapes.onnx", out=CUDA_OUT)
    n = [helper.make_node("MatMul", ["x", "w"], ["mm"], name="mm"),
         helper.make_node("Add", ["mm", "b"], ["biased"], name="bias"),
         helper.make_node("Gelu", ["biased"], ["tanh_gelu"], name="gelu_tanh",
                          approximate="tanh"),
         helper.make_node("MatMul", ["x", "w2"], ["mm2"], name="mm2"),
         helper.make_node("Add", ["mm2", "b"], ["biased2"], name="bias2"),
         helper.make_node("Gelu", ["biased2"], ["erf_gelu"], name="gelu_erf"),
         helper.make_node("MatMul", ["x", "w3"], ["mm3"], name="mm3"),
         helper.make_node("Sigmoid", ["mm3"], ["sig"], name="sigmoid")]
    save(model(n, [vi("x", F, [2, 4, 16])],
               [vi("tanh_gelu", F, [2, 4, 32]), vi("erf_gelu", F, [2, 4, 32]),
                vi("sig", F, [2, 4, 32])],
               [const("w", rand(16, 32, seed=8)), const("b", rand(32, seed=9)),
                const("w2", rand(16, 32, seed=10)), const("w3", rand(16, 32, seed=11))],
               opset=20),
         "matmul_gelu.onnx", out=CUDA_OUT)
    n = [helper.make_node("Conv", ["x", "w3", "b3"], ["c3"], name="conv3x3",
                          kernel_shape=[3, 3], strides=[1, 1]),
         helper.make_node("Relu", ["c3"], ["r3"], name="relu3"),
         helper.make_node("Conv", ["r3", "w1"], ["y"], name="conv1x1", kernel_shape=[1, 1])]
    save(model(n, [vi("x", F, [2, 4, 8, 8])], [vi("y", F, [2, 5, 6, 6])],
               [const("w3", rand(6, 4, 3, 3, seed=12)), const("b3", rand(6, seed=13)),
                const("w1", rand(5, 6, 1, 1, seed=14))], opset=13),
         "conv_gemm.onnx", out=CUDA_OUT)


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    simple_add()
    elementwise()
    activations()
    initializers()
    bad_models()
    old_ir()
    shape_subgraph()
    small_cnn()
    cnn_body()
    attention_block()
    opset_variants()
    shape_ops()
    recurrent()
    indexing()
    resampling()
    composite()
    edge_semantics()
    contradictions()
    normalization_extras()
    frontend_breadth()
    quantized()
    qoperator()
    gpu_kernels()
    cuda_gemm()


if __name__ == "__main__":
    main()
