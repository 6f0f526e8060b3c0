"""Checks Kiln's Paddle readers against Paddle's own view of the models.

    python check_readers.py --dump PADDLE_DUMP --models-dir DIR

DIR is what gen_models.py wrote (DIR/<model>/<form>/manifest.json beside
the model files). For every model and form, `paddle-dump` (the readers,
through loadPaddleModel) must report the format, the feeds by name, the
fetch count, exactly the op types and counts Paddle lists, and exactly the
saved parameters with Paddle's dtype, shape and element sum (the sums check
that every parameter got its own bytes: the file holds no names, the order
is the readers' claim). Also checks that a truncated copy of each
.pdiparams and a params file of the other model are refused, naming the
file. Prints one line per model and form; exits 1 on any mismatch.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile


def run_dump(dump, model, params=None):
    command = [dump, model] + ([f"--params={params}"] if params else [])
    return subprocess.run(command, capture_output=True, text=True)


def check_one(dump, directory, failures):
    with open(os.path.join(directory, "manifest.json")) as f:
        manifest = json.load(f)
    label = f"{manifest['model']} ({manifest['form']})"
    problems = []
    result = run_dump(dump, os.path.join(directory, manifest["model_file"]))
    if result.returncode != 0:
        failures.append(f"{label}: paddle-dump failed: {result.stderr.strip()}")
        return None
    got = json.loads(result.stdout)

    want_format = "pir" if manifest["form"] == "pir" else "pdmodel"
    if got["format"] != want_format:
        problems.append(f"format {got['format']}, expected {want_format}")
    feeds = [feed["name"] for feed in got["feeds"]]
    if feeds != manifest["feeds"]:
        problems.append(f"feeds {feeds}, Paddle says {manifest['feeds']}")
    if len(got["fetches"]) != manifest["fetch_count"]:
        problems.append(f"{len(got['fetches'])} fetches, Paddle says "
                        f"{manifest['fetch_count']}")
    if got["op_counts"] != manifest["ops"]:
        keys = sorted(set(got["op_counts"]) | set(manifest["ops"]))
        diff = {k: (got["op_counts"].get(k), manifest["ops"].get(k))
                for k in keys
                if got["op_counts"].get(k) != manifest["ops"].get(k)}
        problems.append(f"op counts differ (Kiln, Paddle): {diff}")
    if sorted(got["params"]) != sorted(manifest["params"]):
        missing = sorted(set(manifest["params"]) - set(got["params"]))
        extra = sorted(set(got["params"]) - set(manifest["params"]))
        problems.append(f"parameters differ: missing {missing[:5]}, "
                        f"extra {extra[:5]}")
    for name, want in manifest["params"].items():
        have = got["params"].get(name)
        if have is None:
            continue
        if have["dtype"] != want["dtype"] or have["dims"] != want["shape"]:
            problems.append(f"parameter {name}: {have['dtype']} "
                            f"{have['dims']}, Paddle says {want['dtype']} "
                            f"{want['shape']}")
        elif not math.isclose(have["sum"], want["sum"], rel_tol=1e-9,
                              abs_tol=1e-9):
            problems.append(f"parameter {name}: element sum {have['sum']}, "
                            f"Paddle says {want['sum']}")

    # A cut .pdiparams is refused with the file named.
    params = os.path.join(directory, manifest["params_file"])
    with tempfile.TemporaryDirectory() as scratch:
        cut = os.path.join(scratch, "cut.pdiparams")
        with open(params, "rb") as source, open(cut, "wb") as target:
            data = source.read()
            target.write(data[: len(data) // 2])
        result = run_dump(dump, os.path.join(directory, manifest["model_file"]),
                          cut)
        if result.returncode != 1 or f"{cut}: parameter '" not in result.stderr:
            problems.append(f"a truncated .pdiparams gave status "
                            f"{result.returncode}: {result.stderr.strip()}")
    if problems:
        failures.extend(f"{label}: {p}" for p in problems)
    else:
        print(f"ok {label}: {got['ops']} ops, {len(got['params'])} "
              f"parameters, {len(got['feeds'])} feeds, "
              f"{len(got['fetches'])} fetches")
    return params


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dump", required=True)
    parser.add_argument("--models-dir", required=True)
    args = parser.parse_args()
    failures = []
    directories = sorted(
        os.path.join(root) for root, _, files in os.walk(args.models_dir)
        if "manifest.json" in files)
    if not directories:
        sys.exit(f"check_readers.py: no models under {args.models_dir}")
    params_files = {}
    for directory in directories:
        params_files[directory] = check_one(args.dump, directory, failures)

    # Another model's parameters: refused (count or shape), file named.
    if len(directories) >= 2:
        first, second = directories[0], directories[-1]
        with open(os.path.join(first, "manifest.json")) as f:
            model_file = json.load(f)["model_file"]
        other = params_files[second]
        result = run_dump(args.dump, os.path.join(first, model_file), other)
        if result.returncode != 1 or other not in result.stderr:
            failures.append(f"{first} with {other}: status "
                            f"{result.returncode}: {result.stderr.strip()}")
        else:
            print(f"ok another model's parameters refused: "
                  f"{result.stderr.strip()}")

    for failure in failures:
        print("FAIL " + failure)
    print(f"check_readers: {len(directories)} models, {len(failures)} "
          f"failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
