#!/usr/bin/env python3
"""Quantized and bf16 convolutions on the native dot-product instructions,
checked against onnxruntime (never against Kiln itself).

A conv chain with the shapes the kernels find hardest:
  conv_a  3x3, stride 2, dilation 2, pads 2, 5 -> 13 channels (C*K = 45)
  conv_b  1x1, 13 -> 19 channels (C*K = 13)
  conv_c  3x5, pads (1, 2, 1, 2), 19 -> 23 channels (C*K = 285)
  conv_d  3x3, pads 1, 23 -> 16 channels (C*K = 207)
  conv_e  1x1, 16 -> 64 channels (C*K = 16)
  conv_f  1x1, 64 -> 64 channels (C*K = 64)
  conv_g  3x3, pads 1, 64 -> 32 channels (C*K = 576)
each followed by Relu, on a 1x5x35x33 input (18 x 17 outputs): odd
channel counts in conv_a..conv_d, so C*K is not a multiple of 4 (the last
K quad or pair is partial), and output positions that are no multiple of
the vector width (masked last tiles); conv_f and conv_g run on the AMX
tile kernel on hosts with AMX (their C*K are whole tile rows).
onnxruntime's own quantize_static writes the QDQ model (uint8 activations,
int8 per-channel weights). Kiln compiles that same model under

    --cpu=native       vpdpbusd on kernel-packed B panels (VNNI hosts)
    --cpu=x86-64-v4    pmaddwd (zmm) on K pairs
    --cpu=x86-64-v3    pmaddubsw (ymm) on K quads: onnxruntime's int8
                       weights are [-127, 127], which keeps it exact
    --codegen=loop-order   no register tiles at all

and every output must be within one unit of the output's quantization
scale of onnxruntime's on the same QDQ model (its fused int8 convs, or,
where those disagree with its unfused QDQ graph by more than a unit, as
onnxruntime 1.23.2's did on an AMX host, the unfused graph; requantization ties may round
the other way; the integer sums are exact; on an AVX2 host without VNNI,
where onnxruntime's own u8 x s8 kernels saturate, its outputs for the same
weights held in uint8: compare_with_ort.reference_model). The dump must
show every conv dispatch on its native path with `pack_b = "panels"` (the
native build on a VNNI host reports "vnni", x86-64-v3 and native on AVX2
"pmaddubsw", the others "pmaddwd"); an artifact the host cannot run
(x86-64-v4 on AVX2) is checked by its dump only. The fp32 model compiled
with --precision=bf16 must show "dpbf16" panels on a host with AVX512-BF16
(and no AMX: there "convert", vdpbf16ps being slower than FMAs)
and stay within cosine 0.999 and 2% of max|ort| of onnxruntime fp32.

Prints one line per check and ends with 'N passed, N failed, N not run on this
host'; exit status 1
when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/conv_native_e2e.py \\
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
                         host_has, cpu_of, isa_of)

# name, out channels, kernel, strides, pads, dilations
CONVS = [
    ("conv_a", 13, (3, 3), (2, 2), (2, 2, 2, 2), (2, 2)),
    ("conv_b", 19, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),
    ("conv_c", 23, (3, 5), (1, 1), (1, 2, 1, 2), (1, 1)),
    ("conv_d", 16, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
    # C*K a whole number of AMX tile rows (64 i8, 32 bf16): on an AMX host
    # conv_f (1x1, K = 64) and conv_g (3x3 im2col, K = 576) take the tile
    # kernel, with 64 and 32 output channels and 306 output positions (a
    # partial last column tile).
    ("conv_e", 64, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),
    ("conv_f", 64, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),
    ("conv_g", 32, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
]
# The convs the AMX tile kernel takes on a host with AMX (native builds).
AMX_CONVS = {"conv_f", "conv_g"}
INPUT = (1, 5, 35, 33)


def make_model(path, seed=3):
    rng = np.random.default_rng(seed)
    inits, nodes = [], []
    channels, x = INPUT[1], "input"
    for name, cout, kernel, strides, pads, dilations in CONVS:
        fan_in = channels * kernel[0] * kernel[1]
        w = rng.normal(0, np.sqrt(2 / fan_in), (cout, channels, *kernel)).astype(np.float32)
        b = rng.normal(0, 0.1, (cout,)).astype(np.float32)
        inits += [numpy_helper.from_array(w, name + "_w"), numpy_helper.from_array(b, name + "_b")]
        nodes += [
            helper.make_node("Conv", [x, name + "_w", name + "_b"], [name], name=name,
                             kernel_shape=list(kernel), strides=list(strides),
                             pads=list(pads), dilations=list(dilations)),
            helper.make_node("Relu", [name], [name + "_relu"], name=name + "_relu"),
        ]
        channels, x = cout, name + "_relu"
    nodes.append(helper.make_node("Identity", [x], ["output"], name="out"))
    graph = helper.make_graph(
        nodes, "conv_chain", [helper.make_tensor_value_info("input", TensorProto.FLOAT, INPUT)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, None)], inits)
    return save_model(graph, path)


class Reader(q.CalibrationDataReader):
    def __init__(self, count=8, seed=7):
        rng = np.random.default_rng(seed)
        self.samples = [{"input": rng.uniform(-1, 1, INPUT).astype(np.float32)}
                        for _ in range(count)]

    def get_next(self):
        return self.samples.pop() if self.samples else None


def conv_configs(dump):
    """The lowering config of every contraction dispatch that holds a Conv
    node (the padding and im2col dispatches of a conv are not contractions)."""
    return [(next(n for n in nodes if re.fullmatch(r"conv_[a-g]", n)), config)
            for _, nodes, config in dispatches(dump)
            if any(re.fullmatch(r"conv_[a-g]", n) for n in nodes)
            and 'strategy = "contraction"' in config]


def main():
    args = parse_args(__doc__.splitlines()[0], "kiln-conv-native-")
    check = Checks()

    fp32 = make_model(os.path.join(args.workdir, "conv_chain.onnx"))
    qdq = os.path.join(args.workdir, "conv_chain_qdq.onnx")
    q.quantize_static(fp32, qdq, Reader(), quant_format=q.QuantFormat.QDQ,
                      activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8,
                      per_channel=True)
    qdq_model = onnx.load(qdq)
    scale = compare_with_ort.output_scales(qdq_model).get(qdq_model.graph.output[0].name)
    check(scale is not None, f"QDQ model output is dequantized (scale {scale})")
    if scale is None:
        return 1

    vnni = host_has("avx512_vnni") or host_has("avx_vnni")
    # Without VNNI, native builds AVX-512's pairs or, on AVX2, x86-64-v3's
    # quads (the filters hold no -128).
    native = ("vnni" if vnni else
              "pmaddubsw" if isa_of(["--cpu=native"]) == "avx2" else "pmaddwd")
    configs = [
        ("native", ["--cpu=native"], native),
        ("x86-64-v4", ["--cpu=x86-64-v4"], "pmaddwd"),
        ("x86-64-v3", ["--cpu=x86-64-v3"], "pmaddubsw"),
        ("loop-order", ["--cpu=native", "--codegen=loop-order"], None),
    ]
    for seed in (0, 1):
        inputs = {"input": np.random.default_rng(seed).uniform(-1.2, 1.2, INPUT)
                  .astype(np.float32)}
        # onnxruntime's fused int8 convs, or its unfused QDQ graph where
        # those are off (compare_with_ort.qdq_reference).
        want, note = compare_with_ort.qdq_reference(
            qdq, inputs, {qdq_model.graph.output[0].name: scale})
        want = want[qdq_model.graph.output[0].name]
        if note:
            print(f"note {note} (seed {seed})")
        for label, flags, path in configs:
            try:
                dump, got = compile_and_run(args, qdq, flags, f"int8_{label}_{seed}", inputs, ["output"])
                got = got["output"] if got is not None else None
            except (RuntimeError, compare_with_ort.KilnRunError) as e:
                check(False, f"int8 [{label}] seed {seed}: {e}")
                continue
            if path and seed == 0:
                lines = conv_configs(dump)
                amx = label == "native" and host_has("amx_int8")
                want_path = {name: "amx" if amx and name in AMX_CONVS else path
                             for name, *_ in CONVS}
                on_path = [n for n, l in lines if f'native = "{want_path[n]}"' in l
                           and 'pack_b = "panels"' in l]
                check(len(lines) == len(CONVS) and len(on_path) == len(CONVS),
                      f"int8 [{label}]: {len(on_path)} of {len(lines)} conv dispatches on "
                      f"their panels ('{path}'" + (", 'amx' for " + "/".join(sorted(AMX_CONVS))
                                                   if amx else "") + f"; want {len(CONVS)})")
            if got is None:
                check.skip(f"int8 [{label}] seed {seed}: compiled, not run (this host "
                           f"cannot run {cpu_of(flags)} code)")
                continue
            diff = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))))
            units = diff / scale
            check(got.shape == want.shape and diff <= scale + 1e-6,
                  f"int8 [{label}] seed {seed}: max|kiln - ort| = {diff:.6g} = {units:.3f} "
                  f"units of the output scale {scale:.6g} (max|ort| {float(np.max(want)):.4g}, "
                  f"{int(np.count_nonzero(got != want))} of {want.size} differ)")

    # bf16: vdpbf16ps panels where the host has AVX512-BF16 and no AMX
    # (on the AMX Xeons vdpbf16ps is slower than widening and FMAs:
    # CpuTarget.cpp), the tile unit where it takes the conv.
    inputs = {"input": np.random.default_rng(5).uniform(-1, 1, INPUT).astype(np.float32)}
    want = ort.InferenceSession(fp32, providers=["CPUExecutionProvider"]).run(None, inputs)[0]
    amx_bf16 = host_has("amx_bf16")
    bf16_path = "dpbf16" if host_has("avx512_bf16") and not amx_bf16 else "convert"
    try:
        dump, got = compile_and_run(args, fp32, ["--precision=bf16"], "bf16", inputs, ["output"])
        got = got["output"]
        lines = conv_configs(dump)
        on_path = [n for n, l in lines
                   if f'native = "{"amx" if amx_bf16 and n in AMX_CONVS else bf16_path}"' in l]
        check(len(lines) == len(CONVS) and len(on_path) == len(CONVS),
              f"bf16: {len(on_path)} of {len(lines)} conv dispatches on '{bf16_path}'"
              + (" ('amx' for " + "/".join(sorted(AMX_CONVS)) + ")" if amx_bf16 else ""))
        cos = compare_with_ort.cosine(got, want)
        diff = float(np.max(np.abs(got - want)))
        peak = float(np.max(np.abs(want)))
        check(cos >= 0.999 and diff <= 0.02 * peak,
              f"bf16: cosine {cos:.6f} (>= 0.999), max|kiln - ort fp32| = {diff:.4g} "
              f"(<= 2% of max|ort| {peak:.4g})")
    except (RuntimeError, compare_with_ort.KilnRunError) as e:
        check(False, f"bf16: {e}")

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
