#!/usr/bin/env python3
"""Numerics of every CPU code generation strategy on odd shapes, checked
against onnxruntime (never against Kiln itself).

For each model of make_numerics_models.SPECS (MatMul / batched MatMul / Gemm /
Conv on odd, size-1 and K = 1 shapes, and MatMuls with fused epilogues) this
script compiles the model with kilnc under each configuration

    --codegen=auto       --cpu=native
    --codegen=loop-order --cpu=native
    --codegen=auto       --cpu=x86-64-v3   (the AVX2 artifact, run on this host)
    --codegen=auto       --cpu=x86-64-v4   (only when this host has AVX-512F)
    --codegen=scalar     --cpu=native      (the models marked scalar=True)

runs it with `kiln run` on seeded uniform(-1, 1) inputs and compares every
output with onnxruntime's (CPU provider) on the same inputs. An element fails
when |kiln - ort| > atol + rtol * |ort|, with atol = 1e-4 * sqrt(K) + 1e-5
(K: the model's contraction depth) and rtol = 1e-3; for the f64 models
(names ending in _f64) atol = 1e-12 * sqrt(K) + 1e-13 and rtol = 1e-10, which
only f64 arithmetic meets. A case fails when kilnc
or kiln fails, an output is missing or has another shape, or any element
fails.

Prints one line per (model, codegen, cpu) with the max abs / rel error, and
ends with 'N passed, N failed'; exit status 1 when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/numerics_test.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln \\
        [--only MODEL] [--config auto/native] [--jobs 2] [--workdir DIR]

The Bazel test is //tests/e2e:codegen_numerics.
"""
import argparse
import concurrent.futures
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_ort  # noqa: E402
import make_numerics_models  # noqa: E402

RTOL = 1e-3


def atol_for(k):
    return 1e-4 * math.sqrt(k) + 1e-5


# f64 models (make_numerics_models: names ending in _f64) must be computed in
# f64: a 1e-12 bound is some 10^5 times tighter than f32 arithmetic allows.
def f64_atol_for(k):
    return 1e-12 * math.sqrt(k) + 1e-13


F64_RTOL = 1e-10


def host_has_avx512f():
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx512f" in line for line in f)
    except OSError:
        return False


class Case:
    def __init__(self, spec, path, codegen, cpu):
        self.spec, self.path, self.codegen, self.cpu = spec, path, codegen, cpu
        self.label = f"{spec.name} codegen={codegen} cpu={cpu}"
        self.ok = False
        self.line = ""
        self.detail = ""


def tail(text, lines=12):
    text = (text or "").strip().splitlines()
    return "\n".join("      " + l for l in text[-lines:])


