"""What the conv end-to-end tests (conv_native_e2e, depthwise_e2e,
implicit_gemm_e2e) share: a pass/fail counter, the host's CPU flags, one
kilnc + kiln run with the lowering dump kept, and a parser for
`kilnc --dump-dispatches`. Numerics are still compared against onnxruntime
by each test; nothing here judges an output.
"""
import argparse
import os
import re
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import helper

import compare_with_ort


class Checks:
    """Prints one `ok`/`FAIL` line per check and counts them; `skip` lines
    say what this host cannot check (an AVX-512 artifact on an AVX2 host)."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def __call__(self, ok, line):
        print(("ok   " if ok else "FAIL ") + line, flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    def skip(self, line):
        print("skip " + line, flush=True)
        self.skipped += 1

    def summary(self):
        """The last line, and the exit status."""
        print(f"{self.passed} passed, {self.failed} failed, {self.skipped} not run on this host")
        return 1 if self.failed else 0


def host_has(flag):
    """Whether /proc/cpuinfo lists `flag` (e.g. avx512_vnni) for this host."""
    return flag in compare_with_ort.host_flags()


def cpu_of(flags):
    """The --cpu a kilnc command line builds for ("native" by default)."""
    for flag in flags:
        if flag.startswith("--cpu="):
            return flag[len("--cpu="):]
    return "native"


def isa_of(flags):
    """"avx512" or "avx2": the vector ISA a kilnc command line builds for,
    which decides the tiles and paths the dumps show (native: this host's)."""
    cpu = cpu_of(flags)
    if cpu == "x86-64-v3":
        return "avx2"
    if cpu == "x86-64-v4":
        return "avx512"
    return compare_with_ort.native_isa()


def compile_with_dump(kilnc, model_path, artifact, flags):
    """Runs kilnc with --dump-dispatches; returns (returncode, dump, stderr)."""
    proc = subprocess.run([kilnc, model_path, "-o", artifact, "--dump-dispatches", *flags],
                          capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr, proc.stderr


def compile_and_run(args, model_path, flags, label, inputs, names):
    """Compiles `model_path` into args.workdir/LABEL.kiln and runs it on
    `inputs`; returns (dump, {name: array}), or (dump, None) when this host
    cannot run code for the flags' --cpu (compiled only). Raises
    RuntimeError when kilnc fails (its stderr in the message)."""
    artifact = os.path.join(args.workdir, label + ".kiln")
    rc, dump, stderr = compile_with_dump(args.kilnc, model_path, artifact, flags)
    if rc != 0:
        raise RuntimeError(f"kilnc exited {rc}:\n{stderr}")
    if not compare_with_ort.host_runs(cpu_of(flags)):
        return dump, None
    got = compare_with_ort.run_kiln(args.kiln, artifact, inputs, names,
                                    os.path.join(args.workdir, label + "_out"))
    return dump, got


def checked_run(check, args, model_path, flags, label, inputs, names):
    """compile_and_run for one configuration of a test: a kilnc or kiln
    failure is a failed check (returns None, None); an artifact this host
    cannot run is a skipped one (returns dump, None)."""
    try:
        dump, got = compile_and_run(args, model_path, flags, label.replace(" ", "_"),
                                    inputs, names)
    except (RuntimeError, compare_with_ort.KilnRunError) as e:
        check(False, f"[{label}]: {e}")
        return None, None
    if got is None:
        check.skip(f"[{label}]: compiled, not run (this host cannot run "
                   f"{cpu_of(flags)} code)")
    return dump, got


def dispatches(dump):
    """(header, node names, config) of every dispatch in a --dump-dispatches,
    in order. The header is the `dispatch_N (called ...): ops -> type` line."""
    found, header, nodes = [], None, []
    for line in dump.splitlines():
        if re.match(r"^dispatch_\w+ \(called", line):
            header, nodes = line, []
        elif line.strip().startswith("nodes:"):
            nodes = re.findall(r'"([^"]+)"', line)
        elif line.strip().startswith("config:") and header is not None:
            found.append((header, nodes, line.strip()))
            header = None
    return found


def parse_args(description, prefix):
    """--kilnc, --kiln and --workdir (a new temporary folder named PREFIX...
    when not given), the arguments every conv test takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    args.workdir = args.workdir or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(args.workdir, exist_ok=True)
    return args


def save_model(graph, path):
    """Saves `graph` as an opset-13 model after shape inference and the ONNX
    checker, so a malformed test model fails here and not inside Kiln."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="kiln-tests")
    model.ir_version = 8
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def check_outputs(check, label, got, want, atol, rtol):
    """One check per output of `want`: max|got - want| <= atol + rtol *
    max|want| (an output missing from `got`, or of another shape, fails)."""
    for name in sorted(want):
        g, w = got.get(name), want[name]
        diff = float(np.max(np.abs(g.astype(np.float64) - w))) \
            if g is not None and g.shape == w.shape else float("inf")
        bound = atol + rtol * float(np.max(np.abs(w)))
        check(diff <= bound, f"{label} {name} {w.shape}: max|kiln - ort| = "
              f"{diff:.3g} (<= {bound:.3g})")
