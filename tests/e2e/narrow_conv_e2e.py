#!/usr/bin/env python3
"""Narrow fp32 K x K convolutions (fewer than 64 output channels) as row
gathers (`gather_b = "rows"`: lane tiles inside one output row, no column
buffer, no pad dispatch), checked against onnxruntime (never against Kiln
itself).

Chains of convs with odd shapes, each followed by Relu:
  batch 2, input 2x3x37x61:
    n_a  7x7, stride 2, pads (3, 2, 1, 3) (a stem)        3 -> 5   18x30
    n_b  3x3, pads 1                                      5 -> 8   18x30
    n_c  3x3, dilation 2, pads (2, 0, 2, 1)               8 -> 63  18x27
    n_d  5x5, stride 2, no pads (im2col absorbs n_c's Relu) 63 -> 1  7x12
    n_e  3x3, pads 1                                      1 -> 5    7x12
    n_f  1x1, stride 2, no pads (likewise)                5 -> 7    4x6
  batch 1, input 1x1x1x50 (a one-row plane: every tap row but the middle
  one lies outside it):
    r_a  3x3, pads 1                                      1 -> 3    1x50
    r_b  1x3, stride 2, pads (0, 1, 0, 1)                 3 -> 8    1x25
    r_c  3x1, pads (1, 0, 1, 0)                           8 -> 16   1x25
    r_d  3x3, stride 3, pads 1 (column stride 3)         16 -> 9    1x9
  batch 1, input 1x8x30x29 (channel counts around the 64-row threshold):
    w_a  3x3, pads 1, 64 channels (the segment gather)    8 -> 64  30x29
    w_b  3x3, stride 2, pads (1, 1, 0, 0)                64 -> 24  15x14
    w_c  9x9, pads 4 (81 taps: the per-row panel fill, not the unrolled
         window)                                         24 -> 6   15x14

Which convs gather rows follows worthGatheringRows (ImplicitGemm.cpp):
fewer than 64 output channels, column stride 1 or 2, output rows that fill
at least 3/4 of their lane tiles (32 lanes on AVX-512, 16 on AVX2; an edge
of at most half the lanes costs half a tile), and on AVX2 at stride 1 rows
of at least 28 outputs.
An unpadded conv's im2col absorbs the Relu before it (n_d, n_f): no plain
gather, so those keep their im2col. The others keep their pad and im2col
dispatches (or, with >= 64 channels,
the segment gather `gather_b = "im2col"`). Each chain is built for

    --cpu=native      the host (AVX-512, or AVX2 as v3)
    --cpu=x86-64-v4   AVX-512 without the host's extras
    --cpu=x86-64-v3   AVX2
    --codegen=loop-order   no register tiles: the pad and im2col stay

and every output must match onnxruntime within 1e-4 + 1e-3 |ort|; the
register-tile builds' dump must show each row-gathered conv as one
dispatch with `gather_b = "rows"`. A build the host cannot run (x86-64-v4
on AVX2) is checked by its dump only.

Prints one line per check and ends with 'N passed, N failed, N not run on this
host'; exit status 1
when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/narrow_conv_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_ort  # noqa: E402
from conv_checks import Checks, parse_args, compile_with_dump, dispatches, cpu_of, isa_of  # noqa: E402
from implicit_gemm_e2e import make_model  # noqa: E402

# name, out channels, kernel, strides, pads (top, left, bottom, right), dilations
CHAINS = {
    "narrow_b2": ((2, 3, 37, 61), [
        ("n_a", 5, (7, 7), (2, 2), (3, 2, 1, 3), (1, 1)),
        ("n_b", 8, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
        ("n_c", 63, (3, 3), (1, 1), (2, 0, 2, 1), (2, 2)),
        ("n_d", 1, (5, 5), (2, 2), (0, 0, 0, 0), (1, 1)),
        ("n_e", 5, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
        ("n_f", 7, (1, 1), (2, 2), (0, 0, 0, 0), (1, 1)),
    ]),
    "narrow_row": ((1, 1, 1, 50), [
        ("r_a", 3, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
        ("r_b", 8, (1, 3), (2, 2), (0, 1, 0, 1), (1, 1)),
        ("r_c", 16, (3, 1), (1, 1), (1, 0, 1, 0), (1, 1)),
        ("r_d", 9, (3, 3), (3, 3), (1, 1, 1, 1), (1, 1)),
    ]),
    "narrow_edge": ((1, 8, 30, 29), [
        ("w_a", 64, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
        ("w_b", 24, (3, 3), (2, 2), (1, 1, 0, 0), (1, 1)),
        ("w_c", 6, (9, 9), (1, 1), (4, 4, 4, 4), (1, 1)),
    ]),
}


# Unpadded convs after a conv: their im2col generic absorbed the Relu.
FUSED_IM2COL = {"n_d", "n_f"}


def output_shape(shape, convs):
    """(channels, OH, OW) after each conv, from the chain's input shape."""
    _, c, h, w = shape
    out = {}
    for name, cout, kernel, strides, pads, dilations in convs:
        h = (h + pads[0] + pads[2] - dilations[0] * (kernel[0] - 1) - 1) // strides[0] + 1
        w = (w + pads[1] + pads[3] - dilations[1] * (kernel[1] - 1) - 1) // strides[1] + 1
        out[name] = (cout, h, w, kernel, strides)
        c = cout
    return out


