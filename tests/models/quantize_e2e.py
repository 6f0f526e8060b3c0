#!/usr/bin/env python3
"""Accuracy of kilnc --quantize=int8 (post-training, calibrated) against fp32 onnxruntime.

For each chosen model of make_real_models.MODELS (default: the ResNet-18-style
and MobileNetV2 CNNs and the BERT encoder; deterministic random weights),
this script writes --calib-samples calibration samples
(make_real_models.random_inputs with seeds 1000, 1001, ...; one sub-folder
per sample holding NAME.npy files, the layout kilnc --calibration reads),
compiles `kilnc MODEL.onnx --quantize=int8 --calibration=DIR
[--calibration-method=M] -o MODEL.int8.kiln`, runs the artifact with
`kiln run` on --eval-samples other inputs (seeds 0, 1, ...), runs the
original fp32 model in onnxruntime on the same inputs, and prints per output
the cosine similarity (of all evaluation samples together, and the lowest of
one sample), the max abs error, the largest |fp32| value, and for outputs
that look like class scores (a model's only output, [1, C] with C >= 10)
how often the top-1 class agrees. An output fails when a sample's cosine is below --min-cosine (default
0.99, the issue's int8 threshold).

With --check-determinism MODEL, that model is compiled a second time from
the same samples and the two artifacts must be byte-identical.

Usage (with the test venv that scripts/setup.sh creates):

    ~/.cache/kiln/venv/bin/python tests/models/quantize_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln

The Bazel test is //tests/models:quantize_e2e.
"""

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import make_real_models  # noqa: E402
import compare_with_ort  # noqa: E402

DEFAULT_MODELS = ["resnet18_style.onnx", "mobilenet_v2.onnx", "bert_encoder.onnx"]


def write_calibration(model, folder, count):
    """One sub-folder per sample, NAME.npy per graph input."""
    for i in range(count):
        sample = os.path.join(folder, f"sample_{i:03d}")
        os.makedirs(sample, exist_ok=True)
        for name, value in make_real_models.random_inputs(model, seed=1000 + i).items():
            np.save(os.path.join(sample, compare_with_ort.safe_name(name) + ".npy"), value)


def compile_int8(kilnc, path, calib, artifact, method, timeout):
    cmd = [kilnc, path, "--quantize=int8", f"--calibration={calib}", "-o", artifact]
    if method:
        cmd.append(f"--calibration-method={method}")
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
    return proc, time.monotonic() - start, cmd


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--only", action="append",
                        help=f"model file name(s) (default: {' '.join(DEFAULT_MODELS)})")
    parser.add_argument("--method", help="--calibration-method for kilnc (default: kilnc's)")
    parser.add_argument("--calib-samples", type=int, default=16)
    parser.add_argument("--eval-samples", type=int, default=4)
    parser.add_argument("--min-cosine", type=float, default=0.99)
    parser.add_argument("--check-determinism", metavar="MODEL",
                        help="compile MODEL (file name) twice; the artifacts must be identical")
    parser.add_argument("--workdir", help="keep models and artifacts here (default: a temp dir)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per kilnc run")
    args = parser.parse_args()
    wanted = args.only or DEFAULT_MODELS

    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-quantize-")
    os.makedirs(workdir, exist_ok=True)
    print(f"threshold: cosine similarity >= {args.min_cosine:g} per sample against onnxruntime fp32; "
          f"{args.calib_samples} calibration samples (seeds 1000+), "
          f"{args.eval_samples} evaluation samples (seeds 0+), method {args.method or 'default'}\n")

    rows, failed = [], []
    for model_name in wanted:
        build = make_real_models.MODELS[model_name]
        path = os.path.join(workdir, model_name)
        build(path)
        stem = os.path.splitext(model_name)[0]
        model = onnx.load(path)
        calib = os.path.join(workdir, f"{stem}_calibration")
        write_calibration(model, calib, args.calib_samples)
        artifact = os.path.join(workdir, f"{stem}.int8.kiln")
        proc, seconds, cmd = compile_int8(args.kilnc, path, calib, artifact, args.method, args.timeout)
        if proc.returncode != 0:
            print(f"{model_name}: FAIL: kilnc exited {proc.returncode}:\n    $ {' '.join(cmd)}\n    "
                  + "\n    ".join(proc.stderr.strip().splitlines()[-10:]))
            failed.append(model_name)
            continue
        print(f"{model_name}: compiled in {seconds:.1f} s; {proc.stderr.strip().splitlines()[-1]}")
        if args.check_determinism == model_name:
            again = os.path.join(workdir, f"{stem}.int8.again.kiln")
            proc2, _, _ = compile_int8(args.kilnc, path, calib, again, args.method, args.timeout)
            same = proc2.returncode == 0 and filecmp.cmp(artifact, again, shallow=False)
            print(f"{model_name}: recompiled from the same samples: "
                  f"{'byte-identical' if same else 'DIFFERENT'} ({os.path.getsize(artifact)} bytes)")
            if not same:
                failed.append(f"{model_name} determinism")

        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]
        got_all = {n: [] for n in names}
        want_all = {n: [] for n in names}
        run_failed = False
        for seed in range(args.eval_samples):
            inputs = make_real_models.random_inputs(model, seed=seed)
            expected = dict(zip(names, session.run(None, inputs)))
            outdir = os.path.join(workdir, f"{stem}_int8_out_{seed}")
            try:
                outputs = compare_with_ort.run_kiln(args.kiln, artifact, inputs, names, outdir)
            except compare_with_ort.KilnRunError as e:
                print(f"{model_name}: FAIL: {e.summary}\n{e.detail}")
                run_failed = True
                break
            for name in names:
                want = np.asarray(expected[name])
                got = outputs.get(name)
                if got is None or got.shape != want.shape or got.dtype != want.dtype:
                    what = "missing" if got is None else f"{got.dtype}{list(got.shape)}"
                    print(f"{model_name} {name}: FAIL: got {what}, want {want.dtype}{list(want.shape)}")
                    run_failed = True
                    continue
                got_all[name].append(got)
                want_all[name].append(want)
        if run_failed:
            failed.append(model_name)
            continue
        for name in names:
            gots, wants = got_all[name], want_all[name]
            per_sample = [compare_with_ort.cosine(g, w) for g, w in zip(gots, wants)]
            got, want = np.stack(gots), np.stack(wants)
            cos = compare_with_ort.cosine(got, want)
            abs_err = float(np.max(np.abs(got.astype(np.float64) - want)))
            top1 = ""
            # Class scores: the model's only output, [1, C] with C >= 10.
            if len(names) == 1 and want.ndim == 3 and want.shape[1] == 1 and want.shape[2] >= 10:
                agree = np.mean(np.argmax(got, axis=-1) == np.argmax(want, axis=-1))
                top1 = f"{agree * 100:.0f}%"
            ok = min(per_sample) >= args.min_cosine
            rows.append((model_name, name, cos, min(per_sample), abs_err,
                         float(np.max(np.abs(want))), top1, ok))
            if not ok:
                failed.append(model_name)

    print("\nmodel                 output              cosine   min cosine  max abs err  max |fp32|  top-1  result")
    for model_name, name, cos, worst, abs_err, scale, top1, ok in rows:
        print(f"{model_name:21s} {name:18s} {cos:9.6f}  {worst:9.6f}  {abs_err:11.4g}  {scale:10.3g}  "
              f"{top1:>5s}  {'ok' if ok else 'FAIL'}")
    if failed:
        print(f"\nFAILED: {', '.join(sorted(set(failed)))}")
        return 1
    print(f"\nOK: {len(rows)} outputs at cosine >= {args.min_cosine:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
