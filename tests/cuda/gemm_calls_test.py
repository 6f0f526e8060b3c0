#!/usr/bin/env python3
"""The cuda target's GEMM library calls, checked without a GPU.

For each model of tests/cuda/models (tests/onnx/make_test_models.py
cuda_gemm()):

1. `kilnc --target=cuda` compiles it; the artifact's cuda plan is decoded
   here (a small FlatBuffer reader over runtime/schema/kiln.fbs, stdlib
   only) and every LibraryCall's GemmCall is checked field by field
   against what the ONNX model implies (m, n, k, batch, transposes, leading
   dims, batch strides, alpha, beta, epilogue, and which buffer each
   operand binds).
2. The plan is then run on the CPU by a NumPy interpreter: LibraryCall
   steps by the GemmCall semantics of kiln.fbs (strided row-major
   matrices, op(X), batch strides, epilogues) reading and writing the
   plan's own buffers at the bindings' offsets; Copy steps as copies; the
   few generated-kernel Dispatch steps (im2col, a residual epilogue) by a
   NumPy version of what the ONNX node asks of them. The outputs must
   match onnxruntime's. This proves the parameter mapping (and the im2col
   layout the GEMM reads), not the GPU: nothing here runs cuBLASLt or PTX.

Usage: gemm_calls_test.py --kilnc KILNC --models DIR --workdir DIR
"""
import argparse
import math
import os
import shutil
import struct
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

HEADER_SIZE = 64
EPILOGUES = ["None", "Bias", "Relu", "BiasRelu", "Gelu", "BiasGelu"]
SPACES = ["Input", "Output", "Arena", "Constant"]
STEP_KINDS = ["Dispatch", "Copy", "CustomCall", "LibraryCall"]


# --- A minimal FlatBuffer reader ---------------------------------------------

class Table:
    """One FlatBuffer table: fields by their index in the schema."""

    def __init__(self, buf, pos):
        self.buf, self.pos = buf, pos
        self.vtable = pos - struct.unpack_from("<i", buf, pos)[0]
        self.vtable_size = struct.unpack_from("<H", buf, self.vtable)[0]

    def _field(self, index):
        at = 4 + 2 * index
        if at >= self.vtable_size:
            return 0
        return struct.unpack_from("<H", self.buf, self.vtable + at)[0]

    def scalar(self, index, fmt, default=0):
        off = self._field(index)
        return default if off == 0 else struct.unpack_from("<" + fmt, self.buf, self.pos + off)[0]

    def _indirect(self, index):
        off = self._field(index)
        if off == 0:
            return None
        at = self.pos + off
        return at + struct.unpack_from("<I", self.buf, at)[0]

    def table(self, index):
        at = self._indirect(index)
        return None if at is None else Table(self.buf, at)

    def string(self, index):
        at = self._indirect(index)
        if at is None:
            return ""
        n = struct.unpack_from("<I", self.buf, at)[0]
        return bytes(self.buf[at + 4:at + 4 + n]).decode()

    def vector(self, index):
        at = self._indirect(index)
        if at is None:
            return 0, 0
        return at + 4, struct.unpack_from("<I", self.buf, at)[0]

    def tables(self, index):
        start, n = self.vector(index)
        out = []
        for i in range(n):
            at = start + 4 * i
            out.append(Table(self.buf, at + struct.unpack_from("<I", self.buf, at)[0]))
        return out

    def scalars(self, index, fmt):
        start, n = self.vector(index)
        size = struct.calcsize("<" + fmt)
        return [struct.unpack_from("<" + fmt, self.buf, start + size * i)[0] for i in range(n)]

    def binding(self, index):
        """A Binding struct stored inline: space u8, index u32, offset u64,
        length u64 (24 bytes, 8-aligned)."""
        off = self._field(index)
        if off == 0:
            return None
        return read_binding(self.buf, self.pos + off)

    def bindings(self, index):
        start, n = self.vector(index)
        return [read_binding(self.buf, start + 24 * i) for i in range(n)]


def read_binding(buf, at):
    space, = struct.unpack_from("<B", buf, at)
    index, = struct.unpack_from("<I", buf, at + 4)
    offset, length = struct.unpack_from("<QQ", buf, at + 8)
    return {"space": SPACES[space], "index": index, "offset": offset, "length": length}


GEMM_FIELDS = ["dtype", "compute", "batch", "m", "n", "k", "transpose_a", "transpose_b",
               "lda", "ldb", "ldc", "ldd", "batch_stride_a", "batch_stride_b",
               "batch_stride_c", "batch_stride_d", "alpha", "beta", "epilogue",
               "a", "b", "c", "d", "bias"]


