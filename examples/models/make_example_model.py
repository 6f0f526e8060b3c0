#!/usr/bin/env python3
"""Writes examples/models/tiny_classifier.onnx, the model the README's first
command compiles and runs: conv 3x3 + batch norm + ReLU, max pool, a second
conv + ReLU, global average pool, a fully connected layer and softmax over
10 classes, on a 1x3x32x32 image. Seeded, so the file is reproducible.

    ~/.cache/kiln/venv/bin/python examples/models/make_example_model.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


def weight(name, shape, scale=0.2):
    return numpy_helper.from_array(
        rng.uniform(-scale, scale, shape).astype(np.float32), name)


def main():
    inits = [
        weight("conv1.w", (16, 3, 3, 3)), weight("conv1.b", (16,)),
        numpy_helper.from_array(np.ones(16, np.float32), "bn.scale"),
        weight("bn.bias", (16,)), weight("bn.mean", (16,)),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, 16).astype(np.float32), "bn.var"),
        weight("conv2.w", (32, 16, 3, 3), 0.1), weight("conv2.b", (32,)),
        weight("fc.w", (10, 32)), weight("fc.b", (10,)),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"], ["b1"]),
        helper.make_node("Relu", ["b1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2.w", "conv2.b"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_classifier",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="kiln-example")
    onnx.checker.check_model(model)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_classifier.onnx")
    onnx.save(model, path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
