#!/usr/bin/env python3
"""Kiln vs onnxruntime on the real-architecture models (a benchmark, not a test).

For each model of tests/models/make_real_models.py (ResNet-18, MobileNetV2,
MobileNetV3-small, BERT encoder, GPT-2 block, LSTM) plus a 1024x1024x1024 f32
MatMul model, this script
  * compiles it with kilnc (wall time of the kilnc process) and records the
    artifact size,
  * for each thread count (--threads, default 1 and 2) alternates --rounds
    rounds of: N iterations of onnxruntime (in-process, CPU provider,
    intra_op_num_threads = T, inter_op_num_threads = 1, sequential
    execution), then `kiln bench MODEL.kiln --threads T --iterations N`
    (a subprocess; its p50 is used). N is chosen per model so that a round
    takes about --round-seconds. Each engine's latency is the median over
    rounds of its per-round median; the ratio is kiln / ort (< 1: Kiln faster),
  * prints the stripped size of the runtime library (a stripped copy of
    bazel-bin/runtime/libkilnrt.so; build it with
    `bazel build //runtime:libkilnrt.so`),
  * prints the MatMul model's GFLOP/s (2 * 1024^3 / latency) next to the FMA
    peak (measured with a tiny C loop of independent FMA chains, AVX-512 or
    AVX2 per /proc/cpuinfo, when a C compiler is there, else the ~163 GFLOP/s per core of
    /work/shared/RECIPES.md), per thread count (peak x threads).

Inputs: `kiln bench` takes no input files; it fills every input from its
seeded generator (tools/kiln/tensor_files.cc FillRandom, seed 0). This
script reproduces that generator bit for bit, so onnxruntime runs on exactly
the same input values (floats uniform in [-1, 1], integers in [0, 4)).

Usage (see bench/README.md):

    ~/.cache/kiln/venv/bin/python bench/run_bench.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln \\
        --runtime-lib bazel-bin/runtime/libkilnrt.so
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
import make_real_models  # noqa: E402

RECIPES_PEAK_PER_CORE = 163.0  # GFLOP/s, /work/shared/RECIPES.md
MATMUL_N = 1024
MATMUL_FILE = "matmul_1024.onnx"

NP_TYPES = {
    TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16,
    TensorProto.DOUBLE: np.float64, TensorProto.INT64: np.int64, TensorProto.INT32: np.int32,
    TensorProto.INT8: np.int8, TensorProto.BOOL: np.bool_,
}
MASK64 = (1 << 64) - 1


def kiln_random(shape, dtype, seed):
    """The values of tools/kiln/tensor_files.cc FillRandom(t, seed)."""
    count = int(np.prod(shape, dtype=np.int64))
    state = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK64
    r = np.empty(count, np.uint64)
    for i in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK64
        r[i] = state >> 33
    if np.issubdtype(dtype, np.floating):
        f = (r & np.uint64(0xFFFFFF)).astype(np.float32) / np.float32(8388607.5) - np.float32(1.0)
        return f.astype(dtype).reshape(shape)
    if dtype == np.bool_:
        return (r & np.uint64(1)).astype(np.bool_).reshape(shape)
    return (r % np.uint64(4)).astype(dtype).reshape(shape)


def kiln_inputs(model):
    """What `kiln bench` (seed 0) feeds the model: input i gets FillRandom(seed = i)."""
    initializers = {i.name for i in model.graph.initializer}
    feeds = {}
    index = 0
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        shape = [d.dim_value for d in tensor_type.shape.dim]
        feeds[value.name] = kiln_random(shape, NP_TYPES[tensor_type.elem_type], index)
        index += 1
    return feeds


def write_matmul(path, n=MATMUL_N):
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"])], "matmul",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [n, n])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)
    return path


FMA_C = r"""
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
#ifdef __AVX512F__
#define V __m512
#define W 16
#define N 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define STORE _mm512_storeu_ps
#else
#define V __m256
#define W 8
#define N 12  /* 16 ymm registers: 12 accumulators + 2 constants, no spills */
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define STORE _mm256_storeu_ps
#endif
int main(void) {
  V acc[N], m = SET1(0.999999f), a = SET1(1e-7f);
  for (int i = 0; i < N; ++i) acc[i] = SET1((float)i);
  const long iters = 100000000;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long it = 0; it < iters; ++it)
    for (int i = 0; i < N; ++i) acc[i] = FMA(acc[i], m, a);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  float sum = 0;
  float lanes[W];
  for (int i = 0; i < N; ++i) { STORE(lanes, acc[i]); for (int j = 0; j < W; ++j) sum += lanes[j]; }
  double s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  printf("%f %f\n", 2.0 * W * N * iters / s / 1e9, sum);
  return 0;
}
"""


def measure_fma_peak(tmp):
    """Single-core f32 FMA peak (GFLOP/s) from independent AVX-512 (else AVX2) FMA chains, or None."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return None
    src, exe = os.path.join(tmp, "fma.c"), os.path.join(tmp, "fma")
    with open(src, "w") as f:
        f.write(FMA_C)
    with open("/proc/cpuinfo") as f:
        avx512 = " avx512f" in f.read()
    isa = ["-mavx512f", "-mfma"] if avx512 else ["-mavx2", "-mfma"]
    # -O3 -funroll-loops unrolls the loop over the accumulators so they live
    # in registers; at -O2 gcc keeps acc[] in memory and measures store
    # forwarding (~23 GFLOP/s here instead of ~92).
    if subprocess.run([cc, "-O3", "-funroll-loops"] + isa + [src, "-o", exe],
                      capture_output=True).returncode != 0:
        return None
    best = 0.0
    for _ in range(3):
        out = subprocess.run([exe], capture_output=True, text=True)
        if out.returncode != 0:
            return None
        best = max(best, float(out.stdout.split()[0]))
    return best


