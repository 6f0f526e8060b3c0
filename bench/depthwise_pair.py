#!/usr/bin/env python3
"""Two kilnc builds on single depthwise convs, paired (printed, never a test).

mobilenet-style Conv(+bias, group = C) -> Clip(0, 6) models with seeded
weights, compiled by kilnc A and kilnc B (same extra --flags, e.g.
--precision=bf16), timed in alternating rounds by `kiln bench --threads 1`
(p50) and onnxruntime (median, 1 thread); the best of the rounds is
printed with B/A per round, so a loaded machine's noise shows.

    ~/.cache/kiln/venv/bin/python bench/depthwise_pair.py KILN KILNC_A KILNC_B \
        [--rounds 3] [--flags=--precision=bf16] [--cases dw3x3_960x7x7 ...]
"""
import argparse
import re
import statistics
import subprocess
import tempfile
import time
import numpy as np, onnx, onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
CASES = [  # name, C, H, W, k, stride, pad
    ("dw3x3_144x56x56", 144, 56, 56, 3, 1, 1),
    ("dw3x3s2_144x56x56", 144, 56, 56, 3, 2, 1),
    ("dw3x3_96x28x28", 96, 28, 28, 3, 1, 1),
    ("dw3x3s2_96x28x28", 96, 28, 28, 3, 2, 1),
    ("dw3x3_384x14x14", 384, 14, 14, 3, 1, 1),
    ("dw3x3s2_192x14x14", 192, 14, 14, 3, 2, 1),
    ("dw3x3_960x7x7", 960, 7, 7, 3, 1, 1),
    ("dw5x5s2_240x28x28", 240, 28, 28, 5, 2, 2),
]
def make(path, C, H, W, k, s, p):
    rng = np.random.default_rng(0)
    w = rng.normal(0, 0.3, (C, 1, k, k)).astype(np.float32)
    b = rng.normal(0, 0.1, (C,)).astype(np.float32)
    oh = (H + 2*p - k)//s + 1; ow = (W + 2*p - k)//s + 1
    nodes = [helper.make_node("Conv", ["x","w","b"], ["c"], kernel_shape=[k,k], strides=[s,s], pads=[p]*4, group=C),
             helper.make_node("Clip", ["c","lo","hi"], ["y"])]
    g = helper.make_graph(nodes, "dw", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1,C,H,W])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1,C,oh,ow])],
        [numpy_helper.from_array(w,"w"), numpy_helper.from_array(b,"b"),
         numpy_helper.from_array(np.array(0,np.float32),"lo"), numpy_helper.from_array(np.array(6,np.float32),"hi")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("",13)]); m.ir_version=8
    onnx.save(m, path)
def kb(kiln, art, it):
    out = subprocess.run([kiln,"bench",art,"--threads","1","--iterations",str(it),"--warmup","3"],capture_output=True,text=True,check=True).stdout
    return float(re.search(r"p50 ([0-9.]+)", out).group(1))
def ortms(model, shape, it):
    o = ort.SessionOptions(); o.intra_op_num_threads=1; o.inter_op_num_threads=1
    s = ort.InferenceSession(model, o, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(2).uniform(-1,1,shape).astype(np.float32)
    for _ in range(3): s.run(None,{"x":x})
    t=[]
    for _ in range(it):
        a=time.perf_counter(); s.run(None,{"x":x}); t.append((time.perf_counter()-a)*1e3)
    return statistics.median(t)
ap = argparse.ArgumentParser(); ap.add_argument("kiln"); ap.add_argument("a"); ap.add_argument("b")
ap.add_argument("--rounds", type=int, default=3); ap.add_argument("--iterations", type=int, default=200)
ap.add_argument("--flags", nargs="*", default=[]); ap.add_argument("--cases", nargs="*")
args = ap.parse_args()
d = tempfile.mkdtemp(prefix="kiln-dwpair-")
print("load", open("/proc/loadavg").read().split()[:3], "flags", args.flags)
for name, C, H, W, k, s, p in CASES:
    if args.cases and name not in args.cases: continue
    m = f"{d}/{name}.onnx"; make(m, C, H, W, k, s, p)
    arts = {}
    for lab, kc in (("a", args.a), ("b", args.b)):
        arts[lab] = f"{d}/{name}_{lab}.kiln"
        subprocess.run([kc, m, "-o", arts[lab], *args.flags], check=True)
    ta, tb, to = [], [], []
    for r in range(args.rounds):
        ta.append(kb(args.kiln, arts["a"], args.iterations)); tb.append(kb(args.kiln, arts["b"], args.iterations))
        to.append(ortms(m, (1,C,H,W), args.iterations))
    A, B, O = min(ta), min(tb), min(to)
    print(f"{name:20} A {A*1e3:8.1f} us  B {B*1e3:8.1f} us  ORT {O*1e3:8.1f} us   B/A {B/A:5.2f}  A/ORT {A/O:5.2f}  B/ORT {B/O:5.2f}  (B/A per round: {' '.join('%.2f'%(y/x) for x,y in zip(ta,tb))})", flush=True)
