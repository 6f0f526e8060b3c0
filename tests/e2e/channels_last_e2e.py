#!/usr/bin/env python3
"""fp32 convolution chains run channels last (kiln-channels-last:
kiln.conv_nhwc, output channels as the register tiles' lanes, HWIO
filters in lane panels), checked against onnxruntime (never against Kiln
itself).

Bottleneck-style chains with the shapes that stress the layout:
  batch 2, input 2x64x66x70: a 3x3 conv at 66x70 (4620 pixels, more than
  4096: stays channels first), a stride-2 3x3 to 33x35, then
    a   1x1, 64 -> 70                     (70 lanes: a masked edge tile)
    b   3x3, pads (1, 2, 1, 0), 70 -> 64
    c   3x3, stride 2, dilation 2, pads 2, 64 -> 100 (17x18)
    d   1x1, stride 2, pads (0, 0, 0, 1) on a's input, 64 -> 100
    Relu(c + d), then a 3x3 to 48 channels (too few: channels first)
  batch 1, input 1x96x14x14 (ResNet-50's stage 3 shape, smaller):
    a 1x1 96 -> 64, a 3x3 64 -> 64, a 1x1 64 -> 256 plus a 1x1 stride-2
    shortcut and add, GlobalAveragePool at the end (a transpose back
    before it)
  batch 1, input 1x64x12x13: a 7x7 conv with pads 3 (six edge rows: the
    kernel's per-load zero select) and a 5x5 stride-2 one
Kiln compiles each model with

    --cpu=native            the host
    --cpu=x86-64-v4         AVX-512 (5..14-row tiles by 32 or 64 lanes)
    --cpu=x86-64-v3         AVX2 (4..6-row tiles by 16 lanes)
    --conv-layout=nchw      every conv channels first (the control)
    --codegen=loop-order    channels last without register tiles

and every output must match onnxruntime within 1e-4 + 1e-3 |ort|. The
dump of each channels-last build must show which convs run channels last
(their contraction dispatches end in the output channels), no pad
dispatch of an NHWC tensor with register tiles (the kernel reads the input
unpadded), and no more transposes than the chain edges need; the nchw
build no channels-last conv.

Prints one line per check and ends with 'N passed, N failed, N not run on
this host'; exit status 1 when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/channels_last_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import os
import re
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_ort  # noqa: E402
from conv_checks import Checks, parse_args, save_model, checked_run, dispatches  # noqa: E402


class Graph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0
        self.convs = []  # (node name, output channels)

    def conv(self, x, cin, cout, kernel=1, stride=1, pads=(0, 0, 0, 0), dilation=1,
             relu=True):
        self.count += 1
        name = f"conv{self.count}"
        self.convs.append((name, cout))
        w = self.rng.normal(0, np.sqrt(2 / (cin * kernel * kernel)),
                            (cout, cin, kernel, kernel)).astype(np.float32)
        b = self.rng.normal(0, 0.1, (cout,)).astype(np.float32)
        self.inits += [numpy_helper.from_array(w, name + "_w"),
                       numpy_helper.from_array(b, name + "_b")]
        self.nodes.append(helper.make_node(
            "Conv", [x, name + "_w", name + "_b"], [name], name=name,
            kernel_shape=[kernel, kernel], strides=[stride, stride], pads=list(pads),
            dilations=[dilation, dilation]))
        if not relu:
            return name
        self.nodes.append(helper.make_node("Relu", [name], [name + "_r"], name=name + "_relu"))
        return name + "_r"

    def op(self, kind, inputs, **attrs):
        self.count += 1
        name = f"{kind.lower()}{self.count}"
        self.nodes.append(helper.make_node(kind, inputs, [name], name=name, **attrs))
        return name

    def save(self, path, shape, output):
        self.nodes.append(helper.make_node("Identity", [output], ["output"], name="out"))
        graph = helper.make_graph(
            self.nodes, "channels_last",
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)],
            [helper.make_tensor_value_info("output", TensorProto.FLOAT, None)], self.inits)
        return save_model(graph, path), self.convs


def chain_odd(path):
    """Batch 2: a conv of 66x70 output pixels (4620, more than 4096:
    channels first), a stride-2 one down to 33x35 (rows of 35 pixels: 5
    tiles of 7 on AVX-512), 70 and 100 channels, asymmetric pads, stride 2
    with dilation 2, a residual add of a strided 1x1 projection, then a
    conv with too few channels (48)."""
    g = Graph(3)
    x = g.conv("input", 64, 64, kernel=3, pads=(1, 1, 1, 1))        # 66x70
    x = g.conv(x, 64, 64, kernel=3, stride=2, pads=(1, 1, 1, 1))    # 33x35
    a = g.conv(x, 64, 70)
    b = g.conv(a, 70, 64, kernel=3, pads=(1, 2, 1, 0))
    c = g.conv(b, 64, 100, kernel=3, stride=2, dilation=2, pads=(2, 2, 2, 2))  # 17x18
    d = g.conv(x, 64, 100, stride=2, pads=(0, 0, 0, 1), relu=False)            # 17x18
    s = g.op("Relu", [g.op("Add", [c, d])])
    f = g.conv(s, 100, 48, kernel=3, pads=(1, 1, 1, 1))   # 48 channels
    return g.save(path, (2, 64, 66, 70), f), (2, 64, 66, 70)


def chain_stage(path):
    """One ResNet-style bottleneck block at 14x14 with a projection
    shortcut, then GlobalAveragePool."""
    g = Graph(4)
    x = "input"
    a = g.conv(x, 96, 64)
    b = g.conv(a, 64, 64, kernel=3, pads=(1, 1, 1, 1))
    c = g.conv(b, 64, 256, relu=False)
    d = g.conv(x, 96, 256, relu=False)
    s = g.op("Relu", [g.op("Add", [c, d])])
    e = g.conv(s, 256, 128, kernel=3, stride=2, pads=(1, 1, 1, 1))   # 7x7
    p = g.op("GlobalAveragePool", [e])
    return g.save(path, (1, 96, 14, 14), p), (1, 96, 14, 14)


def chain_windows(path):
    """Wide windows: a 7x7 conv with pads 3 (six tile rows reach into the
    left or right padding: more than the kernel splits its loops for, so
    those rows select zero per load) and a 5x5 one with stride 2."""
    g = Graph(5)
    a = g.conv("input", 64, 64, kernel=7, pads=(3, 3, 3, 3))           # 12x13
    b = g.conv(a, 64, 96, kernel=5, stride=2, pads=(2, 2, 2, 2))       # 6x7
    return g.save(path, (1, 64, 12, 13), b), (1, 64, 12, 13)


# The convolutions each model keeps channels first (the others run
# channels last): too many output pixels, too few channels.
CHANNELS_FIRST = {"chain_odd": {"conv1", "conv9"}, "chain_stage": set(),
                  "chain_windows": set()}


def layouts(dump, convs):
    """{conv node: "nhwc" | "nchw"} from a --dump-dispatches: the
    contraction dispatch holding the node ends in its output channels
    (channels last: [N, OH, OW, M], or [N*H*W, M] for a 1x1 matmul) or in
    its pixels (channels first: [N, M, OH*OW] or [N, M, OH, OW])."""
    found = {}
    for header, nodes, _ in dispatches(dump):
        m = re.search(r"-> tensor<([0-9x]+)xf32>", header)
        if not m or ("generic[reduction]" not in header and "linalg.matmul" not in header):
            continue
        last = int(m.group(1).split("x")[-1])
        for name, cout in convs:
            if name in nodes:
                found[name] = "nhwc" if last == cout else "nchw"
    return found


def transposes(dump):
    return len(re.findall(r"^dispatch_\w+ \(called \d+x\): linalg.transpose ", dump, re.M))


def main():
    args = parse_args(__doc__.splitlines()[0], "kiln-channels-last-")
    check = Checks()
    builds = [
        ("native", ["--cpu=native"], True),
        ("x86-64-v4", ["--cpu=x86-64-v4"], True),
        ("x86-64-v3", ["--cpu=x86-64-v3"], True),
        ("nchw", ["--cpu=native", "--conv-layout=nchw"], False),
        ("loop-order", ["--cpu=native", "--codegen=loop-order"], True),
    ]
    for name, make in (("chain_odd", chain_odd), ("chain_stage", chain_stage),
                       ("chain_windows", chain_windows)):
        (model, convs), shape = make(os.path.join(args.workdir, name + ".onnx"))
        inputs = {"input": np.random.default_rng(1).uniform(-1, 1, shape).astype(np.float32)}
        session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        expected = session.run(["output"], inputs)[0]
        for label, flags, nhwc in builds:
            dump, got = checked_run(check, args, model, flags, f"{name} {label}", inputs,
                                    ["output"])
            if dump is None:
                continue
            found = layouts(dump, convs)
            want = {conv: "nhwc" if nhwc and conv not in CHANNELS_FIRST[name] else "nchw"
                    for conv, _ in convs}
            check(found == want, f"{name} [{label}]: conv layouts {found} (expected {want})")
            if nhwc and "--codegen=loop-order" not in flags:
                # Register tiles read the channels-last input unpadded
                # (ChannelsLastPad.h): no pad dispatch of an NHWC tensor
                # (one ending in 64, 70 or 256 channels).
                pads = re.findall(r"^dispatch_\w+ \(called \d+x\): tensor.pad  -> "
                                  r"tensor<\d+x\d+x\d+x(64|70|256)xf32>", dump, re.M)
                check(not pads, f"{name} [{label}]: {len(pads)} channels-last pad dispatches "
                                f"(expected none)")
            if nhwc:
                t = transposes(dump)
                # Into NHWC once per chain input path, back before the
                # channels-first tail: at most 3 per model here.
                check(1 <= t <= 3, f"{name} [{label}]: {t} transpose dispatches (1..3)")
            if got is None:
                continue
            out = got.get("output")
            if out is None or out.shape != expected.shape:
                check(False, f"{name} [{label}]: output missing or shaped "
                             f"{None if out is None else out.shape}, expected {expected.shape}")
                continue
            err = np.abs(out - expected)
            ok = bool(np.all(err <= 1e-4 + 1e-3 * np.abs(expected)))
            check(ok, f"{name} [{label}]: max abs err {err.max():.3g} against onnxruntime")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
