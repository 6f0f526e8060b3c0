#!/usr/bin/env python3
"""Compares `kiln run --output-dir` .npy files with onnxruntime's reference
.npy files, with nothing but the Python standard library (the GPU machine
may have no numpy).

    compare_outputs.py DATA_DIR MODEL_NAME RUN_OUTPUT_DIR [--atol A] [--rtol R]

Prints one line per output and exits 0 when all are within
|got - ref| <= atol + rtol * |ref| (and finite), 1 otherwise.
"""

import array
import ast
import json
import math
import os
import sys

CODES = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "|b1": "b", "|u1": "B", "|i1": "b"}


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    major = data[6]
    if major == 1:
        n, start = int.from_bytes(data[8:10], "little"), 10
    else:
        n, start = int.from_bytes(data[8:12], "little"), 12
    header = ast.literal_eval(data[start:start + n].decode("latin1"))
    if header["fortran_order"]:
        raise ValueError(f"{path}: Fortran order")
    code = CODES.get(header["descr"])
    if code is None:
        raise ValueError(f"{path}: dtype {header['descr']} not handled")
    values = array.array(code)
    values.frombytes(data[start + n:])
    return tuple(header["shape"]), values


def main():
    args = sys.argv[1:]
    atol = rtol = 1e-3
    if "--atol" in args:
        i = args.index("--atol"); atol = float(args[i + 1]); del args[i:i + 2]
    if "--rtol" in args:
        i = args.index("--rtol"); rtol = float(args[i + 1]); del args[i:i + 2]
    data_dir, name, run_dir = args
    with open(os.path.join(data_dir, "manifest.json")) as f:
        entry = next(m for m in json.load(f)["models"] if m["name"] == name)
    ok = True
    for output, ref_file in entry["outputs"].items():
        safe = "".join(c if (c.isalnum() or c in "._-") else "_" for c in output)
        got_path = os.path.join(run_dir, safe + ".npy")
        if not os.path.exists(got_path):
            print(f"  {name}/{output}: MISSING ({got_path})")
            ok = False
            continue
        ref_shape, ref = read_npy(os.path.join(data_dir, ref_file))
        got_shape, got = read_npy(got_path)
        if ref_shape != got_shape or len(ref) != len(got):
            print(f"  {name}/{output}: SHAPE {got_shape} vs reference {ref_shape}")
            ok = False
            continue
        worst, bad = 0.0, 0
        for g, r in zip(got, ref):
            d = abs(float(g) - float(r))
            if not math.isfinite(float(g)) or d > atol + rtol * abs(float(r)):
                bad += 1
            worst = max(worst, d if math.isfinite(d) else float("inf"))
        status = "ok" if bad == 0 else f"MISMATCH ({bad} of {len(ref)} elements)"
        print(f"  {name}/{output}: {status}, max abs error {worst:.3g}")
        ok = ok and bad == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
