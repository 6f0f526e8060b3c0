#!/usr/bin/env python3
"""Single-convolution figures at 1 thread (printed, never a test).

For each conv of the list (resnet50's shapes: a 3x3 of stage 3, a strided
3x3 of stage 2, a 1x1 expansion of stage 1, the 7x7 stem), one model
`Conv(+bias) -> Relu` with seeded random weights is built and timed as

  Kiln fp32   kilnc conv.onnx
  Kiln bf16   kilnc conv.onnx --precision=bf16
  Kiln int8   kilnc conv_qdq.onnx  (onnxruntime's own QDQ model, below)
  ORT fp32    onnxruntime CPU provider, intra_op_num_threads=1
  ORT int8    the same on conv_qdq.onnx = quantize_static(QDQ, u8 activations,
              s8 per-channel weights): the model Kiln int8 compiles too

Kiln is timed by `kiln bench --threads 1` (p50), onnxruntime by the median
of as many runs. The native path each Kiln build's conv takes (from
`kilnc --dump-dispatches`) is printed with it. The machine's load average
is printed first: figures on a shared machine are low and noisy.

    bench/conv_kernels.sh [--cases NAME...]     (builds the tools first)
    ~/.cache/kiln/venv/bin/python bench/conv_kernels.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime import quantization as q

# name, input [C, H, W], output channels, kernel, stride, pad[, groups]
CONVS = [
    ("3x3_256x14x14", (256, 14, 14), 256, 3, 1, 1),
    ("3x3s2_128x56x56", (128, 56, 56), 128, 3, 2, 1),
    ("1x1_64x56x56_to256", (64, 56, 56), 256, 1, 1, 0),
    ("1x1_1024x14x14_to256", (1024, 14, 14), 256, 1, 1, 0),
    ("1x1_256x14x14_to1024", (256, 14, 14), 1024, 1, 1, 0),
    ("3x3_512x7x7", (512, 7, 7), 512, 3, 1, 1),
    ("7x7s2_stem", (3, 224, 224), 64, 7, 2, 3),
    # mobilenet_v2's depthwise shapes (one filter per channel)
    ("dw3x3_144x56x56", (144, 56, 56), 144, 3, 1, 1, 144),
    ("dw3x3s2_144x56x56", (144, 56, 56), 144, 3, 2, 1, 144),
    ("dw3x3_384x14x14", (384, 14, 14), 384, 3, 1, 1, 384),
    ("dw3x3_960x7x7", (960, 7, 7), 960, 3, 1, 1, 960),
    ("dw5x5s2_240x28x28", (240, 28, 28), 240, 5, 2, 2, 240),
]


def make_conv(path, shape, cout, k, stride, pad, groups=1, seed=0):
    rng = np.random.default_rng(seed)
    c = shape[0] // groups
    w = rng.normal(0, 1 / np.sqrt(c * k * k), (cout, c, k, k)).astype(np.float32)
    b = rng.normal(0, 0.1, (cout,)).astype(np.float32)
    h = (shape[1] + 2 * pad - k) // stride + 1
    wo = (shape[2] + 2 * pad - k) // stride + 1
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[k, k],
                         strides=[stride, stride], pads=[pad] * 4, group=groups),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, *shape])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cout, h, wo])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


class Reader(q.CalibrationDataReader):
    def __init__(self, shape, count=4):
        rng = np.random.default_rng(1)
        self.samples = [{"x": rng.uniform(-1, 1, (1, *shape)).astype(np.float32)}
                        for _ in range(count)]

    def get_next(self):
        return self.samples.pop() if self.samples else None


def kiln_ms(args, model, flags, work, label):
    artifact = os.path.join(work, label + ".kiln")
    dump = subprocess.run([args.kilnc, model, "-o", artifact, "--dump-dispatches", *flags],
                          capture_output=True, text=True, check=True)
    dump = dump.stdout + dump.stderr
    paths = sorted(set(re.findall(r'native = "(\w+)"', dump)))
    out = subprocess.run([args.kiln, "bench", artifact, "--threads", "1",
                          "--iterations", str(args.iterations), "--warmup", "3"],
                         capture_output=True, text=True, check=True).stdout
    ms = float(re.search(r"p50 ([0-9.]+)", out).group(1))
    return ms, ",".join(paths) or "f32"


def ort_ms(args, model, shape):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(2).uniform(-1, 1, (1, *shape)).astype(np.float32)
    for _ in range(3):
        session.run(None, {"x": x})
    times = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        session.run(None, {"x": x})
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--cases", nargs="*", help="names of CONVS (default all)")
    args = parser.parse_args()
    print("load average: " + " ".join(open("/proc/loadavg").read().split()[:3])
          + " (figures on a shared machine are low and noisy)")
    print(f"{'conv':22} {'kiln fp32':>9} {'bf16':>7} {'int8':>7} {'ort fp32':>8} "
          f"{'ort int8':>8} {'bf16/f32':>8} {'i8/f32':>6} {'i8/ort i8':>9}  paths (bf16; int8)")
    with tempfile.TemporaryDirectory() as work:
        for name, shape, cout, k, stride, pad, *groups in CONVS:
            if args.cases and name not in args.cases:
                continue
            fp32 = os.path.join(work, name + ".onnx")
            qdq = os.path.join(work, name + "_qdq.onnx")
            make_conv(fp32, shape, cout, k, stride, pad, *groups)
            q.quantize_static(fp32, qdq, Reader(shape), quant_format=q.QuantFormat.QDQ,
                              activation_type=q.QuantType.QUInt8,
                              weight_type=q.QuantType.QInt8, per_channel=True)
            f32, _ = kiln_ms(args, fp32, [], work, name + "_f32")
            bf16, bf16_path = kiln_ms(args, fp32, ["--precision=bf16"], work, name + "_bf16")
            i8, i8_path = kiln_ms(args, qdq, [], work, name + "_i8")
            of32 = ort_ms(args, fp32, shape)
            oi8 = ort_ms(args, qdq, shape)
            print(f"{name:22} {f32:9.3f} {bf16:7.3f} {i8:7.3f} {of32:8.3f} {oi8:8.3f} "
                  f"{bf16 / f32:8.2f} {i8 / f32:6.2f} {i8 / oi8:9.2f}  {bf16_path}; {i8_path}",
                  flush=True)


if __name__ == "__main__":
    main()
