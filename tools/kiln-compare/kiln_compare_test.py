#!/usr/bin/env python3
"""Tests of kiln-compare on the bundled example classifier (Conv, BN, Relu,
MaxPool, Conv, Relu, GlobalAveragePool, Flatten, Gemm, Softmax): a clean
build reports no divergence; a known fault (kilnc --debug-perturb-node adds
0.5 to one node's result) is found at that node, with its dispatch named,
whether all tensors are exposed at once or found by bisection.

usage: kiln_compare_test.py TOOL MODEL KILNC KILN WORKDIR
"""
import json
import os
import subprocess
import sys
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

TOOL = MODEL = KILNC = KILN = WORKDIR = None


def kiln_compare(name, *args, model=None):
    """Runs the tool; returns (exit status, JSON report or None, stdout+stderr)."""
    report = os.path.join(WORKDIR, name + ".json")
    if os.path.exists(report):
        os.remove(report)
    cmd = [sys.executable, TOOL, model or MODEL, "--kilnc", KILNC, "--kiln", KILN,
           "--workdir", os.path.join(WORKDIR, name), "--json", report] + list(args)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    text = proc.stdout + proc.stderr
    print(f"$ {' '.join(cmd)}\n{text}")
    data = None
    if os.path.exists(report):
        with open(report) as f:
            data = json.load(f)
    return proc.returncode, data, text


def dispatches_naming(node, *kilnc_args):
    """The dispatches whose `nodes:` line names `node` in kilnc's own dump."""
    proc = subprocess.run([KILNC, MODEL, "--emit=dispatches", "--dump-dispatches",
                           "-o", os.devnull] + list(kilnc_args),
                          capture_output=True, text=True, check=True)
    found, current = [], None
    for line in proc.stderr.splitlines():
        if line.startswith("dispatch_"):
            current = line.split(" ")[0].rstrip(":")
        elif line.startswith("  nodes:") and f'"{node}"' in line and current not in found:
            found.append(current)
    return found


