#!/usr/bin/env python3
"""Kiln vs onnxruntime vs OpenVINO on every bench model (a benchmark, not a test).

The models: the real-architecture models of tests/models/make_real_models.py
(ResNet-18, MobileNetV2, MobileNetV3-small, BERT encoder, GPT-2 block, LSTM,
all scaled down), a 1024x1024x1024 f32 MatMul, and the full-size ResNet-50
and BERT-base (seq 128) of bench/make_bench_models.py (random seeded weights,
generated once into ~/.cache/kiln/bench-models/<hash>/). For each model this
script
  * compiles it with kilnc (wall time of the kilnc process) and records the
    artifact size,
  * checks Kiln's and OpenVINO's outputs against onnxruntime's once (max
    abs error / max |onnxruntime output|, over all outputs),
  * for each thread count (--threads, default 1 and 2) alternates --rounds
    rounds of: N iterations of onnxruntime (in-process, CPU provider,
    intra_op_num_threads = T, inter_op_num_threads = 1, sequential
    execution), N iterations of OpenVINO (in-process, CPU,
    INFERENCE_PRECISION_HINT f32, PERFORMANCE_HINT LATENCY,
    INFERENCE_NUM_THREADS T), and `kiln bench MODEL.kiln --threads T
    --iterations N` (a subprocess; its p50 is used, and its peak RSS kept).
    The engine that starts a round rotates. N is chosen per engine so that a
    round takes about --round-seconds. Each engine's latency is the median
    over rounds of its per-round median; ratios are X / ORT (< 1: X faster),
  * prints the geomean and the max of Kiln/ORT (and OV/ORT) per thread count,
  * prints the runtime library's size (unstripped and a stripped copy),
  * prints the MatMul model's GFLOP/s (2 * 1024^3 / latency) next to the FMA
    peak (measured with a tiny C loop of independent FMA chains, AVX-512 or
    AVX2 per /proc/cpuinfo, when a C compiler is there, else the ~163 GFLOP/s
    per core of /work/shared/RECIPES.md), per thread count (peak x threads),
  * runs `kiln bench --profile` on the model with the largest Kiln/ORT ratio
    and prints its top 5 rows, when `kiln bench` has --profile.

Precision variants (--variants, default all): besides Kiln fp32 and
onnxruntime fp32 (and OpenVINO fp32), Kiln bf16 and fp16 (`kilnc
--precision`), Kiln int8 (`kilnc --quantize=int8 --calibration=DIR`, when
`kilnc --help` lists --quantize) and onnxruntime int8 (its `quantize_static`
QDQ model: u8 activations, s8 weights per channel), both calibrated on the
same small seeded set (--calibration-samples, numpy uniform [-1, 1] floats,
integers in [0, 4)). A variant that cannot be built or run prints `n/a`, and
the reason is listed under the table; the bench goes on. Ratios: Kiln
bf16/fp32, int8/fp32 and Kiln int8 / onnxruntime int8. The header names the
ISA found in /proc/cpuinfo (AVX2, AVX-512, AVX512-VNNI, AVX512-BF16, AMX),
which the int8 and bf16 figures depend on.

Inputs: `kiln bench` takes no input files; it fills every input from its
seeded generator (tools/kiln/tensor_files.cc FillRandom, seed 0). This
script reproduces that generator bit for bit, so onnxruntime and OpenVINO run
on exactly the same input values (floats uniform in [-1, 1], integers in
[0, 4)).

Usage (see bench/README.md): bench/bench.sh [--quick] [--models NAME...]
"""

import argparse
import atexit
import math
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
from onnx import TensorProto, helper, numpy_helper

try:
    import openvino as ov
except ImportError:  # the test venv has no OpenVINO; bench/setup.sh's venv has
    ov = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
sys.path.insert(0, HERE)
import compare_with_ort  # noqa: E402
import make_bench_models  # noqa: E402
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


# --- models -----------------------------------------------------------------

