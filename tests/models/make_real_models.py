#!/usr/bin/env python3
"""Writes small ONNX models with the topology of real architectures.

The models mirror what the PyTorch exporter (opset 17) emits for ResNet-18,
MobileNetV2, MobileNetV3 (small), a BERT encoder, a GPT-2 block and an LSTM
classifier, including the exporter's idioms: shape sub-graphs
(Shape -> Gather -> Unsqueeze -> Concat -> Reshape) for flattening and for
splitting heads, Constant nodes, Erf GELU and tanh GELU, LayerNormalization,
the attention-mask plumbing (Unsqueeze/Expand/Equal/Cast/Where), MatMul + Add
for linear layers on 3-D inputs and Gemm on 2-D ones, BatchNormalization,
padded Conv, MaxPool, GlobalAveragePool, Flatten, Clip(0, 6) for ReLU6,
HardSwish / HardSigmoid. Channel counts are scaled down so that each file
stays under 3 MB, but the layer structure is the real one. Weights are random
(seeded) f32, so the output is byte-for-byte deterministic.

Run with the test venv (scripts/setup.sh creates it):

    ~/.cache/kiln/venv/bin/python tests/models/make_real_models.py

It writes tests/models/*.onnx (committed), checks each with onnx.checker and
runs each once with onnxruntime to be sure it is valid.
"""

import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 17
F32 = TensorProto.FLOAT
I64 = TensorProto.INT64


class GraphBuilder:
    """Accumulates nodes and initializers with exporter-like unique names."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.counts = {}

    def fresh(self, prefix):
        n = self.counts.get(prefix, 0)
        self.counts[prefix] = n + 1
        return f"{prefix}_{n}"

    def op(self, op_type, inputs, num_outputs=1, **attrs):
        """Adds one node (named like the exporter's /Op_N) and returns its output name(s)."""
        name = self.fresh(f"/{op_type}")
        outputs = [f"{name}_output_{i}" for i in range(num_outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), outputs, name=name, **attrs))
        return outputs[0] if num_outputs == 1 else outputs

    def init(self, name, array):
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def weight(self, name, *shape, scale=None):
        # He-style scaling keeps activations in a sane range through deep stacks.
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        scale = scale if scale is not None else math.sqrt(2.0 / max(fan_in, 1))
        return self.init(name, (self.rng.standard_normal(shape) * scale).astype(np.float32))

    def constant(self, array):
        """A Constant node, as the exporter emits for literals in forward()."""
        name = self.fresh("/Constant")
        out = f"{name}_output_0"
        self.nodes.append(helper.make_node(
            "Constant", [], [out], name=name, value=numpy_helper.from_array(np.asarray(array))))
        return out

    # --- layers -----------------------------------------------------------

    def conv(self, x, prefix, cin, cout, k, stride=1, pad=None, group=1, bias=False):
        pad = k // 2 if pad is None else pad
        inputs = [x, self.weight(f"{prefix}.weight", cout, cin // group, k, k)]
        if bias:
            inputs.append(self.init(f"{prefix}.bias", np.zeros(cout, np.float32)))
        return self.op("Conv", inputs, dilations=[1, 1], group=group, kernel_shape=[k, k],
                       pads=[pad] * 4, strides=[stride, stride])

    def batch_norm(self, x, prefix, c):
        scale = self.init(f"{prefix}.weight", (1 + 0.1 * self.rng.standard_normal(c)).astype(np.float32))
        bias = self.init(f"{prefix}.bias", (0.1 * self.rng.standard_normal(c)).astype(np.float32))
        mean = self.init(f"{prefix}.running_mean", (0.1 * self.rng.standard_normal(c)).astype(np.float32))
        var = self.init(f"{prefix}.running_var", self.rng.uniform(0.5, 1.5, c).astype(np.float32))
        return self.op("BatchNormalization", [x, scale, bias, mean, var], epsilon=1e-5, momentum=0.9)

    def relu6(self, x):
        # torch exports nn.ReLU6 as Clip with min/max as (Constant) inputs.
        return self.op("Clip", [x, self.constant(np.float32(0)), self.constant(np.float32(6))])

    def linear3d(self, x, prefix, cin, cout):
        # nn.Linear on a 3-D input exports as MatMul with the transposed weight + Add.
        w = self.weight(f"onnx::MatMul_{prefix}", cin, cout, scale=0.02 * math.sqrt(cin / 64))
        b = self.init(f"{prefix}.bias", np.zeros(cout, np.float32))
        return self.op("Add", [b, self.op("MatMul", [x, w])])

    def gemm(self, x, prefix, cin, cout):
        # nn.Linear on a 2-D input exports as Gemm(transB=1).
        w = self.weight(f"{prefix}.weight", cout, cin, scale=1 / math.sqrt(cin))
        b = self.init(f"{prefix}.bias", np.zeros(cout, np.float32))
        return self.op("Gemm", [x, w, b], alpha=1.0, beta=1.0, transB=1)

    def layer_norm(self, x, prefix, c, eps=1e-5):
        scale = self.init(f"{prefix}.weight", np.ones(c, np.float32))
        bias = self.init(f"{prefix}.bias", np.zeros(c, np.float32))
        return self.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=eps)

    def dim(self, x, index):
        """x.size(index) as a 1-element int64 tensor: Shape -> Gather -> Unsqueeze."""
        shape = self.op("Shape", [x])
        d = self.op("Gather", [shape, self.constant(np.int64(index))], axis=0)
        return self.op("Unsqueeze", [d, self.constant(np.array([0], np.int64))])

    def reshape_dynamic(self, x, leading_dims_of, keep, tail):
        """x.view(*src.size()[:keep], *tail) the way the exporter writes it."""
        parts = [self.dim(leading_dims_of, i) for i in range(keep)]
        parts += [self.constant(np.array([t], np.int64)) for t in tail]
        shape = self.op("Concat", parts, axis=0)
        return self.op("Reshape", [x, shape], allowzero=0)

    def gelu_erf(self, x):
        # nn.GELU() / F.gelu at opset 17: x * 0.5 * (1 + erf(x / sqrt(2))).
        e = self.op("Erf", [self.op("Div", [x, self.constant(np.float32(1.4142135381698608))])])
        one = self.op("Add", [e, self.constant(np.float32(1.0))])
        return self.op("Mul", [self.op("Mul", [x, one]), self.constant(np.float32(0.5))])

    def gelu_tanh(self, x):
        # GPT-2's gelu_new: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
        cube = self.op("Pow", [x, self.constant(np.float32(3.0))])
        inner = self.op("Add", [x, self.op("Mul", [self.constant(np.float32(0.044715)), cube])])
        t = self.op("Tanh", [self.op("Mul", [self.constant(np.float32(math.sqrt(2 / math.pi))), inner])])
        half_x = self.op("Mul", [self.constant(np.float32(0.5)), x])
        return self.op("Mul", [half_x, self.op("Add", [self.constant(np.float32(1.0)), t])])

    def finish(self, name, inputs, outputs, path):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="kiln-tests/make_real_models.py")
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        return model


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


