#!/usr/bin/env python3
"""Writes a small transformer feed-forward block whose two LayerNorms are
written out node by node, as PyTorch exports nn.LayerNorm at opset 16 and
older (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add):

    h = LayerNorm(x)                      # over the last axis, eps 1e-5
    y = LayerNorm(x + Relu(h @ W1 + b1) @ W2 + b2)

x is [16, 32] (16 tokens). Weights are random (seeded), so the file is reproducible.
The example plugin (libKilnExampleFuseLayerNorm.so) turns each written-out
LayerNorm into one kiln.layer_norm.

    ~/.cache/kiln/venv/bin/python make_layer_norm_model.py OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HIDDEN, FFN = 32, 64


def layer_norm(prefix, x, gamma, beta, nodes):
    """Appends PyTorch's opset-16 export of nn.LayerNorm; returns its output."""
    def name(part):
        return f"{prefix}/{part}"
    nodes += [
        helper.make_node("ReduceMean", [x], [name("mean")], axes=[-1], name=name("ReduceMean")),
        helper.make_node("Sub", [x, name("mean")], [name("d")], name=name("Sub")),
        helper.make_node("Pow", [name("d"), "two"], [name("sq")], name=name("Pow")),
        helper.make_node("ReduceMean", [name("sq")], [name("var")], axes=[-1],
                         name=name("ReduceMean_1")),
        helper.make_node("Add", [name("var"), "eps"], [name("ve")], name=name("Add")),
        helper.make_node("Sqrt", [name("ve")], [name("std")], name=name("Sqrt")),
        helper.make_node("Div", [name("d"), name("std")], [name("n")], name=name("Div")),
        helper.make_node("Mul", [name("n"), gamma], [name("s")], name=name("Mul")),
        helper.make_node("Add", [name("s"), beta], [name("out")], name=name("Add_1")),
    ]
    return name("out")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rng = np.random.default_rng(2026)

    def tensor(name, values):
        return numpy_helper.from_array(np.asarray(values, np.float32), name)

    inits = [
        tensor("two", 2.0), tensor("eps", 1e-5),
        tensor("ln1.weight", rng.uniform(0.5, 1.5, HIDDEN)),
        tensor("ln1.bias", rng.uniform(-0.5, 0.5, HIDDEN)),
        tensor("fc1.weight", rng.uniform(-0.3, 0.3, (HIDDEN, FFN))),
        tensor("fc1.bias", rng.uniform(-0.1, 0.1, FFN)),
        tensor("fc2.weight", rng.uniform(-0.3, 0.3, (FFN, HIDDEN))),
        tensor("fc2.bias", rng.uniform(-0.1, 0.1, HIDDEN)),
        tensor("ln2.weight", rng.uniform(0.5, 1.5, HIDDEN)),
        tensor("ln2.bias", rng.uniform(-0.5, 0.5, HIDDEN)),
    ]
    nodes = []
    h = layer_norm("ln1", "x", "ln1.weight", "ln1.bias", nodes)
    nodes += [
        helper.make_node("MatMul", [h, "fc1.weight"], ["fc1/mm"], name="fc1/MatMul"),
        helper.make_node("Add", ["fc1/mm", "fc1.bias"], ["fc1/out"], name="fc1/Add"),
        helper.make_node("Relu", ["fc1/out"], ["act"], name="Relu"),
        helper.make_node("MatMul", ["act", "fc2.weight"], ["fc2/mm"], name="fc2/MatMul"),
        helper.make_node("Add", ["fc2/mm", "fc2.bias"], ["fc2/out"], name="fc2/Add"),
        helper.make_node("Add", ["x", "fc2/out"], ["residual"], name="Residual"),
    ]
    y = layer_norm("ln2", "residual", "ln2.weight", "ln2.bias", nodes)
    nodes.append(helper.make_node("Identity", [y], ["y"], name="Output"))
    graph = helper.make_graph(
        nodes, "ffn_block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, HIDDEN])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, HIDDEN])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)],
                              producer_name="kiln-example")
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[1])


if __name__ == "__main__":
    main()
