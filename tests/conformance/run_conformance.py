#!/usr/bin/env python3
"""Runs ONNX backend-format tests through kilnc's importer and classifies them.

A test is a directory holding `model.onnx` and `test_data_set_*/` folders with
`input_*.pb` / `output_*.pb` TensorProtos (the format of the node tests that
ship inside the `onnx` package). For every test the runner imports the model
with `kilnc model.onnx --emit=kiln` and compares the result types of the
printed `@main` signature (shape and element type, matched by position and by
`kiln.name`) with the expected outputs of `test_data_set_0`. Kiln has no
runtime yet, so this checks import and type inference, not values.

Each test ends as one of:
  passed       imported, and every output type equals the expected one
  unsupported  kilnc reported unsupported op types, an unsupported dtype or an
               opset outside the range Kiln supports
  failed       anything else: a crash (killed by a signal), any other error,
               a timeout, or an output type that differs from the expected one

Usage (with the test venv that scripts/setup.sh creates):

    PY=~/.cache/kiln/venv/bin/python
    NODE=$($PY -c "import onnx,os;print(os.path.join(os.path.dirname(onnx.__file__),'backend/test/data/node'))")
    $PY tests/conformance/run_conformance.py $NODE --kilnc bazel-bin/tools/kilnc/kilnc \\
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

import onnx

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


@dataclasses.dataclass
class Result:
    name: str
    status: str  # passed | unsupported | failed
    detail: str = ""
    crash: bool = False
    # For unsupported tests: the op types ("Op" or "domain::Op") or the
    # reason ("dtype DOUBLE", "opset 5") that blocks them.
    blockers: list = dataclasses.field(default_factory=list)


def find_tests(paths):
    """Test directories under each path: the path itself, or its children."""
    tests = []
    for path in paths:
        path = os.path.abspath(path)
        if os.path.isfile(os.path.join(path, "model.onnx")):
            tests.append(path)
            continue
        if not os.path.isdir(path):
            raise SystemExit(f"run_conformance: '{path}' is not a directory")
        found = sorted(
            os.path.join(path, entry) for entry in os.listdir(path)
            if os.path.isfile(os.path.join(path, entry, "model.onnx")))
        if not found:
            raise SystemExit(f"run_conformance: no test directories (with model.onnx) in '{path}'")
        tests.extend(found)
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
    return "failed", [], first_error_line(stderr)


def first_error_line(stderr):
    lines = [l for l in stderr.splitlines() if l.strip()]
    for line in lines:
        if "error:" in line:
            # Drop the long absolute model path that prefixes every diagnostic.
            return line.split("error:", 1)[1].strip()
    return lines[0].strip() if lines else "(no message)"


def run_test(test_dir, kilnc, timeout):
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


def read_name_list(path):
    with open(path) as f:
        return [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")]


def write_report(path, results):
    with open(path, "w") as f:
        f.write("name\tstatus\tdetail\n")
        for r in results:
            detail = r.detail.replace("\t", " ").replace("\n", " ")
            f.write(f"{r.name}\t{r.status}\t{detail}\n")


def print_summary(results, max_failures):
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
            re.sub(r"tensor<[^>]*>", "T", re.sub(r"'[^']*'", "'…'", r.detail))[:140]
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
    parser.add_argument("--expect-pass", metavar="FILE",
                        help="tests (one name a line) that must pass; exit 1 otherwise")
    parser.add_argument("--write-pass-list", metavar="FILE",
                        help="write the sorted names of the passing tests to FILE")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--filter", metavar="REGEX", help="only tests whose name matches (re.search)")
    parser.add_argument("--report", metavar="FILE", help="write a TSV: name, status, detail")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per kilnc run")
    parser.add_argument("--max-failures", type=int, default=40,
                        help="how many failures the summary lists")
    args = parser.parse_args()

    kilnc = os.path.abspath(args.kilnc)
    if not os.access(kilnc, os.X_OK):
        raise SystemExit(f"run_conformance: kilnc '{args.kilnc}' is not an executable file")
    tests = find_tests(args.dirs)
    if args.filter:
        pattern = re.compile(args.filter)
        tests = [t for t in tests if pattern.search(os.path.basename(t))]

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda t: run_test(t, kilnc, args.timeout), tests))
    results.sort(key=lambda r: r.name)

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