# --- CNNs -----------------------------------------------------------------


def resnet18(path):
    """torchvision resnet18 topology, widths 8/16/32/64 instead of 64..512."""
    b = GraphBuilder(seed=18)
    widths = [8, 16, 32, 64]
    x = b.conv("input", "conv1", 3, widths[0], 7, stride=2, pad=3)
    x = b.op("Relu", [b.batch_norm(x, "bn1", widths[0])])
    x = b.op("MaxPool", [x], ceil_mode=0, dilations=[1, 1], kernel_shape=[3, 3],
             pads=[1, 1, 1, 1], strides=[2, 2])
    cin = widths[0]
    for stage, cout in enumerate(widths, start=1):
        for block in range(2):
            p = f"layer{stage}.{block}"
            stride = 2 if stage > 1 and block == 0 else 1
            out = b.op("Relu", [b.batch_norm(b.conv(x, f"{p}.conv1", cin, cout, 3, stride), f"{p}.bn1", cout)])
            out = b.batch_norm(b.conv(out, f"{p}.conv2", cout, cout, 3), f"{p}.bn2", cout)
            shortcut = x
            if stride != 1 or cin != cout:
                shortcut = b.batch_norm(b.conv(x, f"{p}.downsample.0", cin, cout, 1, stride, pad=0),
                                        f"{p}.downsample.1", cout)
            x = b.op("Relu", [b.op("Add", [out, shortcut])])
            cin = cout
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    b.nodes[-1].output[0] = "flat"
    logits = b.gemm("flat", "fc", cin, 1000)
    b.nodes[-1].output[0] = "output"
    return b.finish("resnet18", [vi("input", F32, [1, 3, 224, 224])], [vi("output", F32, [1, 1000])], path)


