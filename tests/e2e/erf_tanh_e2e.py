#!/usr/bin/env python3
"""Erf, erf GELU and Tanh on the CPU kernels' rational approximations
(erf: compiler/targets/cpu/ErfApproximation.cpp; tanh: MLIR's clamped
rational), checked against onnxruntime and against the functions
themselves (Python's math.erf and numpy's tanh in double), never against
Kiln.

One model, four outputs:
  erf_out   Erf of a [4, 1024] input that holds a dense grid over [-6, 6],
            the clamp's neighbourhood (3.9 .. 4.1), tiny and subnormal
            values, +-0, +-inf and NaN;
  gelu_out  0.5 * x * (1 + Erf(x / sqrt(2))) (the PyTorch exporters' GELU,
            whose division becomes a multiply) on the same input after a
            MatMul, as in a transformer's FFN: the erf is the matmul's
            epilogue;
  erf_small Erf of a 7-element input (a vector loop's remainder only);
  tanh_out  Tanh of the erf input scaled by 2 (past tanh's clamp at 7.9).

Kiln compiles the model under --cpu=native, x86-64-v4 and x86-64-v3 (f32)
and --precision=bf16 / fp16 (x86-64-v3; the matmul in 16 bits, erf itself
stays f32 or is widened to it). f32 checks: erf within 4e-7 of
math.erf (the approximation's bound in f32 is 3.3e-7, scripts/fit_erf.py)
and within 5e-7 of onnxruntime; NaN stays NaN, +-inf gives +-1, -0 stays
-0 (sign bit), and no value leaves [-1, 1]; GELU within 1e-6 * max|ort|;
tanh within 4 ulp of tanh (relative, so tiny inputs keep their digits:
the exp-based expansion used before returned 0 for 1e-30) and within
4e-7 of onnxruntime, with the same special values as erf.
16-bit builds: GELU within 1% of max|ort|.

Prints one line per check and ends with 'N passed, N failed, N not run on
this host'; exit status 1 when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/erf_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import math
import os
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conv_checks import (Checks, parse_args, save_model, checked_run,  # noqa: E402
                         check_outputs)

ROWS, COLS, HIDDEN = 4, 1024, 96
OUTPUTS = ["erf_out", "gelu_out", "erf_small", "tanh_out"]


def erf_input():
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e-40,
                        -1e-40, 1e-7, 3.92, 3.9999998, 4.0, 4.0000005, 1e30, -1e30],
                       dtype=np.float32)
    near_clamp = np.linspace(3.9, 4.1, 200, dtype=np.float32)
    grid = np.linspace(-6, 6, ROWS * COLS - special.size - 2 * near_clamp.size,
                       dtype=np.float32)
    values = np.concatenate([special, near_clamp, -near_clamp, grid])
    np.random.default_rng(11).shuffle(values)
    return values.reshape(ROWS, COLS)


def make_model(path, seed=7):
    rng = np.random.default_rng(seed)
    weight = rng.normal(0, 1.5 / np.sqrt(HIDDEN), (HIDDEN, COLS)).astype(np.float32)
    scalar = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)  # noqa: E731
    inits = [numpy_helper.from_array(weight, "w"), scalar("sqrt2", math.sqrt(2.0)),
             scalar("one", 1.0), scalar("half", 0.5)]
    nodes = [
        helper.make_node("Erf", ["x"], ["erf_out"], name="erf"),
        helper.make_node("MatMul", ["h", "w"], ["m"], name="ffn_up"),
        helper.make_node("Div", ["m", "sqrt2"], ["d"], name="gelu_div"),
        helper.make_node("Erf", ["d"], ["e"], name="gelu_erf"),
        helper.make_node("Add", ["e", "one"], ["e1"], name="gelu_add"),
        helper.make_node("Mul", ["m", "e1"], ["g"], name="gelu_mul"),
        helper.make_node("Mul", ["g", "half"], ["gelu_out"], name="gelu_half"),
        helper.make_node("Erf", ["s"], ["erf_small"], name="erf_small"),
        helper.make_node("Tanh", ["t"], ["tanh_out"], name="tanh"),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, (ROWS, COLS)),
              helper.make_tensor_value_info("h", TensorProto.FLOAT, (ROWS * 16, HIDDEN)),
              helper.make_tensor_value_info("s", TensorProto.FLOAT, (7,)),
              helper.make_tensor_value_info("t", TensorProto.FLOAT, (ROWS, COLS))]
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in OUTPUTS]
    return save_model(helper.make_graph(nodes, "erf", inputs, outputs, inits), path)


def check_odd_saturating(check, label, got, x, want_ort, name, fn, ort_bound):
    """The properties erf and tanh share (odd, in [-1, 1], NaN in NaN out,
    +-1 at +-inf, -0 kept) and the distance from ORT; for erf the absolute
    distance from math.erf, for tanh the distance in ulps from numpy's."""
    finite = ~np.isnan(x)
    if got is None or got.shape != x.shape:
        check(False, f"{label} {name}: missing or misshapen output")
        return
    if fn == "erf":
        exact = np.vectorize(lambda v: math.erf(v) if not math.isnan(v) else math.nan)(
            x.astype(np.float64))
        err = float(np.max(np.abs(got[finite].astype(np.float64) - exact[finite])))
        check(err <= 4e-7, f"{label} {name}: max|kiln - erf| = {err:.3g} (<= 4e-07)")
    else:
        exact = np.tanh(x.astype(np.float64))
        ulp = np.spacing(np.abs(np.float32(exact[finite]))).astype(np.float64)
        err = float(np.max(np.abs(got[finite].astype(np.float64) - exact[finite]) / ulp))
        check(err <= 4, f"{label} {name}: max |kiln - tanh| = {err:.3g} ulp (<= 4)")
    err_ort = float(np.max(np.abs(got[finite].astype(np.float64) - want_ort[finite])))
    check(err_ort <= ort_bound,
          f"{label} {name}: max|kiln - ort| = {err_ort:.3g} (<= {ort_bound:.3g})")
    check(bool(np.all(np.isnan(got[~finite]))), f"{label} {name}: NaN in, NaN out")
    check(bool(np.all(np.abs(got[finite]) <= 1)), f"{label} {name}: |{fn}| <= 1 everywhere")
    inf = np.isinf(x)
    check(bool(np.all(got[inf] == np.sign(x[inf]))), f"{label} {name}: {fn}(+-inf) = +-1")
    zero = x == 0
    check(bool(np.all(np.signbit(got[zero]) == np.signbit(x[zero])) and
               np.all(got[zero] == 0)), f"{label} {name}: {fn}(+-0) = +-0")


