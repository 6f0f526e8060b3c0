#!/usr/bin/env python3
"""//examples/custom_pass:custom_pass_test: the example plugin changes the
compiled artifact and not the answers.

Writes the feed-forward block of make_layer_norm_model.py (two LayerNorms
written out as nine nodes each), compiles it with and without
--load-pass-plugin=libKilnExampleFuseLayerNorm.so and checks:
  - the dispatch list (kilnc --dump-dispatches) and the artifact's plan
    (kiln inspect): 6 kernels / 10 steps without the plugin, 3 kernels /
    4 steps with it, one dispatch computing all nine nodes of each
    LayerNorm;
  - kilnc --emit=kiln: two kiln.layer_norm ops with the plugin, none
    without;
  - both artifacts match onnxruntime on the same random input.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

LAYER_NORM_NODES = ["ReduceMean", "Sub", "Pow", "ReduceMean_1", "Add", "Sqrt",
                    "Div", "Mul", "Add_1"]


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {proc.returncode}:\n"
                 f"{proc.stdout}{proc.stderr}")
    return proc


def dispatches(dump):
    """{dispatch name: (calls, [node lists, one per call])} from --dump-dispatches."""
    result, current = {}, None
    for line in dump.splitlines():
        m = re.match(r"(dispatch_\d+) \(called (\d+)x\):", line)
        if m:
            current = m.group(1)
            result[current] = (int(m.group(2)), [])
        elif current and line.startswith("  nodes:"):
            result[current][1].append(re.findall(r'"([^"]*)"', line))
    return result


def plan(inspect):
    kernels = re.findall(r"^\s+kernel \d+: (\S+)", inspect, re.M)
    steps = re.search(r"^plan \(x86_64\): (\d+) steps", inspect, re.M)
    return len(kernels), int(steps.group(1)) if steps else None


def check(condition, message):
    if not condition:
        sys.exit("FAIL: " + message)
    print("ok: " + message)


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--kilnc", "--kiln", "--plugin", "--make-model", "--compare-with-ort",
                 "--workdir"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    model = os.path.join(args.workdir, "ffn_block.onnx")
    run([sys.executable, args.make_model, model])

    builds = {}
    for label, extra in (("without", []), ("with", ["--load-pass-plugin=" + args.plugin])):
        artifact = os.path.join(args.workdir, f"{label}_plugin.kiln")
        dump = run([args.kilnc, model, "-o", artifact, "--dump-dispatches"] + extra).stderr
        kiln_ir = run([args.kilnc, model, "--emit=kiln"] + extra).stdout
        inspect = run([args.kiln, "inspect", artifact]).stdout
        builds[label] = (artifact, dispatches(dump), kiln_ir, plan(inspect))
        print(f"{label} the plugin: {len(builds[label][1])} dispatches, "
              f"kernels/steps {builds[label][3]}")

    _, base, base_ir, base_plan = builds["without"]
    _, fused, fused_ir, fused_plan = builds["with"]
    check(base_plan == (6, 10), f"without the plugin: 6 kernels, 10 steps (got {base_plan})")
    check(fused_plan == (3, 4), f"with the plugin: 3 kernels, 4 steps (got {fused_plan})")
    check(len(base) == 6 and len(fused) == 3,
          f"--dump-dispatches lists 6, then 3 dispatches (got {len(base)}, {len(fused)})")
    check(base_ir.count("kiln.layer_norm") == 0 and fused_ir.count("kiln.layer_norm") == 2,
          "kilnc --emit=kiln: no kiln.layer_norm without the plugin, two with it")
    check(base_ir.count("kiln.reduce mean") == 4 and fused_ir.count("kiln.reduce") == 0,
          "the plugin leaves none of the four written-out ReduceMeans")
    # Without the plugin no dispatch computes a whole LayerNorm; with it, one
    # dispatch (called once per LayerNorm) computes all nine nodes of each.
    for prefix in ("ln1", "ln2"):
        want = [f"{prefix}/{n}" for n in LAYER_NORM_NODES]
        whole = [name for name, (_, calls) in fused.items()
                 if any(sorted(nodes) == sorted(want) for nodes in calls)]
        check(len(whole) == 1, f"with the plugin one dispatch computes all of {prefix}")
        check(not any(set(want) <= set(nodes) for _, calls in base.values() for nodes in calls),
              f"without the plugin {prefix} is split over several dispatches")

    # Same answers: both artifacts against onnxruntime.
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.compare_with_ort)))
    import compare_with_ort  # noqa: E402
    rng = np.random.default_rng(5)
    x = rng.normal(0.0, 2.0, (16, 32)).astype(np.float32)
    want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    for label in ("without", "with"):
        got = compare_with_ort.run_kiln(args.kiln, builds[label][0], {"x": x}, ["y"],
                                        os.path.join(args.workdir, label + "_out"))["y"]
        error = float(np.max(np.abs(got.astype(np.float64) - want)))
        check(got.shape == want.shape and np.allclose(got, want, atol=1e-4, rtol=1e-4),
              f"{label} the plugin: matches onnxruntime (max abs error {error:.2e})")
    print("PASS")


if __name__ == "__main__":
    main()
