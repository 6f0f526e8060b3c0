#!/usr/bin/env python3
"""Writes the inputs of bench/gemm_kernels.sh into DIR:

  gemm_f32.onnx      MatMul of a [N, N] input by a constant [N, N] weight
                     (compiled by kilnc in fp32 and --precision=bf16);
  gemm_int8.mlir     the int8 dispatches kiln-cpu-pack-weights makes of an
                     integer matmul with constant weights: `quad` (vpdpbusd
                     on K quads, A flipped, -128 * colsum(B) start), `pair`
                     (pmaddwd on K pairs), and two with B not packed ahead
                     of time (a computed B, as a conv's im2col columns):
                     `plain` (a config without pack_b: i8 widened to i32 on
                     load) and `panel` (the backend's choice: the kernel
                     packs B panels, vpdpbusd);
  gemm_int8_avx2.mlir  `pair`, `plain` and `panel` (pmaddwd panels), for
                     CPUs without VNNI.

usage: make_gemm_kernels.py DIR [--size N]
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

QUAD = """  func.func private @quad(%a: tensor<{n}x{n}xi8>, %b: tensor<{q}x{n}x4xi8>, %corr: tensor<{n}xi32>) -> tensor<{n}x{n}xi32> attributes {{kiln.dispatch}} {{
    %0 = tensor.empty() : tensor<{n}x{n}xi32>
    %1 = linalg.generic {{indexing_maps = [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}} ins(%corr : tensor<{n}xi32>) outs(%0 : tensor<{n}x{n}xi32>) {{
    ^bb0(%in: i32, %out: i32):
      linalg.yield %in : i32
    }} -> tensor<{n}x{n}xi32>
    %2 = linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 4, n, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%a, %b : tensor<{n}x{n}xi8>, tensor<{q}x{n}x4xi8>) outs(%1 : tensor<{n}x{n}xi32>) {{
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %c128 = arith.constant -128 : i8
      %f = arith.xori %x, %c128 : i8
      %xu = arith.extui %f : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xu, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    }} -> tensor<{n}x{n}xi32>
    return %2 : tensor<{n}x{n}xi32>
  }}
"""

PAIR = """  func.func private @pair(%a: tensor<{n}x{n}xi8>, %b: tensor<{h}x{n}x2xi8>) -> tensor<{n}x{n}xi32> attributes {{kiln.dispatch}} {{
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<{n}x{n}xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<{n}x{n}xi32>) -> tensor<{n}x{n}xi32>
    %2 = linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 2, n, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%a, %b : tensor<{n}x{n}xi8>, tensor<{h}x{n}x2xi8>) outs(%1 : tensor<{n}x{n}xi32>) {{
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    }} -> tensor<{n}x{n}xi32>
    return %2 : tensor<{n}x{n}xi32>
  }}
"""

PLAIN = """  func.func private @plain(%a: tensor<{n}x{n}xi8>, %b: tensor<{n}x{n}xi8>) -> tensor<{n}x{n}xi32> attributes {{kiln.dispatch, kiln.lowering_config = {{register_tile = array<i64: {tile}>, reduction_tile = {kc} : i64, strategy = "contraction", workgroup_tile = array<i64: {wg}, 64, 0>}}}} {{
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<{n}x{n}xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<{n}x{n}xi32>) -> tensor<{n}x{n}xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<{n}x{n}xi8>, tensor<{n}x{n}xi8>) outs(%1 : tensor<{n}x{n}xi32>) -> tensor<{n}x{n}xi32>
    return %2 : tensor<{n}x{n}xi32>
  }}
"""

PANEL = """  func.func private @panel(%a: tensor<{n}x{n}xi8>, %b: tensor<{n}x{n}xi8>) -> tensor<{n}x{n}xi32> attributes {{kiln.dispatch}} {{
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<{n}x{n}xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<{n}x{n}xi32>) -> tensor<{n}x{n}xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<{n}x{n}xi8>, tensor<{n}x{n}xi8>) outs(%1 : tensor<{n}x{n}xi32>) -> tensor<{n}x{n}xi32>
    return %2 : tensor<{n}x{n}xi32>
  }}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--size", type=int, default=1024)
    args = parser.parse_args()
    n = args.size
    os.makedirs(args.dir, exist_ok=True)
    weight = np.random.default_rng(0).uniform(-1, 1, (n, n)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])],
        [numpy_helper.from_array(weight, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, os.path.join(args.dir, "gemm_f32.onnx"))
    # `plain` keeps the convert path by a lowering config without pack_b
    # (the tiles the backend picks: 8x32 on AVX-512, 6x16 on AVX2);
    # `panel` gets the backend's choice, B packed by the kernel.
    for name, parts, tiles in (("gemm_int8.mlir", QUAD + PAIR + PLAIN + PANEL,
                                dict(tile="8, 32", kc=512, wg=64)),
                               ("gemm_int8_avx2.mlir", PAIR + PLAIN + PANEL,
                                dict(tile="6, 16", kc=0, wg=60))):
        fields = dict(n=n, q=(n + 3) // 4, h=(n + 1) // 2, **tiles)
        with open(os.path.join(args.dir, name), "w") as f:
            f.write("module {\n" + parts.format(**fields) + "}\n")


if __name__ == "__main__":
    main()
