#!/usr/bin/env python3
"""Fits the f32 erf approximation of compiler/targets/cpu/ErfApproximation.cpp
and reports its error evaluated in f32 (Horner with fused multiply-adds).

    erf(x) ~= a * P(a^2) / Q(a^2),  a = min(|x|, 4),  sign of x restored,

with P of degree 5 and Q of degree 5 (Q(0) = 1), fitted for least maximum
relative error on (0, 4] by Lawson's iteration (weighted least squares of the
linearized residual a P - erf Q, weights multiplied by each point's error).
erf(4) is 1 - 1.5e-8, which rounds to 1.0 in f32, so the clamp loses nothing.
The coefficients printed are the ones the C++ file holds (nearest f32).

usage: fit_erf.py        (needs numpy; about 10 s)
"""
from math import erf

import numpy as np

CLAMP = 4.0
P_DEGREE = 5
Q_DEGREE = 5


def fit():
    x = np.linspace(1e-4, CLAMP, 20000)
    y = np.array([erf(v) for v in x])
    s = x * x
    weights = np.ones_like(x)
    for _ in range(60):
        # Unknowns p0..p5, q1..q5: (a P(s) - erf * (1 + sum q_j s^j)) / erf.
        rows = np.concatenate(
            [x[:, None] * s[:, None] ** np.arange(P_DEGREE + 1)[None, :],
             -(y[:, None] * s[:, None] ** np.arange(1, Q_DEGREE + 1)[None, :])],
            axis=1) / y[:, None]
        root = np.sqrt(weights)
        solution, *_ = np.linalg.lstsq(rows * root[:, None], root, rcond=None)
        p = solution[:P_DEGREE + 1]
        q = np.concatenate([[1.0], solution[P_DEGREE + 1:]])
        approx = x * np.polyval(p[::-1], s) / np.polyval(q[::-1], s)
        error = np.abs(approx / y - 1)
        weights = np.maximum(weights * error / np.mean(weights * error), 1e-12)
    return p.astype(np.float32), q.astype(np.float32), error.max()


def erf_f32(x, p, q):
    """The kernel's evaluation, in f32 (FMA: product and sum rounded once)."""
    f = np.float32
    a = np.minimum(np.abs(f(x)), f(CLAMP))
    s = f(a * a)

    def horner(coefficients):
        acc = np.full_like(s, coefficients[-1])
        for c in coefficients[-2::-1]:
            acc = f(acc.astype(np.float64) * s + np.float64(c))
        return acc

    r = f(f(a * horner(p)) / horner(q))
    r = np.minimum(r, f(1))
    return np.copysign(r, x)


def main():
    p, q, double_error = fit()
    xs = np.float32(np.concatenate([np.linspace(0, 6, 600001)[1:],
                                    np.geomspace(1e-30, 1e-3, 2000)]))
    reference = np.array([erf(float(v)) for v in xs])
    got = erf_f32(xs, p, q).astype(np.float64)
    ulps = np.abs(got - reference) / np.spacing(np.float32(reference))
    print(f"max relative error of the rational (double): {double_error:.3g}")
    print(f"evaluated in f32 on [1e-30, 6]: max {ulps.max():.2f} ulp "
          f"(at x = {xs[ulps.argmax()]:.6g}), max abs error "
          f"{np.abs(got - reference).max():.3g}")
    print("P:", ", ".join(f"{float(c):.9g}" for c in p))
    print("Q:", ", ".join(f"{float(c):.9g}" for c in q))


if __name__ == "__main__":
    main()
