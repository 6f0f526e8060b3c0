#!/usr/bin/env python3
"""Runs ONNX backend-format tests through kilnc and kiln and classifies them.

A test is a directory holding `model.onnx` and `test_data_set_*/` folders with
`input_*.pb` / `output_*.pb` TensorProtos (the format of the node,
pytorch-converted, pytorch-operator and simple tests that ship inside the
`onnx` package). The `light` folder's full models (`light_NAME.onnx` with
`light_NAME_output_0.pb`) are staged into that form the way ONNX's own
backend runner does it: each float input is arange(n).reshape(shape) / n
(dims without a value count as 1) and the test is named `test_NAME`.

With several folders the summary gives the counts of each folder as well as
the total.

`--expect-ort FILE` names tests (one a line, `#` comments) whose shipped
expected outputs are known to be wrong; for those the expected outputs are
computed with onnxruntime (CPU) from the same inputs instead. The file says
why for each entry (an upstream ONNX bug, with its link).

Numeric mode (the default; needs --kiln): for every test the runner compiles
the model with `kilnc model.onnx -o TMP/model.kiln`, then for every
test_data_set_* runs `kiln run TMP/model.kiln --input NAME=input_I.pb ...
--output-dir TMP/out` (NAME: the I-th graph input that is not an initializer)
and compares each output TMP/out/<name>.npy with output_I.pb:
  shape        must be equal
  f32 (f64)    |got - want| <= atol + rtol * |want| with atol 1e-4, rtol 1e-3;
               atol 1e-3, rtol 1e-2 when the graph holds an op with a
               transcendental or reduction-order-sensitive kernel
               (LOOSE_F32_OPS below: Exp, Log, Tanh, Erf, Pow, Softmax, ...)
  f16, bf16    atol 1e-2, rtol 1e-2
  ints, bool   exact
  NaN == NaN and +-inf == +-inf (same sign) count as equal.

Import-only mode (--import-only; needs no kiln): imports the model with
`kilnc model.onnx --emit=kiln` and compares the result types of the printed
`@main` signature (shape and element type, matched by position and by
`kiln.name`) with the expected outputs of `test_data_set_0`; values are not
checked. This is the runner's behaviour from before Kiln had a runtime.

Each test ends as one of:
  passed       every output of every data set matched
  unsupported  kilnc reported unsupported op types, an unsupported dtype, an
               opset outside the range Kiln supports, an op the CPU back end
               "cannot be lowered" / a "dynamic shape" the CPU back end needs
               static (numeric mode), or an attribute value / feature it
               "is not supported" (e.g. training_mode = 1), a sequence/optional
               graph input, or a value-dependent ("data-dependent") shape
  failed       anything else: a crash (killed by a signal), any other kilnc
               or kiln error, a timeout, a missing output, or a mismatch

Usage (with the test venv that scripts/setup.sh creates):

    PY=~/.cache/kiln/venv/bin/python
    NODE=$($PY -c "import onnx,os;print(os.path.join(os.path.dirname(onnx.__file__),'backend/test/data/node'))")
    $PY tests/conformance/run_conformance.py $NODE --kilnc bazel-bin/tools/kilnc/kilnc \\
        --kiln bazel-bin/tools/kiln/kiln --jobs 2 \\
        --expect-pass tests/conformance/onnx_node_tests_passing.txt --report /tmp/node.tsv

`--write-pass-list FILE` rewrites the pass list from the current passes.
The exit status is non-zero only when `--expect-pass` names a test that did
not pass (or a test directory cannot be found at all).
"""

import argparse
import collections
import concurrent.futures
import dataclasses
import os
import re
import signal
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

# ONNX TensorProto data types as MLIR element types. Kiln handles f32 f16 bf16
# i8 i32 i64 i1; the rest are listed so that a wrong type reads naturally in a
# mismatch message rather than as a number.
ONNX_TO_MLIR = {
    onnx.TensorProto.FLOAT: "f32",
    onnx.TensorProto.FLOAT16: "f16",
    onnx.TensorProto.BFLOAT16: "bf16",
    onnx.TensorProto.INT8: "i8",
    onnx.TensorProto.INT32: "i32",
    onnx.TensorProto.INT64: "i64",
    onnx.TensorProto.BOOL: "i1",
    onnx.TensorProto.DOUBLE: "f64",
    onnx.TensorProto.INT16: "i16",
    onnx.TensorProto.UINT8: "ui8",
    onnx.TensorProto.UINT16: "ui16",
    onnx.TensorProto.UINT32: "ui32",
    onnx.TensorProto.UINT64: "ui64",
}

