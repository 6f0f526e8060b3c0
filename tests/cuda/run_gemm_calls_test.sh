#!/usr/bin/env bash
# Bazel test //tests/cuda:gemm_calls_test: compiles the cuda GEMM test
# models with kilnc --target=cuda, checks every GemmCall in the plan
# against the ONNX model and runs the plan with NumPy (GEMMs as kiln.fbs
# defines them) against onnxruntime; see gemm_calls_test.py. No GPU.
# Arguments: KILNC SCRIPT MODELS_DIR.
set -euo pipefail
kilnc="$1" script="$2" models="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/gemm_calls_test"
exec "$python" "$script" --kilnc "$kilnc" --models "$models" --workdir "$workdir"