def decode_gemm(t):
    g = {}
    fmts = {"dtype": "B", "compute": "B", "transpose_a": "?", "transpose_b": "?",
            "alpha": "f", "beta": "f", "epilogue": "B"}
    defaults = {"batch": 1, "alpha": 1.0}
    for i, name in enumerate(GEMM_FIELDS):
        if name in ("a", "b", "c", "d", "bias"):
            g[name] = t.binding(i)
        else:
            g[name] = t.scalar(i, fmts.get(name, "Q"), defaults.get(name, 0))
    g["epilogue"] = EPILOGUES[g["epilogue"]]
    return g


def decode_artifact(path):
    data = open(path, "rb").read()
    assert data[:4] == b"KILN", path
    fb_offset, fb_size, const_offset, const_size = struct.unpack_from("<QQQQ", data, 16)
    buf = memoryview(data)[fb_offset:fb_offset + fb_size]
    model = Table(buf, struct.unpack_from("<I", buf, 0)[0])
    art = {"inputs": [], "outputs": [], "constants": [], "plans": []}
    for key, index in (("inputs", 3), ("outputs", 4)):
        for t in model.tables(index):
            art[key].append({"name": t.string(0), "dims": t.scalars(2, "q")})
    for c in model.tables(5):
        offset, size = c.scalar(1, "Q"), c.scalar(2, "Q")
        art["constants"].append(bytes(data[const_offset + offset:const_offset + offset + size]))
    for p in model.tables(7):
        plan = {"target": p.string(0), "arena_size": p.scalar(2, "Q"), "steps": []}
        for s in p.tables(1):
            step = {"kind": STEP_KINDS[s.scalar(0, "B")], "label": s.string(3)}
            if step["kind"] == "Dispatch":
                d = s.table(1)
                step["bindings"] = d.bindings(3)
            elif step["kind"] == "Copy":
                c = s.table(2)
                step["source"], step["target"] = c.binding(0), c.binding(1)
            elif step["kind"] == "LibraryCall":
                lc = s.table(5)
                step["library"], step["function"], step["node"] = lc.string(0), lc.string(1), lc.string(2)
                step["gemm"] = decode_gemm(lc.table(3))
            plan["steps"].append(step)
        art["plans"].append(plan)
    return art


# --- Running a plan with NumPy -----------------------------------------------

class Memory:
    def __init__(self, art, plan, inputs):
        self.spaces = {
            "Input": [bytearray(np.ascontiguousarray(x, np.float32).tobytes()) for x in inputs],
            "Output": [bytearray(4 * int(np.prod(o["dims"], dtype=np.int64)))
                       for o in art["outputs"]],
            "Arena": [bytearray(plan["arena_size"])],
            "Constant": [bytearray(c) for c in art["constants"]],
        }

    def f32(self, binding):
        """A writable float32 view of a binding's bytes."""
        space = self.spaces[binding["space"]]
        buf = space[0 if binding["space"] == "Arena" else binding["index"]]
        assert binding["offset"] + binding["length"] <= len(buf), binding
        view = memoryview(buf)[binding["offset"]:binding["offset"] + binding["length"]]
        return np.frombuffer(view, dtype=np.float32)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def run_gemm(g, mem):
    """kiln.fbs GemmCall: D[b] = epilogue(alpha op(A[b]) op(B[b]) + beta C[b])."""
    assert g["dtype"] == 0 and g["compute"] == 0  # F32
    m, n, k = g["m"], g["n"], g["k"]

    def matrix(binding, rows, cols, ld, stride, b):
        flat = mem.f32(binding)
        start = b * stride
        rows_view = np.lib.stride_tricks.as_strided(
            flat[start:], shape=(rows, cols), strides=(4 * ld, 4), writeable=False)
        return np.array(rows_view, dtype=np.float64)

    d = mem.f32(g["d"])
    assert g["ldd"] == n and d.size >= (g["batch"] - 1) * g["batch_stride_d"] + m * n
    for b in range(g["batch"]):
        a = matrix(g["a"], *((k, m) if g["transpose_a"] else (m, k)), g["lda"], g["batch_stride_a"], b)
        bm = matrix(g["b"], *((n, k) if g["transpose_b"] else (k, n)), g["ldb"], g["batch_stride_b"], b)
        a = a.T if g["transpose_a"] else a
        bm = bm.T if g["transpose_b"] else bm
        out = g["alpha"] * (a @ bm)
        if g["beta"] != 0:
            out += g["beta"] * matrix(g["c"], m, n, g["ldc"], g["batch_stride_c"], b)
        if "Bias" in g["epilogue"]:
            out += mem.f32(g["bias"])[None, :n]
        if "Relu" in g["epilogue"]:
            out = np.maximum(out, 0)
        if "Gelu" in g["epilogue"]:
            out = gelu_tanh(out)
        start = b * g["batch_stride_d"]
        d[start:start + m * n] = out.astype(np.float32).reshape(-1)