# Diagnostics of kilnc (compiler/onnx/GraphImporter.cpp, TensorDecoding.cpp)
# that mean "Kiln does not support this yet" rather than "Kiln is wrong".
UNSUPPORTED_OPS_RE = re.compile(r"ONNX operator type\(s\) Kiln does not support:")
UNSUPPORTED_OP_LINE_RE = re.compile(r"^\s+([\w.]+)::(\w+) \(")
UNSUPPORTED_DTYPE_RE = re.compile(r"does not handle dtype (\w+)")
UNSUPPORTED_OPSET_RE = re.compile(
    r"uses ONNX opset (-?\d+); Kiln supports opsets|imports no version of the default ONNX domain")
# The CPU back end (passes/lowering/KilnToLinalgPass.cpp, compiler/plan/HostPlan.cpp).
CPU_CANNOT_LOWER_RE = re.compile(r"'([\w.]+)' op cannot be lowered to linalg for the CPU back end")
CPU_DYNAMIC_RE = re.compile(r"'([\w.]+)' (?:op )?has a dynamic shape; the CPU back end needs static")
# Importer diagnostics for attribute values / features Kiln does not handle
# ("training_mode = 1 is not supported", "antialias = 1 is not supported").
UNSUPPORTED_FEATURE_RE = re.compile(
    r"error: (.*(?:is not supported|does not handle|Kiln does not mask).*)$", re.M)
# Sequence / optional graph inputs, and outputs whose shape depends on values.
NON_TENSOR_RE = re.compile(r"graph input '[^']*' is not a tensor; Kiln handles only tensors")
DATA_DEPENDENT_RE = re.compile(r"has a data-dependent shape")


@dataclasses.dataclass
class Result:
    name: str
    status: str  # passed | unsupported | failed
    detail: str = ""
    crash: bool = False
    # For unsupported tests: the op types ("Op" or "domain::Op") or the
    # reason ("dtype DOUBLE", "opset 5") that blocks them.
    blockers: list = dataclasses.field(default_factory=list)
    # The folder given on the command line that holds the test.
    folder: str = ""


def _is_light_folder(path):
    return any(re.fullmatch(r"light_\w+\.onnx", e) for e in os.listdir(path))