class KilnCompareTest(unittest.TestCase):
    def test_clean_model_reports_no_divergence(self):
        status, report, text = kiln_compare("clean")
        self.assertEqual(status, 0, text)
        self.assertFalse(report["diverged"])
        self.assertEqual(report["compared"], 10)
        self.assertIn("no divergence", text)

    def check_fault(self, name, node, op_type, *args):
        perturb = f"--debug-perturb-node={node}"
        status, report, text = kiln_compare(name, f"--kilnc-arg={perturb}", *args)
        self.assertEqual(status, 1, text)
        self.assertTrue(report["diverged"])
        self.assertEqual(report["node"], node, text)
        self.assertEqual(report["op_type"], op_type)
        self.assertIn(f"FIRST DIVERGENCE: node '{node}'", text)
        stats = report["stats"]
        self.assertAlmostEqual(stats["max_abs"], 0.5, places=4)
        self.assertGreater(stats["mismatches"], 0)
        # Its computed inputs were compared and agree.
        computed = [i for i in report["inputs"] if i["stats"] is not None]
        self.assertTrue(computed, text)
        for entry in computed:
            self.assertFalse(entry["stats"]["diverged"], entry)
        # The dispatch it names is one kilnc lists for that node.
        self.assertTrue(report["dispatches"], text)
        self.assertIn("computed by (debug build): dispatch_", text)
        self.assertEqual(report["normal_dispatches"], dispatches_naming(node, perturb))
        self.assertTrue(report["normal_dispatches"])
        return report

    def test_fault_in_a_fused_relu_is_found_with_its_dispatch(self):
        # Relu_5 fuses into the GlobalAveragePool dispatch in the normal build.
        report = self.check_fault("relu", "Relu_5", "Relu", "--max-exposed", "0")
        self.assertEqual(report["rounds"], 1)
        self.assertEqual(report["normal_dispatches"],
                         dispatches_naming("GlobalAveragePool_6"))

    def test_fault_in_a_gemm_is_found(self):
        self.check_fault("gemm", "Gemm_8", "Gemm")

    def test_bisection_finds_the_same_node(self):
        report = self.check_fault("bisect", "Relu_5", "Relu", "--max-exposed", "3")
        self.assertGreaterEqual(report["rounds"], 2)

    def test_inputs_from_npy_and_test_data_set(self):
        model = onnx.load(MODEL)
        value = model.graph.input[0]
        dims = [d.dim_value for d in value.type.tensor_type.shape.dim]
        data = np.random.default_rng(3).uniform(-2, 2, size=dims).astype(np.float32)
        npy_dir = os.path.join(WORKDIR, "npy_inputs")
        os.makedirs(npy_dir, exist_ok=True)
        np.save(os.path.join(npy_dir, value.name + ".npy"), data)
        status, report, text = kiln_compare("npy", "--inputs", npy_dir)
        self.assertEqual(status, 0, text)
        self.assertIn(f"inputs from {npy_dir}", text)

        pb_dir = os.path.join(WORKDIR, "test_data_set_0")
        os.makedirs(pb_dir, exist_ok=True)
        with open(os.path.join(pb_dir, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(data, value.name).SerializeToString())
        status, report, text = kiln_compare("pb", "--inputs", pb_dir,
                                            "--kilnc-arg=--debug-perturb-node=Conv_4")
        self.assertEqual(status, 1, text)
        self.assertEqual(report["node"], "Conv_4")

    def test_symbolic_batch_is_fixed_to_the_inputs_shape(self):
        model = onnx.load(MODEL)
        for value in [model.graph.input[0]] + list(model.graph.output):
            dim = value.type.tensor_type.shape.dim[0]
            dim.Clear()
            dim.dim_param = "batch"
        path = os.path.join(WORKDIR, "dynamic_batch.onnx")
        onnx.save(model, path)
        name = model.graph.input[0].name
        npy_dir = os.path.join(WORKDIR, "batch3")
        os.makedirs(npy_dir, exist_ok=True)
        np.save(os.path.join(npy_dir, name + ".npy"),
                np.random.default_rng(4).uniform(-1, 1, size=(3, 3, 32, 32)).astype(np.float32))
        status, report, text = kiln_compare("batch3", "--inputs", npy_dir, model=path)
        self.assertEqual(status, 0, text)
        status, report, text = kiln_compare("batch3_fault", "--inputs", npy_dir,
                                            "--kilnc-arg=--debug-perturb-node=MaxPool_3",
                                            model=path)
        self.assertEqual(status, 1, text)
        self.assertEqual(report["node"], "MaxPool_3")
        self.assertEqual(report["stats"]["total"], 3 * 16 * 16 * 16)
        # An input whose shape contradicts a static dim is refused clearly.
        np.save(os.path.join(npy_dir, name + ".npy"), np.zeros((3, 3, 16, 16), np.float32))
        status, _, text = kiln_compare("badshape", "--inputs", npy_dir, model=path)
        self.assertEqual(status, 2, text)
        self.assertIn(f"input '{name}' has shape [3, 3, 16, 16]", text)

    def test_bad_arguments_fail_clearly(self):
        status, _, text = kiln_compare("precision", "--precision", "int8")
        self.assertEqual(status, 2)
        self.assertIn("unknown --precision 'int8'", text)
        status, _, text = kiln_compare("noinputs", "--inputs", os.path.join(WORKDIR, "none"))
        self.assertEqual(status, 2)
        self.assertIn("not a directory", text)
        status, _, text = kiln_compare("badnode", "--kilnc-arg=--debug-perturb-node=NoSuchNode")
        self.assertEqual(status, 2)
        self.assertIn("kilnc failed", text)
        self.assertIn("NoSuchNode", text)


if __name__ == "__main__":
    TOOL, MODEL, KILNC, KILN, WORKDIR = [os.path.abspath(a) for a in sys.argv[1:6]]
    os.makedirs(WORKDIR, exist_ok=True)
    unittest.main(argv=sys.argv[:1], verbosity=2)
