"""Writes the seed corpora of the fuzz targets under tests/fuzz/corpus/.

Usage: make_corpus.py --kilnc bazel-bin/tools/kilnc/kilnc [--out tests/fuzz/corpus]

Run it with the test venv's Python (numpy, onnx) after a format change: the
artifact seeds must be current artifacts or the loader fuzzer spends its time
on the version check. Every seed is small (a few KB) so that the committed
corpus stays small and each execution stays fast.
"""
import argparse
import pathlib
import shutil
import subprocess

import numpy as np
from onnx import TensorProto, helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parents[2]

# Small committed models that cover elementwise kernels, copies, constants
# and several dispatches; compiled for baseline x86-64.
ARTIFACT_MODELS = [
    "tests/onnx/models/clip_opset13.onnx",
    "tests/onnx/models/depth_space.onnx",
    "tests/onnx/models/elementwise.onnx",
    "tests/onnx/models/activations.onnx",
    "examples/models/tiny_classifier.onnx",
]

ONNX_MODELS = [
    "tests/onnx/models/activations.onnx",
    "tests/onnx/models/attention_3d_gqa.onnx",
    "tests/onnx/models/conv_transpose.onnx",
    "tests/onnx/models/einsum.onnx",
    "tests/onnx/models/elementwise.onnx",
    "tests/onnx/models/gru_opset7.onnx",
    "tests/onnx/models/indexing.onnx",
    "tests/onnx/models/lrn.onnx",
    "examples/models/tiny_classifier.onnx",
]


def sample_tensors():
    rng = np.random.default_rng(0)
    yield "f32_2x3", rng.standard_normal((2, 3)).astype(np.float32)
    yield "f16_4", rng.standard_normal(4).astype(np.float16)
    yield "f64_scalar", np.array(1.5, dtype=np.float64)
    yield "i64_3", np.array([1, -2, 3], dtype=np.int64)
    yield "i32_2x2", np.array([[1, 2], [3, 4]], dtype=np.int32)
    yield "u8_5", np.arange(5, dtype=np.uint8)
    yield "bool_3", np.array([True, False, True])
    yield "i8_empty", np.zeros((0, 3), dtype=np.int8)


def write_tensor_seeds(out: pathlib.Path):
    npy = out / "npy_reader_fuzzer"
    pb = out / "tensor_proto_reader_fuzzer"
    for d in (npy, pb):
        d.mkdir(parents=True, exist_ok=True)
    for name, array in sample_tensors():
        np.save(npy / f"{name}.npy", array)
        (pb / f"{name}_raw.pb").write_bytes(
            numpy_helper.from_array(array, name).SerializeToString())
    # The typed (not raw_data) encodings: float_data, int64_data, int32_data.
    typed = [
        ("f32_typed", TensorProto.FLOAT, [2], [0.5, -1.0]),
        ("i64_typed", TensorProto.INT64, [3], [1, 2, -3]),
        ("i32_typed", TensorProto.INT32, [1, 2], [7, 8]),
        ("f64_typed", TensorProto.DOUBLE, [2], [0.25, 4.0]),
    ]
    for name, dtype, dims, values in typed:
        tensor = helper.make_tensor(name, dtype, dims, values, raw=False)
        (pb / f"{name}.pb").write_bytes(tensor.SerializeToString())


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--out", default=str(REPO / "tests/fuzz/corpus"))
    args = parser.parse_args()
    out = pathlib.Path(args.out)

    loader = out / "artifact_loader_fuzzer"
    loader.mkdir(parents=True, exist_ok=True)
    for model in ARTIFACT_MODELS:
        target = loader / (pathlib.Path(model).stem + ".kiln")
        subprocess.run([args.kilnc, str(REPO / model), "-o", str(target), "--cpu=x86-64"],
                       check=True)

    onnx_dir = out / "onnx_importer_fuzzer"
    onnx_dir.mkdir(parents=True, exist_ok=True)
    for model in ONNX_MODELS:
        shutil.copyfile(REPO / model, onnx_dir / pathlib.Path(model).name)

    write_tensor_seeds(out)


if __name__ == "__main__":
    main()
