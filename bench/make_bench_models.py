#!/usr/bin/env python3
"""Writes the full-size benchmark models: ResNet-50 and BERT-base (seq 128).

Both are built with onnx.helper and numpy (no torch, nothing downloaded) on
top of the GraphBuilder of tests/models/make_real_models.py, so they carry
the same PyTorch-exporter idioms (opset 17) as the small test models:

  * resnet50.onnx: torchvision resnet50 (v1.5: stride in the 3x3 conv of
    each bottleneck), stem 7x7/2 + BN + ReLU + MaxPool 3x3/2, bottleneck
    blocks [3, 4, 6, 3] with widths 64/128/256/512 (x4 expansion: 256..2048),
    BatchNormalization after every conv (not folded), projection shortcuts
    (1x1 conv + BN), GlobalAveragePool, Flatten, Gemm 2048 -> 1000.
    Input `input` f32 [1, 3, 224, 224]. 25.6 M parameters, ~102 MB.
  * bert_base.onnx: HF BertModel, bert-base-uncased sizes: vocab 30522,
    12 layers, hidden 768, 12 heads, FFN 3072, Erf GELU, post-LN
    LayerNormalization (eps 1e-12), max positions 512, sequence 128, pooler.
    Inputs `input_ids` and `attention_mask`, int64 [1, 128]; outputs
    `last_hidden_state` [1, 128, 768] and `pooler_output` [1, 768].
    109.5 M parameters, ~438 MB.

Weights are random, seeded: the files are byte-for-byte deterministic. They
are not committed; run_bench.py writes them into a cache directory
(~/.cache/kiln/bench-models/<hash of the generators>/) on first use.

    python bench/make_bench_models.py --out-dir /tmp/models [--check]

--check runs each model once with onnxruntime and prints output shapes.
"""

import argparse
import hashlib
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
import make_real_models as mrm  # noqa: E402
from make_real_models import F32, GraphBuilder, vi  # noqa: E402


class Builder(GraphBuilder):
    """GraphBuilder with a settable BatchNormalization scale (gamma)."""

    def batch_norm(self, x, prefix, c, gamma=1.0):
        scale = self.init(f"{prefix}.weight",
                          (gamma * (1 + 0.1 * self.rng.standard_normal(c))).astype(np.float32))
        bias = self.init(f"{prefix}.bias", (0.1 * self.rng.standard_normal(c)).astype(np.float32))
        mean = self.init(f"{prefix}.running_mean", (0.1 * self.rng.standard_normal(c)).astype(np.float32))
        var = self.init(f"{prefix}.running_var", self.rng.uniform(0.5, 1.5, c).astype(np.float32))
        return self.op("BatchNormalization", [x, scale, bias, mean, var], epsilon=1e-5, momentum=0.9)


def resnet50(path):
    """torchvision resnet50 at full width, 1000 classes."""
    b = Builder(seed=50)
    x = b.conv("input", "conv1", 3, 64, 7, stride=2, pad=3)
    x = b.op("Relu", [b.batch_norm(x, "bn1", 64)])
    x = b.op("MaxPool", [x], ceil_mode=0, dilations=[1, 1], kernel_shape=[3, 3],
             pads=[1, 1, 1, 1], strides=[2, 2])
    cin = 64
    for stage, (planes, blocks) in enumerate(zip([64, 128, 256, 512], [3, 4, 6, 3]), start=1):
        cout = planes * 4
        for block in range(blocks):
            p = f"layer{stage}.{block}"
            stride = 2 if stage > 1 and block == 0 else 1
            out = b.op("Relu", [b.batch_norm(b.conv(x, f"{p}.conv1", cin, planes, 1, pad=0),
                                             f"{p}.bn1", planes)])
            out = b.op("Relu", [b.batch_norm(b.conv(out, f"{p}.conv2", planes, planes, 3, stride),
                                             f"{p}.bn2", planes)])
            # A small gamma on the residual branch's last BN (as with
            # zero_init_residual, but not zero) keeps the activations of the
            # 16-block random network in a sane range.
            out = b.batch_norm(b.conv(out, f"{p}.conv3", planes, cout, 1, pad=0), f"{p}.bn3", cout,
                               gamma=0.3)
            shortcut = x
            if block == 0:
                shortcut = b.batch_norm(b.conv(x, f"{p}.downsample.0", cin, cout, 1, stride, pad=0),
                                        f"{p}.downsample.1", cout)
            x = b.op("Relu", [b.op("Add", [out, shortcut])])
            cin = cout
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    b.gemm(x, "fc", cin, 1000)
    b.nodes[-1].output[0] = "output"
    return b.finish("resnet50", [vi("input", F32, [1, 3, 224, 224])], [vi("output", F32, [1, 1000])], path)


def bert(path, *, name="bert_base", seed=110, vocab=30522, hidden=768, heads=12, ffn=3072,
         seq=128, layers=12, max_pos=512):
    """HF BertModel as the exporter writes it: make_real_models.bert_encoder at these sizes."""
    return mrm.bert_encoder(path, name=name, seed=seed, vocab=vocab, hidden=hidden, heads=heads,
                            ffn=ffn, seq=seq, layers=layers, max_pos=max_pos)


def bert_base(path):
    return bert(path)


MODELS = {
    "resnet50.onnx": resnet50,
    "bert_base.onnx": bert_base,
}


def generator_hash():
    """Hash of the generator sources: a new hash means new model bytes."""
    h = hashlib.sha256()
    for f in (os.path.abspath(__file__), os.path.join(ROOT, "tests", "models", "make_real_models.py")):
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:12]


def default_cache_dir():
    base = os.environ.get("KILN_CACHE", os.path.expanduser("~/.cache/kiln"))
    return os.path.join(base, "bench-models", generator_hash())


def write_models(out_dir, names=None, log=None):
    """Writes the models of MODELS (or those in names) into out_dir unless there; returns paths.

    A model is written to a temporary name and renamed, so an interrupted run
    never leaves a truncated file that a later run would take as cached.
    """
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for filename, build in MODELS.items():
        if names is not None and filename not in names:
            continue
        path = os.path.join(out_dir, filename)
        if not os.path.exists(path):
            if log:
                log(f"generating {filename} in {out_dir}")
            tmp = f"{path}.tmp{os.getpid()}"
            build(tmp)
            os.replace(tmp, path)
        paths.append(path)
    return paths


def main():
    parser = argparse.ArgumentParser(description="Writes the full-size benchmark models.")
    parser.add_argument("--out-dir", default=None, help="default: " + default_cache_dir())
    parser.add_argument("--check", action="store_true", help="run each once with onnxruntime")
    args = parser.parse_args()
    out_dir = args.out_dir or default_cache_dir()
    for path in write_models(out_dir, log=lambda s: print(s, file=sys.stderr)):
        line = f"{path}: {os.path.getsize(path) / 1e6:.1f} MB"
        if args.check:
            import onnx
            import onnxruntime as ort
            model = onnx.load(path)
            session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            outputs = session.run(None, mrm.random_inputs(model))
            line += ", %d nodes; onnxruntime: %s" % (len(model.graph.node), ", ".join(
                f"{o.name} {list(v.shape)} absmax {np.abs(v).max():.3g}"
                for o, v in zip(session.get_outputs(), outputs)))
            if not all(np.isfinite(v).all() for v in outputs):
                line += " (NON-FINITE values!)"
        print(line)


if __name__ == "__main__":
    main()
