"""Kiln vs Paddle Inference (MKLDNN on and off) vs onnxruntime on paddle2onnx.

For the Paddle test models (tests/paddle/gen_models.py: resnet18,
mobilenet_v2, mobilenet_v3_small, a TransformerEncoder and an LSTM, here at
--image-size, default 224), in one saved form (--form, default pdmodel):
  * Kiln: `kilnc MODEL --input-shape ... -o m.kiln`, then `kiln bench
    --threads T --iterations N` (its p50);
  * Paddle Inference on CPU (paddle.inference, IR optimizations on) with
    MKLDNN (oneDNN) enabled and disabled, T math-library threads, median of
    N runs after warm-up, each configuration in a child process (Paddle
    picks PIR or the legacy IR when it is imported);
  * onnxruntime (CPUExecutionProvider, T intra-op threads, median of N) on
    the model exported by paddle2onnx, when paddle2onnx imports; otherwise
    that column reads "n/a (paddle2onnx: why)".
Prints the medians in ms and the ratios Kiln / other (< 1: Kiln faster).

Usage:
  ~/.cache/kiln/venv/bin/python bench/paddle_bench.py \\
      --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln \\
      [--models resnet18,...] [--threads 1] [--iterations 50] \\
      [--image-size 224] [--form pdmodel|pir] [--workdir DIR]
Do not run it while other jobs load the machine; a tiny run for checking
that it works: --models lstm,transformer --iterations 5 --image-size 64.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN_MODELS = os.path.join(HERE, "..", "tests", "paddle", "gen_models.py")

PADDLE_CHILD = r'''
import json, statistics, sys, time
import numpy as np
from paddle import inference
model, params, inputs, threads, iterations, mkldnn = json.loads(sys.argv[1])
config = inference.Config(model, params)
config.disable_gpu()
config.disable_glog_info()
config.set_cpu_math_library_num_threads(threads)
config.switch_ir_optim(True)
if mkldnn:
    config.enable_mkldnn()
else:
    config.disable_mkldnn()
predictor = inference.create_predictor(config)
values = [np.load(f) for f in inputs]
for name, value in zip(predictor.get_input_names(), values):
    predictor.get_input_handle(name).copy_from_cpu(value)
for _ in range(3):
    predictor.run()
times = []
for _ in range(iterations):
    start = time.perf_counter()
    predictor.run()
    times.append((time.perf_counter() - start) * 1e3)
print("MEDIAN_MS", statistics.median(times))
'''


def kiln_ms(args, directory, manifest):
    artifact = os.path.join(directory, "bench.kiln")
    cmd = [args.kilnc, os.path.join(directory, manifest["model_file"]), "-o", artifact]
    for name, entry in zip(manifest["feeds"], manifest["inputs"]):
        cmd.append(f"--input-shape={name}=" + "x".join(str(d) for d in entry["shape"]))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, "kilnc failed: " + proc.stderr.strip().splitlines()[-1]
    out = subprocess.run([args.kiln, "bench", artifact, "--threads", str(args.threads),
                          "--iterations", str(args.iterations), "--warmup", "3"],
                         capture_output=True, text=True)
    match = re.search(r"p50 ([0-9.]+)", out.stdout)
    if out.returncode != 0 or not match:
        return None, "kiln bench failed: " + (out.stderr + out.stdout).strip()[-300:]
    return float(match.group(1)), ""


def paddle_ms(args, directory, manifest, mkldnn):
    payload = json.dumps([
        os.path.join(directory, manifest["model_file"]),
        os.path.join(directory, "model.pdiparams"),
        [os.path.join(directory, e["file"]) for e in manifest["inputs"]],
        args.threads, args.iterations, mkldnn])
    env = dict(os.environ, GLOG_minloglevel="2",
               FLAGS_enable_pir_api="1" if args.form == "pir" else "0",
               OMP_NUM_THREADS=str(args.threads))
    proc = subprocess.run([sys.executable, "-c", PADDLE_CHILD, payload],
                          capture_output=True, text=True, env=env)
    match = re.search(r"MEDIAN_MS ([0-9.]+)", proc.stdout)
    if not match:
        return None, "paddle.inference failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
    return float(match.group(1)), ""


def ort_ms(args, directory, manifest):
    try:
        import paddle2onnx  # noqa: F401
        import onnxruntime as ort
        import numpy as np
    except Exception as e:  # noqa: BLE001 - reported in the table
        return None, f"n/a (paddle2onnx does not import: {type(e).__name__}: {e})"
    onnx_path = os.path.join(directory, "p2o.onnx")
    proc = subprocess.run(
        [sys.executable, "-m", "paddle2onnx.command",
         "--model_dir", directory, "--model_filename", manifest["model_file"],
         "--params_filename", "model.pdiparams", "--save_file", onnx_path,
         "--opset_version", "17"],
        capture_output=True, text=True,
        env=dict(os.environ, FLAGS_enable_pir_api="1" if args.form == "pir" else "0"))
    if proc.returncode != 0 or not os.path.exists(onnx_path):
        tail = (proc.stderr + proc.stdout).strip().splitlines()
        return None, "n/a (paddle2onnx failed: " + (tail[-1] if tail else "?") + ")"
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
    feeds = {i.name: np.load(os.path.join(directory, e["file"]))
             for i, e in zip(session.get_inputs(), manifest["inputs"])}
    for _ in range(3):
        session.run(None, feeds)
    times = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), ""


def fmt(ms):
    return f"{ms:9.3f}" if ms is not None else f"{'-':>9}"


def ratio(a, b):
    return f"{a / b:6.2f}" if a is not None and b else f"{'-':>6}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--models", default="resnet18,mobilenet_v2,mobilenet_v3_small,transformer,lstm")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--image-size", type=int, default=224)
    parser.add_argument("--form", choices=["pdmodel", "pir"], default="pdmodel")
    parser.add_argument("--workdir")
    args = parser.parse_args()
    work = args.workdir or tempfile.mkdtemp(prefix="kiln-paddle-bench-")
    models_dir = os.path.join(work, "models")
    proc = subprocess.run([sys.executable, GEN_MODELS, "--out", models_dir,
                           "--models", args.models, "--forms", args.form,
                           "--image-size", str(args.image_size)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        print((proc.stdout + proc.stderr)[-3000:])
        print("FAIL: gen_models.py failed")
        return 1
    print(f"form {args.form}, {args.threads} thread(s), {args.iterations} iterations, "
          f"vision inputs {args.image_size}x{args.image_size}; medians in ms; ratio = Kiln / other")
    print(f"{'model':20} {'kiln':>9} {'pd-mkldnn':>9} {'pd-plain':>9} {'ort(p2o)':>9} "
          f"{'/mkldnn':>6} {'/plain':>6} {'/ort':>6}")
    notes = []
    for model in args.models.split(","):
        directory = os.path.join(models_dir, model, args.form)
        with open(os.path.join(directory, "manifest.json")) as f:
            manifest = json.load(f)
        kiln, why_k = kiln_ms(args, directory, manifest)
        mkl, why_m = paddle_ms(args, directory, manifest, True)
        plain, why_p = paddle_ms(args, directory, manifest, False)
        ortv, why_o = ort_ms(args, directory, manifest)
        print(f"{model:20} {fmt(kiln)} {fmt(mkl)} {fmt(plain)} {fmt(ortv)} "
              f"{ratio(kiln, mkl)} {ratio(kiln, plain)} {ratio(kiln, ortv)}", flush=True)
        for why in (why_k, why_m, why_p, why_o):
            if why:
                notes.append(f"{model}: {why}")
    for note in notes:
        print("note:", note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