def stage_light_models(folder, stage_root):
    """Test directories (model.onnx + test_data_set_0) for the light_*.onnx
    models of `folder`, written under `stage_root`.

    Inputs follow onnx.backend.test.runner's generate_dummy_data(random=False):
    float inputs only, arange(n) / n in float32; the expected output is the
    shipped light_NAME_output_I.pb.
    """
    tests = []
    for entry in sorted(os.listdir(folder)):
        m = re.fullmatch(r"light_(\w+)\.onnx", entry)
        if not m:
            continue
        model_path = os.path.join(folder, entry)
        test_dir = os.path.join(stage_root, "test_" + m.group(1))
        data_dir = os.path.join(test_dir, "test_data_set_0")
        os.makedirs(data_dir, exist_ok=True)
        os.symlink(model_path, os.path.join(test_dir, "model.onnx"))
        model = onnx.load(model_path, load_external_data=False)
        inits = {i.name for i in model.graph.initializer}
        n_input = 0
        for graph_input in model.graph.input:
            if graph_input.name in inits:
                continue
            tensor_type = graph_input.type.tensor_type
            if tensor_type.elem_type != onnx.TensorProto.FLOAT:
                raise SystemExit(f"run_conformance: light model {entry}: input "
                                 f"'{graph_input.name}' is not float; cannot make its data")
            shape = tuple(d.dim_value if d.HasField("dim_value") else 1
                          for d in tensor_type.shape.dim)
            n = int(np.prod(shape))
            value = (np.arange(n).reshape(shape) / n).astype(np.float32)
            with open(os.path.join(data_dir, f"input_{n_input}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(value).SerializeToString())
            n_input += 1
        for i in range(len(model.graph.output)):
            expected = os.path.join(folder, f"light_{m.group(1)}_output_{i}.pb")
            if not os.path.exists(expected):
                raise SystemExit(f"run_conformance: light model {entry} has no {expected}")
            os.symlink(expected, os.path.join(data_dir, f"output_{i}.pb"))
        tests.append(test_dir)
    return tests


def find_tests(paths, stage_root=None):
    """[(folder, test directory)]: each path itself, or its children.

    `stage_root` (a scratch folder) is needed only for a `light` folder,
    whose models are staged into test directories there.
    """
    tests = []
    for path in paths:
        path = os.path.abspath(path)
        if os.path.isfile(os.path.join(path, "model.onnx")):
            tests.append((os.path.dirname(path), path))
            continue
        if not os.path.isdir(path):
            raise SystemExit(f"run_conformance: '{path}' is not a directory")
        found = sorted(
            os.path.join(path, entry) for entry in os.listdir(path)
            if os.path.isfile(os.path.join(path, entry, "model.onnx")))
        if not found and stage_root and _is_light_folder(path):
            found = stage_light_models(
                path, tempfile.mkdtemp(prefix="light-", dir=stage_root))
        if not found:
            raise SystemExit(f"run_conformance: no test directories (with model.onnx) in '{path}'")
        tests.extend((path, t) for t in found)
    return tests


def _skip_string(text, i):
    """Index just past the MLIR string literal starting at text[i] == '"'."""
    i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return i


def _split_top_level(text):
    """Splits on commas outside brackets and string literals."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i = _skip_string(text, i)
            continue
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    if text[start:].strip():
        parts.append(text[start:])
    return parts


def _unescape_mlir_string(body):
    # MLIR prints non-printable bytes and quotes as \XX hex escapes (and \\, \").
    out, i = bytearray(), 0
    raw = body.encode("utf-8")
    while i < len(raw):
        if raw[i] == 0x5C and i + 1 < len(raw):
            nxt = raw[i + 1:i + 3]
            if re.fullmatch(rb"[0-9a-fA-F]{2}", nxt):
                out.append(int(nxt, 16))
                i += 3
                continue
            out.append(raw[i + 1])
            i += 2
            continue
        out.append(raw[i])
        i += 1
    return out.decode("utf-8", errors="replace")


TENSOR_TYPE_RE = re.compile(r"^tensor<(.*)>$")
NAME_ATTR_RE = re.compile(r'kiln\.name\s*=\s*"((?:[^"\\]|\\.)*)"')


def parse_main_results(ir):
    """[(name or None, type string)] of the results of `func.func @main`.

    Returns None when the IR has no @main signature to read.
    """
    start = ir.find("func.func @main(")
    if start < 0:
        return None
    # Skip the argument list (argument attributes may hold strings with
    # parentheses, hence the literal-aware scan).
    i, depth = start + len("func.func @main"), 0
    while i < len(ir):
        c = ir[i]
        if c == '"':
            i = _skip_string(ir, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                i += 1
                break
        i += 1
    rest = ir[i:].lstrip()
    if not rest.startswith("->"):
        return []  # no results
    rest = rest[2:].lstrip()
    if rest.startswith("("):
        depth, j = 0, 0
        while j < len(rest):
            c = rest[j]
            if c == '"':
                j = _skip_string(rest, j)
                continue
            if c in "(<[{":
                depth += 1
            elif c in ")>]}":
                depth -= 1
                if depth == 0 and c == ")":
                    break
            j += 1
        results_text = rest[1:j]
    else:
        # A single result without attributes: up to the function body.
        results_text = rest.split(" {", 1)[0].split("attributes", 1)[0]
    results = []
    for part in _split_top_level(results_text):
        part = part.strip()
        attrs_at = part.find("{")
        type_text = (part[:attrs_at] if attrs_at >= 0 else part).strip()
        name_match = NAME_ATTR_RE.search(part[attrs_at:]) if attrs_at >= 0 else None
        name = _unescape_mlir_string(name_match.group(1)) if name_match else None
        results.append((name, type_text))
    return results


def expected_type(tensor):
    """MLIR tensor type string for an expected output TensorProto."""
    dims = "".join(f"{d}x" for d in tensor.dims)
    element = ONNX_TO_MLIR.get(tensor.data_type,
                               onnx.TensorProto.DataType.Name(tensor.data_type)
                               if tensor.data_type in onnx.TensorProto.DataType.values()
                               else f"dtype#{tensor.data_type}")
    return f"tensor<{dims}{element}>"


def load_expected_outputs(test_dir):
    """The output_*.pb tensors of test_data_set_0, in output order."""
    data_dir = os.path.join(test_dir, "test_data_set_0")
    if not os.path.isdir(data_dir):
        return None
    files = [f for f in os.listdir(data_dir) if re.fullmatch(r"output_\d+\.pb", f)]
    files.sort(key=lambda f: int(f[len("output_"):-len(".pb")]))
    tensors = []
    for f in files:
        tensor = onnx.TensorProto()
        with open(os.path.join(data_dir, f), "rb") as fh:
            tensor.ParseFromString(fh.read())
        tensors.append(tensor)
    return tensors


def graph_outputs(model_path):
    """[(name, declared elem_type or 0)] of the model's graph outputs."""
    # Only the graph's signature is needed; skip the (possibly large) weights.
    model = onnx.load(model_path, load_external_data=False)
    return [(o.name, o.type.tensor_type.elem_type if o.type.HasField("tensor_type") else 0)
            for o in model.graph.output]


def classify_error(stderr):
    """(status, blockers, detail) for a kilnc run that exited with an error."""
    if UNSUPPORTED_OPS_RE.search(stderr):
        ops = []
        for line in stderr.splitlines():
            m = UNSUPPORTED_OP_LINE_RE.match(line)
            if m:
                domain, op = m.groups()
                ops.append(op if domain == "ai.onnx" else f"{domain}::{op}")
        return "unsupported", ops, "unsupported ops: " + ", ".join(ops)
    m = UNSUPPORTED_DTYPE_RE.search(stderr)
    if m:
        return "unsupported", [f"dtype {m.group(1)}"], f"unsupported dtype {m.group(1)}"
    m = UNSUPPORTED_OPSET_RE.search(stderr)
    if m:
        reason = f"opset {m.group(1)}" if m.group(1) else "no default-domain opset"
        return "unsupported", [reason], f"unsupported {reason}"
    m = CPU_CANNOT_LOWER_RE.search(stderr)
    if m:
        return ("unsupported", [f"CPU cannot lower {m.group(1)}"],
                f"CPU back end cannot lower {m.group(1)}")
    m = CPU_DYNAMIC_RE.search(stderr)
    if m:
        return ("unsupported", ["CPU: dynamic shape"],
                f"CPU back end needs static shapes ({m.group(1)})")
    m = NON_TENSOR_RE.search(stderr)
    if m:
        return "unsupported", ["non-tensor graph input"], "unsupported: " + m.group(0)
    m = DATA_DEPENDENT_RE.search(stderr)
    if m:
        return ("unsupported", ["data-dependent shape"],
                "unsupported data-dependent (dynamic) shape: " + first_error_line(stderr))
    m = UNSUPPORTED_FEATURE_RE.search(stderr)
    if m:
        # Blank out names and numbers so that one limitation reads as one reason.
        msg = re.sub(r"'[^']*'", "'…'", m.group(1).strip())
        return "unsupported", ["feature: " + msg[:100]], "unsupported feature: " + m.group(1).strip()
    return "failed", [], first_error_line(stderr)


def first_error_line(stderr):
    lines = [l for l in stderr.splitlines() if l.strip()]
    for line in lines:
        if "error:" in line:
            # Drop the long absolute model path that prefixes every diagnostic.
            return line.split("error:", 1)[1].strip()
    return lines[0].strip() if lines else "(no message)"


def run_import_test(test_dir, kilnc, timeout):
    name = os.path.basename(test_dir)
    model_path = os.path.join(test_dir, "model.onnx")
    try:
        proc = subprocess.run([kilnc, model_path, "--emit=kiln"], capture_output=True,
                              text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return Result(name, "failed", f"TIMEOUT: kilnc ran longer than {timeout} s")
    except OSError as e:  # e.g. the binary vanished under a concurrent rebuild
        return Result(name, "failed", f"cannot run kilnc: {e}")
    if proc.returncode < 0:
        sig = -proc.returncode
        try:
            signame = signal.Signals(sig).name
        except ValueError:
            signame = f"signal {sig}"
        tail = " | ".join(l.strip() for l in proc.stderr.splitlines()[:3])
        return Result(name, "failed", f"CRASH ({signame}): {tail}", crash=True)
    if proc.returncode != 0:
        status, blockers, detail = classify_error(proc.stderr)
        return Result(name, status, detail, blockers=blockers)

    results = parse_main_results(proc.stdout)
    if results is None:
        return Result(name, "failed", "kilnc exited 0 but printed no func.func @main")
    try:
        expected = load_expected_outputs(test_dir)
        outputs = graph_outputs(model_path)
    except Exception as e:  # a sequence/optional output cannot be a TensorProto
        return Result(name, "failed", f"cannot read expected outputs: {e}")
    if expected is None:
        return Result(name, "failed", "no test_data_set_0")
    if len(results) != len(outputs) or len(expected) != len(outputs):
        return Result(name, "failed",
                      f"@main has {len(results)} results; the model has {len(outputs)} "
                      f"outputs and test_data_set_0 {len(expected)}")
    problems = []
    for i, ((got_name, got_type), (want_name, declared), tensor) in enumerate(
            zip(results, outputs, expected)):
        if got_name != want_name or (tensor.name and tensor.name != want_name):
            problems.append(f"output #{i}: name {got_name!r}, expected {want_name!r}")
            continue
        if (tensor.data_type == onnx.TensorProto.UINT16
                and declared == onnx.TensorProto.BFLOAT16):
            # The ONNX test generator stores bfloat16 data as UINT16 (numpy
            # has no bfloat16); the model's declared type is the truth here.
            tensor.data_type = onnx.TensorProto.BFLOAT16
        want_type = expected_type(tensor)
        if got_type != want_type:
            problems.append(f"output #{i} '{want_name}': {got_type}, expected {want_type}")
    if problems:
        return Result(name, "failed", "MISMATCH " + "; ".join(problems))
    return Result(name, "passed")


# ---------------------------------------------------------------- numeric mode

# Ops whose kernels use transcendental functions (Kiln's polynomial
# approximations vs. the reference's libm) or long reductions whose order
# differs from numpy's; a graph holding one gets the looser f32 tolerance.
LOOSE_F32_OPS = {
    "Exp", "Log", "Tanh", "Sigmoid", "Erf", "Pow", "Sqrt", "Reciprocal", "Sin", "Cos", "Tan",
    "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Softmax", "LogSoftmax",
    "Hardmax", "Softplus", "Softsign", "Elu", "Selu", "Celu", "Gelu", "Mish", "HardSwish",
    "HardSigmoid", "ThresholdedRelu", "LayerNormalization", "GroupNormalization",
    "InstanceNormalization", "BatchNormalization", "MeanVarianceNormalization", "LpNormalization",
    "ReduceLogSum", "ReduceLogSumExp", "ReduceL2", "ReduceMean", "ReduceSumSquare", "LRN",
    "LSTM", "GRU", "RNN", "Attention", "Einsum", "MatMul", "Gemm", "Conv", "ConvTranspose",
    "AveragePool", "GlobalAveragePool", "LpPool", "GlobalLpPool", "Resize", "GridSample",
    "Det", "RotaryEmbedding", "RMSNormalization", "SoftmaxCrossEntropyLoss",
    "NegativeLogLikelihoodLoss", "Swish",
}
TOLERANCE_STRICT_F32 = (1e-4, 1e-3)
TOLERANCE_LOOSE_F32 = (1e-3, 1e-2)
TOLERANCE_F16 = (1e-2, 1e-2)


def safe_name(name):
    """The file name `kiln run` writes an output under (tools/kiln)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def _numbered(data_dir, prefix):
    files = [f for f in os.listdir(data_dir) if re.fullmatch(prefix + r"_\d+\.pb", f)]
    files.sort(key=lambda f: int(f[len(prefix) + 1:-len(".pb")]))
    return [os.path.join(data_dir, f) for f in files]


def _bf16_to_f32(bits):
    return (np.asarray(bits).view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def to_comparable(array, is_bf16):
    """Float arrays as float64 for comparison; bf16 (stored as 16-bit words) decoded."""
    a = np.asarray(array)
    if is_bf16 or a.dtype.name == "bfloat16":
        if a.dtype.name == "bfloat16":
            return a.astype(np.float32).astype(np.float64)
        return _bf16_to_f32(a).astype(np.float64)
    return a


def compare_output(got, want, tolerance, exact):
    """None when got matches want; otherwise a short message."""
    if got.shape != want.shape:
        return f"shape {list(got.shape)}, expected {list(want.shape)}"
    if exact:
        g, w = got, want
        if got.dtype != want.dtype:
            try:
                g = got.astype(want.dtype)
            except (TypeError, ValueError):
                return f"dtype {got.dtype}, expected {want.dtype}"
        bad = g != w
        n = int(np.count_nonzero(bad))
        if n:
            idx = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
            return (f"{n}/{want.size} elements differ (dtype {want.dtype}); first at {list(idx)}: "
                    f"got {g[idx]!r}, expected {w[idx]!r}")
        return None
    atol, rtol = tolerance
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(g - w)
        same_special = (np.isnan(g) & np.isnan(w)) | (np.isinf(w) & (g == w))
        bad = ~same_special & ~(diff <= atol + rtol * np.abs(w))
    n = int(np.count_nonzero(bad))
    if n == 0:
        return None
    finite = np.where(bad, diff, 0.0)
    finite = np.where(np.isnan(finite), np.inf, finite)
    idx = tuple(int(i) for i in np.unravel_index(np.argmax(finite), finite.shape)) if finite.ndim else ()
    return (f"{n}/{want.size} elements beyond atol {atol:g} + rtol {rtol:g}; worst at {list(idx)}: "
            f"got {g[idx]:.6g}, expected {w[idx]:.6g}")


def _run_tool(name, args, timeout, what):
    """(proc, None) or (None, failed Result) for a tool run that timed out / crashed."""
    try:
        proc = subprocess.run(args, capture_output=True, text=True, errors="replace",
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, Result(name, "failed", f"TIMEOUT: {what} ran longer than {timeout:g} s")
    except OSError as e:  # e.g. the binary vanished under a concurrent rebuild
        return None, Result(name, "failed", f"cannot run {what}: {e}")
    if proc.returncode < 0:
        sig = -proc.returncode
        try:
            signame = signal.Signals(sig).name
        except ValueError:
            signame = f"signal {sig}"
        tail = " | ".join(l.strip() for l in proc.stderr.splitlines()[:3])
        return None, Result(name, "failed", f"CRASH in {what} ({signame}): {tail}", crash=True)
    return proc, None


def _fix_bf16_input(path, fixed_path):
    """The ONNX test generator stores bfloat16 inputs as UINT16 (numpy has no
    bfloat16); the bits are the same, so relabel them for `kiln run`."""
    tensor = onnx.TensorProto()
    with open(path, "rb") as fh:
        tensor.ParseFromString(fh.read())
    if tensor.data_type != onnx.TensorProto.UINT16:
        return path
    tensor.data_type = onnx.TensorProto.BFLOAT16
    with open(fixed_path, "wb") as fh:
        fh.write(tensor.SerializeToString())
    return fixed_path


def onnxruntime_outputs(model_path, input_names, input_files):
    """The outputs onnxruntime (CPU) computes for the given input files."""
    import onnxruntime  # only the tests listed in --expect-ort need it
    feeds = {}
    for input_name, path in zip(input_names, input_files):
        tensor = onnx.TensorProto()
        with open(path, "rb") as fh:
            tensor.ParseFromString(fh.read())
        feeds[input_name] = numpy_helper.to_array(tensor)
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # no warnings about unused initializers
    session = onnxruntime.InferenceSession(model_path, options,
                                           providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def run_numeric_test(test_dir, kilnc, kiln, timeout, expect_ort=False):
    name = os.path.basename(test_dir)
    model_path = os.path.join(test_dir, "model.onnx")
    try:
        model = onnx.load(model_path, load_external_data=False)
    except Exception as e:
        return Result(name, "failed", f"cannot load model.onnx: {e}")
    initializers = {i.name for i in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in initializers]
    input_names = [i.name for i in graph_inputs]
    input_types = [i.type.tensor_type.elem_type if i.type.HasField("tensor_type") else 0
                   for i in graph_inputs]
    outputs = [(o.name, o.type.tensor_type.elem_type if o.type.HasField("tensor_type") else 0)
               for o in model.graph.output]
    op_types = {n.op_type for n in model.graph.node}
    for f in model.functions:
        op_types.update(n.op_type for n in f.node)
    loose = bool(op_types & LOOSE_F32_OPS)
    data_dirs = sorted(d for d in (os.path.join(test_dir, e) for e in os.listdir(test_dir))
                       if os.path.basename(d).startswith("test_data_set_") and os.path.isdir(d))
    if not data_dirs:
        return Result(name, "failed", "no test_data_set_*")

    with tempfile.TemporaryDirectory(prefix="kiln-conf-") as tmp:
        artifact = os.path.join(tmp, "model.kiln")
        proc, failure = _run_tool(name, [kilnc, model_path, "-o", artifact], timeout, "kilnc")
        if failure:
            return failure
        if proc.returncode != 0:
            status, blockers, detail = classify_error(proc.stderr)
            if status == "failed":
                detail = "COMPILE: " + detail
            return Result(name, status, detail, blockers=blockers)

        for data_dir in data_dirs:
            set_name = os.path.basename(data_dir)
            inputs = _numbered(data_dir, "input")
            expected_files = _numbered(data_dir, "output")
            if len(inputs) > len(input_names):
                return Result(name, "failed", f"{set_name} has {len(inputs)} inputs; the graph "
                              f"takes {len(input_names)}")
            if len(expected_files) != len(outputs):
                return Result(name, "failed", f"{set_name} has {len(expected_files)} outputs; the "
                              f"graph has {len(outputs)}")
            out_dir = os.path.join(tmp, "out_" + set_name)
            args = [kiln, "run", artifact, "--output-dir", out_dir]
            for i, (input_name, path) in enumerate(zip(input_names, inputs)):
                if input_types[i] == onnx.TensorProto.BFLOAT16:
                    path = _fix_bf16_input(path, os.path.join(tmp, f"{set_name}_input_{i}.pb"))
                args += ["--input", f"{input_name}={path}"]
            proc, failure = _run_tool(name, args, timeout, "kiln run")
            if failure:
                return failure
            if proc.returncode != 0:
                return Result(name, "failed", "RUN: " + first_error_line(proc.stderr))
            problems = []
            ort_outputs = None
            if expect_ort:
                try:
                    ort_outputs = onnxruntime_outputs(model_path, input_names, inputs)
                except Exception as e:
                    return Result(name, "failed", f"onnxruntime cannot run the model: {e}")
            for k, ((out_name, declared), expected_file) in enumerate(zip(outputs, expected_files)):
                tensor = onnx.TensorProto()
                try:
                    with open(expected_file, "rb") as fh:
                        tensor.ParseFromString(fh.read())
                    want = numpy_helper.to_array(tensor)
                except Exception as e:  # sequences / optionals are not TensorProtos
                    return Result(name, "failed", f"cannot read {expected_file}: {e}")
                if ort_outputs is not None:
                    want = np.asarray(ort_outputs[k])
                got_path = os.path.join(out_dir, safe_name(out_name) + ".npy")
                if not os.path.exists(got_path):
                    problems.append(f"'{out_name}': no output file {os.path.basename(got_path)}")
                    continue
                try:
                    got = np.load(got_path, allow_pickle=False)
                except Exception as e:
                    problems.append(f"'{out_name}': cannot load the output .npy: {e}")
                    continue
                is_bf16 = (declared == onnx.TensorProto.BFLOAT16
                           or tensor.data_type == onnx.TensorProto.BFLOAT16)
                want_c, got_c = to_comparable(want, is_bf16), to_comparable(got, is_bf16)
                if want_c.dtype == np.bool_ or np.issubdtype(want_c.dtype, np.integer):
                    msg = compare_output(got_c, want_c, None, exact=True)
                elif is_bf16 or want_c.dtype == np.float16:
                    msg = compare_output(got_c, want_c, TOLERANCE_F16, exact=False)
                elif np.issubdtype(want_c.dtype, np.floating):
                    msg = compare_output(got_c, want_c,
                                         TOLERANCE_LOOSE_F32 if loose else TOLERANCE_STRICT_F32,
                                         exact=False)
                else:
                    msg = f"cannot compare dtype {want_c.dtype}"
                if msg:
                    problems.append(f"'{out_name}': {msg}")
            if problems:
                return Result(name, "failed", f"MISMATCH ({set_name}) " + "; ".join(problems))
    return Result(name, "passed")


def read_name_list(path):
    """Names, one a line; `#` starts a comment (a whole line or a line's tail)."""
    with open(path) as f:
        names = (line.split("#", 1)[0].strip() for line in f)
        return [n for n in names if n]


def write_report(path, results):
    with open(path, "w") as f:
        f.write("name\tstatus\tdetail\n")
        for r in results:
            detail = r.detail.replace("\t", " ").replace("\n", " ")
            f.write(f"{r.name}\t{r.status}\t{detail}\n")


def print_summary(results, max_failures):
    folders = sorted({r.folder for r in results})
    if len(folders) > 1:
        print("\nPer folder:")
        for folder in folders:
            c = collections.Counter(r.status for r in results if r.folder == folder)
            print(f"  {os.path.basename(folder):20s} {sum(c.values()):5d} tests: "
                  f"{c['passed']} passed, {c['unsupported']} unsupported, {c['failed']} failed")
    counts = collections.Counter(r.status for r in results)
    crashes = [r for r in results if r.crash]
    print(f"\n{len(results)} tests: {counts['passed']} passed, "
          f"{counts['unsupported']} unsupported, {counts['failed']} failed"
          + (f" ({len(crashes)} CRASHED)" if crashes else ""))
    if crashes:
        print(f"\n!!! {len(crashes)} CRASH(ES) — kilnc was killed by a signal; "
              "these are bugs whatever the input:")
        for r in crashes:
            print(f"  CRASH {r.name}: {r.detail}")

    blockers = collections.Counter()
    for r in results:
        if r.status == "unsupported":
            for b in set(r.blockers):
                blockers[b] += 1
    if blockers:
        print("\nTop unsupported op types / reasons (number of tests each blocks):")
        for blocker, n in blockers.most_common(30):
            print(f"  {n:5d}  {blocker}")
        if len(blockers) > 30:
            print(f"  ... and {len(blockers) - 30} more")

    failures = [r for r in results if r.status == "failed" and not r.crash]
    if failures:
        # Group by the message with names and types blanked out, so that one
        # importer limitation hitting 40 tests reads as one line.
        kinds = collections.Counter(
            re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N",
                   re.sub(r"(/[^\s:]+)+", "PATH",
                          re.sub(r"tensor<[^>]*>", "T", re.sub(r"'[^']*'", "'…'", r.detail))))[:140]
            for r in failures)
        print("\nFailure kinds (tests):")
        for kind, n in kinds.most_common(15):
            print(f"  {n:5d}  {kind}")
        print(f"\nFailures ({len(failures)}; first {min(len(failures), max_failures)}):")
        for r in failures[:max_failures]:
            print(f"  FAIL {r.name}: {r.detail[:300]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", help="test directories or folders of them")
    parser.add_argument("--kilnc", required=True, help="path to the kilnc binary")
    parser.add_argument("--kiln", help="path to the kiln binary (numeric mode)")
    parser.add_argument("--import-only", action="store_true",
                        help="only import with kilnc and check the output types (no kiln run)")
    parser.add_argument("--expect-pass", metavar="FILE",
                        help="tests (one name a line) that must pass; exit 1 otherwise")
    parser.add_argument("--expect-ort", metavar="FILE",
                        help="tests (one name a line) whose expected outputs come from "
                             "onnxruntime instead of the shipped output_*.pb")
    parser.add_argument("--write-pass-list", metavar="FILE",
                        help="write the sorted names of the passing tests to FILE")
    parser.add_argument("--jobs", type=int, default=2, help="parallel tests (default 2)")
    parser.add_argument("--filter", metavar="REGEX", help="only tests whose name matches (re.search)")
    parser.add_argument("--report", metavar="FILE", help="write a TSV: name, status, detail")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per kilnc / kiln run")
    parser.add_argument("--max-failures", type=int, default=40,
                        help="how many failures the summary lists")
    args = parser.parse_args()

    kilnc = os.path.abspath(args.kilnc)
    if not os.access(kilnc, os.X_OK):
        raise SystemExit(f"run_conformance: kilnc '{args.kilnc}' is not an executable file")
    if args.import_only:
        run_one = lambda t: run_import_test(t, kilnc, args.timeout)
    else:
        if not args.kiln:
            raise SystemExit("run_conformance: numeric mode needs --kiln (or pass --import-only)")
        kiln = os.path.abspath(args.kiln)
        if not os.access(kiln, os.X_OK):
            raise SystemExit(f"run_conformance: kiln '{args.kiln}' is not an executable file")
        expect_ort = set(read_name_list(args.expect_ort)) if args.expect_ort else set()
        run_one = lambda t: run_numeric_test(t, kilnc, kiln, args.timeout,
                                             os.path.basename(t) in expect_ort)
    with tempfile.TemporaryDirectory(prefix="kiln-conf-stage-") as stage_root:
        tests = find_tests(args.dirs, stage_root)
        if args.filter:
            pattern = re.compile(args.filter)
            tests = [t for t in tests if pattern.search(os.path.basename(t[1]))]

        def run_in_folder(folder_and_test):
            result = run_one(folder_and_test[1])
            result.folder = folder_and_test[0]
            return result

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(run_in_folder, tests))
    results.sort(key=lambda r: (r.folder, r.name))

    print_summary(results, args.max_failures)
    if args.report:
        write_report(args.report, results)
    if args.write_pass_list:
        with open(args.write_pass_list, "w") as f:
            for r in results:
                if r.status == "passed":
                    f.write(r.name + "\n")
        print(f"\nwrote {sum(r.status == 'passed' for r in results)} names to {args.write_pass_list}")

    if args.expect_pass:
        by_name = {r.name: r for r in results}
        expected = read_name_list(args.expect_pass)
        if args.filter:
            # A --filter run checks only the listed tests it selected.
            expected = [n for n in expected if pattern.search(n)]
        missing = [n for n in expected if n not in by_name]
        regressed = [by_name[n] for n in expected if n in by_name and by_name[n].status != "passed"]
        if missing or regressed:
            print(f"\nFAILED: {len(regressed) + len(missing)} of {len(expected)} tests in "
                  f"{args.expect_pass} did not pass:")
            for r in regressed:
                print(f"  {r.name}: {r.status}: {r.detail[:300]}")
            for n in missing:
                print(f"  {n}: not found among the test directories")
            return 1
        listed = set(expected)
        newly = sorted(r.name for r in results if r.status == "passed" and r.name not in listed)
        print(f"\nOK: all {len(expected)} tests in {args.expect_pass} passed")
        if newly:
            print(f"{len(newly)} more tests pass now; add them with --write-pass-list: "
                  + ", ".join(newly[:10]) + (" ..." if len(newly) > 10 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
