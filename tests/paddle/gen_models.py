"""Writes the Paddle frontend's test models, inputs and reference outputs.

Each model is built with paddlepaddle (random weights from fixed seeds;
nothing is downloaded), saved with `paddle.jit.save` in both on-disk forms,
and run by Paddle Inference (`paddle.inference`) on fixed inputs:

    OUT/<model>/pir/model.json + model.pdiparams      (PIR JSON, Paddle 3)
    OUT/<model>/pdmodel/model.pdmodel + model.pdiparams (legacy ProgramDesc,
                                                       FLAGS_enable_pir_api=0)
    OUT/<model>/<form>/input_<i>.npy    the inputs, in feed order
    OUT/<model>/<form>/output_<i>.npy   Paddle Inference's outputs, in fetch
                                        order (the reference)
    OUT/<model>/<form>/manifest.json    what Paddle itself says about the
                                        saved program (loaded back with
                                        paddle.static.load_inference_model):
                                        feeds, fetch count, op types with
                                        counts (without feed/fetch,
                                        pd_op.data/fetch and
                                        builtin.parameter), the saved
                                        parameters (name, dtype, shape,
                                        element sum), input/output files

Both forms of one model get the same weights and the same inputs.

Usage:
    python gen_models.py --out DIR [--models resnet18,mobilenet_v2,...]
                         [--forms pir,pdmodel] [--image-size 64] [--batch N]

    --models      any of: resnet18, mobilenet_v2, mobilenet_v3_small,
                  transformer (paddle.nn.TransformerEncoder, 2 layers,
                  d_model 64, 4 heads), lstm (paddle.nn.LSTM, 2 layers,
                  hidden 32, + Linear); default: all
    --forms       pir, pdmodel or both (default)
    --image-size  H = W of the vision models' inputs (default 64)
    --batch       the batch of the inputs (default 1); the saved programs
                  declare the batch as -1 (dynamic), as Paddle exports do,
                  unless --static-batch is given
    --timeout     seconds allowed per form (default 600)

Each form runs in a child process of its own, because Paddle chooses PIR or
the legacy IR when it is imported (FLAGS_enable_pir_api).
"""

import argparse
import json
import os
import subprocess
import sys
import traceback

ALL_MODELS = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "transformer",
              "lstm"]
ALL_FORMS = ["pir", "pdmodel"]
SEED = 2026


def build_model(name, paddle):
    """The layer and its inputs' (name, shape without batch, dtype)."""
    nn = paddle.nn
    if name == "resnet18":
        return paddle.vision.models.resnet18(num_classes=10), "image"
    if name == "mobilenet_v2":
        return paddle.vision.models.mobilenet_v2(num_classes=10), "image"
    if name == "mobilenet_v3_small":
        return paddle.vision.models.mobilenet_v3_small(num_classes=10), "image"
    if name == "transformer":
        class Encoder(nn.Layer):
            def __init__(self):
                super().__init__()
                layer = nn.TransformerEncoderLayer(
                    d_model=64, nhead=4, dim_feedforward=128, dropout=0.1)
                self.encoder = nn.TransformerEncoder(layer, num_layers=2)
                self.head = nn.Linear(64, 8)

            def forward(self, x):
                return self.head(self.encoder(x))
        return Encoder(), "sequence64"
    if name == "lstm":
        class Recurrent(nn.Layer):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(input_size=16, hidden_size=32,
                                    num_layers=2)
                self.head = nn.Linear(32, 4)

            def forward(self, x):
                out, _ = self.lstm(x)
                return self.head(out)
        return Recurrent(), "sequence16"
    raise SystemExit(f"gen_models.py: unknown model '{name}' "
                     f"(known: {', '.join(ALL_MODELS)})")


def input_shape(kind, image_size):
    if kind == "image":
        return [3, image_size, image_size]
    if kind == "sequence64":
        return [16, 64]
    if kind == "sequence16":
        return [10, 16]
    raise AssertionError(kind)


def manifest_of(prefix, form, paddle, np):
    """Paddle's own view of the saved program (not Kiln's readers)."""
    paddle.enable_static()
    try:
        return _manifest_of(prefix, form, paddle, np)
    finally:
        paddle.disable_static()