def make_divisible(v, divisor=8):
    # torchvision's _make_divisible: round to a multiple of 8, never below 90 %.
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def mobilenet_v2(path):
    """torchvision mobilenet_v2(width_mult=0.35) topology, 100 classes."""
    b = GraphBuilder(seed=2)
    wm = 0.35
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    cin = make_divisible(32 * wm)
    last = 1280  # torchvision keeps 1280 for width_mult <= 1
    x = b.relu6(b.batch_norm(b.conv("input", "features.0.0", 3, cin, 3, stride=2), "features.0.1", cin))
    idx = 1
    for t, c, n, s in settings:
        cout = make_divisible(c * wm)
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            p = f"features.{idx}.conv"
            y = x
            j = 0
            if t != 1:  # pointwise expansion
                y = b.relu6(b.batch_norm(b.conv(y, f"{p}.{j}.0", cin, hidden, 1, pad=0), f"{p}.{j}.1", hidden))
                j += 1
            # depthwise 3x3: group == channels
            y = b.relu6(b.batch_norm(b.conv(y, f"{p}.{j}.0", hidden, hidden, 3, stride, group=hidden),
                                     f"{p}.{j}.1", hidden))
            y = b.batch_norm(b.conv(y, f"{p}.{j + 1}", hidden, cout, 1, pad=0), f"{p}.{j + 2}", cout)
            x = b.op("Add", [x, y]) if stride == 1 and cin == cout else y
            cin = cout
            idx += 1
    x = b.relu6(b.batch_norm(b.conv(x, f"features.{idx}.0", cin, last, 1, pad=0), f"features.{idx}.1", last))
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    b.gemm(x, "classifier.1", last, 100)
    b.nodes[-1].output[0] = "output"
    return b.finish("mobilenet_v2", [vi("input", F32, [1, 3, 224, 224])], [vi("output", F32, [1, 100])], path)


