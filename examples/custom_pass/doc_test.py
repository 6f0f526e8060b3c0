#!/usr/bin/env python3
"""//examples/custom_pass:doc_test: docs/custom-passes.md cannot rot.

The page marks its code blocks:
  <!-- include: PATH#REGION -->  the next block must equal the lines between
      `doc-region: REGION` and `doc-end: REGION` in PATH (without them);
  <!-- run -->  the next block is run with bash from a copy of the repository
      root (sources and the built tools under bazel-bin/, as after
      `bazel build`), the blocks in page order, sharing files;
  <!-- output of the previous block -->  the next block must equal what the
      run block before it printed on stdout.
Two substitutions make the blocks runnable inside a Bazel test: /tmp/ becomes
a private scratch folder, and ~/.cache/kiln/venv/bin/python the test's own
Python (the same venv, wherever KILN_CACHE put it; Bazel tests have another
HOME). The Python path is put in after the /tmp/ rewrite, so a venv under
/tmp (KILN_CACHE=/tmp/...) is not moved into the scratch folder.

usage: doc_test.py --doc docs/custom-passes.md --root DIR (the runfiles
       root, holding the sources and built files the blocks use)
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

MARKER = re.compile(r"^<!-- (include: (\S+)|run|output of the previous block) -->$")
FENCE = re.compile(r"^```")

# What the run blocks use, relative to the repository root: sources as they
# are, built files under bazel-bin/ (in the runfiles they sit beside the
# sources).
SOURCES = [
    "compiler/plugin/KilnPlugin.h",
    "dialects/kiln/KilnDialect.h",
    "examples/custom_pass/FuseLayerNorm.cpp",
    "examples/custom_pass/make_layer_norm_model.py",
]
BUILT = [
    "dialects/kiln/KilnDialect.h.inc",
    "dialects/kiln/KilnEnums.h.inc",
    "dialects/kiln/KilnOps.h.inc",
    "tools/kilnc/kilnc",
    "tools/kiln/kiln",
    "tools/kiln-opt/kiln-opt",
]


def blocks(doc_path):
    """Yields (kind, argument, block text, line number) for each marked block."""
    lines = open(doc_path).read().splitlines()
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        start = i + 1
        if start >= len(lines) or not FENCE.match(lines[start]):
            sys.exit(f"FAIL: {doc_path}:{i + 1}: a marker must be followed by a code block")
        end = start + 1
        while end < len(lines) and not FENCE.match(lines[end]):
            end += 1
        text = "\n".join(lines[start + 1:end]) + "\n"
        kind = "include" if m.group(2) else m.group(1).split()[0]
        yield kind, m.group(2), text, i + 1
        i = end + 1


def region(root, spec):
    path, _, name = spec.partition("#")
    lines = open(os.path.join(root, path)).read().splitlines()
    if not name:
        return "\n".join(lines) + "\n"
    begin = [i for i, l in enumerate(lines) if l.strip().endswith(f"doc-region: {name}")]
    end = [i for i, l in enumerate(lines) if l.strip().endswith(f"doc-end: {name}")]
    if len(begin) != 1 or len(end) != 1 or end[0] <= begin[0]:
        sys.exit(f"FAIL: {path} has no single region '{name}'")
    return "\n".join(lines[begin[0] + 1:end[0]]) + "\n"


# How the pages name the test venv's Python (scripts/setup.sh makes it under
# KILN_CACHE, ~/.cache/kiln by default).
DOC_PYTHON = "~/.cache/kiln/venv/bin/python"


def runnable_text(text, tmp, python):
    """`text` with /tmp/ replaced by `tmp` and DOC_PYTHON by `python`.

    The Python path goes in last: it may itself lie under /tmp/.
    """
    parts = text.split(DOC_PYTHON)
    return python.join(part.replace("/tmp/", tmp) for part in parts)


def make_repo(root, repo):
    for path in SOURCES:
        os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
        os.symlink(os.path.join(root, path), os.path.join(repo, path))
    for path in BUILT:
        target = os.path.join(repo, "bazel-bin", path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.symlink(os.path.join(root, path), target)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--doc", required=True)
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    scratch = tempfile.mkdtemp(prefix="kiln-doc-", dir=os.environ.get("TEST_TMPDIR"))
    repo = os.path.join(scratch, "repo")
    tmp = os.path.join(scratch, "tmp") + "/"
    os.makedirs(tmp)
    make_repo(root, repo)

    def runnable(text):
        return runnable_text(text, tmp, sys.executable)

    counts = {"include": 0, "run": 0, "output": 0}
    last_output = None
    for kind, argument, text, line in blocks(args.doc):
        counts[kind] += 1
        where = f"{args.doc}:{line}"
        if kind == "include":
            want = region(root, argument)
            if text != want:
                sys.exit(f"FAIL: {where}: the block differs from {argument}; copy it "
                         f"again.\n--- doc ---\n{text}--- {argument} ---\n{want}")
            print(f"ok: {where}: {argument} matches")
        elif kind == "run":
            proc = subprocess.run(["bash", "-euo", "pipefail", "-c", runnable(text)],
                                  cwd=repo, capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"FAIL: {where}: the block exited {proc.returncode}:\n{text}"
                         f"--- stdout ---\n{proc.stdout}--- stderr ---\n{proc.stderr}")
            last_output = proc.stdout
            print(f"ok: {where}: ran")
        else:
            if last_output is None:
                sys.exit(f"FAIL: {where}: an output block without a run block before it")
            if last_output != runnable(text):
                sys.exit(f"FAIL: {where}: the block before printed something else:\n"
                         f"--- doc ---\n{runnable(text)}--- printed ---\n{last_output}")
            print(f"ok: {where}: output matches")
            last_output = None
    if not all(counts.values()):
        sys.exit(f"FAIL: expected included, run and output blocks, found {counts}")
    print(f"PASS: {counts['include']} included, {counts['run']} run, "
          f"{counts['output']} outputs checked")


if __name__ == "__main__":
    main()