SMALL_MODELS = list(make_real_models.MODELS)
LARGE_MODELS = list(make_bench_models.MODELS)
ALL_MODELS = SMALL_MODELS + [MATMUL_FILE] + LARGE_MODELS
GROUPS = {"small": SMALL_MODELS + [MATMUL_FILE], "large": LARGE_MODELS}


def select_models(requested):
    """Model file names for --models (file names or stems, 'small', 'large'; commas allowed)."""
    if not requested:
        return list(ALL_MODELS)
    wanted = set()
    for item in requested:
        for word in filter(None, item.split(",")):
            if word in GROUPS:
                wanted.update(GROUPS[word])
                continue
            name = word if word.endswith(".onnx") else word + ".onnx"
            if name not in ALL_MODELS:
                stems = ", ".join(os.path.splitext(m)[0] for m in ALL_MODELS)
                raise SystemExit(f"run_bench.py: unknown model '{word}' (models: {stems}; groups: "
                                 f"{', '.join(GROUPS)})")
            wanted.add(name)
    return [m for m in ALL_MODELS if m in wanted]


def write_selected(names, workdir, cache_dir):
    """Writes the selected models; returns their paths in ALL_MODELS order."""
    paths = {}
    for name in names:
        if name in make_real_models.MODELS:
            paths[name] = os.path.join(workdir, name)
            make_real_models.MODELS[name](paths[name])
        elif name == MATMUL_FILE:
            paths[name] = write_matmul(os.path.join(workdir, MATMUL_FILE))
    large = [n for n in names if n in make_bench_models.MODELS]
    for path in make_bench_models.write_models(cache_dir, large, log=log):
        paths[os.path.basename(path)] = path
    return [paths[n] for n in names]


# --- engines ----------------------------------------------------------------

T0 = time.perf_counter()


def log(message):
    print(f"[{time.perf_counter() - T0:6.0f} s] {message}", file=sys.stderr, flush=True)