def expected_mode(cout, ow, kernel, strides, isa):
    """'rows', 'im2col' (segment gather), 'plain' (1x1 stride 1) or 'kept'
    (pad + im2col + contraction), as worthGathering(Rows) decide."""
    if kernel == (1, 1) and strides == (1, 1):
        return "plain"
    avx2 = isa == "avx2"
    lanes = 16 if avx2 else 32
    if cout >= 64:
        segments = 1 + -(-(lanes - 1) // ow)
        return "im2col" if segments * 16 <= min(cout, 256) else "kept"
    if strides[1] not in (1, 2) or (avx2 and strides[1] == 1 and ow < 28):
        return "kept"
    rest = ow % lanes
    occupied = ow // lanes * lanes + (0 if rest == 0 else lanes // 2 if rest <= lanes // 2 else lanes)
    return "rows" if 4 * ow >= 3 * occupied else "kept"


def main():
    args = parse_args(__doc__.splitlines()[0], "kiln-narrow-conv-")
    check = Checks()
    builds = [
        ("native", ["--cpu=native"], True),
        ("x86-64-v4", ["--cpu=x86-64-v4"], True),
        ("x86-64-v3", ["--cpu=x86-64-v3"], True),
        ("loop-order", ["--cpu=native", "--codegen=loop-order"], False),
    ]
    rows_seen = {label: 0 for label, _, _ in builds}
    for chain, (shape, convs) in CHAINS.items():
        model = make_model(os.path.join(args.workdir, chain + ".onnx"), shape, convs)
        inputs = {"input": np.random.default_rng(2).uniform(-1, 1, shape).astype(np.float32)}
        geometry = output_shape(shape, convs)
        for label, flags, tiled in builds:
            artifact = os.path.join(args.workdir, f"{chain}_{label}.kiln")
            rc, dump, stderr = compile_with_dump(args.kilnc, model, artifact, flags)
            if rc != 0:
                check(False, f"{chain} [{label}]: kilnc exited {rc}:\n{stderr}")
                continue
            found = dispatches(dump)
            for name, _, _, _, _, _ in convs:
                cout, _, ow, kernel, strides = geometry[name]
                mine = [(h, c) for h, n, c in found if name in n]
                mode = expected_mode(cout, ow, kernel, strides, isa_of(flags)) if tiled else "kept"
                if name in FUSED_IM2COL:
                    mode = "kept"
                if mode == "rows":
                    rows_seen[label] += 1
                    ok = len(mine) == 1 and 'gather_b = "rows"' in mine[0][1]
                    what = 'one dispatch, gather_b = "rows"'
                elif mode == "im2col":
                    ok = len(mine) == 1 and 'gather_b = "im2col"' in mine[0][1]
                    what = 'one dispatch, gather_b = "im2col"'
                elif mode == "plain":
                    ok = len(mine) == 1 and "gather_b" not in mine[0][1]
                    what = "one dispatch, no gather_b"
                else:
                    # The pad dispatch exists only for padded convs.
                    ok = len(mine) >= 2 and not any("gather_b" in c for _, c in mine)
                    what = "its im2col and contraction dispatches, no gather_b"
                check(ok, f"{chain} [{label}] {name} ({cout} ch, OW {ow}, stride "
                      f"{strides[1]}): {what} (found {len(mine)}: "
                      + "; ".join(c for _, c in mine) + ")")
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
    # The chains must exercise the row gather on every register-tile build.
    for label, count in rows_seen.items():
        if label != "loop-order":
            check(count >= 3, f"[{label}] {count} convs take gather_b = \"rows\"")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
