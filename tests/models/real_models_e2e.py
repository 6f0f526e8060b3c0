#!/usr/bin/env python3
"""End-to-end check of the real-architecture models: kilnc + kiln vs onnxruntime.

For each model of make_real_models.MODELS (ResNet-18, MobileNetV2/V3, BERT
encoder, GPT-2 block, LSTM) this script
  1. writes the model into a temporary directory (deterministic, seeded),
  2. compiles it with `kilnc MODEL.onnx -o MODEL.kiln`,
  3. runs it with `kiln run` and with onnxruntime (CPU provider) on the same
     seeded inputs (make_real_models.random_inputs, seed 0: standard-normal
     floats, token ids in [0, 1000), a half-padded attention mask),
  4. prints, per model and output, the max absolute and max relative error
     (relative: |got - want| / (|want| + 1e-6)).
An output fails when any element has |got - want| > atol + rtol * |want|,
with atol 1e-3 and rtol 1e-2 (--atol / --rtol); a model fails when kilnc or
kiln fails or an output is missing or has another shape. Exit status 1 when
anything failed. No model is marked expected-to-fail.

Usage (with the test venv that scripts/setup.sh creates):

    ~/.cache/kiln/venv/bin/python tests/models/real_models_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln [--only NAME]

The Bazel test is //tests/models:real_models_e2e.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import make_real_models  # noqa: E402
import compare_with_ort  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--atol", type=float, default=1e-3)
    parser.add_argument("--rtol", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=600, help="seconds per kilnc run")
    parser.add_argument("--only", action="append", help="model file name(s) to check, e.g. lstm.onnx")
    parser.add_argument("--workdir", help="keep the models and artifacts here (default: a temp dir)")
    args = parser.parse_args()

    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-real-models-")
    os.makedirs(workdir, exist_ok=True)
    paths = make_real_models.write_models(workdir)
    if args.only:
        paths = [p for p in paths if os.path.basename(p) in args.only]
    print(f"tolerance: |kiln - onnxruntime| <= {args.atol:g} + {args.rtol:g} * |onnxruntime| "
          f"(seed {args.seed}, {args.threads} thread(s))\n")

    failed = []
    rows = []
    for path in paths:
        model_name = os.path.basename(path)
        artifact = os.path.splitext(path)[0] + ".kiln"
        start = time.monotonic()
        try:
            proc = subprocess.run([args.kilnc, path, "-o", artifact], capture_output=True,
                                  text=True, errors="replace", timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"{model_name}: FAIL: kilnc ran longer than {args.timeout:g} s")
            failed.append(model_name)
            continue
        compile_s = time.monotonic() - start
        if proc.returncode != 0:
            print(f"{model_name}: FAIL: kilnc exited {proc.returncode}:\n"
                  + "\n".join("    " + l for l in proc.stderr.strip().splitlines()[:10]))
            failed.append(model_name)
            continue
        model = onnx.load(path)
        inputs = make_real_models.random_inputs(model, seed=args.seed)
        run_dir = os.path.join(workdir, os.path.splitext(model_name)[0] + "_run")
        os.makedirs(run_dir, exist_ok=True)
        results = compare_with_ort.compare(path, artifact, args.kiln, atol=args.atol,
                                           rtol=args.rtol, workdir=run_dir,
                                           threads=args.threads, inputs=inputs)
        if results is None:
            print(f"{model_name}: FAIL: kiln run failed (see above)")
            failed.append(model_name)
            continue
        model_ok = True
        print(f"{model_name} (compiled in {compile_s:.1f} s):")
        for name, abs_err, rel_err, ok in results:
            if abs_err is None:
                print(f"    {name}: MISSING (kiln wrote no output file)")
                rows.append((model_name, name, "missing", "", "FAIL"))
            elif abs_err == float("inf") and rel_err == float("inf"):
                print(f"    {name}: SHAPE MISMATCH")
                rows.append((model_name, name, "shape", "", "FAIL"))
            else:
                print(f"    {name}: max abs err {abs_err:.3g}, max rel err {rel_err:.3g}  "
                      f"{'ok' if ok else 'MISMATCH'}")
                rows.append((model_name, name, f"{abs_err:.3g}", f"{rel_err:.3g}",
                             "ok" if ok else "FAIL"))
            model_ok &= bool(ok)
        if not model_ok:
            failed.append(model_name)

    print("\nmodel                     output               max abs err  max rel err  result")
    for model_name, name, a, r, verdict in rows:
        print(f"{model_name:25s} {name:20s} {a:>11s}  {r:>11s}  {verdict}")
    if failed:
        print(f"\nFAILED: {len(failed)} of {len(paths)} models: {', '.join(failed)}")
        return 1
    print(f"\nOK: all {len(paths)} models match onnxruntime")
    return 0


if __name__ == "__main__":
    sys.exit(main())