def run_plan(art, plan, inputs, kernels):
    """Runs `plan`; `kernels` emulates its Dispatch steps in order: a list of
    (label substring, function(list of float32 binding views))."""
    mem = Memory(art, plan, inputs)
    dispatches = iter(kernels)
    for step in plan["steps"]:
        if step["kind"] == "LibraryCall":
            assert step["library"] == "cublasLt" and step["function"] == "matmul", step
            run_gemm(step["gemm"], mem)
        elif step["kind"] == "Copy":
            mem.f32(step["target"])[:] = mem.f32(step["source"])
        elif step["kind"] == "Dispatch":
            expected, kernel = next(dispatches)
            assert expected in step["label"], (expected, step["label"])
            kernel([mem.f32(b) for b in step["bindings"]])
        else:
            raise AssertionError("unexpected step " + step["kind"])
    assert next(dispatches, None) is None, "the plan has fewer dispatches than expected"
    return [np.frombuffer(bytes(o), np.float32).reshape(spec["dims"])
            for o, spec in zip(mem.spaces["Output"], art["outputs"])]


# --- Checks -------------------------------------------------------------------

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL: " + what)


def check_gemm(name, g, expected):
    for key, value in expected.items():
        got = g[key]
        if key in ("a", "b", "c", "d", "bias"):
            got = {f: got[f] for f in value} if got else None
        if isinstance(value, float):
            ok = abs(got - value) < 1e-6
        else:
            ok = got == value
        check(ok, "%s: %s = %r, expected %r" % (name, key, got, value))


def binding(space, index=None, length=None):
    b = {"space": space}
    if index is not None:
        b["index"] = index
    if length is not None:
        b["length"] = length
    return b


def compile_cuda(kilnc, model, workdir):
    out = os.path.join(workdir, os.path.basename(model).replace(".onnx", ".kiln"))
    subprocess.run([kilnc, model, "--target=cuda", "-o", out], check=True)
    art = decode_artifact(out)
    check([p["target"] for p in art["plans"]] == ["cuda"], model + ": one cuda plan")
    plan = art["plans"][0]
    # No contraction is left to the kernel generator.
    for s in plan["steps"]:
        if s["kind"] == "Dispatch":
            check("matmul" not in s["label"] and "reduction" not in s["label"],
                  model + ": dispatch step '%s' is not a contraction" % s["label"])
    return art, plan


def ort_outputs(model, inputs):
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    return sess.run(None, dict(zip(names, inputs)))


