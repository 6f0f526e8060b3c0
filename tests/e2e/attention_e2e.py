#!/usr/bin/env python3
"""Fused attention (kiln-fuse-attention + the CPU backend's online-softmax
kernel, compiler/targets/cpu/AttentionKernel.h) end to end, against
onnxruntime.

One model per exporter idiom and odd shape:
  torchscript  MatMul(Q, Transpose(K)) / sqrt(d) + padding mask [B,1,1,Sk]
               (-10000 on masked keys), Softmax, MatMul V; B=2, H=3,
               Sq=77, Sk=50, D=40, Dv=24 (no dim a multiple of a tile);
  dynamo       Mul(Q, d^-1/4) and Mul(K^T, d^-1/4) before the MatMul, a 2-D
               [Sq, Sk] float mask; Sq=1, Sk=130 (a partial key block);
  causal       GPT-2's Where(causal, w / sqrt(d), finfo.min) then + padding
               mask, H=4, Sq=Sk=33, D=Dv=64;
  rank3        [6, 17, 16] x [6, 16, 70] -> V [6, 70, 65], no scale or mask
               (Dv a vector plus one lane);
  long_keys    Sk=4097 (64 key blocks and a 1-key tail), head size 1, Sq=3
               (a partial row tile only), a full-shape [B,H,Sq,Sk] mask;
  row_mask     a [1, H, Sq, 1] mask (broadcast over batch and keys), a
               scale of 4, B=3;
  masked_fill  Where(bool mask, -inf, scores) with a [B, 1, Sq, Sk] mask;
  single_key   Sk=1, Sq=5;
  shared_probs the probabilities are also a graph output: nothing fuses
               (the rewrite must not drop a value someone reads).

Each compiles for the host, x86-64-v4 (where the host has AVX-512),
x86-64-v3 (run on an AVX-512 host too) and with --attention=unfused (the
host's artifact also on 2 threads); the
dispatch dump must show one "attention" dispatch where the chain fuses,
none where it must not, and outputs within 2e-5 * max|ort| + 1e-6.

Prints one line per check and ends with 'N passed, N failed, N not run on
this host'; exit status 1 when anything failed.

    ~/.cache/kiln/venv/bin/python tests/e2e/attention_e2e.py \\
        --kilnc bazel-bin/tools/kilnc/kilnc --kiln bazel-bin/tools/kiln/kiln
"""
import os
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_ort  # noqa: E402
from conv_checks import (Checks, parse_args, save_model, checked_run,  # noqa: E402
                         check_outputs, dispatches)

F = TensorProto.FLOAT


def value(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def scalar(name, v):
    return numpy_helper.from_array(np.array(v, np.float32), name)


def heads_model(path, name, dims, scores_nodes, scores, mask=None, inits=(),
                outputs=("out",)):
    """The exporters' 4-D layout: graph inputs Q [B,H,Sq,D], K [B,H,Sk,D]
    (transposed to `kt` in the model) and V [B,H,Sk,Dv], and `mask` when
    given as (shape, dtype); `scores_nodes` compute `scores` from `q` and
    `kt`, then Softmax over the keys (`p`) and MatMul with V (`out`)."""
    b, h, sq, sk, d, dv = dims
    nodes = ([helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2], name="k_t")]
             + scores_nodes
             + [helper.make_node("Softmax", [scores], ["p"], axis=-1, name="softmax"),
                helper.make_node("MatMul", ["p", "v"], ["out"], name="pv")])
    inputs = [value("q", (b, h, sq, d)), value("k", (b, h, sk, d)), value("v", (b, h, sk, dv))]
    if mask is not None:
        inputs.append(value("mask", *mask))
    graph = helper.make_graph(nodes, name, inputs, [value(o, None) for o in outputs],
                              list(inits))
    return save_model(graph, path)


def torchscript(path, b=2, h=3, sq=77, sk=50, d=40, dv=24):
    model = heads_model(path, "torchscript", (b, h, sq, sk, d, dv), [
        helper.make_node("MatMul", ["q", "kt"], ["s"], name="qk"),
        helper.make_node("Div", ["s", "sqrt_d"], ["s1"], name="scale"),
        helper.make_node("Add", ["s1", "mask"], ["s2"], name="mask_add"),
    ], "s2", mask=((b, 1, 1, sk),), inits=[scalar("sqrt_d", np.sqrt(d))])
    rng = np.random.default_rng(1)
    mask = np.where(rng.random((b, 1, 1, sk)) < 0.3, -10000.0, 0.0).astype(np.float32)
    return model, {"mask": mask}


