#!/usr/bin/env python3
"""Writes the embed_service test's reference: seeded random inputs for a
model and onnxruntime's outputs for them, as JSON the C++ test reads.

    make_reference.py MODEL.onnx OUT.json [--cases N] [--seed S]

{"input": NAME, "input_shape": [...], "output": NAME, "output_shape": [...],
 "cases": [{"input": [flat f32 values], "output": [flat f32 values]}, ...],
 "constant_case": {"fill": 0.5, "output": [...]}}   (the input all 0.5)

Values are float32 numbers written as Python floats, which round-trip
exactly. Only single-input, single-output f32 models are needed here.
"""
import argparse
import json

import numpy as np
import onnx
import onnxruntime as ort


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("--cases", type=int, default=16)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()

    session = ort.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    (model_input,) = session.get_inputs()
    (model_output,) = session.get_outputs()
    if model_input.type != "tensor(float)" or model_output.type != "tensor(float)":
        raise SystemExit(f"{args.model}: expected one f32 input and one f32 output")
    shape = [int(d) for d in model_input.shape]
    rng = np.random.default_rng(args.seed)
    cases = []
    output_shape = None
    for _ in range(args.cases):
        x = rng.standard_normal(shape).astype(np.float32)
        (y,) = session.run(None, {model_input.name: x})
        output_shape = list(y.shape)
        cases.append({"input": x.ravel().tolist(), "output": y.ravel().tolist()})
    # quickstart.cc fills its input with 0.5.
    (constant_output,) = session.run(None, {model_input.name: np.full(shape, 0.5, np.float32)})
    with open(args.out, "w") as f:
        json.dump({"input": model_input.name, "input_shape": shape, "output": model_output.name,
                   "output_shape": output_shape, "cases": cases,
                   "constant_case": {"fill": 0.5, "output": constant_output.ravel().tolist()}}, f)
    print(f"make_reference: {len(cases)} cases of {model_input.name}{shape} -> "
          f"{model_output.name}{output_shape} (onnxruntime {ort.__version__}, onnx {onnx.__version__})")


if __name__ == "__main__":
    main()