def mobilenet_v3_small(path):
    """torchvision mobilenet_v3_small topology at width 0.5 (HardSwish, SE with HardSigmoid)."""
    b = GraphBuilder(seed=3)
    wm = 0.5
    # (kernel, expanded, out, use_se, activation, stride) from torchvision.
    settings = [(3, 16, 16, True, "RE", 2), (3, 72, 24, False, "RE", 2), (3, 88, 24, False, "RE", 1),
                (5, 96, 40, True, "HS", 2), (5, 240, 40, True, "HS", 1), (5, 240, 40, True, "HS", 1),
                (5, 120, 48, True, "HS", 1), (5, 144, 48, True, "HS", 1), (5, 288, 96, True, "HS", 2),
                (5, 576, 96, True, "HS", 1), (5, 576, 96, True, "HS", 1)]

    def act(y, kind):
        return b.op("HardSwish", [y]) if kind == "HS" else b.op("Relu", [y])

    cin = make_divisible(16 * wm)
    x = act(b.batch_norm(b.conv("input", "features.0.0", 3, cin, 3, stride=2), "features.0.1", cin), "HS")
    for idx, (k, exp, out, se, kind, stride) in enumerate(settings, start=1):
        exp, out = make_divisible(exp * wm), make_divisible(out * wm)
        p = f"features.{idx}.block"
        y, j = x, 0
        if exp != cin:
            y = act(b.batch_norm(b.conv(y, f"{p}.{j}.0", cin, exp, 1, pad=0), f"{p}.{j}.1", exp), kind)
            j += 1
        y = act(b.batch_norm(b.conv(y, f"{p}.{j}.0", exp, exp, k, stride, group=exp), f"{p}.{j}.1", exp), kind)
        j += 1
        if se:  # squeeze-excitation: avgpool -> fc1 -> relu -> fc2 -> hardsigmoid -> scale
            sq = make_divisible(exp // 4)
            s = b.op("GlobalAveragePool", [y])
            s = b.op("Relu", [b.conv(s, f"{p}.{j}.fc1", exp, sq, 1, pad=0, bias=True)])
            s = b.op("HardSigmoid", [b.conv(s, f"{p}.{j}.fc2", sq, exp, 1, pad=0, bias=True)],
                     alpha=1.0 / 6, beta=0.5)
            y = b.op("Mul", [s, y])
            j += 1
        y = b.batch_norm(b.conv(y, f"{p}.{j}.0", exp, out, 1, pad=0), f"{p}.{j}.1", out)
        x = b.op("Add", [y, x]) if stride == 1 and cin == out else y
        cin = out
    last_conv = 6 * cin
    x = b.op("HardSwish", [b.batch_norm(b.conv(x, "features.12.0", cin, last_conv, 1, pad=0),
                                        "features.12.1", last_conv)])
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    x = b.op("HardSwish", [b.gemm(x, "classifier.0", last_conv, 512)])
    b.gemm(x, "classifier.3", 512, 100)
    b.nodes[-1].output[0] = "output"
    return b.finish("mobilenet_v3_small", [vi("input", F32, [1, 3, 224, 224])],
                    [vi("output", F32, [1, 100])], path)


# --- transformers ---------------------------------------------------------


def split_heads(b, x, heads, head_dim, perm):
    """x.view(B, S, heads, head_dim).permute(perm), with the exporter's shape sub-graph."""
    return b.op("Transpose", [b.reshape_dynamic(x, x, 2, [heads, head_dim])], perm=perm)


def merge_heads(b, ctx, hidden):
    """ctx.permute(0, 2, 1, 3).contiguous().view(B, S, hidden)."""
    t = b.op("Transpose", [ctx], perm=[0, 2, 1, 3])
    return b.reshape_dynamic(t, t, 2, [hidden])


def bert_encoder(path, *, name="bert_encoder", seed=7, vocab=1000, hidden=128, heads=4, ffn=512,
                 seq=128, layers=2, max_pos=512):
    """A BERT encoder (HF BertModel) as the PyTorch exporter writes it. The defaults make
    the 2-layer test model (hidden 128, 4 heads, seq 128, vocab 1000); bench/ passes
    BERT-base sizes."""
    b = GraphBuilder(seed=seed)
    head_dim = hidden // heads

    # Embeddings: word + position (a sliced registered buffer) + token type (a zeros buffer).
    word = b.op("Gather", [b.weight("embeddings.word_embeddings.weight", vocab, hidden, scale=0.02), "input_ids"])
    pos_ids = b.init("embeddings.position_ids", np.arange(max_pos, dtype=np.int64)[None, :])
    seq_len = b.dim("input_ids", 1)
    pos_ids = b.op("Slice", [pos_ids, b.constant(np.array([0], np.int64)), seq_len,
                             b.constant(np.array([1], np.int64)), b.constant(np.array([1], np.int64))])
    pos = b.op("Gather", [b.weight("embeddings.position_embeddings.weight", max_pos, hidden, scale=0.02), pos_ids])
    tok_ids = b.init("embeddings.token_type_ids", np.zeros((1, seq), np.int64))
    tok = b.op("Gather", [b.weight("embeddings.token_type_embeddings.weight", 2, hidden, scale=0.02), tok_ids])
    h = b.layer_norm(b.op("Add", [b.op("Add", [word, tok]), pos]), "embeddings.LayerNorm", hidden, eps=1e-12)

    # Extended attention mask: mask[:, None, None, :].expand(B, 1, S, S), then
    # (1 - m) masked_fill'ed with finfo.min. expand(-1, ...) exports with the
    # Equal(shape, -1) / Where / ConstantOfShape fix-up the exporter writes.
    m = b.op("Unsqueeze", [b.op("Unsqueeze", ["attention_mask", b.constant(np.array([1], np.int64))]),
                           b.constant(np.array([2], np.int64))])
    tgt = b.dim("input_ids", 1)
    target = b.op("Concat", [b.constant(np.array([-1], np.int64)), b.constant(np.array([1], np.int64)),
                             tgt, b.dim("attention_mask", 1)], axis=0)
    is_neg = b.op("Equal", [target, b.constant(np.array([-1], np.int64))])
    ones = b.op("ConstantOfShape", [b.op("Shape", [target])],
                value=numpy_helper.from_array(np.array([1], np.int64)))
    target = b.op("Where", [is_neg, ones, target])
    m = b.op("Cast", [b.op("Expand", [m, target])], to=F32)
    inverted = b.op("Sub", [b.constant(np.float32(1.0)), m])
    additive = b.op("Where", [b.op("Cast", [inverted], to=TensorProto.BOOL),
                              b.constant(np.float32(np.finfo(np.float32).min)), inverted])

    scale = b.constant(np.float32(math.sqrt(head_dim)))
    for layer in range(layers):
        p = f"encoder.layer.{layer}"
        q = split_heads(b, b.linear3d(h, f"{p}.attention.self.query", hidden, hidden), heads, head_dim, [0, 2, 1, 3])
        k = split_heads(b, b.linear3d(h, f"{p}.attention.self.key", hidden, hidden), heads, head_dim, [0, 2, 3, 1])
        v = split_heads(b, b.linear3d(h, f"{p}.attention.self.value", hidden, hidden), heads, head_dim, [0, 2, 1, 3])
        scores = b.op("Add", [b.op("Div", [b.op("MatMul", [q, k]), scale]), additive])
        probs = b.op("Softmax", [scores], axis=-1)
        ctx = merge_heads(b, b.op("MatMul", [probs, v]), hidden)
        attn = b.linear3d(ctx, f"{p}.attention.output.dense", hidden, hidden)
        h = b.layer_norm(b.op("Add", [attn, h]), f"{p}.attention.output.LayerNorm", hidden, eps=1e-12)
        inter = b.gelu_erf(b.linear3d(h, f"{p}.intermediate.dense", hidden, ffn))
        out = b.linear3d(inter, f"{p}.output.dense", ffn, hidden)
        h = b.layer_norm(b.op("Add", [out, h]), f"{p}.output.LayerNorm", hidden, eps=1e-12)
    b.nodes[-1].output[0] = "last_hidden_state"

    # Pooler: first token -> dense (Gemm on 2-D) -> tanh.
    first = b.op("Gather", ["last_hidden_state", b.constant(np.int64(0))], axis=1)
    pooled = b.op("Tanh", [b.gemm(first, "pooler.dense", hidden, hidden)])
    b.nodes[-1].output[0] = "pooler_output"
    return b.finish(name,
                    [vi("input_ids", I64, [1, seq]), vi("attention_mask", I64, [1, seq])],
                    [vi("last_hidden_state", F32, [1, seq, hidden]), vi("pooler_output", F32, [1, hidden])],
                    path)


def conv1d_gpt2(b, x, prefix, cin, cout):
    """HF GPT-2 Conv1D: addmm(bias, x.view(-1, cin), W).view(B, S, cout) -> Reshape, Gemm, Reshape."""
    flat = b.op("Reshape", [x, b.constant(np.array([-1, cin], np.int64))], allowzero=0)
    w = b.weight(f"{prefix}.weight", cin, cout, scale=0.02 * math.sqrt(cin / 64))
    bias = b.init(f"{prefix}.bias", np.zeros(cout, np.float32))
    y = b.op("Gemm", [flat, w, bias], alpha=1.0, beta=1.0)
    return b.reshape_dynamic(y, x, 2, [cout])


def gpt2_block(path):
    """One GPT-2 block (HF GPT2Block): hidden 128, 4 heads, seq 64."""
    b = GraphBuilder(seed=12)
    hidden, heads, seq, max_pos = 128, 4, 64, 64
    head_dim = hidden // heads
    x = "hidden_states"

    h = b.layer_norm(x, "ln_1", hidden)
    qkv = conv1d_gpt2(b, h, "attn.c_attn", hidden, 3 * hidden)
    q, k, v = b.op("Split", [qkv, b.constant(np.array([hidden] * 3, np.int64))], num_outputs=3, axis=2)
    q = split_heads(b, q, heads, head_dim, [0, 2, 1, 3])
    k = split_heads(b, k, heads, head_dim, [0, 2, 3, 1])
    v = split_heads(b, v, heads, head_dim, [0, 2, 1, 3])
    w = b.op("Div", [b.op("MatMul", [q, k]), b.constant(np.float32(math.sqrt(head_dim)))])

    # causal_mask = self.bias[:, :, k_len - q_len : k_len, :k_len] (a bool
    # lower-triangular buffer), lengths read from the shapes at run time.
    bias = b.init("attn.bias", np.tril(np.ones((max_pos, max_pos), bool))[None, None])
    q_len, k_len = b.dim(q, 2), b.dim(k, 3)
    start = b.op("Sub", [k_len, q_len])
    rows = b.op("Slice", [bias, start, k_len, b.constant(np.array([2], np.int64)),
                          b.constant(np.array([1], np.int64))])
    causal = b.op("Slice", [rows, b.constant(np.array([0], np.int64)), k_len,
                            b.constant(np.array([3], np.int64)), b.constant(np.array([1], np.int64))])
    w = b.op("Where", [causal, w, b.constant(np.float32(np.finfo(np.float32).min))])
    probs = b.op("Softmax", [w], axis=-1)
    ctx = merge_heads(b, b.op("MatMul", [probs, v]), hidden)
    x = b.op("Add", [conv1d_gpt2(b, ctx, "attn.c_proj", hidden, hidden), x])

    h = b.layer_norm(x, "ln_2", hidden)
    h = b.gelu_tanh(conv1d_gpt2(b, h, "mlp.c_fc", hidden, 4 * hidden))
    b.op("Add", [conv1d_gpt2(b, h, "mlp.c_proj", 4 * hidden, hidden), x])
    b.nodes[-1].output[0] = "output"
    return b.finish("gpt2_block", [vi("hidden_states", F32, [1, seq, hidden])],
                    [vi("output", F32, [1, seq, hidden])], path)


# --- recurrent ------------------------------------------------------------


def lstm(path):
    """nn.LSTM(32, 64, bidirectional=True) over [seq 32, batch 1, 32], last step -> Linear(128, 10)."""
    b = GraphBuilder(seed=32)
    seq, batch, inp, hidden, dirs, classes = 32, 1, 32, 64, 2, 10
    s = 1 / math.sqrt(hidden)
    w = b.init("onnx::LSTM_W", b.rng.uniform(-s, s, (dirs, 4 * hidden, inp)).astype(np.float32))
    r = b.init("onnx::LSTM_R", b.rng.uniform(-s, s, (dirs, 4 * hidden, hidden)).astype(np.float32))
    bias = b.init("onnx::LSTM_B", b.rng.uniform(-s, s, (dirs, 8 * hidden)).astype(np.float32))
    h0 = b.init("h0", np.zeros((dirs, batch, hidden), np.float32))
    c0 = b.init("c0", np.zeros((dirs, batch, hidden), np.float32))
    y, _, _ = b.op("LSTM", ["input", w, r, bias, "", h0, c0], num_outputs=3,
                   direction="bidirectional", hidden_size=hidden, layout=0)
    # Y is [seq, dirs, batch, hidden]; torch's output is [seq, batch, dirs * hidden].
    y = b.op("Transpose", [y], perm=[0, 2, 1, 3])
    y = b.op("Reshape", [y, b.constant(np.array([0, 0, -1], np.int64))], allowzero=0)
    last = b.op("Gather", [y, b.constant(np.int64(-1))], axis=0)  # out[-1]
    b.gemm(last, "fc", dirs * hidden, classes)
    b.nodes[-1].output[0] = "output"
    return b.finish("lstm", [vi("input", F32, [seq, batch, inp])], [vi("output", F32, [batch, classes])], path)


MODELS = {
    "resnet18_style.onnx": resnet18,
    "mobilenet_v2.onnx": mobilenet_v2,
    "mobilenet_v3_small.onnx": mobilenet_v3_small,
    "bert_encoder.onnx": bert_encoder,
    "gpt2_block.onnx": gpt2_block,
    "lstm.onnx": lstm,
}


def random_inputs(model, seed=0):
    """Inputs for every graph input: ids in [0, 1000) for int64, a half-padded mask for masks."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for inp in model.graph.input:
        shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        if inp.type.tensor_type.elem_type == I64:
            if "mask" in inp.name:
                mask = np.ones(shape, np.int64)
                mask[..., shape[-1] // 2:] = 0
                feeds[inp.name] = mask
            else:
                feeds[inp.name] = rng.integers(0, 1000, shape, dtype=np.int64)
        else:
            feeds[inp.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def write_models(out_dir):
    """Writes every model of MODELS into out_dir; returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for filename, build in MODELS.items():
        path = os.path.join(out_dir, filename)
        build(path)
        paths.append(path)
    return paths


def main():
    import argparse

    import onnxruntime as ort

    parser = argparse.ArgumentParser(description="Writes the real-architecture test models.")
    parser.add_argument("--out-dir", default=os.path.join(HERE, "generated"),
                        help="where to write them (default: tests/models/generated, not committed)")
    args = parser.parse_args()
    for path in write_models(args.out_dir):
        model = onnx.load(path)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        outputs = session.run(None, random_inputs(model))
        shapes = ", ".join(f"{o.name} {list(v.shape)} {v.dtype}" for o, v in zip(session.get_outputs(), outputs))
        finite = all(np.isfinite(v).all() for v in outputs)
        print(f"{os.path.basename(path)}: {os.path.getsize(path) / 1e6:.2f} MB, {len(model.graph.node)} nodes; "
              f"onnxruntime: {shapes}{'' if finite else ' (NON-FINITE values!)'}")


if __name__ == "__main__":
    main()