def run_case(case, kilnc, kiln, reference, workdir, threads, timeout):
    """Compiles, runs and compares one case; fills case.ok / line / detail."""
    stem = f"{case.spec.name}.{case.codegen}.{case.cpu}"
    artifact = os.path.join(workdir, stem + ".kiln")
    cmd = [kilnc, case.path, "-o", artifact, f"--codegen={case.codegen}", f"--cpu={case.cpu}"]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        case.line = f"FAIL {case.label}: kilnc ran longer than {timeout:g} s"
        return case
    compile_s = time.monotonic() - start
    if proc.returncode != 0:
        case.line = f"FAIL {case.label}: kilnc exited {proc.returncode}"
        case.detail = "    $ " + " ".join(cmd) + "\n" + tail(proc.stderr)
        return case

    inputs, expected = reference
    try:
        outputs = compare_with_ort.run_kiln(kiln, artifact, inputs, [n for n, _ in expected],
                                            os.path.join(workdir, stem + ".out"), threads,
                                            timeout)
    except compare_with_ort.KilnRunError as e:
        case.line = f"FAIL {case.label}: {e.summary}"
        case.detail = tail(e.detail)
        return case

    atol = f64_atol_for(case.spec.k) if case.spec.f64 else atol_for(case.spec.k)
    rtol = F64_RTOL if case.spec.f64 else RTOL
    worst_abs = worst_rel = 0.0
    problems = []
    for name, want in expected:
        got = outputs.get(name)
        if got is None:
            problems.append(f"output {name}: missing (kiln wrote no file for it)")
            continue
        if got.shape != want.shape or got.dtype != want.dtype:
            problems.append(f"output {name}: got {got.dtype}{list(got.shape)}, "
                            f"want {want.dtype}{list(want.shape)}")
            continue
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        diff = np.abs(g - w)
        diff = np.where(np.isnan(g) != np.isnan(w), np.inf, np.nan_to_num(diff, nan=0.0))
        rel = diff / (np.abs(w) + 1e-6)
        worst_abs = max(worst_abs, float(diff.max()) if diff.size else 0.0)
        worst_rel = max(worst_rel, float(rel.max()) if rel.size else 0.0)
        bad = ~(diff <= atol + rtol * np.abs(w))
        nbad = int(bad.sum())
        if nbad:
            idx = np.unravel_index(int(np.argmax(np.where(bad, diff, -1.0))), diff.shape)
            problems.append(
                f"output {name}: {nbad} of {diff.size} elements beyond tolerance; worst at "
                f"{tuple(int(i) for i in idx)}: kiln {g[idx]:.7g}, onnxruntime {w[idx]:.7g}")
    errs = f"max abs err {worst_abs:.3g}, max rel err {worst_rel:.3g}"
    if problems:
        case.line = f"FAIL {case.label}: {errs} (atol {atol:.2g}, rtol {rtol:g})"
        case.detail = "\n".join("    " + p for p in problems)
    else:
        case.ok = True
        case.line = f"ok   {case.label}: {errs} (atol {atol:.2g}; compiled in {compile_s:.2f} s)"
    return case


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--workdir", help="keep models and artifacts here (default: a temp dir)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--threads", type=int, default=1, help="kiln run --threads")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per kilnc / kiln run")
    parser.add_argument("--only", action="append", help="model name(s) to check")
    parser.add_argument("--config", action="append",
                        help="CODEGEN/CPU to check, e.g. auto/x86-64-v3 (default: all)")
    args = parser.parse_args()

    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-numerics-")
    os.makedirs(workdir, exist_ok=True)
    start = time.monotonic()

    configs = [("auto", "native"), ("loop-order", "native"), ("auto", "x86-64-v3")]
    if host_has_avx512f():
        configs.append(("auto", "x86-64-v4"))
    else:
        print("skipped: --codegen=auto --cpu=x86-64-v4 (this host has no AVX-512F, "
              "so an x86-64-v4 artifact cannot run here)")
    configs.append(("scalar", "native"))
    if args.config:
        configs = [c for c in configs if "/".join(c) in args.config]

    models = make_numerics_models.write_models(workdir, args.only)
    if not models:
        print("FAIL: no model selected")
        return 1
    print(f"{len(models)} models, tolerance |kiln - onnxruntime| <= 1e-4*sqrt(K) + 1e-5 "
          f"+ {RTOL:g} * |onnxruntime|; kiln run --threads {args.threads}, {args.jobs} jobs\n")

    references = {}
    cases = []
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    for spec, path in models:
        model = onnx.load(path)
        inputs = make_numerics_models.random_inputs(model, spec.name)
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        outputs = session.run(None, inputs)
        paths = {}
        for name, data in inputs.items():
            paths[name] = os.path.join(workdir, f"{spec.name}.{compare_with_ort.safe_name(name)}.npy")
            np.save(paths[name], data)
        references[spec.name] = (paths, [(o.name, np.asarray(v))
                                         for o, v in zip(session.get_outputs(), outputs)])
        for codegen, cpu in configs:
            if codegen == "scalar" and not spec.scalar:
                continue
            cases.append(Case(spec, path, codegen, cpu))

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_case, c, args.kilnc, args.kiln, references[c.spec.name],
                               workdir, args.threads, args.timeout) for c in cases]
        for future in futures:  # in submission order: a stable log
            case = future.result()
            print(case.line)
            if case.detail:
                print(case.detail)
            sys.stdout.flush()

    failed = [c for c in cases if not c.ok]
    print(f"\nfinished in {time.monotonic() - start:.1f} s")
    if failed:
        print("failed cases:")
        for c in failed:
            print(f"    {c.label}")
    print(f"{len(cases) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
