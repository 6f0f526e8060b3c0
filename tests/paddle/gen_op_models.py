"""Writes one small Paddle inference model per converter case, in both forms.

For every case in CASES this writes, under OUT/<case>/:
  pir/model.json + model.pdiparams       (paddle.jit.save, PIR, the default)
  legacy/model.pdmodel + model.pdiparams (paddle.jit.save with
                                          FLAGS_enable_pir_api=0)
  inputs/<name>.npy                       seeded random inputs
  <form>/expected_<i>.npy                 Paddle's own outputs (the loaded
                                          program run by paddle.inference)
  <form>/meta.json                        input names/shapes, fetch names
The legacy form needs the PIR API off before paddle is imported, so the
script re-runs itself once per form (--form).

Usage: gen_op_models.py OUT [--only CASE,...]
"""
import argparse
import json
import os
import subprocess
import zlib
import sys

import numpy as np


def cases():
    import paddle
    import paddle.nn as nn
    import paddle.nn.functional as F

    def L(fn, params=None):
        class Net(nn.Layer):
            def __init__(self):
                super().__init__()
                if params:
                    for k, v in params().items():
                        setattr(self, k, v)

            def forward(self, x):
                return fn(self, x)
        return Net

    def L2(fn):
        class Net(nn.Layer):
            def forward(self, x, y):
                return fn(self, x, y)
        return Net

    f32 = "float32"
    img = [2, 4, 8, 8]
    c = {}
    # name: (layer class, [(input name, shape, dtype)], description of the Paddle op exercised)
    c["conv2d"] = (L(lambda s, x: s.c(x), lambda: {"c": nn.Conv2D(4, 6, 3, stride=2, padding=1)}), [("x", img, f32)])
    c["conv2d_dilated_nobias"] = (L(lambda s, x: s.c(x), lambda: {"c": nn.Conv2D(4, 6, 3, padding=[1, 2], dilation=2, bias_attr=False)}), [("x", img, f32)])
    c["conv2d_same"] = (L(lambda s, x: s.c(x), lambda: {"c": nn.Conv2D(4, 6, 3, stride=2, padding="SAME")}), [("x", img, f32)])
    c["conv2d_groups"] = (L(lambda s, x: s.c(x), lambda: {"c": nn.Conv2D(4, 8, 3, padding=1, groups=2)}), [("x", img, f32)])
    c["depthwise_conv2d"] = (L(lambda s, x: s.c(x), lambda: {"c": nn.Conv2D(4, 4, 3, padding=1, groups=4)}), [("x", img, f32)])
    c["conv2d_transpose"] = (L(lambda s, x: s.c(x), lambda: {"c": nn.Conv2DTranspose(4, 3, 3, stride=2, padding=1, output_padding=1)}), [("x", img, f32)])
    c["batch_norm"] = (L(lambda s, x: s.b(x), lambda: {"b": _bn(nn.BatchNorm2D(4))}), [("x", img, f32)])
    c["layer_norm"] = (L(lambda s, x: s.n(x), lambda: {"n": nn.LayerNorm(8)}), [("x", [2, 5, 8], f32)])
    c["layer_norm_2d"] = (L(lambda s, x: s.n(x), lambda: {"n": nn.LayerNorm([5, 8])}), [("x", [2, 5, 8], f32)])
    c["max_pool2d"] = (L(lambda s, x: F.max_pool2d(x, 3, stride=2, padding=1)), [("x", img, f32)])
    c["max_pool2d_ceil"] = (L(lambda s, x: F.max_pool2d(x, 2, stride=3, ceil_mode=True)), [("x", img, f32)])
    c["avg_pool2d"] = (L(lambda s, x: F.avg_pool2d(x, 3, stride=2, padding=1)), [("x", img, f32)])
    c["avg_pool2d_inclusive"] = (L(lambda s, x: F.avg_pool2d(x, 3, stride=2, padding=1, exclusive=False)), [("x", img, f32)])
    c["adaptive_avg_pool2d_1"] = (L(lambda s, x: F.adaptive_avg_pool2d(x, 1)), [("x", img, f32)])
    c["adaptive_avg_pool2d_2"] = (L(lambda s, x: F.adaptive_avg_pool2d(x, [2, 4])), [("x", img, f32)])
    c["adaptive_max_pool2d"] = (L(lambda s, x: F.adaptive_max_pool2d(x, 2)), [("x", img, f32)])
    c["matmul"] = (L2(lambda s, x, y: paddle.matmul(x, y)), [("x", [2, 3, 4], f32), ("y", [2, 4, 5], f32)])
    c["matmul_trans"] = (L2(lambda s, x, y: paddle.matmul(x, y, transpose_x=True, transpose_y=True)), [("x", [2, 4, 3], f32), ("y", [2, 5, 4], f32)])
    c["linear"] = (L(lambda s, x: s.l(x), lambda: {"l": nn.Linear(6, 5)}), [("x", [2, 3, 6], f32)])
    c["add_bcast"] = (L2(lambda s, x, y: x + y), [("x", [2, 3, 4], f32), ("y", [4], f32)])
    c["add_axis"] = (L2(lambda s, x, y: x + paddle.reshape(y, [1, 3, 1])), [("x", [2, 3, 4], f32), ("y", [3], f32)])
    c["sub"] = (L2(lambda s, x, y: x - y), [("x", [2, 3, 4], f32), ("y", [3, 4], f32)])
    c["mul"] = (L2(lambda s, x, y: x * y), [("x", [2, 3, 4], f32), ("y", [2, 3, 4], f32)])
    c["div"] = (L2(lambda s, x, y: x / (y * y + 1.0)), [("x", [2, 3, 4], f32), ("y", [2, 1, 4], f32)])
    c["pow_max_min"] = (L2(lambda s, x, y: paddle.maximum(x, y) + paddle.minimum(x, y) + paddle.pow(x * x + 1.0, 1.5)), [("x", [2, 3, 4], f32), ("y", [2, 3, 4], f32)])
    c["relu"] = (L(lambda s, x: F.relu(x)), [("x", [2, 3, 4], f32)])
    c["relu6"] = (L(lambda s, x: F.relu6(x * 4)), [("x", [2, 3, 4], f32)])
    c["hardswish"] = (L(lambda s, x: F.hardswish(x * 4)), [("x", [2, 3, 4], f32)])
    c["hardsigmoid"] = (L(lambda s, x: F.hardsigmoid(x * 4)), [("x", [2, 3, 4], f32)])
    c["hardsigmoid_slope"] = (L(lambda s, x: F.hardsigmoid(x * 4, slope=0.2, offset=0.5)), [("x", [2, 3, 4], f32)])
    c["swish"] = (L(lambda s, x: F.swish(x)), [("x", [2, 3, 4], f32)])
    c["silu"] = (L(lambda s, x: F.silu(x)), [("x", [2, 3, 4], f32)])
    c["gelu"] = (L(lambda s, x: F.gelu(x)), [("x", [2, 3, 4], f32)])
    c["gelu_tanh"] = (L(lambda s, x: F.gelu(x, approximate=True)), [("x", [2, 3, 4], f32)])
    c["sigmoid"] = (L(lambda s, x: F.sigmoid(x)), [("x", [2, 3, 4], f32)])
    c["tanh"] = (L(lambda s, x: paddle.tanh(x)), [("x", [2, 3, 4], f32)])
    c["leaky_relu"] = (L(lambda s, x: F.leaky_relu(x, 0.1)), [("x", [2, 3, 4], f32)])
    c["prelu_channel"] = (L(lambda s, x: s.p(x), lambda: {"p": _prelu(nn.PReLU(4))}), [("x", img, f32)])
    c["prelu_all"] = (L(lambda s, x: s.p(x), lambda: {"p": _prelu(nn.PReLU(1))}), [("x", img, f32)])
    c["softmax"] = (L(lambda s, x: F.softmax(x, axis=1)), [("x", [2, 3, 4], f32)])
    c["unary_misc"] = (L(lambda s, x: paddle.exp(x) + paddle.sqrt(x * x) + paddle.log(x * x + 1) + paddle.floor(x) + paddle.erf(x)), [("x", [2, 3, 4], f32)])
    c["reshape"] = (L(lambda s, x: paddle.reshape(x, [0, -1, 2])), [("x", [2, 3, 4], f32)])
    c["transpose"] = (L(lambda s, x: paddle.transpose(x, [2, 0, 1])), [("x", [2, 3, 4], f32)])
    c["flatten"] = (L(lambda s, x: paddle.flatten(x, 1, 2)), [("x", img, f32)])
    c["squeeze_unsqueeze"] = (L(lambda s, x: paddle.unsqueeze(paddle.squeeze(x, [1]), [0, 3])), [("x", [2, 1, 4], f32)])
    c["concat"] = (L2(lambda s, x, y: paddle.concat([x, y, x], axis=-1)), [("x", [2, 3, 4], f32), ("y", [2, 3, 2], f32)])
    c["split_sections"] = (L(lambda s, x: paddle.split(x, [1, 3, -1], axis=2)[2] * 2 + paddle.split(x, [1, 3, 2], axis=2)[0]), [("x", [2, 3, 6], f32)])
    c["split_num"] = (L(lambda s, x: paddle.split(x, 3, axis=1)[1]), [("x", [2, 6, 4], f32)])
    c["slice"] = (L(lambda s, x: x[:, 1:3, ::1]), [("x", [2, 4, 6], f32)])
    c["slice_decrease"] = (L(lambda s, x: x[:, 1, -3:]), [("x", [2, 4, 6], f32)])
    c["strided_slice"] = (L(lambda s, x: paddle.strided_slice(x, axes=[1, 2], starts=[0, 5], ends=[4, 0], strides=[2, -2])), [("x", [2, 4, 6], f32)])
    c["gather"] = (L(lambda s, x: paddle.gather(x, paddle.to_tensor([2, 0, 1]), axis=1)), [("x", [2, 4, 3], f32)])
    c["scale"] = (L(lambda s, x: paddle.scale(x, 2.5, 1.0, bias_after_scale=True)), [("x", [2, 3], f32)])
    c["scale_before"] = (L(lambda s, x: paddle.scale(x, 2.5, 1.0, bias_after_scale=False)), [("x", [2, 3], f32)])
    c["clip"] = (L(lambda s, x: paddle.clip(x, -0.5, 0.3)), [("x", [2, 3, 4], f32)])
    c["cast"] = (L(lambda s, x: paddle.cast(paddle.cast(x * 4, "int32"), "float32")), [("x", [2, 3, 4], f32)])
    c["full_like"] = (L(lambda s, x: x + paddle.full_like(x, 0.5) + paddle.full([4], 2.0)), [("x", [2, 3, 4], f32)])
    c["shape_arange"] = (L(lambda s, x: x + paddle.cast(paddle.arange(0, paddle.shape(x)[2], 1), "float32")), [("x", [2, 3, 4], f32)])
    c["nearest_interp"] = (L(lambda s, x: F.interpolate(x, scale_factor=2, mode="nearest")), [("x", img, f32)])
    c["nearest_interp_size"] = (L(lambda s, x: F.interpolate(x, size=[5, 11], mode="nearest")), [("x", img, f32)])
    c["bilinear_interp"] = (L(lambda s, x: F.interpolate(x, size=[5, 11], mode="bilinear", align_corners=False)), [("x", img, f32)])
    c["bilinear_interp_ac"] = (L(lambda s, x: F.interpolate(x, size=[5, 11], mode="bilinear", align_corners=True)), [("x", img, f32)])
    c["bilinear_interp_am1"] = (L(lambda s, x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False, align_mode=1)), [("x", img, f32)])
    c["dropout"] = (L(lambda s, x: F.dropout(x, 0.3, training=False)), [("x", [2, 3, 4], f32)])
    c["dropout_downscale"] = (L(lambda s, x: F.dropout(x, 0.3, training=False, mode="downscale_in_infer")), [("x", [2, 3, 4], f32)])
    c["reduce_mean_sum"] = (L(lambda s, x: paddle.mean(x, axis=-1, keepdim=True) + paddle.sum(x, axis=[1, 2], keepdim=True)), [("x", [2, 3, 4], f32)])
    c["lstm"] = (L(lambda s, x: s.l(x)[0], lambda: {"l": nn.LSTM(4, 5, num_layers=2)}), [("x", [2, 3, 4], f32)])
    c["lstm_bidir"] = (L(lambda s, x: s.l(x)[0], lambda: {"l": nn.LSTM(4, 5, direction="bidirect")}), [("x", [2, 3, 4], f32)])
    return c


