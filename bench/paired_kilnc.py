#!/usr/bin/env python3
"""Two kilnc builds side by side on the same models (printed, never a test).

For a change to code generation on a shared, loaded machine: each model is
compiled by KILNC_A and KILNC_B, then in alternating rounds (A B, B A, ...)
each artifact runs `kiln bench --threads 1 --iterations N`, and onnxruntime
runs the model N times at intra_op_num_threads=1. Times are CPU times per
inference (getrusage of the kiln process minus a 1-iteration run, which
covers loading; onnxruntime's thread CPU time), which waiting for a core
does not inflate the way it does wall-clock latency. Prints per model the
medians, the B/A ratio per round and the ratios to onnxruntime.

    ~/.cache/kiln/venv/bin/python bench/paired_kilnc.py --kiln bazel-bin/tools/kiln/kiln \\
        --a /tmp/kilnc-main --b bazel-bin/tools/kilnc/kilnc model.onnx ... [--rounds 4] [--iterations 20]

--a-flags/--b-flags add kilnc flags to one side: one kilnc, fp32 against
fp16, is `--a K --b K --b-flags=--precision=fp16`.

Single-conv models: bench/conv_kernels.py's make_conv (e.g. via
bench/conv_kernels.sh --cases ...); bench models: bench/make_bench_models.py.
"""
import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time

import numpy as np
import onnxruntime as ort


def child_cpu_ms(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--a", required=True, help="kilnc, the baseline")
    parser.add_argument("--b", required=True, help="kilnc, the change")
    parser.add_argument("--a-flags", default="",
                        help="extra kilnc flags for A, e.g. --precision=fp16")
    parser.add_argument("--b-flags", default="", help="extra kilnc flags for B")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="kiln-paired-")
    print("load average", os.getloadavg(), flush=True)
    for model in args.models:
        name = os.path.splitext(os.path.basename(model))[0]
        arts = {}
        for label, kilnc, flags in (("a", args.a, args.a_flags),
                                    ("b", args.b, args.b_flags)):
            arts[label] = os.path.join(work, f"{name}_{label}.kiln")
            subprocess.run([kilnc, model, "-o", arts[label]] + flags.split(),
                           check=True)

        def bench(label, iterations):
            return child_cpu_ms([args.kiln, "bench", arts[label], "--threads", "1",
                                 "--iterations", str(iterations), "--warmup", "0"])
        load = {label: min(bench(label, 1) for _ in range(2)) for label in arts}
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        rng = np.random.default_rng(2)
        # Floats uniform in [-1, 1], integers (token ids) small and >= 0.
        feed = {inp.name: (rng.integers(0, 4, inp.shape).astype(np.int64)
                           if "int" in inp.type else
                           rng.uniform(-1, 1, inp.shape).astype(np.float32))
                for inp in session.get_inputs()}
        session.run(None, feed)
        times = {"a": [], "b": [], "ort": []}
        for r in range(args.rounds):
            for label in (("a", "b") if r % 2 == 0 else ("b", "a")):
                times[label].append((bench(label, args.iterations) - load[label]) /
                                    (args.iterations - 1))
            start = time.thread_time()
            for _ in range(args.iterations):
                session.run(None, feed)
            times["ort"].append((time.thread_time() - start) * 1e3 / args.iterations)
        med = {k: statistics.median(v) for k, v in times.items()}
        ratios = [b / a for a, b in zip(times["a"], times["b"])]
        print(f"{name}: cpu ms/inference a {med['a']:.3f}  b {med['b']:.3f}  ort {med['ort']:.3f} | "
              f"b/a {statistics.median(ratios):.3f} (rounds {', '.join(f'{r:.2f}' for r in ratios)}) | "
              f"vs ort a {med['a'] / med['ort']:.2f} b {med['b'] / med['ort']:.2f}", flush=True)


if __name__ == "__main__":
    main()
