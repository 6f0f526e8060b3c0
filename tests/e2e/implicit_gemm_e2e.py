#!/usr/bin/env python3
"""fp32 K x K convolutions as implicit GEMM (the contraction kernel gathers
its B panels from the conv input; no pad or im2col dispatch), checked
against onnxruntime (never against Kiln itself).

Two conv chains with the shapes the gather finds hardest:
  batch 2, input 2x5x70x66:
    conv_a  3x3, stride 2, dilation 2, pads 2             5 -> 67
    conv_b  5x3, pads (top 2, left 1, bottom 0, right 2) 67 -> 70
    conv_c  7x7, stride 2, pads 3 (resnet's stem)        70 -> 83
    conv_d  1x1, stride 2, pads (0, 0, 1, 1)             83 -> 83
    conv_e  3x3, pads 1, C*K = 747 (K blocks)            83 -> 99
    conv_f  3x3, stride 3, pads 1 (lane-by-lane gathers) 99 -> 200
  batch 1, input 1x4x9x70 (output rows wider than a lane tile):
    conv_g  3x3, pads 1                                   4 -> 64
    conv_h  3x3, stride 2, pads (0, 1, 1, 0)             64 -> 72
    conv_i  3x3, pads 1, 8 output channels: too few rows to repay the
            gather (worthGathering), so it keeps its pad and im2col, but
            on x86-64-v3 its 35-wide rows fill 16-lane tiles well enough
            for a row gather (worthGatheringRows, narrow_conv_e2e.py)
  batch 2, input 2x48x13x13 (7x7 outputs, 49 pixels; LoweringConfig's
  few-pixel rule would give 16 x 16 register tiles on AVX-512, but these
  filters are constants of 36 rows or more, stored in row panels, which
  keep 8 x 32):
    conv_j  3x3, stride 2, pads 1, C*K = 432 (2 K blocks) 48 -> 100
    conv_k  1x1 (no im2col), a 4-row edge               100 -> 1028
    conv_l  1x1, K = 1028 (A's rows not 4 KiB apart)    1028 -> 37
    conv_m  1x1, K = 37                                   37 -> 1024
    conv_n  1x1, K = 1024 (A's rows would be 4 KiB apart) 1024 -> 45
    conv_o  3x3, pads 1, 45 -> 36: pad and im2col
each followed by Relu. Channel counts and output pixels are never tile
multiples, so K blocks, lane tiles and row tiles all have partial edges,
and the padding falls on every side. Kiln compiles each chain with

    --cpu=native      the host (AVX-512: 8 x 32 tiles; AVX2: as v3)
    --cpu=x86-64-v4   AVX-512 without the host's extras
    --cpu=x86-64-v3   AVX2, 6 x 16 tiles (runs on an AVX-512 host too)
    --codegen=loop-order   no register tiles: the pad and im2col stay

each with --conv-layout=nchw (the channels-first kernels are what this
test checks; channels_last_e2e.py checks the channels-last ones),
and every output must match onnxruntime within 1e-4 + 1e-3 |ort|. The
register-tile builds' dump must show each gathered conv as one dispatch
with `gather_b = "im2col"` and no pad or im2col dispatch but conv_i's and
conv_o's (the 1x1 stride-1 convs are one plain dispatch), and the
few-pixel chain's register tiles (8 x 32 on native and v4, 6 x 16 on
v3). A build the host cannot run (x86-64-v4 on AVX2) is
checked by its dump only.

Prints one line per check and ends with 'N passed, N failed, N not run on this
host'; exit status 1
when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/implicit_gemm_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import os
import re
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_ort  # noqa: E402
from conv_checks import (Checks, parse_args, save_model, compile_with_dump,  # noqa: E402
                         dispatches, cpu_of, isa_of)

# name, out channels, kernel, strides, pads (top, left, bottom, right), dilations
CHAINS = {
    "chain_b2": ((2, 5, 70, 66), [
        ("conv_a", 67, (3, 3), (2, 2), (2, 2, 2, 2), (2, 2)),
        ("conv_b", 70, (5, 3), (1, 1), (2, 1, 0, 2), (1, 1)),
        ("conv_c", 83, (7, 7), (2, 2), (3, 3, 3, 3), (1, 1)),
        ("conv_d", 83, (1, 1), (2, 2), (0, 0, 1, 1), (1, 1)),
        ("conv_e", 99, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
        ("conv_f", 200, (3, 3), (3, 3), (1, 1, 1, 1), (1, 1)),
    ]),
    "chain_wide": ((1, 4, 9, 70), [
        ("conv_g", 64, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
        ("conv_h", 72, (3, 3), (2, 2), (0, 1, 1, 0), (1, 1)),
        ("conv_i", 8, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
    ]),
    "chain_few_pixels": ((2, 48, 13, 13), [
        ("conv_j", 100, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1)),
        ("conv_k", 1028, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),
        ("conv_l", 37, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),
        ("conv_m", 1024, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),
        ("conv_n", 45, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),
        ("conv_o", 36, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
    ]),
}
# Convs with too few output channels to gather: they keep pad + im2col,
# except on the vector ISAs listed here (what a build targets: native is
# the host's), where they are row gathers.
NOT_GATHERED = {"conv_i", "conv_o"}
ROW_GATHERED = {"conv_i": {"avx2"}}
# 1x1 stride-1 convs: one contraction dispatch on the input itself.
PLAIN = {"conv_k", "conv_l", "conv_m", "conv_n"}
# Register tiles of the few-pixel chain on AVX-512 (the rest: 8 x 32;
# every AVX2 build, v3 or native on an AVX2 host: 6 x 16).
FEW_PIXEL_TILES = {"conv_j": (8, 32), "conv_k": (8, 32), "conv_l": (8, 32),
                   "conv_m": (8, 32), "conv_n": (8, 32), "conv_o": (8, 32)}


def make_model(path, shape, convs, seed=5):
    rng = np.random.default_rng(seed)
    inits, nodes = [], []
    channels, x = shape[1], "input"
    for name, cout, kernel, strides, pads, dilations in convs:
        fan_in = channels * kernel[0] * kernel[1]
        w = rng.normal(0, np.sqrt(2 / fan_in), (cout, channels, *kernel)).astype(np.float32)
        b = rng.normal(0, 0.1, (cout,)).astype(np.float32)
        inits += [numpy_helper.from_array(w, name + "_w"), numpy_helper.from_array(b, name + "_b")]
        nodes.append(
            helper.make_node("Conv", [x, name + "_w", name + "_b"], [name], name=name,
                             kernel_shape=list(kernel), strides=list(strides),
                             pads=list(pads), dilations=list(dilations)))
        nodes.append(helper.make_node("Relu", [name], [name + "_relu"], name=name + "_relu"))
        channels, x = cout, name + "_relu"
    nodes.append(helper.make_node("Identity", [x], ["output"], name="out"))
    graph = helper.make_graph(
        nodes, "conv_chain", [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, None)], inits)
    return save_model(graph, path)


def main():
    args = parse_args(__doc__.splitlines()[0], "kiln-implicit-gemm-")
    check = Checks()
    # Channels first throughout: the few-pixel chain would otherwise run
    # channels last (kiln-channels-last; channels_last_e2e.py tests that).
    nchw = "--conv-layout=nchw"
    builds = [
        ("native", ["--cpu=native", nchw], True),
        ("x86-64-v4", ["--cpu=x86-64-v4", nchw], True),
        ("x86-64-v3", ["--cpu=x86-64-v3", nchw], True),
        ("loop-order", ["--cpu=native", "--codegen=loop-order", nchw], False),
    ]
    for chain, (shape, convs) in CHAINS.items():
        model = make_model(os.path.join(args.workdir, chain + ".onnx"), shape, convs)
        inputs = {"input": np.random.default_rng(1).uniform(-1, 1, shape).astype(np.float32)}
        for label, flags, gathered in builds:
            artifact = os.path.join(args.workdir, f"{chain}_{label}.kiln")
            rc, dump, stderr = compile_with_dump(args.kilnc, model, artifact, flags)
            if rc != 0:
                check(False, f"{chain} [{label}]: kilnc exited {rc}:\n{stderr}")
                continue
            found = dispatches(dump)
            names = [c[0] for c in convs]
            if gathered:
                # One contraction dispatch per conv; the gathered ones say so
                # and are the only dispatch of their conv.
                for name in names:
                    mine = [(h, c) for h, n, c in found if name in n]
                    want = name not in NOT_GATHERED and name not in PLAIN
                    if isa_of(flags) in ROW_GATHERED.get(name, ()):
                        ok = len(mine) == 1 and 'gather_b = "rows"' in mine[0][1]
                        what = "one dispatch, gather_b = \"rows\""
                    elif name in PLAIN:
                        ok = len(mine) == 1 and "gather_b" not in mine[0][1]
                        what = "one dispatch, no gather_b"
                    elif want:
                        ok = len(mine) == 1 and 'gather_b = "im2col"' in mine[0][1]
                        what = "one dispatch, gather_b = \"im2col\""
                    else:
                        ok = len(mine) == 3 and not any("gather_b" in c for _, c in mine)
                        what = "pad, im2col and contraction dispatches, no gather_b"
                    check(ok, f"{chain} [{label}] {name}: {what} (found {len(mine)}: "
                          + "; ".join(h.split(" (")[0] for h, _ in mine) + ")")
                    if name in FEW_PIXEL_TILES and mine:
                        rows, lanes = (6, 16) if isa_of(flags) == "avx2" else FEW_PIXEL_TILES[name]
                        tile = f"register_tile = array<i64: {rows}, {lanes}>"
                        check(tile in mine[-1][1],
                              f"{chain} [{label}] {name}: {tile} ({mine[-1][1].strip()})")
                pads = [h for h, n, _ in found if "tensor.pad" in h
                        and not set(n) & NOT_GATHERED]
                check(not pads, f"{chain} [{label}]: no pad dispatch of a gathered conv "
                      f"({len(pads)})")
            else:
                check(len(found) > len(convs) and
                      not any("gather_b" in c for _, _, c in found),
                      f"{chain} [{label}]: {len(found)} dispatches (pad and im2col kept), "
                      "no gather_b")
            if not compare_with_ort.host_runs(cpu_of(flags)):
                check.skip(f"{chain} [{label}]: compiled, not run (this host cannot run "
                           f"{cpu_of(flags)} code)")
                continue
            results = compare_with_ort.compare(
                model, artifact, args.kiln, atol=1e-4, rtol=1e-3, inputs=inputs,
                workdir=os.path.join(args.workdir, f"{chain}_{label}_run"))
            if results is None:
                check(False, f"{chain} [{label}]: kiln run failed")
                continue
            for name, abs_err, rel_err, good in results:
                check(good, f"{chain} [{label}] {name}: max abs err {abs_err:.3g}, "
                      f"max rel err {rel_err:.3g} vs onnxruntime")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