def _bn(bn):
    import paddle
    rng = np.random.default_rng(1)
    n = bn._mean.shape[0]
    bn._mean.set_value(paddle.to_tensor(rng.standard_normal(n).astype("float32")))
    bn._variance.set_value(paddle.to_tensor(rng.uniform(0.5, 2.0, n).astype("float32")))
    bn.weight.set_value(paddle.to_tensor(rng.standard_normal(n).astype("float32")))
    bn.bias.set_value(paddle.to_tensor(rng.standard_normal(n).astype("float32")))
    return bn


def _prelu(p):
    import paddle
    rng = np.random.default_rng(2)
    p._weight.set_value(paddle.to_tensor(rng.uniform(0.05, 0.5, p._weight.shape).astype("float32")))
    return p


def op_types(model_file, form):
    """The op types the saved program holds (for the conformance table)."""
    if form == "pir":
        with open(model_file) as f:
            program = json.load(f)["program"]
        names = []
        for op in program["regions"][0]["blocks"][0]["ops"]:
            name = op["#"]
            dialect, _, op_name = name.partition(".")
            full = {"0": "builtin", "1": "pd_op"}.get(dialect, dialect) + "." + op_name
            if op_name not in ("p", "data", "fetch", "parameter") and name != "p":
                names.append(full)
        return sorted(set(names))
    import paddle
    paddle.enable_static()
    try:
        exe = paddle.static.Executor(paddle.CPUPlace())
        program, _, _ = paddle.static.load_inference_model(model_file[:-len(".pdmodel")], exe)
        return sorted({op.type for op in program.global_block().ops} - {"feed", "fetch"})
    finally:
        paddle.disable_static()