def _manifest_of(prefix, form, paddle, np):
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        program, feed_names, fetch_targets = \
            paddle.static.load_inference_model(prefix, exe)
        ops = {}
        params = {}
        if form == "pir":
            for op in program.global_block().ops:
                op_name = op.name()
                if op_name == "builtin.parameter":
                    # Only persistable parameters are saved (paddle.nn.LSTM
                    # also has a non-persistable dropout state).
                    if op.result(0).persistable:
                        params[op.attrs()["parameter_name"]] = None
                    continue
                if op_name in ("pd_op.data", "pd_op.fetch"):
                    continue
                ops[op_name] = ops.get(op_name, 0) + 1
        else:
            block = program.global_block()
            for op in block.ops:
                if op.type in ("feed", "fetch"):
                    continue
                ops[op.type] = ops.get(op.type, 0) + 1
            for var in block.vars.values():
                if var.persistable and var.name not in ("feed", "fetch"):
                    params[var.name] = None
        for param in params:
            value = np.array(scope.find_var(param).get_tensor())
            params[param] = {
                "dtype": str(value.dtype),
                "shape": list(value.shape),
                "sum": float(value.astype(np.float64).sum()),
            }
    return {"feeds": list(feed_names), "fetch_count": len(fetch_targets),
            "ops": ops, "params": params}


def run_inference(prefix, form, inputs, paddle):
    """Paddle Inference's outputs on `inputs` (the reference)."""
    model_file = prefix + (".json" if form == "pir" else ".pdmodel")
    config = paddle.inference.Config(model_file, prefix + ".pdiparams")
    config.disable_gpu()
    config.disable_mkldnn()
    config.disable_glog_info()
    config.set_cpu_math_library_num_threads(1)
    predictor = paddle.inference.create_predictor(config)
    for name, value in zip(predictor.get_input_names(), inputs):
        handle = predictor.get_input_handle(name)
        handle.reshape(value.shape)
        handle.copy_from_cpu(value)
    predictor.run()
    return [predictor.get_output_handle(name).copy_to_cpu()
            for name in predictor.get_output_names()]


def patch_matmul_for_legacy_ir(paddle):
    """paddle.matmul of paddlepaddle 3.3.1 is the C++ op of dygraph and PIR
    only: with the legacy IR (FLAGS_enable_pir_api=0) it rejects a static
    Variable, so paddle.nn.MultiHeadAttention cannot be saved as .pdmodel.
    Build the legacy `matmul_v2` op (what Paddle 2.x exported) instead."""
    from paddle.base.layer_helper import LayerHelper

    eager_matmul = paddle.matmul

    def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
        if paddle.in_dynamic_mode():
            return eager_matmul(x, y, transpose_x, transpose_y, name)
        helper = LayerHelper("matmul_v2", name=name)
        out = helper.create_variable_for_type_inference(dtype=x.dtype)
        helper.append_op(type="matmul_v2", inputs={"X": x, "Y": y},
                         outputs={"Out": out},
                         attrs={"trans_x": transpose_x,
                                "trans_y": transpose_y})
        return out

    paddle.matmul = matmul
    # transformer.py also calls the paddle.tensor module's matmul (the
    # attribute paddle.tensor is another object, hence sys.modules).
    sys.modules["paddle.tensor"].matmul = matmul


