#!/usr/bin/env python3
"""Writes the custom-op example model: y = Swish(x @ W; beta) + b, where
Swish is the custom operator com.example::Swish (x * sigmoid(beta * x)).

usage: make_swish_model.py OUT.onnx [--beta B] [--int-beta] [--reference X.npy Y.npy]

--int-beta writes beta as an INT attribute (which the example's shape
function refuses, for the error test).

--reference also writes a seeded input and the output computed here with
NumPy (the reference the tests compare Kiln with; onnxruntime cannot run a
com.example op without a custom-op library of its own).
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROWS, K, COLS = 8, 32, 64


def weights():
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((K, COLS)) / np.sqrt(K)).astype(np.float32)
    b = rng.standard_normal(COLS).astype(np.float32) * 0.1
    return w, b


def make_model(beta, int_beta=False):
    w, b = weights()
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul"),
        helper.make_node("Swish", ["h"], ["s"], name="swish", domain="com.example",
                         beta=int(beta) if int_beta else beta),
        helper.make_node("Add", ["s", "b"], ["y"], name="bias"),
    ]
    graph = helper.make_graph(
        nodes, "swish_example",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [ROWS, K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [ROWS, COLS])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)],
        producer_name="kiln-examples")


def reference(x, beta):
    w, b = weights()
    h = x.astype(np.float64) @ w.astype(np.float64)
    return (h / (1.0 + np.exp(-beta * h)) + b).astype(np.float32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--beta", type=float, default=1.5)
    parser.add_argument("--int-beta", action="store_true")
    parser.add_argument("--reference", nargs=2, metavar=("X.npy", "Y.npy"))
    args = parser.parse_args()
    onnx.save(make_model(args.beta, args.int_beta), args.out)
    if args.reference:
        x = np.random.default_rng(1).uniform(-2, 2, (ROWS, K)).astype(np.float32)
        np.save(args.reference[0], x)
        np.save(args.reference[1], reference(x, args.beta))


if __name__ == "__main__":
    main()