def write_form(out, form, only):
    import paddle
    from paddle import inference
    paddle.seed(0)
    all_cases = cases()
    names = sorted(all_cases) if not only else only
    for name in names:
        cls, inputs = all_cases[name]
        layer = cls()
        layer.eval()
        case_dir = os.path.join(out, name)
        form_dir = os.path.join(case_dir, form)
        os.makedirs(form_dir, exist_ok=True)
        os.makedirs(os.path.join(case_dir, "inputs"), exist_ok=True)
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        feeds = {}
        for i, (iname, shape, dtype) in enumerate(inputs):
            path = os.path.join(case_dir, "inputs", iname + ".npy")
            if os.path.exists(path):
                feeds[iname] = np.load(path)
            else:
                feeds[iname] = rng.standard_normal(shape).astype(dtype)
                np.save(path, feeds[iname])
        spec = [paddle.static.InputSpec([-1] + list(shape[1:]), dtype, iname)
                for iname, shape, dtype in inputs]
        prefix = os.path.join(form_dir, "model")
        try:
            paddle.jit.save(layer, prefix, input_spec=spec)
        except Exception as e:  # noqa: BLE001 - recorded for the test's table
            # Paddle 3.3's Python API cannot build some ops (gelu, abs...)
            # in a legacy static program; the test shows the case as n/a.
            with open(os.path.join(form_dir, "unavailable.txt"), "w") as f:
                f.write(f"paddle.jit.save failed: {type(e).__name__}: "
                        f"{str(e).strip().splitlines()[-1]}\n")
            print(f"{name}/{form}: paddle.jit.save failed", flush=True)
            continue
        model_file = prefix + (".json" if form == "pir" else ".pdmodel")
        if os.path.exists(prefix + ".pdiparams"):
            config = inference.Config(model_file, prefix + ".pdiparams")
        else:  # a model without parameters gets no .pdiparams file
            config = inference.Config()
            config.set_prog_file(model_file)
        config.disable_gpu()
        config.switch_ir_optim(False)
        config.disable_mkldnn()
        config.disable_glog_info()
        predictor = inference.create_predictor(config)
        for iname in predictor.get_input_names():
            handle = predictor.get_input_handle(iname)
            handle.copy_from_cpu(feeds[iname])
        predictor.run()
        fetches = predictor.get_output_names()
        for i, oname in enumerate(fetches):
            np.save(os.path.join(form_dir, f"expected_{i}.npy"),
                    predictor.get_output_handle(oname).copy_to_cpu())
        meta = {"model": os.path.basename(model_file),
                "ops": op_types(model_file, form),
                "inputs": [[iname, list(shape), dtype] for iname, shape, dtype in inputs],
                "fetches": fetches}
        with open(os.path.join(form_dir, "meta.json"), "w") as f:
            json.dump(meta, f)
        print(f"{name}/{form}: {len(fetches)} output(s)", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--only", default="")
    parser.add_argument("--form", choices=["pir", "legacy"])
    args = parser.parse_args()
    only = [n for n in args.only.split(",") if n]
    if args.form:
        write_form(os.path.abspath(args.out), args.form, only)
        # Leave without running exit handlers: paddle 3.3.1 sometimes
        # double-frees in them, and its signal handler then deadlocks.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    os.makedirs(args.out, exist_ok=True)
    for form, flag in (("pir", "1"), ("legacy", "0")):
        env = dict(os.environ, FLAGS_enable_pir_api=flag, GLOG_minloglevel="2")
        cmd = [sys.executable, os.path.abspath(__file__), args.out, "--form", form]
        if only:
            cmd += ["--only", ",".join(only)]
        try:
            proc = subprocess.run(cmd, env=env, timeout=1800)
        except subprocess.TimeoutExpired:
            print(f"FAIL: writing the {form} models ran longer than 30 min")
            return 1
        if proc.returncode != 0:
            print(f"FAIL: writing the {form} models exited {proc.returncode}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