def main():
    args = parse_args(__doc__.splitlines()[0], "kiln-erf-")
    check = Checks()
    model = make_model(os.path.join(args.workdir, "erf.onnx"))
    rng = np.random.default_rng(5)
    inputs = {"x": erf_input(),
              "h": rng.normal(0, 1, (ROWS * 16, HIDDEN)).astype(np.float32),
              "s": np.array([-2.5, -0.3, 0.0, 0.7, 1.9, 3.3, 8.0], np.float32)}
    inputs["t"] = inputs["x"] * np.float32(2)
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, inputs)))
    configs = [
        ("native", ["--cpu=native"], None),
        ("x86-64-v4", ["--cpu=x86-64-v4"], None),
        ("x86-64-v3", ["--cpu=x86-64-v3"], None),
        ("bf16 x86-64-v3", ["--cpu=x86-64-v3", "--precision=bf16"], 0.01),
        ("fp16 x86-64-v3", ["--cpu=x86-64-v3", "--precision=fp16"], 0.01),
    ]
    for label, flags, rtol in configs:
        _, got = checked_run(check, args, model, flags, label, inputs, OUTPUTS)
        if got is None:
            continue
        if rtol is None:
            for name, source, fn, bound in [("erf_out", "x", "erf", 5e-7),
                                            ("erf_small", "s", "erf", 5e-7),
                                            ("tanh_out", "t", "tanh", 4e-7)]:
                check_odd_saturating(check, f"[{label}]", got.get(name), inputs[source],
                                     want[name], name, fn, bound)
            check_outputs(check, f"[{label}]", {"gelu_out": got.get("gelu_out")},
                          {"gelu_out": want["gelu_out"]}, 0, 1e-6)
        else:
            check_outputs(check, f"[{label}]", {"gelu_out": got.get("gelu_out")},
                          {"gelu_out": want["gelu_out"]}, 0, rtol)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