def compare(name, got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        err = float(np.max(np.abs(g - w))) if g.size else 0.0
        scale = max(1.0, float(np.max(np.abs(w))))
        check(g.shape == w.shape and err <= 1e-4 * scale,
              "%s output %d: max error %.3g vs onnxruntime (shape %s vs %s)"
              % (name, i, err, g.shape, w.shape))
        print("%s output %d %s: max |kiln plan - onnxruntime| = %.3g"
              % (name, i, list(w.shape), err))


def library_calls(plan):
    return [s for s in plan["steps"] if s["kind"] == "LibraryCall"]


def test_gemm_bias_relu(args, rng):
    path = os.path.join(args.models, "gemm_bias_relu.onnx")
    art, plan = compile_cuda(args.kilnc, path, args.workdir)
    calls = library_calls(plan)
    check(len(plan["steps"]) == 1 and len(calls) == 1, "gemm_bias_relu: one step, a library call")
    # Gemm(x [4,16], w [8,16], b [8], transB=1) + Relu: w^T folds into a
    # [16, 8] constant; bias and ReLU are cuBLASLt's epilogue.
    check_gemm("gemm_bias_relu", calls[0]["gemm"], {
        "batch": 1, "m": 4, "n": 8, "k": 16, "transpose_a": False, "transpose_b": False,
        "lda": 16, "ldb": 8, "ldd": 8, "alpha": 1.0, "beta": 0.0, "epilogue": "BiasRelu",
        "a": binding("Input", 0, 4 * 64), "b": binding("Constant", length=4 * 128),
        "bias": binding("Constant", length=4 * 8), "d": binding("Output", 0, 4 * 32),
        "c": binding("Arena", length=0)})
    check(sorted(calls[0]["node"].split(",")) == ["fc", "fc_relu"],
          "gemm_bias_relu: node is '%s'" % calls[0]["node"])
    x = rng.standard_normal((4, 16)).astype(np.float32)
    compare("gemm_bias_relu", run_plan(art, plan, [x], []), ort_outputs(path, [x]))


def test_matmul_shapes(args, rng):
    path = os.path.join(args.models, "matmul_shapes.onnx")
    art, plan = compile_cuda(args.kilnc, path, args.workdir)
    calls = library_calls(plan)
    check(len(calls) == 4 and len(plan["steps"]) == 4,
          "matmul_shapes: 4 steps, all library calls (the transposes read in place)")
    by_node = {c["node"]: c["gemm"] for c in calls}
    check(sorted(by_node) == ["gemm_t", "mm_batched", "mm_broadcast", "mm_folded"],
          "matmul_shapes: nodes %s" % sorted(by_node))
    # a [2,3,4,5] x w [5,6]: the leading dims fold into m.
    check_gemm("mm_folded", by_node.get("mm_folded", {}), {
        "batch": 1, "m": 24, "n": 6, "k": 5, "lda": 5, "ldb": 6, "ldd": 6,
        "transpose_a": False, "transpose_b": False, "epilogue": "None",
        "a": binding("Input", 0, 4 * 120), "b": binding("Constant", length=4 * 30),
        "d": binding("Output", 0, 4 * 144)})
    # p [3,4,5] x q [3,5,6]: batch_matmul, every operand batched.
    check_gemm("mm_batched", by_node.get("mm_batched", {}), {
        "batch": 3, "m": 4, "n": 6, "k": 5, "lda": 5, "ldb": 6, "ldd": 6,
        "batch_stride_a": 20, "batch_stride_b": 30, "batch_stride_d": 24,
        "a": binding("Input", 1), "b": binding("Input", 2), "d": binding("Output", 1)})
    # r [4,5] x q [3,5,6]: one A for every batch (stride 0).
    check_gemm("mm_broadcast", by_node.get("mm_broadcast", {}), {
        "batch": 3, "m": 4, "n": 6, "k": 5, "batch_stride_a": 0, "batch_stride_b": 30,
        "batch_stride_d": 24, "a": binding("Input", 3), "b": binding("Input", 2),
        "d": binding("Output", 2)})
    # Gemm(u [5,4], v [6,5], c [4,6], transA=1, transB=1, alpha=2, beta=0.5):
    # u and v read in place, transposed; beta*c folds into a constant (beta 1).
    check_gemm("gemm_t", by_node.get("gemm_t", {}), {
        "batch": 1, "m": 4, "n": 6, "k": 5, "transpose_a": True, "transpose_b": True,
        "lda": 4, "ldb": 5, "ldc": 6, "ldd": 6, "alpha": 2.0, "beta": 1.0, "epilogue": "None",
        "a": binding("Input", 4, 4 * 20), "b": binding("Input", 5, 4 * 30),
        "c": binding("Constant", length=4 * 24), "d": binding("Output", 3, 4 * 24)})
    inputs = [rng.standard_normal(s).astype(np.float32)
              for s in ([2, 3, 4, 5], [3, 4, 5], [3, 5, 6], [4, 5], [5, 4], [6, 5])]
    compare("matmul_shapes", run_plan(art, plan, inputs, []), ort_outputs(path, inputs))


def test_matmul_gelu(args, rng):
    path = os.path.join(args.models, "matmul_gelu.onnx")
    art, plan = compile_cuda(args.kilnc, path, args.workdir)
    calls = library_calls(plan)
    check(len(calls) == 3, "matmul_gelu: 3 library calls")
    # Keyed by the (sorted) nodes each call's dispatch computed.
    by_node = {",".join(sorted(c["node"].split(","))): c["gemm"] for c in calls}
    # x [2,4,16] x w [16,32] + b + Gelu(tanh): the BiasGelu epilogue.
    check_gemm("mm+bias+gelu_tanh", by_node.get("bias,gelu_tanh,mm", {}), {
        "batch": 1, "m": 8, "n": 32, "k": 16, "epilogue": "BiasGelu",
        "bias": binding("Constant", length=4 * 32), "d": binding("Output", 0)})
    # The erf GELU is not cuBLASLt's: plain GEMM into the arena, then a
    # generated kernel; the same for the sigmoid.
    check_gemm("mm2", by_node.get("bias2,gelu_erf,mm2", {}), {
        "m": 8, "n": 32, "k": 16, "epilogue": "None", "d": binding("Arena", length=4 * 256)})
    check_gemm("mm3", by_node.get("mm3,sigmoid", {}), {
        "m": 8, "n": 32, "k": 16, "epilogue": "None", "d": binding("Arena", length=4 * 256)})
    weights = {t.name: onnx.numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}

    def erf_gelu(views):
        d, bias, out = views
        x = d.reshape(8, 32).astype(np.float64) + bias[None, :]
        out[:] = (0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))).reshape(-1)

    def sigmoid(views):
        d, out = views
        out[:] = 1 / (1 + np.exp(-d.astype(np.float64)))

    check(weights["b"].shape == (32,), "matmul_gelu: bias shape")
    x = rng.standard_normal((2, 4, 16)).astype(np.float32)
    got = run_plan(art, plan, [x], [("_epilogue", erf_gelu), ("_epilogue", sigmoid)])
    compare("matmul_gelu", got, ort_outputs(path, [x]))


