#!/usr/bin/env python3
"""Checks that kilnc imports the real-architecture models with static types.

For each model written by make_real_models.py (ResNet-18, MobileNetV2/V3,
BERT encoder, GPT-2 block, LSTM), this script
  1. runs `kilnc MODEL --emit=kiln`; the import must succeed,
  2. checks that EVERY tensor type in the printed IR is static (no `?`
     anywhere: the exporter's shape sub-graphs must fold away),
  3. runs onnxruntime once on random inputs and checks that the `@main`
     results match its outputs in order, name, shape and dtype.

A model that fails only because kilnc reports unsupported op types fails the
check too, unless KNOWN_UNSUPPORTED below names that model with exactly those
op types; a listed model that imports now is also a failure, so the list
stays honest and shrinks as converters land.

Usage (with the test venv that scripts/setup.sh creates):

    ~/.cache/kiln/venv/bin/python tests/models/check_real_models.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc [MODEL.onnx ...]

With no models given it writes every model of make_real_models.MODELS into a
temporary directory first (a second or two; the models are generated, not
committed). The Bazel test is //tests/models:real_models_import.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_real_models  # noqa: E402  (random_inputs and the model list)

# Models whose import is known to stop at unsupported op types, with those
# op types. Remove an entry as soon as the converter lands (the check fails
# for a listed model that imports, as a reminder).
KNOWN_UNSUPPORTED = {
    # e.g. "lstm.onnx": {"LSTM"},
}

NUMPY_TO_MLIR = {
    np.dtype(np.float32): "f32", np.dtype(np.float16): "f16", np.dtype(np.int8): "i8",
    np.dtype(np.int32): "i32", np.dtype(np.int64): "i64", np.dtype(np.bool_): "i1",
}
UNSUPPORTED_OP_LINE_RE = re.compile(r"^\s+([\w.]+)::(\w+) \(", re.M)
RESULT_RE = re.compile(r'(tensor<[^>]*>) \{kiln\.name = "([^"]*)"\}')


def main_results(ir):
    """[(type, name)] of @main's results (the models use plain output names)."""
    header = next((l for l in ir.splitlines() if "func.func @main(" in l), None)
    if header is None or ") -> (" not in header:
        return None
    return RESULT_RE.findall(header.split(") -> (", 1)[1])


def check_model(path, kilnc):
    """A list of problems (empty when the model passes) and a one-line status."""
    name = os.path.basename(path)
    proc = subprocess.run([kilnc, path, "--emit=kiln"], capture_output=True, text=True, timeout=300)
    known = KNOWN_UNSUPPORTED.get(name)
    if proc.returncode != 0:
        if proc.returncode < 0:
            return [f"kilnc CRASHED (signal {-proc.returncode}):\n{proc.stderr[-2000:]}"], "CRASH"
        if "Kiln does not support:" in proc.stderr:
            ops = {op if domain == "ai.onnx" else f"{domain}::{op}"
                   for domain, op in UNSUPPORTED_OP_LINE_RE.findall(proc.stderr)}
            if known is not None and ops == set(known):
                return [], f"known unsupported: {', '.join(sorted(ops))}"
            return [f"unsupported op types {sorted(ops)}"
                    + (f" (KNOWN_UNSUPPORTED lists {sorted(known)})" if known is not None else
                       " (not in KNOWN_UNSUPPORTED)") + f":\n{proc.stderr.strip()}"], "unsupported"
        return [f"kilnc failed (exit {proc.returncode}):\n{proc.stderr.strip()[:3000]}"], "import error"
    if known is not None:
        return [f"imports now, but KNOWN_UNSUPPORTED still lists it with {sorted(known)}; "
                "remove the entry"], "stale KNOWN_UNSUPPORTED entry"

    problems = []
    dynamic = [l.strip() for l in proc.stdout.splitlines() if re.search(r"tensor<[^>]*\?", l)]
    if dynamic:
        problems.append(f"{len(dynamic)} IR line(s) with a dynamic (?) dim, e.g.:\n  "
                        + "\n  ".join(l[:240] for l in dynamic[:5]))
    if "tensor<*" in proc.stdout:
        problems.append("unranked tensor type in the IR")

    results = main_results(proc.stdout)
    if results is None:
        return problems + ["no func.func @main signature in kilnc's output"], "bad output"
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    model_inputs = make_real_models.random_inputs(onnx.load(path, load_external_data=False))
    ort_outputs = session.run(None, model_inputs)
    names = [o.name for o in session.get_outputs()]
    if len(results) != len(names):
        problems.append(f"@main has {len(results)} results, onnxruntime {len(names)} outputs")
    for (got_type, got_name), want_name, value in zip(results, names, ort_outputs):
        want_type = "tensor<" + "".join(f"{d}x" for d in value.shape) + \
            NUMPY_TO_MLIR.get(value.dtype, str(value.dtype)) + ">"
        if got_name != want_name or got_type != want_type:
            problems.append(f"output '{want_name}': kilnc {got_type} (named '{got_name}'), "
                            f"onnxruntime {want_type}")
    signature = ", ".join(f"{n}: {t}" for t, n in results)
    return problems, f"imported, static, outputs match onnxruntime ({signature})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help="models to check (default: all of make_real_models)")
    parser.add_argument("--kilnc", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kiln-real-models-") as scratch:
        models = args.models or make_real_models.write_models(scratch)
        return check_models(models, args.kilnc)


def check_models(models, kilnc):
    failed = []
    for path in models:
        problems, status = check_model(path, os.path.abspath(kilnc))
        print(f"{'FAIL' if problems else 'ok  '} {os.path.basename(path)}: {status}")
        for p in problems:
            print("     " + p.replace("\n", "\n     "))
        if problems:
            failed.append(os.path.basename(path))
    print(f"\n{len(models) - len(failed)} of {len(models)} models passed"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
