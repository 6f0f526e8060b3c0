#!/usr/bin/env python3
"""Depthwise convolutions on the depthwise kernels (int8: vpdpbusd and
vpmaddwd tap groups; f32, bf16 and fp16: FMA tiles), checked against
onnxruntime (never against Kiln).

One model with a depthwise Conv -> Relu per branch, batch 2, shapes the
kernel finds hardest (channel counts that are no multiple of 16, odd
planes, strides 1 and 2, 3x3 and 5x5, asymmetric pads):
  dw_a  3x3 s1 pads 1, 20 ch, 14x14
  dw_b  3x3 s2 pads 1, 19 ch, 13x13 -> 7x7
  dw_c  5x5 s1 pads 2, 21 ch, 7x7
  dw_d  5x5 s2 pads 2, 17 ch, 14x14 -> 7x7
  dw_e  3x3 s1 pads 1, 9 ch, 56x56
  dw_f  3x3 s2 pads (0, 0, 1, 1), 7 ch, 56x56 -> 28x28
  dw_g  3x3 s1 pads 1, 11 ch, 29x29 (a prime row count: the f32 row
        tiles' last group of rows moves back)
and, for the padding folded into the kernel as bounds (DepthwisePad.h:
no pad dispatch, masked loads at the row's ends, rows outside the plane
masked off):
  dw_h  3x3 s1 pads (0, 2, 1, 0), 3 ch, 9x23 (asymmetric; one channel
        would be a plain conv, implicit_gemm_e2e's)
  dw_i  3x3 s2 pads 3, 5 ch, 11x12 (pads as large as the kernel: whole
        output rows and columns read only padding)
  dw_j  3x3 s1 pads 1, 3 ch, 1x37 (a 1 x N plane)
  dw_k  5x5 s2 pads (1, 2, 2, 1), 13 ch, 33x35
  dw_l  3x3 s1 pads 0, 6 ch, 30x30 (no padding at all)
  dw_m  3x3 s1 pads 1, 2 ch, 20x90 (rows with interior, unmasked tiles)
  dw_n  3x3 s2 pads 1, 3 ch, 17x150 (the same at stride 2)
onnxruntime's quantize_static writes the QDQ model (uint8 activations with
non-zero zero points, so the padding is the zero point; int8 per-channel
weights). Kiln compiles that same model under

    --cpu=native       "vnni" depthwise tiles on a VNNI host
    --cpu=x86-64-v4    "pmaddwd" (zmm)
    --cpu=x86-64-v3    "pmaddwd" (ymm)
    --codegen=loop-order   no depthwise tiles at all

and every output must be within one unit of its output scale of
onnxruntime's on the same QDQ model (the integer sums are exact; only a
requantization tie may round the other way). The dump must show every
depthwise dispatch with `strategy = "depthwise"` and the expected path.
Where onnxruntime's u8 x s8 kernels saturate (AVX2 without VNNI) the
reference is its output for the same weights held in uint8
(compare_with_ort.reference_model); builds the host cannot run (x86-64-v4
on AVX2) are checked by their dumps only.
The fp32 model (native, x86-64-v3) must be within 1e-4 + 1e-4 max|ort| of
onnxruntime fp32, and so must x86-64-v4's; all three with every
depthwise dispatch on "fma" depthwise tiles. The --precision=bf16 and
--precision=fp16 builds (depthwise "fma" tiles on 16-bit planes: bf16
widened by a shift at stride 2, otherwise the plane widened once per
channel) must be within 0.01 and 0.002 of max|ort| of onnxruntime fp32
(roundings of the input, weights and output to 8 / 11 significant bits;
measured about half of that).

Prints one line per check and ends with 'N passed, N failed, N not run on this
host'; exit status 1
when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/depthwise_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import os
import re
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime import quantization as q

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_ort  # noqa: E402
from conv_checks import (Checks, parse_args, save_model, compile_and_run, dispatches,  # noqa: E402
                         host_has, cpu_of, isa_of, check_outputs)

# name, channels, input H x W, kernel, stride, pads (top, left, bottom, right)
CONVS = [
    ("dw_a", 20, (14, 14), 3, 1, (1, 1, 1, 1)),
    ("dw_b", 19, (13, 13), 3, 2, (1, 1, 1, 1)),
    ("dw_c", 21, (7, 7), 5, 1, (2, 2, 2, 2)),
    ("dw_d", 17, (14, 14), 5, 2, (2, 2, 2, 2)),
    ("dw_e", 9, (56, 56), 3, 1, (1, 1, 1, 1)),
    ("dw_f", 7, (56, 56), 3, 2, (0, 0, 1, 1)),
    ("dw_g", 11, (29, 29), 3, 1, (1, 1, 1, 1)),
    ("dw_h", 3, (9, 23), 3, 1, (0, 2, 1, 0)),
    ("dw_i", 5, (11, 12), 3, 2, (3, 3, 3, 3)),
    ("dw_j", 3, (1, 37), 3, 1, (1, 1, 1, 1)),
    ("dw_k", 13, (33, 35), 5, 2, (1, 2, 2, 1)),
    ("dw_l", 6, (30, 30), 3, 1, (0, 0, 0, 0)),
    ("dw_m", 2, (20, 90), 3, 1, (1, 1, 1, 1)),
    ("dw_n", 3, (17, 150), 3, 2, (1, 1, 1, 1)),
]
BATCH = 2
OUTPUTS = [c[0] + "_out" for c in CONVS]


def shape_of(conv):
    _, ch, (h, w), _, _, _ = conv
    return (BATCH, ch, h, w)


def make_model(path, seed=3):
    rng = np.random.default_rng(seed)
    inits, nodes, inputs, outputs = [], [], [], []
    for name, ch, (h, w), k, s, pads in CONVS:
        wt = rng.normal(0, np.sqrt(2 / (k * k)), (ch, 1, k, k)).astype(np.float32)
        b = rng.normal(0, 0.2, (ch,)).astype(np.float32)
        inits += [numpy_helper.from_array(wt, name + "_w"),
                  numpy_helper.from_array(b, name + "_b")]
        nodes += [
            helper.make_node("Conv", [name + "_in", name + "_w", name + "_b"], [name],
                             name=name, kernel_shape=[k, k], strides=[s, s],
                             pads=[pads[0], pads[1], pads[2], pads[3]], group=ch),
            helper.make_node("Relu", [name], [name + "_out"], name=name + "_relu"),
        ]
        inputs.append(helper.make_tensor_value_info(name + "_in", TensorProto.FLOAT,
                                                    (BATCH, ch, h, w)))
        outputs.append(helper.make_tensor_value_info(name + "_out", TensorProto.FLOAT, None))
    graph = helper.make_graph(nodes, "depthwise", inputs, outputs, inits)
    return save_model(graph, path)


def sample(rng):
    # Shifted ranges: the u8 zero points are not 128, so the padding (the
    # zero point) differs from a biased zero.
    return {name + "_in": rng.uniform(-0.4, 1.2, shape_of(c)).astype(np.float32)
            for c in CONVS for name in [c[0]]}


class Reader(q.CalibrationDataReader):
    def __init__(self, count=6, seed=7):
        rng = np.random.default_rng(seed)
        self.samples = [sample(rng) for _ in range(count)]

    def get_next(self):
        return self.samples.pop() if self.samples else None


def conv_configs(dump):
    """conv name -> the lowering config of the dispatch computing it (the
    one with a reduction; the conv's padding is a dispatch of its own)."""
    configs = {}
    for header, nodes, config in dispatches(dump):
        if "[reduction]" in header:
            for name in nodes:
                if re.fullmatch(r"dw_[a-z]", name):
                    configs.setdefault(name, config)
    return configs


def pad_dispatches(dump):
    """conv names whose padding is still a dispatch of its own."""
    return sorted({name for header, nodes, _ in dispatches(dump)
                   if "tensor.pad" in header for name in nodes})


def main():
    args = parse_args(__doc__.splitlines()[0], "kiln-depthwise-")
    check = Checks()

    fp32 = make_model(os.path.join(args.workdir, "depthwise.onnx"))
    qdq = os.path.join(args.workdir, "depthwise_qdq.onnx")
    q.quantize_static(fp32, qdq, Reader(), quant_format=q.QuantFormat.QDQ,
                      activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8,
                      per_channel=True)
    scales = compare_with_ort.output_scales(onnx.load(qdq))
    check(len(scales) == len(CONVS), f"QDQ model: {len(scales)} of {len(CONVS)} outputs "
          "dequantized")
    if len(scales) != len(CONVS):
        return 1

    vnni = host_has("avx512_vnni") or host_has("avx_vnni")
    configs = [
        ("native", ["--cpu=native"], "vnni" if vnni else "pmaddwd"),
        ("x86-64-v4", ["--cpu=x86-64-v4"], "pmaddwd"),
        ("x86-64-v3", ["--cpu=x86-64-v3"], "pmaddwd"),
        ("loop-order", ["--cpu=native", "--codegen=loop-order"], None),
    ]
    for seed in (0, 1):
        inputs = sample(np.random.default_rng(100 + seed))
        want, note = compare_with_ort.qdq_reference(qdq, inputs, scales)
        if note:
            print(f"note {note} (seed {seed})")
        for label, flags, path in configs:
            try:
                dump, got = compile_and_run(args, qdq, flags, f"int8_{label}_{seed}", inputs, OUTPUTS)
            except (RuntimeError, compare_with_ort.KilnRunError) as e:
                check(False, f"int8 [{label}] seed {seed}: {e}")
                continue
            if path and seed == 0:
                found = conv_configs(dump)
                on_path = [n for n, l in found.items()
                           if 'strategy = "depthwise"' in l and f'native = "{path}"' in l]
                check(len(on_path) == len(CONVS),
                      f"int8 [{label}]: {len(on_path)} of {len(CONVS)} depthwise dispatches "
                      f"on '{path}' depthwise tiles ({sorted(set(found) - set(on_path))} not)")
                # Row tiles read the unpadded input with bounds on AVX-512
                # (masked byte loads); the flat grid and AVX2 keep the pad.
                rows = {n for n, l in found.items() if 'plane = "rows"' in l}
                padded = set(pad_dispatches(dump))
                if isa_of(flags) == "avx2":
                    check(padded == {c[0] for c in CONVS if any(c[5])},
                          f"int8 [{label}]: every padded conv keeps its pad dispatch "
                          f"(AVX2 has no masked byte loads): {sorted(padded)}")
                else:
                    check(rows and not rows & padded,
                          f"int8 [{label}]: no pad dispatch for the {len(rows)} row-tiled "
                          f"convs ({sorted(rows & padded)} have one)")
            if got is None:
                check.skip(f"int8 [{label}] seed {seed}: compiled, not run (this host "
                           f"cannot run {cpu_of(flags)} code)")
                continue
            for name, scale in sorted(scales.items()):
                if name not in got:
                    check(False, f"int8 [{label}] seed {seed} {name}: not written")
                    continue
                g, w = got[name].astype(np.float64), want[name].astype(np.float64)
                diff = float(np.max(np.abs(g - w))) if g.shape == w.shape else float("inf")
                check(g.shape == w.shape and diff <= scale + 1e-6,
                      f"int8 [{label}] seed {seed} {name} {w.shape}: max|kiln - ort| = "
                      f"{diff:.6g} = {diff / scale:.3f} units of {scale:.6g} "
                      f"({int(np.count_nonzero(g != w))} of {w.size} differ)")

    # fp32, bf16 and fp16: the "fma" depthwise tiles (rows of several
    # output rows, or the flat grid on small planes), same shapes.
    inputs = sample(np.random.default_rng(5))
    session = ort.InferenceSession(fp32, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, inputs)))
    float_configs = [
        ("native", ["--cpu=native"], 1e-4, 1e-4),
        ("x86-64-v4", ["--cpu=x86-64-v4"], 1e-4, 1e-4),
        ("x86-64-v3", ["--cpu=x86-64-v3"], 1e-4, 1e-4),
        ("bf16 x86-64-v4", ["--cpu=x86-64-v4", "--precision=bf16"], 0, 0.01),
        ("bf16 x86-64-v3", ["--cpu=x86-64-v3", "--precision=bf16"], 0, 0.01),
        ("fp16 x86-64-v4", ["--cpu=x86-64-v4", "--precision=fp16"], 0, 0.002),
    ]
    for label, flags, atol, rtol in float_configs:
        try:
            dump, got = compile_and_run(args, fp32, flags,
                                        "float_" + label.replace(" ", "_"), inputs, OUTPUTS)
        except (RuntimeError, compare_with_ort.KilnRunError) as e:
            check(False, f"float [{label}]: {e}")
            continue
        found = conv_configs(dump)
        on_path = [n for n, l in found.items()
                   if 'strategy = "depthwise"' in l and 'native = "fma"' in l]
        check(len(on_path) == len(CONVS),
              f"float [{label}]: {len(on_path)} of {len(CONVS)} depthwise dispatches "
              f"on 'fma' depthwise tiles ({sorted(set(found) - set(on_path))} not)")
        # The padding of row-tiled convs is folded into the kernel (no pad
        # dispatch), except bf16 at stride 2 on AVX2 (16-bit masked loads);
        # the flat grid keeps it.
        padded = pad_dispatches(dump)
        keep = sorted(c[0] for c in CONVS if any(c[5]) and (
            'plane = "flat"' in found.get(c[0], "") or
            (c[4] == 2 and "--precision=bf16" in flags and isa_of(flags) == "avx2")))
        check(padded == keep, f"float [{label}]: pad dispatches for {padded} "
              f"(expected {keep})")
        if got is None:
            check.skip(f"float [{label}]: compiled, not run (this host cannot run "
                       f"{cpu_of(flags)} code)")
            continue
        check_outputs(check, f"float [{label}]", got, want, atol, rtol)

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
