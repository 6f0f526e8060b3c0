#!/usr/bin/env python3
"""//examples/custom_op:custom_op_test: com.example::Swish end to end.

A generated model y = Swish(x @ W; beta) + b (make_swish_model.py), compiled
by kilnc with each example plugin and run by the runtime, against NumPy:
  - without a plugin, kilnc gives the importer's usual unsupported-op report;
  - kind (a), the lowering plugin: Swish fuses into the MatMul's dispatch
    (kilnc --dump-dispatches) and the artifact has no custom call;
  - kind (b), the kernel plugin: the artifact has a CustomCall step; loading
    it without the kernel fails naming the op and node; with the kernel from
    libswish_kernels.so (kiln run --custom-op-library) or registered by
    function pointer (run_swish) the outputs match;
  - the kernel's own error (beta = -1) and the shape function's (an INT beta)
    come back naming the op and node.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np


def run(cmd, expect_ok=True):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if expect_ok and proc.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
    if not expect_ok and proc.returncode == 0:
        sys.exit(f"FAIL: {' '.join(cmd)} succeeded; expected a failure")
    return proc


def expect_in(text, needle, what):
    if needle not in text:
        sys.exit(f"FAIL: {what}: expected to find\n  {needle}\nin:\n{text}")


def check_close(got, want, what):
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    bound = 1e-5 + 1e-4 * np.abs(want)
    if got.shape != want.shape or not np.all(err <= bound):
        sys.exit(f"FAIL: {what}: max abs error {err.max():.3g} (shape {got.shape})")
    print(f"ok: {what}: max abs error {err.max():.2e} against NumPy")


def main():
    p = argparse.ArgumentParser()
    for flag in ["kilnc", "kiln", "lowering-plugin", "kernel-plugin", "kernel-library",
                 "run-swish", "make-model"]:
        p.add_argument("--" + flag, required=True)
    a = p.parse_args()
    tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    path = lambda name: os.path.join(tmp, name)
    py = sys.executable

    run([py, a.make_model, path("swish.onnx"), "--reference", path("x.npy"), path("y_ref.npy")])
    x, want = np.load(path("x.npy")), np.load(path("y_ref.npy"))

    # No plugin: the importer's report.
    proc = run([a.kilnc, path("swish.onnx"), "-o", path("none.kiln")], expect_ok=False)
    expect_in(proc.stderr, "uses 1 ONNX operator type(s) Kiln does not support:", "no plugin")
    expect_in(proc.stderr, "com.example::Swish (opset 1), 1 node(s): 'swish'", "no plugin")
    print("ok: without a plugin, kilnc reports com.example::Swish as unsupported")

    # Kind (a): lowered, fused into the MatMul's dispatch.
    proc = run([a.kilnc, path("swish.onnx"), "--load-pass-plugin=" + a.lowering_plugin,
                "--dump-dispatches", "-o", path("lowered.kiln")])
    dump = proc.stderr
    if "custom_call" in dump:
        sys.exit(f"FAIL: kind (a) left a custom call:\n{dump}")
    fused = [line for line in dump.splitlines() if line.startswith("  nodes:")
             and '"matmul"' in line and '"swish"' in line]
    if not fused:
        sys.exit(f"FAIL: kind (a): no dispatch computes both 'matmul' and 'swish':\n{dump}")
    print(f"ok: kind (a): one dispatch computes{fused[0][len('  nodes:'):]}")
    inspect = run([a.kiln, "inspect", path("lowered.kiln")]).stdout
    if "custom" in inspect:
        sys.exit(f"FAIL: kind (a) artifact mentions a custom call:\n{inspect}")
    run([a.kiln, "run", path("lowered.kiln"), "--input", "x=" + path("x.npy"),
         "--output-dir", path("out_a")])
    check_close(np.load(path("out_a/y.npy")), want, "kind (a) output")

    # Kind (b): a CustomCall step.
    proc = run([a.kilnc, path("swish.onnx"), "--load-pass-plugin=" + a.kernel_plugin,
                "--dump-dispatches", "-o", path("external.kiln")])
    expect_in(proc.stderr, 'custom_call "com.example.Swish" (external kernel): '
              "tensor<8x64xf32>  -> tensor<8x64xf32>\n  nodes: \"swish\"", "kind (b) dump")
    inspect = run([a.kiln, "inspect", path("external.kiln")]).stdout
    expect_in(inspect, "custom call com.example.Swish (node 'swish')", "kind (b) inspect")
    expect_in(inspect, "custom ops needed: com.example.Swish", "kind (b) inspect")
    proc = run([a.kiln, "run", path("external.kiln"), "--input", "x=" + path("x.npy")],
               expect_ok=False)
    expect_in(proc.stderr, "custom op(s) 'com.example.Swish' (node 'swish') that this Runtime "
              "has no kernel for", "kind (b) without its kernel")
    print("ok: kind (b): loading without the kernel fails naming op and node")
    run([a.kiln, "run", path("external.kiln"), "--custom-op-library", a.kernel_library,
         "--input", "x=" + path("x.npy"), "--output-dir", path("out_b")])
    check_close(np.load(path("out_b/y.npy")), want, "kind (b) output, kernel from the library")
    x.tofile(path("x.f32"))
    run([a.run_swish, path("external.kiln"), path("x.f32"), path("y.f32")])
    check_close(np.fromfile(path("y.f32"), np.float32).reshape(want.shape), want,
                "kind (b) output, kernel registered by function pointer")

    # The kernel's error.
    run([py, a.make_model, path("negative.onnx"), "--beta", "-1"])
    run([a.kilnc, path("negative.onnx"), "--load-pass-plugin=" + a.kernel_plugin,
         "-o", path("negative.kiln")])
    proc = run([a.kiln, "run", path("negative.kiln"), "--custom-op-library", a.kernel_library],
               expect_ok=False)
    expect_in(proc.stderr, "custom op 'com.example.Swish' (node 'swish') failed with code 3: "
              "beta must be positive, got -1", "kernel error")
    print("ok: the kernel's error names the op, node, code and message")

    # The shape function's error.
    run([py, a.make_model, path("int_beta.onnx"), "--int-beta"])
    proc = run([a.kilnc, path("int_beta.onnx"), "--load-pass-plugin=" + a.kernel_plugin,
                "-o", path("int_beta.kiln")], expect_ok=False)
    expect_in(proc.stderr, "node 'swish' (Swish): the shape function of custom op "
              "'com.example.Swish' failed: Swish's attribute 'beta' must be a FLOAT",
              "shape function error")
    print("ok: the shape function's error names the node")
    print("PASS")


if __name__ == "__main__":
    main()