def save_legacy_static(name, eager_layer, spec, prefix, paddle):
    """Saves `name` as a legacy program built with the static graph API
    (paddle.static.save_inference_model) with the weights of `eager_layer`.
    For paddle.nn.LSTM: paddlepaddle 3.3.1's dy2static under the legacy IR
    fails on its flattened weight buffer ("Unknown place type:
    Place(undefined:0)"), while the static API builds Paddle 2.x's `rnn`
    op."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            layer, _ = build_model(name, paddle)
            layer.eval()
            x = paddle.static.data(spec.name, spec.shape, spec.dtype)
            y = layer(x)
        place = paddle.CPUPlace()
        exe = paddle.static.Executor(place)
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            static_params = layer.state_dict()
            eager_params = eager_layer.state_dict()
            assert list(static_params) == list(eager_params)
            for key, param in static_params.items():
                value = eager_params[key].numpy()
                assert list(param.shape) == list(value.shape), key
                scope.find_var(param.name).get_tensor().set(value, place)
            paddle.static.save_inference_model(prefix, [x], [y], exe,
                                               program=main)
    finally:
        paddle.disable_static()


def generate(args):
    """Runs in the child process of one form."""
    import numpy as np
    import paddle

    form = args.form
    if form == "pdmodel":
        patch_matmul_for_legacy_ir(paddle)
    for name in args.models:
        print(f"gen_models: building {name} ({form})", flush=True)
        paddle.seed(SEED)
        np.random.seed(SEED)
        layer, kind = build_model(name, paddle)
        layer.eval()
        shape = input_shape(kind, args.image_size)
        batch = args.batch if args.static_batch else None
        spec = [paddle.static.InputSpec([batch] + shape, "float32", "x")]
        directory = os.path.join(args.out, name, form)
        os.makedirs(directory, exist_ok=True)
        prefix = os.path.join(directory, "model")
        if form == "pdmodel" and name == "lstm":
            save_legacy_static(name, layer, spec[0], prefix, paddle)
        else:
            paddle.jit.save(layer, prefix, input_spec=spec)
        for extra in ("model.pdiparams.info",):
            if os.path.exists(os.path.join(directory, extra)):
                os.remove(os.path.join(directory, extra))

        rng = np.random.RandomState(SEED)
        inputs = [rng.standard_normal([args.batch] + shape).astype("float32")]
        outputs = run_inference(prefix, form, inputs, paddle)
        # The reference must be Paddle's model itself: the dygraph layer on
        # the same input agrees with the saved program.
        eager = layer(paddle.to_tensor(inputs[0]))
        eager = eager if isinstance(eager, (list, tuple)) else [eager]
        for got, want in zip(outputs, eager):
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-4,
                                       atol=1e-5)
        manifest = manifest_of(prefix, form, paddle, np)
        manifest.update({
            "model": name, "form": form,
            "model_file": "model.json" if form == "pir" else "model.pdmodel",
            "params_file": "model.pdiparams",
            "inputs": [], "outputs": []})
        for i, value in enumerate(inputs):
            np.save(os.path.join(directory, f"input_{i}.npy"), value)
            manifest["inputs"].append({"file": f"input_{i}.npy",
                                       "shape": list(value.shape),
                                       "dtype": str(value.dtype)})
        for i, value in enumerate(outputs):
            np.save(os.path.join(directory, f"output_{i}.npy"), value)
            manifest["outputs"].append({"file": f"output_{i}.npy",
                                        "shape": list(value.shape),
                                        "dtype": str(value.dtype)})
        with open(os.path.join(directory, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
        print(f"gen_models: {name} ({form}): {sum(manifest['ops'].values())} "
              f"ops, {len(manifest['params'])} parameters -> {directory}",
              flush=True)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=",".join(ALL_MODELS))
    parser.add_argument("--forms", default=",".join(ALL_FORMS))
    parser.add_argument("--image-size", type=int, default=64)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--static-batch", action="store_true")
    parser.add_argument("--timeout", type=int, default=600,
                        help="seconds per form (default 600)")
    parser.add_argument("--form", help=argparse.SUPPRESS)  # child process
    args = parser.parse_args()
    args.models = [m for m in args.models.split(",") if m]
    for model in args.models:
        if model not in ALL_MODELS:
            parser.error(f"unknown model '{model}' "
                         f"(known: {', '.join(ALL_MODELS)})")
    if args.form:
        # paddlepaddle 3.3.1 can abort in its exit handlers ("double free or
        # corruption"), and its signal handler then deadlocks in malloc: the
        # process hangs instead of exiting. A process that imported paddle
        # therefore leaves through os._exit once its files are written.
        status = 0
        try:
            generate(args)
        except BaseException:  # noqa: B036 - reported, then the status
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    forms = [f for f in args.forms.split(",") if f]
    for form in forms:
        if form not in ALL_FORMS:
            parser.error(f"unknown form '{form}' (known: pir, pdmodel)")
    for form in forms:
        env = dict(os.environ)
        env["FLAGS_enable_pir_api"] = "1" if form == "pir" else "0"
        # Paddle's own logging (glog) stays quiet unless something fails.
        env.setdefault("GLOG_minloglevel", "2")
        # One thread: the models are small, and OpenMP threads that spin
        # while waiting make a loaded machine (tests run in parallel) crawl.
        env.setdefault("OMP_NUM_THREADS", "1")
        command = [sys.executable, os.path.abspath(__file__), "--form", form,
                   "--out", args.out, "--models", ",".join(args.models),
                   "--image-size", str(args.image_size),
                   "--batch", str(args.batch)]
        if args.static_batch:
            command.append("--static-batch")
        try:
            subprocess.run(command, env=env, check=True,
                           timeout=args.timeout)
        except subprocess.TimeoutExpired:
            sys.exit(f"gen_models.py: the {form} form took more than "
                     f"{args.timeout} s (see the last 'building' line)")


if __name__ == "__main__":
    main()
