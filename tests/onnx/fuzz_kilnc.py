#!/usr/bin/env python3
"""Feeds kilnc corrupted and structurally mutated ONNX models.

kilnc must answer every input file with either IR or an error and exit code
1: never a crash (signal), an abort, another exit code, or a hang. Seeds are
the committed test models; each case either flips and truncates bytes, or
parses the model and changes attributes, dims, initializer shapes, node
inputs, op types or the opset. Seeded, so a run is reproducible.

Usage:
    ~/.cache/kiln/venv/bin/python tests/onnx/fuzz_kilnc.py --kilnc KILNC \\
        [--cases N] [--seed S] [--keep DIR]

The Bazel test //tests/onnx:fuzz_kilnc runs a few hundred cases.
"""

import argparse
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ODD_INTS = [-5, -1, 0, 1, 2, 3, 100, 2**40]


def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    if rng.random() < 0.2:
        data = data[: rng.randrange(len(data))]
    return bytes(data)


def mutate_structure(rng, model):
    graph = model.graph
    for _ in range(rng.randint(1, 3)):
        choice = rng.random()
        if choice < 0.3 and graph.node:
            node = rng.choice(graph.node)
            if node.attribute:
                attr = rng.choice(node.attribute)
                if attr.ints:
                    attr.ints[rng.randrange(len(attr.ints))] = rng.choice(ODD_INTS)
                elif attr.type == onnx.AttributeProto.INT:
                    attr.i = rng.choice(ODD_INTS)
                elif attr.type == onnx.AttributeProto.FLOAT:
                    attr.f = rng.choice([-1.0, 0.0, 1e30, float("nan")])
        elif choice < 0.5 and graph.input:
            dims = rng.choice(graph.input).type.tensor_type.shape.dim
            if dims:
                dims[rng.randrange(len(dims))].dim_value = rng.choice([0, 1, 3, 7, 1000])
        elif choice < 0.65 and graph.initializer:
            tensor = rng.choice(graph.initializer)
            if tensor.dims:
                tensor.dims[rng.randrange(len(tensor.dims))] = rng.choice([0, 1, 2, 5, 10**6])
        elif choice < 0.75 and graph.node:
            node = rng.choice(graph.node)
            if node.input:
                del node.input[rng.randrange(len(node.input))]
        elif choice < 0.85 and graph.node:
            rng.choice(graph.node).input.append(rng.choice([i.name for i in graph.input] or ["zz"]))
        elif choice < 0.92 and model.opset_import:
            model.opset_import[0].version = rng.choice([6, 7, 9, 11, 13, 18, 23])
        elif len(graph.node) > 1:
            a, b = rng.sample(range(len(graph.node)), 2)
            graph.node[a].op_type, graph.node[b].op_type = graph.node[b].op_type, graph.node[a].op_type
    return model.SerializeToString()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", help="directory to copy failing cases into")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    seeds = sorted(glob.glob(os.path.join(HERE, "models", "*.onnx")))
    problems = []
    with tempfile.TemporaryDirectory(prefix="kiln-fuzz-") as scratch:
        case_path = os.path.join(scratch, "case.onnx")
        for index in range(args.cases):
            seed_path = rng.choice(seeds)
            with open(seed_path, "rb") as f:
                data = f.read()
            if rng.random() < 0.5:
                data = mutate_bytes(rng, data)
            else:
                try:
                    data = mutate_structure(rng, onnx.load_from_string(data))
                except Exception:  # a seed onnx itself cannot parse (truncated.onnx)
                    data = mutate_bytes(rng, data)
            with open(case_path, "wb") as f:
                f.write(data)
            try:
                proc = subprocess.run([args.kilnc, case_path], capture_output=True, timeout=60)
                verdict = None if proc.returncode in (0, 1) else f"exit code {proc.returncode}"
                detail = proc.stderr.decode(errors="replace")[-800:]
            except subprocess.TimeoutExpired:
                verdict, detail = "hang (60 s)", ""
            if verdict:
                problems.append(f"case {index} from {os.path.basename(seed_path)}: {verdict}\n{detail}")
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    shutil.copy(case_path, os.path.join(args.keep, f"case{index}.onnx"))
    for problem in problems:
        print("FAIL", problem)
    print(f"{args.cases} cases, {len(problems)} crashes or hangs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
