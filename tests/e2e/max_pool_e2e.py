#!/usr/bin/env python3
"""Max pools on the depthwise kernel's plane walk ("max" depthwise tiles:
one vector max per tap instead of LLVM's scalar window loops), checked
against onnxruntime (never against Kiln).

One model with a 1x1 Conv -> MaxPool per branch (the conv puts the pool
inside --precision's 16-bit region; a pool on its own stays f32), batch 2,
shapes the kernel finds hardest:
  mp_a  3x3 s2 pads 1, 16 ch, 112x112 (ResNet's, on row tiles)
  mp_b  3x3 s2 pads 0 ceil_mode, 9 ch, 13x13 (the ceil's extra column and
        row read padding only at the end)
  mp_c  2x2 s2 pads 0, 5 ch, 15x15 (the odd last row and column dropped)
  mp_d  3x3 s1 pads 1, 7 ch, 14x14 (stride 1)
  mp_e  5x5 s1 pads 2, 4 ch, 7x7 (a small plane: the flat grid)
  mp_f  3x3 s2 pads (1, 0, 1, 2), 6 ch, 3x37 (asymmetric, three rows)
  mp_g  3x3 s3 pads 0, 5 ch, 12x12 (stride 3: no depthwise path, loop
        order)
  mp_h  2x2 dilation 2, 4 ch, 10x10 (dilated: loop order)
The pool's padding is folded into the kernel as bounds where the conv's
is (DepthwisePad.h: row tiles, and 16-bit planes only with AVX-512's
masked loads): no pad dispatch, masked-off lanes read -inf.

Kiln compiles the model under --cpu=native, x86-64-v4 and x86-64-v3 (f32:
within 1e-5 max|ort| of onnxruntime fp32; the max is exact, only the 1x1
conv's sums may round differently), --precision=bf16 (v4 and v3) and
--precision=fp16 (v4), within 0.01 and 0.002 of max|ort| (the conv's
inputs, weights and result rounded to 8 / 11 significant bits; the max
itself is exact). Every pool of stride 1 or 2 without dilation must be on
`strategy = "depthwise", native = "max"`, the others on loop order.

Prints one line per check and ends with 'N passed, N failed, N not run on
this host'; exit status 1 when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/max_pool_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import os
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conv_checks import (Checks, parse_args, save_model, checked_run,  # noqa: E402
                         dispatches, isa_of, check_outputs)

# name, channels, input H x W, kernel, stride, pads (top, left, bottom,
# right), ceil_mode, dilation
POOLS = [
    ("mp_a", 16, (112, 112), 3, 2, (1, 1, 1, 1), 0, 1),
    ("mp_b", 9, (13, 13), 3, 2, (0, 0, 0, 0), 1, 1),
    ("mp_c", 5, (15, 15), 2, 2, (0, 0, 0, 0), 0, 1),
    ("mp_d", 7, (14, 14), 3, 1, (1, 1, 1, 1), 0, 1),
    ("mp_e", 4, (7, 7), 5, 1, (2, 2, 2, 2), 0, 1),
    ("mp_f", 6, (3, 37), 3, 2, (1, 0, 1, 2), 0, 1),
    ("mp_g", 5, (12, 12), 3, 3, (0, 0, 0, 0), 0, 1),
    ("mp_h", 4, (10, 10), 2, 1, (0, 0, 0, 0), 0, 2),
]
BATCH = 2
OUTPUTS = [p[0] + "_out" for p in POOLS]


def on_kernel(pool):
    return pool[4] in (1, 2) and pool[7] == 1


def make_model(path, seed=3):
    rng = np.random.default_rng(seed)
    inits, nodes, inputs, outputs = [], [], [], []
    for name, ch, (h, w), k, s, pads, ceil, dil in POOLS:
        wt = rng.normal(0, 1 / np.sqrt(ch), (ch, ch, 1, 1)).astype(np.float32)
        inits.append(numpy_helper.from_array(wt, name + "_w"))
        nodes += [
            helper.make_node("Conv", [name + "_in", name + "_w"], [name + "_c"],
                             name=name + "_conv", kernel_shape=[1, 1]),
            helper.make_node("MaxPool", [name + "_c"], [name + "_out"], name=name,
                             kernel_shape=[k, k], strides=[s, s],
                             pads=[pads[0], pads[1], pads[2], pads[3]],
                             ceil_mode=ceil, dilations=[dil, dil]),
        ]
        inputs.append(helper.make_tensor_value_info(name + "_in", TensorProto.FLOAT,
                                                    (BATCH, ch, h, w)))
        outputs.append(helper.make_tensor_value_info(name + "_out", TensorProto.FLOAT, None))
    graph = helper.make_graph(nodes, "max_pools", inputs, outputs, inits)
    return save_model(graph, path)


def pool_configs(dump):
    """pool name -> the lowering config of the dispatch computing it."""
    configs = {}
    for header, nodes, config in dispatches(dump):
        if "[reduction]" in header:
            for name in nodes:
                if name in {p[0] for p in POOLS}:
                    configs[name] = config
    return configs


def main():
    args = parse_args(__doc__.splitlines()[0], "kiln-max-pool-")
    check = Checks()
    model = make_model(os.path.join(args.workdir, "max_pools.onnx"))
    rng = np.random.default_rng(5)
    inputs = {p[0] + "_in": rng.normal(0, 1, (BATCH, p[1]) + p[2]).astype(np.float32)
              for p in POOLS}
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, inputs)))
    configs = [
        ("native", ["--cpu=native"], 1e-5),
        ("x86-64-v4", ["--cpu=x86-64-v4"], 1e-5),
        ("x86-64-v3", ["--cpu=x86-64-v3"], 1e-5),
        ("bf16 x86-64-v4", ["--cpu=x86-64-v4", "--precision=bf16"], 0.01),
        ("bf16 x86-64-v3", ["--cpu=x86-64-v3", "--precision=bf16"], 0.01),
        ("fp16 x86-64-v4", ["--cpu=x86-64-v4", "--precision=fp16"], 0.002),
    ]
    for label, flags, rtol in configs:
        dump, got = checked_run(check, args, model, flags, label, inputs, OUTPUTS)
        if dump is None:
            continue
        found = pool_configs(dump)
        for pool in POOLS:
            name, config = pool[0], found.get(pool[0], "(no dispatch found)")
            on_path = 'strategy = "depthwise"' in config and 'native = "max"' in config
            check(on_path == on_kernel(pool),
                  f"[{label}] {name}: {'max depthwise tiles' if on_kernel(pool) else 'loop order'}"
                  f" expected, config {config}")
        # Pads of row-tiled pools fold into the kernel (16-bit planes only
        # with AVX-512's masked loads); the flat grid keeps its pad.
        padded = sorted({n for header, nodes, _ in dispatches(dump) if "tensor.pad" in header
                         for n in nodes if n in {p[0] for p in POOLS}})
        kept = sorted(p[0] for p in POOLS if any(p[5]) and on_kernel(p) and (
            'plane = "flat"' in found.get(p[0], "") or
            (p[4] == 2 and "--precision" in " ".join(flags) and isa_of(flags) == "avx2")))
        check(not set(kept) - set(padded) and
              not {n for n in padded if on_kernel(next(p for p in POOLS if p[0] == n))} - set(kept),
              f"[{label}]: pad dispatches for {padded} (max-tiled pools expected to keep "
              f"one: {kept})")
        if got is not None:
            check_outputs(check, f"[{label}]", got, want, 0, rtol)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