def dynamo(path, b=2, h=2, sq=1, sk=130, d=32, dv=48):
    model = heads_model(path, "dynamo", (b, h, sq, sk, d, dv), [
        helper.make_node("Mul", ["q", "c"], ["qs"], name="q_scale"),
        helper.make_node("Mul", ["kt", "c"], ["kts"], name="k_scale"),
        helper.make_node("MatMul", ["qs", "kts"], ["s"], name="qk"),
        helper.make_node("Add", ["s", "mask"], ["s2"], name="mask_add"),
    ], "s2", mask=((sq, sk),), inits=[scalar("c", float(d) ** -0.25)])
    rng = np.random.default_rng(2)
    return model, {"mask": rng.normal(0, 2, (sq, sk)).astype(np.float32)}


def causal(path, b=1, h=4, s=33, d=64):
    tril = np.tril(np.ones((s, s), bool)).reshape(1, 1, s, s)
    model = heads_model(path, "causal", (b, h, s, s, d, d), [
        helper.make_node("MatMul", ["q", "kt"], ["w"], name="qk"),
        helper.make_node("Div", ["w", "sqrt_d"], ["w1"], name="scale"),
        helper.make_node("Where", ["causal", "w1", "min"], ["w2"], name="causal_where"),
        helper.make_node("Add", ["w2", "mask"], ["w3"], name="mask_add"),
    ], "w3", mask=((b, 1, 1, s),),
        inits=[numpy_helper.from_array(tril, "causal"), scalar("sqrt_d", np.sqrt(d)),
               scalar("min", np.finfo(np.float32).min)])
    mask = np.zeros((b, 1, 1, s), np.float32)
    mask[..., -3:] = np.finfo(np.float32).min
    return model, {"mask": mask}


def long_keys(path, b=1, h=2, sq=3, sk=4097, d=1, dv=17):
    """Many key blocks and a 1-key tail, head size 1, a full-shape mask."""
    nodes = [
        helper.make_node("MatMul", ["q", "kt"], ["s"], name="qk"),
        helper.make_node("Mul", ["s", "c"], ["s1"], name="scale"),
        helper.make_node("Add", ["s1", "mask"], ["s2"], name="mask_add"),
        helper.make_node("Softmax", ["s2"], ["p"], axis=-1, name="softmax"),
        helper.make_node("MatMul", ["p", "v"], ["out"], name="pv"),
    ]
    graph = helper.make_graph(
        nodes, "long_keys",
        [value("q", (b, h, sq, d)), value("kt", (b, h, d, sk)), value("v", (b, h, sk, dv)),
         value("mask", (b, h, sq, sk))],
        [value("out", None)], [scalar("c", 3.0)])
    rng = np.random.default_rng(4)
    return save_model(graph, path), {"mask": rng.normal(0, 3, (b, h, sq, sk)).astype(np.float32)}


def row_mask(path, b=3, h=2, sq=6, sk=20, d=16, dv=16):
    """A mask broadcast over the keys ([1, H, Sq, 1]: one shift per row,
    which softmax cancels) and over the batch, plus a large scale."""
    model = heads_model(path, "row_mask", (b, h, sq, sk, d, dv), [
        helper.make_node("MatMul", ["q", "kt"], ["s"], name="qk"),
        helper.make_node("Mul", ["s", "c"], ["s1"], name="scale"),
        helper.make_node("Add", ["s1", "mask"], ["s2"], name="mask_add"),
    ], "s2", mask=((1, h, sq, 1),), inits=[scalar("c", 4.0)])
    rng = np.random.default_rng(6)
    return model, {"mask": rng.normal(0, 50, (1, h, sq, 1)).astype(np.float32)}