def ort_session(path, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def ort_round(session, feeds, iterations, warmup):
    for _ in range(warmup):
        session.run(None, feeds)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


P50_RE = re.compile(r"latency ms: p50 ([0-9.]+)")


def kiln_round(kiln, artifact, threads, iterations, warmup):
    proc = subprocess.run([kiln, "bench", artifact, "--threads", str(threads), "--iterations",
                           str(iterations), "--warmup", str(warmup)],
                          capture_output=True, text=True)
    m = P50_RE.search(proc.stdout)
    if proc.returncode != 0 or not m:
        raise RuntimeError(f"kiln bench failed ({proc.returncode}): {proc.stderr.strip()[:500]}")
    return float(m.group(1))


def fmt_bytes(n):
    return f"{n / 1024:.0f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.2f} MiB"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilnc", default=os.path.join(ROOT, "bazel-bin/tools/kilnc/kilnc"))
    parser.add_argument("--kiln", default=os.path.join(ROOT, "bazel-bin/tools/kiln/kiln"))
    parser.add_argument("--runtime-lib", default=os.path.join(ROOT, "bazel-bin/runtime/libkilnrt.so"))
    parser.add_argument("--kilnc-flag", action="append", default=[],
                        help="extra kilnc flag, e.g. --kilnc-flag=--cpu=x86-64-v4 (repeatable)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--round-seconds", type=float, default=0.5,
                        help="target duration of one round of one engine (sets N per model)")
    parser.add_argument("--min-iterations", type=int, default=5)
    parser.add_argument("--max-iterations", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--only", action="append", help="model file name(s), e.g. bert_encoder.onnx")
    parser.add_argument("--workdir", help="keep models and artifacts here (default: a temp dir)")
    args = parser.parse_args()

    tmp = args.workdir or tempfile.mkdtemp(prefix="kiln-bench-")
    os.makedirs(tmp, exist_ok=True)
    paths = make_real_models.write_models(tmp) + [write_matmul(os.path.join(tmp, MATMUL_FILE))]
    if args.only:
        paths = [p for p in paths if os.path.basename(p) in args.only]

    # Compile.
    compiled = {}
    for path in paths:
        name = os.path.basename(path)
        artifact = os.path.splitext(path)[0] + ".kiln"
        start = time.perf_counter()
        proc = subprocess.run([args.kilnc, path, "-o", artifact] + args.kilnc_flag,
                              capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            print(f"{name}: kilnc failed: {proc.stderr.strip()[:300]}", file=sys.stderr)
            continue
        compiled[name] = (path, artifact, seconds, os.path.getsize(artifact))
        print(f"compiled {name} in {seconds:.1f} s", file=sys.stderr)

    # Latency, alternating ORT / Kiln.
    latency = {}  # (name, threads) -> (ort ms, kiln ms, iterations)
    for threads in args.threads:
        for name, (path, artifact, _, _) in compiled.items():
            model = onnx.load(path)
            feeds = kiln_inputs(model)
            session = ort_session(path, threads)
            probe = ort_round(session, feeds, 3, 1)
            n = int(max(args.min_iterations, min(args.max_iterations,
                                                 args.round_seconds * 1e3 / max(probe, 1e-3))))
            ort_ms, kiln_ms = [], []
            for _ in range(args.rounds):
                ort_ms.append(ort_round(session, feeds, n, args.warmup))
                kiln_ms.append(kiln_round(args.kiln, artifact, threads, n, args.warmup))
            latency[(name, threads)] = (statistics.median(ort_ms), statistics.median(kiln_ms), n)
            print(f"  {name} T={threads}: ort {ort_ms}  kiln {kiln_ms}", file=sys.stderr)

    # Sizes and peak.
    lib = args.runtime_lib
    lib_line = f"runtime library: {lib} not found (bazel build //runtime:libkilnrt.so)"
    if os.path.exists(lib):
        stripped = os.path.join(tmp, "libkilnrt.stripped.so")
        shutil.copyfile(lib, stripped)
        os.chmod(stripped, 0o644)
        ok = subprocess.run(["strip", stripped], capture_output=True).returncode == 0
        lib_line = (f"runtime library libkilnrt.so: {fmt_bytes(os.path.getsize(lib))} unstripped, "
                    + (f"{fmt_bytes(os.path.getsize(stripped))} stripped" if ok else "strip failed"))
    peak = measure_fma_peak(tmp)
    peak_note = "measured here: independent FMA chains, best of 3" if peak else "from RECIPES.md"
    peak = peak or RECIPES_PEAK_PER_CORE

    print()
    print(f"onnxruntime {ort.__version__}; {args.rounds} alternating rounds per model and thread "
          f"count; latency = median of per-round medians (ORT) / p50s (kiln bench)")
    header = (f"{'model':24s} {'compile s':>9s} {'artifact':>10s} {'thr':>3s} {'iters':>5s} "
              f"{'ORT ms':>9s} {'Kiln ms':>9s} {'kiln/ort':>8s}")
    print(header)
    print("-" * len(header))
    for name, (_, _, seconds, size) in compiled.items():
        for threads in args.threads:
            if (name, threads) not in latency:
                continue
            o, k, n = latency[(name, threads)]
            print(f"{name:24s} {seconds:9.1f} {fmt_bytes(size):>10s} {threads:3d} {n:5d} "
                  f"{o:9.3f} {k:9.3f} {k / o:8.2f}")
    print()
    print(lib_line)
    print(f"FMA peak per core: {peak:.0f} GFLOP/s ({peak_note})")
    for threads in args.threads:
        if (MATMUL_FILE, threads) in latency:
            o, k, _ = latency[(MATMUL_FILE, threads)]
            flop = 2.0 * MATMUL_N ** 3
            print(f"MatMul {MATMUL_N}^3 f32, {threads} thread(s): Kiln {flop / k / 1e6:.1f} GFLOP/s "
                  f"({100 * flop / k / 1e6 / (peak * threads):.0f}% of {peak * threads:.0f}), "
                  f"ORT {flop / o / 1e6:.1f} GFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
