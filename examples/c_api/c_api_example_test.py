"""Checks examples/c_api's program: its outputs against onnxruntime, and
each error path's exit status and message (with nothing on stdout).

Also run by scripts/install.sh's test on the copies built outside Bazel
(pkg-config and CMake), so both builds are held to the same checks.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import onnxruntime as ort

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(args, limit_kib=None):
    """Runs the example; returns (exit status, stdout, stderr)."""
    preexec = None
    if limit_kib is not None:
        import resource

        def preexec():
            resource.setrlimit(resource.RLIMIT_AS, (limit_kib * 1024, limit_kib * 1024))

    p = subprocess.run(args, capture_output=True, text=True, timeout=120, preexec_fn=preexec)
    return p.returncode, p.stdout, p.stderr


def parse_outputs(stdout):
    """'output NAME: DTYPE [DIMS]' + a line of values, per output."""
    lines = stdout.splitlines()
    outputs = {}
    for i in range(0, len(lines) - 1, 2):
        m = re.fullmatch(r"output (\S+): (\w+) \[([0-9,]*)\]", lines[i])
        if not m:
            raise ValueError(f"unexpected line {lines[i]!r}")
        dims = [int(d) for d in m.group(3).split(",") if d]
        values = np.array([float(v) for v in lines[i + 1].split()], dtype=np.float64)
        outputs[m.group(1)] = (m.group(2), dims, values)
    if len(lines) % 2:
        raise ValueError(f"odd number of lines: {stdout!r}")
    return outputs


def check_numerics(example, artifact, onnx_path, workdir):
    rng = np.random.default_rng(11)
    session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    for sample in range(3):
        feeds, args = {}, []
        for i, info in enumerate(session.get_inputs()):
            x = rng.standard_normal(info.shape).astype(np.float32)
            path = os.path.join(workdir, f"input_{sample}_{i}.npy")
            np.save(path, x)
            feeds[info.name] = x
            args.append(f"{info.name}={path}")
        expected = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
        for threads in ["1", "2"]:
            rc, out, err = run([example, artifact, *args, "--threads", threads])
            what = f"sample {sample}, {threads} thread(s)"
            check(rc == 0 and err == "", f"{what}: exit {rc}, stderr {err!r}")
            if rc != 0:
                continue
            got = parse_outputs(out)
            check(sorted(got) == sorted(expected), f"{what}: outputs {sorted(got)}")
            for name, want in expected.items():
                if name not in got:
                    continue
                dtype, dims, values = got[name]
                check(dtype == "f32" and dims == list(want.shape),
                      f"{what}: output {name} is {dtype} {dims}, onnxruntime's {want.shape}")
                if values.size != want.size:
                    check(False, f"{what}: output {name} has {values.size} values")
                    continue
                err_max = np.max(np.abs(values - want.ravel()))
                check(np.allclose(values, want.ravel(), atol=1e-5, rtol=1e-4),
                      f"{what}: output {name} differs from onnxruntime by {err_max}")
    print(f"numerics: 3 samples x 2 thread counts match onnxruntime")


def check_errors(example, artifact, workdir):
    good = os.path.join(workdir, "good.npy")
    np.save(good, np.zeros((1, 3, 32, 32), np.float32))

    def npy(name, array):
        path = os.path.join(workdir, name)
        np.save(path, array)
        return path

    def raw(name, data):
        path = os.path.join(workdir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    artifact_bytes = open(artifact, "rb").read()
    flipped = bytearray(artifact_bytes)
    flipped[len(flipped) // 2] ^= 0x40
    good_npy = open(good, "rb").read()
    missing = os.path.join(workdir, "missing.kiln")

    # (what, args, exit status, regex the stderr must match)
    cases = [
        ("no arguments", [], 2, r"^usage: c_api_example MODEL\.kiln"),
        ("unknown option", [artifact, "--fast"], 2, r"unknown option '--fast'"),
        ("bad --threads", [artifact, f"image={good}", "--threads", "x"], 2,
         r"--threads needs a count"),
        ("not NAME=FILE", [artifact, "image"], 2, r"'image' is not NAME=FILE\.npy"),
        ("missing artifact", [missing, f"image={good}"], 1,
         r"loading '.*missing\.kiln': KILN_NOT_FOUND: cannot open .*No such file"),
        ("a folder as artifact", [workdir, f"image={good}"], 1,
         r"loading '.*': KILN_\w+: "),
        ("text file as artifact", [raw("text.kiln", b"not an artifact\n"), f"image={good}"], 1,
         r"loading '.*text\.kiln': KILN_DATA_LOSS: .*corrupted artifact"),
        ("truncated artifact",
         [raw("truncated.kiln", artifact_bytes[: len(artifact_bytes) // 3]), f"image={good}"], 1,
         r"loading '.*truncated\.kiln': KILN_DATA_LOSS: .*truncated"),
        ("flipped byte in artifact", [raw("flipped.kiln", bytes(flipped)), f"image={good}"], 1,
         r"loading '.*flipped\.kiln': KILN_DATA_LOSS: "),
        ("wrong input name", [artifact, f"imag={good}"], 1,
         r"inputs are: image \(f32 \[1,3,32,32\]\)\n.*input 'imag': KILN_NOT_FOUND: "
         r"no input named 'imag'"),
        ("input not given", [artifact], 2,
         r"input 'image' \(f32 \[1,3,32,32\]\) is not given; pass image=FILE\.npy"),
        ("input given twice", [artifact, f"image={good}", f"image={good}"], 2,
         r"input 'image' is given twice"),
        ("wrong shape", [artifact, "image=" + npy("shape.npy", np.zeros((1, 3, 32, 31), np.float32))],
         1, r"running: KILN_INVALID_ARGUMENT: input 'image': expected shape \[1,3,32,32\] f32, "
            r"got \[1,3,32,31\] f32"),
        ("wrong rank", [artifact, "image=" + npy("rank.npy", np.zeros((3, 32, 32), np.float32))],
         1, r"KILN_INVALID_ARGUMENT: input 'image': expected shape \[1,3,32,32\] f32, got \[3,32,32\]"),
        ("wrong dtype", [artifact, "image=" + npy("dtype.npy", np.zeros((1, 3, 32, 32), np.float64))],
         1, r"KILN_INVALID_ARGUMENT: input 'image': expected shape \[1,3,32,32\] f32, "
            r"got \[1,3,32,32\] f64"),
        ("input file missing", [artifact, "image=" + os.path.join(workdir, "none.npy")], 2,
         r"input 'image': .*none\.npy: cannot open: No such file"),
        ("input not .npy", [artifact, "image=" + raw("text.npy", b"1 2 3\n")], 2,
         r"not a \.npy file"),
        ("input dtype without a Kiln dtype",
         [artifact, "image=" + npy("complex.npy", np.zeros((1, 3, 32, 32), np.complex64))], 2,
         r"element type '<c8' has no Kiln dtype"),
        ("Fortran-order input",
         [artifact, "image=" + npy("fortran.npy", np.asfortranarray(np.zeros((1, 3, 32, 32), np.float32)))],
         2, r"Fortran-order arrays are not supported"),
        ("truncated input", [artifact, "image=" + raw("short.npy", good_npy[:-4])], 2,
         r"truncated: the shape needs 12288 data bytes"),
        ("input with extra bytes", [artifact, "image=" + raw("long.npy", good_npy + b"\0")], 2,
         r"12288 data bytes expected, the file has more"),
        # Worker threads cannot start in a 150 MiB address space (8 MiB
        # stacks): the runtime reports it, the program cleans up.
        ("threads that cannot start", [artifact, f"image={good}", "--threads", "64"], 1,
         r"creating the runtime: KILN_RESOURCE_EXHAUSTED: "),
    ]
    for what, args, want_rc, pattern in cases:
        limit = 150 * 1024 if what == "threads that cannot start" else None
        rc, out, err = run([example, *args], limit_kib=limit)
        ok = rc == want_rc and out == "" and re.search(pattern, err, re.S)
        check(ok, f"{what}: exit {rc} (want {want_rc}), stdout {out!r}, stderr {err!r}, "
                  f"want /{pattern}/")
    print(f"errors: {len(cases)} cases")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--example", required=True)
    parser.add_argument("--artifact", required=True)
    parser.add_argument("--onnx", required=True)
    parser.add_argument("--workdir", required=True)
    a = parser.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    check_numerics(a.example, a.artifact, a.onnx, a.workdir)
    check_errors(a.example, a.artifact, a.workdir)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
