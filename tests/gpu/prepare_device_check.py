#!/usr/bin/env python3
"""Prepares tests/gpu/device_check.sh's data on a CPU machine (with the
Python venv: onnx, onnxruntime, numpy), since the GPU machine has no
internet and may have none of them:

  * the models: examples/models/tiny_classifier.onnx, the small real
    architectures of tests/models/make_real_models.py (those under 8 MB),
    and generated ones: an elementwise chain, a softmax + layer norm, an
    MLP (MatMul + bias + ReLU, Gemm), each at batch 1 and batch 8, and
    GEMMs of two inputs (N x N, no weights, so the artifacts stay small);
    and the test models whose contractions are generated kernels rather
    than cuBLASLt calls (GENERATED_CONTRACTIONS: f64, int8, LSTM/GRU
    recurrences, conv_transpose; mobilenet_v2's depthwise convs and
    mobilenet_v3's two-k contraction come with the real models);
  * per model: seeded inputs and onnxruntime's outputs (CPU provider) as
    .npy, the reference the GPU run is compared with;
  * each model compiled by kilnc --target=cuda (archs as given); a model
    kilnc cannot compile for cuda yet is listed with kilnc's error and
    reported by the device check, not skipped silently;
  * manifest.json describing all of it.

The folder (default tests/gpu/data, git-ignored: tens of MB) is carried to
the GPU machine with the working tree.

    prepare_device_check.py --kilnc bazel-bin/tools/kilnc/kilnc --out tests/gpu/data
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def elementwise(path, batch):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 4096])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 4096])
    nodes = [
        helper.make_node("Mul", ["x", "two"], ["m"]),
        helper.make_node("Add", ["m", "one"], ["a"]),
        helper.make_node("Sigmoid", ["x"], ["s"]),
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("Mul", ["r", "s"], ["y"]),
    ]
    inits = [numpy_helper.from_array(np.array(2.0, np.float32), "two"),
             numpy_helper.from_array(np.array(1.0, np.float32), "one")]
    graph = helper.make_graph(nodes, "eltwise", [x], [y], inits)
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def softmax_layernorm(path, batch):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 128, 768])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 128, 768])
    rng = np.random.default_rng(5)
    nodes = [
        helper.make_node("Softmax", ["x"], ["s"], axis=-1),
        helper.make_node("LayerNormalization", ["s", "gamma", "beta"], ["y"], axis=-1, epsilon=1e-5),
    ]
    inits = [numpy_helper.from_array(rng.standard_normal(768).astype(np.float32), "gamma"),
             numpy_helper.from_array(rng.standard_normal(768).astype(np.float32), "beta")]
    graph = helper.make_graph(nodes, "softmax_ln", [x], [y], inits)
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def mlp(path, batch):
    rng = np.random.default_rng(6)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 512])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 256])
    w1 = (rng.standard_normal((512, 1024)) / np.sqrt(512)).astype(np.float32)
    b1 = rng.standard_normal(1024).astype(np.float32)
    w2 = (rng.standard_normal((256, 1024)) / np.sqrt(1024)).astype(np.float32)
    b2 = rng.standard_normal(256).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Add", ["h", "b1"], ["hb"]),
        helper.make_node("Relu", ["hb"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], transB=1),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))]
    graph = helper.make_graph(nodes, "mlp", [x], [y], inits)
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def gemm(path, n):
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [n, n])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])
    graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"])], f"gemm_{n}", [a, b], [y])
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


# tests/onnx/models whose contractions the cuda target generates as kernels
# (no cuBLASLt call computes them), so the device check runs those kernels.
# (lstm_layout1 is left out: onnxruntime's CPU LSTM has no layout 1, so
# there is no reference for it.)
GENERATED_CONTRACTIONS = ("f64_ops", "qop_gemm", "gru_opset7", "lstm_bidirectional",
                          "conv_transpose", "conv_transpose_output_shape")


def random_inputs(model, seed):
    rng = np.random.default_rng(seed)
    out = {}
    for i in model.graph.input:
        if i.name in {init.name for init in model.graph.initializer}:
            continue
        t = i.type.tensor_type
        dims = [d.dim_value for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        if np.issubdtype(dtype, np.floating):
            out[i.name] = rng.uniform(-1, 1, dims).astype(dtype)
        else:
            out[i.name] = rng.integers(0, 4, dims).astype(dtype)
    return out


def safe(name):
    s = "".join(c if (c.isalnum() or c in "._-") else "_" for c in name)
    return "_" + s if s in ("", ".", "..") else s


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--out", default=os.path.join(HERE, "data"))
    parser.add_argument("--cuda-arch", default="sm_80,sm_90")
    parser.add_argument("--gemm-sizes", default="1024,4096")
    args = parser.parse_args()
    import onnxruntime as ort

    out = os.path.abspath(args.out)
    models_dir = os.path.join(out, "models")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(models_dir)

    # name -> (onnx path, batch, group, check numerics)
    models = []
    for batch in (1, 8):
        models.append((elementwise(os.path.join(models_dir, f"eltwise_b{batch}.onnx"), batch), batch, "eltwise", True))
        models.append((softmax_layernorm(os.path.join(models_dir, f"softmax_ln_b{batch}.onnx"), batch), batch, "softmax_ln", True))
        models.append((mlp(os.path.join(models_dir, f"mlp_b{batch}.onnx"), batch), batch, "mlp", True))
    shutil.copy(os.path.join(ROOT, "examples", "models", "tiny_classifier.onnx"), models_dir)
    models.append((os.path.join(models_dir, "tiny_classifier.onnx"), 1, "tiny_classifier", True))
    sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
    try:
        import make_real_models
        real_dir = os.path.join(models_dir, "real")
        for path in make_real_models.write_models(real_dir):
            if os.path.getsize(path) <= 8 << 20:
                models.append((path, 1, os.path.basename(path)[:-5], True))
            else:
                os.remove(path)
    except Exception as e:  # noqa: BLE001 - reported, the rest still runs
        print(f"prepare: tests/models/make_real_models.py failed: {e}", file=sys.stderr)
    for name in GENERATED_CONTRACTIONS:
        path = os.path.join(models_dir, name + ".onnx")
        shutil.copy(os.path.join(ROOT, "tests", "onnx", "models", name + ".onnx"), path)
        models.append((path, 1, "generated_contraction", True))
    for n in (int(s) for s in args.gemm_sizes.split(",")):
        models.append((gemm(os.path.join(models_dir, f"gemm_{n}.onnx"), n), 1, f"gemm_{n}", n <= 1024))

    manifest = []
    for path, batch, group, check in models:
        name = os.path.basename(path)[:-5]
        entry = {"name": name, "group": group, "batch": batch, "check": check}
        model = onnx.load(path)
        if check:
            inputs = random_inputs(model, 1234)
            session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            outputs = session.run(None, inputs)
            case = os.path.join(out, "cases", name)
            os.makedirs(case)
            entry["inputs"] = {}
            for k, v in inputs.items():
                f = os.path.join(case, "in_" + safe(k) + ".npy")
                np.save(f, v)
                entry["inputs"][k] = os.path.relpath(f, out)
            entry["outputs"] = {}
            for o, v in zip(session.get_outputs(), outputs):
                f = os.path.join(case, "ref_" + safe(o.name) + ".npy")
                np.save(f, np.ascontiguousarray(v))
                entry["outputs"][o.name] = os.path.relpath(f, out)
        artifact = os.path.join(out, "artifacts", name + ".cuda.kiln")
        os.makedirs(os.path.dirname(artifact), exist_ok=True)
        r = subprocess.run([args.kilnc, path, "--target=cuda", "--cuda-arch=" + args.cuda_arch, "-o", artifact],
                           capture_output=True, text=True, timeout=600)
        if r.returncode == 0:
            entry["artifact"] = os.path.relpath(artifact, out)
        else:
            entry["compile_error"] = (r.stderr.strip().splitlines() or ["(no message)"])[0][:300]
        print(f"prepare: {name}: {'compiled' if r.returncode == 0 else 'kilnc --target=cuda failed: ' + entry['compile_error']}")
        manifest.append(entry)
        if not check:
            pass
    # The ONNX files stay only where they are small; the device run needs
    # the artifacts, inputs and references.
    shutil.rmtree(models_dir)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"cuda_arch": args.cuda_arch, "models": manifest}, f, indent=1)
    size = sum(os.path.getsize(os.path.join(d, x)) for d, _, fs in os.walk(out) for x in fs)
    print(f"prepare: {len(manifest)} models, {sum('artifact' in m for m in manifest)} compiled for cuda; "
          f"{size / 1e6:.1f} MB in {out}")


if __name__ == "__main__":
    main()
