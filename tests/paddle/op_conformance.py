"""Paddle op conformance: each converter case against Paddle's own outputs.

gen_op_models.py writes one small model per case in both forms (PIR JSON and
legacy ProgramDesc) with Paddle Inference's outputs; this compiles each with
`kilnc MODEL --input-shape ... -o m.kiln`, runs it with `kiln run` on the
same inputs and compares (atol + rtol * |expected|). It prints one row per
case and form with the Paddle op types the model holds, and a per-op-type
pass count. Any compile error, run error or mismatch fails the test; a form
Paddle itself cannot write (unavailable.txt, Paddle 3.3's legacy exporter
rejects some ops) is shown as n/a and does not count.

Usage: op_conformance.py --kilnc KILNC --kiln KILN --workdir DIR
       [--only CASE,...] [--models DIR (already generated)]
"""
import argparse
import collections
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import compare_with_ort  # noqa: E402  (run_kiln: the `kiln run` driver)


def compile_model(kilnc, model_dir, meta, artifact, batch_shapes=True):
    model = os.path.join(model_dir, meta["model"])
    cmd = [kilnc, model, "-o", artifact]
    for name, shape, _ in meta["inputs"]:
        cmd.append("--input-shape=" + name + "=" + "x".join(str(d) for d in shape))
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    return proc.returncode == 0, (proc.stderr + proc.stdout).strip()


def check_form(args, case_dir, form):
    """(status, detail) for one case in one form."""
    form_dir = os.path.join(case_dir, form)
    unavailable = os.path.join(form_dir, "unavailable.txt")
    if os.path.exists(unavailable):
        with open(unavailable) as f:
            return "n/a", f.read().strip(), []
    with open(os.path.join(form_dir, "meta.json")) as f:
        meta = json.load(f)
    artifact = os.path.join(form_dir, "model.kiln")
    ok, log = compile_model(args.kilnc, form_dir, meta, artifact)
    if not ok:
        return "FAIL", "kilnc: " + log.splitlines()[-1] if log else "kilnc failed", meta["ops"]
    inputs = {name: os.path.join(case_dir, "inputs", name + ".npy")
              for name, _, _ in meta["inputs"]}
    names = meta["fetches"]
    try:
        outputs = compare_with_ort.run_kiln(args.kiln, artifact, inputs, names,
                                            os.path.join(form_dir, "run"))
    except compare_with_ort.KilnRunError as e:
        return "FAIL", f"{e.summary}: {e.detail.splitlines()[-1]}", meta["ops"]
    worst = 0.0
    for i, name in enumerate(names):
        want = np.load(os.path.join(form_dir, f"expected_{i}.npy"))
        if name not in outputs:
            return "FAIL", f"kiln run wrote no output '{name}'", meta["ops"]
        got = outputs[name]
        if got.shape != want.shape:
            return "FAIL", f"output '{name}': shape {got.shape}, Paddle {want.shape}", meta["ops"]
        if want.dtype.kind in "biu":
            if not np.array_equal(got.astype(np.int64), want.astype(np.int64)):
                return "FAIL", f"output '{name}': integer values differ", meta["ops"]
            continue
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        bound = args.atol + args.rtol * np.abs(want.astype(np.float64))
        if not np.all(err <= bound):
            return "FAIL", (f"output '{name}': max abs error {err.max():.3g} "
                            f"(bound atol {args.atol} + rtol {args.rtol})"), meta["ops"]
        worst = max(worst, float(err.max()) if err.size else 0.0)
    return "pass", f"max abs err {worst:.2g}", meta["ops"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--models", help="use models already generated here")
    parser.add_argument("--only", default="")
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--rtol", type=float, default=1e-3)
    args = parser.parse_args()
    models = args.models or os.path.join(args.workdir, "models")
    if not args.models:
        cmd = [sys.executable, os.path.join(HERE, "gen_op_models.py"), models]
        if args.only:
            cmd += ["--only", args.only]
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        if proc.returncode != 0:
            print((proc.stdout + proc.stderr)[-4000:])
            print("FAIL: gen_op_models.py failed")
            return 1
    cases = sorted(d for d in os.listdir(models)
                   if os.path.isdir(os.path.join(models, d)))
    if args.only:
        cases = [c for c in cases if c in args.only.split(",")]
    per_op = collections.defaultdict(lambda: [0, 0])
    failures = 0
    passes = 0
    print(f"{'case':24} {'form':7} {'result':6} detail  [Paddle ops]")
    for case in cases:
        for form in ("pir", "legacy"):
            status, detail, ops = check_form(args, os.path.join(models, case), form)
            print(f"{case:24} {form:7} {status:6} {detail}  [{', '.join(ops)}]", flush=True)
            if status == "n/a":
                continue
            for op in ops:
                per_op[op][1] += 1
                per_op[op][0] += status == "pass"
            if status == "pass":
                passes += 1
            else:
                failures += 1
    print("\nper Paddle op type: cases passed / cases using it")
    for op in sorted(per_op):
        ok, total = per_op[op]
        print(f"  {op:32} {ok}/{total}")
    print(f"\n{passes} passed, {failures} failed (case x form)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
