"""Writes the seed corpora of the fuzz targets under tests/fuzz/corpus/.

Usage: make_corpus.py --kilnc bazel-bin/tools/kilnc/kilnc [--out tests/fuzz/corpus]

Run it with the test venv's Python (numpy, onnx, paddle) after a format change: the
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


# A small Paddle model (conv, batch norm, relu, mean, linear) saved by
# paddle.jit.save; run in a child process per form (Paddle picks PIR or the
# legacy IR at import).
PADDLE_TOY = """
import sys, paddle
paddle.seed(0)
class Toy(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(3, 4, 3)
        self.bn = paddle.nn.BatchNorm2D(4)
        self.fc = paddle.nn.Linear(4, 2)
    def forward(self, x):
        y = paddle.nn.functional.relu(self.bn(self.conv(x)))
        return self.fc(paddle.mean(y, axis=[2, 3]))
toy = Toy()
toy.eval()
paddle.jit.save(toy, sys.argv[1], input_spec=[
    paddle.static.InputSpec([None, 3, 8, 8], "float32", "x")])
# paddlepaddle 3.3.1 can hang in its exit handlers (tests/paddle/gen_models.py).
import os
os._exit(0)
"""


def write_paddle_seeds(out: pathlib.Path):
    """paddle_readers_fuzzer: the first byte picks the reader (0 ProgramDesc,
    1 PIR JSON, 2 .pdiparams with the next byte mod 16 as the parameter
    count)."""
    import os
    import sys
    import tempfile
    seeds = out / "paddle_readers_fuzzer"
    seeds.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for form, pir in (("pdmodel", "0"), ("pir", "1")):
            prefix = os.path.join(scratch, form, "model")
            env = dict(os.environ, FLAGS_enable_pir_api=pir, GLOG_minloglevel="2")
            # dy2static reads the forward's source: run it from a file.
            script = os.path.join(scratch, "toy.py")
            pathlib.Path(script).write_text(PADDLE_TOY)
            subprocess.run([sys.executable, script, prefix], env=env, check=True)
            model = prefix + (".json" if form == "pir" else ".pdmodel")
            with open(model, "rb") as f:
                (seeds / f"toy_{form}").write_bytes(bytes([0 if form == "pdmodel" else 1]) + f.read())
            if form == "pir":
                with open(prefix + ".pdiparams", "rb") as f:
                    params = f.read()
                # The toy's 8 parameters, and a count of 3 (too many
                # records for the program).
                (seeds / "toy_params").write_bytes(bytes([2, 8]) + params)
                (seeds / "toy_params_count3").write_bytes(bytes([2, 3]) + params)


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
    write_paddle_seeds(out)


if __name__ == "__main__":
    main()
