#!/usr/bin/env bash
# Bazel test //tests/e2e:codegen_numerics: every CPU code generation strategy
# (--codegen=auto / loop-order / scalar, --cpu=native / x86-64-v3 / x86-64-v4)
# on odd-shaped MatMul / Gemm / Conv models must match onnxruntime within
# 1e-4*sqrt(K) + 1e-5 + 1e-3*|ort| (see numerics_test.py).
# Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/codegen_numerics"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