def timed_loop(run, iterations, warmup):
    for _ in range(warmup):
        run()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def ort_session(path, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


class OrtEngine:
    def __init__(self, path, threads, feeds, name="ORT"):
        self.name = name
        self.session = ort_session(path, threads)
        self.feeds = feeds

    def outputs(self):
        return dict(zip([o.name for o in self.session.get_outputs()], self.session.run(None, self.feeds)))

    def round(self, iterations, warmup):
        return timed_loop(lambda: self.session.run(None, self.feeds), iterations, warmup)


def ov_config(threads):
    return {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_NUM_THREADS": threads}


class OvEngine:
    name = "OV"
    core = None

    def __init__(self, path, threads, feeds):
        if OvEngine.core is None:
            OvEngine.core = ov.Core()
        start = time.perf_counter()
        self.compiled = OvEngine.core.compile_model(path, "CPU", ov_config(threads))
        self.compile_seconds = time.perf_counter() - start
        self.request = self.compiled.create_infer_request()
        self.feeds = feeds

    def outputs(self):
        result = self.request.infer(self.feeds)
        return {port.get_any_name(): np.array(value) for port, value in result.items()}

    def round(self, iterations, warmup):
        # Shared inputs and outputs: no copies around the timed call.
        return timed_loop(lambda: self.request.infer(self.feeds, share_inputs=True, share_outputs=True),
                          iterations, warmup)


P50_RE = re.compile(r"latency ms: p50 ([0-9.]+)")


TIME = shutil.which("time", path="/usr/bin:/bin")


def run_measured(cmd):
    """Runs cmd; returns (exit code, stdout, stderr, peak RSS in bytes or None).

    The peak RSS comes from /usr/bin/time (GNU time), which forks cmd itself:
    the ru_maxrss that wait4 reports for a child of this process would start
    at this process's own RSS (Linux carries the pre-exec high-water mark
    over exec), i.e. the hundreds of MB of the onnxruntime and OpenVINO
    sessions held here.
    """
    with tempfile.TemporaryDirectory() as tmp:
        rss_file = os.path.join(tmp, "rss")
        wrapped = [TIME, "-q", "-f", "%M", "-o", rss_file] + cmd if TIME else cmd
        proc = subprocess.run(wrapped, capture_output=True, text=True, errors="replace")
        rss = None
        try:
            with open(rss_file) as f:
                rss = int(f.read().split()[-1]) * 1024
        except (OSError, ValueError, IndexError):
            pass
        return proc.returncode, proc.stdout, proc.stderr, rss


class KilnEngine:
    def __init__(self, kiln, artifact, threads, name="Kiln"):
        self.kiln, self.artifact, self.threads, self.name = kiln, artifact, threads, name
        self.peak_rss = 0

    def bench(self, iterations, warmup, extra=()):
        cmd = [self.kiln, "bench", self.artifact, "--threads", str(self.threads), "--iterations",
               str(iterations), "--warmup", str(warmup)] + list(extra)
        code, out, err, rss = run_measured(cmd)
        self.peak_rss = max(self.peak_rss, rss or 0)
        m = P50_RE.search(out)
        if code != 0 or not m:
            raise RuntimeError(f"kiln bench failed ({code}): {err.strip()[:500]}")
        return float(m.group(1)), out

    def round(self, iterations, warmup):
        return self.bench(iterations, warmup)[0]


def relative_error(got, want):
    """max |got - want| / max |want| over all outputs (inf when one is missing or misshapen)."""
    worst = 0.0
    for name, w in want.items():
        g = got.get(name)
        if g is None or np.shape(g) != np.shape(w):
            return math.inf
        w = np.asarray(w, np.float64)
        g = np.asarray(g, np.float64)
        scale = max(float(np.max(np.abs(w))) if w.size else 0.0, 1e-6)
        worst = max(worst, float(np.max(np.abs(g - w))) / scale if w.size else 0.0)
    return worst


def pick_iterations(probe_ms, args):
    return int(max(args.min_iterations, min(args.max_iterations, args.round_seconds * 1e3 / max(probe_ms, 1e-3))))


def pick_warmup(probe_ms, args):
    """--warmup iterations, fewer for slow models: at most ~20 % of a round, at least 1."""
    return max(1, min(args.warmup, int(0.2 * args.round_seconds * 1e3 / max(probe_ms, 1e-3))))


# --- reporting --------------------------------------------------------------


def fmt_bytes(n):
    return f"{n / 1024:.0f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MiB"


def fmt_ms(x):
    return "-" if x is None else (f"{x:.3f}" if x < 100 else f"{x:.1f}")


def fmt_ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.2f}"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def kiln_has_profile(kiln):
    texts = []
    for cmd in ([kiln, "bench", "--help"], [kiln, "--help"]):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        texts.append(proc.stdout + proc.stderr)
    return any("--profile" in t for t in texts)


def profile_rows(text, count=5):
    """The header and first `count` rows of the profile table in `kiln bench --profile` output.

    The table's format is not fixed yet, so: rows are lines with at least two
    numeric fields; the table is the longest run of consecutive rows; its
    header is the (up to two) lines just before it.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not (P50_RE.search(line) or line.startswith("throughput:")
                                            or re.search(r": \d+ iterations \(", line))]

    def is_row(line):
        return sum(bool(re.fullmatch(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?%?,?", t)) for t in line.split()) >= 2

    best, start = (0, 0), None
    for i, line in enumerate(lines + [""]):
        if i < len(lines) and is_row(line):
            start = i if start is None else start
        elif start is not None:
            best = max(best, (i - start, -start))
            start = None
    length, first = best[0], -best[1]
    if length == 0:
        return lines[:count + 2]
    return lines[max(0, first - 2):first] + lines[first:first + min(count, length)]


def runtime_library_line(lib, tmp):
    if not os.path.exists(lib):
        return f"runtime library: {lib} not found (bazel build //runtime:libkilnrt.so)"
    stripped = os.path.join(tmp, "libkilnrt.stripped.so")
    shutil.copyfile(lib, stripped)
    os.chmod(stripped, 0o644)
    ok = subprocess.run(["strip", stripped], capture_output=True).returncode == 0
    return (f"runtime library libkilnrt.so: {fmt_bytes(os.path.getsize(lib))} unstripped, "
            + (f"{fmt_bytes(os.path.getsize(stripped))} stripped" if ok else "strip failed"))


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def isa_line(flags):
    """What the int8 and bf16 figures depend on, from /proc/cpuinfo's flags."""
    vector = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE only"
    int8 = ("AMX-INT8" if "amx_int8" in flags else "AVX512-VNNI" if "avx512_vnni" in flags
            else "AVX-VNNI" if "avx_vnni" in flags else f"{vector} (no VNNI)")
    bf16 = ("AMX-BF16" if "amx_bf16" in flags else "AVX512-BF16" if "avx512_bf16" in flags
            else "none (converted to f32)")
    fp16 = "AVX512-FP16" if "avx512_fp16" in flags else "F16C conversion" if "f16c" in flags else "none"
    return (f"ISA: {vector}; int8 dot products: {int8}; bf16: {bf16}; fp16: {fp16} "
            f"(the CPU's; which paths Kiln's kernels use: kilnc --dump-dispatches)")


# Columns of the table: the name an engine reports and how its artifact or
# model is made.
VARIANTS = ["kiln-fp32", "kiln-bf16", "kiln-fp16", "kiln-int8", "ort-fp32", "ort-int8", "ov-fp32"]
ENGINE = {"kiln-fp32": "Kiln", "kiln-bf16": "Kiln-bf16", "kiln-fp16": "Kiln-fp16", "kiln-int8": "Kiln-int8",
          "ort-fp32": "ORT", "ort-int8": "ORT-int8", "ov-fp32": "OV"}
KILNC_FLAGS = {"kiln-fp32": [], "kiln-bf16": ["--precision=bf16"], "kiln-fp16": ["--precision=fp16"]}


def select_variants(requested, use_ov):
    if not requested:
        chosen = list(VARIANTS)
    else:
        chosen = set()
        for item in requested:
            for word in filter(None, item.split(",")):
                if word not in VARIANTS:
                    raise SystemExit(f"run_bench.py: unknown variant '{word}' (variants: {', '.join(VARIANTS)})")
                chosen.add(word)
        chosen = [v for v in VARIANTS if v in chosen]
    return [v for v in chosen if v != "ov-fp32" or use_ov]


def calibration_feeds(model, count, seed):
    """`count` seeded input sets (numpy: floats uniform in [-1, 1], integers in [0, 4))."""
    initializers = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(count):
        feeds = {}
        for value in model.graph.input:
            if value.name in initializers:
                continue
            tensor_type = value.type.tensor_type
            shape = [d.dim_value for d in tensor_type.shape.dim]
            dtype = NP_TYPES[tensor_type.elem_type]
            if np.issubdtype(dtype, np.floating):
                feeds[value.name] = rng.uniform(-1, 1, shape).astype(dtype)
            else:
                feeds[value.name] = rng.integers(0, 4, shape).astype(dtype)
        samples.append(feeds)
    return samples


def write_calibration_dir(directory, model, samples):
    """The backend-test layout kilnc --calibration reads: test_data_set_k/input_N.pb."""
    names = [v.name for v in model.graph.input if v.name not in {i.name for i in model.graph.initializer}]
    for k, feeds in enumerate(samples):
        folder = os.path.join(directory, f"test_data_set_{k}")
        os.makedirs(folder, exist_ok=True)
        for i, name in enumerate(names):
            with open(os.path.join(folder, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(feeds[name], name).SerializeToString())
    return directory


def ort_quantize_static(path, out_path, samples):
    """onnxruntime's static QDQ quantization: u8 activations, s8 per-channel weights."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.samples = iter(samples)

        def get_next(self):
            return next(self.samples, None)

    quantize_static(path, out_path, Reader(), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True)
    return out_path


# --- main -------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilnc", default=os.path.join(ROOT, "bazel-bin/tools/kilnc/kilnc"))
    parser.add_argument("--kiln", default=os.path.join(ROOT, "bazel-bin/tools/kiln/kiln"))
    parser.add_argument("--runtime-lib", default=os.path.join(ROOT, "bazel-bin/runtime/libkilnrt.so"))
    parser.add_argument("--kilnc-flag", action="append", default=[],
                        help="extra kilnc flag, e.g. --kilnc-flag=--cpu=x86-64-v4 (repeatable)")
    parser.add_argument("--models", "--only", nargs="+", action="extend", metavar="NAME",
                        help="models to run (file names or stems, e.g. resnet50 bert_base; "
                             "groups: small, large; default: all)")
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    parser.add_argument("--quick", action="store_true",
                        help="fewer, shorter rounds (3 x 0.25 s, at least 3 iterations)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, help="alternating rounds (default 5, --quick 3)")
    parser.add_argument("--round-seconds", type=float,
                        help="target duration of one round of one engine, sets N per engine and model "
                             "(default 0.5, --quick 0.25)")
    parser.add_argument("--min-iterations", type=int, help="default 5, --quick 3")
    parser.add_argument("--max-iterations", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--no-openvino", action="store_true", help="skip OpenVINO")
    parser.add_argument("--variants", nargs="+", action="extend", metavar="VARIANT",
                        help=f"columns to run (default: all): {' '.join(VARIANTS)}")
    parser.add_argument("--calibration-samples", type=int, default=8,
                        help="seeded samples calibrating Kiln int8 and onnxruntime int8 (default 8)")
    parser.add_argument("--no-profile", action="store_true", help="skip kiln bench --profile")
    parser.add_argument("--workdir", help="keep models and artifacts here (default: a temp dir, removed)")
    parser.add_argument("--model-cache", default=None,
                        help="where the large models are generated and kept (default: "
                             "$KILN_CACHE/bench-models/<generator hash>, KILN_CACHE=~/.cache/kiln)")
    args = parser.parse_args()
    if args.list:
        print("\n".join(os.path.splitext(m)[0] for m in ALL_MODELS))
        return 0
    args.rounds = args.rounds or (3 if args.quick else 5)
    args.round_seconds = args.round_seconds or (0.25 if args.quick else 0.5)
    args.min_iterations = args.min_iterations or (3 if args.quick else 5)
    names = select_models(args.models)
    for tool in (args.kilnc, args.kiln):
        if not os.access(tool, os.X_OK):
            raise SystemExit(f"run_bench.py: {tool} not found; build it (see bench/README.md)")
    use_ov = ov is not None and not args.no_openvino
    if ov is None and not args.no_openvino and (not args.variants or "ov-fp32" in ",".join(args.variants)):
        log("openvino is not installed in this Python; run bench/setup.sh (OpenVINO columns will be empty)")
    variants = select_variants(args.variants, use_ov)

    tmp = args.workdir or tempfile.mkdtemp(prefix="kiln-bench-")
    os.makedirs(tmp, exist_ok=True)
    if not args.workdir:  # also on errors and Ctrl-C
        atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    cache_dir = args.model_cache or make_bench_models.default_cache_dir()
    paths = write_selected(names, tmp, cache_dir)

    # Compile every Kiln variant; quantize for onnxruntime int8. A variant
    # that fails is `n/a` in the table, with its reason listed below it.
    compiled = {}  # (name, variant) -> (artifact, seconds, size)
    ort_int8 = {}  # name -> quantized model path
    unavailable = {}  # (name, variant) -> reason
    for path in paths:
        name = os.path.basename(path)
        stem = os.path.splitext(name)[0]
        calibration, calibration_dir = None, None
        if "kiln-int8" in variants or "ort-int8" in variants:
            model = onnx.load(path, load_external_data=False)
            calibration = calibration_feeds(model, args.calibration_samples, seed=1000)
            calibration_dir = write_calibration_dir(os.path.join(tmp, stem + ".calibration"), model, calibration)
        for variant in [v for v in variants if v.startswith("kiln-")]:
            if variant == "kiln-int8":
                flags = ["--quantize=int8", f"--calibration={calibration_dir}"]
            else:
                flags = KILNC_FLAGS[variant]
            suffix = "" if variant == "kiln-fp32" else "." + variant.split("-")[1]
            artifact = os.path.join(tmp, stem + suffix + ".kiln")
            log(f"kilnc {name} {' '.join(flags)}")
            start = time.perf_counter()
            proc = subprocess.run([args.kilnc, path, "-o", artifact] + flags + args.kilnc_flag,
                                  capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if proc.returncode != 0:
                message = " ".join(proc.stderr.split())[:400] or f"exit status {proc.returncode}"
                unavailable[(name, variant)] = f"kilnc failed: {message}"
                log(f"{name} {variant}: kilnc failed after {seconds:.1f} s: {message}")
                continue
            compiled[(name, variant)] = (artifact, seconds, os.path.getsize(artifact))
            log(f"compiled {name} {variant} in {seconds:.1f} s, {fmt_bytes(os.path.getsize(artifact))}")
        if "ort-int8" in variants:
            log(f"onnxruntime quantize_static {name}")
            try:
                ort_int8[name] = ort_quantize_static(path, os.path.join(tmp, stem + ".ort-int8.onnx"),
                                                     calibration)
            except Exception as e:  # noqa: BLE001 -- report and go on
                unavailable[(name, "ort-int8")] = "quantize_static failed: " + str(e).split("\n")[0][:300]

    # Latency: rounds alternate between the engines, for each thread count.
    latency = {}  # (name, threads) -> {engine: ms}
    iterations = {}  # (name, threads) -> {engine: N}
    errors = {}  # name -> {engine: max abs error / max |ORT output|}
    ov_compile = {}  # name -> seconds (first thread count)
    kiln_rss = {}  # name -> bytes
    engine_errors = {}  # (name, engine) -> message
    for threads in args.threads:
        for path in paths:
            name = os.path.basename(path)
            feeds = kiln_inputs(onnx.load(path, load_external_data=False))
            engines = []
            # onnxruntime fp32 first: it is the reference of the error check.
            ort_models = [("ort-fp32", path)] + ([("ort-int8", ort_int8[name])] if name in ort_int8 else [])
            for variant, model_path in ort_models:
                if variant not in variants:
                    continue
                try:
                    engines.append(OrtEngine(model_path, threads, feeds, ENGINE[variant]))
                except Exception as e:  # noqa: BLE001 -- report and go on
                    engine_errors[(name, ENGINE[variant])] = str(e).split("\n")[0][:300]
            if "ov-fp32" in variants:
                try:
                    engine = OvEngine(path, threads, feeds)
                    ov_compile.setdefault(name, engine.compile_seconds)
                    engines.append(engine)
                except Exception as e:  # noqa: BLE001
                    engine_errors[(name, "OV")] = str(e).split("\n")[0][:300]
            for variant in variants:
                if (name, variant) in compiled:
                    engines.append(KilnEngine(args.kiln, compiled[(name, variant)][0], threads, ENGINE[variant]))

            # Outputs against onnxruntime's, once per model.
            if name not in errors and engines and engines[0].name == "ORT":
                reference = engines[0].outputs()
                errors[name] = {}
                for engine in engines[1:]:
                    try:
                        if not isinstance(engine, KilnEngine):
                            got = engine.outputs()
                        else:
                            outdir = os.path.join(tmp, os.path.splitext(name)[0] + "." + engine.name + ".out")
                            got = compare_with_ort.run_kiln(args.kiln, engine.artifact, feeds,
                                                            list(reference), outdir, threads)
                        errors[name][engine.name] = relative_error(got, reference)
                    except Exception as e:  # noqa: BLE001
                        errors[name][engine.name] = math.inf
                        engine_errors[(name, engine.name)] = str(e).split("\n")[0][:300]

            counts, warmups, results = {}, {}, {}
            for engine in list(engines):
                try:
                    probe = engine.round(2, 1)
                except Exception as e:  # noqa: BLE001
                    engine_errors[(name, engine.name)] = str(e).split("\n")[0][:300]
                    engines.remove(engine)
                    continue
                counts[engine.name] = pick_iterations(probe, args)
                warmups[engine.name] = pick_warmup(probe, args)
                results[engine.name] = []
            for r in range(args.rounds):
                order = engines[r % len(engines):] + engines[:r % len(engines)] if engines else []
                for engine in order:
                    results[engine.name].append(engine.round(counts[engine.name], warmups[engine.name]))
            latency[(name, threads)] = {e: statistics.median(v) for e, v in results.items()}
            iterations[(name, threads)] = counts
            for engine in engines:
                if engine.name == "Kiln" and engine.peak_rss:  # fp32's
                    kiln_rss[name] = max(kiln_rss.get(name, 0), engine.peak_rss)
            log(f"{name} T={threads}: " + "  ".join(
                f"{e} (N={counts[e]}) " + " ".join(f"{x:.3f}" for x in v) for e, v in results.items()))
            del engines

    # Table.
    lines = []
    out = lines.append
    out(f"Kiln vs onnxruntime {ort.__version__} vs OpenVINO "
        f"{ov.get_version().split('-')[0] if use_ov else '(not run)'} on {cpu_name()}, "
        f"{os.cpu_count()} CPUs")
    out(isa_line(cpu_flags()))
    if "kiln-int8" in variants or "ort-int8" in variants:
        out(f"int8: Kiln kilnc --quantize=int8 and onnxruntime quantize_static (QDQ, u8 activations, s8 "
            f"per-channel weights), both calibrated on {args.calibration_samples} seeded samples")
    out(f"{args.rounds} alternating rounds per model and thread count, ~{args.round_seconds} s per "
        f"engine and round; latency = median of per-round medians (ORT, OV) / p50s (kiln bench)")
    out("")
    # Latency columns (selected variants) and ratio columns (when both sides ran).
    columns = [(ENGINE[v], f"{ENGINE[v].replace('Kiln-', '').replace('ORT-int8', 'ORT-i8')} ms")
               for v in variants]
    ratios = [(a, b, label) for a, b, label in [
        ("Kiln", "ORT", "kiln/ort"), ("Kiln-bf16", "Kiln", "bf16/fp32"), ("Kiln-int8", "Kiln", "int8/fp32"),
        ("Kiln-int8", "ORT-int8", "i8/ORT-i8"), ("OV", "ORT", "ov/ort")]
        if a in [c[0] for c in columns] and b in [c[0] for c in columns]]
    header = (f"{'model':22s} {'kilnc s':>7s} {'artifact':>9s} {'Kiln RSS':>9s} {'thr':>3s} "
              + " ".join(f"{label:>9s}" for _, label in columns) + " "
              + " ".join(f"{label:>9s}" for _, _, label in ratios))
    out(header)
    out("-" * len(header))
    for path in paths:
        name = os.path.basename(path)
        stem = os.path.splitext(name)[0]
        if (name, "kiln-fp32") in compiled:
            _, seconds, size = compiled[(name, "kiln-fp32")]
            head = (f"{stem:22s} {seconds:7.1f} {fmt_bytes(size):>9s} "
                    f"{fmt_bytes(kiln_rss[name]) if name in kiln_rss else '-':>9s}")
        else:
            head = f"{stem:22s} {'-' if 'kiln-fp32' not in variants else 'FAILED':>7s} {'-':>9s} {'-':>9s}"
        for threads in args.threads:
            lat = latency.get((name, threads), {})
            cells = [fmt_ms(lat.get(engine)) if engine in lat else "n/a" for engine, _ in columns]
            out(f"{head} {threads:3d} " + " ".join(f"{c:>9s}" for c in cells) + " "
                + " ".join(f"{fmt_ratio(lat.get(a), lat.get(b)):>9s}" for a, b, _ in ratios))
            head = " " * len(head)
    out("")
    worst = None  # (ratio, name, threads)
    for threads in args.threads:
        pairs = {n: latency[(n, threads)] for n in names if (n, threads) in latency}
        kr = {n: l["Kiln"] / l["ORT"] for n, l in pairs.items() if "Kiln" in l and "ORT" in l}
        vr = {n: l["OV"] / l["ORT"] for n, l in pairs.items() if "OV" in l and "ORT" in l}
        parts = [f"{threads} thread(s):"]
        if kr:
            top = max(kr, key=kr.get)
            parts.append(f"Kiln/ORT geomean {geomean(list(kr.values())):.2f} over {len(kr)} models, "
                         f"max {kr[top]:.2f} ({os.path.splitext(top)[0]});")
            if worst is None or kr[top] > worst[0]:
                worst = (kr[top], top, threads)
        if vr:
            top = max(vr, key=vr.get)
            parts.append(f"OV/ORT geomean {geomean(list(vr.values())):.2f}, max {vr[top]:.2f} "
                         f"({os.path.splitext(top)[0]})")
        out(" ".join(parts))
    out("")
    out("max |X - ORT| / max |ORT| over the outputs, same inputs"
        + (f"; OV compile_model s: {', '.join(f'{os.path.splitext(n)[0]} {s:.1f}' for n, s in ov_compile.items())}"
           if ov_compile else ""))
    for path in paths:
        name = os.path.basename(path)
        e = errors.get(name, {})
        out(f"  {os.path.splitext(name)[0]:22s} " + "   ".join(
            f"{engine} " + (f"{e[engine]:9.2e}" if engine in e else f"{'-':>9s}")
            for engine, _ in columns if engine != "ORT"))
    for (name, variant), reason in unavailable.items():
        out(f"n/a: {ENGINE[variant]} on {os.path.splitext(name)[0]}: {reason}")
    for (name, engine), message in engine_errors.items():
        out(f"n/a: {engine} on {os.path.splitext(name)[0]}: {message}")
    out("")

    out(runtime_library_line(args.runtime_lib, tmp))
    peak = measure_fma_peak(tmp)
    peak_note = "measured here: independent FMA chains, best of 3" if peak else "from RECIPES.md"
    peak = peak or RECIPES_PEAK_PER_CORE
    out(f"FMA peak per core: {peak:.0f} GFLOP/s ({peak_note})")
    flop = 2.0 * MATMUL_N ** 3
    for threads in args.threads:
        lat = latency.get((MATMUL_FILE, threads))
        if not lat:
            continue
        figures = [f"{e} {flop / lat[e] / 1e6:.1f} GFLOP/s"
                   + (f" ({100 * flop / lat[e] / 1e6 / (peak * threads):.0f}% of {peak * threads:.0f})"
                      if e == "Kiln" else "")
                   for e in ("Kiln", "ORT", "OV") if e in lat]
        out(f"MatMul {MATMUL_N}^3 f32, {threads} thread(s): " + ", ".join(figures))

    # Profile of the model with the largest Kiln/ORT ratio.
    if not args.no_profile and worst is not None:
        ratio, name, threads = worst
        out("")
        if kiln_has_profile(args.kiln):
            n = max(3, iterations[(name, threads)].get("Kiln", 3))
            log(f"kiln bench --profile {name} T={threads}")
            try:
                _, text = KilnEngine(args.kiln, compiled[(name, "kiln-fp32")][0], threads).bench(n, 1, ["--profile"])
                log("kiln bench --profile output:\n" + text)
                out(f"kiln bench --profile on {os.path.splitext(name)[0]} (largest Kiln/ORT, {ratio:.2f}, "
                    f"{threads} thread(s), {n} iterations), top 5:")
                lines.extend("  " + line for line in profile_rows(text))
            except RuntimeError as e:
                out(f"kiln bench --profile on {name} failed: {e}")
        else:
            out(f"profile: `kiln bench --help` does not mention --profile (not in this build); "
                f"would profile {os.path.splitext(name)[0]} (largest Kiln/ORT, {ratio:.2f}, {threads} thread(s))")
    out("")
    out(f"total bench time {time.perf_counter() - T0:.0f} s")
    print("\n".join(lines))

    return 0


if __name__ == "__main__":
    sys.exit(main())