def test_conv_gemm(args, rng):
    path = os.path.join(args.models, "conv_gemm.onnx")
    art, plan = compile_cuda(args.kilnc, path, args.workdir)
    calls = library_calls(plan)
    check(len(calls) == 2, "conv_gemm: 2 library calls")
    # conv3x3: x [2,4,8,8], w [6,4,3,3] -> cols [2, 36, 36] (im2col), then
    # D[n] = W [6, 36] x cols[n] [36, 36]: batch 2, W broadcast.
    check_gemm("conv3x3", calls[0]["gemm"] if calls else {}, {
        "batch": 2, "m": 6, "n": 36, "k": 36, "lda": 36, "ldb": 36, "ldd": 36,
        "batch_stride_a": 0, "batch_stride_b": 36 * 36, "batch_stride_d": 6 * 36,
        "transpose_a": False, "transpose_b": False, "epilogue": "None",
        "a": binding("Constant", length=4 * 6 * 36), "b": binding("Arena", length=4 * 2 * 36 * 36),
        "d": binding("Arena", length=4 * 2 * 6 * 36)})
    # conv1x1 on the [2, 6, 6, 6] activation: no im2col, the activation is B.
    check_gemm("conv1x1", calls[1]["gemm"] if len(calls) > 1 else {}, {
        "batch": 2, "m": 5, "n": 36, "k": 6, "lda": 6, "ldb": 36, "ldd": 36,
        "batch_stride_a": 0, "batch_stride_b": 6 * 36, "batch_stride_d": 5 * 36,
        "a": binding("Constant", length=4 * 30), "b": binding("Arena", length=4 * 2 * 6 * 36),
        "d": binding("Output", 0, 4 * 2 * 5 * 36)})
    weights = {t.name: onnx.numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}

    def im2col(views):
        # ONNX Conv (no pads, stride 1) windows as [N, C, KH, KW, OH, OW].
        x, cols = views
        x = x.reshape(2, 4, 8, 8)
        out = np.empty((2, 4, 3, 3, 6, 6), np.float32)
        for i in range(3):
            for j in range(3):
                out[:, :, i, j] = x[:, :, i:i + 6, j:j + 6]
        cols[:] = out.reshape(-1)

    def bias_relu(views):
        d, bias, out = views
        out[:] = np.maximum(d.reshape(2, 6, 36) + bias[None, :, None], 0).reshape(-1)

    check(weights["b3"].shape == (6,), "conv_gemm: bias shape")
    x = rng.standard_normal((2, 4, 8, 8)).astype(np.float32)
    got = run_plan(art, plan, [x], [("dispatch_0", im2col), ("_epilogue", bias_relu)])
    compare("conv_gemm", got, ort_outputs(path, [x]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kilnc", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    if not (os.access(os.path.join(cuda, "bin", "ptxas"), os.X_OK) or shutil.which("ptxas")):
        # As the lit tests' `REQUIRES: ptxas`: kilnc --target=cuda needs the
        # toolkit, so there is nothing to check here.
        print("UNSUPPORTED: no CUDA toolkit (ptxas); kilnc --target=cuda cannot run")
        return 0
    rng = np.random.default_rng(0)
    tests = [test_gemm_bias_relu, test_matmul_shapes, test_matmul_gelu, test_conv_gemm]
    for test in tests:
        try:
            test(args, rng)
        except Exception as e:  # report every model, then fail
            import traceback
            traceback.print_exc()
            FAILURES.append("%s: %s" % (test.__name__, e))
    print("%d models, %d failures" % (len(tests), len(FAILURES)))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