def masked_fill(path, b=2, h=2, sq=10, sk=19, d=24, dv=20):
    """masked_fill(mask, -inf): Where(mask, -inf, scores), key 0 never
    masked (a row of only -inf would be NaN in both)."""
    model = heads_model(path, "masked_fill", (b, h, sq, sk, d, dv), [
        helper.make_node("MatMul", ["q", "kt"], ["s"], name="qk"),
        helper.make_node("Div", ["s", "sqrt_d"], ["s1"], name="scale"),
        helper.make_node("Where", ["mask", "ninf", "s1"], ["s2"], name="masked_fill"),
    ], "s2", mask=((b, 1, sq, sk), TensorProto.BOOL),
        inits=[scalar("sqrt_d", np.sqrt(d)), scalar("ninf", -np.inf)])
    rng = np.random.default_rng(8)
    mask = rng.random((b, 1, sq, sk)) < 0.4
    mask[..., 0] = False
    return model, {"mask": mask}


def rank3(path, n=6, sq=17, d=16, sk=70, dv=65):
    nodes = [
        helper.make_node("MatMul", ["q", "kt"], ["s"], name="qk"),
        helper.make_node("Softmax", ["s"], ["p"], axis=2, name="softmax"),
        helper.make_node("MatMul", ["p", "v"], ["out"], name="pv"),
    ]
    graph = helper.make_graph(
        nodes, "rank3",
        [value("q", (n, sq, d)), value("kt", (n, d, sk)), value("v", (n, sk, dv))],
        [value("out", None)])
    return save_model(graph, path), {}


def single_key(path):
    return torchscript(path, b=1, h=2, sq=5, sk=1, d=8, dv=8)


def shared_probs(path, b=1, h=2, sq=9, sk=12, d=8, dv=8):
    model = heads_model(path, "shared_probs", (b, h, sq, sk, d, dv), [
        helper.make_node("MatMul", ["q", "kt"], ["s"], name="qk"),
        helper.make_node("Mul", ["s", "c"], ["s1"], name="scale"),
    ], "s1", inits=[scalar("c", 0.3)], outputs=("out", "p"))
    return model, {}


CASES = [("torchscript", torchscript, True), ("dynamo", dynamo, True),
         ("causal", causal, True), ("rank3", rank3, True),
         ("long_keys", long_keys, True), ("row_mask", row_mask, True),
         ("masked_fill", masked_fill, True),
         ("single_key", single_key, True), ("shared_probs", shared_probs, False)]


def random_inputs(model_path, given, seed):
    session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(seed)
    inputs = dict(given)
    for i in session.get_inputs():
        if i.name not in inputs:
            inputs[i.name] = rng.normal(0, 1, i.shape).astype(np.float32)
    names = [o.name for o in session.get_outputs()]
    want = dict(zip(names, session.run(None, inputs)))
    return inputs, names, want


def main():
    args = parse_args(__doc__.splitlines()[0], "kiln-attention-")
    check = Checks()
    configs = [("native", ["--cpu=native"], True), ("x86-64-v4", ["--cpu=x86-64-v4"], True),
               ("x86-64-v3", ["--cpu=x86-64-v3"], True),
               ("unfused", ["--cpu=native", "--attention=unfused"], False)]
    for seed, (name, make, fuses) in enumerate(CASES):
        model, given = make(os.path.join(args.workdir, name + ".onnx"))
        inputs, names, want = random_inputs(model, given, seed)
        for label, flags, fused_config in configs:
            tag = f"{name} {label}"
            dump, got = checked_run(check, args, model, flags, tag, inputs, names)
            if dump is None:
                continue
            attention = [h for h, _, config in dispatches(dump)
                         if 'strategy = "attention"' in config]
            expect = 1 if (fuses and fused_config) else 0
            check(len(attention) == expect,
                  f"[{tag}]: {len(attention)} attention dispatch(es), expected {expect}")
            if got is None:
                continue
            check_outputs(check, f"[{tag}]", got, want, 1e-6, 2e-5)
            if label == "native":
                # Workgroups on two threads: rows never straddle them.
                artifact = os.path.join(args.workdir, tag.replace(" ", "_") + ".kiln")
                got2 = compare_with_ort.run_kiln(args.kiln, artifact, inputs, names,
                                                 artifact + "_out2", threads=2)
                check_outputs(check, f"[{tag} 2 threads]", got2, want, 1e-6, 2e-5)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
